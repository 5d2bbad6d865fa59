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

/// `--recorder[=N]` and `--recorder-sigusr1`, for `trace` and `run`.
#[derive(clap::Args)]
pub struct Recorder {
    /// Flight recorder: keep each thread's last N calls (default 1024),
    /// runtime and driver, and dump them (stderr and
    /// cudart-shim-recorder-<pid>.log/.pftrace in the working folder) when a
    /// call returns a sticky error, on SIGSEGV, SIGBUS, SIGILL, SIGFPE or
    /// SIGABRT, and on cudartShimFlush(). Nothing is written otherwise.
    /// With `trace`, turns the default summary off (--summary keeps it).
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true, default_missing_value = "1024",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub recorder: Option<u32>,
    /// With --recorder: SIGUSR1 dumps the recorder too (and the program
    /// goes on).
    #[arg(long, requires = "recorder")]
    pub recorder_sigusr1: bool,
}

impl Recorder {
    /// The recorder's variables (the mode itself is the caller's:
    /// `recorder` in `CUDART_SHIM_TRACE`).
    pub fn vars(&self) -> [(&'static str, Option<String>); 2] {
        [
            ("CUDART_SHIM_RECORDER_SIZE", self.recorder.map(|n| n.to_string())),
            ("CUDART_SHIM_RECORDER_SIGUSR1", self.recorder_sigusr1.then(|| "1".to_owned())),
        ]
    }
}

/// `--watchdog SECONDS`, `--watchdog-action`, `--dump-signal`, for
/// `trace` and `run` (docs/HANGS.md).
#[derive(clap::Args)]
pub struct Watchdog {
    /// Watchdog: when nothing has progressed for SECONDS (a thread inside
    /// one CUDA call, or a stream holding work with nothing completed, or
    /// no CUDA call returned), write a hang report
    /// (cudart-shim-hang-<pid>.json, or CUDART_SHIM_HANG_FILE with %p, %r)
    /// and one stderr line; the program goes on. CUDART_SHIM_WATCHDOG.
    #[arg(long, value_name = "SECONDS", value_parser = trace_format::hang::parse_watchdog_seconds)]
    pub watchdog: Option<f64>,
    /// report (the default) or abort: raise SIGABRT after the report
    /// (the recorder, when on, dumps too). CUDART_SHIM_WATCHDOG_ACTION.
    #[arg(long, value_name = "report|abort", value_parser = ["report", "abort"], requires = "watchdog")]
    pub watchdog_action: Option<String>,
    /// Write the hang report whenever the program receives this signal
    /// (USR2, USR1, HUP, URG, WINCH, PWR); the program goes on, and its own
    /// handler, if any, still runs. CUDART_SHIM_DUMP_SIGNAL.
    #[arg(long, value_name = "USR2", value_parser = trace_format::hang::parse_dump_signal)]
    pub dump_signal: Option<i32>,
}

impl Watchdog {
    /// Whether anything is asked.
    pub fn any(&self) -> bool {
        self.watchdog.is_some() || self.dump_signal.is_some()
    }

    /// The variables that ask for it (None: leave the variable alone).
    pub fn vars(&self) -> [(&'static str, Option<String>); 3] {
        [
            ("CUDART_SHIM_WATCHDOG", self.watchdog.map(|s| s.to_string())),
            ("CUDART_SHIM_WATCHDOG_ACTION", self.watchdog_action.clone()),
            ("CUDART_SHIM_DUMP_SIGNAL", self.dump_signal.map(|s| s.to_string())),
        ]
    }
}

/// `--fault SPEC` (repeatable): faults injected without code, judged by
/// the library before the program starts.
#[derive(clap::Args)]
pub struct Faults {
    /// Inject a fault: GLOB:KEY=VALUE:... over runtime (cuda*) or driver
    /// (cu*) function names, e.g. cudaMalloc:nth=3:error=cudaErrorMemoryAllocation.
    /// Keys: nth, every, after (seconds), p with seed, device, count, error=NAME,
    /// sticky, delay (ms). Repeat for several. See docs/CONTROL.md.
    #[arg(long = "fault", value_name = "SPEC")]
    pub specs: Vec<String>,
}

impl Faults {
    /// Judge the specs with the library `lib` (its parser is the one the
    /// program will use) and pass them in `CUDART_SHIM_FAULTS`. Err: exit 2,
    /// the message (the bad part and what is allowed) printed.
    pub fn apply(&self, lib: &std::path::Path, cmd: &mut Command) -> Result<(), ExitCode> {
        if self.specs.is_empty() {
            return Ok(());
        }
        if let Some(bad) = self.specs.iter().find(|s| s.contains(';')) {
            eprintln!("cudart-shim: --fault {bad:?}: give one spec per --fault (no ';')");
            return Err(ExitCode::from(2));
        }
        let joined = self.specs.join(";");
        type Check = unsafe extern "C" fn(*const std::ffi::c_char, *mut std::ffi::c_char, usize) -> std::ffi::c_int;
        // SAFETY: our own runtime library; loading it runs no CUDA code.
        let lib = unsafe { libloading::Library::new(lib) }.map_err(|e| {
            eprintln!("cudart-shim: cannot load {} to check --fault: {e}", lib.display());
            ExitCode::from(1)
        })?;
        // SAFETY: the symbol has this type (src/api/shim.rs).
        let check = unsafe { lib.get::<Check>(b"cudartShimInternalCheckFaults\0") }.map_err(|e| {
            eprintln!("cudart-shim: this library cannot inject faults ({e}): rebuild it");
            ExitCode::from(1)
        })?;
        let c = std::ffi::CString::new(joined.clone()).map_err(|_| ExitCode::from(2))?;
        let mut msg = vec![0u8; 4096];
        // SAFETY: a C string and a writable buffer of its length.
        if unsafe { check(c.as_ptr(), msg.as_mut_ptr().cast(), msg.len()) } != 0 {
            let end = msg.iter().position(|&b| b == 0).unwrap_or(msg.len());
            eprintln!("cudart-shim: --fault: {}", String::from_utf8_lossy(&msg[..end]));
            return Err(ExitCode::from(2));
        }
        cmd.env("CUDART_SHIM_FAULTS", joined);
        Ok(())
    }
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

/// Preload `lib` too, after our runtimes (which [`prepare`] put first, the
/// program's own preloads after them).
pub fn preload_too(cmd: &mut Command, lib: &std::path::Path) {
    let cur = cmd.get_envs().find(|(k, _)| *k == "LD_PRELOAD").and_then(|(_, v)| v).map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
    let mut parts: Vec<String> = cur.split(':').filter(|p| !p.is_empty()).map(str::to_owned).collect();
    let ours = parts.iter().take_while(|p| std::path::Path::new(p).file_name().is_some_and(|n| n.to_string_lossy().starts_with("libcudart_shim"))).count();
    parts.insert(ours, lib.display().to_string());
    cmd.env("LD_PRELOAD", parts.join(":"));
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
