//! Graph management exports (CUDA 13.0 signatures): graphs, nodes of every
//! type, edges with edge data, executable graphs, user objects, graph
//! memory. Stream capture lives in the stream area.
//!
//! `cudaKernelNodeAttrID`/`cudaKernelNodeAttrValue` are C macros for
//! `cudaLaunchAttributeID`/`cudaLaunchAttributeValue`; the signatures use
//! the latter.

use crate::control::params;
use crate::driver::StreamMode;
use crate::runtime::{self, graph as g};
use crate::types::*;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphCreate(pGraph: *mut cudaGraph_t, flags: c_uint) -> cudaError_t {
    entry!(cudaGraphCreate(pGraph, flags) => g::create(unsafe { runtime::as_out(pGraph) }, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphClone(pGraphClone: *mut cudaGraph_t, originalGraph: cudaGraph_t) -> cudaError_t {
    entry!(cudaGraphClone(pGraphClone, originalGraph) => g::clone(unsafe { runtime::as_out(pGraphClone) }, originalGraph))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphDestroy(graph: cudaGraph_t) -> cudaError_t {
    entry!(cudaGraphDestroy(graph) => runtime::pass!(cuGraphDestroy(graph)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphDestroyNode(node: cudaGraphNode_t) -> cudaError_t {
    entry!(cudaGraphDestroyNode(node) => runtime::pass!(cuGraphDestroyNode(node)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddKernelNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, pNodeParams: *const cudaKernelNodeParams) -> cudaError_t {
    entry!(cudaGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies, pNodeParams) => g::add_kernel(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, unsafe { runtime::as_in(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphKernelNodeGetParams(node: cudaGraphNode_t, pNodeParams: *mut cudaKernelNodeParams) -> cudaError_t {
    entry!(cudaGraphKernelNodeGetParams(node, pNodeParams) => g::kernel_get(node, unsafe { runtime::as_out(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphKernelNodeSetParams(node: cudaGraphNode_t, pNodeParams: *const cudaKernelNodeParams) -> cudaError_t {
    entry!(cudaGraphKernelNodeSetParams(node, pNodeParams) => g::kernel_set(node, unsafe { runtime::as_in(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecKernelNodeSetParams(hGraphExec: cudaGraphExec_t, node: cudaGraphNode_t, pNodeParams: *const cudaKernelNodeParams) -> cudaError_t {
    entry!(cudaGraphExecKernelNodeSetParams(hGraphExec, node, pNodeParams) => g::exec_kernel_set(hGraphExec, node, unsafe { runtime::as_in(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphKernelNodeCopyAttributes(hDst: cudaGraphNode_t, hSrc: cudaGraphNode_t) -> cudaError_t {
    entry!(cudaGraphKernelNodeCopyAttributes(hDst, hSrc) => runtime::pass!(cuGraphKernelNodeCopyAttributes(hDst, hSrc)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphKernelNodeGetAttribute(hNode: cudaGraphNode_t, attr: cudaLaunchAttributeID, value_out: *mut cudaLaunchAttributeValue) -> cudaError_t {
    entry!(cudaGraphKernelNodeGetAttribute(hNode, attr, value_out) => g::kernel_attr_get(hNode, attr, unsafe { runtime::as_out(value_out) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphKernelNodeSetAttribute(hNode: cudaGraphNode_t, attr: cudaLaunchAttributeID, value: *const cudaLaunchAttributeValue) -> cudaError_t {
    entry!(cudaGraphKernelNodeSetAttribute(hNode, attr, value) => g::kernel_attr_set(hNode, attr, unsafe { runtime::as_in(value) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddMemcpyNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, pCopyParams: *const cudaMemcpy3DParms) -> cudaError_t {
    entry!(cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, pCopyParams) => g::add_memcpy(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, unsafe { runtime::as_in(pCopyParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddMemcpyNode1D(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies, numDependencies, dst, src, count, kind) => g::add_memcpy_1d(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, dst, src, count, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddMemcpyNodeFromSymbol(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphAddMemcpyNodeFromSymbol(pGraphNode, graph, pDependencies, numDependencies, dst, symbol, count, offset, kind) => g::add_memcpy_from_symbol(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, dst, symbol, count, offset, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddMemcpyNodeToSymbol(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphAddMemcpyNodeToSymbol(pGraphNode, graph, pDependencies, numDependencies, symbol, src, count, offset, kind) => g::add_memcpy_to_symbol(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, symbol, src, count, offset, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemcpyNodeGetParams(node: cudaGraphNode_t, pNodeParams: *mut cudaMemcpy3DParms) -> cudaError_t {
    entry!(cudaGraphMemcpyNodeGetParams(node, pNodeParams) => g::memcpy_get(node, unsafe { runtime::as_out(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemcpyNodeSetParams(node: cudaGraphNode_t, pNodeParams: *const cudaMemcpy3DParms) -> cudaError_t {
    entry!(cudaGraphMemcpyNodeSetParams(node, pNodeParams) => g::memcpy_set(node, unsafe { runtime::as_in(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemcpyNodeSetParams1D(node: cudaGraphNode_t, dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphMemcpyNodeSetParams1D(node, dst, src, count, kind) => g::memcpy_set_1d(node, dst, src, count, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemcpyNodeSetParamsFromSymbol(node: cudaGraphNode_t, dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphMemcpyNodeSetParamsFromSymbol(node, dst, symbol, count, offset, kind) => g::memcpy_set_from_symbol(node, dst, symbol, count, offset, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemcpyNodeSetParamsToSymbol(node: cudaGraphNode_t, symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphMemcpyNodeSetParamsToSymbol(node, symbol, src, count, offset, kind) => g::memcpy_set_to_symbol(node, symbol, src, count, offset, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecMemcpyNodeSetParams(hGraphExec: cudaGraphExec_t, node: cudaGraphNode_t, pNodeParams: *const cudaMemcpy3DParms) -> cudaError_t {
    entry!(cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, pNodeParams) => g::exec_memcpy_set(hGraphExec, node, unsafe { runtime::as_in(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecMemcpyNodeSetParams1D(hGraphExec: cudaGraphExec_t, node: cudaGraphNode_t, dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphExecMemcpyNodeSetParams1D(hGraphExec, node, dst, src, count, kind) => g::exec_memcpy_set_1d(hGraphExec, node, dst, src, count, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecMemcpyNodeSetParamsFromSymbol(hGraphExec: cudaGraphExec_t, node: cudaGraphNode_t, dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphExecMemcpyNodeSetParamsFromSymbol(hGraphExec, node, dst, symbol, count, offset, kind) => g::exec_memcpy_set_from_symbol(hGraphExec, node, dst, symbol, count, offset, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecMemcpyNodeSetParamsToSymbol(hGraphExec: cudaGraphExec_t, node: cudaGraphNode_t, symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaGraphExecMemcpyNodeSetParamsToSymbol(hGraphExec, node, symbol, src, count, offset, kind) => g::exec_memcpy_set_to_symbol(hGraphExec, node, symbol, src, count, offset, kind))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddMemsetNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, pMemsetParams: *const cudaMemsetParams) -> cudaError_t {
    entry!(cudaGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies, pMemsetParams) => g::add_memset(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, unsafe { runtime::as_in(pMemsetParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemsetNodeGetParams(node: cudaGraphNode_t, pNodeParams: *mut cudaMemsetParams) -> cudaError_t {
    entry!(cudaGraphMemsetNodeGetParams(node, pNodeParams) => g::memset_get(node, unsafe { runtime::as_out(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemsetNodeSetParams(node: cudaGraphNode_t, pNodeParams: *const cudaMemsetParams) -> cudaError_t {
    entry!(cudaGraphMemsetNodeSetParams(node, pNodeParams) => g::memset_set(node, unsafe { runtime::as_in(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecMemsetNodeSetParams(hGraphExec: cudaGraphExec_t, node: cudaGraphNode_t, pNodeParams: *const cudaMemsetParams) -> cudaError_t {
    entry!(cudaGraphExecMemsetNodeSetParams(hGraphExec, node, pNodeParams) => g::exec_memset_set(hGraphExec, node, unsafe { runtime::as_in(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddHostNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, pNodeParams: *const cudaHostNodeParams) -> cudaError_t {
    entry!(cudaGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies, pNodeParams) => g::add_host(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, unsafe { runtime::as_in(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphHostNodeGetParams(node: cudaGraphNode_t, pNodeParams: *mut cudaHostNodeParams) -> cudaError_t {
    entry!(cudaGraphHostNodeGetParams(node, pNodeParams) => g::host_get(node, unsafe { runtime::as_out(pNodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphHostNodeSetParams(node: cudaGraphNode_t, pNodeParams: *const cudaHostNodeParams) -> cudaError_t {
    entry!(cudaGraphHostNodeSetParams(node, pNodeParams) => g::host_set(node, pNodeParams))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecHostNodeSetParams(hGraphExec: cudaGraphExec_t, node: cudaGraphNode_t, pNodeParams: *const cudaHostNodeParams) -> cudaError_t {
    entry!(cudaGraphExecHostNodeSetParams(hGraphExec, node, pNodeParams) => g::exec_host_set(hGraphExec, node, pNodeParams))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddChildGraphNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, childGraph: cudaGraph_t) -> cudaError_t {
    entry!(cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies, childGraph) => g::add_child(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, childGraph))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphChildGraphNodeGetGraph(node: cudaGraphNode_t, pGraph: *mut cudaGraph_t) -> cudaError_t {
    entry!(cudaGraphChildGraphNodeGetGraph(node, pGraph) => g::child_get(node, unsafe { runtime::as_out(pGraph) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecChildGraphNodeSetParams(hGraphExec: cudaGraphExec_t, node: cudaGraphNode_t, childGraph: cudaGraph_t) -> cudaError_t {
    entry!(cudaGraphExecChildGraphNodeSetParams(hGraphExec, node, childGraph) => runtime::pass!(cuGraphExecChildGraphNodeSetParams(hGraphExec, node, childGraph)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddEmptyNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize) -> cudaError_t {
    entry!(cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies) => g::add_empty(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddEventRecordNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies, event) => g::add_event(true, unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphEventRecordNodeGetEvent(node: cudaGraphNode_t, event_out: *mut cudaEvent_t) -> cudaError_t {
    entry!(cudaGraphEventRecordNodeGetEvent(node, event_out) => g::event_get(true, node, unsafe { runtime::as_out(event_out) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphEventRecordNodeSetEvent(node: cudaGraphNode_t, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaGraphEventRecordNodeSetEvent(node, event) => g::event_set(true, node, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecEventRecordNodeSetEvent(hGraphExec: cudaGraphExec_t, hNode: cudaGraphNode_t, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaGraphExecEventRecordNodeSetEvent(hGraphExec, hNode, event) => g::exec_event_set(true, hGraphExec, hNode, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddEventWaitNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies, event) => g::add_event(false, unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphEventWaitNodeGetEvent(node: cudaGraphNode_t, event_out: *mut cudaEvent_t) -> cudaError_t {
    entry!(cudaGraphEventWaitNodeGetEvent(node, event_out) => g::event_get(false, node, unsafe { runtime::as_out(event_out) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphEventWaitNodeSetEvent(node: cudaGraphNode_t, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaGraphEventWaitNodeSetEvent(node, event) => g::event_set(false, node, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecEventWaitNodeSetEvent(hGraphExec: cudaGraphExec_t, hNode: cudaGraphNode_t, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaGraphExecEventWaitNodeSetEvent(hGraphExec, hNode, event) => g::exec_event_set(false, hGraphExec, hNode, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddExternalSemaphoresSignalNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, nodeParams: *const cudaExternalSemaphoreSignalNodeParams) -> cudaError_t {
    entry!(cudaGraphAddExternalSemaphoresSignalNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams) => g::add_sem_signal(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, unsafe { runtime::as_in(nodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExternalSemaphoresSignalNodeGetParams(hNode: cudaGraphNode_t, params_out: *mut cudaExternalSemaphoreSignalNodeParams) -> cudaError_t {
    entry!(cudaGraphExternalSemaphoresSignalNodeGetParams(hNode, params_out) => g::sem_signal_get(hNode, unsafe { runtime::as_out(params_out) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExternalSemaphoresSignalNodeSetParams(hNode: cudaGraphNode_t, nodeParams: *const cudaExternalSemaphoreSignalNodeParams) -> cudaError_t {
    entry!(cudaGraphExternalSemaphoresSignalNodeSetParams(hNode, nodeParams) => g::sem_signal_set(hNode, nodeParams))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecExternalSemaphoresSignalNodeSetParams(hGraphExec: cudaGraphExec_t, hNode: cudaGraphNode_t, nodeParams: *const cudaExternalSemaphoreSignalNodeParams) -> cudaError_t {
    entry!(cudaGraphExecExternalSemaphoresSignalNodeSetParams(hGraphExec, hNode, nodeParams) => g::exec_sem_signal_set(hGraphExec, hNode, nodeParams))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddExternalSemaphoresWaitNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, nodeParams: *const cudaExternalSemaphoreWaitNodeParams) -> cudaError_t {
    entry!(cudaGraphAddExternalSemaphoresWaitNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams) => g::add_sem_wait(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, unsafe { runtime::as_in(nodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExternalSemaphoresWaitNodeGetParams(hNode: cudaGraphNode_t, params_out: *mut cudaExternalSemaphoreWaitNodeParams) -> cudaError_t {
    entry!(cudaGraphExternalSemaphoresWaitNodeGetParams(hNode, params_out) => g::sem_wait_get(hNode, unsafe { runtime::as_out(params_out) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExternalSemaphoresWaitNodeSetParams(hNode: cudaGraphNode_t, nodeParams: *const cudaExternalSemaphoreWaitNodeParams) -> cudaError_t {
    entry!(cudaGraphExternalSemaphoresWaitNodeSetParams(hNode, nodeParams) => g::sem_wait_set(hNode, nodeParams))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecExternalSemaphoresWaitNodeSetParams(hGraphExec: cudaGraphExec_t, hNode: cudaGraphNode_t, nodeParams: *const cudaExternalSemaphoreWaitNodeParams) -> cudaError_t {
    entry!(cudaGraphExecExternalSemaphoresWaitNodeSetParams(hGraphExec, hNode, nodeParams) => g::exec_sem_wait_set(hGraphExec, hNode, nodeParams))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddMemAllocNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, nodeParams: *mut cudaMemAllocNodeParams) -> cudaError_t {
    entry!(cudaGraphAddMemAllocNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams) => g::add_mem_alloc(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, unsafe { runtime::as_out(nodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemAllocNodeGetParams(node: cudaGraphNode_t, params_out: *mut cudaMemAllocNodeParams) -> cudaError_t {
    entry!(cudaGraphMemAllocNodeGetParams(node, params_out) => g::mem_alloc_get(node, unsafe { runtime::as_out(params_out) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddMemFreeNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, dptr: *mut c_void) -> cudaError_t {
    entry!(cudaGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies, dptr) => g::add_mem_free(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, numDependencies, dptr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphMemFreeNodeGetParams(node: cudaGraphNode_t, dptr_out: *mut c_void) -> cudaError_t {
    entry!(cudaGraphMemFreeNodeGetParams(node, dptr_out) => g::mem_free_get(node, dptr_out))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphConditionalHandleCreate(pHandle_out: *mut cudaGraphConditionalHandle, graph: cudaGraph_t, defaultLaunchValue: c_uint, flags: c_uint) -> cudaError_t {
    entry!(cudaGraphConditionalHandleCreate(pHandle_out, graph, defaultLaunchValue, flags) => g::conditional_handle_create(unsafe { runtime::as_out(pHandle_out) }, graph, defaultLaunchValue, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, dependencyData: *const cudaGraphEdgeData, numDependencies: usize, nodeParams: *mut cudaGraphNodeParams) -> cudaError_t {
    entry!(cudaGraphAddNode(pGraphNode, graph, pDependencies, dependencyData, numDependencies, nodeParams) => g::add_node(unsafe { runtime::as_out(pGraphNode) }, graph, pDependencies, dependencyData, numDependencies, unsafe { runtime::as_out(nodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeSetParams(node: cudaGraphNode_t, nodeParams: *mut cudaGraphNodeParams) -> cudaError_t {
    entry!(cudaGraphNodeSetParams(node, nodeParams) => g::node_set_params(node, unsafe { runtime::as_out(nodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecNodeSetParams(graphExec: cudaGraphExec_t, node: cudaGraphNode_t, nodeParams: *mut cudaGraphNodeParams) -> cudaError_t {
    entry!(cudaGraphExecNodeSetParams(graphExec, node, nodeParams) => g::exec_node_set_params(graphExec, node, unsafe { runtime::as_out(nodeParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphAddDependencies(graph: cudaGraph_t, from: *const cudaGraphNode_t, to: *const cudaGraphNode_t, edgeData: *const cudaGraphEdgeData, numDependencies: usize) -> cudaError_t {
    entry!(cudaGraphAddDependencies(graph, from, to, edgeData, numDependencies) => runtime::pass!(cuGraphAddDependencies(graph, from, to, edgeData, numDependencies)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphRemoveDependencies(graph: cudaGraph_t, from: *const cudaGraphNode_t, to: *const cudaGraphNode_t, edgeData: *const cudaGraphEdgeData, numDependencies: usize) -> cudaError_t {
    entry!(cudaGraphRemoveDependencies(graph, from, to, edgeData, numDependencies) => runtime::pass!(cuGraphRemoveDependencies(graph, from, to, edgeData, numDependencies)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphGetEdges(graph: cudaGraph_t, from: *mut cudaGraphNode_t, to: *mut cudaGraphNode_t, edgeData: *mut cudaGraphEdgeData, numEdges: *mut usize) -> cudaError_t {
    entry!(cudaGraphGetEdges(graph, from, to, edgeData, numEdges) => g::get_edges(graph, from, to, edgeData, unsafe { runtime::as_out(numEdges) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeGetDependencies(node: cudaGraphNode_t, pDependencies: *mut cudaGraphNode_t, edgeData: *mut cudaGraphEdgeData, pNumDependencies: *mut usize) -> cudaError_t {
    entry!(cudaGraphNodeGetDependencies(node, pDependencies, edgeData, pNumDependencies) => g::node_dependencies(node, pDependencies, edgeData, unsafe { runtime::as_out(pNumDependencies) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeGetDependentNodes(node: cudaGraphNode_t, pDependentNodes: *mut cudaGraphNode_t, edgeData: *mut cudaGraphEdgeData, pNumDependentNodes: *mut usize) -> cudaError_t {
    entry!(cudaGraphNodeGetDependentNodes(node, pDependentNodes, edgeData, pNumDependentNodes) => g::node_dependents(node, pDependentNodes, edgeData, unsafe { runtime::as_out(pNumDependentNodes) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphGetNodes(graph: cudaGraph_t, nodes: *mut cudaGraphNode_t, numNodes: *mut usize) -> cudaError_t {
    entry!(cudaGraphGetNodes(graph, nodes, numNodes) => g::get_nodes(graph, nodes, unsafe { runtime::as_out(numNodes) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphGetRootNodes(graph: cudaGraph_t, pRootNodes: *mut cudaGraphNode_t, pNumRootNodes: *mut usize) -> cudaError_t {
    entry!(cudaGraphGetRootNodes(graph, pRootNodes, pNumRootNodes) => g::get_root_nodes(graph, pRootNodes, unsafe { runtime::as_out(pNumRootNodes) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeGetType(node: cudaGraphNode_t, pType: *mut cudaGraphNodeType) -> cudaError_t {
    entry!(cudaGraphNodeGetType(node, pType) => g::node_type(node, unsafe { runtime::as_out(pType) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeFindInClone(pNode: *mut cudaGraphNode_t, originalNode: cudaGraphNode_t, clonedGraph: cudaGraph_t) -> cudaError_t {
    entry!(cudaGraphNodeFindInClone(pNode, originalNode, clonedGraph) => g::find_in_clone(unsafe { runtime::as_out(pNode) }, originalNode, clonedGraph))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphInstantiate(pGraphExec: *mut cudaGraphExec_t, graph: cudaGraph_t, flags: c_ulonglong) -> cudaError_t {
    entry!(cudaGraphInstantiate(pGraphExec, graph, flags) => g::instantiate(unsafe { runtime::as_out(pGraphExec) }, graph, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphInstantiateWithFlags(pGraphExec: *mut cudaGraphExec_t, graph: cudaGraph_t, flags: c_ulonglong) -> cudaError_t {
    entry!(cudaGraphInstantiateWithFlags(pGraphExec, graph, flags) => g::instantiate(unsafe { runtime::as_out(pGraphExec) }, graph, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphInstantiateWithParams(pGraphExec: *mut cudaGraphExec_t, graph: cudaGraph_t, instantiateParams: *mut cudaGraphInstantiateParams) -> cudaError_t {
    entry!(cudaGraphInstantiateWithParams(pGraphExec, graph, instantiateParams) => g::instantiate_with_params(StreamMode::Legacy, unsafe { runtime::as_out(pGraphExec) }, graph, unsafe { runtime::as_out(instantiateParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphInstantiateWithParams_ptsz(pGraphExec: *mut cudaGraphExec_t, graph: cudaGraph_t, instantiateParams: *mut cudaGraphInstantiateParams) -> cudaError_t {
    entry!(cudaGraphInstantiateWithParams_ptsz(pGraphExec, graph, instantiateParams) => g::instantiate_with_params(StreamMode::PerThread, unsafe { runtime::as_out(pGraphExec) }, graph, unsafe { runtime::as_out(instantiateParams) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecDestroy(graphExec: cudaGraphExec_t) -> cudaError_t {
    entry!(cudaGraphExecDestroy(graphExec) => runtime::pass!(cuGraphExecDestroy(graphExec)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecGetFlags(graphExec: cudaGraphExec_t, flags: *mut c_ulonglong) -> cudaError_t {
    entry!(cudaGraphExecGetFlags(graphExec, flags) => g::exec_flags(graphExec, unsafe { runtime::as_out(flags) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecUpdate(hGraphExec: cudaGraphExec_t, hGraph: cudaGraph_t, resultInfo: *mut cudaGraphExecUpdateResultInfo) -> cudaError_t {
    entry!(cudaGraphExecUpdate(hGraphExec, hGraph, resultInfo) => g::exec_update(hGraphExec, hGraph, unsafe { runtime::as_out(resultInfo) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeSetEnabled(hGraphExec: cudaGraphExec_t, hNode: cudaGraphNode_t, isEnabled: c_uint) -> cudaError_t {
    entry!(cudaGraphNodeSetEnabled(hGraphExec, hNode, isEnabled) => runtime::pass!(cuGraphNodeSetEnabled(hGraphExec, hNode, isEnabled)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeGetEnabled(hGraphExec: cudaGraphExec_t, hNode: cudaGraphNode_t, isEnabled: *mut c_uint) -> cudaError_t {
    entry!(cudaGraphNodeGetEnabled(hGraphExec, hNode, isEnabled) => g::node_get_enabled(hGraphExec, hNode, unsafe { runtime::as_out(isEnabled) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphUpload(graphExec: cudaGraphExec_t, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaGraphUpload(graphExec, stream) => g::upload(StreamMode::Legacy, graphExec, stream))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphUpload_ptsz(graphExec: cudaGraphExec_t, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaGraphUpload_ptsz(graphExec, stream) => g::upload(StreamMode::PerThread, graphExec, stream))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphLaunch(graphExec: cudaGraphExec_t, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaGraphLaunch(graphExec, stream) => g::launch(StreamMode::Legacy, graphExec, stream))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphLaunch_ptsz(graphExec: cudaGraphExec_t, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaGraphLaunch_ptsz(graphExec, stream) => g::launch(StreamMode::PerThread, graphExec, stream))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphDebugDotPrint(graph: cudaGraph_t, path: *const c_char, flags: c_uint) -> cudaError_t {
    entry!(cudaGraphDebugDotPrint(graph, path, flags) => g::debug_dot_print(graph, path, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaUserObjectCreate(object_out: *mut cudaUserObject_t, ptr: *mut c_void, destroy: cudaHostFn_t, initialRefcount: c_uint, flags: c_uint) -> cudaError_t {
    entry!(cudaUserObjectCreate(object_out, ptr, destroy, initialRefcount, flags) => g::user_object_create(unsafe { runtime::as_out(object_out) }, ptr, destroy, initialRefcount, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaUserObjectRetain(object: cudaUserObject_t, count: c_uint) -> cudaError_t {
    entry!(cudaUserObjectRetain(object, count) => runtime::pass!(cuUserObjectRetain(object, count)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaUserObjectRelease(object: cudaUserObject_t, count: c_uint) -> cudaError_t {
    entry!(cudaUserObjectRelease(object, count) => runtime::pass!(cuUserObjectRelease(object, count)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphRetainUserObject(graph: cudaGraph_t, object: cudaUserObject_t, count: c_uint, flags: c_uint) -> cudaError_t {
    entry!(cudaGraphRetainUserObject(graph, object, count, flags) => runtime::pass!(cuGraphRetainUserObject(graph, object, count, flags)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphReleaseUserObject(graph: cudaGraph_t, object: cudaUserObject_t, count: c_uint) -> cudaError_t {
    entry!(cudaGraphReleaseUserObject(graph, object, count) => runtime::pass!(cuGraphReleaseUserObject(graph, object, count)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetGraphMemAttribute(device: c_int, attr: cudaGraphMemAttributeType, value: *mut c_void) -> cudaError_t {
    entry!(cudaDeviceGetGraphMemAttribute(device, attr, value) => g::graph_mem_attribute(false, device, attr, value))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSetGraphMemAttribute(device: c_int, attr: cudaGraphMemAttributeType, value: *mut c_void) -> cudaError_t {
    entry!(cudaDeviceSetGraphMemAttribute(device, attr, value) => g::graph_mem_attribute(true, device, attr, value))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGraphMemTrim(device: c_int) -> cudaError_t {
    entry!(cudaDeviceGraphMemTrim(device) => g::graph_mem_trim(device))
}

// CUDA 13.1 to 13.5: graph and node identities, a node's parameters, and
// conditional handles bound to an execution context.

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphGetId(hGraph: cudaGraph_t, graphID: *mut c_uint) -> cudaError_t {
    entry!(cudaGraphGetId(hGraph, graphID) => crate::runtime::graph_ids::graph_id(hGraph, unsafe { graphID.as_mut() }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphExecGetId(hGraphExec: cudaGraphExec_t, graphID: *mut c_uint) -> cudaError_t {
    entry!(cudaGraphExecGetId(hGraphExec, graphID) => crate::runtime::graph_ids::exec_id(hGraphExec, unsafe { graphID.as_mut() }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeGetContainingGraph(hNode: cudaGraphNode_t, phGraph: *mut cudaGraph_t) -> cudaError_t {
    entry!(cudaGraphNodeGetContainingGraph(hNode, phGraph) => crate::runtime::graph_ids::containing_graph(hNode, unsafe { phGraph.as_mut() }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeGetLocalId(hNode: cudaGraphNode_t, nodeId: *mut c_uint) -> cudaError_t {
    entry!(cudaGraphNodeGetLocalId(hNode, nodeId) => crate::runtime::graph_ids::local_id(hNode, unsafe { nodeId.as_mut() }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeGetToolsId(hNode: cudaGraphNode_t, toolsNodeId: *mut c_ulonglong) -> cudaError_t {
    entry!(cudaGraphNodeGetToolsId(hNode, toolsNodeId) => crate::runtime::graph_ids::tools_id(hNode, unsafe { toolsNodeId.as_mut() }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphNodeGetParams(node: cudaGraphNode_t, nodeParams: *mut cudaGraphNodeParams) -> cudaError_t {
    entry!(cudaGraphNodeGetParams(node, nodeParams) => crate::runtime::graph_ids::node_params(node, unsafe { nodeParams.as_mut() }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphConditionalHandleCreate_v2(
    pHandle_out: *mut cudaGraphConditionalHandle,
    graph: cudaGraph_t,
    ctx: cudaExecutionContext_t,
    defaultLaunchValue: c_uint,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaGraphConditionalHandleCreate_v2(pHandle_out, graph, ctx, defaultLaunchValue, flags) => crate::runtime::graph_ids::conditional_handle(unsafe { pHandle_out.as_mut() }, graph, ctx, defaultLaunchValue, flags))
}
