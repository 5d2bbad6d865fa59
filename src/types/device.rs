//! Device management types: `cudaDeviceProp` (CUDA 13.0 layout, 1008 bytes).

use super::handles::cudaUUID_t;
use std::ffi::{c_char, c_int, c_uint};

/// C: `struct cudaDeviceProp`, CUDA 13.0 layout. 13.0 removed `clockRate`,
/// `memoryClockRate` and the other fields deprecated in 12.x, so this is not
/// the 12.x layout; programs built against 12.x headers use `libcudart.so.12`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaDeviceProp {
    pub name: [c_char; 256],
    pub uuid: cudaUUID_t,
    pub luid: [c_char; 8],
    pub luidDeviceNodeMask: c_uint,
    pub totalGlobalMem: usize,
    pub sharedMemPerBlock: usize,
    pub regsPerBlock: c_int,
    pub warpSize: c_int,
    pub memPitch: usize,
    pub maxThreadsPerBlock: c_int,
    pub maxThreadsDim: [c_int; 3],
    pub maxGridSize: [c_int; 3],
    pub totalConstMem: usize,
    pub major: c_int,
    pub minor: c_int,
    pub textureAlignment: usize,
    pub texturePitchAlignment: usize,
    pub multiProcessorCount: c_int,
    pub integrated: c_int,
    pub canMapHostMemory: c_int,
    pub maxTexture1D: c_int,
    pub maxTexture1DMipmap: c_int,
    pub maxTexture2D: [c_int; 2],
    pub maxTexture2DMipmap: [c_int; 2],
    pub maxTexture2DLinear: [c_int; 3],
    pub maxTexture2DGather: [c_int; 2],
    pub maxTexture3D: [c_int; 3],
    pub maxTexture3DAlt: [c_int; 3],
    pub maxTextureCubemap: c_int,
    pub maxTexture1DLayered: [c_int; 2],
    pub maxTexture2DLayered: [c_int; 3],
    pub maxTextureCubemapLayered: [c_int; 2],
    pub maxSurface1D: c_int,
    pub maxSurface2D: [c_int; 2],
    pub maxSurface3D: [c_int; 3],
    pub maxSurface1DLayered: [c_int; 2],
    pub maxSurface2DLayered: [c_int; 3],
    pub maxSurfaceCubemap: c_int,
    pub maxSurfaceCubemapLayered: [c_int; 2],
    pub surfaceAlignment: usize,
    pub concurrentKernels: c_int,
    pub ECCEnabled: c_int,
    pub pciBusID: c_int,
    pub pciDeviceID: c_int,
    pub pciDomainID: c_int,
    pub tccDriver: c_int,
    pub asyncEngineCount: c_int,
    pub unifiedAddressing: c_int,
    pub memoryBusWidth: c_int,
    pub l2CacheSize: c_int,
    pub persistingL2CacheMaxSize: c_int,
    pub maxThreadsPerMultiProcessor: c_int,
    pub streamPrioritiesSupported: c_int,
    pub globalL1CacheSupported: c_int,
    pub localL1CacheSupported: c_int,
    pub sharedMemPerMultiprocessor: usize,
    pub regsPerMultiprocessor: c_int,
    pub managedMemory: c_int,
    pub isMultiGpuBoard: c_int,
    pub multiGpuBoardGroupID: c_int,
    pub hostNativeAtomicSupported: c_int,
    pub pageableMemoryAccess: c_int,
    pub concurrentManagedAccess: c_int,
    pub computePreemptionSupported: c_int,
    pub canUseHostPointerForRegisteredMem: c_int,
    pub cooperativeLaunch: c_int,
    pub sharedMemPerBlockOptin: usize,
    pub pageableMemoryAccessUsesHostPageTables: c_int,
    pub directManagedMemAccessFromHost: c_int,
    pub maxBlocksPerMultiProcessor: c_int,
    pub accessPolicyMaxWindowSize: c_int,
    pub reservedSharedMemPerBlock: usize,
    pub hostRegisterSupported: c_int,
    pub sparseCudaArraySupported: c_int,
    pub hostRegisterReadOnlySupported: c_int,
    pub timelineSemaphoreInteropSupported: c_int,
    pub memoryPoolsSupported: c_int,
    pub gpuDirectRDMASupported: c_int,
    pub gpuDirectRDMAFlushWritesOptions: c_uint,
    pub gpuDirectRDMAWritesOrdering: c_int,
    pub memoryPoolSupportedHandleTypes: c_uint,
    pub deferredMappingCudaArraySupported: c_int,
    pub ipcEventSupported: c_int,
    pub clusterLaunch: c_int,
    pub unifiedFunctionPointers: c_int,
    pub deviceNumaConfig: c_int,
    pub deviceNumaId: c_int,
    pub mpsEnabled: c_int,
    pub hostNumaId: c_int,
    pub gpuPciDeviceID: c_uint,
    pub gpuPciSubsystemID: c_uint,
    pub hostNumaMultinodeIpcSupported: c_int,
    pub reserved: [c_int; 56],
}

const _: () = assert!(std::mem::size_of::<cudaDeviceProp>() == 1008);

impl Default for cudaDeviceProp {
    fn default() -> Self {
        // SAFETY: every field is an integer or an array of integers.
        unsafe { std::mem::zeroed() }
    }
}

/// `cudaSetDeviceFlags` / `cudaGetDeviceFlags` bits.
pub const cudaDeviceScheduleAuto: c_uint = 0x00;
pub const cudaDeviceScheduleSpin: c_uint = 0x01;
pub const cudaDeviceScheduleYield: c_uint = 0x02;
pub const cudaDeviceScheduleBlockingSync: c_uint = 0x04;
pub const cudaDeviceBlockingSync: c_uint = 0x04;
pub const cudaDeviceScheduleMask: c_uint = 0x07;
pub const cudaDeviceMapHost: c_uint = 0x08;
pub const cudaDeviceLmemResizeToMax: c_uint = 0x10;
pub const cudaDeviceSyncMemops: c_uint = 0x80;
pub const cudaDeviceMask: c_uint = 0xff;

/// `cudaInitDevice` flag: do not retain/initialize the primary context now.
pub const cudaInitDeviceFlagsAreValid: c_uint = 0x01;

/// `cudaDeviceGetAsyncNotification` callback type and info live in the
/// device area; see `cudaDeviceRegisterAsyncNotification`.
pub const cudaCpuDeviceId: c_int = -1;
pub const cudaInvalidDeviceId: c_int = -2;

/// C: `cudaAsyncNotificationInfo_t` (same layout as the driver's).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaAsyncNotificationInfo {
    pub r#type: c_int,
    pub info: cudaAsyncNotificationInfoUnion,
}
pub type cudaAsyncNotificationInfo_t = cudaAsyncNotificationInfo;

#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaAsyncNotificationInfoUnion {
    pub overBudget: cudaAsyncNotificationOverBudget,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaAsyncNotificationOverBudget {
    pub bytesOverBudget: u64,
}

/// C: `cudaAsyncCallback`.
pub type cudaAsyncCallback = Option<
    unsafe extern "C" fn(*mut cudaAsyncNotificationInfo_t, *mut std::ffi::c_void, super::handles::cudaAsyncCallbackHandle_t),
>;
