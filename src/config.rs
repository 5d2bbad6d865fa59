//! Reading the environment and setting up diagnostics.
//!
//! Variables are read with `secure_getenv` semantics: in a setuid/setgid
//! program every `CUDART_SHIM_*` variable is ignored, so the library cannot
//! be steered into writing files or loading code with raised privileges.

use std::ffi::CString;
use std::sync::Once;

/// The value of `name`, or None when unset, not UTF-8, or the process runs
/// with raised privileges.
pub fn env_var(name: &str) -> Option<String> {
    let key = CString::new(name).ok()?;
    // SAFETY: key is a valid C string; secure_getenv returns NULL or a pointer
    // into the environment that we copy at once.
    let p = unsafe { secure_getenv(key.as_ptr()) };
    if p.is_null() {
        return None;
    }
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().ok().map(str::to_owned)
}

unsafe extern "C" {
    /// glibc: getenv, but NULL when the process is setuid/setgid (AT_SECURE).
    fn secure_getenv(name: *const std::ffi::c_char) -> *mut std::ffi::c_char;
}

static LOGGING: Once = Once::new();

/// Set up our `log` output once: filter from `CUDART_SHIM_LOG` (env_logger
/// syntax, default `warn`), lines to stderr prefixed `cudart-shim`.
///
/// The `log` crate's logger is a static of *our* copy of the crate (a cdylib
/// links its own), so this cannot replace a logger the host program owns; in
/// the rlib (tests) `try_init` leaves an existing logger alone.
pub fn init_logging() {
    LOGGING.call_once(|| {
        let filter = env_var("CUDART_SHIM_LOG").unwrap_or_else(|| "warn".to_owned());
        let mut b = env_logger::Builder::new();
        b.parse_filters(&filter)
            .target(env_logger::Target::Stderr)
            .format(|buf, rec| {
                use std::io::Write;
                writeln!(buf, "cudart-shim {}: {}", rec.level().as_str().to_lowercase(), rec.args())
            });
        let _ = b.try_init();
        log::debug!("CUDART_SHIM_LOG={filter}");
    });
}
