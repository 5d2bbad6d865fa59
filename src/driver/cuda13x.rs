//! Driver entry points behind the exports CUDA 13.1 to 13.5 added: green
//! contexts and device resources (present since CUDA 12.4/12.5, so in the
//! 13.0 table), and the ones introduced after 13.0, each resolved with the
//! version that introduced it (`PFN_<name>_v<version>` in 13.5's
//! `cudaTypedefs.h`). On an older driver those fail with
//! `cudaErrorCallRequiresNewerDriver`, as NVIDIA's 13.5 runtime does.

use super::table::{driver_table, driver_table_since};
use super::types::*;
use crate::types::{
    cudaDevResource, cudaDevResourceDesc_t, cudaDevSmResourceGroupParams, cudaHostFn_t, cudaMemLocation,
    cudaMemcpy3DBatchOp, cudaMemcpyAttributes,
};
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

/// Opaque driver green context.
pub struct CUgreenCtx_st {
    _private: [u8; 0],
}
pub type CUgreenCtx = *mut CUgreenCtx_st;

/// `cuGreenCtxCreate` flag the driver requires: the green context gets a
/// default stream.
pub const CU_GREEN_CTX_DEFAULT_STREAM: c_uint = 0x1;

/// C: `CUgraphRecaptureCallback` (CUDA 13.3): the parameter structs are
/// valid only during the call; `status` is a `CUgraphRecaptureStatus`.
pub type CUgraphRecaptureCallback = Option<
    unsafe extern "C" fn(
        data: *mut c_void,
        node: CUgraphNode,
        original: *const super::graph::CUgraphNodeParams,
        recaptured: *const super::graph::CUgraphNodeParams,
        status: c_int,
    ) -> CUresult,
>;

driver_table! {
    fn cuGreenCtxCreate(ctx: *mut CUgreenCtx, desc: cudaDevResourceDesc_t, dev: CUdevice, flags: c_uint);
    fn cuGreenCtxDestroy(ctx: CUgreenCtx);
    fn cuCtxFromGreenCtx(ctx: *mut CUcontext, green: CUgreenCtx);
    fn cuGreenCtxGetDevResource(ctx: CUgreenCtx, result: *mut cudaDevResource, kind: c_int);
    fn cuGreenCtxRecordEvent(ctx: CUgreenCtx, event: CUevent);
    fn cuGreenCtxWaitEvent(ctx: CUgreenCtx, event: CUevent);
    fn cuGreenCtxStreamCreate(stream: *mut CUstream, ctx: CUgreenCtx, flags: c_uint, priority: c_int);
    fn cuDeviceGetDevResource(dev: CUdevice, result: *mut cudaDevResource, kind: c_int);
    fn cuDevSmResourceSplitByCount(result: *mut cudaDevResource, nb_groups: *mut c_uint, input: *const cudaDevResource, remaining: *mut cudaDevResource, flags: c_uint, min_count: c_uint);
    fn cuDevResourceGenerateDesc(desc: *mut cudaDevResourceDesc_t, resources: *mut cudaDevResource, count: c_uint);
    fn cuCtxGetDevResource(ctx: CUcontext, result: *mut cudaDevResource, kind: c_int);
    fn cuCtxRecordEvent(ctx: CUcontext, event: CUevent);
    fn cuCtxWaitEvent(ctx: CUcontext, event: CUevent);
    fn cuCtxGetId(ctx: CUcontext, id: *mut c_ulonglong);
    // At 13000 the plain name is the 12.5 signature, with the green context.
    fn cuStreamGetCtx(stream: CUstream, ctx: *mut CUcontext, green: *mut CUgreenCtx);
    fn cuCtxPushCurrent(ctx: CUcontext);
    fn cuCtxPopCurrent(ctx: *mut CUcontext);
}

driver_table_since! {
    13010 => fn cuDevSmResourceSplit(result: *mut cudaDevResource, nb_groups: c_uint, input: *const cudaDevResource, remainder: *mut cudaDevResource, flags: c_uint, params: *mut cudaDevSmResourceGroupParams);
    13010 => fn cuStreamGetDevResource(stream: CUstream, result: *mut cudaDevResource, kind: c_int);
    13010 => fn cuGraphGetId(graph: CUgraph, id: *mut c_uint);
    13010 => fn cuGraphExecGetId(exec: CUgraphExec, id: *mut c_uint);
    13010 => fn cuGraphNodeGetContainingGraph(node: CUgraphNode, graph: *mut CUgraph);
    13010 => fn cuGraphNodeGetLocalId(node: CUgraphNode, id: *mut c_uint);
    13010 => fn cuGraphNodeGetToolsId(node: CUgraphNode, id: *mut c_ulonglong);
    13020 => fn cuFuncGetParamCount(func: CUfunction, count: *mut usize);
    13020 => fn cuKernelGetParamCount(kernel: CUkernel, count: *mut usize);
    13020 => fn cuGraphNodeGetParams(node: CUgraphNode, params: *mut c_void);
    13020 => fn cuMemcpyWithAttributesAsync(dst: CUdeviceptr, src: CUdeviceptr, size: usize, attr: *mut cudaMemcpyAttributes, stream: CUstream);
    13020 => fn cuMemcpy3DWithAttributesAsync(op: *mut cudaMemcpy3DBatchOp, flags: c_ulonglong, stream: CUstream);
    13030 => fn cuStreamBeginRecaptureToGraph(stream: CUstream, mode: c_int, graph: CUgraph, callback: CUgraphRecaptureCallback, user_data: *mut c_void);
    13040 => fn cuMemGetLocationInfo(ptr: CUdeviceptr, size: usize, summary_granularity: usize, sampling_granularity: usize, location: *mut cudaMemLocation);
    // No PFN typedef in 13.5's cudaTypedefs.h: asked for by this name with
    // the newest version we know.
    13050 => fn cuLaunchHostFunc_v2(stream: CUstream, f: cudaHostFn_t, user_data: *mut c_void, sync_mode: c_uint);
    // Undeclared in 13.5's headers; only looked up, to answer as NVIDIA's
    // runtime does on a driver without them.
    13050 => fn cuSubgridCreate();
    13050 => fn cuSubgridWorkerGridCreate();
    13050 => fn cuSubgridWorksetCreate();
}
