//! Starting a program under the shim: what `trace` and `run` share (which
//! libraries to preload, the command, the exit status passed through).

use crate::library::{self, Libraries};
use std::path::PathBuf;
use std::process::{Command, ExitCode, ExitStatus};

/// Which library and which program (the last options of `trace` and `run`).
#[derive(clap::Args)]
pub struct Target {
    /// The cudart-shim library to preload (default: next to this command,
    /// or target/<profile>); must exist. Its SONAME says its ABI
    /// (libcudart.so.13 or .12); the other ABI's library beside it is
    /// preloaded too when the program needs it (interpreters: both). A
    /// library of an ABI the program does not load is an error.
    #[arg(long, value_name = "PATH")]
    pub library: Option<PathBuf>,
    /// The program and its arguments (`--` before them is optional; needed
    /// only when PROGRAM starts with `-`).
    #[arg(required = true, trailing_var_arg = true, value_name = "PROGRAM [ARGS]")]
    pub program: Vec<String>,
}

/// The program under the shim, ready to be given its environment.
pub struct Launch {
    pub libs: Libraries,
    pub cmd: Command,
}

/// Find the libraries (`library`: the user's choice, else beside this
/// command), choose which to preload for `program` (its load closure says
/// libcudart.so.13, .12 or both) and make the command with `LD_PRELOAD`
/// set (the program's own preloads kept after ours). Err: the exit code,
/// the message already printed.
pub fn prepare(library: Option<PathBuf>, program: &[String]) -> Result<Launch, ExitCode> {
    let libs = library::find_all(library).map_err(|e| {
        eprintln!("cudart-shim: {}", e.message);
        e.exit_code
    })?;
    let to_preload = library::to_preload(&libs, &library::resolve_program(&program[0])).map_err(|m| {
        eprintln!("cudart-shim: {m}");
        ExitCode::from(2)
    })?;
    let ours: Vec<String> = to_preload.iter().map(|l| l.display().to_string()).collect();
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", ours.join(":")),
        _ => ours.join(":"),
    };
    let mut cmd = Command::new(&program[0]);
    cmd.args(&program[1..]).env("LD_PRELOAD", preload);
    Ok(Launch { libs, cmd })
}

/// Run it to the end. Err: a shell's code for a program that cannot be
/// started (127 not found, 126 not executable).
pub fn status(cmd: &mut Command, program: &str) -> Result<ExitStatus, ExitCode> {
    cmd.status().map_err(|e| {
        eprintln!("cudart-shim: cannot run {program}: {e}");
        ExitCode::from(if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 })
    })
}

/// The program's exit status as ours: its code, or 128 + the signal that
/// ended it, as a shell reports it.
pub fn exit_code(status: ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => ExitCode::from(c as u8),
        (None, Some(s)) => ExitCode::from(128 + s as u8),
        _ => ExitCode::from(1),
    }
}
