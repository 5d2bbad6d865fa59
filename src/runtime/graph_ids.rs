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
/// `cuGraphNodeGetParams` (CUDA 13.2) gives `cudaErrorCallRequiresNewerDriver`,
/// as NVIDIA's 13.5 runtime answers on driver 580. On a newer driver the
/// parameters are read with the per-type getters, which already convert the
/// driver's form to the runtime's (kernels back to host stubs, 3D copies
/// back to `cudaMemcpy3DParms`). Node types without a getter (conditional,
/// batched copies) answer `cudaErrorNotSupported` and log once.
pub fn node_params(n: cudaGraphNode_t, out: Option<&mut cudaGraphNodeParams>) -> CudaResult {
    use super::graph as g;
    let out = out.ok_or(cudaErrorInvalidValue)?;
    cuGraphNodeGetParams.get()?;
    let mut t = cudaGraphNodeType(-1);
    g::node_type(n, Some(&mut t))?;
    let mut p = cudaGraphNodeParams::zeroed(t);
    // SAFETY: each arm writes the union member `t` names, through a
    // pointer to that member of the local `p`.
    unsafe {
        let u = &mut p._u;
        match t {
            cudaGraphNodeTypeKernel => {
                let mut k = cudaKernelNodeParams { func: null_mut(), gridDim: dim3::default(), blockDim: dim3::default(), sharedMemBytes: 0, kernelParams: null_mut(), extra: null_mut() };
                g::kernel_get(n, Some(&mut k))?;
                u.kernel = cudaKernelNodeParamsV2::from_v1(&k);
            }
            cudaGraphNodeTypeMemcpy => g::memcpy_get(n, Some(&mut u.memcpy.copyParams))?,
            cudaGraphNodeTypeMemset => g::memset_get(n, Some(&mut u.memset))?,
            cudaGraphNodeTypeHost => {
                let mut h = cudaHostNodeParams { r#fn: None, userData: null_mut() };
                g::host_get(n, Some(&mut h))?;
                u.host = cudaHostNodeParamsV2::from_v1(&h);
            }
            cudaGraphNodeTypeGraph => g::child_get(n, Some(&mut u.graph.graph))?,
            cudaGraphNodeTypeEmpty => {}
            cudaGraphNodeTypeWaitEvent => g::event_get(false, n, Some(&mut u.eventWait.event))?,
            cudaGraphNodeTypeEventRecord => g::event_get(true, n, Some(&mut u.eventRecord.event))?,
            // The first versions are layout prefixes of the 13.5 ones (whose
            // `ctx` stays NULL: the current context).
            cudaGraphNodeTypeExtSemaphoreSignal => g::sem_signal_get(n, Some(&mut *(&raw mut u.extSemSignal).cast()))?,
            cudaGraphNodeTypeExtSemaphoreWait => g::sem_wait_get(n, Some(&mut *(&raw mut u.extSemWait).cast()))?,
            cudaGraphNodeTypeMemAlloc => g::mem_alloc_get(n, Some(&mut u.alloc))?,
            cudaGraphNodeTypeMemFree => g::mem_free_get(n, (&raw mut u.free.dptr).cast())?,
            _ => {
                static ONCE: std::sync::Once = std::sync::Once::new();
                ONCE.call_once(|| {
                    log::warn!("cudaGraphNodeGetParams: node type {} is not converted by cudart-shim; it returns cudaErrorNotSupported", t.0)
                });
                return Err(cudaErrorNotSupported);
            }
        }
    }
    *out = p;
    Ok(())
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
