//! CUDA 12.9's layouts, where they differ from the runtime's (13.x). The
//! CUDA 12 exports (src/api/abi12.rs) convert between these and the
//! runtime's types; nothing else uses them. Layouts from NVIDIA's 12.9
//! headers (tests/data/abi/headers-12.9.txt, `field` lines); tests/abi12.rs
//! checks every offset against that file.

use super::device::cudaDeviceProp;
use super::handles::cudaUUID_t;
use super::memory::cudaPointerAttributes;
use super::interop::{cudaExternalSemaphoreSignalParams, cudaExternalSemaphoreWaitParams};
use super::{cudaCpuDeviceId, cudaMemLocation, cudaMemLocationTypeDevice, cudaMemLocationTypeHost, cudaMemoryType, cudaStream_t, dim3};
use super::error::cudaError_t;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};

/// The CUDA version the 12 library implements and reports (`cudaRuntimeGetVersion`).
pub const RUNTIME_VERSION: c_int = 12090;

/// C: `struct cudaPointerAttributes`, CUDA 12.9 layout (24 bytes): 13.x's
/// first four fields; 13.0 appended the rest.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaPointerAttributes12 {
    pub r#type: cudaMemoryType,
    pub device: c_int,
    pub devicePointer: *mut c_void,
    pub hostPointer: *mut c_void,
}

impl From<&cudaPointerAttributes> for cudaPointerAttributes12 {
    fn from(a: &cudaPointerAttributes) -> Self {
        Self { r#type: a.r#type, device: a.device, devicePointer: a.devicePointer, hostPointer: a.hostPointer }
    }
}

/// CUDA 12's device-number argument of `cudaMemPrefetchAsync` and
/// `cudaMemAdvise` as the location their 13 forms take: `cudaCpuDeviceId`
/// is the host, any other number a device (the runtime checks it).
pub fn location_of_device(device: c_int) -> cudaMemLocation {
    if device == cudaCpuDeviceId {
        cudaMemLocation { r#type: cudaMemLocationTypeHost, id: 0 }
    } else {
        cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: device }
    }
}

/// C: `struct cudaDeviceProp`, CUDA 12.9 layout (1032 bytes): 13.x's fields
/// minus the NUMA/MPS ones it added, plus the 8 fields 13.0 dropped.
/// `$dst.f = $src.f` for every field 12.9's and 13.x's `cudaDeviceProp`
/// share (each version's other fields are its own).
macro_rules! copy_shared_fields {
    ($dst:ident, $src:ident) => {
        copy_shared_fields!(@ $dst, $src;
        name, uuid, luid, luidDeviceNodeMask, totalGlobalMem, sharedMemPerBlock, regsPerBlock, warpSize,
        memPitch, maxThreadsPerBlock, maxThreadsDim, maxGridSize, totalConstMem, major, minor,
        textureAlignment, texturePitchAlignment, multiProcessorCount, integrated, canMapHostMemory,
        maxTexture1D, maxTexture1DMipmap, maxTexture2D, maxTexture2DMipmap, maxTexture2DLinear,
        maxTexture2DGather, maxTexture3D, maxTexture3DAlt, maxTextureCubemap, maxTexture1DLayered,
        maxTexture2DLayered, maxTextureCubemapLayered, maxSurface1D, maxSurface2D, maxSurface3D,
        maxSurface1DLayered, maxSurface2DLayered, maxSurfaceCubemap, maxSurfaceCubemapLayered,
        surfaceAlignment, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver,
        asyncEngineCount, unifiedAddressing, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize,
        maxThreadsPerMultiProcessor, streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported,
        sharedMemPerMultiprocessor, regsPerMultiprocessor, managedMemory, isMultiGpuBoard,
        multiGpuBoardGroupID, hostNativeAtomicSupported, pageableMemoryAccess, concurrentManagedAccess,
        computePreemptionSupported, canUseHostPointerForRegisteredMem, cooperativeLaunch,
        sharedMemPerBlockOptin, pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost,
        maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize, reservedSharedMemPerBlock,
        hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported,
        timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported,
        gpuDirectRDMAFlushWritesOptions, gpuDirectRDMAWritesOrdering, memoryPoolSupportedHandleTypes,
        deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers
        )
    };
    (@ $dst:ident, $src:ident; $($f:ident),*) => {
        $( $dst.$f = $src.$f; )*
    };
}

/// Not `Copy`: a copy need not keep the zeroed padding `prefix` reads.
#[repr(C)]
pub struct cudaDeviceProp12 {
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
    pub clockRate: c_int,
    pub totalConstMem: usize,
    pub major: c_int,
    pub minor: c_int,
    pub textureAlignment: usize,
    pub texturePitchAlignment: usize,
    pub deviceOverlap: c_int,
    pub multiProcessorCount: c_int,
    pub kernelExecTimeoutEnabled: c_int,
    pub integrated: c_int,
    pub canMapHostMemory: c_int,
    pub computeMode: c_int,
    pub maxTexture1D: c_int,
    pub maxTexture1DMipmap: c_int,
    pub maxTexture1DLinear: c_int,
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
    pub memoryClockRate: c_int,
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
    pub singleToDoublePrecisionPerfRatio: c_int,
    pub pageableMemoryAccess: c_int,
    pub concurrentManagedAccess: c_int,
    pub computePreemptionSupported: c_int,
    pub canUseHostPointerForRegisteredMem: c_int,
    pub cooperativeLaunch: c_int,
    pub cooperativeMultiDeviceLaunch: c_int,
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
    pub reserved: [c_int; 63],
}

/// The fields 13.0 dropped, which 12.9 still fills from device attributes.
#[derive(Clone, Copy, Default, Debug)]
pub struct DroppedProps {
    pub clockRate: c_int,
    pub deviceOverlap: c_int,
    pub kernelExecTimeoutEnabled: c_int,
    pub computeMode: c_int,
    pub maxTexture1DLinear: c_int,
    pub memoryClockRate: c_int,
    pub singleToDoublePrecisionPerfRatio: c_int,
    pub cooperativeMultiDeviceLaunch: c_int,
}

/// How many bytes of `cudaDeviceProp12` each form of `cudaGetDeviceProperties`
/// writes: the plain form stops after `reservedSharedMemPerBlock` (an old
/// caller's buffer may end there), `_v2` before `reserved`. Neither touches
/// `reserved`. Measured in NVIDIA's 12.9 library (docs/CUDA12.md).
pub const DEVICE_PROP_PLAIN_BYTES: usize = 728;
pub const DEVICE_PROP_V2_BYTES: usize = 780;

impl cudaDeviceProp12 {
    /// 12.9's struct from the runtime's and the dropped fields' values.
    pub fn from_runtime(p: &cudaDeviceProp, d: DroppedProps) -> Self {
        // Zeroed first and then assigned field by field, so the padding
        // (after `luidDeviceNodeMask`) is zero bytes that `prefix` may read.
        // SAFETY: all-zero is a valid value of every field.
        let mut s: Self = unsafe { std::mem::zeroed() };
        copy_shared_fields!(s, p);
        s.clockRate = d.clockRate;
        s.deviceOverlap = d.deviceOverlap;
        s.kernelExecTimeoutEnabled = d.kernelExecTimeoutEnabled;
        s.computeMode = d.computeMode;
        s.maxTexture1DLinear = d.maxTexture1DLinear;
        s.memoryClockRate = d.memoryClockRate;
        s.singleToDoublePrecisionPerfRatio = d.singleToDoublePrecisionPerfRatio;
        s.cooperativeMultiDeviceLaunch = d.cooperativeMultiDeviceLaunch;
        s
    }

    /// The struct's first `len` bytes (at most its size).
    pub fn prefix(&self, len: usize) -> &[u8] {
        // SAFETY: a repr(C) struct of integers and byte arrays; its padding
        // is initialized, because every value is built by `from_runtime`
        // (zeroed, then field assignments, which leave padding alone).
        let all = unsafe { std::slice::from_raw_parts((self as *const Self).cast::<u8>(), size_of::<Self>()) };
        &all[..len.min(all.len())]
    }
}

/// C: `struct cudaExternalSemaphoreSignalParams_v1` (12.9 only, 32 bytes):
/// the parameters of 13's struct without its reserved words. `params` is
/// `fence.value`, `nvSciSync` (a pointer or a 64-bit value) and
/// `keyedMutex.key`, each 8 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaExternalSemaphoreSignalParams_v1 {
    pub params: [u64; 3],
    pub flags: c_uint,
}

/// C: `struct cudaExternalSemaphoreWaitParams_v1` (12.9 only, 40 bytes):
/// `params` as above plus `keyedMutex.timeoutMs` (and 4 bytes of padding).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaExternalSemaphoreWaitParams_v1 {
    pub params: [u64; 4],
    pub flags: c_uint,
}

/// 13's struct from a `_v1` one: the `_v1` parameters are a prefix of 13's
/// (the same offsets, tests/data/abi/headers-12.9.txt against 13.0's), the
/// reserved words zero.
fn widen<V13>(params: &[u64], flags: c_uint, set_flags: impl FnOnce(&mut V13, c_uint)) -> V13 {
    // SAFETY: V13 is one of the runtime's semaphore parameter structs:
    // integers, pointers and unions of them, for which all-zero is valid.
    let mut out: V13 = unsafe { std::mem::zeroed() };
    debug_assert!(size_of_val(params) <= size_of::<V13>());
    // SAFETY: `params` is a prefix of V13's layout (see above); plain data.
    unsafe { std::ptr::copy_nonoverlapping(params.as_ptr().cast::<u8>(), (&raw mut out).cast::<u8>(), size_of_val(params)) };
    set_flags(&mut out, flags);
    out
}

impl From<&cudaExternalSemaphoreSignalParams_v1> for cudaExternalSemaphoreSignalParams {
    fn from(p: &cudaExternalSemaphoreSignalParams_v1) -> Self {
        widen(&p.params, p.flags, |o: &mut Self, f| o.flags = f)
    }
}

impl From<&cudaExternalSemaphoreWaitParams_v1> for cudaExternalSemaphoreWaitParams {
    fn from(p: &cudaExternalSemaphoreWaitParams_v1) -> Self {
        widen(&p.params, p.flags, |o: &mut Self, f| o.flags = f)
    }
}

/// C: `struct cudaLaunchParams` (12.9 only, 56 bytes), the elements of
/// `cudaLaunchCooperativeKernelMultiDevice`'s list.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaLaunchParams {
    pub func: *mut c_void,
    pub gridDim: dim3,
    pub blockDim: dim3,
    pub args: *mut *mut c_void,
    pub sharedMem: usize,
    pub stream: cudaStream_t,
}

/// `cudaChooseDevice`'s wish list from a CUDA 12 program: the fields both
/// versions have (the ones 13.0 dropped are not among those it matches).
impl From<&cudaDeviceProp12> for cudaDeviceProp {
    fn from(p: &cudaDeviceProp12) -> Self {
        let mut s = Self::default();
        copy_shared_fields!(s, p);
        s
    }
}

/// Plain-data structs for which all-zero bytes are a valid value: the
/// runtime's structs that 12.9 has shorter (a 12.9 input is copied over a
/// zeroed one; an answer is built in a zeroed one and cut to 12.9's size).
///
/// # Safety
/// Implement only for types of integers, raw pointers, and arrays, structs
/// and unions of those.
pub unsafe trait Zeroed: Sized {
    fn zeroed() -> Self {
        // SAFETY: the trait's contract.
        unsafe { std::mem::zeroed() }
    }
}
// SAFETY: all five are plain C data (types/texture.rs, types/interop.rs).
unsafe impl Zeroed for super::texture::cudaResourceDesc {}
unsafe impl Zeroed for super::texture::cudaResourceViewDesc {}
unsafe impl Zeroed for super::interop::cudaExternalMemoryHandleDesc {}
unsafe impl Zeroed for super::interop::cudaExternalMemoryBufferDesc {}
unsafe impl Zeroed for super::interop::cudaExternalMemoryMipmappedArrayDesc {}
unsafe impl Zeroed for super::interop::cudaExternalSemaphoreHandleDesc {}

/// 12.9's sizes of the structs 13.0 lengthened without moving a field
/// (tests/data/abi/headers-12.9.txt; the `field` section of cuda12-vs-13.txt).
pub const RESOURCE_DESC_BYTES: usize = 64;
pub const RESOURCE_VIEW_DESC_BYTES: usize = 48;
pub const EXTERNAL_MEMORY_HANDLE_DESC_BYTES: usize = 40;
pub const EXTERNAL_MEMORY_BUFFER_DESC_BYTES: usize = 24;
pub const EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_BYTES: usize = 64;
pub const EXTERNAL_SEMAPHORE_HANDLE_DESC_BYTES: usize = 32;

/// Error codes CUDA 12.9 does not have (13.x added them): its
/// `cudaGetErrorName` and `cudaGetErrorString` call them unrecognized
/// (tests/data/abi/answers-12.9.tsv). Every other code reads the same in
/// 12.9 and 13.x.
const ERRORS_AFTER_12_9: [i32; 5] = [10, 227, 917, 918, 919];

const UNRECOGNIZED: &CStr = c"unrecognized error code";

/// 12.9's `cudaGetErrorName`.
pub fn error_name_c(e: cudaError_t) -> &'static CStr {
    if ERRORS_AFTER_12_9.contains(&e.0) { UNRECOGNIZED } else { super::error_names::name_c(e) }
}

/// 12.9's `cudaGetErrorString`.
pub fn error_string_c(e: cudaError_t) -> &'static CStr {
    if ERRORS_AFTER_12_9.contains(&e.0) { UNRECOGNIZED } else { super::error_names::string_c(e) }
}

/// `cudaLaunchCooperativeKernelMultiDevice`'s flags (12.9's driver_types.h):
/// each device's kernel waits only for its own stream's prior work
/// (`NoPreSync`), and later work in each stream waits only for that
/// stream's kernel (`NoPostSync`). The driver's numbers.
pub const cudaCooperativeLaunchMultiDeviceNoPreSync: c_uint = 0x01;
pub const cudaCooperativeLaunchMultiDeviceNoPostSync: c_uint = 0x02;

/// Enumerator values CUDA 13.x added that a CUDA 12 program cannot mean:
/// 12.9's own headers end before them (tests/data/abi/headers-12.9.txt
/// against 13.5's driver_types.h). The 12 forms refuse them as 12.9
/// refuses a value its enum lacks (`cudaErrorInvalidValue`, the answer of
/// 13.0's library to unknown values of these enums on H100; 12.9's own
/// answers are probed on the GPU by tests/cu12/abi12_probe.c). Values
/// neither version knows are left to the runtime, which refuses them.
pub mod known {
    use super::super::{
        cudaGraphNodeType, cudaLaunchAttributeID, cudaLimit, cudaMemLocationType, cudaMemPoolAttr,
        cudaMemPoolProps,
    };

    /// 13.x's `cudaLimitPerBlockMemorySize` (10).
    pub fn limit(l: cudaLimit) -> bool {
        l.0 != 10
    }

    /// 13.x's pool attributes 9..=15 (`AllocationType` ... `LocalityDomainId`).
    pub fn pool_attr(a: cudaMemPoolAttr) -> bool {
        !(9..=15).contains(&a.0)
    }

    /// 13.x's launch attributes 16..=18 (`NvlinkUtilCentricScheduling`,
    /// `PortableClusterSizeMode`, `SharedMemoryMode`).
    pub fn launch_attr(a: cudaLaunchAttributeID) -> bool {
        !(16..=18).contains(&a.0)
    }

    /// 13.x's location types 5 and 6 (`Invisible`, `DeviceLocalityDomain`).
    /// 0 is 12.9's `Invalid` and 13's `None`: the same number, refused by
    /// both where a location is required.
    pub fn location_type(t: cudaMemLocationType) -> bool {
        !(5..=6).contains(&t.0)
    }

    /// A pool's properties: its location type. (Its allocation type goes
    /// to the driver: 12.9 creates a pool of 13.0's managed type on driver
    /// 580, H100, tests/cu12/abi12_probe.c.)
    pub fn pool_props(p: &cudaMemPoolProps) -> bool {
        location_type(p.location.r#type)
    }

    /// 13.x's node types 14..=17 (`MemcpyBatch`, `Reserved16`,
    /// `ExternalEngine`); 12.9's `cudaGraphNodeTypeCount` is 14.
    pub fn node_type(t: cudaGraphNodeType) -> bool {
        !(14..=17).contains(&t.0)
    }
}

/// 12.9's and the runtime's sizes of the union member of
/// `cudaGraphNodeParams` that node type `t` uses, where 13.x appended
/// fields to that member (an execution context, a kernel's function type,
/// a host node's sync mode): kernel 56 (13.5: 72), memset 40 (48), host 16
/// (32), event record 8 (16), semaphore signal and wait 24 (32),
/// conditional 24 (32). `None`: the member has the same size in both
/// (tests/data/abi/struct-sizes-*.txt).
pub fn node_member_bytes(t: super::cudaGraphNodeType) -> Option<(usize, usize)> {
    use super::*;
    Some(match t {
        cudaGraphNodeTypeKernel => (56, size_of::<cudaKernelNodeParamsV2>()),
        cudaGraphNodeTypeMemset => (40, size_of::<cudaMemsetParamsV2>()),
        cudaGraphNodeTypeHost => (16, size_of::<cudaHostNodeParamsV2>()),
        cudaGraphNodeTypeEventRecord => (8, size_of::<cudaEventRecordNodeParams>()),
        cudaGraphNodeTypeExtSemaphoreSignal => (24, size_of::<cudaExternalSemaphoreSignalNodeParamsV2>()),
        cudaGraphNodeTypeExtSemaphoreWait => (24, size_of::<cudaExternalSemaphoreWaitNodeParamsV2>()),
        cudaGraphNodeTypeConditional => (24, size_of::<cudaConditionalNodeParams>()),
        _ => return None,
    })
}

/// Offset of the union in `cudaGraphNodeParams` (after `type` and
/// `reserved0[3]`), in 12.9 and 13.x alike.
pub const NODE_PARAMS_UNION_OFFSET: usize = 16;

/// A CUDA 12 program's `cudaGraphNodeParams` as the runtime's: the same
/// 256 bytes. The bytes 13.x added to the type's member are spare bytes of
/// the union in 12.9, but 12.9's runtime does not ignore them: with any of
/// them set it answers `cudaErrorInvalidValue` (measured for a kernel
/// member on an H100, tests/cu12/abi12_probe.c), so they reach the runtime
/// only as zeros, never as 13's context or function type. A 13-only node
/// type is `cudaErrorInvalidValue` too.
pub fn node_params_from_12_9(p: &super::cudaGraphNodeParams) -> super::CudaResult<super::cudaGraphNodeParams> {
    if !known::node_type(p.r#type) {
        return Err(super::cudaErrorInvalidValue);
    }
    if let Some((n12, n13)) = node_member_bytes(p.r#type) {
        // SAFETY: `p` is a plain-data 256-byte struct and the range lies in
        // its union (16..248).
        let tail = unsafe { std::slice::from_raw_parts((p as *const super::cudaGraphNodeParams).cast::<u8>().add(NODE_PARAMS_UNION_OFFSET + n12), n13 - n12) };
        if tail.iter().any(|&b| b != 0) {
            return Err(super::cudaErrorInvalidValue);
        }
    }
    Ok(*p)
}

/// The runtime's answer in a CUDA 12 program's struct: what the add call
/// wrote (an allocation's address, a conditional node's graphs) lies in
/// 12.9's part of the member, which is copied back; the program's other
/// bytes stay as they were.
pub fn node_params_back_to_12_9(ours: &super::cudaGraphNodeParams, theirs: &mut super::cudaGraphNodeParams) {
    let n = NODE_PARAMS_UNION_OFFSET + node_member_bytes(ours.r#type).map_or(232, |(n12, _)| n12);
    // SAFETY: both are live 256-byte plain-data structs and n <= 248.
    unsafe { std::ptr::copy_nonoverlapping((ours as *const super::cudaGraphNodeParams).cast::<u8>(), (theirs as *mut super::cudaGraphNodeParams).cast::<u8>(), n) };
}
