//! The `cudart-shim` command: run a program under the shim with tracing on
//! (`trace`) or off (`run`), print the summary of saved traces and compare ranks
//! (`report`), and say what the machine offers (`doctor`).
//!
//! One module per subcommand; this file holds the command line and
//! dispatches.

mod api_layers;
mod doctor;
mod gpu_report;
mod launch;
mod library;
mod report;
mod run;
mod sizes;
mod trace;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cudart-shim", version, about = "cudart-shim: an open CUDA runtime; trace CUDA programs")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run PROGRAM under the shim (LD_PRELOAD) with tracing on; print each
    /// process's summary when it ends and name the files written. Preloads
    /// libcudart_shim.so (libcudart.so.13), libcudart_shim12.so
    /// (libcudart.so.12) or both, as PROGRAM's load closure asks; both for
    /// interpreters (python, torchrun) and scripts.
    Trace(Box<trace::Options>),
    /// Run PROGRAM under the shim with tracing off: the same libraries as
    /// `trace` (our runtime preloaded, the driver interposer first on the
    /// library path), nothing written; PROGRAM's exit status is ours.
    Run(run::Options),
    /// Print the summary table of saved traces (timelines from `trace
    /// --timeline`, or summary JSON files); with several files, each
    /// rank's summary and a cross-rank table.
    Report(report::Options),
    /// Say which driver, GPUs, runtime versions and libraries are found
    /// (libcudart.so.13 and libcudart.so.12 each), and why anything is
    /// missing.
    Doctor {
        /// The cudart-shim library to check (default: next to this
        /// command, or target/<profile>); must exist. The other ABI's
        /// library beside it is checked too.
        #[arg(long, value_name = "PATH")]
        library: Option<PathBuf>,
        /// The Python interpreter to ask whether it can `import
        /// cudart_shim` (default: $VIRTUAL_ENV's, $CONDA_PREFIX's, the one
        /// beside this command, else python3 on the PATH); must exist.
        #[arg(long, value_name = "PATH")]
        python: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().cmd {
        Cmd::Trace(o) => trace::run(*o),
        Cmd::Run(o) => run::run(o),
        Cmd::Report(o) => report::run(o),
        Cmd::Doctor { library, python } => doctor::run(library, python),
    }
}
