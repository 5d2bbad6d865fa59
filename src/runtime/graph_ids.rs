//! Graph and node identities, a node's parameters, and conditional handles
//! bound to an execution context (CUDA 13.1 to 13.5).
//!
//! The id calls need a CUDA 13.1 driver: on an older one NVIDIA's 13.5
//! runtime answers `cudaErrorCallRequiresNewerDriver` whatever the arguments
//! (measured on H100 / driver 580), so the driver entry point is looked up
//! before anything else; the driver then checks handles and out-pointers.

use crate::driver::api::*;
use crate::driver::{check, CUcontext, DriverFn};
use crate::types::*;
use std::ffi::{c_uint, c_ulonglong};
use std::ptr::null_mut;

/// Call a `(handle, *mut out)` id query.
fn query<H, T>(f: &DriverFn<unsafe extern "C" fn(H, *mut T) -> crate::driver::CUresult>, h: H, out: Option<&mut T>) -> CudaResult
where
    H: Copy,
{
    let f = f.get()?;
    super::context::enter()?;
    let out = out.map_or(null_mut(), |o| o as *mut T);
    // SAFETY: `out` is NULL or a valid reference; the driver checks `h`.
    check(unsafe { f(h, out) })
}

/// `cudaGraphGetId`.
pub fn graph_id(g: cudaGraph_t, out: Option<&mut c_uint>) -> CudaResult {
    query(&cuGraphGetId, g, out)
}

/// `cudaGraphExecGetId`.
pub fn exec_id(e: cudaGraphExec_t, out: Option<&mut c_uint>) -> CudaResult {
    query(&cuGraphExecGetId, e, out)
}

/// `cudaGraphNodeGetContainingGraph`.
pub fn containing_graph(n: cudaGraphNode_t, out: Option<&mut cudaGraph_t>) -> CudaResult {
    query(&cuGraphNodeGetContainingGraph, n, out)
}

/// `cudaGraphNodeGetLocalId`.
pub fn local_id(n: cudaGraphNode_t, out: Option<&mut c_uint>) -> CudaResult {
    query(&cuGraphNodeGetLocalId, n, out)
}

/// `cudaGraphNodeGetToolsId`.
pub fn tools_id(n: cudaGraphNode_t, out: Option<&mut c_ulonglong>) -> CudaResult {
    query(&cuGraphNodeGetToolsId, n, out)
}

/// `cudaGraphNodeGetParams`: a NULL out-pointer is `cudaErrorInvalidValue`
/// before the driver is asked (measured); then a driver without
/// `cuGraphNodeGetParams` (CUDA 13.2) gives `cudaErrorCallRequiresNewerDriver`.
/// Converting every node type's driver parameters back to the runtime's
/// (host stubs for kernels, 13.5's grown per-type structs) is not written
/// yet: on a 13.2+ driver the call answers `cudaErrorNotSupported` and logs
/// once (docs/COMPATIBILITY.md).
pub fn node_params(_n: cudaGraphNode_t, out: Option<&mut cudaGraphNodeParams>) -> CudaResult {
    out.ok_or(cudaErrorInvalidValue)?;
    cuGraphNodeGetParams.get()?;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        log::warn!("cudaGraphNodeGetParams: converting the driver's node parameters is not implemented in cudart-shim; it returns cudaErrorNotSupported (use the per-type cudaGraph*NodeGetParams calls)")
    });
    Err(cudaErrorNotSupported)
}

/// `cudaGraphConditionalHandleCreate_v2`: the handle is bound to `ctx`, or
/// to the current context when `ctx` is NULL (as the first version does).
pub fn conditional_handle(
    out: Option<&mut cudaGraphConditionalHandle>,
    graph: cudaGraph_t,
    ctx: cudaExecutionContext_t,
    default_value: c_uint,
    flags: c_uint,
) -> CudaResult {
    let out = out.ok_or(cudaErrorInvalidValue)?;
    let (current, _) = super::context::enter()?;
    let ctx: CUcontext = if ctx.is_null() { current } else { ctx.cast() };
    crate::driver::cu!(cuGraphConditionalHandleCreate(out, graph, ctx, default_value, flags))
}
