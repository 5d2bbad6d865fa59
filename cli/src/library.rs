//! Which cudart-shim library `trace` preloads and `doctor` checks.

use std::path::PathBuf;
use std::process::ExitCode;

/// Why no library: `exit_code` is what the command exits with.
pub struct NotFound {
    pub message: String,
    pub exit_code: ExitCode,
}

/// The library named by `--library` or `$CUDART_SHIM_LIBRARY`, which must
/// exist (a path given and not found is a usage error, exit 2: never a
/// silent fall back to another library); else the one next to this
/// command, or target/{release,debug} under the current directory.
pub fn find(explicit: Option<PathBuf>) -> Result<PathBuf, NotFound> {
    let named = explicit.map(|p| (p, "--library")).or_else(|| std::env::var_os("CUDART_SHIM_LIBRARY").map(|p| (p.into(), "CUDART_SHIM_LIBRARY")));
    if let Some((p, by)) = named {
        return if p.is_file() {
            std::fs::canonicalize(&p).map_err(|e| NotFound { message: format!("{}: {e}", p.display()), exit_code: ExitCode::from(2) })
        } else {
            let why = if p.exists() { "is not a file" } else { "does not exist" };
            Err(NotFound { message: format!("{by} {}: {why}", p.display()), exit_code: ExitCode::from(2) })
        };
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe()
        && let Some(d) = exe.parent()
    {
        candidates.push(d.join("libcudart_shim.so"));
        candidates.push(d.join("../lib/libcudart_shim.so"));
    }
    for prof in ["release", "debug"] {
        candidates.push(PathBuf::from("target").join(prof).join("libcudart_shim.so"));
    }
    if let Some(c) = candidates.iter().find(|c| c.is_file()) {
        return std::fs::canonicalize(c).map_err(|e| NotFound { message: format!("{}: {e}", c.display()), exit_code: ExitCode::from(127) });
    }
    let tried: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
    Err(NotFound {
        message: format!("libcudart_shim.so not found (tried {}); build it with `cargo build --release` or pass --library", tried.join(", ")),
        exit_code: ExitCode::from(127),
    })
}
