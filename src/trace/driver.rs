//! Traced forwarders for driver entry points handed out by
//! `cudaGetDriverEntryPoint*` (`CUDART_SHIM_TRACE_DRIVER=1`).
//!
//! A forwarder cannot be written per signature for every driver function,
//! so it relies on the calling convention instead: on x86-64 System V,
//! every argument of the functions in [`KNOWN`] is of integer class
//! (integers, enums, handles, pointers; no floating point, no struct by
//! value, in any version of the function in `cudaTypedefs.h`), so the
//! argument registers and stack slots can be passed through unchanged as
//! `u64`s. Functions with up to 6 arguments use register-only forwarders;
//! longer ones a 16-slot forwarder (the caller owns its stack arguments and
//! the callee ignores extra ones). Arguments are logged in hex.
//!
//! Forwarders come from a fixed pool of [`SLOTS`] (one per distinct
//! (function, real pointer) pair, since different versions of a function
//! have different pointers); when the pool is used up, or on another
//! architecture, the real pointer is returned untraced.

use super::{traced, CallArgs, CallSite};
use crate::types::cudaError_t;
use parking_lot::Mutex;
use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::*};

/// Driver functions whose every argument is of integer class, with the
/// largest argument count over their versions (generated from
/// `cudaTypedefs.h` of CUDA 13.0).
pub const KNOWN: &[(&str, u8)] = &[
    ("cuArray3DCreate", 2),
    ("cuArray3DGetDescriptor", 2),
    ("cuArrayCreate", 2),
    ("cuArrayDestroy", 1),
    ("cuArrayGetDescriptor", 2),
    ("cuArrayGetMemoryRequirements", 3),
    ("cuArrayGetPlane", 3),
    ("cuArrayGetSparseProperties", 2),
    ("cuCheckpointProcessCheckpoint", 2),
    ("cuCheckpointProcessGetRestoreThreadId", 2),
    ("cuCheckpointProcessGetState", 2),
    ("cuCheckpointProcessLock", 2),
    ("cuCheckpointProcessRestore", 2),
    ("cuCheckpointProcessUnlock", 2),
    ("cuCoredumpGetAttribute", 3),
    ("cuCoredumpGetAttributeGlobal", 3),
    ("cuCoredumpSetAttribute", 3),
    ("cuCoredumpSetAttributeGlobal", 3),
    ("cuCtxAttach", 2),
    ("cuCtxCreate", 5),
    ("cuCtxDestroy", 1),
    ("cuCtxDetach", 1),
    ("cuCtxDisablePeerAccess", 1),
    ("cuCtxEnablePeerAccess", 2),
    ("cuCtxFromGreenCtx", 2),
    ("cuCtxGetApiVersion", 2),
    ("cuCtxGetCacheConfig", 1),
    ("cuCtxGetCurrent", 1),
    ("cuCtxGetDevResource", 3),
    ("cuCtxGetDevice", 2),
    ("cuCtxGetExecAffinity", 2),
    ("cuCtxGetFlags", 1),
    ("cuCtxGetId", 2),
    ("cuCtxGetLimit", 2),
    ("cuCtxGetSharedMemConfig", 1),
    ("cuCtxGetStreamPriorityRange", 2),
    ("cuCtxPopCurrent", 1),
    ("cuCtxPushCurrent", 1),
    ("cuCtxRecordEvent", 2),
    ("cuCtxResetPersistingL2Cache", 0),
    ("cuCtxSetCacheConfig", 1),
    ("cuCtxSetCurrent", 1),
    ("cuCtxSetFlags", 1),
    ("cuCtxSetLimit", 2),
    ("cuCtxSetSharedMemConfig", 1),
    ("cuCtxSynchronize", 1),
    ("cuCtxWaitEvent", 2),
    ("cuDestroyExternalMemory", 1),
    ("cuDestroyExternalSemaphore", 1),
    ("cuDevResourceGenerateDesc", 3),
    ("cuDevSmResourceSplitByCount", 6),
    ("cuDeviceCanAccessPeer", 3),
    ("cuDeviceComputeCapability", 3),
    ("cuDeviceGet", 2),
    ("cuDeviceGetAttribute", 3),
    ("cuDeviceGetByPCIBusId", 2),
    ("cuDeviceGetCount", 1),
    ("cuDeviceGetDefaultMemPool", 2),
    ("cuDeviceGetDevResource", 3),
    ("cuDeviceGetExecAffinitySupport", 3),
    ("cuDeviceGetGraphMemAttribute", 3),
    ("cuDeviceGetHostAtomicCapabilities", 4),
    ("cuDeviceGetLuid", 3),
    ("cuDeviceGetMemPool", 2),
    ("cuDeviceGetName", 3),
    ("cuDeviceGetNvSciSyncAttributes", 3),
    ("cuDeviceGetP2PAtomicCapabilities", 5),
    ("cuDeviceGetP2PAttribute", 4),
    ("cuDeviceGetPCIBusId", 3),
    ("cuDeviceGetProperties", 2),
    ("cuDeviceGetUuid", 2),
    ("cuDeviceGraphMemTrim", 1),
    ("cuDevicePrimaryCtxGetState", 3),
    ("cuDevicePrimaryCtxRelease", 1),
    ("cuDevicePrimaryCtxReset", 1),
    ("cuDevicePrimaryCtxRetain", 2),
    ("cuDevicePrimaryCtxSetFlags", 2),
    ("cuDeviceSetGraphMemAttribute", 3),
    ("cuDeviceSetMemPool", 2),
    ("cuDeviceTotalMem", 2),
    ("cuDeviceUnregisterAsyncNotification", 2),
    ("cuDriverGetVersion", 1),
    ("cuEventCreate", 2),
    ("cuEventDestroy", 1),
    ("cuEventElapsedTime", 3),
    ("cuEventQuery", 1),
    ("cuEventRecord", 2),
    ("cuEventRecordWithFlags", 3),
    ("cuEventSynchronize", 1),
    ("cuExternalMemoryGetMappedBuffer", 3),
    ("cuExternalMemoryGetMappedMipmappedArray", 3),
    ("cuFlushGPUDirectRDMAWrites", 2),
    ("cuFuncGetAttribute", 3),
    ("cuFuncGetModule", 2),
    ("cuFuncGetName", 2),
    ("cuFuncGetParamInfo", 4),
    ("cuFuncIsLoaded", 2),
    ("cuFuncLoad", 1),
    ("cuFuncSetAttribute", 3),
    ("cuFuncSetBlockShape", 4),
    ("cuFuncSetCacheConfig", 2),
    ("cuFuncSetSharedMemConfig", 2),
    ("cuFuncSetSharedSize", 2),
    ("cuGetErrorName", 2),
    ("cuGetErrorString", 2),
    ("cuGetExportTable", 2),
    ("cuGetProcAddress", 5),
    ("cuGraphAddBatchMemOpNode", 5),
    ("cuGraphAddChildGraphNode", 5),
    ("cuGraphAddDependencies", 5),
    ("cuGraphAddEmptyNode", 4),
    ("cuGraphAddEventRecordNode", 5),
    ("cuGraphAddEventWaitNode", 5),
    ("cuGraphAddExternalSemaphoresSignalNode", 5),
    ("cuGraphAddExternalSemaphoresWaitNode", 5),
    ("cuGraphAddHostNode", 5),
    ("cuGraphAddKernelNode", 5),
    ("cuGraphAddMemAllocNode", 5),
    ("cuGraphAddMemFreeNode", 5),
    ("cuGraphAddMemcpyNode", 6),
    ("cuGraphAddMemsetNode", 6),
    ("cuGraphAddNode", 6),
    ("cuGraphBatchMemOpNodeGetParams", 2),
    ("cuGraphBatchMemOpNodeSetParams", 2),
    ("cuGraphChildGraphNodeGetGraph", 2),
    ("cuGraphClone", 2),
    ("cuGraphConditionalHandleCreate", 5),
    ("cuGraphCreate", 2),
    ("cuGraphDebugDotPrint", 3),
    ("cuGraphDestroy", 1),
    ("cuGraphDestroyNode", 1),
    ("cuGraphEventRecordNodeGetEvent", 2),
    ("cuGraphEventRecordNodeSetEvent", 2),
    ("cuGraphEventWaitNodeGetEvent", 2),
    ("cuGraphEventWaitNodeSetEvent", 2),
    ("cuGraphExecBatchMemOpNodeSetParams", 3),
    ("cuGraphExecChildGraphNodeSetParams", 3),
    ("cuGraphExecDestroy", 1),
    ("cuGraphExecEventRecordNodeSetEvent", 3),
    ("cuGraphExecEventWaitNodeSetEvent", 3),
    ("cuGraphExecExternalSemaphoresSignalNodeSetParams", 3),
    ("cuGraphExecExternalSemaphoresWaitNodeSetParams", 3),
    ("cuGraphExecGetFlags", 2),
    ("cuGraphExecHostNodeSetParams", 3),
    ("cuGraphExecKernelNodeSetParams", 3),
    ("cuGraphExecMemcpyNodeSetParams", 4),
    ("cuGraphExecMemsetNodeSetParams", 4),
    ("cuGraphExecNodeSetParams", 3),
    ("cuGraphExecUpdate", 4),
    ("cuGraphExternalSemaphoresSignalNodeGetParams", 2),
    ("cuGraphExternalSemaphoresSignalNodeSetParams", 2),
    ("cuGraphExternalSemaphoresWaitNodeGetParams", 2),
    ("cuGraphExternalSemaphoresWaitNodeSetParams", 2),
    ("cuGraphGetEdges", 5),
    ("cuGraphGetNodes", 3),
    ("cuGraphGetRootNodes", 3),
    ("cuGraphHostNodeGetParams", 2),
    ("cuGraphHostNodeSetParams", 2),
    ("cuGraphInstantiate", 5),
    ("cuGraphInstantiateWithFlags", 3),
    ("cuGraphInstantiateWithParams", 3),
    ("cuGraphKernelNodeCopyAttributes", 2),
    ("cuGraphKernelNodeGetAttribute", 3),
    ("cuGraphKernelNodeGetParams", 2),
    ("cuGraphKernelNodeSetAttribute", 3),
    ("cuGraphKernelNodeSetParams", 2),
    ("cuGraphLaunch", 2),
    ("cuGraphMemAllocNodeGetParams", 2),
    ("cuGraphMemFreeNodeGetParams", 2),
    ("cuGraphMemcpyNodeGetParams", 2),
    ("cuGraphMemcpyNodeSetParams", 2),
    ("cuGraphMemsetNodeGetParams", 2),
    ("cuGraphMemsetNodeSetParams", 2),
    ("cuGraphNodeFindInClone", 3),
    ("cuGraphNodeGetDependencies", 4),
    ("cuGraphNodeGetDependentNodes", 4),
    ("cuGraphNodeGetEnabled", 3),
    ("cuGraphNodeGetType", 2),
    ("cuGraphNodeSetEnabled", 3),
    ("cuGraphNodeSetParams", 2),
    ("cuGraphReleaseUserObject", 3),
    ("cuGraphRemoveDependencies", 5),
    ("cuGraphRetainUserObject", 4),
    ("cuGraphUpload", 2),
    ("cuGraphicsMapResources", 3),
    ("cuGraphicsResourceGetMappedMipmappedArray", 2),
    ("cuGraphicsResourceGetMappedPointer", 3),
    ("cuGraphicsResourceSetMapFlags", 2),
    ("cuGraphicsSubResourceGetMappedArray", 4),
    ("cuGraphicsUnmapResources", 3),
    ("cuGraphicsUnregisterResource", 1),
    ("cuGreenCtxCreate", 4),
    ("cuGreenCtxDestroy", 1),
    ("cuGreenCtxGetDevResource", 3),
    ("cuGreenCtxGetId", 2),
    ("cuGreenCtxRecordEvent", 2),
    ("cuGreenCtxStreamCreate", 4),
    ("cuGreenCtxWaitEvent", 2),
    ("cuImportExternalMemory", 2),
    ("cuImportExternalSemaphore", 2),
    ("cuInit", 1),
    ("cuIpcCloseMemHandle", 1),
    ("cuIpcGetEventHandle", 2),
    ("cuIpcGetMemHandle", 2),
    ("cuKernelGetAttribute", 4),
    ("cuKernelGetFunction", 2),
    ("cuKernelGetLibrary", 2),
    ("cuKernelGetName", 2),
    ("cuKernelGetParamInfo", 4),
    ("cuKernelSetAttribute", 4),
    ("cuKernelSetCacheConfig", 3),
    ("cuLaunch", 1),
    ("cuLaunchCooperativeKernel", 10),
    ("cuLaunchCooperativeKernelMultiDevice", 3),
    ("cuLaunchGrid", 3),
    ("cuLaunchGridAsync", 4),
    ("cuLaunchKernel", 11),
    ("cuLaunchKernelEx", 4),
    ("cuLibraryEnumerateKernels", 3),
    ("cuLibraryGetGlobal", 4),
    ("cuLibraryGetKernel", 3),
    ("cuLibraryGetKernelCount", 2),
    ("cuLibraryGetManaged", 4),
    ("cuLibraryGetModule", 2),
    ("cuLibraryGetUnifiedFunction", 3),
    ("cuLibraryLoadData", 8),
    ("cuLibraryLoadFromFile", 8),
    ("cuLibraryUnload", 1),
    ("cuLinkAddData", 8),
    ("cuLinkAddFile", 6),
    ("cuLinkComplete", 3),
    ("cuLinkCreate", 4),
    ("cuLinkDestroy", 1),
    ("cuLogsCurrent", 2),
    ("cuLogsDumpToFile", 3),
    ("cuLogsDumpToMemory", 4),
    ("cuLogsUnregisterCallback", 1),
    ("cuMemAddressFree", 2),
    ("cuMemAddressReserve", 5),
    ("cuMemAlloc", 2),
    ("cuMemAllocAsync", 3),
    ("cuMemAllocFromPoolAsync", 4),
    ("cuMemAllocHost", 2),
    ("cuMemAllocManaged", 3),
    ("cuMemAllocPitch", 5),
    ("cuMemBatchDecompressAsync", 5),
    ("cuMemCreate", 4),
    ("cuMemDiscardAndPrefetchBatchAsync", 8),
    ("cuMemDiscardBatchAsync", 5),
    ("cuMemExportToShareableHandle", 4),
    ("cuMemFree", 1),
    ("cuMemFreeAsync", 2),
    ("cuMemFreeHost", 1),
    ("cuMemGetAccess", 3),
    ("cuMemGetAddressRange", 3),
    ("cuMemGetAllocationGranularity", 3),
    ("cuMemGetAllocationPropertiesFromHandle", 2),
    ("cuMemGetDefaultMemPool", 3),
    ("cuMemGetHandleForAddressRange", 5),
    ("cuMemGetInfo", 2),
    ("cuMemGetMemPool", 3),
    ("cuMemHostAlloc", 3),
    ("cuMemHostGetDevicePointer", 3),
    ("cuMemHostGetFlags", 2),
    ("cuMemHostRegister", 3),
    ("cuMemHostUnregister", 1),
    ("cuMemImportFromShareableHandle", 3),
    ("cuMemMap", 5),
    ("cuMemMapArrayAsync", 3),
    ("cuMemPoolCreate", 2),
    ("cuMemPoolDestroy", 1),
    ("cuMemPoolExportPointer", 2),
    ("cuMemPoolExportToShareableHandle", 4),
    ("cuMemPoolGetAccess", 3),
    ("cuMemPoolGetAttribute", 3),
    ("cuMemPoolImportFromShareableHandle", 4),
    ("cuMemPoolImportPointer", 3),
    ("cuMemPoolSetAccess", 3),
    ("cuMemPoolSetAttribute", 3),
    ("cuMemPoolTrimTo", 2),
    ("cuMemPrefetchBatchAsync", 8),
    ("cuMemRangeGetAttribute", 5),
    ("cuMemRangeGetAttributes", 6),
    ("cuMemRelease", 1),
    ("cuMemRetainAllocationHandle", 2),
    ("cuMemSetAccess", 4),
    ("cuMemSetMemPool", 3),
    ("cuMemUnmap", 2),
    ("cuMemcpy", 3),
    ("cuMemcpy2D", 1),
    ("cuMemcpy2DAsync", 2),
    ("cuMemcpy2DUnaligned", 1),
    ("cuMemcpy3D", 1),
    ("cuMemcpy3DAsync", 2),
    ("cuMemcpy3DBatchAsync", 5),
    ("cuMemcpy3DPeer", 1),
    ("cuMemcpy3DPeerAsync", 2),
    ("cuMemcpyAsync", 4),
    ("cuMemcpyAtoA", 5),
    ("cuMemcpyAtoD", 4),
    ("cuMemcpyAtoH", 4),
    ("cuMemcpyAtoHAsync", 5),
    ("cuMemcpyBatchAsync", 9),
    ("cuMemcpyDtoA", 4),
    ("cuMemcpyDtoD", 3),
    ("cuMemcpyDtoDAsync", 4),
    ("cuMemcpyDtoH", 3),
    ("cuMemcpyDtoHAsync", 4),
    ("cuMemcpyHtoA", 4),
    ("cuMemcpyHtoAAsync", 5),
    ("cuMemcpyHtoD", 3),
    ("cuMemcpyHtoDAsync", 4),
    ("cuMemcpyPeer", 5),
    ("cuMemcpyPeerAsync", 6),
    ("cuMemsetD16", 3),
    ("cuMemsetD16Async", 4),
    ("cuMemsetD2D16", 5),
    ("cuMemsetD2D16Async", 6),
    ("cuMemsetD2D32", 5),
    ("cuMemsetD2D32Async", 6),
    ("cuMemsetD2D8", 5),
    ("cuMemsetD2D8Async", 6),
    ("cuMemsetD32", 3),
    ("cuMemsetD32Async", 4),
    ("cuMemsetD8", 3),
    ("cuMemsetD8Async", 4),
    ("cuMipmappedArrayCreate", 3),
    ("cuMipmappedArrayDestroy", 1),
    ("cuMipmappedArrayGetLevel", 3),
    ("cuMipmappedArrayGetMemoryRequirements", 3),
    ("cuMipmappedArrayGetSparseProperties", 2),
    ("cuModuleEnumerateFunctions", 3),
    ("cuModuleGetFunction", 3),
    ("cuModuleGetFunctionCount", 2),
    ("cuModuleGetGlobal", 4),
    ("cuModuleGetLoadingMode", 1),
    ("cuModuleGetSurfRef", 3),
    ("cuModuleGetTexRef", 3),
    ("cuModuleLoad", 2),
    ("cuModuleLoadData", 2),
    ("cuModuleLoadDataEx", 5),
    ("cuModuleLoadFatBinary", 2),
    ("cuModuleUnload", 1),
    ("cuMulticastAddDevice", 2),
    ("cuMulticastBindAddr", 5),
    ("cuMulticastBindMem", 6),
    ("cuMulticastCreate", 2),
    ("cuMulticastGetGranularity", 3),
    ("cuMulticastUnbind", 4),
    ("cuOccupancyAvailableDynamicSMemPerBlock", 4),
    ("cuOccupancyMaxActiveBlocksPerMultiprocessor", 4),
    ("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 5),
    ("cuOccupancyMaxActiveClusters", 3),
    ("cuOccupancyMaxPotentialClusterSize", 3),
    ("cuParamSetSize", 2),
    ("cuParamSetTexRef", 3),
    ("cuParamSeti", 3),
    ("cuParamSetv", 4),
    ("cuPointerGetAttribute", 3),
    ("cuPointerGetAttributes", 4),
    ("cuPointerSetAttribute", 3),
    ("cuSignalExternalSemaphoresAsync", 4),
    ("cuStreamAttachMemAsync", 4),
    ("cuStreamBatchMemOp", 4),
    ("cuStreamBeginCapture", 2),
    ("cuStreamBeginCaptureToGraph", 6),
    ("cuStreamCopyAttributes", 2),
    ("cuStreamCreate", 2),
    ("cuStreamCreateWithPriority", 3),
    ("cuStreamDestroy", 1),
    ("cuStreamEndCapture", 2),
    ("cuStreamGetAttribute", 3),
    ("cuStreamGetCaptureInfo", 7),
    ("cuStreamGetCtx", 3),
    ("cuStreamGetDevice", 2),
    ("cuStreamGetFlags", 2),
    ("cuStreamGetGreenCtx", 2),
    ("cuStreamGetId", 2),
    ("cuStreamGetPriority", 2),
    ("cuStreamIsCapturing", 2),
    ("cuStreamQuery", 1),
    ("cuStreamSetAttribute", 3),
    ("cuStreamSynchronize", 1),
    ("cuStreamUpdateCaptureDependencies", 5),
    ("cuStreamWaitEvent", 3),
    ("cuStreamWaitValue32", 4),
    ("cuStreamWaitValue64", 4),
    ("cuStreamWriteValue32", 4),
    ("cuStreamWriteValue64", 4),
    ("cuSurfObjectCreate", 2),
    ("cuSurfObjectDestroy", 1),
    ("cuSurfObjectGetResourceDesc", 2),
    ("cuSurfRefGetArray", 2),
    ("cuSurfRefSetArray", 3),
    ("cuTensorMapEncodeIm2col", 15),
    ("cuTensorMapEncodeIm2colWide", 16),
    ("cuTensorMapEncodeTiled", 12),
    ("cuTensorMapReplaceAddress", 2),
    ("cuTexObjectCreate", 4),
    ("cuTexObjectDestroy", 1),
    ("cuTexObjectGetResourceDesc", 2),
    ("cuTexObjectGetResourceViewDesc", 2),
    ("cuTexObjectGetTextureDesc", 2),
    ("cuTexRefCreate", 1),
    ("cuTexRefDestroy", 1),
    ("cuTexRefGetAddress", 2),
    ("cuTexRefGetAddressMode", 3),
    ("cuTexRefGetArray", 2),
    ("cuTexRefGetBorderColor", 2),
    ("cuTexRefGetFilterMode", 2),
    ("cuTexRefGetFlags", 2),
    ("cuTexRefGetFormat", 3),
    ("cuTexRefGetMaxAnisotropy", 2),
    ("cuTexRefGetMipmapFilterMode", 2),
    ("cuTexRefGetMipmapLevelBias", 2),
    ("cuTexRefGetMipmapLevelClamp", 3),
    ("cuTexRefGetMipmappedArray", 2),
    ("cuTexRefSetAddress", 4),
    ("cuTexRefSetAddress2D", 4),
    ("cuTexRefSetAddressMode", 3),
    ("cuTexRefSetArray", 3),
    ("cuTexRefSetBorderColor", 2),
    ("cuTexRefSetFilterMode", 2),
    ("cuTexRefSetFlags", 2),
    ("cuTexRefSetFormat", 3),
    ("cuTexRefSetMaxAnisotropy", 2),
    ("cuTexRefSetMipmapFilterMode", 2),
    ("cuTexRefSetMipmappedArray", 3),
    ("cuThreadExchangeStreamCaptureMode", 1),
    ("cuUserObjectRelease", 2),
    ("cuUserObjectRetain", 2),
    ("cuWaitExternalSemaphoresAsync", 4),
];

pub const SLOTS: usize = 64;

struct Slot {
    real: AtomicUsize,
    site: AtomicPtr<CallSite>,
    arity: AtomicUsize,
}

static TABLE: [Slot; SLOTS] =
    [const { Slot { real: AtomicUsize::new(0), site: AtomicPtr::new(std::ptr::null_mut()), arity: AtomicUsize::new(0) } }; SLOTS];
static USED: Mutex<usize> = Mutex::new(0);

const ARG_NAMES: [&str; 16] = ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12", "a13", "a14", "a15"];

type Fn16 = unsafe extern "C" fn(u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64) -> c_int;
type Fn6 = unsafe extern "C" fn(u64, u64, u64, u64, u64, u64) -> c_int;

#[inline(always)]
fn run_traced(i: usize, a: &[u64], call: impl FnOnce() -> c_int) -> c_int {
    let s = &TABLE[i];
    let site = s.site.load(Acquire);
    if site.is_null() || !super::active() {
        return call();
    }
    let n = s.arity.load(Relaxed).min(a.len());
    // SAFETY: sites are leaked statics.
    let site: &'static CallSite = unsafe { &*site };
    // Argument types are unknown here: each is written as a hex word.
    traced(site, &|c: &mut CallArgs| {
        for (k, v) in a[..n].iter().enumerate() {
            c.arg(ARG_NAMES[k], false, &(*v as *const c_void));
        }
    }, call, |r| cudaError_t(*r))
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn fwd6<const I: usize>(a0: u64, a1: u64, a2: u64, a3: u64, a4: u64, a5: u64) -> c_int {
    // SAFETY: the slot holds the real pointer of a function whose
    // arguments are integer-class (see the module note).
    let f: Fn6 = unsafe { std::mem::transmute(TABLE[I].real.load(Acquire)) };
    run_traced(I, &[a0, a1, a2, a3, a4, a5], || unsafe { f(a0, a1, a2, a3, a4, a5) })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn fwd16<const I: usize>(
    a0: u64, a1: u64, a2: u64, a3: u64, a4: u64, a5: u64, a6: u64, a7: u64,
    a8: u64, a9: u64, a10: u64, a11: u64, a12: u64, a13: u64, a14: u64, a15: u64,
) -> c_int {
    // SAFETY: as in fwd6.
    let f: Fn16 = unsafe { std::mem::transmute(TABLE[I].real.load(Acquire)) };
    run_traced(I, &[a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15], || unsafe {
        f(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)
    })
}

macro_rules! pool {
    ($f:ident, $t:ty; $($i:literal),*) => { [$($f::<$i> as $t),*] };
}
static FWD6: [Fn6; SLOTS] = pool!(fwd6, Fn6; 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63);
static FWD16: [Fn16; SLOTS] = pool!(fwd16, Fn16; 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63);

/// What `cudaGetDriverEntryPoint*` should hand out for driver function
/// `name` whose real entry point is `pfn`: with `CUDART_SHIM_TRACE_DRIVER=1`
/// and tracing on, a traced forwarder for the functions in [`KNOWN`];
/// otherwise `pfn` itself. Never fails; NULL stays NULL.
pub fn wrap_driver_entry_point(name: &CStr, pfn: *mut c_void) -> *mut c_void {
    if pfn.is_null() || !cfg!(target_arch = "x86_64") || !crate::config::trace_config().driver || !super::active() {
        return pfn;
    }
    let Ok(name) = name.to_str() else { return pfn };
    let Some(&(known, arity)) = KNOWN.iter().find(|(n, _)| *n == name) else { return pfn };
    let mut used = USED.lock();
    let slot = match (0..*used).find(|&i| TABLE[i].real.load(Relaxed) == pfn as usize && unsafe { (*TABLE[i].site.load(Relaxed)).name } == known) {
        Some(i) => i,
        None if *used < SLOTS => {
            let i = *used;
            let site: &'static CallSite = Box::leak(Box::new(CallSite::new(known)));
            TABLE[i].real.store(pfn as usize, Release);
            TABLE[i].arity.store(arity as usize, Relaxed);
            TABLE[i].site.store(site as *const CallSite as *mut CallSite, Release);
            *used += 1;
            i
        }
        None => {
            log::warn!("CUDART_SHIM_TRACE_DRIVER: more than {SLOTS} driver entry points wrapped; {name} is not traced");
            return pfn;
        }
    };
    if arity <= 6 { FWD6[slot] as *mut c_void } else { FWD16[slot] as *mut c_void }
}
