//! Stream calls CUDA 13.x added: host functions with a synchronization mode
//! and recapture into an existing graph; and `cudaFuncGetParamCount`.
//! On a driver without the entry point NVIDIA's 13.5 runtime answers
//! `cudaErrorCallRequiresNewerDriver` before looking at the arguments
//! (measured on H100 / driver 580; only a NULL function for
//! `cudaFuncGetParamCount` is checked first), and so do we.

use crate::driver::api::*;
use crate::driver::{check, StreamMode};
use crate::types::*;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

/// `cudaLaunchHostFunc_v2`: `sync_mode` is a `cudaHostTaskSyncMode`.
pub fn launch_host_func(s: cudaStream_t, f: cudaHostFn_t, user: *mut c_void, sync_mode: c_uint, m: StreamMode) -> CudaResult {
    let launch = cuLaunchHostFunc_v2.get_mode(m)?;
    if f.is_none() || sync_mode > cudaHostTaskSpinWait.0 as c_uint {
        return Err(cudaErrorInvalidValue);
    }
    super::context::enter()?;
    // SAFETY: the driver calls `f(user)` later, as cuLaunchHostFunc does.
    check(unsafe { launch(s, f, user, sync_mode) })
}

/// `cudaStreamBeginRecaptureToGraph`. A callback for parameter mismatches
/// would receive the driver's node parameters, which we cannot yet convert
/// to the runtime's: with one, the call answers `cudaErrorNotSupported`
/// and logs once (docs/COMPATIBILITY.md); without, it recaptures.
pub fn begin_recapture(
    s: cudaStream_t,
    mode: cudaStreamCaptureMode,
    graph: cudaGraph_t,
    callback: Option<&cudaGraphRecaptureCallbackData>,
    m: StreamMode,
) -> CudaResult {
    let begin = cuStreamBeginRecaptureToGraph.get_mode(m)?;
    if graph.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    if callback.is_some_and(|c| c.callbackFunc.is_some()) {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            log::warn!("cudaStreamBeginRecaptureToGraph with a mismatch callback is not implemented in cudart-shim (it returns cudaErrorNotSupported); pass NULL callback data")
        });
        return Err(cudaErrorNotSupported);
    }
    super::context::enter()?;
    // SAFETY: no callback, so no user data reaches the driver.
    check(unsafe { begin(s, mode.0, graph, std::ptr::null(), null_mut()) })?;
    super::capture::note_begun();
    Ok(())
}

/// `cudaFuncGetParamCount`: the number of parameters of a kernel, by host
/// stub or `cudaKernel_t`.
pub fn func_param_count(func: *const c_void, out: Option<&mut usize>) -> CudaResult {
    if func.is_null() {
        return Err(cudaErrorInvalidDeviceFunction);
    }
    let count = cuKernelGetParamCount.get()?;
    let k = super::registry::resolve(func)?;
    super::context::enter()?;
    let out = out.map_or(null_mut(), |o| o as *mut usize);
    // SAFETY: `k` is a kernel the registry loaded; `out` NULL or valid.
    check(unsafe { count(k, out) })
}
