//! Stream calls CUDA 13.x added: host functions with a synchronization mode
//! and recapture into an existing graph; and `cudaFuncGetParamCount`.
//! On a driver without the entry point NVIDIA's 13.5 runtime answers
//! `cudaErrorCallRequiresNewerDriver` before looking at the arguments
//! (measured on H100 / driver 580; only a NULL function for
//! `cudaFuncGetParamCount` is checked first), and so do we.

use super::graph::convert::node_params_from_driver;
use crate::driver::api::*;
use crate::driver::{check, CUresult, StreamMode};
use crate::types::*;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
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

/// The program's mismatch callback for one recapture, handed to the driver
/// as the user data of [`recapture_trampoline`].
struct Recapture {
    func: unsafe extern "C" fn(*mut c_void, cudaGraphNode_t, *const cudaGraphNodeParams, *const cudaGraphNodeParams, cudaGraphRecaptureStatus) -> cudaError_t,
    data: *mut c_void,
}

// SAFETY: the user data pointer is the program's, used only as it passed it.
unsafe impl Send for Recapture {}

/// The latest recapture callback of each stream. A stream recaptures once at
/// a time, so a new one replaces (and frees) the last: memory stays bounded
/// by the number of streams, and the driver never sees freed data.
static RECAPTURES: Mutex<Option<HashMap<usize, Box<Recapture>>>> = Mutex::new(None);

/// Calls the program's callback with the node parameters in the runtime's
/// form. Runs on the driver's stack: no panic crosses it.
unsafe extern "C" fn recapture_trampoline(
    data: *mut c_void,
    node: cudaGraphNode_t,
    original: *const CUgraphNodeParams,
    recaptured: *const CUgraphNodeParams,
    status: c_int,
) -> CUresult {
    let call = || -> CudaResult {
        // SAFETY: `data` is the Box in RECAPTURES for this recapture; the
        // parameter pointers are valid during the call (driver contract).
        let r = unsafe { &*(data as *const Recapture) };
        let a = unsafe { original.as_ref() }.map(node_params_from_driver).transpose()?;
        let b = unsafe { recaptured.as_ref() }.map(node_params_from_driver).transpose()?;
        let ptr = |p: &Option<cudaGraphNodeParams>| p.as_ref().map_or(std::ptr::null(), |p| p as *const _);
        // SAFETY: the program's callback, with the arguments it expects.
        let e = unsafe { (r.func)(r.data, node, ptr(&a), ptr(&b), cudaGraphRecaptureStatus(status)) };
        if e.is_success() { Ok(()) } else { Err(e) }
    };
    match std::panic::catch_unwind(call) {
        Ok(r) => CUresult(r.err().map_or(0, |e| e.0)),
        Err(_) => CUresult(cudaErrorUnknown.0),
    }
}

/// `cudaStreamBeginRecaptureToGraph`. A mismatch callback is called
/// through [`recapture_trampoline`], with the runtime's node parameters.
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
    super::context::enter()?;
    let Some((func, data)) = callback.and_then(|c| c.callbackFunc.map(|f| (f, c.userData))) else {
        // SAFETY: no callback, so no user data reaches the driver.
        check(unsafe { begin(s, mode.0, graph, None, null_mut()) })?;
        super::capture::note_begun();
        return Ok(());
    };
    let boxed = Box::new(Recapture { func, data });
    let user: *mut c_void = (&*boxed as *const Recapture).cast_mut().cast();
    let previous = RECAPTURES.lock().get_or_insert_with(HashMap::new).insert(s as usize, boxed);
    drop(previous);
    // SAFETY: `user` lives in RECAPTURES until this stream's next recapture.
    check(unsafe { begin(s, mode.0, graph, Some(recapture_trampoline), user) })?;
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
