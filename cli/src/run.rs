//! `cudart-shim run`: the program under the shim with tracing off: our
//! runtime preloaded (as `trace` chooses it) and the driver interposer
//! first on the library path, so that faults and hooks reach both layers.
//! Nothing is written (the flight recorder's dump aside, when asked for
//! and triggered); the program's exit status is passed through.

use crate::launch;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Options {
    /// Device-memory limit: SIZE for every device (64MiB) or per device
    /// (0=8GiB,1=4GiB); units B, KiB, MiB, GiB, TiB (K, M, G, T for
    /// short). Allocations past it fail with out-of-memory;
    /// cudaMemGetInfo/cuMemGetInfo report it.
    #[arg(long, value_name = "SPEC", value_parser = crate::sizes::memory_limit)]
    memory_limit: Option<String>,
    #[command(flatten)]
    faults: launch::Faults,
    #[command(flatten)]
    recorder: launch::Recorder,
    #[command(flatten)]
    watchdog: launch::Watchdog,
    #[command(flatten)]
    target: launch::Target,
}

pub fn run(o: Options) -> ExitCode {
    let mut launch = match launch::prepare(o.target.library, &o.target.program) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let cmd = &mut launch.cmd;
    // Tracing off, whatever the environment says.
    for v in ["CUDART_SHIM_TRACE", "CUDART_SHIM_TRACE_FILE", "CUDART_SHIM_TRACE_SESSION"] {
        cmd.env_remove(v);
    }
    if let Some(spec) = &o.memory_limit {
        cmd.env("CUDART_SHIM_MEMORY_LIMIT", spec);
    }
    // The flight recorder alone: the one trace mode `run` takes.
    if o.recorder.recorder.is_some() {
        cmd.env("CUDART_SHIM_TRACE", "recorder");
        for (k, v) in o.recorder.vars() {
            if let Some(v) = v {
                cmd.env(k, v);
            }
        }
    }
    // The watchdog: its variables, and NVTX ranges (a hang report names
    // each thread's open ranges).
    if o.watchdog.any() {
        for (k, v) in o.watchdog.vars() {
            if let Some(v) = v {
                cmd.env(k, v);
            }
        }
        crate::trace::nvtx_injection(cmd, launch.libs.primary());
    }
    if let Err(code) = o.faults.apply(launch.libs.primary(), cmd) {
        return code;
    }
    // The interposer's links live in a private folder for the run.
    let private = match crate::library::private_dir("run") {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cudart-shim: cannot make a private folder in {}: {e}", std::env::temp_dir().display());
            return ExitCode::from(2);
        }
    };
    crate::api_layers::ApiLayers { no_runtime_api: false, no_driver_api: false }.apply(cmd, launch.libs.primary(), &private);
    let code = match launch::status(cmd, &o.target.program[0]) {
        Ok(s) => launch::exit_code(s),
        Err(code) => code,
    };
    let _ = std::fs::remove_dir_all(&private);
    code
}
