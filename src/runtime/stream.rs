//! Runtime semantics of the stream area: streams, their attributes, and
//! host work queued on them.
//!
//! A `cudaStream_t` is the driver's `CUstream`, passed through unchanged:
//! NULL is the default stream, `cudaStreamLegacy` (0x1) and
//! `cudaStreamPerThread` (0x2) are understood by the driver itself. Which
//! stream NULL means is chosen by the [`StreamMode`] the export passes: the
//! plain exports resolve the driver's legacy-stream entry points, the
//! `_ptsz` twins the per-thread ones (`cu!(mode m; ...)`).
//!
//! Nothing here takes a lock: every call is `context::enter` (a driver
//! thread-local read, a thread-local and an atomic) plus one driver call.

use crate::runtime::required;
use super::context;
use crate::driver::{CUresult, StreamMode};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The stream handles that name a default stream (never destroyed).
fn is_default(s: cudaStream_t) -> bool {
    s.is_null() || s == cudaStreamLegacy || s == cudaStreamPerThread
}

/// `cudaStreamCreate*`. Flags: `cudaStreamDefault` or
/// `cudaStreamNonBlocking`. The driver clamps the priority to
/// `cudaDeviceGetStreamPriorityRange`, as NVIDIA's runtime does.
pub fn create(p: Option<&mut cudaStream_t>, flags: c_uint, priority: Option<c_int>) -> CudaResult {
    let p = required(p)?;
    if flags & !cudaStreamNonBlocking != 0 {
        return Err(cudaErrorInvalidValue);
    }
    context::enter()?;
    let mut s = std::ptr::null_mut();
    match priority {
        Some(pr) => cu!(cuStreamCreateWithPriority(&mut s, flags, pr))?,
        None => cu!(cuStreamCreate(&mut s, flags))?,
    }
    *p = s;
    Ok(())
}

/// `cudaStreamDestroy`: returns at once; queued work still completes.
/// The default streams cannot be destroyed. (NVIDIA's code for them is
/// believed to be `cudaErrorInvalidResourceHandle`; to be checked on a GPU.)
pub fn destroy(s: cudaStream_t) -> CudaResult {
    context::enter()?;
    if is_default(s) {
        return Err(cudaErrorInvalidResourceHandle);
    }
    cu!(cuStreamDestroy(s))
}

/// `cudaStreamQuery`: `cudaErrorNotReady` while work is pending (the entry
/// macro does not record it as the last error).
#[inline]
pub fn query(s: cudaStream_t, m: StreamMode) -> CudaResult {
    context::enter()?;
    cu!(mode m; cuStreamQuery(s))
}

#[inline]
pub fn synchronize(s: cudaStream_t, m: StreamMode) -> CudaResult {
    context::enter()?;
    cu!(mode m; cuStreamSynchronize(s))
}

/// `cudaStreamWaitEvent`: flags `cudaEventWaitDefault` or
/// `cudaEventWaitExternal`.
pub fn wait_event(s: cudaStream_t, e: cudaEvent_t, flags: c_uint, m: StreamMode) -> CudaResult {
    context::enter()?;
    if e.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    if flags & !cudaEventWaitExternal != 0 {
        return Err(cudaErrorInvalidValue);
    }
    cu!(mode m; cuStreamWaitEvent(s, e, flags))
}

pub fn flags(s: cudaStream_t, p: Option<&mut c_uint>, m: StreamMode) -> CudaResult {
    let p = required(p)?;
    context::enter()?;
    cu!(mode m; cuStreamGetFlags(s, p))
}

pub fn priority(s: cudaStream_t, p: Option<&mut c_int>, m: StreamMode) -> CudaResult {
    let p = required(p)?;
    context::enter()?;
    cu!(mode m; cuStreamGetPriority(s, p))
}

pub fn id(s: cudaStream_t, p: Option<&mut u64>, m: StreamMode) -> CudaResult {
    let p = required(p)?;
    context::enter()?;
    cu!(mode m; cuStreamGetId(s, p))
}

/// `cudaStreamGetDevice`: the runtime ordinal of the stream's device.
pub fn device(s: cudaStream_t, p: Option<&mut c_int>, m: StreamMode) -> CudaResult {
    let p = required(p)?;
    context::enter()?;
    let mut dev = 0;
    cu!(mode m; cuStreamGetDevice(s, &mut dev))?;
    *p = super::state::runtime()?.ordinal_of(dev)?;
    Ok(())
}

/// `cudaStreamGetAttribute`: the value union has the driver's layout and
/// ids, so it passes through.
pub fn attribute(s: cudaStream_t, a: cudaLaunchAttributeID, v: Option<&mut cudaLaunchAttributeValue>, m: StreamMode) -> CudaResult {
    let v = required(v)?;
    context::enter()?;
    cu!(mode m; cuStreamGetAttribute(s, a.0, v))
}

pub fn set_attribute(s: cudaStream_t, a: cudaLaunchAttributeID, v: Option<&cudaLaunchAttributeValue>, m: StreamMode) -> CudaResult {
    let v = required(v)?;
    context::enter()?;
    cu!(mode m; cuStreamSetAttribute(s, a.0, v))
}

pub fn copy_attributes(dst: cudaStream_t, src: cudaStream_t, m: StreamMode) -> CudaResult {
    context::enter()?;
    cu!(mode m; cuStreamCopyAttributes(dst, src))
}

/// `cudaStreamAttachMemAsync`: flags are the `cudaMemAttach*` values, which
/// equal the driver's `CU_MEM_ATTACH_*`.
pub fn attach_mem(s: cudaStream_t, p: *mut c_void, len: usize, flags: c_uint, m: StreamMode) -> CudaResult {
    context::enter()?;
    cu!(mode m; cuStreamAttachMemAsync(s, p as u64, len, flags))
}

/// What `cudaStreamAddCallback` hands the driver: the user's callback with
/// the stream handle exactly as the user passed it (NULL for stream 0), so
/// the callback sees its own handle whatever the driver resolved it to.
struct Callback {
    f: unsafe extern "C" fn(cudaStream_t, cudaError_t, *mut c_void),
    user: *mut c_void,
    stream: cudaStream_t,
}

/// Runs on a driver thread, once per callback. Owns the box it receives.
unsafe extern "C" fn trampoline(_driver_stream: crate::driver::CUstream, status: CUresult, data: *mut c_void) {
    // Nothing of ours may unwind into the driver's C frames.
    let r = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `data` is the Box leaked by `add_callback`, and the driver
        // calls each callback exactly once.
        let cb = unsafe { Box::from_raw(data.cast::<Callback>()) };
        (cb.f, cb.stream, cb.user)
    }));
    match r {
        // SAFETY: a C callback with the documented signature.
        Ok((f, stream, user)) => unsafe { f(stream, cudaError_t(status.0), user) },
        Err(_) => log::error!("internal error in a stream callback trampoline; the callback was not run"),
    }
}

/// `cudaStreamAddCallback`: flags must be 0. Not capturable, like
/// NVIDIA's (the driver refuses it in capture; `cudaLaunchHostFunc` is the
/// capturable form).
pub fn add_callback(s: cudaStream_t, cb: cudaStreamCallback_t, user: *mut c_void, flags: c_uint, m: StreamMode) -> CudaResult {
    let f = cb.ok_or(cudaErrorInvalidValue)?;
    if flags != 0 {
        return Err(cudaErrorInvalidValue);
    }
    context::enter()?;
    let data = Box::into_raw(Box::new(Callback { f, user, stream: s })).cast::<c_void>();
    let r = cu!(mode m; cuStreamAddCallback(s, Some(trampoline), data, 0));
    if r.is_err() {
        // SAFETY: the driver refused it, so it will never call back with it.
        drop(unsafe { Box::from_raw(data.cast::<Callback>()) });
    }
    r
}

/// `cudaLaunchHostFunc`: the driver's host function has the same C
/// signature, so it is handed over as is.
pub fn launch_host_func(s: cudaStream_t, f: cudaHostFn_t, user: *mut c_void, m: StreamMode) -> CudaResult {
    if f.is_none() {
        return Err(cudaErrorInvalidValue);
    }
    context::enter()?;
    cu!(mode m; cuLaunchHostFunc(s, f, user))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static GOT: [AtomicUsize; 3] = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];

    unsafe extern "C" fn user(s: cudaStream_t, status: cudaError_t, data: *mut c_void) {
        GOT[0].store(s as usize, Ordering::SeqCst);
        GOT[1].store(status.0 as usize, Ordering::SeqCst);
        GOT[2].store(data as usize, Ordering::SeqCst);
    }

    /// The trampoline hands the user the stream handle they passed (not
    /// the driver's), the driver's status as a runtime code, and their data.
    #[test]
    fn trampoline_passes_the_users_arguments() {
        let data = Box::into_raw(Box::new(Callback { f: user, user: 0x55 as *mut c_void, stream: std::ptr::null_mut() }));
        unsafe { trampoline(0x1234 as crate::driver::CUstream, CUresult(719), data.cast()) };
        assert_eq!(GOT[0].load(Ordering::SeqCst), 0, "stream 0 stays NULL");
        assert_eq!(GOT[1].load(Ordering::SeqCst), 719);
        assert_eq!(GOT[2].load(Ordering::SeqCst), 0x55);
    }
}
