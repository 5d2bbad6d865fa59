/*
 * cudart-shim: an open CUDA 13.5 runtime. Generated from the Rust sources by
 * scripts/gen-header; do not edit. Types are ABI-identical to NVIDIA's CUDA
 * 13.5 headers (checked by tests/abi_layout.rs); code written for NVIDIA's
 * cuda_runtime.h compiles against it (tests/header.rs).
 */

#ifndef CUDART_SHIM_H
#define CUDART_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* As in NVIDIA's cuda_runtime_api.h: the runtime version this header
 * describes (what cudaRuntimeGetVersion reports). */
#define CUDART_VERSION 13050

/* The calling conventions of runtime calls and callbacks (empty on Linux). */
#define CUDARTAPI
#define CUDARTAPI_CDECL
#define CUDART_CB

/* A default argument in C++, nothing in C (NVIDIA's prototypes have the
 * same defaults). */
#if defined(__cplusplus)
#define CUDART_SHIM_DEFAULT(value) = value
#else
#define CUDART_SHIM_DEFAULT(value)
#endif

/**
 * `cudaSetDeviceFlags` / `cudaGetDeviceFlags` bits.
 */
#define cudaDeviceScheduleAuto 0

#define cudaDeviceScheduleSpin 1

#define cudaDeviceScheduleYield 2

#define cudaDeviceScheduleBlockingSync 4

#define cudaDeviceBlockingSync 4

#define cudaDeviceScheduleMask 7

#define cudaDeviceMapHost 8

#define cudaDeviceLmemResizeToMax 16

#define cudaDeviceSyncMemops 128

#define cudaDeviceMask 255

/**
 * `cudaInitDevice` flag: do not retain/initialize the primary context now.
 */
#define cudaInitDeviceFlagsAreValid 1

/**
 * `cudaDeviceGetAsyncNotification` callback type and info live in the
 * device area; see `cudaDeviceRegisterAsyncNotification`.
 */
#define cudaCpuDeviceId -1

#define cudaInvalidDeviceId -2

#define cudaHostAllocDefault 0

#define cudaHostAllocPortable 1

#define cudaHostAllocMapped 2

#define cudaHostAllocWriteCombined 4

#define cudaHostRegisterDefault 0

#define cudaHostRegisterPortable 1

#define cudaHostRegisterMapped 2

#define cudaHostRegisterIoMemory 4

#define cudaHostRegisterReadOnly 8

#define cudaPeerAccessDefault 0

#define cudaArrayDefault 0

#define cudaArrayLayered 1

#define cudaArraySurfaceLoadStore 2

#define cudaArrayCubemap 4

#define cudaArrayTextureGather 8

#define cudaArrayColorAttachment 32

#define cudaArraySparse 64

#define cudaArrayDeferredMapping 128

#define cudaArraySparsePropertiesSingleMipTail 1

#define cudaMemAttachGlobal 1

#define cudaMemAttachHost 2

#define cudaMemAttachSingle 4

/**
 * C: `cudaStreamDefault`.
 */
#define cudaStreamDefault 0

/**
 * C: `cudaStreamNonBlocking`: no implicit synchronization with stream 0.
 */
#define cudaStreamNonBlocking 1

/**
 * C: `cudaEventDefault`.
 */
#define cudaEventDefault 0

/**
 * C: `cudaEventBlockingSync`.
 */
#define cudaEventBlockingSync 1

/**
 * C: `cudaEventDisableTiming`.
 */
#define cudaEventDisableTiming 2

/**
 * C: `cudaEventInterprocess` (requires `cudaEventDisableTiming`).
 */
#define cudaEventInterprocess 4

/**
 * C: `cudaEventRecordDefault`.
 */
#define cudaEventRecordDefault 0

/**
 * C: `cudaEventRecordExternal`.
 */
#define cudaEventRecordExternal 1

/**
 * C: `cudaEventWaitDefault`.
 */
#define cudaEventWaitDefault 0

/**
 * C: `cudaEventWaitExternal`.
 */
#define cudaEventWaitExternal 1

/**
 * C: `cudaGraphKernelNodePortDefault` and friends (edge ports).
 */
#define cudaGraphKernelNodePortDefault 0

#define cudaGraphKernelNodePortProgrammatic 1

#define cudaGraphKernelNodePortLaunchCompletion 2

/**
 * C: `cudaOccupancyDefault`.
 */
#define cudaOccupancyDefault 0

/**
 * C: `cudaOccupancyDisableCachingOverride`.
 */
#define cudaOccupancyDisableCachingOverride 1

/**
 * C: `cudaEnableDefault` (flags of `cudaGetDriverEntryPoint*`).
 */
#define cudaEnableDefault 0

/**
 * C: `cudaEnableLegacyStream`.
 */
#define cudaEnableLegacyStream 1

/**
 * C: `cudaEnablePerThreadDefaultStream`.
 */
#define cudaEnablePerThreadDefaultStream 2

/**
 * C: `CUDA_IPC_HANDLE_SIZE`.
 */
#define CUDA_IPC_HANDLE_SIZE 64

/**
 * C: `cudaIpcMemLazyEnablePeerAccess`.
 */
#define cudaIpcMemLazyEnablePeerAccess 1

/**
 * C: `cudaExternalMemoryDedicated`.
 */
#define cudaExternalMemoryDedicated 1

/**
 * C: `cudaExternalSemaphoreSignalSkipNvSciBufMemSync`.
 */
#define cudaExternalSemaphoreSignalSkipNvSciBufMemSync 1

/**
 * C: `cudaExternalSemaphoreWaitSkipNvSciBufMemSync`.
 */
#define cudaExternalSemaphoreWaitSkipNvSciBufMemSync 2

/**
 * C: `cudaNvSciSyncAttrSignal`.
 */
#define cudaNvSciSyncAttrSignal 1

/**
 * C: `cudaNvSciSyncAttrWait`.
 */
#define cudaNvSciSyncAttrWait 2

/**
 * C: `cudaMemPoolCreateUsageHwDecompress`.
 */
#define cudaMemPoolCreateUsageHwDecompress 2

/**
 * `localityDomainId` of a [`cudaDevSmResourceGroupParams`]: any domain.
 */
#define cudaDevSmResourceGroupLocalityDomainIdAny 4294967295

/**
 * Opaque; the driver's `CUdevResourceDesc`.
 */
typedef struct CUdevResourceDesc_st CUdevResourceDesc_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUeglStreamConnection_st CUeglStreamConnection_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUevent_st CUevent_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUexternalMemory_st CUexternalMemory_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUexternalSemaphore_st CUexternalSemaphore_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUfunc_st CUfunc_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUgraphDeviceUpdatableNode_st CUgraphDeviceUpdatableNode_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUgraphExec_st CUgraphExec_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUgraphNode_st CUgraphNode_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUgraph_st CUgraph_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUkern_st CUkern_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUlib_st CUlib_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUlogsCallbackEntry_st CUlogsCallbackEntry_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUmemPoolHandle_st CUmemPoolHandle_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUstream_st CUstream_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct CUuserObject_st CUuserObject_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct cudaArray cudaArray;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct cudaAsyncCallbackEntry cudaAsyncCallbackEntry;

/**
 * C: `cudaDevResource` (`struct cudaDevResource_st`), 144 bytes.
 *
 * NVIDIA's has an anonymous union at offset 96 (`sm`, `wqConfig`, `wq`,
 * 40 bytes). C has no anonymous members from cbindgen, so ours names the
 * member every program reads, `sm`, and keeps the union's other 20 bytes
 * as padding: `res.sm.smCount` compiles and reads the same bytes with both
 * headers. The workqueue views of those bytes are
 * [`cudaDevResource::wq_config`] and [`cudaDevResource::wq`] in Rust.
 */
typedef struct cudaDevResource cudaDevResource;

/**
 * Opaque; only ever used behind a pointer. An execution context is a driver
 * context (`CUcontext`): the device's primary context, or the context of a
 * green context (`cuCtxFromGreenCtx`).
 */
typedef struct cudaExecutionContext_st cudaExecutionContext_st;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct cudaGraphicsResource cudaGraphicsResource;

/**
 * Opaque; only ever used behind a pointer.
 */
typedef struct cudaMipmappedArray cudaMipmappedArray;

/**
 * Return code of every runtime call (C: `enum cudaError`).
 */
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4,
  cudaErrorProfilerDisabled = 5,
  cudaErrorProfilerNotInitialized = 6,
  cudaErrorProfilerAlreadyStarted = 7,
  cudaErrorProfilerAlreadyStopped = 8,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorVersionTranslation = 10,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidTexture = 18,
  cudaErrorInvalidTextureBinding = 19,
  cudaErrorInvalidChannelDescriptor = 20,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorAddressOfConstant = 22,
  cudaErrorTextureFetchFailed = 23,
  cudaErrorTextureNotBound = 24,
  cudaErrorSynchronizationError = 25,
  cudaErrorInvalidFilterSetting = 26,
  cudaErrorInvalidNormSetting = 27,
  cudaErrorMixedDeviceExecution = 28,
  cudaErrorNotYetImplemented = 31,
  cudaErrorMemoryValueTooLarge = 32,
  cudaErrorStubLibrary = 34,
  cudaErrorInsufficientDriver = 35,
  cudaErrorCallRequiresNewerDriver = 36,
  cudaErrorInvalidSurface = 37,
  cudaErrorDuplicateVariableName = 43,
  cudaErrorDuplicateTextureName = 44,
  cudaErrorDuplicateSurfaceName = 45,
  cudaErrorDevicesUnavailable = 46,
  cudaErrorIncompatibleDriverContext = 49,
  cudaErrorMissingConfiguration = 52,
  cudaErrorPriorLaunchFailure = 53,
  cudaErrorLaunchMaxDepthExceeded = 65,
  cudaErrorLaunchFileScopedTex = 66,
  cudaErrorLaunchFileScopedSurf = 67,
  cudaErrorSyncDepthExceeded = 68,
  cudaErrorLaunchPendingCountExceeded = 69,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorDeviceNotLicensed = 102,
  cudaErrorSoftwareValidityNotEstablished = 103,
  cudaErrorStartupFailure = 127,
  cudaErrorInvalidKernelImage = 200,
  cudaErrorDeviceUninitialized = 201,
  cudaErrorMapBufferObjectFailed = 205,
  cudaErrorUnmapBufferObjectFailed = 206,
  cudaErrorArrayIsMapped = 207,
  cudaErrorAlreadyMapped = 208,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorAlreadyAcquired = 210,
  cudaErrorNotMapped = 211,
  cudaErrorNotMappedAsArray = 212,
  cudaErrorNotMappedAsPointer = 213,
  cudaErrorECCUncorrectable = 214,
  cudaErrorUnsupportedLimit = 215,
  cudaErrorDeviceAlreadyInUse = 216,
  cudaErrorPeerAccessUnsupported = 217,
  cudaErrorInvalidPtx = 218,
  cudaErrorInvalidGraphicsContext = 219,
  cudaErrorNvlinkUncorrectable = 220,
  cudaErrorJitCompilerNotFound = 221,
  cudaErrorUnsupportedPtxVersion = 222,
  cudaErrorJitCompilationDisabled = 223,
  cudaErrorUnsupportedExecAffinity = 224,
  cudaErrorUnsupportedDevSideSync = 225,
  cudaErrorContained = 226,
  cudaErrorInsufficientLoaderVersion = 227,
  cudaErrorInvalidSource = 300,
  cudaErrorFileNotFound = 301,
  cudaErrorSharedObjectSymbolNotFound = 302,
  cudaErrorSharedObjectInitFailed = 303,
  cudaErrorOperatingSystem = 304,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorLossyQuery = 402,
  cudaErrorSymbolNotFound = 500,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorLaunchIncompatibleTexturing = 703,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorSetOnActiveProcess = 708,
  cudaErrorContextIsDestroyed = 709,
  cudaErrorAssert = 710,
  cudaErrorTooManyPeers = 711,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorInvalidAddressSpace = 717,
  cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorTensorMemoryLeak = 721,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorSystemNotReady = 802,
  cudaErrorSystemDriverMismatch = 803,
  cudaErrorCompatNotSupportedOnDevice = 804,
  cudaErrorMpsConnectionFailed = 805,
  cudaErrorMpsRpcFailure = 806,
  cudaErrorMpsServerNotReady = 807,
  cudaErrorMpsMaxClientsReached = 808,
  cudaErrorMpsMaxConnectionsReached = 809,
  cudaErrorMpsClientTerminated = 810,
  cudaErrorCdpNotSupported = 811,
  cudaErrorCdpVersionMismatch = 812,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureMerge = 902,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureUnjoined = 904,
  cudaErrorStreamCaptureIsolation = 905,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorCapturedEvent = 907,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorTimeout = 909,
  cudaErrorGraphExecUpdateFailure = 910,
  cudaErrorExternalDevice = 911,
  cudaErrorInvalidClusterSize = 912,
  cudaErrorFunctionNotLoaded = 913,
  cudaErrorInvalidResourceType = 914,
  cudaErrorInvalidResourceConfiguration = 915,
  cudaErrorStreamDetached = 917,
  cudaErrorGraphRecaptureFailure = 918,
  cudaErrorFabricNotReady = 919,
  cudaErrorUnknown = 999,
  cudaErrorApiFailureBase = 10000,
};
typedef enum cudaError cudaError_t;

/**
 * C: `cudaUUID_t` (`struct CUuuid_st`).
 */
typedef struct CUuuid_st {
  char bytes[16];
} cudaUUID_t;

/**
 * C: `struct cudaDeviceProp`, CUDA 13.0 layout. 13.0 removed `clockRate`,
 * `memoryClockRate` and the other fields deprecated in 12.x, so this is not
 * the 12.x layout; programs built against 12.x headers use `libcudart.so.12`.
 */
typedef struct cudaDeviceProp {
  char name[256];
  struct CUuuid_st uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
} cudaDeviceProp;

/**
 * C: `cudaDeviceAttr`.
 */
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrMaxTexture1DWidth = 21,
  cudaDevAttrMaxTexture2DWidth = 22,
  cudaDevAttrMaxTexture2DHeight = 23,
  cudaDevAttrMaxTexture3DWidth = 24,
  cudaDevAttrMaxTexture3DHeight = 25,
  cudaDevAttrMaxTexture3DDepth = 26,
  cudaDevAttrMaxTexture2DLayeredWidth = 27,
  cudaDevAttrMaxTexture2DLayeredHeight = 28,
  cudaDevAttrMaxTexture2DLayeredLayers = 29,
  cudaDevAttrSurfaceAlignment = 30,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrTccDriver = 35,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrMaxTexture1DLayeredWidth = 42,
  cudaDevAttrMaxTexture1DLayeredLayers = 43,
  cudaDevAttrMaxTexture2DGatherWidth = 45,
  cudaDevAttrMaxTexture2DGatherHeight = 46,
  cudaDevAttrMaxTexture3DWidthAlt = 47,
  cudaDevAttrMaxTexture3DHeightAlt = 48,
  cudaDevAttrMaxTexture3DDepthAlt = 49,
  cudaDevAttrPciDomainId = 50,
  cudaDevAttrTexturePitchAlignment = 51,
  cudaDevAttrMaxTextureCubemapWidth = 52,
  cudaDevAttrMaxTextureCubemapLayeredWidth = 53,
  cudaDevAttrMaxTextureCubemapLayeredLayers = 54,
  cudaDevAttrMaxSurface1DWidth = 55,
  cudaDevAttrMaxSurface2DWidth = 56,
  cudaDevAttrMaxSurface2DHeight = 57,
  cudaDevAttrMaxSurface3DWidth = 58,
  cudaDevAttrMaxSurface3DHeight = 59,
  cudaDevAttrMaxSurface3DDepth = 60,
  cudaDevAttrMaxSurface1DLayeredWidth = 61,
  cudaDevAttrMaxSurface1DLayeredLayers = 62,
  cudaDevAttrMaxSurface2DLayeredWidth = 63,
  cudaDevAttrMaxSurface2DLayeredHeight = 64,
  cudaDevAttrMaxSurface2DLayeredLayers = 65,
  cudaDevAttrMaxSurfaceCubemapWidth = 66,
  cudaDevAttrMaxSurfaceCubemapLayeredWidth = 67,
  cudaDevAttrMaxSurfaceCubemapLayeredLayers = 68,
  cudaDevAttrMaxTexture1DLinearWidth = 69,
  cudaDevAttrMaxTexture2DLinearWidth = 70,
  cudaDevAttrMaxTexture2DLinearHeight = 71,
  cudaDevAttrMaxTexture2DLinearPitch = 72,
  cudaDevAttrMaxTexture2DMipmappedWidth = 73,
  cudaDevAttrMaxTexture2DMipmappedHeight = 74,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxTexture1DMipmappedWidth = 77,
  cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84,
  cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrHostNativeAtomicSupported = 86,
  cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90,
  cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrReserved92 = 92,
  cudaDevAttrReserved93 = 93,
  cudaDevAttrReserved94 = 94,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrReserved96 = 96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrCanFlushRemoteWrites = 98,
  cudaDevAttrHostRegisterSupported = 99,
  cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost = 101,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108,
  cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111,
  cudaDevAttrSparseCudaArraySupported = 112,
  cudaDevAttrHostRegisterReadOnlySupported = 113,
  cudaDevAttrTimelineSemaphoreInteropSupported = 114,
  cudaDevAttrMemoryPoolsSupported = 115,
  cudaDevAttrGPUDirectRDMASupported = 116,
  cudaDevAttrGPUDirectRDMAFlushWritesOptions = 117,
  cudaDevAttrGPUDirectRDMAWritesOrdering = 118,
  cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
  cudaDevAttrClusterLaunch = 120,
  cudaDevAttrDeferredMappingCudaArraySupported = 121,
  cudaDevAttrReserved122 = 122,
  cudaDevAttrReserved123 = 123,
  cudaDevAttrReserved124 = 124,
  cudaDevAttrIpcEventSupport = 125,
  cudaDevAttrMemSyncDomainCount = 126,
  cudaDevAttrReserved127 = 127,
  cudaDevAttrReserved128 = 128,
  cudaDevAttrReserved129 = 129,
  cudaDevAttrNumaConfig = 130,
  cudaDevAttrNumaId = 131,
  cudaDevAttrReserved132 = 132,
  cudaDevAttrMpsEnabled = 133,
  cudaDevAttrHostNumaId = 134,
  cudaDevAttrD3D12CigSupported = 135,
  cudaDevAttrVulkanCigSupported = 138,
  cudaDevAttrGpuPciDeviceId = 139,
  cudaDevAttrGpuPciSubsystemId = 140,
  cudaDevAttrReserved141 = 141,
  cudaDevAttrHostNumaMemoryPoolsSupported = 142,
  cudaDevAttrHostNumaMultinodeIpcSupported = 143,
  cudaDevAttrHostMemoryPoolsSupported = 144,
  cudaDevAttrReserved145 = 145,
  cudaDevAttrOnlyPartialHostNativeAtomicSupported = 147,
  cudaDevAttrAtomicReductionSupported = 148,
  cudaDevAttrLocalityDomainCount = 149,
  cudaDevAttrOversizedSharedMemoryPerBlock = 150,
  cudaDevAttrCigStreamsSupported = 151,
  cudaDevAttrLocalityDomainMultiprocessorCount = 157,
  cudaDevAttrTensorMapLargeTensorMinSize = 160,
  cudaDevAttrMax = 161,
};
typedef enum cudaDeviceAttr cudaDeviceAttr;

/**
 * C: `cudaLimit`.
 */
enum cudaLimit {
  cudaLimitStackSize = 0x0,
  cudaLimitPrintfFifoSize = 0x1,
  cudaLimitMallocHeapSize = 0x2,
  cudaLimitDevRuntimeSyncDepth = 0x3,
  cudaLimitDevRuntimePendingLaunchCount = 0x4,
  cudaLimitMaxL2FetchGranularity = 0x5,
  cudaLimitPersistingL2CacheSize = 0x6,
  cudaLimitPerBlockMemorySize = 0xa,
};
typedef enum cudaLimit cudaLimit;

/**
 * C: `cudaFuncCache`.
 */
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};
typedef enum cudaFuncCache cudaFuncCache;

/**
 * C: `cudaSharedMemConfig`.
 */
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2,
};
typedef enum cudaSharedMemConfig cudaSharedMemConfig;

/**
 * C: `cudaChannelFormatKind`.
 */
enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
  cudaChannelFormatKindNV12 = 4,
  cudaChannelFormatKindUnsignedNormalized8X1 = 5,
  cudaChannelFormatKindUnsignedNormalized8X2 = 6,
  cudaChannelFormatKindUnsignedNormalized8X4 = 7,
  cudaChannelFormatKindUnsignedNormalized16X1 = 8,
  cudaChannelFormatKindUnsignedNormalized16X2 = 9,
  cudaChannelFormatKindUnsignedNormalized16X4 = 10,
  cudaChannelFormatKindSignedNormalized8X1 = 11,
  cudaChannelFormatKindSignedNormalized8X2 = 12,
  cudaChannelFormatKindSignedNormalized8X4 = 13,
  cudaChannelFormatKindSignedNormalized16X1 = 14,
  cudaChannelFormatKindSignedNormalized16X2 = 15,
  cudaChannelFormatKindSignedNormalized16X4 = 16,
  cudaChannelFormatKindUnsignedBlockCompressed1 = 17,
  cudaChannelFormatKindUnsignedBlockCompressed1SRGB = 18,
  cudaChannelFormatKindUnsignedBlockCompressed2 = 19,
  cudaChannelFormatKindUnsignedBlockCompressed2SRGB = 20,
  cudaChannelFormatKindUnsignedBlockCompressed3 = 21,
  cudaChannelFormatKindUnsignedBlockCompressed3SRGB = 22,
  cudaChannelFormatKindUnsignedBlockCompressed4 = 23,
  cudaChannelFormatKindSignedBlockCompressed4 = 24,
  cudaChannelFormatKindUnsignedBlockCompressed5 = 25,
  cudaChannelFormatKindSignedBlockCompressed5 = 26,
  cudaChannelFormatKindUnsignedBlockCompressed6H = 27,
  cudaChannelFormatKindSignedBlockCompressed6H = 28,
  cudaChannelFormatKindUnsignedBlockCompressed7 = 29,
  cudaChannelFormatKindUnsignedBlockCompressed7SRGB = 30,
  cudaChannelFormatKindUnsignedNormalized1010102 = 31,
  cudaChannelFormatKindUnsigned8Packed422 = 32,
  cudaChannelFormatKindUnsigned8Packed444 = 33,
  cudaChannelFormatKindUnsigned8SemiPlanar420 = 34,
  cudaChannelFormatKindUnsigned16SemiPlanar420 = 35,
  cudaChannelFormatKindUnsigned8SemiPlanar422 = 36,
  cudaChannelFormatKindUnsigned16SemiPlanar422 = 37,
  cudaChannelFormatKindUnsigned8SemiPlanar444 = 38,
  cudaChannelFormatKindUnsigned16SemiPlanar444 = 39,
  cudaChannelFormatKindUnsigned8Planar420 = 40,
  cudaChannelFormatKindUnsigned16Planar420 = 41,
  cudaChannelFormatKindUnsigned8Planar422 = 42,
  cudaChannelFormatKindUnsigned16Planar422 = 43,
  cudaChannelFormatKindUnsigned8Planar444 = 44,
  cudaChannelFormatKindUnsigned16Planar444 = 45,
};
typedef enum cudaChannelFormatKind cudaChannelFormatKind;

/**
 * C: `struct cudaChannelFormatDesc`.
 */
typedef struct cudaChannelFormatDesc {
  int x;
  int y;
  int z;
  int w;
  cudaChannelFormatKind f;
} cudaChannelFormatDesc;

/**
 * C: `cudaAtomicOperation`.
 */
enum cudaAtomicOperation {
  cudaAtomicOperationIntegerAdd = 0,
  cudaAtomicOperationIntegerMin = 1,
  cudaAtomicOperationIntegerMax = 2,
  cudaAtomicOperationIntegerIncrement = 3,
  cudaAtomicOperationIntegerDecrement = 4,
  cudaAtomicOperationAnd = 5,
  cudaAtomicOperationOr = 6,
  cudaAtomicOperationXOR = 7,
  cudaAtomicOperationExchange = 8,
  cudaAtomicOperationCAS = 9,
  cudaAtomicOperationFloatAdd = 10,
  cudaAtomicOperationFloatMin = 11,
  cudaAtomicOperationFloatMax = 12,
};
typedef enum cudaAtomicOperation cudaAtomicOperation;

typedef struct cudaAsyncNotificationOverBudget {
  uint64_t bytesOverBudget;
} cudaAsyncNotificationOverBudget;

typedef union cudaAsyncNotificationInfoUnion {
  struct cudaAsyncNotificationOverBudget overBudget;
} cudaAsyncNotificationInfoUnion;

/**
 * C: `cudaAsyncNotificationInfo_t` (same layout as the driver's).
 */
typedef struct cudaAsyncNotificationInfo {
  int type;
  union cudaAsyncNotificationInfoUnion info;
} cudaAsyncNotificationInfo;

typedef struct cudaAsyncNotificationInfo cudaAsyncNotificationInfo_t;

typedef struct cudaAsyncCallbackEntry *cudaAsyncCallbackHandle_t;

/**
 * C: `cudaAsyncCallback`.
 */
typedef void (*cudaAsyncCallback)(cudaAsyncNotificationInfo_t*, void*, cudaAsyncCallbackHandle_t);

/**
 * C: `cudaFlushGPUDirectRDMAWritesTarget`.
 */
enum cudaFlushGPUDirectRDMAWritesTarget {
  cudaFlushGPUDirectRDMAWritesTargetCurrentDevice = 0,
};
typedef enum cudaFlushGPUDirectRDMAWritesTarget cudaFlushGPUDirectRDMAWritesTarget;

/**
 * C: `cudaFlushGPUDirectRDMAWritesScope`.
 */
enum cudaFlushGPUDirectRDMAWritesScope {
  cudaFlushGPUDirectRDMAWritesToOwner = 100,
  cudaFlushGPUDirectRDMAWritesToAllDevices = 200,
};
typedef enum cudaFlushGPUDirectRDMAWritesScope cudaFlushGPUDirectRDMAWritesScope;

/**
 * C: `struct cudaPitchedPtr`.
 */
typedef struct cudaPitchedPtr {
  void *ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
} cudaPitchedPtr;

/**
 * C: `struct cudaExtent`.
 */
typedef struct cudaExtent {
  size_t width;
  size_t height;
  size_t depth;
} cudaExtent;

typedef struct cudaArray *cudaArray_t;

typedef struct cudaMipmappedArray *cudaMipmappedArray_t;

typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

/**
 * C: `struct cudaArrayMemoryRequirements`.
 */
typedef struct cudaArrayMemoryRequirements {
  size_t size;
  size_t alignment;
  unsigned int reserved[4];
} cudaArrayMemoryRequirements;

/**
 * C: the anonymous `tileExtent` of `struct cudaArraySparseProperties`.
 */
typedef struct cudaArraySparseTileExtent {
  unsigned int width;
  unsigned int height;
  unsigned int depth;
} cudaArraySparseTileExtent;

/**
 * C: `struct cudaArraySparseProperties`.
 */
typedef struct cudaArraySparseProperties {
  struct cudaArraySparseTileExtent tileExtent;
  unsigned int miptailFirstLevel;
  unsigned long long miptailSize;
  unsigned int flags;
  unsigned int reserved[4];
} cudaArraySparseProperties;

/**
 * C: `cudaMemcpyKind`.
 */
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
typedef enum cudaMemcpyKind cudaMemcpyKind;

typedef struct CUstream_st *cudaStream_t;

typedef const struct cudaArray *cudaArray_const_t;

/**
 * C: `struct cudaPos`.
 */
typedef struct cudaPos {
  size_t x;
  size_t y;
  size_t z;
} cudaPos;

/**
 * C: `struct cudaMemcpy3DParms`. Positions and widths are in bytes for
 * linear memory and in elements for arrays.
 */
typedef struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  struct cudaPos srcPos;
  struct cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  struct cudaPos dstPos;
  struct cudaPitchedPtr dstPtr;
  struct cudaExtent extent;
  cudaMemcpyKind kind;
} cudaMemcpy3DParms;

/**
 * C: `struct cudaMemcpy3DPeerParms`.
 */
typedef struct cudaMemcpy3DPeerParms {
  cudaArray_t srcArray;
  struct cudaPos srcPos;
  struct cudaPitchedPtr srcPtr;
  int srcDevice;
  cudaArray_t dstArray;
  struct cudaPos dstPos;
  struct cudaPitchedPtr dstPtr;
  int dstDevice;
  struct cudaExtent extent;
} cudaMemcpy3DPeerParms;

/**
 * C: `cudaMemcpySrcAccessOrder`.
 */
enum cudaMemcpySrcAccessOrder {
  cudaMemcpySrcAccessOrderInvalid = 0x0,
  cudaMemcpySrcAccessOrderStream = 0x1,
  cudaMemcpySrcAccessOrderDuringApiCall = 0x2,
  cudaMemcpySrcAccessOrderAny = 0x3,
  cudaMemcpySrcAccessOrderMax = 0x7fffffff,
};
typedef enum cudaMemcpySrcAccessOrder cudaMemcpySrcAccessOrder;

/**
 * C: `cudaMemLocationType`.
 */
enum cudaMemLocationType {
  cudaMemLocationTypeInvalid = 0,
  cudaMemLocationTypeNone = 0,
  cudaMemLocationTypeDevice = 1,
  cudaMemLocationTypeHost = 2,
  cudaMemLocationTypeHostNuma = 3,
  cudaMemLocationTypeHostNumaCurrent = 4,
  cudaMemLocationTypeInvisible = 5,
  cudaMemLocationTypeDeviceLocalityDomain = 6,
};
typedef enum cudaMemLocationType cudaMemLocationType;

/**
 * C: `struct cudaMemLocation` (8 bytes). For a device location `id` is a
 * runtime device ordinal; for host NUMA locations a NUMA node id.
 */
typedef struct cudaMemLocation {
  cudaMemLocationType type;
  int id;
} cudaMemLocation;

/**
 * C: `struct cudaMemcpyAttributes`. Same layout and values as the
 * driver's `CUmemcpyAttributes`.
 */
typedef struct cudaMemcpyAttributes {
  cudaMemcpySrcAccessOrder srcAccessOrder;
  struct cudaMemLocation srcLocHint;
  struct cudaMemLocation dstLocHint;
  unsigned int flags;
} cudaMemcpyAttributes;

/**
 * C: `cudaMemcpy3DOperandType`.
 */
enum cudaMemcpy3DOperandType {
  cudaMemcpyOperandTypePointer = 0x1,
  cudaMemcpyOperandTypeArray = 0x2,
  cudaMemcpyOperandTypeMax = 0x7fffffff,
};
typedef enum cudaMemcpy3DOperandType cudaMemcpy3DOperandType;

/**
 * C: the `ptr` member of `cudaMemcpy3DOperand::op`.
 */
typedef struct cudaMemcpy3DOperandPtr {
  void *ptr;
  size_t rowLength;
  size_t layerHeight;
  struct cudaMemLocation locHint;
} cudaMemcpy3DOperandPtr;

/**
 * C: `struct cudaOffset3D`.
 */
typedef struct cudaOffset3D {
  size_t x;
  size_t y;
  size_t z;
} cudaOffset3D;

/**
 * C: the `array` member of `cudaMemcpy3DOperand::op`.
 */
typedef struct cudaMemcpy3DOperandArray {
  cudaArray_t array;
  struct cudaOffset3D offset;
} cudaMemcpy3DOperandArray;

/**
 * C: the anonymous union `op` of `struct cudaMemcpy3DOperand`.
 */
typedef union cudaMemcpy3DOperandOp {
  struct cudaMemcpy3DOperandPtr ptr;
  struct cudaMemcpy3DOperandArray array;
} cudaMemcpy3DOperandOp;

/**
 * C: `struct cudaMemcpy3DOperand`.
 */
typedef struct cudaMemcpy3DOperand {
  cudaMemcpy3DOperandType type;
  union cudaMemcpy3DOperandOp op;
} cudaMemcpy3DOperand;

/**
 * C: `struct cudaMemcpy3DBatchOp`. Same layout and values as the driver's
 * `CUDA_MEMCPY3D_BATCH_OP`.
 */
typedef struct cudaMemcpy3DBatchOp {
  struct cudaMemcpy3DOperand src;
  struct cudaMemcpy3DOperand dst;
  struct cudaExtent extent;
  cudaMemcpySrcAccessOrder srcAccessOrder;
  unsigned int flags;
} cudaMemcpy3DBatchOp;

/**
 * C: `cudaMemoryType`.
 */
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};
typedef enum cudaMemoryType cudaMemoryType;

/**
 * C: `struct cudaPointerAttributes` (88 bytes since CUDA 13).
 */
typedef struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
  /**
   * CUDA 13.5: the locality domain of a device allocation, or -1 (a
   * `union { int; long }` in C: ours is the int and 4 bytes of padding).
   */
  int localityDomainOrdinal;
  int _localityDomainOrdinalPad;
  long reserved[7];
} cudaPointerAttributes;

/**
 * C: `cudaMemoryAdvise`.
 */
enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1,
  cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5,
  cudaMemAdviseUnsetAccessedBy = 6,
};
typedef enum cudaMemoryAdvise cudaMemoryAdvise;

/**
 * C: `cudaMemRangeAttribute`.
 */
enum cudaMemRangeAttribute {
  cudaMemRangeAttributeReadMostly = 1,
  cudaMemRangeAttributePreferredLocation = 2,
  cudaMemRangeAttributeAccessedBy = 3,
  cudaMemRangeAttributeLastPrefetchLocation = 4,
  cudaMemRangeAttributePreferredLocationType = 5,
  cudaMemRangeAttributePreferredLocationId = 6,
  cudaMemRangeAttributeLastPrefetchLocationType = 7,
  cudaMemRangeAttributeLastPrefetchLocationId = 8,
};
typedef enum cudaMemRangeAttribute cudaMemRangeAttribute;

/**
 * C: `cudaDeviceP2PAttr`.
 */
enum cudaDeviceP2PAttr {
  cudaDevP2PAttrPerformanceRank = 1,
  cudaDevP2PAttrAccessSupported = 2,
  cudaDevP2PAttrNativeAtomicSupported = 3,
  cudaDevP2PAttrCudaArrayAccessSupported = 4,
  cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5,
};
typedef enum cudaDeviceP2PAttr cudaDeviceP2PAttr;

typedef struct CUevent_st *cudaEvent_t;

/**
 * C: `cudaLaunchAttributeID`.
 */
enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10,
  cudaLaunchAttributePreferredClusterDimension = 11,
  cudaLaunchAttributeLaunchCompletionEvent = 12,
  cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
  cudaLaunchAttributeNvlinkUtilCentricScheduling = 16,
  cudaLaunchAttributePortableClusterSizeMode = 17,
  cudaLaunchAttributeSharedMemoryMode = 18,
};
typedef enum cudaLaunchAttributeID cudaLaunchAttributeID;

/**
 * C: `cudaStreamAttrID` (a macro for `cudaLaunchAttributeID`).
 */
typedef cudaLaunchAttributeID cudaStreamAttrID;

/**
 * C: `cudaAccessProperty`.
 */
enum cudaAccessProperty {
  cudaAccessPropertyNormal = 0,
  cudaAccessPropertyStreaming = 1,
  cudaAccessPropertyPersisting = 2,
};
typedef enum cudaAccessProperty cudaAccessProperty;

/**
 * C: `struct cudaAccessPolicyWindow`.
 */
typedef struct cudaAccessPolicyWindow {
  void *base_ptr;
  size_t num_bytes;
  float hitRatio;
  cudaAccessProperty hitProp;
  cudaAccessProperty missProp;
} cudaAccessPolicyWindow;

/**
 * C: `cudaSynchronizationPolicy`.
 */
enum cudaSynchronizationPolicy {
  cudaSyncPolicyAuto = 1,
  cudaSyncPolicySpin = 2,
  cudaSyncPolicyYield = 3,
  cudaSyncPolicyBlockingSync = 4,
};
typedef enum cudaSynchronizationPolicy cudaSynchronizationPolicy;

/**
 * C: `cudaLaunchMemSyncDomainMap` (`struct cudaLaunchMemSyncDomainMap_st`).
 */
typedef struct cudaLaunchMemSyncDomainMap_st {
  uint8_t default_;
  uint8_t remote;
} cudaLaunchMemSyncDomainMap;

typedef struct CUgraphDeviceUpdatableNode_st *cudaGraphDeviceNode_t;

/**
 * C: `union cudaLaunchAttributeValue` (64 bytes). The members NVIDIA
 * declares with anonymous struct types (clusterDim, programmaticEvent, ...)
 * are reached through `pad`; every member starts at offset 0.
 */
typedef union cudaLaunchAttributeValue {
  char pad[64];
  struct cudaAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  cudaSynchronizationPolicy syncPolicy;
  int clusterSchedulingPolicyPreference;
  int programmaticStreamSerializationAllowed;
  int priority;
  struct cudaLaunchMemSyncDomainMap_st memSyncDomainMap;
  int memSyncDomain;
  /**
   * Keeps the 8-byte alignment of NVIDIA's pointer members.
   */
  cudaGraphDeviceNode_t _devNode;
} cudaLaunchAttributeValue;

/**
 * C: `cudaStreamAttrValue` (a macro for `cudaLaunchAttributeValue`).
 */
typedef union cudaLaunchAttributeValue cudaStreamAttrValue;

/**
 * C: `cudaStreamCallback_t`.
 */
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *user_data);

/**
 * C: `cudaHostFn_t`.
 */
typedef void (*cudaHostFn_t)(void *userData);

/**
 * C: `cudaStreamCaptureMode`.
 */
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
typedef enum cudaStreamCaptureMode cudaStreamCaptureMode;

typedef struct CUgraph_st *cudaGraph_t;

typedef struct CUgraphNode_st *cudaGraphNode_t;

/**
 * C: `cudaGraphEdgeData` (same layout as the driver's `CUgraphEdgeData`).
 */
typedef struct cudaGraphEdgeData_st {
  uint8_t from_port;
  uint8_t to_port;
  uint8_t type;
  uint8_t reserved[5];
} cudaGraphEdgeData;

/**
 * C: `cudaStreamCaptureStatus`.
 */
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
typedef enum cudaStreamCaptureStatus cudaStreamCaptureStatus;

/**
 * C: `cudaGraphNodeType`.
 */
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0x0,
  cudaGraphNodeTypeMemcpy = 0x1,
  cudaGraphNodeTypeMemset = 0x2,
  cudaGraphNodeTypeHost = 0x3,
  cudaGraphNodeTypeGraph = 0x4,
  cudaGraphNodeTypeEmpty = 0x5,
  cudaGraphNodeTypeWaitEvent = 0x6,
  cudaGraphNodeTypeEventRecord = 0x7,
  cudaGraphNodeTypeExtSemaphoreSignal = 0x8,
  cudaGraphNodeTypeExtSemaphoreWait = 0x9,
  cudaGraphNodeTypeMemAlloc = 0xa,
  cudaGraphNodeTypeMemFree = 0xb,
  cudaGraphNodeTypeConditional = 0xd,
  cudaGraphNodeTypeMemcpyBatch = 0xe,
  cudaGraphNodeTypeReserved16 = 0x10,
  cudaGraphNodeTypeExternalEngine = 0x11,
  cudaGraphNodeTypeCount = 18,
};
typedef enum cudaGraphNodeType cudaGraphNodeType;

/**
 * C: `struct dim3` (the host-side `uint3` with constructors in C++).
 */
typedef struct dim3 {
  unsigned int x;
  unsigned int y;
  unsigned int z;
#if defined(__cplusplus)
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
#endif
} dim3;

typedef struct cudaExecutionContext_st *cudaExecutionContext_t;

/**
 * C: `cudaKernelFunctionType`.
 */
enum cudaKernelFunctionType {
  cudaKernelFunctionTypeUnspecified = 0x0,
  cudaKernelFunctionTypeDeviceEntry = 0x1,
  cudaKernelFunctionTypeKernel = 0x2,
  cudaKernelFunctionTypeFunction = 0x3,
};
typedef enum cudaKernelFunctionType cudaKernelFunctionType;

/**
 * C: `struct cudaKernelNodeParamsV2` (CUDA 13.5: 72 bytes). NVIDIA's
 * begins with an anonymous union of `func` (host stub), `kern`
 * (`cudaKernel_t`) and `cuFunc` (`CUfunction`), chosen by `functionType`;
 * ours names the union `func` (the member C programs set), so
 * `p.func = ...` compiles with both headers.
 */
typedef struct cudaKernelNodeParamsV2 {
  void *func;
  struct dim3 gridDim;
  struct dim3 blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
  /**
   * CUDA 13.5: the execution context (NULL: the current one).
   */
  cudaExecutionContext_t ctx;
  /**
   * CUDA 13.5: what `func` holds (0: unspecified, i.e. a host stub).
   */
  cudaKernelFunctionType functionType;
} cudaKernelNodeParamsV2;

/**
 * C: `struct cudaMemcpyNodeParams`.
 */
typedef struct cudaMemcpyNodeParams {
  int flags;
  int reserved[3];
  struct cudaMemcpy3DParms copyParams;
} cudaMemcpyNodeParams;

/**
 * C: `struct cudaMemsetParams`.
 */
typedef struct cudaMemsetParams {
  void *dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
} cudaMemsetParams;

/**
 * C: `struct cudaMemsetParamsV2` (same layout).
 */
typedef struct cudaMemsetParams cudaMemsetParamsV2;

/**
 * C: `struct cudaHostNodeParamsV2` (CUDA 13.5: 32 bytes, with the
 * host task's synchronization mode and an execution context).
 */
typedef struct cudaHostNodeParamsV2 {
  cudaHostFn_t fn;
  void *userData;
  /**
   * A `cudaHostTaskSyncMode`.
   */
  unsigned int syncMode;
  cudaExecutionContext_t ctx;
} cudaHostNodeParamsV2;

/**
 * C: `cudaGraphChildGraphNodeOwnership`.
 */
enum cudaGraphChildGraphNodeOwnership {
  cudaGraphChildGraphOwnershipClone = 0,
  cudaGraphChildGraphOwnershipMove = 1,
  cudaGraphChildGraphOwnershipInvalid = -1,
};
typedef enum cudaGraphChildGraphNodeOwnership cudaGraphChildGraphNodeOwnership;

/**
 * C: `struct cudaChildGraphNodeParams`.
 */
typedef struct cudaChildGraphNodeParams {
  cudaGraph_t graph;
  cudaGraphChildGraphNodeOwnership ownership;
} cudaChildGraphNodeParams;

/**
 * C: `struct cudaEventWaitNodeParams`.
 */
typedef struct cudaEventWaitNodeParams {
  cudaEvent_t event;
} cudaEventWaitNodeParams;

/**
 * C: `struct cudaEventRecordNodeParams`.
 */
typedef struct cudaEventRecordNodeParams {
  cudaEvent_t event;
  /**
   * CUDA 13.5: the execution context (NULL: the current one).
   */
  cudaExecutionContext_t ctx;
} cudaEventRecordNodeParams;

typedef struct CUexternalSemaphore_st *cudaExternalSemaphore_t;

/**
 * `params.fence` of the signal/wait parameters (anonymous in NVIDIA's header).
 */
typedef struct cudaExternalSemaphoreFence {
  unsigned long long value;
} cudaExternalSemaphoreFence;

/**
 * `params.nvSciSync` of the signal/wait parameters (anonymous in NVIDIA's header).
 */
typedef union cudaExternalSemaphoreNvSciSync {
  void *fence;
  unsigned long long reserved;
} cudaExternalSemaphoreNvSciSync;

/**
 * `params.keyedMutex` of the signal parameters (anonymous in NVIDIA's header).
 */
typedef struct cudaExternalSemaphoreSignalKeyedMutex {
  unsigned long long key;
} cudaExternalSemaphoreSignalKeyedMutex;

/**
 * `cudaExternalSemaphoreSignalParams::params` (anonymous in NVIDIA's header).
 */
typedef struct cudaExternalSemaphoreSignalParamsParams {
  struct cudaExternalSemaphoreFence fence;
  union cudaExternalSemaphoreNvSciSync nvSciSync;
  struct cudaExternalSemaphoreSignalKeyedMutex keyedMutex;
  unsigned int reserved[12];
} cudaExternalSemaphoreSignalParamsParams;

/**
 * C: `struct cudaExternalSemaphoreSignalParams` (144 bytes; same layout
 * as the driver's `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS`).
 */
typedef struct cudaExternalSemaphoreSignalParams {
  struct cudaExternalSemaphoreSignalParamsParams params;
  unsigned int flags;
  unsigned int reserved[16];
} cudaExternalSemaphoreSignalParams;

/**
 * C: `struct cudaExternalSemaphoreSignalNodeParamsV2` (CUDA 13.5: with an
 * execution context).
 */
typedef struct cudaExternalSemaphoreSignalNodeParamsV2 {
  cudaExternalSemaphore_t *extSemArray;
  const struct cudaExternalSemaphoreSignalParams *paramsArray;
  unsigned int numExtSems;
  cudaExecutionContext_t ctx;
} cudaExternalSemaphoreSignalNodeParamsV2;

/**
 * `params.keyedMutex` of the wait parameters (anonymous in NVIDIA's header).
 */
typedef struct cudaExternalSemaphoreWaitKeyedMutex {
  unsigned long long key;
  unsigned int timeoutMs;
} cudaExternalSemaphoreWaitKeyedMutex;

/**
 * `cudaExternalSemaphoreWaitParams::params` (anonymous in NVIDIA's header).
 */
typedef struct cudaExternalSemaphoreWaitParamsParams {
  struct cudaExternalSemaphoreFence fence;
  union cudaExternalSemaphoreNvSciSync nvSciSync;
  struct cudaExternalSemaphoreWaitKeyedMutex keyedMutex;
  unsigned int reserved[10];
} cudaExternalSemaphoreWaitParamsParams;

/**
 * C: `struct cudaExternalSemaphoreWaitParams` (144 bytes; same layout as
 * the driver's `CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS`).
 */
typedef struct cudaExternalSemaphoreWaitParams {
  struct cudaExternalSemaphoreWaitParamsParams params;
  unsigned int flags;
  unsigned int reserved[16];
} cudaExternalSemaphoreWaitParams;

/**
 * C: `struct cudaExternalSemaphoreWaitNodeParamsV2` (CUDA 13.5: with an
 * execution context).
 */
typedef struct cudaExternalSemaphoreWaitNodeParamsV2 {
  cudaExternalSemaphore_t *extSemArray;
  const struct cudaExternalSemaphoreWaitParams *paramsArray;
  unsigned int numExtSems;
  cudaExecutionContext_t ctx;
} cudaExternalSemaphoreWaitNodeParamsV2;

/**
 * C: `cudaMemAllocationType`.
 */
enum cudaMemAllocationType {
  cudaMemAllocationTypeInvalid = 0x0,
  cudaMemAllocationTypePinned = 0x1,
  cudaMemAllocationTypeManaged = 0x2,
  cudaMemAllocationTypeMax = 0x7fffffff,
};
typedef enum cudaMemAllocationType cudaMemAllocationType;

/**
 * C: `cudaMemAllocationHandleType`.
 */
enum cudaMemAllocationHandleType {
  cudaMemHandleTypeNone = 0x0,
  cudaMemHandleTypePosixFileDescriptor = 0x1,
  cudaMemHandleTypeWin32 = 0x2,
  cudaMemHandleTypeWin32Kmt = 0x4,
  cudaMemHandleTypeFabric = 0x8,
};
typedef enum cudaMemAllocationHandleType cudaMemAllocationHandleType;

/**
 * C: `struct cudaMemPoolProps` (88 bytes).
 */
typedef struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  struct cudaMemLocation location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
} cudaMemPoolProps;

/**
 * C: `cudaMemAccessFlags`.
 */
enum cudaMemAccessFlags {
  cudaMemAccessFlagsProtNone = 0,
  cudaMemAccessFlagsProtRead = 1,
  cudaMemAccessFlagsProtReadWrite = 3,
};
typedef enum cudaMemAccessFlags cudaMemAccessFlags;

/**
 * C: `struct cudaMemAccessDesc` (12 bytes).
 */
typedef struct cudaMemAccessDesc {
  struct cudaMemLocation location;
  cudaMemAccessFlags flags;
} cudaMemAccessDesc;

/**
 * C: `struct cudaMemAllocNodeParams`; `dptr` is written by the add call.
 */
typedef struct cudaMemAllocNodeParams {
  struct cudaMemPoolProps poolProps;
  const struct cudaMemAccessDesc *accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void *dptr;
} cudaMemAllocNodeParams;

/**
 * C: `struct cudaMemAllocNodeParamsV2` (same layout).
 */
typedef struct cudaMemAllocNodeParams cudaMemAllocNodeParamsV2;

/**
 * C: `struct cudaMemFreeNodeParams`.
 */
typedef struct cudaMemFreeNodeParams {
  void *dptr;
} cudaMemFreeNodeParams;

typedef uint64_t cudaGraphConditionalHandle;

/**
 * C: `cudaGraphConditionalNodeType`.
 */
enum cudaGraphConditionalNodeType {
  cudaGraphCondTypeIf = 0,
  cudaGraphCondTypeWhile = 1,
  cudaGraphCondTypeSwitch = 2,
};
typedef enum cudaGraphConditionalNodeType cudaGraphConditionalNodeType;

/**
 * C: `struct cudaConditionalNodeParams` (the driver's has a trailing
 * context; converted).
 */
typedef struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  cudaGraphConditionalNodeType type;
  unsigned int size;
  cudaGraph_t *phGraph_out;
  /**
   * CUDA 13.5: the execution context (NULL: the current one).
   */
  cudaExecutionContext_t ctx;
} cudaConditionalNodeParams;

/**
 * The anonymous union of [`cudaGraphNodeParams`] (named here because Rust
 * has no anonymous unions; C code reaches the members as `params._u.kernel`).
 */
typedef union cudartShimGraphNodeParamsUnion {
  int64_t reserved1[29];
  struct cudaKernelNodeParamsV2 kernel;
  struct cudaMemcpyNodeParams memcpy;
  cudaMemsetParamsV2 memset;
  struct cudaHostNodeParamsV2 host;
  struct cudaChildGraphNodeParams graph;
  struct cudaEventWaitNodeParams eventWait;
  struct cudaEventRecordNodeParams eventRecord;
  struct cudaExternalSemaphoreSignalNodeParamsV2 extSemSignal;
  struct cudaExternalSemaphoreWaitNodeParamsV2 extSemWait;
  cudaMemAllocNodeParamsV2 alloc;
  struct cudaMemFreeNodeParams free;
  struct cudaConditionalNodeParams conditional;
} cudartShimGraphNodeParamsUnion;

/**
 * C: `struct cudaGraphNodeParams` (256 bytes).
 */
typedef struct cudaGraphNodeParams {
  cudaGraphNodeType type;
  int reserved0[3];
  union cudartShimGraphNodeParamsUnion _u;
  int64_t reserved2;
} cudaGraphNodeParams;

/**
 * C: `cudaGraphRecaptureStatus`.
 */
enum cudaGraphRecaptureStatus {
  cudaGraphRecaptureEligibleForUpdate = 0,
  cudaGraphRecaptureIneligibleForUpdate = 1,
  cudaGraphRecaptureError = 2,
};
typedef enum cudaGraphRecaptureStatus cudaGraphRecaptureStatus;

/**
 * C: `cudaGraphRecaptureCallback_t`.
 */
typedef cudaError_t (*cudaGraphRecaptureCallback_t)(void *data, cudaGraphNode_t node, const struct cudaGraphNodeParams *originalParams, const struct cudaGraphNodeParams *recaptureParams, cudaGraphRecaptureStatus status);

/**
 * C: `struct cudaGraphRecaptureCallbackData`.
 */
typedef struct cudaGraphRecaptureCallbackData {
  cudaGraphRecaptureCallback_t callbackFunc;
  void *userData;
} cudaGraphRecaptureCallbackData;

/**
 * C: `struct cudaKernelNodeParams`. `func` is the host stub (or a
 * `cudaKernel_t`), resolved to the driver's function when converted.
 */
typedef struct cudaKernelNodeParams {
  void *func;
  struct dim3 gridDim;
  struct dim3 blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
} cudaKernelNodeParams;

typedef struct CUgraphExec_st *cudaGraphExec_t;

/**
 * C: `struct cudaHostNodeParams`.
 */
typedef struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void *userData;
} cudaHostNodeParams;

/**
 * C: `struct cudaExternalSemaphoreSignalNodeParams`.
 */
typedef struct cudaExternalSemaphoreSignalNodeParams {
  cudaExternalSemaphore_t *extSemArray;
  const struct cudaExternalSemaphoreSignalParams *paramsArray;
  unsigned int numExtSems;
} cudaExternalSemaphoreSignalNodeParams;

/**
 * C: `struct cudaExternalSemaphoreWaitNodeParams`.
 */
typedef struct cudaExternalSemaphoreWaitNodeParams {
  cudaExternalSemaphore_t *extSemArray;
  const struct cudaExternalSemaphoreWaitParams *paramsArray;
  unsigned int numExtSems;
} cudaExternalSemaphoreWaitNodeParams;

/**
 * C: `cudaGraphInstantiateResult`.
 */
enum cudaGraphInstantiateResult {
  cudaGraphInstantiateSuccess = 0,
  cudaGraphInstantiateError = 1,
  cudaGraphInstantiateInvalidStructure = 2,
  cudaGraphInstantiateNodeOperationNotSupported = 3,
  cudaGraphInstantiateMultipleDevicesNotSupported = 4,
  cudaGraphInstantiateConditionalHandleUnused = 5,
};
typedef enum cudaGraphInstantiateResult cudaGraphInstantiateResult;

/**
 * C: `cudaGraphInstantiateParams` (same layout as the driver's
 * `CUDA_GRAPH_INSTANTIATE_PARAMS`).
 */
typedef struct cudaGraphInstantiateParams_st {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  cudaGraphInstantiateResult result_out;
} cudaGraphInstantiateParams;

/**
 * C: `cudaGraphExecUpdateResult`.
 */
enum cudaGraphExecUpdateResult {
  cudaGraphExecUpdateSuccess = 0x0,
  cudaGraphExecUpdateError = 0x1,
  cudaGraphExecUpdateErrorTopologyChanged = 0x2,
  cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
  cudaGraphExecUpdateErrorFunctionChanged = 0x4,
  cudaGraphExecUpdateErrorParametersChanged = 0x5,
  cudaGraphExecUpdateErrorNotSupported = 0x6,
  cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
  cudaGraphExecUpdateErrorAttributesChanged = 0x8,
};
typedef enum cudaGraphExecUpdateResult cudaGraphExecUpdateResult;

/**
 * C: `cudaGraphExecUpdateResultInfo` (same layout as the driver's).
 */
typedef struct cudaGraphExecUpdateResultInfo_st {
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;

typedef struct CUuserObject_st *cudaUserObject_t;

/**
 * C: `cudaGraphMemAttributeType`.
 */
enum cudaGraphMemAttributeType {
  cudaGraphMemAttrUsedMemCurrent = 0x0,
  cudaGraphMemAttrUsedMemHigh = 0x1,
  cudaGraphMemAttrReservedMemCurrent = 0x2,
  cudaGraphMemAttrReservedMemHigh = 0x3,
};
typedef enum cudaGraphMemAttributeType cudaGraphMemAttributeType;

/**
 * C: `cudaLaunchAttribute` (`struct cudaLaunchAttribute_st`), 72 bytes.
 * Same layout and attribute numbers as the driver's `CUlaunchAttribute`,
 * so an attribute array is handed to the driver as is.
 */
typedef struct cudaLaunchAttribute_st {
  cudaLaunchAttributeID id;
  char _pad[4];
  union cudaLaunchAttributeValue val;
} cudaLaunchAttribute;

/**
 * C: `cudaLaunchConfig_t` (`struct cudaLaunchConfig_st`). Not laid out like
 * the driver's `CUlaunchConfig` (dim3 members, `size_t` shared memory):
 * converted by `runtime::launch`.
 */
typedef struct cudaLaunchConfig_st {
  struct dim3 gridDim;
  struct dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  struct cudaLaunchAttribute_st *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;

/**
 * C: `cudaSharedMemoryMode`.
 */
enum cudaSharedMemoryMode {
  cudaSharedMemoryModeDefault = 0,
  cudaSharedMemoryModeRequirePortable = 1,
  cudaSharedMemoryModeAllowNonPortable = 2,
  cudaSharedMemoryModeAllowOversizedSharedMemory = 3,
  cudaSharedMemoryModePreferOversizedSharedMemory = 4,
};
typedef enum cudaSharedMemoryMode cudaSharedMemoryMode;

/**
 * C: `struct cudaFuncAttributes`.
 */
typedef struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  /**
   * CUDA 13.5: whether the kernel supports device-side node updates (0:
   * no, or a driver too old to say).
   */
  int deviceNodeUpdateStatus;
  /**
   * CUDA 13.5: the kernel's shared memory mode (0: default).
   */
  cudaSharedMemoryMode sharedMemoryMode;
  int reserved[14];
} cudaFuncAttributes;

/**
 * C: `cudaFuncAttribute`.
 */
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
  cudaFuncAttributeSharedMemoryMode = 16,
  cudaFuncAttributeMax = 17,
};
typedef enum cudaFuncAttribute cudaFuncAttribute;

typedef struct CUfunc_st *cudaFunction_t;

typedef struct CUkern_st *cudaKernel_t;

typedef struct CUlib_st *cudaLibrary_t;

/**
 * C: `cudaJitOption`.
 */
enum cudaJitOption {
  cudaJitMaxRegisters = 0,
  cudaJitThreadsPerBlock = 1,
  cudaJitWallTime = 2,
  cudaJitInfoLogBuffer = 3,
  cudaJitInfoLogBufferSizeBytes = 4,
  cudaJitErrorLogBuffer = 5,
  cudaJitErrorLogBufferSizeBytes = 6,
  cudaJitOptimizationLevel = 7,
  cudaJitFallbackStrategy = 10,
  cudaJitGenerateDebugInfo = 11,
  cudaJitLogVerbose = 12,
  cudaJitGenerateLineInfo = 13,
  cudaJitCacheMode = 14,
  cudaJitPositionIndependentCode = 30,
  cudaJitMinCtaPerSm = 31,
  cudaJitMaxThreadsPerBlock = 32,
  cudaJitOverrideDirectiveValues = 33,
};
typedef enum cudaJitOption cudaJitOption;

/**
 * C: `cudaLibraryOption`.
 */
enum cudaLibraryOption {
  cudaLibraryHostUniversalFunctionAndDataTable = 0,
  cudaLibraryBinaryIsPreserved = 1,
};
typedef enum cudaLibraryOption cudaLibraryOption;

/**
 * C: `cudaDriverEntryPointQueryResult`.
 */
enum cudaDriverEntryPointQueryResult {
  cudaDriverEntryPointSuccess = 0,
  cudaDriverEntryPointSymbolNotFound = 1,
  cudaDriverEntryPointVersionNotSufficent = 2,
};
typedef enum cudaDriverEntryPointQueryResult cudaDriverEntryPointQueryResult;

typedef struct CUmemPoolHandle_st *cudaMemPool_t;

/**
 * C: `cudaMemPoolAttr`.
 */
enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 0x1,
  cudaMemPoolReuseAllowOpportunistic = 0x2,
  cudaMemPoolReuseAllowInternalDependencies = 0x3,
  cudaMemPoolAttrReleaseThreshold = 0x4,
  cudaMemPoolAttrReservedMemCurrent = 0x5,
  cudaMemPoolAttrReservedMemHigh = 0x6,
  cudaMemPoolAttrUsedMemCurrent = 0x7,
  cudaMemPoolAttrUsedMemHigh = 0x8,
  cudaMemPoolAttrAllocationType = 0x9,
  cudaMemPoolAttrExportHandleTypes = 0xa,
  cudaMemPoolAttrLocationId = 0xb,
  cudaMemPoolAttrLocationType = 0xc,
  cudaMemPoolAttrMaxPoolSize = 0xd,
  cudaMemPoolAttrHwDecompressEnabled = 0xe,
  cudaMemPoolAttrLocalityDomainId = 0xf,
};
typedef enum cudaMemPoolAttr cudaMemPoolAttr;

/**
 * C: `struct cudaMemPoolPtrExportData` (64 opaque bytes).
 */
typedef struct cudaMemPoolPtrExportData {
  unsigned char reserved[64];
} cudaMemPoolPtrExportData;

/**
 * C: `cudaIpcMemHandle_t` (64 opaque bytes, passed by value).
 */
typedef struct cudaIpcMemHandle_st {
  char reserved[64];
} cudaIpcMemHandle_st;

typedef struct cudaIpcMemHandle_st cudaIpcMemHandle_t;

/**
 * C: `cudaIpcEventHandle_t` (64 opaque bytes, passed by value).
 */
typedef struct cudaIpcEventHandle_st {
  char reserved[64];
} cudaIpcEventHandle_st;

typedef struct cudaIpcEventHandle_st cudaIpcEventHandle_t;

typedef struct CUexternalMemory_st *cudaExternalMemory_t;

/**
 * C: `cudaExternalMemoryHandleType`.
 */
enum cudaExternalMemoryHandleType {
  cudaExternalMemoryHandleTypeOpaqueFd = 1,
  cudaExternalMemoryHandleTypeOpaqueWin32 = 2,
  cudaExternalMemoryHandleTypeOpaqueWin32Kmt = 3,
  cudaExternalMemoryHandleTypeD3D12Heap = 4,
  cudaExternalMemoryHandleTypeD3D12Resource = 5,
  cudaExternalMemoryHandleTypeD3D11Resource = 6,
  cudaExternalMemoryHandleTypeD3D11ResourceKmt = 7,
  cudaExternalMemoryHandleTypeNvSciBuf = 8,
};
typedef enum cudaExternalMemoryHandleType cudaExternalMemoryHandleType;

/**
 * The Win32 member of the handle unions (anonymous in NVIDIA's header).
 */
typedef struct cudaExternalWin32Handle {
  void *handle;
  const void *name;
} cudaExternalWin32Handle;

/**
 * `cudaExternalMemoryHandleDesc::handle` (anonymous in NVIDIA's header).
 */
typedef union cudaExternalMemoryHandleUnion {
  int fd;
  struct cudaExternalWin32Handle win32;
  const void *nvSciBufObject;
} cudaExternalMemoryHandleUnion;

/**
 * C: `struct cudaExternalMemoryHandleDesc` (104 bytes; the driver's
 * `CUDA_EXTERNAL_MEMORY_HANDLE_DESC` has the same layout and values).
 */
typedef struct cudaExternalMemoryHandleDesc {
  cudaExternalMemoryHandleType type;
  union cudaExternalMemoryHandleUnion handle;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
} cudaExternalMemoryHandleDesc;

/**
 * C: `struct cudaExternalMemoryBufferDesc` (88 bytes; same layout as the
 * driver's `CUDA_EXTERNAL_MEMORY_BUFFER_DESC`).
 */
typedef struct cudaExternalMemoryBufferDesc {
  unsigned long long offset;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
} cudaExternalMemoryBufferDesc;

/**
 * C: `struct cudaExternalMemoryMipmappedArrayDesc` (128 bytes; converted
 * to the driver's descriptor, which holds a `CUDA_ARRAY3D_DESCRIPTOR`).
 */
typedef struct cudaExternalMemoryMipmappedArrayDesc {
  unsigned long long offset;
  struct cudaChannelFormatDesc formatDesc;
  struct cudaExtent extent;
  unsigned int flags;
  unsigned int numLevels;
  unsigned int reserved[16];
} cudaExternalMemoryMipmappedArrayDesc;

/**
 * C: `cudaExternalSemaphoreHandleType`.
 */
enum cudaExternalSemaphoreHandleType {
  cudaExternalSemaphoreHandleTypeOpaqueFd = 1,
  cudaExternalSemaphoreHandleTypeOpaqueWin32 = 2,
  cudaExternalSemaphoreHandleTypeOpaqueWin32Kmt = 3,
  cudaExternalSemaphoreHandleTypeD3D12Fence = 4,
  cudaExternalSemaphoreHandleTypeD3D11Fence = 5,
  cudaExternalSemaphoreHandleTypeNvSciSync = 6,
  cudaExternalSemaphoreHandleTypeKeyedMutex = 7,
  cudaExternalSemaphoreHandleTypeKeyedMutexKmt = 8,
  cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd = 9,
  cudaExternalSemaphoreHandleTypeTimelineSemaphoreWin32 = 10,
};
typedef enum cudaExternalSemaphoreHandleType cudaExternalSemaphoreHandleType;

/**
 * `cudaExternalSemaphoreHandleDesc::handle` (anonymous in NVIDIA's header).
 */
typedef union cudaExternalSemaphoreHandleUnion {
  int fd;
  struct cudaExternalWin32Handle win32;
  const void *nvSciSyncObj;
} cudaExternalSemaphoreHandleUnion;

/**
 * C: `struct cudaExternalSemaphoreHandleDesc` (96 bytes; same layout and
 * values as the driver's `CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC`).
 */
typedef struct cudaExternalSemaphoreHandleDesc {
  cudaExternalSemaphoreHandleType type;
  union cudaExternalSemaphoreHandleUnion handle;
  unsigned int flags;
  unsigned int reserved[16];
} cudaExternalSemaphoreHandleDesc;

typedef uint64_t cudaTextureObject_t;

/**
 * C: `cudaResourceType`.
 */
enum cudaResourceType {
  cudaResourceTypeArray = 0x0,
  cudaResourceTypeMipmappedArray = 0x1,
  cudaResourceTypeLinear = 0x2,
  cudaResourceTypePitch2D = 0x3,
};
typedef enum cudaResourceType cudaResourceType;

/**
 * `cudaResourceDesc::res.array` (anonymous in NVIDIA's header).
 */
typedef struct cudaResourceDescArray {
  cudaArray_t array;
} cudaResourceDescArray;

/**
 * `cudaResourceDesc::res.mipmap` (anonymous in NVIDIA's header).
 */
typedef struct cudaResourceDescMipmap {
  cudaMipmappedArray_t mipmap;
} cudaResourceDescMipmap;

/**
 * `cudaResourceDesc::res.linear` (anonymous in NVIDIA's header).
 */
typedef struct cudaResourceDescLinear {
  void *devPtr;
  struct cudaChannelFormatDesc desc;
  size_t sizeInBytes;
} cudaResourceDescLinear;

/**
 * `cudaResourceDesc::res.pitch2D` (anonymous in NVIDIA's header).
 */
typedef struct cudaResourceDescPitch2D {
  void *devPtr;
  struct cudaChannelFormatDesc desc;
  size_t width;
  size_t height;
  size_t pitchInBytes;
} cudaResourceDescPitch2D;

/**
 * `cudaResourceDesc::res.reserved` (anonymous in NVIDIA's header).
 */
typedef struct cudaResourceDescReserved {
  int reserved[32];
} cudaResourceDescReserved;

/**
 * `cudaResourceDesc::res` (anonymous in NVIDIA's header).
 */
typedef union cudaResourceDescRes {
  struct cudaResourceDescArray array;
  struct cudaResourceDescMipmap mipmap;
  struct cudaResourceDescLinear linear;
  struct cudaResourceDescPitch2D pitch2D;
  struct cudaResourceDescReserved reserved;
} cudaResourceDescRes;

/**
 * C: `struct cudaResourceDesc` (144 bytes).
 */
typedef struct cudaResourceDesc {
  cudaResourceType resType;
  union cudaResourceDescRes res;
  unsigned int flags;
} cudaResourceDesc;

/**
 * C: `cudaTextureAddressMode`.
 */
enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};
typedef enum cudaTextureAddressMode cudaTextureAddressMode;

/**
 * C: `cudaTextureFilterMode`.
 */
enum cudaTextureFilterMode {
  cudaFilterModePoint = 0,
  cudaFilterModeLinear = 1,
};
typedef enum cudaTextureFilterMode cudaTextureFilterMode;

/**
 * C: `cudaTextureReadMode`.
 */
enum cudaTextureReadMode {
  cudaReadModeElementType = 0,
  cudaReadModeNormalizedFloat = 1,
};
typedef enum cudaTextureReadMode cudaTextureReadMode;

/**
 * C: `struct cudaTextureDesc`.
 */
typedef struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
} cudaTextureDesc;

/**
 * C: `cudaResourceViewFormat`.
 */
enum cudaResourceViewFormat {
  cudaResViewFormatNone = 0x0,
  cudaResViewFormatUnsignedChar1 = 0x1,
  cudaResViewFormatUnsignedChar2 = 0x2,
  cudaResViewFormatUnsignedChar4 = 0x3,
  cudaResViewFormatSignedChar1 = 0x4,
  cudaResViewFormatSignedChar2 = 0x5,
  cudaResViewFormatSignedChar4 = 0x6,
  cudaResViewFormatUnsignedShort1 = 0x7,
  cudaResViewFormatUnsignedShort2 = 0x8,
  cudaResViewFormatUnsignedShort4 = 0x9,
  cudaResViewFormatSignedShort1 = 0xa,
  cudaResViewFormatSignedShort2 = 0xb,
  cudaResViewFormatSignedShort4 = 0xc,
  cudaResViewFormatUnsignedInt1 = 0xd,
  cudaResViewFormatUnsignedInt2 = 0xe,
  cudaResViewFormatUnsignedInt4 = 0xf,
  cudaResViewFormatSignedInt1 = 0x10,
  cudaResViewFormatSignedInt2 = 0x11,
  cudaResViewFormatSignedInt4 = 0x12,
  cudaResViewFormatHalf1 = 0x13,
  cudaResViewFormatHalf2 = 0x14,
  cudaResViewFormatHalf4 = 0x15,
  cudaResViewFormatFloat1 = 0x16,
  cudaResViewFormatFloat2 = 0x17,
  cudaResViewFormatFloat4 = 0x18,
  cudaResViewFormatUnsignedBlockCompressed1 = 0x19,
  cudaResViewFormatUnsignedBlockCompressed2 = 0x1a,
  cudaResViewFormatUnsignedBlockCompressed3 = 0x1b,
  cudaResViewFormatUnsignedBlockCompressed4 = 0x1c,
  cudaResViewFormatSignedBlockCompressed4 = 0x1d,
  cudaResViewFormatUnsignedBlockCompressed5 = 0x1e,
  cudaResViewFormatSignedBlockCompressed5 = 0x1f,
  cudaResViewFormatUnsignedBlockCompressed6H = 0x20,
  cudaResViewFormatSignedBlockCompressed6H = 0x21,
  cudaResViewFormatUnsignedBlockCompressed7 = 0x22,
};
typedef enum cudaResourceViewFormat cudaResourceViewFormat;

/**
 * C: `struct cudaResourceViewDesc`.
 */
typedef struct cudaResourceViewDesc {
  cudaResourceViewFormat format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
  unsigned int reserved[16];
} cudaResourceViewDesc;

typedef uint64_t cudaSurfaceObject_t;

/**
 * C: `cudaLogLevel`.
 */
enum CUDAlogLevel_enum {
  cudaLogLevelError = 0,
  cudaLogLevelWarning = 1,
};
typedef enum CUDAlogLevel_enum cudaLogLevel;

/**
 * C: `cudaLogsCallback_t`: `(data, level, message, length)`.
 */
typedef void (*cudaLogsCallback_t)(void *data, cudaLogLevel logLevel, char *message, size_t length);

typedef struct CUlogsCallbackEntry_st *cudaLogsCallbackHandle;

typedef unsigned int cudaLogIterator;

typedef struct cudaGraphicsResource *cudaGraphicsResource_t;

/**
 * C: `enum cudaGLDeviceList` (`cuda_gl_interop.h`; its constants are
 * `cudaGLDeviceListAll` = 1, `CurrentFrame` = 2, `NextFrame` = 3, not
 * repeated here because `cuda_runtime_api.h` does not declare them).
 */
typedef int cudaGLDeviceList;

/**
 * C: `GLuint` (OpenGL).
 */
typedef unsigned int GLuint;

/**
 * C: `GLenum` (OpenGL).
 */
typedef unsigned int GLenum;

/**
 * C: `EGLImageKHR` (EGL, an opaque pointer).
 */
typedef void *EGLImageKHR;

/**
 * `cudaEglFrame::frame` (anonymous in NVIDIA's header).
 */
typedef union cudaEglFrameUnion {
  cudaArray_t pArray[3];
  struct cudaPitchedPtr pPitch[3];
} cudaEglFrameUnion;

/**
 * C: `cudaEglPlaneDesc` (`cuda_egl_interop.h`, 56 bytes).
 */
typedef struct cudaEglPlaneDesc_st {
  unsigned int width;
  unsigned int height;
  unsigned int depth;
  unsigned int pitch;
  unsigned int numChannels;
  struct cudaChannelFormatDesc channelDesc;
  unsigned int reserved[4];
} cudaEglPlaneDesc;

/**
 * C: `cudaEglFrameType` (`cuda_egl_interop.h`: 0 array, 1 pitch).
 */
typedef int cudaEglFrameType;

/**
 * C: `cudaEglColorFormat` (`cuda_egl_interop.h`); values equal the
 * driver's `CUeglColorFormat`.
 */
typedef int cudaEglColorFormat;

/**
 * C: `cudaEglFrame` (`cuda_egl_interop.h`, 280 bytes, passed by value to
 * `cudaEGLStreamProducerPresentFrame`).
 */
typedef struct cudaEglFrame_st {
  union cudaEglFrameUnion frame;
  struct cudaEglPlaneDesc_st planeDesc[3];
  unsigned int planeCount;
  cudaEglFrameType frameType;
  cudaEglColorFormat eglColorFormat;
} cudaEglFrame;

/**
 * C: `EGLSyncKHR` (EGL, an opaque pointer).
 */
typedef void *EGLSyncKHR;

/**
 * C: `cudaEglStreamConnection` (the driver's `CUeglStreamConnection`).
 */
typedef struct CUeglStreamConnection_st *cudaEglStreamConnection;

/**
 * C: `EGLStreamKHR` (EGL, an opaque pointer).
 */
typedef void *EGLStreamKHR;

/**
 * C: `EGLint` (EGL, a 32-bit integer).
 */
typedef int32_t EGLint;

/**
 * C: `VdpDevice` (VDPAU handle).
 */
typedef uint32_t VdpDevice;

/**
 * C: `VdpStatus` (VDPAU).
 */
typedef int VdpStatus;

/**
 * C: `VdpFuncId` (VDPAU).
 */
typedef uint32_t VdpFuncId;

/**
 * C: `VdpGetProcAddress`. VDPAU declares it as a function type and the
 * runtime takes `VdpGetProcAddress *`; a Rust fn pointer is that pointer.
 */
typedef VdpStatus (*VdpGetProcAddress)(VdpDevice device, VdpFuncId function_id, void **function_pointer);

/**
 * C: `VdpVideoSurface` (VDPAU handle).
 */
typedef uint32_t VdpVideoSurface;

/**
 * C: `VdpOutputSurface` (VDPAU handle).
 */
typedef uint32_t VdpOutputSurface;

/**
 * C: `cudaDevResourceType`.
 */
enum cudaDevResourceType {
  cudaDevResourceTypeInvalid = 0,
  cudaDevResourceTypeSm = 1,
  cudaDevResourceTypeWorkqueueConfig = 1000,
  cudaDevResourceTypeWorkqueue = 10000,
};
typedef enum cudaDevResourceType cudaDevResourceType;

/**
 * C: `cudaDevSmResourceGroupParams`.
 */
typedef struct cudaDevSmResourceGroupParams {
  unsigned int smCount;
  unsigned int coscheduledSmCount;
  unsigned int preferredCoscheduledSmCount;
  unsigned int flags;
  unsigned int localityDomainId;
  unsigned int reserved[11];
} cudaDevSmResourceGroupParams;

typedef struct CUdevResourceDesc_st *cudaDevResourceDesc_t;

/**
 * C: `cudaMemcpyFlags`.
 */
enum cudaMemcpyFlags {
  cudaMemcpyFlagDefault = 0x0,
  cudaMemcpyFlagPreferOverlapWithCompute = 0x1,
};
typedef enum cudaMemcpyFlags cudaMemcpyFlags;

/**
 * C: `cudaStreamUpdateCaptureDependenciesFlags`.
 */
enum cudaStreamUpdateCaptureDependenciesFlags {
  cudaStreamAddCaptureDependencies = 0x0,
  cudaStreamSetCaptureDependencies = 0x1,
};
typedef enum cudaStreamUpdateCaptureDependenciesFlags cudaStreamUpdateCaptureDependenciesFlags;

/**
 * C: `cudaGraphDependencyType`.
 */
enum cudaGraphDependencyType_enum {
  cudaGraphDependencyTypeDefault = 0,
  cudaGraphDependencyTypeProgrammatic = 1,
};
typedef enum cudaGraphDependencyType_enum cudaGraphDependencyType;

/**
 * C: `cudaGraphDebugDotFlags`.
 */
enum cudaGraphDebugDotFlags {
  cudaGraphDebugDotFlagsVerbose = 1,
  cudaGraphDebugDotFlagsKernelNodeParams = 4,
  cudaGraphDebugDotFlagsMemcpyNodeParams = 8,
  cudaGraphDebugDotFlagsMemsetNodeParams = 16,
  cudaGraphDebugDotFlagsHostNodeParams = 32,
  cudaGraphDebugDotFlagsEventNodeParams = 64,
  cudaGraphDebugDotFlagsExtSemasSignalNodeParams = 128,
  cudaGraphDebugDotFlagsExtSemasWaitNodeParams = 256,
  cudaGraphDebugDotFlagsKernelNodeAttributes = 512,
  cudaGraphDebugDotFlagsHandles = 1024,
  cudaGraphDebugDotFlagsConditionalNodeParams = 32768,
  cudaGraphDebugDotFlagsMemcpyBatchNodeParams = 65536,
};
typedef enum cudaGraphDebugDotFlags cudaGraphDebugDotFlags;

/**
 * C: `cudaGraphInstantiateFlags`.
 */
enum cudaGraphInstantiateFlags {
  cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
  cudaGraphInstantiateFlagUpload = 2,
  cudaGraphInstantiateFlagDeviceLaunch = 4,
  cudaGraphInstantiateFlagUseNodePriority = 8,
};
typedef enum cudaGraphInstantiateFlags cudaGraphInstantiateFlags;

/**
 * C: `cudaUserObjectFlags`.
 */
enum cudaUserObjectFlags {
  cudaUserObjectNoDestructorSync = 0x1,
};
typedef enum cudaUserObjectFlags cudaUserObjectFlags;

/**
 * C: `cudaUserObjectRetainFlags`.
 */
enum cudaUserObjectRetainFlags {
  cudaGraphUserObjectMove = 0x1,
};
typedef enum cudaUserObjectRetainFlags cudaUserObjectRetainFlags;

/**
 * C: `cudaGraphConditionalHandleFlags`.
 */
enum cudaGraphConditionalHandleFlags {
  cudaGraphCondAssignDefault = 1,
};
typedef enum cudaGraphConditionalHandleFlags cudaGraphConditionalHandleFlags;

/**
 * C: `cudaGraphicsRegisterFlags`.
 */
enum cudaGraphicsRegisterFlags {
  cudaGraphicsRegisterFlagsNone = 0,
  cudaGraphicsRegisterFlagsReadOnly = 1,
  cudaGraphicsRegisterFlagsWriteDiscard = 2,
  cudaGraphicsRegisterFlagsSurfaceLoadStore = 4,
  cudaGraphicsRegisterFlagsTextureGather = 8,
};
typedef enum cudaGraphicsRegisterFlags cudaGraphicsRegisterFlags;

/**
 * C: `cudaGraphicsMapFlags`.
 */
enum cudaGraphicsMapFlags {
  cudaGraphicsMapFlagsNone = 0,
  cudaGraphicsMapFlagsReadOnly = 1,
  cudaGraphicsMapFlagsWriteDiscard = 2,
};
typedef enum cudaGraphicsMapFlags cudaGraphicsMapFlags;

/**
 * C: `cudaGraphicsCubeFace`.
 */
enum cudaGraphicsCubeFace {
  cudaGraphicsCubeFacePositiveX = 0x0,
  cudaGraphicsCubeFaceNegativeX = 0x1,
  cudaGraphicsCubeFacePositiveY = 0x2,
  cudaGraphicsCubeFaceNegativeY = 0x3,
  cudaGraphicsCubeFacePositiveZ = 0x4,
  cudaGraphicsCubeFaceNegativeZ = 0x5,
};
typedef enum cudaGraphicsCubeFace cudaGraphicsCubeFace;

/**
 * C: `cudaAsyncNotificationType`.
 */
enum cudaAsyncNotificationType_enum {
  cudaAsyncNotificationTypeOverBudget = 0x1,
};
typedef enum cudaAsyncNotificationType_enum cudaAsyncNotificationType;

/**
 * C: `cudaAtomicOperationCapability`.
 */
enum cudaAtomicOperationCapability {
  cudaAtomicCapabilitySigned = 1,
  cudaAtomicCapabilityUnsigned = 2,
  cudaAtomicCapabilityReduction = 4,
  cudaAtomicCapabilityScalar32 = 8,
  cudaAtomicCapabilityScalar64 = 16,
  cudaAtomicCapabilityScalar128 = 32,
  cudaAtomicCapabilityVector32x4 = 64,
};
typedef enum cudaAtomicOperationCapability cudaAtomicOperationCapability;

/**
 * C: `cudaCGScope`.
 */
enum cudaCGScope {
  cudaCGScopeInvalid = 0,
  cudaCGScopeGrid = 1,
  cudaCGScopeReserved = 2,
};
typedef enum cudaCGScope cudaCGScope;

/**
 * C: `cudaClusterSchedulingPolicy`.
 */
enum cudaClusterSchedulingPolicy {
  cudaClusterSchedulingPolicyDefault = 0,
  cudaClusterSchedulingPolicySpread = 1,
  cudaClusterSchedulingPolicyLoadBalancing = 2,
};
typedef enum cudaClusterSchedulingPolicy cudaClusterSchedulingPolicy;

/**
 * C: `cudaComputeMode`.
 */
enum cudaComputeMode {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3,
};
typedef enum cudaComputeMode cudaComputeMode;

/**
 * C: `cudaDeviceNumaConfig`.
 */
enum cudaDeviceNumaConfig {
  cudaDeviceNumaConfigNone = 0,
  cudaDeviceNumaConfigNumaNode = 1,
};
typedef enum cudaDeviceNumaConfig cudaDeviceNumaConfig;

/**
 * C: `cudaFlushGPUDirectRDMAWritesOptions`.
 */
enum cudaFlushGPUDirectRDMAWritesOptions {
  cudaFlushGPUDirectRDMAWritesOptionHost = 1,
  cudaFlushGPUDirectRDMAWritesOptionMemOps = 2,
};
typedef enum cudaFlushGPUDirectRDMAWritesOptions cudaFlushGPUDirectRDMAWritesOptions;

/**
 * C: `cudaGPUDirectRDMAWritesOrdering`.
 */
enum cudaGPUDirectRDMAWritesOrdering {
  cudaGPUDirectRDMAWritesOrderingNone = 0,
  cudaGPUDirectRDMAWritesOrderingOwner = 100,
  cudaGPUDirectRDMAWritesOrderingAllDevices = 200,
};
typedef enum cudaGPUDirectRDMAWritesOrdering cudaGPUDirectRDMAWritesOrdering;

/**
 * C: `cudaGraphKernelNodeField`.
 */
enum cudaGraphKernelNodeField {
  cudaGraphKernelNodeFieldInvalid = 0,
  cudaGraphKernelNodeFieldGridDim = 1,
  cudaGraphKernelNodeFieldParam = 2,
  cudaGraphKernelNodeFieldEnabled = 3,
};
typedef enum cudaGraphKernelNodeField cudaGraphKernelNodeField;

/**
 * C: `cudaJit_CacheMode`.
 */
enum cudaJit_CacheMode {
  cudaJitCacheOptionNone = 0,
  cudaJitCacheOptionCG = 1,
  cudaJitCacheOptionCA = 2,
};
typedef enum cudaJit_CacheMode cudaJit_CacheMode;

/**
 * C: `cudaJit_Fallback`.
 */
enum cudaJit_Fallback {
  cudaPreferPtx = 0,
  cudaPreferBinary = 1,
};
typedef enum cudaJit_Fallback cudaJit_Fallback;

/**
 * C: `cudaLaunchMemSyncDomain`.
 */
enum cudaLaunchMemSyncDomain {
  cudaLaunchMemSyncDomainDefault = 0,
  cudaLaunchMemSyncDomainRemote = 1,
};
typedef enum cudaLaunchMemSyncDomain cudaLaunchMemSyncDomain;

/**
 * C: `cudaSharedCarveout`.
 */
enum cudaSharedCarveout {
  cudaSharedmemCarveoutDefault = -1,
  cudaSharedmemCarveoutMaxShared = 100,
  cudaSharedmemCarveoutMaxL1 = 0,
};
typedef enum cudaSharedCarveout cudaSharedCarveout;

/**
 * C: `cudaDataType`.
 */
enum cudaDataType_t {
  CUDA_R_16F = 2,
  CUDA_C_16F = 6,
  CUDA_R_16BF = 14,
  CUDA_C_16BF = 15,
  CUDA_R_32F = 0,
  CUDA_C_32F = 4,
  CUDA_R_64F = 1,
  CUDA_C_64F = 5,
  CUDA_R_4I = 16,
  CUDA_C_4I = 17,
  CUDA_R_4U = 18,
  CUDA_C_4U = 19,
  CUDA_R_8I = 3,
  CUDA_C_8I = 7,
  CUDA_R_8U = 8,
  CUDA_C_8U = 9,
  CUDA_R_16I = 20,
  CUDA_C_16I = 21,
  CUDA_R_16U = 22,
  CUDA_C_16U = 23,
  CUDA_R_32I = 10,
  CUDA_C_32I = 11,
  CUDA_R_32U = 12,
  CUDA_C_32U = 13,
  CUDA_R_64I = 24,
  CUDA_C_64I = 25,
  CUDA_R_64U = 26,
  CUDA_C_64U = 27,
  CUDA_R_8F_E4M3 = 28,
  CUDA_R_8F_UE4M3 = 28,
  CUDA_R_8F_E5M2 = 29,
  CUDA_R_8F_UE8M0 = 30,
  CUDA_R_6F_E2M3 = 31,
  CUDA_R_6F_E3M2 = 32,
  CUDA_R_4F_E2M1 = 33,
};
typedef enum cudaDataType_t cudaDataType;

/**
 * C: `libraryPropertyType`.
 */
enum libraryPropertyType_t {
  MAJOR_VERSION = 0,
  MINOR_VERSION = 1,
  PATCH_LEVEL = 2,
};
typedef enum libraryPropertyType_t libraryPropertyType;

/**
 * C: `cudaEmulationStrategy`.
 */
enum cudaEmulationStrategy_t {
  CUDA_EMULATION_STRATEGY_DEFAULT = 0,
  CUDA_EMULATION_STRATEGY_PERFORMANT = 1,
  CUDA_EMULATION_STRATEGY_EAGER = 2,
};
typedef enum cudaEmulationStrategy_t cudaEmulationStrategy;

/**
 * C: `cudaEmulationMantissaControl`.
 */
enum cudaEmulationMantissaControl_t {
  CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC = 0,
  CUDA_EMULATION_MANTISSA_CONTROL_FIXED = 1,
};
typedef enum cudaEmulationMantissaControl_t cudaEmulationMantissaControl;

/**
 * C: `cudaEmulationSpecialValuesSupport`.
 */
enum cudaEmulationSpecialValuesSupport_t {
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT = 0xffff,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NONE = 0,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_INFINITY = 1,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NAN = 2,
};
typedef enum cudaEmulationSpecialValuesSupport_t cudaEmulationSpecialValuesSupport;

/**
 * C: `cudaSurfaceBoundaryMode`.
 */
enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2,
};
typedef enum cudaSurfaceBoundaryMode cudaSurfaceBoundaryMode;

/**
 * C: `cudaSurfaceFormatMode`.
 */
enum cudaSurfaceFormatMode {
  cudaFormatModeForced = 0,
  cudaFormatModeAuto = 1,
};
typedef enum cudaSurfaceFormatMode cudaSurfaceFormatMode;

/**
 * C: `cudaRoundMode`.
 */
enum cudaRoundMode {
  cudaRoundNearest = 0,
  cudaRoundZero = 1,
  cudaRoundPosInf = 2,
  cudaRoundMinInf = 3,
};
typedef enum cudaRoundMode cudaRoundMode;

/**
 * C: `cudaFabricOpStatusInfo`.
 */
enum cudaFabricOpStatusInfo {
  cudaFabricOpStatusInfoSuccess = 0x0,
  cudaFabricOpStatusInfoLast = 0,
  cudaFabricOpStatusInfoMax = 0x7fffffff,
};
typedef enum cudaFabricOpStatusInfo cudaFabricOpStatusInfo;

/**
 * C: `cudaFabricOpStatusSource`.
 */
enum cudaFabricOpStatusSource {
  cudaFabricOpStatusSourceMbarrierV1 = 0x0,
  cudaFabricOpStatusSourceMax = 0x7fffffff,
};
typedef enum cudaFabricOpStatusSource cudaFabricOpStatusSource;

/**
 * C: `cudaLaunchAttributePortableClusterMode`.
 */
enum cudaLaunchAttributePortableClusterMode {
  cudaLaunchPortableClusterModeDefault = 0,
  cudaLaunchPortableClusterModeRequirePortable = 1,
  cudaLaunchPortableClusterModeAllowNonPortable = 2,
};
typedef enum cudaLaunchAttributePortableClusterMode cudaLaunchAttributePortableClusterMode;

/**
 * C: `cudaDevWorkqueueConfigScope`.
 */
enum cudaDevWorkqueueConfigScope {
  cudaDevWorkqueueConfigScopeDeviceCtx = 0,
  cudaDevWorkqueueConfigScopeGreenCtxBalanced = 1,
};
typedef enum cudaDevWorkqueueConfigScope cudaDevWorkqueueConfigScope;

/**
 * C: `cudaDevSmResourceGroup_flags`.
 */
enum cudaDevSmResourceGroup_flags {
  cudaDevSmResourceGroupDefault = 0,
  cudaDevSmResourceGroupBackfill = 0x1,
  cudaDevSmResourceGroupLocalityDomainId = 0x2,
  cudaDevSmResourceGroupLocalityDomainSupplementalSms = 0x4,
};
typedef enum cudaDevSmResourceGroup_flags cudaDevSmResourceGroup_flags;

/**
 * C: `cudaDevSmResourceSplitByCount_flags`.
 */
enum cudaDevSmResourceSplitByCount_flags {
  cudaDevSmResourceSplitIgnoreSmCoscheduling = 0x1,
  cudaDevSmResourceSplitMaxPotentialClusterSize = 0x2,
};
typedef enum cudaDevSmResourceSplitByCount_flags cudaDevSmResourceSplitByCount_flags;

/**
 * C: `cudaHostTaskSyncMode`.
 */
enum cudaHostTaskSyncMode {
  cudaHostTaskBlocking = 0x0,
  cudaHostTaskSpinWait = 0x1,
};
typedef enum cudaHostTaskSyncMode cudaHostTaskSyncMode;

/**
 * The legacy default stream, usable from any thread (C: `cudaStreamLegacy`).
 */
#define cudaStreamLegacy (cudaStream_t)1

/**
 * The calling thread's per-thread default stream (C: `cudaStreamPerThread`).
 */
#define cudaStreamPerThread (cudaStream_t)2

#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow

#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy

#define cudaStreamAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap

#define cudaStreamAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain

#define cudaStreamAttributePriority cudaLaunchAttributePriority

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

cudaError_t cudaGetDeviceCount(int *count);

cudaError_t cudaGetDevice(int *device);

cudaError_t cudaSetDevice(int device);

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);

cudaError_t cudaDeviceSynchronize(void);

cudaError_t cudaDeviceReset(void);

cudaError_t cudaDeviceGetLimit(size_t *pValue, cudaLimit limit);

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *pCacheConfig);

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache cacheConfig);

cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *pConfig);

cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);

cudaError_t cudaSetDeviceFlags(unsigned int flags);

cudaError_t cudaGetDeviceFlags(unsigned int *flags);

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);

cudaError_t cudaSetValidDevices(int *device_arr, int len);

cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements, const struct cudaChannelFormatDesc *fmtDesc, int device);

cudaError_t cudaDeviceGetHostAtomicCapabilities(unsigned int *capabilities, const cudaAtomicOperation *operations, unsigned int count, int device);

cudaError_t cudaDeviceRegisterAsyncNotification(int device, cudaAsyncCallback callbackFunc, void *userData, cudaAsyncCallbackHandle_t *callback);

cudaError_t cudaDeviceUnregisterAsyncNotification(int device, cudaAsyncCallbackHandle_t callback);

cudaError_t cudaDeviceGetNvSciSyncAttributes(void *nvSciSyncAttrList, int device, int flags);

cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTarget target, cudaFlushGPUDirectRDMAWritesScope scope);

cudaError_t cudaCtxResetPersistingL2Cache(void);

cudaError_t cudaGetLastError(void);

cudaError_t cudaPeekAtLastError(void);

const char *cudaGetErrorName(cudaError_t error);

const char *cudaGetErrorString(cudaError_t error);

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);

cudaError_t cudaDriverGetVersion(int *driverVersion);

cudaError_t cudaProfilerStart(void);

cudaError_t cudaProfilerStop(void);

cudaError_t cudaMalloc(void **devPtr, size_t size);

cudaError_t cudaFree(void *devPtr);

cudaError_t cudaMallocHost(void **ptr, size_t size);

cudaError_t cudaFreeHost(void *ptr);

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);

cudaError_t cudaHostUnregister(void *ptr);

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost);

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags CUDART_SHIM_DEFAULT(cudaMemAttachGlobal));

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);

cudaError_t cudaMemGetInfo(size_t *free, size_t *total);

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height CUDART_SHIM_DEFAULT(0), unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent, unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent, unsigned int numLevels, unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray, cudaMipmappedArray_const_t mipmappedArray, unsigned int level);

cudaError_t cudaFreeArray(cudaArray_t array);

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray);

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags, cudaArray_t array);

cudaError_t cudaArrayGetPlane(cudaArray_t *pPlaneArray, cudaArray_t hArray, unsigned int planeIdx);

cudaError_t cudaArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements, cudaArray_t array, int device);

cudaError_t cudaMipmappedArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements, cudaMipmappedArray_t mipmap, int device);

cudaError_t cudaArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties, cudaArray_t array);

cudaError_t cudaMipmappedArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties, cudaMipmappedArray_t mipmap);

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, cudaMemcpyKind kind);

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);

cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);

cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind);

cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind);

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height, cudaMemcpyKind kind CUDART_SHIM_DEFAULT(cudaMemcpyDeviceToDevice));

cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height, cudaMemcpyKind kind);

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count, cudaMemcpyKind kind);

cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count, cudaMemcpyKind kind);

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, cudaMemcpyKind kind);

cudaError_t cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, cudaMemcpyKind kind);

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, cudaMemcpyKind kind, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t count, cudaMemcpyKind kind CUDART_SHIM_DEFAULT(cudaMemcpyDeviceToDevice));

cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t count, cudaMemcpyKind kind);

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);

cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p);

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream);

cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p);

cudaError_t cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p);

cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream);

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes, size_t count, struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, cudaStream_t stream);

cudaError_t cudaMemcpyBatchAsync_ptsz(void *const *dsts, const void *const *srcs, const size_t *sizes, size_t count, struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, cudaStream_t stream);

cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t numOps, struct cudaMemcpy3DBatchOp *opList, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemset(void *devPtr, int value, size_t count);

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count);

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream);

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);

cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height);

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream);

cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);

cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent, cudaStream_t stream);

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream);

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise advice, struct cudaMemLocation location);

cudaError_t cudaMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count, struct cudaMemLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count, struct cudaMemLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemDiscardBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count, struct cudaMemLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemDiscardAndPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count, struct cudaMemLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, cudaMemRangeAttribute attribute, const void *devPtr, size_t count);

cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes, cudaMemRangeAttribute *attributes, size_t numAttributes, const void *devPtr, size_t count);

cudaError_t cudaMemcpyWithAttributesAsync(void *dst, const void *src, size_t size, struct cudaMemcpyAttributes *attr, cudaStream_t stream);

cudaError_t cudaMemcpyWithAttributesAsync_ptsz(void *dst, const void *src, size_t size, struct cudaMemcpyAttributes *attr, cudaStream_t stream);

cudaError_t cudaMemcpy3DWithAttributesAsync(struct cudaMemcpy3DBatchOp *op, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemcpy3DWithAttributesAsync_ptsz(struct cudaMemcpy3DBatchOp *op, unsigned long long flags, cudaStream_t stream);

cudaError_t cudaMemGetLocationInfo(void *devPtr, size_t size, size_t summaryGranularity, size_t samplingGranularity, struct cudaMemLocation *location_out);

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);

cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr attr, int srcDevice, int dstDevice);

cudaError_t cudaDeviceGetP2PAtomicCapabilities(unsigned int *capabilities, const cudaAtomicOperation *operations, unsigned int count, int srcDevice, int dstDevice);

cudaError_t cudaStreamCreate(cudaStream_t *pStream);

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);

cudaError_t cudaStreamDestroy(cudaStream_t stream);

cudaError_t cudaStreamQuery(cudaStream_t stream);

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream);

cudaError_t cudaStreamSynchronize(cudaStream_t stream);

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags);

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags);

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags);

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority);

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority);

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId);

cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId);

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device);

cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device);

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out);

cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out);

cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src);

cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src);

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length CUDART_SHIM_DEFAULT(0), unsigned int flags CUDART_SHIM_DEFAULT(cudaMemAttachSingle));

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length, unsigned int flags);

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags);

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags);

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn_, void *userData);

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn_, void *userData);

cudaError_t cudaLaunchHostFunc_v2(cudaStream_t stream, cudaHostFn_t fn_, void *userData, unsigned int syncMode);

cudaError_t cudaLaunchHostFunc_v2_ptsz(cudaStream_t stream, cudaHostFn_t fn_, void *userData, unsigned int syncMode);

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, cudaStreamCaptureMode mode);

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies, const struct cudaGraphEdgeData_st *dependencyData, size_t numDependencies, cudaStreamCaptureMode mode);

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies, const struct cudaGraphEdgeData_st *dependencyData, size_t numDependencies, cudaStreamCaptureMode mode);

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph);

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *pCaptureStatus);

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, cudaStreamCaptureStatus *pCaptureStatus);

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus *captureStatus_out, unsigned long long *id_out CUDART_SHIM_DEFAULT(0), cudaGraph_t *graph_out CUDART_SHIM_DEFAULT(0), const cudaGraphNode_t **dependencies_out CUDART_SHIM_DEFAULT(0), const struct cudaGraphEdgeData_st **edgeData_out CUDART_SHIM_DEFAULT(0), size_t *numDependencies_out CUDART_SHIM_DEFAULT(0));

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, cudaStreamCaptureStatus *captureStatus_out, unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out, const struct cudaGraphEdgeData_st **edgeData_out, size_t *numDependencies_out);

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies, const struct cudaGraphEdgeData_st *dependencyData, size_t numDependencies, unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t *dependencies, const struct cudaGraphEdgeData_st *dependencyData, size_t numDependencies, unsigned int flags);

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode);

cudaError_t cudaStreamBeginRecaptureToGraph(cudaStream_t stream, cudaStreamCaptureMode mode, cudaGraph_t graph, struct cudaGraphRecaptureCallbackData *callbackData CUDART_SHIM_DEFAULT(0));

cudaError_t cudaStreamBeginRecaptureToGraph_ptsz(cudaStream_t stream, cudaStreamCaptureMode mode, cudaGraph_t graph, struct cudaGraphRecaptureCallbackData *callbackData);

cudaError_t cudaEventCreate(cudaEvent_t *event);

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream CUDART_SHIM_DEFAULT(0), unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags);

cudaError_t cudaEventQuery(cudaEvent_t event);

cudaError_t cudaEventSynchronize(cudaEvent_t event);

cudaError_t cudaEventDestroy(cudaEvent_t event);

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);

cudaError_t cudaGraphDestroy(cudaGraph_t graph);

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node);

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams);

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams);

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);

cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc);

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaLaunchAttributeID attr, union cudaLaunchAttributeValue *value_out);

cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaLaunchAttributeID attr, const union cudaLaunchAttributeValue *value);

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaMemcpy3DParms *pCopyParams);

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst, const void *src, size_t count, cudaMemcpyKind kind);

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind);

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const void *symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind);

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *pNodeParams);

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams);

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src, size_t count, cudaMemcpyKind kind);

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind);

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind);

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams);

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst, const void *src, size_t count, cudaMemcpyKind kind);

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind);

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const void *symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind);

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaMemsetParams *pMemsetParams);

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams);

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams);

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams);

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaHostNodeParams *pNodeParams);

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams);

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaGraph_t childGraph);

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph);

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, cudaGraph_t childGraph);

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies);

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaEvent_t event);

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out);

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event);

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaEvent_t event);

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out);

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event);

cudaError_t cudaGraphAddExternalSemaphoresSignalNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams);

cudaError_t cudaGraphExternalSemaphoresSignalNodeGetParams(cudaGraphNode_t hNode, struct cudaExternalSemaphoreSignalNodeParams *params_out);

cudaError_t cudaGraphExternalSemaphoresSignalNodeSetParams(cudaGraphNode_t hNode, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams);

cudaError_t cudaGraphExecExternalSemaphoresSignalNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams);

cudaError_t cudaGraphAddExternalSemaphoresWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams);

cudaError_t cudaGraphExternalSemaphoresWaitNodeGetParams(cudaGraphNode_t hNode, struct cudaExternalSemaphoreWaitNodeParams *params_out);

cudaError_t cudaGraphExternalSemaphoresWaitNodeSetParams(cudaGraphNode_t hNode, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams);

cudaError_t cudaGraphExecExternalSemaphoresWaitNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams);

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, struct cudaMemAllocNodeParams *nodeParams);

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out);

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dptr);

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out);

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph, unsigned int defaultLaunchValue CUDART_SHIM_DEFAULT(0), unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, const struct cudaGraphEdgeData_st *dependencyData, size_t numDependencies, struct cudaGraphNodeParams *nodeParams);

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams);

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams);

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to, const struct cudaGraphEdgeData_st *edgeData, size_t numDependencies);

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to, const struct cudaGraphEdgeData_st *edgeData, size_t numDependencies);

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to, struct cudaGraphEdgeData_st *edgeData, size_t *numEdges);

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies, struct cudaGraphEdgeData_st *edgeData, size_t *pNumDependencies);

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes, struct cudaGraphEdgeData_st *edgeData, size_t *pNumDependentNodes);

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes);

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *pType);

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode, cudaGraph_t clonedGraph);

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, struct cudaGraphInstantiateParams_st *instantiateParams);

cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, struct cudaGraphInstantiateParams_st *instantiateParams);

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags);

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, struct cudaGraphExecUpdateResultInfo_st *resultInfo);

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int isEnabled);

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int *isEnabled);

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);

cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags);

cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr, cudaHostFn_t destroy, unsigned int initialRefcount, unsigned int flags);

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count CUDART_SHIM_DEFAULT(1));

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count CUDART_SHIM_DEFAULT(1));

cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count CUDART_SHIM_DEFAULT(1), unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count CUDART_SHIM_DEFAULT(1));

cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void *value);

cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void *value);

cudaError_t cudaDeviceGraphMemTrim(int device);

cudaError_t cudaGraphGetId(cudaGraph_t hGraph, unsigned int *graphID);

cudaError_t cudaGraphExecGetId(cudaGraphExec_t hGraphExec, unsigned int *graphID);

cudaError_t cudaGraphNodeGetContainingGraph(cudaGraphNode_t hNode, cudaGraph_t *phGraph);

cudaError_t cudaGraphNodeGetLocalId(cudaGraphNode_t hNode, unsigned int *nodeId);

cudaError_t cudaGraphNodeGetToolsId(cudaGraphNode_t hNode, unsigned long long *toolsNodeId);

cudaError_t cudaGraphNodeGetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams);

cudaError_t cudaGraphConditionalHandleCreate_v2(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph, cudaExecutionContext_t ctx CUDART_SHIM_DEFAULT(NULL), unsigned int defaultLaunchValue CUDART_SHIM_DEFAULT(0), unsigned int flags CUDART_SHIM_DEFAULT(0));

cudaError_t cudaLaunchKernel(const void *func, struct dim3 gridDim, struct dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);

cudaError_t cudaLaunchKernel_ptsz(const void *func, struct dim3 gridDim, struct dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);

cudaError_t cudaLaunchKernelExC(const struct cudaLaunchConfig_st *config, const void *func, void **args);

cudaError_t cudaLaunchKernelExC_ptsz(const struct cudaLaunchConfig_st *config, const void *func, void **args);

cudaError_t cudaLaunchCooperativeKernel(const void *func, struct dim3 gridDim, struct dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, struct dim3 gridDim, struct dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);

cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache cacheConfig);

cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig config);

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr);

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr);

cudaError_t cudaFuncGetName(const char **name, const void *func);

cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset, size_t *paramSize);

cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, cudaFuncAttribute attr, int value, int device);

cudaError_t cudaFuncGetParamCount(const void *func, size_t *paramCount);

void **__cudaRegisterFatBinary(void *fatCubin);

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);

void __cudaUnregisterFatBinary(void **fatCubinHandle);

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName, int thread_limit, struct dim3 *tid, struct dim3 *bid, struct dim3 *bDim, struct dim3 *gDim, int *wSize);

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext, size_t size, int constant, int global);

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress, const char *deviceName, int ext, size_t size, int constant, int global);

/**
 * Returns nonzero when the module is loaded and its `__managed__` host
 * pointers are set.
 */
char __cudaInitModule(void **fatCubinHandle);

/**
 * A host variable referenced from device code (unified-memory builds): it
 * has no device storage of its own, so there is nothing to record.
 */
void __cudaRegisterHostVar(void **fatCubinHandle, const char *deviceName, char *hostVar, size_t size);

/**
 * The host function/data tables of heterogeneous-memory builds. Not
 * declared in NVIDIA's headers (5 pointer-sized arguments, per its
 * binary); accepted and ignored: the driver resolves such references
 * through `cudaLibraryHostUniversalFunctionAndDataTable`, which nvcc 13 does
 * not emit for ordinary builds.
 */
void __cudaRegisterUnifiedTable(void **fatCubinHandle, void *functionTable, size_t functionWindowSize, void *dataTable, size_t dataWindowSize);

unsigned int __cudaPushCallConfiguration(struct dim3 gridDim, struct dim3 blockDim, size_t sharedMem, cudaStream_t stream);

cudaError_t __cudaPopCallConfiguration(struct dim3 *gridDim, struct dim3 *blockDim, size_t *sharedMem, void *stream);

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, struct dim3 gridDim, struct dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, struct dim3 gridDim, struct dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);

/**
 * NVIDIA's library exports this as a function that returns 0 and does
 * nothing else; so does ours.
 */
void *__cudaGetProcAddress(void);

cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, cudaJitOption *jitOptions, void **jitOptionsValues, unsigned int numJitOptions, cudaLibraryOption *libraryOptions, void **libraryOptionValues, unsigned int numLibraryOptions);

cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName, cudaJitOption *jitOptions, void **jitOptionsValues, unsigned int numJitOptions, cudaLibraryOption *libraryOptions, void **libraryOptionValues, unsigned int numLibraryOptions);

cudaError_t cudaLibraryUnload(cudaLibrary_t library);

cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library, const char *name);

cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name);

cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name);

cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library, const char *symbol);

cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib);

cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int numKernels, cudaLibrary_t lib);

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize);

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func, int numBlocks, int blockSize);

cudaError_t cudaOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func, const struct cudaLaunchConfig_st *launchConfig);

cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func, const struct cudaLaunchConfig_st *launchConfig);

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags, cudaDriverEntryPointQueryResult *driverStatus);

cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags, cudaDriverEntryPointQueryResult *driverStatus);

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags, cudaDriverEntryPointQueryResult *driverStatus CUDART_SHIM_DEFAULT(NULL));

cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags, cudaDriverEntryPointQueryResult *driverStatus);

cudaError_t cudaGetExportTable(const void **ppExportTable, const struct CUuuid_st *pExportTableId);

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);

cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location, cudaMemAllocationType type);

cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location, cudaMemAllocationType type);

cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location, cudaMemAllocationType type, cudaMemPool_t memPool);

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);

cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream);

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream);

cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream);

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);

cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps);

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool);

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void *value);

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void *value);

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList, size_t count);

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *flags, cudaMemPool_t memPool, struct cudaMemLocation *location);

cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool, cudaMemAllocationHandleType handleType, unsigned int flags);

cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool, void *shareableHandle, cudaMemAllocationHandleType handleType, unsigned int flags);

cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData, void *ptr);

cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData *exportData);

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr);

cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags);

cudaError_t cudaIpcCloseMemHandle(void *devPtr);

cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event);

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle);

cudaError_t cudaImportExternalMemory(cudaExternalMemory_t *extMem_out, const struct cudaExternalMemoryHandleDesc *memHandleDesc);

cudaError_t cudaExternalMemoryGetMappedBuffer(void **devPtr, cudaExternalMemory_t extMem, const struct cudaExternalMemoryBufferDesc *bufferDesc);

cudaError_t cudaExternalMemoryGetMappedMipmappedArray(cudaMipmappedArray_t *mipmap, cudaExternalMemory_t extMem, const struct cudaExternalMemoryMipmappedArrayDesc *mipmapDesc);

cudaError_t cudaDestroyExternalMemory(cudaExternalMemory_t extMem);

cudaError_t cudaImportExternalSemaphore(cudaExternalSemaphore_t *extSem_out, const struct cudaExternalSemaphoreHandleDesc *semHandleDesc);

cudaError_t cudaSignalExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray, const struct cudaExternalSemaphoreSignalParams *paramsArray, unsigned int numExtSems, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaSignalExternalSemaphoresAsync_ptsz(const cudaExternalSemaphore_t *extSemArray, const struct cudaExternalSemaphoreSignalParams *paramsArray, unsigned int numExtSems, cudaStream_t stream);

cudaError_t cudaWaitExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray, const struct cudaExternalSemaphoreWaitParams *paramsArray, unsigned int numExtSems, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaWaitExternalSemaphoresAsync_ptsz(const cudaExternalSemaphore_t *extSemArray, const struct cudaExternalSemaphoreWaitParams *paramsArray, unsigned int numExtSems, cudaStream_t stream);

cudaError_t cudaDestroyExternalSemaphore(cudaExternalSemaphore_t extSem);

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f);

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc, const struct cudaTextureDesc *pTexDesc, const struct cudaResourceViewDesc *pResViewDesc);

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject);

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject);

cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc, cudaTextureObject_t texObject);

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc);

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject);

cudaError_t cudaLogsRegisterCallback(cudaLogsCallback_t callbackFunc, void *userData, cudaLogsCallbackHandle *callback_out);

cudaError_t cudaLogsUnregisterCallback(cudaLogsCallbackHandle callback);

cudaError_t cudaLogsCurrent(cudaLogIterator *iterator_out, unsigned int flags);

cudaError_t cudaLogsDumpToFile(cudaLogIterator *iterator, const char *pathToFile, unsigned int flags);

cudaError_t cudaLogsDumpToMemory(cudaLogIterator *iterator, char *buffer, size_t *size, unsigned int flags);

cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t resource);

cudaError_t cudaGraphicsResourceSetMapFlags(cudaGraphicsResource_t resource, unsigned int flags);

cudaError_t cudaGraphicsMapResources(int count, cudaGraphicsResource_t *resources, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaGraphicsUnmapResources(int count, cudaGraphicsResource_t *resources, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaGraphicsResourceGetMappedPointer(void **devPtr, size_t *size, cudaGraphicsResource_t resource);

cudaError_t cudaGraphicsSubResourceGetMappedArray(cudaArray_t *array, cudaGraphicsResource_t resource, unsigned int arrayIndex, unsigned int mipLevel);

cudaError_t cudaGraphicsResourceGetMappedMipmappedArray(cudaMipmappedArray_t *mipmappedArray, cudaGraphicsResource_t resource);

cudaError_t cudaGLGetDevices(unsigned int *pCudaDeviceCount, int *pCudaDevices, unsigned int cudaDeviceCount, cudaGLDeviceList deviceList);

cudaError_t cudaGraphicsGLRegisterBuffer(cudaGraphicsResource_t *resource, GLuint buffer, unsigned int flags);

cudaError_t cudaGraphicsGLRegisterImage(cudaGraphicsResource_t *resource, GLuint image, GLenum target, unsigned int flags);

cudaError_t cudaGLSetGLDevice(int device);

cudaError_t cudaGLRegisterBufferObject(GLuint bufObj);

cudaError_t cudaGLUnregisterBufferObject(GLuint bufObj);

cudaError_t cudaGLMapBufferObject(void **devPtr, GLuint bufObj);

cudaError_t cudaGLMapBufferObjectAsync(void **devPtr, GLuint bufObj, cudaStream_t stream);

cudaError_t cudaGLUnmapBufferObject(GLuint bufObj);

cudaError_t cudaGLUnmapBufferObjectAsync(GLuint bufObj, cudaStream_t stream);

cudaError_t cudaGLSetBufferObjectMapFlags(GLuint bufObj, unsigned int flags);

cudaError_t cudaGraphicsEGLRegisterImage(cudaGraphicsResource_t *pCudaResource, EGLImageKHR image, unsigned int flags);

cudaError_t cudaGraphicsResourceGetMappedEglFrame(struct cudaEglFrame_st *eglFrame, cudaGraphicsResource_t resource, unsigned int index, unsigned int mipLevel);

cudaError_t cudaEventCreateFromEGLSync(cudaEvent_t *phEvent, EGLSyncKHR eglSync, unsigned int flags);

cudaError_t cudaEGLStreamConsumerConnect(cudaEglStreamConnection *conn, EGLStreamKHR eglStream);

cudaError_t cudaEGLStreamConsumerConnectWithFlags(cudaEglStreamConnection *conn, EGLStreamKHR eglStream, unsigned int flags);

cudaError_t cudaEGLStreamConsumerDisconnect(cudaEglStreamConnection *conn);

cudaError_t cudaEGLStreamConsumerAcquireFrame(cudaEglStreamConnection *conn, cudaGraphicsResource_t *pCudaResource, cudaStream_t *pStream, unsigned int timeout);

cudaError_t cudaEGLStreamConsumerReleaseFrame(cudaEglStreamConnection *conn, cudaGraphicsResource_t pCudaResource, cudaStream_t *pStream);

cudaError_t cudaEGLStreamProducerConnect(cudaEglStreamConnection *conn, EGLStreamKHR eglStream, EGLint width, EGLint height);

cudaError_t cudaEGLStreamProducerDisconnect(cudaEglStreamConnection *conn);

cudaError_t cudaEGLStreamProducerPresentFrame(cudaEglStreamConnection *conn, struct cudaEglFrame_st eglframe, cudaStream_t *pStream);

cudaError_t cudaEGLStreamProducerReturnFrame(cudaEglStreamConnection *conn, struct cudaEglFrame_st *eglframe, cudaStream_t *pStream);

cudaError_t cudaVDPAUGetDevice(int *device, VdpDevice vdpDevice, VdpGetProcAddress vdpGetProcAddress);

cudaError_t cudaVDPAUSetVDPAUDevice(int device, VdpDevice vdpDevice, VdpGetProcAddress vdpGetProcAddress);

cudaError_t cudaGraphicsVDPAURegisterVideoSurface(cudaGraphicsResource_t *resource, VdpVideoSurface vdpSurface, unsigned int flags);

cudaError_t cudaGraphicsVDPAURegisterOutputSurface(cudaGraphicsResource_t *resource, VdpOutputSurface vdpSurface, unsigned int flags);

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset CUDART_SHIM_DEFAULT(0), cudaMemcpyKind kind CUDART_SHIM_DEFAULT(cudaMemcpyHostToDevice));

cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind);

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset CUDART_SHIM_DEFAULT(0), cudaMemcpyKind kind CUDART_SHIM_DEFAULT(cudaMemcpyDeviceToHost));

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind);

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind, cudaStream_t stream CUDART_SHIM_DEFAULT(0));

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t cudaDeviceGetDevResource(int device, struct cudaDevResource *resource, cudaDevResourceType type);

cudaError_t cudaDevSmResourceSplitByCount(struct cudaDevResource *result, unsigned int *nbGroups, const struct cudaDevResource *input, struct cudaDevResource *remaining, unsigned int flags, unsigned int minCount);

cudaError_t cudaDevSmResourceSplit(struct cudaDevResource *result, unsigned int nbGroups, const struct cudaDevResource *input, struct cudaDevResource *remainder, unsigned int flags, struct cudaDevSmResourceGroupParams *groupParams);

cudaError_t cudaDevResourceGenerateDesc(cudaDevResourceDesc_t *phDesc, struct cudaDevResource *resources, unsigned int nbResources);

cudaError_t cudaGreenCtxCreate(cudaExecutionContext_t *phCtx, cudaDevResourceDesc_t desc, int device, unsigned int flags);

cudaError_t cudaDeviceGetExecutionCtx(cudaExecutionContext_t *ctx, int device);

cudaError_t cudaExecutionCtxDestroy(cudaExecutionContext_t ctx);

cudaError_t cudaExecutionCtxGetDevResource(cudaExecutionContext_t ctx, struct cudaDevResource *resource, cudaDevResourceType type);

cudaError_t cudaExecutionCtxGetDevice(int *device, cudaExecutionContext_t ctx);

cudaError_t cudaExecutionCtxGetId(cudaExecutionContext_t ctx, unsigned long long *ctxId);

cudaError_t cudaExecutionCtxStreamCreate(cudaStream_t *phStream, cudaExecutionContext_t ctx, unsigned int flags, int priority);

cudaError_t cudaExecutionCtxRecordEvent(cudaExecutionContext_t ctx, cudaEvent_t event);

cudaError_t cudaExecutionCtxWaitEvent(cudaExecutionContext_t ctx, cudaEvent_t event);

cudaError_t cudaExecutionCtxSynchronize(cudaExecutionContext_t ctx);

cudaError_t cudaStreamGetDevResource(cudaStream_t hStream, struct cudaDevResource *resource, cudaDevResourceType type);

cudaError_t cudaStreamGetDevResource_ptsz(cudaStream_t hStream, struct cudaDevResource *resource, cudaDevResourceType type);

cudaError_t cudaSubgridCreate(void);

cudaError_t cudaSubgridWorkerGridCreate(void);

cudaError_t cudaSubgridWorksetCreate(void);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

/* Other names NVIDIA's headers give to the same types and values. */
typedef cudaLaunchAttributeValue cudaStreamAttrValue;
typedef cudaLaunchAttributeValue cudaKernelNodeAttrValue;
typedef cudaLaunchAttributeID cudaKernelNodeAttrID;
#define cudaKernelNodeAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaKernelNodeAttributeCooperative cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority cudaLaunchAttributePriority
#define cudaKernelNodeAttributeClusterDimension cudaLaunchAttributeClusterDimension
#define cudaKernelNodeAttributeClusterSchedulingPolicyPreference cudaLaunchAttributeClusterSchedulingPolicyPreference
#define cudaKernelNodeAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaKernelNodeAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaKernelNodeAttributePreferredSharedMemoryCarveout cudaLaunchAttributePreferredSharedMemoryCarveout
#define cudaKernelNodeAttributeDeviceUpdatableKernelNode cudaLaunchAttributeDeviceUpdatableKernelNode
#define cudaKernelNodeAttributeNvlinkUtilCentricScheduling cudaLaunchAttributeNvlinkUtilCentricScheduling

/* Texture and surface object types (texture_types.h, surface_types.h). */
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceTypeCubemap 0x0C
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2
#define cudaSurfaceTypeCubemapLayered 0xFC

/* The constructors of driver_functions.h. */
static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) {
  struct cudaPitchedPtr s;
  s.ptr = d;
  s.pitch = p;
  s.xsize = xsz;
  s.ysize = ysz;
  return s;
}

static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z) {
  struct cudaPos p;
  p.x = x;
  p.y = y;
  p.z = z;
  return p;
}

static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) {
  struct cudaExtent e;
  e.width = w;
  e.height = h;
  e.depth = d;
  return e;
}

#if defined(__cplusplus)
/* C++ overloads, as cuda_runtime.h has them: allocations into any pointer
 * type, pinned allocation with flags, events with flags. */
template <class T> static inline cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return ::cudaMalloc((void **)(void *)devPtr, size);
}
static inline cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc(ptr, size, flags);
}
template <class T> static inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0) {
  return ::cudaMallocHost((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags) {
  return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}
template <class T> static inline cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T> static inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height) {
  return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}
template <class T> static inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync((void **)(void *)devPtr, size, stream);
}
template <class T> static inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync((void **)(void *)devPtr, size, memPool, stream);
}
template <class T> static inline cudaError_t cudaMallocFromPoolAsync(T **devPtr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync((void **)(void *)devPtr, size, memPool, stream);
}
template <class T> static inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr, size_t length = 0, unsigned int flags = cudaMemAttachSingle) {
  return ::cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
  return ::cudaEventCreateWithFlags(event, flags);
}
#endif

/* The shim's own API (cudartShim*). */
#include "cudart_shim_ext.h"

#endif  /* CUDART_SHIM_H */
