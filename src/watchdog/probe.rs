//! What the progress state needs from the layers above it (kernel names,
//! the current context) and the watchdog's progress probe: which launched
//! work has completed, asked of the driver from our own thread.

use crate::driver::api;
use crate::trace::progress;
use std::ffi::{c_char, CStr};

/// Register the kernel namer and the context reader (once).
pub fn install() {
    progress::set_function_namer(name_function);
    progress::set_context_reader(current_context);
}

/// A launched function's name: the runtime's registry for a runtime
/// launch (host stub or kernel handle), else the driver's name for the
/// function or kernel handle.
fn name_function(f: u64, runtime: bool, out: &mut String) -> bool {
    if runtime && crate::runtime::registry::trace_name(f, out) {
        return true;
    }
    let mut p: *const c_char = std::ptr::null();
    // SAFETY: an out-pointer; the driver checks the handle.
    let ok = matches!(api::cuFuncGetName.get(), Ok(g) if unsafe { g(&mut p, f as _) }.0 == 0 && !p.is_null())
        // SAFETY: as above, for a kernel handle.
        || matches!(api::cuKernelGetName.get(), Ok(g) if unsafe { g(&mut p, f as _) }.0 == 0 && !p.is_null());
    if ok {
        // SAFETY: the driver's NUL-terminated name.
        out.push_str(&unsafe { CStr::from_ptr(p) }.to_string_lossy());
    }
    ok
}

/// The calling thread's current context (0: none or unknown).
fn current_context() -> u64 {
    let mut c = std::ptr::null_mut();
    // SAFETY: an out-pointer.
    match api::cuCtxGetCurrent.get() {
        Ok(g) if unsafe { g(&mut c) }.0 == 0 => c as u64,
        _ => 0,
    }
}
