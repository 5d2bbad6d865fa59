//! Driver entry points of the graph area, with the CUDA 13.0 signature of
//! the plain name (the `PFN_*_vN` with the largest N <= 13000 in
//! cudaTypedefs.h), and the driver's node-parameter structs (cuda.h) that
//! are not laid out like the runtime's.
//!
//! Structs whose layout is identical on both sides (edge data, update result
//! info, instantiate params, host, external semaphore, mem alloc, launch
//! attribute values) are declared once, in `crate::types::graph`, and used
//! in these signatures directly.

#[allow(unused_imports)]
use super::table::driver_table;
#[allow(unused_imports)]
use super::types::*;
use crate::types::{
    cudaExternalSemaphoreSignalNodeParams, cudaExternalSemaphoreWaitNodeParams, cudaGraphEdgeData,
    cudaGraphExecUpdateResultInfo, cudaGraphInstantiateParams, cudaHostFn_t, cudaHostNodeParams,
    cudaLaunchAttributeValue, cudaMemAllocNodeParams,
};
use super::memory::CUDA_MEMCPY3D;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

/// C: `CUgraphConditionalHandle`.
pub type CUgraphConditionalHandle = u64;

/// C: `CUDA_KERNEL_NODE_PARAMS` (`_v2`, and `_v3` inside `CUgraphNodeParams`:
/// same layout). `kern` is used only when `func` is NULL; `ctx` NULL means
/// the current context.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_KERNEL_NODE_PARAMS {
    pub func: CUfunction,
    pub gridDimX: c_uint,
    pub gridDimY: c_uint,
    pub gridDimZ: c_uint,
    pub blockDimX: c_uint,
    pub blockDimY: c_uint,
    pub blockDimZ: c_uint,
    pub sharedMemBytes: c_uint,
    pub kernelParams: *mut *mut c_void,
    pub extra: *mut *mut c_void,
    pub kern: CUkernel,
    pub ctx: CUcontext,
}

/// C: `CUDA_MEMSET_NODE_PARAMS` (`_v1`, and `_v2` with `ctx` inside
/// `CUgraphNodeParams`; `ctx` is only read from the generic form).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMSET_NODE_PARAMS {
    pub dst: CUdeviceptr,
    pub pitch: usize,
    pub value: c_uint,
    pub elementSize: c_uint,
    pub width: usize,
    pub height: usize,
    pub ctx: CUcontext,
}

/// C: `CUDA_MEMCPY_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMCPY_NODE_PARAMS {
    pub flags: c_int,
    pub reserved: c_int,
    pub copyCtx: CUcontext,
    pub copyParams: CUDA_MEMCPY3D,
}

/// C: `CUDA_CONDITIONAL_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_CONDITIONAL_NODE_PARAMS {
    pub handle: CUgraphConditionalHandle,
    pub r#type: c_int,
    pub size: c_uint,
    pub phGraph_out: *mut CUgraph,
    pub ctx: CUcontext,
}

/// C: `CUgraphNodeParams` (256 bytes). The union is kept as raw words and
/// read/written through the typed views in `runtime::graph::convert`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUgraphNodeParams {
    pub r#type: c_int,
    pub reserved0: [c_int; 3],
    pub u: [i64; 29],
    pub reserved2: i64,
}

const _: () = {
    assert!(size_of::<CUgraphNodeParams>() == 256);
    assert!(size_of::<CUDA_MEMCPY3D>() == 200);
    assert!(size_of::<CUDA_KERNEL_NODE_PARAMS>() == 72);
    assert!(size_of::<CUDA_MEMCPY_NODE_PARAMS>() == 216);
    assert!(size_of::<CUDA_CONDITIONAL_NODE_PARAMS>() == 32);
    assert!(size_of::<CUDA_MEMSET_NODE_PARAMS>() == 48);
};

driver_table! {
    fn cuGraphCreate(phGraph: *mut CUgraph, flags: c_uint);
    fn cuGraphClone(phGraphClone: *mut CUgraph, originalGraph: CUgraph);
    fn cuGraphDestroy(hGraph: CUgraph);
    fn cuGraphDestroyNode(hNode: CUgraphNode);

    fn cuGraphAddKernelNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, p: *const CUDA_KERNEL_NODE_PARAMS);
    fn cuGraphKernelNodeGetParams(node: CUgraphNode, p: *mut CUDA_KERNEL_NODE_PARAMS);
    fn cuGraphKernelNodeSetParams(node: CUgraphNode, p: *const CUDA_KERNEL_NODE_PARAMS);
    fn cuGraphAddMemcpyNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, p: *const CUDA_MEMCPY3D, ctx: CUcontext);
    fn cuGraphMemcpyNodeGetParams(node: CUgraphNode, p: *mut CUDA_MEMCPY3D);
    fn cuGraphMemcpyNodeSetParams(node: CUgraphNode, p: *const CUDA_MEMCPY3D);
    fn cuGraphAddMemsetNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, p: *const CUDA_MEMSET_NODE_PARAMS, ctx: CUcontext);
    fn cuGraphMemsetNodeGetParams(node: CUgraphNode, p: *mut CUDA_MEMSET_NODE_PARAMS);
    fn cuGraphMemsetNodeSetParams(node: CUgraphNode, p: *const CUDA_MEMSET_NODE_PARAMS);
    fn cuGraphAddHostNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, p: *const cudaHostNodeParams);
    fn cuGraphHostNodeGetParams(node: CUgraphNode, p: *mut cudaHostNodeParams);
    fn cuGraphHostNodeSetParams(node: CUgraphNode, p: *const cudaHostNodeParams);
    fn cuGraphAddChildGraphNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, child: CUgraph);
    fn cuGraphChildGraphNodeGetGraph(node: CUgraphNode, ph: *mut CUgraph);
    fn cuGraphAddEmptyNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize);
    fn cuGraphAddEventRecordNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, e: CUevent);
    fn cuGraphEventRecordNodeGetEvent(node: CUgraphNode, e: *mut CUevent);
    fn cuGraphEventRecordNodeSetEvent(node: CUgraphNode, e: CUevent);
    fn cuGraphAddEventWaitNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, e: CUevent);
    fn cuGraphEventWaitNodeGetEvent(node: CUgraphNode, e: *mut CUevent);
    fn cuGraphEventWaitNodeSetEvent(node: CUgraphNode, e: CUevent);
    fn cuGraphAddExternalSemaphoresSignalNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, p: *const cudaExternalSemaphoreSignalNodeParams);
    fn cuGraphExternalSemaphoresSignalNodeGetParams(node: CUgraphNode, p: *mut cudaExternalSemaphoreSignalNodeParams);
    fn cuGraphExternalSemaphoresSignalNodeSetParams(node: CUgraphNode, p: *const cudaExternalSemaphoreSignalNodeParams);
    fn cuGraphAddExternalSemaphoresWaitNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, p: *const cudaExternalSemaphoreWaitNodeParams);
    fn cuGraphExternalSemaphoresWaitNodeGetParams(node: CUgraphNode, p: *mut cudaExternalSemaphoreWaitNodeParams);
    fn cuGraphExternalSemaphoresWaitNodeSetParams(node: CUgraphNode, p: *const cudaExternalSemaphoreWaitNodeParams);
    fn cuGraphAddMemAllocNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, p: *mut cudaMemAllocNodeParams);
    fn cuGraphMemAllocNodeGetParams(node: CUgraphNode, p: *mut cudaMemAllocNodeParams);
    fn cuGraphAddMemFreeNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, n: usize, dptr: CUdeviceptr);
    fn cuGraphMemFreeNodeGetParams(node: CUgraphNode, dptr: *mut CUdeviceptr);
    fn cuGraphConditionalHandleCreate(h: *mut CUgraphConditionalHandle, g: CUgraph, ctx: CUcontext, defaultLaunchValue: c_uint, flags: c_uint);
    fn cuGraphAddNode(ph: *mut CUgraphNode, g: CUgraph, deps: *const CUgraphNode, edgeData: *const cudaGraphEdgeData, n: usize, p: *mut CUgraphNodeParams);
    fn cuGraphNodeSetParams(node: CUgraphNode, p: *mut CUgraphNodeParams);
    fn cuGraphExecNodeSetParams(exec: CUgraphExec, node: CUgraphNode, p: *mut CUgraphNodeParams);

    fn cuGraphAddDependencies(g: CUgraph, from: *const CUgraphNode, to: *const CUgraphNode, edgeData: *const cudaGraphEdgeData, n: usize);
    fn cuGraphRemoveDependencies(g: CUgraph, from: *const CUgraphNode, to: *const CUgraphNode, edgeData: *const cudaGraphEdgeData, n: usize);
    fn cuGraphGetEdges(g: CUgraph, from: *mut CUgraphNode, to: *mut CUgraphNode, edgeData: *mut cudaGraphEdgeData, n: *mut usize);
    fn cuGraphNodeGetDependencies(node: CUgraphNode, deps: *mut CUgraphNode, edgeData: *mut cudaGraphEdgeData, n: *mut usize);
    fn cuGraphNodeGetDependentNodes(node: CUgraphNode, deps: *mut CUgraphNode, edgeData: *mut cudaGraphEdgeData, n: *mut usize);
    fn cuGraphGetNodes(g: CUgraph, nodes: *mut CUgraphNode, n: *mut usize);
    fn cuGraphGetRootNodes(g: CUgraph, nodes: *mut CUgraphNode, n: *mut usize);
    fn cuGraphNodeGetType(node: CUgraphNode, t: *mut c_int);
    fn cuGraphNodeFindInClone(ph: *mut CUgraphNode, original: CUgraphNode, cloned: CUgraph);

    fn cuGraphInstantiateWithFlags(ph: *mut CUgraphExec, g: CUgraph, flags: c_ulonglong);
    fn cuGraphInstantiateWithParams(ph: *mut CUgraphExec, g: CUgraph, p: *mut cudaGraphInstantiateParams);
    fn cuGraphExecDestroy(exec: CUgraphExec);
    fn cuGraphExecGetFlags(exec: CUgraphExec, flags: *mut u64);
    fn cuGraphExecUpdate(exec: CUgraphExec, g: CUgraph, info: *mut cudaGraphExecUpdateResultInfo);
    fn cuGraphExecKernelNodeSetParams(exec: CUgraphExec, node: CUgraphNode, p: *const CUDA_KERNEL_NODE_PARAMS);
    fn cuGraphExecMemcpyNodeSetParams(exec: CUgraphExec, node: CUgraphNode, p: *const CUDA_MEMCPY3D, ctx: CUcontext);
    fn cuGraphExecMemsetNodeSetParams(exec: CUgraphExec, node: CUgraphNode, p: *const CUDA_MEMSET_NODE_PARAMS, ctx: CUcontext);
    fn cuGraphExecHostNodeSetParams(exec: CUgraphExec, node: CUgraphNode, p: *const cudaHostNodeParams);
    fn cuGraphExecChildGraphNodeSetParams(exec: CUgraphExec, node: CUgraphNode, child: CUgraph);
    fn cuGraphExecEventRecordNodeSetEvent(exec: CUgraphExec, node: CUgraphNode, e: CUevent);
    fn cuGraphExecEventWaitNodeSetEvent(exec: CUgraphExec, node: CUgraphNode, e: CUevent);
    fn cuGraphExecExternalSemaphoresSignalNodeSetParams(exec: CUgraphExec, node: CUgraphNode, p: *const cudaExternalSemaphoreSignalNodeParams);
    fn cuGraphExecExternalSemaphoresWaitNodeSetParams(exec: CUgraphExec, node: CUgraphNode, p: *const cudaExternalSemaphoreWaitNodeParams);
    fn cuGraphNodeSetEnabled(exec: CUgraphExec, node: CUgraphNode, isEnabled: c_uint);
    fn cuGraphNodeGetEnabled(exec: CUgraphExec, node: CUgraphNode, isEnabled: *mut c_uint);
    fn cuGraphUpload(exec: CUgraphExec, stream: CUstream);
    fn cuGraphLaunch(exec: CUgraphExec, stream: CUstream);

    fn cuGraphDebugDotPrint(g: CUgraph, path: *const c_char, flags: c_uint);
    fn cuUserObjectCreate(out: *mut CUuserObject, ptr: *mut c_void, destroy: cudaHostFn_t, initialRefcount: c_uint, flags: c_uint);
    fn cuUserObjectRetain(obj: CUuserObject, count: c_uint);
    fn cuUserObjectRelease(obj: CUuserObject, count: c_uint);
    fn cuGraphRetainUserObject(g: CUgraph, obj: CUuserObject, count: c_uint, flags: c_uint);
    fn cuGraphReleaseUserObject(g: CUgraph, obj: CUuserObject, count: c_uint);
    fn cuDeviceGetGraphMemAttribute(dev: CUdevice, attr: c_int, value: *mut c_void);
    fn cuDeviceSetGraphMemAttribute(dev: CUdevice, attr: c_int, value: *mut c_void);
    fn cuDeviceGraphMemTrim(dev: CUdevice);
    fn cuGraphKernelNodeGetAttribute(node: CUgraphNode, attr: c_int, value: *mut cudaLaunchAttributeValue);
    fn cuGraphKernelNodeSetAttribute(node: CUgraphNode, attr: c_int, value: *const cudaLaunchAttributeValue);
    fn cuGraphKernelNodeCopyAttributes(dst: CUgraphNode, src: CUgraphNode);

    // Owned by the memory area too (the lead keeps one at merge): element
    // sizes of arrays in 3D copies.
}
