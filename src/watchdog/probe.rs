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

/// `CUDA_SUCCESS`, `CUDA_ERROR_NOT_READY`.
const SUCCESS: i32 = 0;
/// `CU_STREAM_CAPTURE_STATUS_NONE`.
const NOT_CAPTURING: i32 = 0;
/// `CU_STREAM_CAPTURE_MODE_RELAXED`.
const RELAXED: i32 = 2;

/// The progress probe: for every stream holding work, ask the driver from
/// this thread (ours) whether it is idle; if it is, everything launched on
/// it before the question is complete. A stream that captures is skipped
/// (a query would end its capture). Our thread's capture mode is relaxed,
/// so a capture on another thread never forbids the question. The calls go
/// through the runtime's driver table as our own ([`progress::internal`]):
/// never through the program's entry points, so nothing the program sees
/// changes (no last error, no sticky state).
pub fn probe_streams() {
    if crate::service::stopping() || !crate::driver::loader::opened() {
        return;
    }
    progress::internal(|| {
        static RELAXED_SET: std::sync::Once = std::sync::Once::new();
        RELAXED_SET.call_once(|| {
            let mut mode = RELAXED;
            if let Ok(f) = api::cuThreadExchangeStreamCaptureMode.get() {
                // SAFETY: an in/out int.
                unsafe { f(&mut mode) };
            }
        });
        for s in progress::streams() {
            if s.launched <= s.completed {
                continue;
            }
            let Some(handle) = progress::stream_handle(s.key) else { continue };
            probe_one(s.rec, handle, s.key);
        }
    });
}

fn probe_one(rec: &'static progress::StreamRec, handle: u64, key: u64) {
    use std::sync::atomic::Ordering::*;
    rec.probing.store(true, SeqCst);
    // Destroyed meanwhile (`progress::forget_stream` clears the key first).
    if rec.key() != key || crate::service::stopping() {
        rec.probing.store(false, SeqCst);
        return;
    }
    let launched = rec.launched();
    let ctx = rec.ctx.load(Relaxed);
    // The legacy stream is the current context's: make the program's
    // context (as of the stream's first launch) current on our thread.
    if handle == 1 && ctx != 0
        && let Ok(set) = api::cuCtxSetCurrent.get()
    {
        // SAFETY: a context handle the driver gave the program.
        unsafe { set(ctx as _) };
    }
    let mut status = NOT_CAPTURING;
    // SAFETY: a stream handle the program launched on, not destroyed
    // (checked above; a destroying thread waits for `probing`).
    let capturing = match api::cuStreamIsCapturing.get() {
        Ok(f) => unsafe { f(handle as _, &mut status) }.0 != SUCCESS || status != NOT_CAPTURING,
        Err(_) => true,
    };
    if !capturing && let Ok(q) = api::cuStreamQuery.get() {
        // SAFETY: as above.
        if unsafe { q(handle as _) }.0 == SUCCESS {
            progress::complete_up_to(rec, launched);
        }
    }
    rec.probing.store(false, SeqCst);
}
