//! Runtime semantics of the graph area: graphs, nodes, edges, executable
//! graphs, user objects and graph memory.
//!
//! Graph, node, exec and user-object handles are the driver's, unwrapped.
//! The driver validates handles and most arguments and its codes pass
//! through unchanged (every code both enums share has the same number). The
//! runtime's part is: out-pointer checks, the context (graph calls
//! initialize the runtime like every other call), the per-thread-stream
//! variants, and the node-parameter conversions in [`convert`].

// Raw pointers here come unchanged from the C caller through the
// `unsafe extern "C"` exports in api/graph.rs; the C API's contract (valid or
// NULL) is what makes passing them on sound, as in every runtime module.

pub mod convert;

use crate::runtime::required;
use super::context::enter;
use super::non_null;
use crate::driver::api::*;
use crate::driver::{CUcontext, CUdeviceptr, CUkernel, StreamMode};
use crate::types::*;
use convert::*;
use std::ffi::{c_char, c_uint, c_ulonglong, c_void};
use std::ptr::null_mut;

// ---------------------------------------------------------------------------
// Call points into other areas (the lead connects them at merge).
// ---------------------------------------------------------------------------

/// The kernel a node's `func` names: a registered host stub or a
/// `cudaKernel_t` (the kernel registry decides; anything else is
/// `cudaErrorInvalidDeviceFunction`).
pub fn kernel_for(func: *const c_void) -> CudaResult<CUkernel> {
    crate::runtime::registry::resolve(func)
}

/// The inverse of [`kernel_for`] for node queries: the host stub the program
/// registered (NVIDIA's runtime reports the stub), or the handle itself.
pub fn stub_for(k: CUkernel) -> *mut c_void {
    crate::runtime::registry::stub_for_kernel(k).cast_mut()
}

/// Device address and size of a `__device__`/`__constant__` symbol given by
/// its host shadow address (`cudaErrorInvalidSymbol` when unknown).
pub fn symbol_address(symbol: *const c_void) -> CudaResult<(CUdeviceptr, usize)> {
    crate::runtime::symbol::address_and_size(symbol)
}

/// A 1D copy to (`to` = true) or from a symbol, as 3D parameters. Directions
/// NVIDIA allows: to a symbol from host or device (or default), from a
/// symbol to host or device (or default); others are
/// `cudaErrorInvalidMemcpyDirection`. Out-of-range `offset + count` is
/// `cudaErrorInvalidValue`.
fn symbol_copy(to: bool, symbol: *const c_void, other: *mut c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> CudaResult<cudaMemcpy3DParms> {
    // The symbol is checked before the direction (NVIDIA, H100, CUDA 13.0).
    let (addr, size) = symbol_address(symbol)?;
    let ok = match kind {
        cudaMemcpyDefault | cudaMemcpyDeviceToDevice => true,
        cudaMemcpyHostToDevice => to,
        cudaMemcpyDeviceToHost => !to,
        _ => false,
    };
    if !ok {
        return Err(cudaErrorInvalidMemcpyDirection);
    }
    if offset.checked_add(count).is_none_or(|end| end > size) {
        return Err(cudaErrorInvalidValue);
    }
    let sym = (addr + offset as u64) as *mut c_void;
    Ok(if to { memcpy_1d(sym, other, count, kind) } else { memcpy_1d(other, sym, count, kind) })
}

fn ctx() -> CudaResult<CUcontext> {
    Ok(enter()?.0)
}

/// Run a driver "add node" call and store the new node in `*p_node`.
fn add(p_node: Option<&mut cudaGraphNode_t>, f: impl FnOnce(&mut cudaGraphNode_t) -> CudaResult) -> CudaResult {
    let o = required(p_node)?;
    let mut n = null_mut();
    f(&mut n)?;
    *o = n;
    Ok(())
}

// ---------------------------------------------------------------------------
// Graphs.
// ---------------------------------------------------------------------------

pub fn create(p_graph: Option<&mut cudaGraph_t>, flags: c_uint) -> CudaResult {
    let o = required(p_graph)?;
    enter()?;
    let mut g = null_mut();
    cu!(cuGraphCreate(&mut g, flags))?;
    *o = g;
    Ok(())
}

pub fn clone(p_clone: Option<&mut cudaGraph_t>, original: cudaGraph_t) -> CudaResult {
    let o = required(p_clone)?;
    enter()?;
    let mut g = null_mut();
    cu!(cuGraphClone(&mut g, original))?;
    *o = g;
    Ok(())
}

// ---------------------------------------------------------------------------
// Nodes by type.
// ---------------------------------------------------------------------------

pub fn add_kernel(
    p_node: Option<&mut cudaGraphNode_t>,
    graph: cudaGraph_t,
    deps: *const cudaGraphNode_t,
    n: usize,
    params: Option<&cudaKernelNodeParams>,
) -> CudaResult {
    enter()?;
    let k = kernel_to_driver(required(params)?)?;
    add(p_node, |o| cu!(cuGraphAddKernelNode(o, graph, deps, n, &k)))
}

pub fn kernel_get(node: cudaGraphNode_t, params: Option<&mut cudaKernelNodeParams>) -> CudaResult {
    let o = required(params)?;
    enter()?;
    // SAFETY: all-zero is a valid CUDA_KERNEL_NODE_PARAMS (NULL pointers).
    let mut k: CUDA_KERNEL_NODE_PARAMS = unsafe { std::mem::zeroed() };
    cu!(cuGraphKernelNodeGetParams(node, &mut k))?;
    *o = kernel_from_driver(&k);
    Ok(())
}

pub fn kernel_set(node: cudaGraphNode_t, params: Option<&cudaKernelNodeParams>) -> CudaResult {
    enter()?;
    let k = kernel_to_driver(required(params)?)?;
    cu!(cuGraphKernelNodeSetParams(node, &k))
}

pub fn exec_kernel_set(exec: cudaGraphExec_t, node: cudaGraphNode_t, params: Option<&cudaKernelNodeParams>) -> CudaResult {
    enter()?;
    let k = kernel_to_driver(required(params)?)?;
    cu!(cuGraphExecKernelNodeSetParams(exec, node, &k))
}

pub fn add_memcpy(
    p_node: Option<&mut cudaGraphNode_t>,
    graph: cudaGraph_t,
    deps: *const cudaGraphNode_t,
    n: usize,
    params: Option<&cudaMemcpy3DParms>,
) -> CudaResult {
    let c = ctx()?;
    let m = memcpy3d_to_driver(required(params)?)?;
    add(p_node, |o| cu!(cuGraphAddMemcpyNode(o, graph, deps, n, &m, c)))
}

/// The 1D and symbol variants: `params` already built.
fn add_memcpy_parms(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, p: CudaResult<cudaMemcpy3DParms>) -> CudaResult {
    let c = ctx()?;
    let m = memcpy3d_to_driver(&p?)?;
    add(p_node, |o| cu!(cuGraphAddMemcpyNode(o, graph, deps, n, &m, c)))
}

#[allow(clippy::too_many_arguments)]
pub fn add_memcpy_1d(
    p_node: Option<&mut cudaGraphNode_t>,
    graph: cudaGraph_t,
    deps: *const cudaGraphNode_t,
    n: usize,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: cudaMemcpyKind,
) -> CudaResult {
    add_memcpy_parms(p_node, graph, deps, n, Ok(memcpy_1d(dst, src, count, kind)))
}

#[allow(clippy::too_many_arguments)]
pub fn add_memcpy_from_symbol(
    p_node: Option<&mut cudaGraphNode_t>,
    graph: cudaGraph_t,
    deps: *const cudaGraphNode_t,
    n: usize,
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: cudaMemcpyKind,
) -> CudaResult {
    enter()?;
    add_memcpy_parms(p_node, graph, deps, n, symbol_copy(false, symbol, dst, count, offset, kind))
}

#[allow(clippy::too_many_arguments)]
pub fn add_memcpy_to_symbol(
    p_node: Option<&mut cudaGraphNode_t>,
    graph: cudaGraph_t,
    deps: *const cudaGraphNode_t,
    n: usize,
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: cudaMemcpyKind,
) -> CudaResult {
    enter()?;
    add_memcpy_parms(p_node, graph, deps, n, symbol_copy(true, symbol, src as *mut c_void, count, offset, kind))
}

pub fn memcpy_get(node: cudaGraphNode_t, params: Option<&mut cudaMemcpy3DParms>) -> CudaResult {
    let o = required(params)?;
    enter()?;
    let mut m = CUDA_MEMCPY3D::default();
    cu!(cuGraphMemcpyNodeGetParams(node, &mut m))?;
    *o = memcpy3d_from_driver(&m)?;
    Ok(())
}

/// Set a memcpy node's parameters, in the graph (`exec` NULL) or in an
/// executable graph.
fn memcpy_set_parms(exec: cudaGraphExec_t, node: cudaGraphNode_t, p: CudaResult<cudaMemcpy3DParms>) -> CudaResult {
    let c = ctx()?;
    let m = memcpy3d_to_driver(&p?)?;
    if exec.is_null() {
        cu!(cuGraphMemcpyNodeSetParams(node, &m))
    } else {
        cu!(cuGraphExecMemcpyNodeSetParams(exec, node, &m, c))
    }
}

pub fn memcpy_set(node: cudaGraphNode_t, params: Option<&cudaMemcpy3DParms>) -> CudaResult {
    memcpy_set_parms(null_mut(), node, required(params).copied())
}

pub fn memcpy_set_1d(node: cudaGraphNode_t, dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> CudaResult {
    memcpy_set_parms(null_mut(), node, Ok(memcpy_1d(dst, src, count, kind)))
}

pub fn memcpy_set_from_symbol(node: cudaGraphNode_t, dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> CudaResult {
    enter()?;
    memcpy_set_parms(null_mut(), node, symbol_copy(false, symbol, dst, count, offset, kind))
}

pub fn memcpy_set_to_symbol(node: cudaGraphNode_t, symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> CudaResult {
    enter()?;
    memcpy_set_parms(null_mut(), node, symbol_copy(true, symbol, src as *mut c_void, count, offset, kind))
}

/// `exec` must be a handle: NULL is the driver's invalid-value answer.
fn need_exec(exec: cudaGraphExec_t) -> CudaResult {
    if exec.is_null() { Err(cudaErrorInvalidValue) } else { Ok(()) }
}

pub fn exec_memcpy_set(exec: cudaGraphExec_t, node: cudaGraphNode_t, params: Option<&cudaMemcpy3DParms>) -> CudaResult {
    need_exec(exec)?;
    memcpy_set_parms(exec, node, required(params).copied())
}

pub fn exec_memcpy_set_1d(exec: cudaGraphExec_t, node: cudaGraphNode_t, dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> CudaResult {
    need_exec(exec)?;
    memcpy_set_parms(exec, node, Ok(memcpy_1d(dst, src, count, kind)))
}

#[allow(clippy::too_many_arguments)]
pub fn exec_memcpy_set_from_symbol(exec: cudaGraphExec_t, node: cudaGraphNode_t, dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> CudaResult {
    enter()?;
    // The symbol comes first, then the exec handle (NVIDIA, H100, CUDA 13.0).
    let p = symbol_copy(false, symbol, dst, count, offset, kind)?;
    need_exec(exec)?;
    memcpy_set_parms(exec, node, Ok(p))
}

#[allow(clippy::too_many_arguments)]
pub fn exec_memcpy_set_to_symbol(exec: cudaGraphExec_t, node: cudaGraphNode_t, symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> CudaResult {
    enter()?;
    // The symbol comes first, then the exec handle (NVIDIA, H100, CUDA 13.0).
    let p = symbol_copy(true, symbol, src as *mut c_void, count, offset, kind)?;
    need_exec(exec)?;
    memcpy_set_parms(exec, node, Ok(p))
}

pub fn add_memset(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, params: Option<&cudaMemsetParams>) -> CudaResult {
    let c = ctx()?;
    let m = memset_to_driver(required(params)?, c);
    add(p_node, |o| cu!(cuGraphAddMemsetNode(o, graph, deps, n, &m, c)))
}

pub fn memset_get(node: cudaGraphNode_t, params: Option<&mut cudaMemsetParams>) -> CudaResult {
    let o = required(params)?;
    enter()?;
    let mut m = memset_to_driver(&cudaMemsetParams { dst: null_mut(), pitch: 0, value: 0, elementSize: 0, width: 0, height: 0 }, null_mut());
    cu!(cuGraphMemsetNodeGetParams(node, &mut m))?;
    *o = memset_from_driver(&m);
    Ok(())
}

pub fn memset_set(node: cudaGraphNode_t, params: Option<&cudaMemsetParams>) -> CudaResult {
    let c = ctx()?;
    let m = memset_to_driver(required(params)?, c);
    cu!(cuGraphMemsetNodeSetParams(node, &m))
}

pub fn exec_memset_set(exec: cudaGraphExec_t, node: cudaGraphNode_t, params: Option<&cudaMemsetParams>) -> CudaResult {
    let c = ctx()?;
    let m = memset_to_driver(required(params)?, c);
    cu!(cuGraphExecMemsetNodeSetParams(exec, node, &m, c))
}

pub fn add_host(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, params: Option<&cudaHostNodeParams>) -> CudaResult {
    enter()?;
    let p = required(params)?;
    add(p_node, |o| cu!(cuGraphAddHostNode(o, graph, deps, n, p)))
}

pub fn host_get(node: cudaGraphNode_t, params: Option<&mut cudaHostNodeParams>) -> CudaResult {
    let o = required(params)?;
    enter()?;
    cu!(cuGraphHostNodeGetParams(node, o))
}

pub fn host_set(node: cudaGraphNode_t, params: *const cudaHostNodeParams) -> CudaResult {
    enter()?;
    cu!(cuGraphHostNodeSetParams(node, non_null(params)?))
}

pub fn exec_host_set(exec: cudaGraphExec_t, node: cudaGraphNode_t, params: *const cudaHostNodeParams) -> CudaResult {
    enter()?;
    cu!(cuGraphExecHostNodeSetParams(exec, node, non_null(params)?))
}

pub fn add_child(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, child: cudaGraph_t) -> CudaResult {
    enter()?;
    add(p_node, |o| cu!(cuGraphAddChildGraphNode(o, graph, deps, n, child)))
}

pub fn child_get(node: cudaGraphNode_t, p_graph: Option<&mut cudaGraph_t>) -> CudaResult {
    let o = required(p_graph)?;
    enter()?;
    cu!(cuGraphChildGraphNodeGetGraph(node, o))
}

pub fn add_empty(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize) -> CudaResult {
    enter()?;
    add(p_node, |o| cu!(cuGraphAddEmptyNode(o, graph, deps, n)))
}

/// Event record (`record` = true) and event wait nodes.
pub fn add_event(record: bool, p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, event: cudaEvent_t) -> CudaResult {
    enter()?;
    if record {
        add(p_node, |o| cu!(cuGraphAddEventRecordNode(o, graph, deps, n, event)))
    } else {
        add(p_node, |o| cu!(cuGraphAddEventWaitNode(o, graph, deps, n, event)))
    }
}

pub fn event_get(record: bool, node: cudaGraphNode_t, event_out: Option<&mut cudaEvent_t>) -> CudaResult {
    let o = required(event_out)?;
    enter()?;
    if record { cu!(cuGraphEventRecordNodeGetEvent(node, o)) } else { cu!(cuGraphEventWaitNodeGetEvent(node, o)) }
}

pub fn event_set(record: bool, node: cudaGraphNode_t, event: cudaEvent_t) -> CudaResult {
    enter()?;
    if record { cu!(cuGraphEventRecordNodeSetEvent(node, event)) } else { cu!(cuGraphEventWaitNodeSetEvent(node, event)) }
}

pub fn exec_event_set(record: bool, exec: cudaGraphExec_t, node: cudaGraphNode_t, event: cudaEvent_t) -> CudaResult {
    enter()?;
    if record {
        cu!(cuGraphExecEventRecordNodeSetEvent(exec, node, event))
    } else {
        cu!(cuGraphExecEventWaitNodeSetEvent(exec, node, event))
    }
}

pub fn add_sem_signal(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, params: Option<&cudaExternalSemaphoreSignalNodeParams>) -> CudaResult {
    enter()?;
    let p = required(params)?;
    add(p_node, |o| cu!(cuGraphAddExternalSemaphoresSignalNode(o, graph, deps, n, p)))
}

pub fn sem_signal_get(node: cudaGraphNode_t, params: Option<&mut cudaExternalSemaphoreSignalNodeParams>) -> CudaResult {
    let o = required(params)?;
    enter()?;
    cu!(cuGraphExternalSemaphoresSignalNodeGetParams(node, o))
}

pub fn sem_signal_set(node: cudaGraphNode_t, params: *const cudaExternalSemaphoreSignalNodeParams) -> CudaResult {
    enter()?;
    cu!(cuGraphExternalSemaphoresSignalNodeSetParams(node, non_null(params)?))
}

pub fn exec_sem_signal_set(exec: cudaGraphExec_t, node: cudaGraphNode_t, params: *const cudaExternalSemaphoreSignalNodeParams) -> CudaResult {
    enter()?;
    cu!(cuGraphExecExternalSemaphoresSignalNodeSetParams(exec, node, non_null(params)?))
}

pub fn add_sem_wait(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, params: Option<&cudaExternalSemaphoreWaitNodeParams>) -> CudaResult {
    enter()?;
    let p = required(params)?;
    add(p_node, |o| cu!(cuGraphAddExternalSemaphoresWaitNode(o, graph, deps, n, p)))
}

pub fn sem_wait_get(node: cudaGraphNode_t, params: Option<&mut cudaExternalSemaphoreWaitNodeParams>) -> CudaResult {
    let o = required(params)?;
    enter()?;
    cu!(cuGraphExternalSemaphoresWaitNodeGetParams(node, o))
}

pub fn sem_wait_set(node: cudaGraphNode_t, params: *const cudaExternalSemaphoreWaitNodeParams) -> CudaResult {
    enter()?;
    cu!(cuGraphExternalSemaphoresWaitNodeSetParams(node, non_null(params)?))
}

pub fn exec_sem_wait_set(exec: cudaGraphExec_t, node: cudaGraphNode_t, params: *const cudaExternalSemaphoreWaitNodeParams) -> CudaResult {
    enter()?;
    cu!(cuGraphExecExternalSemaphoresWaitNodeSetParams(exec, node, non_null(params)?))
}

/// Mem-alloc node: the driver writes the allocation's address into
/// `params.dptr`.
pub fn add_mem_alloc(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, params: Option<&mut cudaMemAllocNodeParams>) -> CudaResult {
    enter()?;
    let p = required(params)?;
    add(p_node, |o| cu!(cuGraphAddMemAllocNode(o, graph, deps, n, p)))
}

pub fn mem_alloc_get(node: cudaGraphNode_t, params: Option<&mut cudaMemAllocNodeParams>) -> CudaResult {
    let o = required(params)?;
    enter()?;
    cu!(cuGraphMemAllocNodeGetParams(node, o))
}

pub fn add_mem_free(p_node: Option<&mut cudaGraphNode_t>, graph: cudaGraph_t, deps: *const cudaGraphNode_t, n: usize, dptr: *mut c_void) -> CudaResult {
    enter()?;
    add(p_node, |o| cu!(cuGraphAddMemFreeNode(o, graph, deps, n, dptr as CUdeviceptr)))
}

/// `dptr_out` is a `void*` that receives the address (C: `void *dptr_out`,
/// written as `*(void**)dptr_out`).
pub fn mem_free_get(node: cudaGraphNode_t, dptr_out: *mut c_void) -> CudaResult {
    // Handed on to the driver, which writes it: checked, not read here.
    let o = non_null(dptr_out.cast::<CUdeviceptr>())?.cast_mut();
    enter()?;
    cu!(cuGraphMemFreeNodeGetParams(node, o))
}

pub fn conditional_handle_create(p_handle: Option<&mut cudaGraphConditionalHandle>, graph: cudaGraph_t, default_value: c_uint, flags: c_uint) -> CudaResult {
    let o = required(p_handle)?;
    let c = ctx()?;
    cu!(cuGraphConditionalHandleCreate(o, graph, c, default_value, flags))
}

// ---------------------------------------------------------------------------
// Generic node parameters.
// ---------------------------------------------------------------------------

pub fn add_node(
    p_node: Option<&mut cudaGraphNode_t>,
    graph: cudaGraph_t,
    deps: *const cudaGraphNode_t,
    edge_data: *const cudaGraphEdgeData,
    n: usize,
    params: Option<&mut cudaGraphNodeParams>,
) -> CudaResult {
    let c = ctx()?;
    let p = required(params)?;
    let mut d = node_params_to_driver(p, c)?;
    add(p_node, |o| cu!(cuGraphAddNode(o, graph, deps, edge_data, n, &mut d)))?;
    node_params_writeback(&d, p);
    Ok(())
}

pub fn node_set_params(node: cudaGraphNode_t, params: Option<&mut cudaGraphNodeParams>) -> CudaResult {
    let c = ctx()?;
    let mut d = node_params_to_driver(required(params)?, c)?;
    cu!(cuGraphNodeSetParams(node, &mut d))
}

pub fn exec_node_set_params(exec: cudaGraphExec_t, node: cudaGraphNode_t, params: Option<&mut cudaGraphNodeParams>) -> CudaResult {
    let c = ctx()?;
    let mut d = node_params_to_driver(required(params)?, c)?;
    cu!(cuGraphExecNodeSetParams(exec, node, &mut d))
}

// ---------------------------------------------------------------------------
// Edges and queries (CUDA 13 signatures, with edge data).
// ---------------------------------------------------------------------------

pub fn get_edges(graph: cudaGraph_t, from: *mut cudaGraphNode_t, to: *mut cudaGraphNode_t, edge_data: *mut cudaGraphEdgeData, n: Option<&mut usize>) -> CudaResult {
    let n = required(n)?;
    enter()?;
    cu!(cuGraphGetEdges(graph, from, to, edge_data, n))
}

pub fn node_dependencies(node: cudaGraphNode_t, deps: *mut cudaGraphNode_t, edge_data: *mut cudaGraphEdgeData, n: Option<&mut usize>) -> CudaResult {
    let n = required(n)?;
    enter()?;
    cu!(cuGraphNodeGetDependencies(node, deps, edge_data, n))
}

pub fn node_dependents(node: cudaGraphNode_t, deps: *mut cudaGraphNode_t, edge_data: *mut cudaGraphEdgeData, n: Option<&mut usize>) -> CudaResult {
    let n = required(n)?;
    enter()?;
    cu!(cuGraphNodeGetDependentNodes(node, deps, edge_data, n))
}

pub fn get_nodes(graph: cudaGraph_t, nodes: *mut cudaGraphNode_t, n: Option<&mut usize>) -> CudaResult {
    let n = required(n)?;
    enter()?;
    cu!(cuGraphGetNodes(graph, nodes, n))
}

pub fn get_root_nodes(graph: cudaGraph_t, nodes: *mut cudaGraphNode_t, n: Option<&mut usize>) -> CudaResult {
    let n = required(n)?;
    enter()?;
    cu!(cuGraphGetRootNodes(graph, nodes, n))
}

/// Node types have the same numbers in both enums.
pub fn node_type(node: cudaGraphNode_t, p_type: Option<&mut cudaGraphNodeType>) -> CudaResult {
    let o = required(p_type)?;
    enter()?;
    let mut t = 0;
    cu!(cuGraphNodeGetType(node, &mut t))?;
    *o = cudaGraphNodeType(t);
    Ok(())
}

pub fn find_in_clone(p_node: Option<&mut cudaGraphNode_t>, original: cudaGraphNode_t, cloned: cudaGraph_t) -> CudaResult {
    let o = required(p_node)?;
    enter()?;
    cu!(cuGraphNodeFindInClone(o, original, cloned))
}

// ---------------------------------------------------------------------------
// Executable graphs.
// ---------------------------------------------------------------------------

/// `cudaGraphInstantiate` and `cudaGraphInstantiateWithFlags` (the same call
/// since CUDA 12).
pub fn instantiate(p_exec: Option<&mut cudaGraphExec_t>, graph: cudaGraph_t, flags: c_ulonglong) -> CudaResult {
    let o = required(p_exec)?;
    enter()?;
    let mut e = null_mut();
    cu!(cuGraphInstantiateWithFlags(&mut e, graph, flags))?;
    *o = e;
    Ok(())
}

/// `cudaGraphInstantiateWithParams`: the driver fills `result_out` and
/// `errNode_out`; stream 0 of the upload is the per-thread stream in the
/// `_ptsz` twin.
pub fn instantiate_with_params(mode: StreamMode, p_exec: Option<&mut cudaGraphExec_t>, graph: cudaGraph_t, params: Option<&mut cudaGraphInstantiateParams>) -> CudaResult {
    let o = required(p_exec)?;
    let p = required(params)?;
    enter()?;
    let mut e = null_mut();
    cu!(mode mode; cuGraphInstantiateWithParams(&mut e, graph, p))?;
    *o = e;
    Ok(())
}

pub fn exec_flags(exec: cudaGraphExec_t, flags: Option<&mut c_ulonglong>) -> CudaResult {
    let o = required(flags)?;
    enter()?;
    cu!(cuGraphExecGetFlags(exec, o))
}

pub fn exec_update(exec: cudaGraphExec_t, graph: cudaGraph_t, info: Option<&mut cudaGraphExecUpdateResultInfo>) -> CudaResult {
    let o = required(info)?;
    enter()?;
    cu!(cuGraphExecUpdate(exec, graph, o))
}

pub fn node_get_enabled(exec: cudaGraphExec_t, node: cudaGraphNode_t, enabled: Option<&mut c_uint>) -> CudaResult {
    let o = required(enabled)?;
    enter()?;
    cu!(cuGraphNodeGetEnabled(exec, node, o))
}

pub fn upload(mode: StreamMode, exec: cudaGraphExec_t, stream: cudaStream_t) -> CudaResult {
    enter()?;
    cu!(mode mode; cuGraphUpload(exec, stream))
}

/// `cudaGraphLaunch`: one context check and one driver call.
#[inline]
pub fn launch(mode: StreamMode, exec: cudaGraphExec_t, stream: cudaStream_t) -> CudaResult {
    enter()?;
    cu!(mode mode; cuGraphLaunch(exec, stream))
}

pub fn debug_dot_print(graph: cudaGraph_t, path: *const c_char, flags: c_uint) -> CudaResult {
    non_null(path)?;
    enter()?;
    cu!(cuGraphDebugDotPrint(graph, path, flags))
}

// ---------------------------------------------------------------------------
// User objects.
// ---------------------------------------------------------------------------

pub fn user_object_create(p_obj: Option<&mut cudaUserObject_t>, ptr: *mut c_void, destroy: cudaHostFn_t, initial: c_uint, flags: c_uint) -> CudaResult {
    let o = required(p_obj)?;
    enter()?;
    cu!(cuUserObjectCreate(o, ptr, destroy, initial, flags))
}

// ---------------------------------------------------------------------------
// Graph memory of a device; kernel node attributes.
// ---------------------------------------------------------------------------

fn cu_device(ordinal: std::ffi::c_int) -> CudaResult<crate::driver::CUdevice> {
    Ok(super::state::runtime()?.device(ordinal)?.cu)
}

/// Attribute numbers are the driver's; values are `cuuint64_t`.
pub fn graph_mem_attribute(set: bool, device: std::ffi::c_int, attr: cudaGraphMemAttributeType, value: *mut c_void) -> CudaResult {
    non_null(value)?;
    let d = cu_device(device)?;
    enter()?;
    if set {
        cu!(cuDeviceSetGraphMemAttribute(d, attr.0, value))
    } else {
        cu!(cuDeviceGetGraphMemAttribute(d, attr.0, value))
    }
}

pub fn graph_mem_trim(device: std::ffi::c_int) -> CudaResult {
    let d = cu_device(device)?;
    enter()?;
    cu!(cuDeviceGraphMemTrim(d))
}

/// Kernel node attributes: ids and values are the driver's launch
/// attributes, same numbers and layout.
pub fn kernel_attr_get(node: cudaGraphNode_t, attr: cudaLaunchAttributeID, value: Option<&mut cudaLaunchAttributeValue>) -> CudaResult {
    let o = required(value)?;
    enter()?;
    cu!(cuGraphKernelNodeGetAttribute(node, attr.0, o))
}

pub fn kernel_attr_set(node: cudaGraphNode_t, attr: cudaLaunchAttributeID, value: Option<&cudaLaunchAttributeValue>) -> CudaResult {
    let v = required(value)?;
    enter()?;
    cu!(cuGraphKernelNodeSetAttribute(node, attr.0, v))
}

