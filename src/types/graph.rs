//! C ABI types of the graph area (CUDA 13.0 layouts).
//!
//! Node-parameter structs as `driver_types.h` lays them out. Where the
//! driver's struct (cuda.h) has the same layout the runtime hands the
//! pointer through unchanged (see `runtime::graph::convert`); the ones that
//! differ (kernel, memcpy, memset, conditional, the generic
//! `cudaGraphNodeParams`) are converted field by field.

pub use super::graph_enums::*;
use super::handles::*;
use super::{pool::*, interop::*, shared::*};
use std::ffi::{c_int, c_uint, c_ulonglong, c_ushort, c_void};

// ---------------------------------------------------------------------------
// Graph node parameters.
// ---------------------------------------------------------------------------

/// C: `struct cudaKernelNodeParams`. `func` is the host stub (or a
/// `cudaKernel_t`), resolved to the driver's function when converted.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaKernelNodeParams {
    pub func: *mut c_void,
    pub gridDim: dim3,
    pub blockDim: dim3,
    pub sharedMemBytes: c_uint,
    pub kernelParams: *mut *mut c_void,
    pub extra: *mut *mut c_void,
}

/// C: `struct cudaKernelNodeParamsV2` (CUDA 13.5: 72 bytes). NVIDIA's
/// begins with an anonymous union of `func` (host stub), `kern`
/// (`cudaKernel_t`) and `cuFunc` (`CUfunction`), chosen by `functionType`;
/// ours names the union `func` (the member C programs set), so
/// `p.func = ...` compiles with both headers.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaKernelNodeParamsV2 {
    pub func: *mut c_void,
    pub gridDim: dim3,
    pub blockDim: dim3,
    pub sharedMemBytes: c_uint,
    pub kernelParams: *mut *mut c_void,
    pub extra: *mut *mut c_void,
    /// CUDA 13.5: the execution context (NULL: the current one).
    pub ctx: super::execution::cudaExecutionContext_t,
    /// CUDA 13.5: what `func` holds (0: unspecified, i.e. a host stub).
    pub functionType: super::execution::cudaKernelFunctionType,
}

impl cudaKernelNodeParamsV2 {
    /// The fields the first version has.
    pub fn v1(&self) -> cudaKernelNodeParams {
        cudaKernelNodeParams {
            func: self.func,
            gridDim: self.gridDim,
            blockDim: self.blockDim,
            sharedMemBytes: self.sharedMemBytes,
            kernelParams: self.kernelParams,
            extra: self.extra,
        }
    }

    /// From the first version: a host stub, the current context.
    pub fn from_v1(p: &cudaKernelNodeParams) -> Self {
        cudaKernelNodeParamsV2 {
            func: p.func,
            gridDim: p.gridDim,
            blockDim: p.blockDim,
            sharedMemBytes: p.sharedMemBytes,
            kernelParams: p.kernelParams,
            extra: p.extra,
            ctx: std::ptr::null_mut(),
            functionType: super::execution::cudaKernelFunctionTypeUnspecified,
        }
    }
}

/// C: `struct cudaMemcpyNodeParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaMemcpyNodeParams {
    pub flags: c_int,
    pub reserved: [c_int; 3],
    pub copyParams: cudaMemcpy3DParms,
}

/// C: `struct cudaMemsetParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaMemsetParams {
    pub dst: *mut c_void,
    pub pitch: usize,
    pub value: c_uint,
    pub elementSize: c_uint,
    pub width: usize,
    pub height: usize,
}

/// C: `struct cudaMemsetParamsV2` (same layout).
pub type cudaMemsetParamsV2 = cudaMemsetParams;

/// C: `struct cudaHostNodeParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaHostNodeParams {
    pub r#fn: cudaHostFn_t,
    pub userData: *mut c_void,
}

/// C: `struct cudaHostNodeParamsV2` (CUDA 13.5: 32 bytes, with the
/// host task's synchronization mode and an execution context).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaHostNodeParamsV2 {
    pub r#fn: cudaHostFn_t,
    pub userData: *mut c_void,
    /// A `cudaHostTaskSyncMode`.
    pub syncMode: c_uint,
    pub ctx: super::execution::cudaExecutionContext_t,
}

impl cudaHostNodeParamsV2 {
    /// The fields the first version has.
    pub fn v1(&self) -> cudaHostNodeParams {
        cudaHostNodeParams { r#fn: self.r#fn, userData: self.userData }
    }

    /// From the first version: blocking, the current context.
    pub fn from_v1(p: &cudaHostNodeParams) -> Self {
        cudaHostNodeParamsV2 { r#fn: p.r#fn, userData: p.userData, syncMode: 0, ctx: std::ptr::null_mut() }
    }
}

/// C: `struct cudaChildGraphNodeParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaChildGraphNodeParams {
    pub graph: cudaGraph_t,
    pub ownership: cudaGraphChildGraphNodeOwnership,
}

/// C: `struct cudaEventRecordNodeParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaEventRecordNodeParams {
    pub event: cudaEvent_t,
    /// CUDA 13.5: the execution context (NULL: the current one).
    pub ctx: super::execution::cudaExecutionContext_t,
}

/// C: `struct cudaEventWaitNodeParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaEventWaitNodeParams {
    pub event: cudaEvent_t,
}

/// C: `struct cudaExternalSemaphoreSignalNodeParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaExternalSemaphoreSignalNodeParams {
    pub extSemArray: *mut cudaExternalSemaphore_t,
    pub paramsArray: *const cudaExternalSemaphoreSignalParams,
    pub numExtSems: c_uint,
}

/// C: `struct cudaExternalSemaphoreSignalNodeParamsV2` (CUDA 13.5: with an
/// execution context).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaExternalSemaphoreSignalNodeParamsV2 {
    pub extSemArray: *mut cudaExternalSemaphore_t,
    pub paramsArray: *const cudaExternalSemaphoreSignalParams,
    pub numExtSems: c_uint,
    pub ctx: super::execution::cudaExecutionContext_t,
}

/// C: `struct cudaExternalSemaphoreWaitNodeParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaExternalSemaphoreWaitNodeParams {
    pub extSemArray: *mut cudaExternalSemaphore_t,
    pub paramsArray: *const cudaExternalSemaphoreWaitParams,
    pub numExtSems: c_uint,
}

/// C: `struct cudaExternalSemaphoreWaitNodeParamsV2` (CUDA 13.5: with an
/// execution context).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaExternalSemaphoreWaitNodeParamsV2 {
    pub extSemArray: *mut cudaExternalSemaphore_t,
    pub paramsArray: *const cudaExternalSemaphoreWaitParams,
    pub numExtSems: c_uint,
    pub ctx: super::execution::cudaExecutionContext_t,
}

/// C: `struct cudaMemAllocNodeParams`; `dptr` is written by the add call.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaMemAllocNodeParams {
    pub poolProps: cudaMemPoolProps,
    pub accessDescs: *const cudaMemAccessDesc,
    pub accessDescCount: usize,
    pub bytesize: usize,
    pub dptr: *mut c_void,
}

/// C: `struct cudaMemAllocNodeParamsV2` (same layout).
pub type cudaMemAllocNodeParamsV2 = cudaMemAllocNodeParams;

/// C: `struct cudaMemFreeNodeParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaMemFreeNodeParams {
    pub dptr: *mut c_void,
}

/// C: `struct cudaConditionalNodeParams` (the driver's has a trailing
/// context; converted).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaConditionalNodeParams {
    pub handle: cudaGraphConditionalHandle,
    pub r#type: cudaGraphConditionalNodeType,
    pub size: c_uint,
    pub phGraph_out: *mut cudaGraph_t,
    /// CUDA 13.5: the execution context (NULL: the current one).
    pub ctx: super::execution::cudaExecutionContext_t,
}

/// The anonymous union of [`cudaGraphNodeParams`] (named here because Rust
/// has no anonymous unions; C code reaches the members as `params._u.kernel`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudartShimGraphNodeParamsUnion {
    pub reserved1: [i64; 29],
    pub kernel: cudaKernelNodeParamsV2,
    pub memcpy: cudaMemcpyNodeParams,
    pub memset: cudaMemsetParamsV2,
    pub host: cudaHostNodeParamsV2,
    pub graph: cudaChildGraphNodeParams,
    pub eventWait: cudaEventWaitNodeParams,
    pub eventRecord: cudaEventRecordNodeParams,
    pub extSemSignal: cudaExternalSemaphoreSignalNodeParamsV2,
    pub extSemWait: cudaExternalSemaphoreWaitNodeParamsV2,
    pub alloc: cudaMemAllocNodeParamsV2,
    pub free: cudaMemFreeNodeParams,
    pub conditional: cudaConditionalNodeParams,
}

/// C: `struct cudaGraphNodeParams` (256 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaGraphNodeParams {
    pub r#type: cudaGraphNodeType,
    pub reserved0: [c_int; 3],
    pub _u: cudartShimGraphNodeParamsUnion,
    pub reserved2: i64,
}

impl cudaGraphNodeParams {
    /// All zero (the "unused bytes must be zero" state) of type `t`.
    pub fn zeroed(t: cudaGraphNodeType) -> Self {
        cudaGraphNodeParams { r#type: t, reserved0: [0; 3], _u: cudartShimGraphNodeParamsUnion { reserved1: [0; 29] }, reserved2: 0 }
    }
}

/// C: `cudaGraphEdgeData` (same layout as the driver's `CUgraphEdgeData`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaGraphEdgeData {
    pub from_port: u8,
    pub to_port: u8,
    pub r#type: u8,
    pub reserved: [u8; 5],
}

/// C: `cudaGraphExecUpdateResultInfo` (same layout as the driver's).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaGraphExecUpdateResultInfo {
    pub result: cudaGraphExecUpdateResult,
    pub errorNode: cudaGraphNode_t,
    pub errorFromNode: cudaGraphNode_t,
}

/// C: `cudaGraphInstantiateParams` (same layout as the driver's
/// `CUDA_GRAPH_INSTANTIATE_PARAMS`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaGraphInstantiateParams {
    pub flags: c_ulonglong,
    pub uploadStream: cudaStream_t,
    pub errNode_out: cudaGraphNode_t,
    pub result_out: cudaGraphInstantiateResult,
}

/// C: `cudaGraphKernelNodePortDefault` and friends (edge ports).
pub const cudaGraphKernelNodePortDefault: c_int = 0;
pub const cudaGraphKernelNodePortProgrammatic: c_int = 1;
pub const cudaGraphKernelNodePortLaunchCompletion: c_int = 2;

const _: () = {
    assert!(size_of::<cudaGraphNodeParams>() == 256);
    assert!(size_of::<cudaLaunchAttributeValue>() == 64);
    assert!(size_of::<cudaMemcpy3DParms>() == 160);
    assert!(size_of::<cudaMemPoolProps>() == 88);
};

/// C: `cudaGraphRecaptureCallback_t`.
pub type cudaGraphRecaptureCallback_t = Option<
    unsafe extern "C" fn(
        data: *mut c_void,
        node: cudaGraphNode_t,
        originalParams: *const cudaGraphNodeParams,
        recaptureParams: *const cudaGraphNodeParams,
        status: super::execution::cudaGraphRecaptureStatus,
    ) -> super::error::cudaError_t,
>;

/// C: `struct cudaGraphRecaptureCallbackData`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaGraphRecaptureCallbackData {
    pub callbackFunc: cudaGraphRecaptureCallback_t,
    pub userData: *mut c_void,
}
