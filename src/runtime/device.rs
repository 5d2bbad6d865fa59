//! Device management (the runtime API's "Device Management" section).

use super::context::{self, enter};
use super::state::runtime;
use super::{non_null, out_first, required, value_first};
use crate::driver::CUuuid;
use crate::types::*;
use std::ffi::{c_char, c_int, c_uint, c_void};

/// `cudaGetDeviceCount`.
pub fn count(out: Option<&mut c_int>) -> CudaResult {
    value_first(out, runtime().map(|rt| rt.count()))
}

/// `cudaGetDevice`.
pub fn current(out: Option<&mut c_int>) -> CudaResult {
    value_first(out, context::current_device())
}

fn attr(a: c_int, cu_dev: crate::driver::CUdevice) -> CudaResult<c_int> {
    let mut v = 0;
    cu!(cuDeviceGetAttribute(&mut v, a, cu_dev))?;
    Ok(v)
}

/// `cudaDeviceGetAttribute`: runtime and driver attribute numbers agree,
/// so the value passes through; the driver rejects unknown attributes.
/// Values are fixed for the life of the process, so each is asked of the
/// driver once per device and then served from the device's cache.
pub fn attribute(value: Option<&mut c_int>, a: cudaDeviceAttr, ordinal: c_int) -> CudaResult {
    let value = required(value)?;
    let d = runtime()?.device(ordinal)?;
    if let Some(v) = d.cached_attribute(a.0) {
        *value = v;
        return Ok(());
    }
    let v = attr(a.0, d.cu)?;
    d.cache_attribute(a.0, v);
    *value = v;
    Ok(())
}

/// `cudaGetDeviceProperties`: every field of the CUDA 13.0 struct, from the
/// driver's attributes, name, UUID, LUID and total memory.
pub fn properties(p: Option<&mut cudaDeviceProp>, ordinal: c_int) -> CudaResult {
    let p = required(p)?;
    let d = runtime()?.device(ordinal)?;
    let dev = d.cu;
    let a = |x: cudaDeviceAttr| attr(x.0, dev);
    let mut prop = cudaDeviceProp::default();
    cu!(cuDeviceGetName(prop.name.as_mut_ptr(), prop.name.len() as c_int, dev))?;
    let mut uuid = CUuuid::default();
    cu!(cuDeviceGetUuid(&mut uuid, dev))?;
    prop.uuid.bytes = uuid.bytes;
    // LUIDs exist on Windows only; the driver reports "not supported" here.
    let _ = cu!(cuDeviceGetLuid(prop.luid.as_mut_ptr(), &mut prop.luidDeviceNodeMask, dev));
    cu!(cuDeviceTotalMem(&mut prop.totalGlobalMem, dev))?;
    prop.sharedMemPerBlock = a(cudaDevAttrMaxSharedMemoryPerBlock)? as usize;
    prop.regsPerBlock = a(cudaDevAttrMaxRegistersPerBlock)?;
    prop.warpSize = a(cudaDevAttrWarpSize)?;
    prop.memPitch = a(cudaDevAttrMaxPitch)? as c_uint as usize;
    prop.maxThreadsPerBlock = a(cudaDevAttrMaxThreadsPerBlock)?;
    prop.maxThreadsDim = [a(cudaDevAttrMaxBlockDimX)?, a(cudaDevAttrMaxBlockDimY)?, a(cudaDevAttrMaxBlockDimZ)?];
    prop.maxGridSize = [a(cudaDevAttrMaxGridDimX)?, a(cudaDevAttrMaxGridDimY)?, a(cudaDevAttrMaxGridDimZ)?];
    prop.totalConstMem = a(cudaDevAttrTotalConstantMemory)? as c_uint as usize;
    prop.major = a(cudaDevAttrComputeCapabilityMajor)?;
    prop.minor = a(cudaDevAttrComputeCapabilityMinor)?;
    prop.textureAlignment = a(cudaDevAttrTextureAlignment)? as usize;
    prop.texturePitchAlignment = a(cudaDevAttrTexturePitchAlignment)? as usize;
    prop.multiProcessorCount = a(cudaDevAttrMultiProcessorCount)?;
    prop.integrated = a(cudaDevAttrIntegrated)?;
    prop.canMapHostMemory = a(cudaDevAttrCanMapHostMemory)?;
    prop.maxTexture1D = a(cudaDevAttrMaxTexture1DWidth)?;
    prop.maxTexture1DMipmap = a(cudaDevAttrMaxTexture1DMipmappedWidth)?;
    prop.maxTexture2D = [a(cudaDevAttrMaxTexture2DWidth)?, a(cudaDevAttrMaxTexture2DHeight)?];
    prop.maxTexture2DMipmap = [a(cudaDevAttrMaxTexture2DMipmappedWidth)?, a(cudaDevAttrMaxTexture2DMipmappedHeight)?];
    prop.maxTexture2DLinear = [
        a(cudaDevAttrMaxTexture2DLinearWidth)?,
        a(cudaDevAttrMaxTexture2DLinearHeight)?,
        a(cudaDevAttrMaxTexture2DLinearPitch)?,
    ];
    prop.maxTexture2DGather = [a(cudaDevAttrMaxTexture2DGatherWidth)?, a(cudaDevAttrMaxTexture2DGatherHeight)?];
    prop.maxTexture3D =
        [a(cudaDevAttrMaxTexture3DWidth)?, a(cudaDevAttrMaxTexture3DHeight)?, a(cudaDevAttrMaxTexture3DDepth)?];
    prop.maxTexture3DAlt =
        [a(cudaDevAttrMaxTexture3DWidthAlt)?, a(cudaDevAttrMaxTexture3DHeightAlt)?, a(cudaDevAttrMaxTexture3DDepthAlt)?];
    prop.maxTextureCubemap = a(cudaDevAttrMaxTextureCubemapWidth)?;
    prop.maxTexture1DLayered = [a(cudaDevAttrMaxTexture1DLayeredWidth)?, a(cudaDevAttrMaxTexture1DLayeredLayers)?];
    prop.maxTexture2DLayered = [
        a(cudaDevAttrMaxTexture2DLayeredWidth)?,
        a(cudaDevAttrMaxTexture2DLayeredHeight)?,
        a(cudaDevAttrMaxTexture2DLayeredLayers)?,
    ];
    prop.maxTextureCubemapLayered =
        [a(cudaDevAttrMaxTextureCubemapLayeredWidth)?, a(cudaDevAttrMaxTextureCubemapLayeredLayers)?];
    prop.maxSurface1D = a(cudaDevAttrMaxSurface1DWidth)?;
    prop.maxSurface2D = [a(cudaDevAttrMaxSurface2DWidth)?, a(cudaDevAttrMaxSurface2DHeight)?];
    prop.maxSurface3D =
        [a(cudaDevAttrMaxSurface3DWidth)?, a(cudaDevAttrMaxSurface3DHeight)?, a(cudaDevAttrMaxSurface3DDepth)?];
    prop.maxSurface1DLayered = [a(cudaDevAttrMaxSurface1DLayeredWidth)?, a(cudaDevAttrMaxSurface1DLayeredLayers)?];
    prop.maxSurface2DLayered = [
        a(cudaDevAttrMaxSurface2DLayeredWidth)?,
        a(cudaDevAttrMaxSurface2DLayeredHeight)?,
        a(cudaDevAttrMaxSurface2DLayeredLayers)?,
    ];
    prop.maxSurfaceCubemap = a(cudaDevAttrMaxSurfaceCubemapWidth)?;
    prop.maxSurfaceCubemapLayered =
        [a(cudaDevAttrMaxSurfaceCubemapLayeredWidth)?, a(cudaDevAttrMaxSurfaceCubemapLayeredLayers)?];
    prop.surfaceAlignment = a(cudaDevAttrSurfaceAlignment)? as usize;
    prop.concurrentKernels = a(cudaDevAttrConcurrentKernels)?;
    prop.ECCEnabled = a(cudaDevAttrEccEnabled)?;
    prop.pciBusID = a(cudaDevAttrPciBusId)?;
    prop.pciDeviceID = a(cudaDevAttrPciDeviceId)?;
    prop.pciDomainID = a(cudaDevAttrPciDomainId)?;
    prop.tccDriver = a(cudaDevAttrTccDriver)?;
    prop.asyncEngineCount = a(cudaDevAttrAsyncEngineCount)?;
    prop.unifiedAddressing = a(cudaDevAttrUnifiedAddressing)?;
    prop.memoryBusWidth = a(cudaDevAttrGlobalMemoryBusWidth)?;
    prop.l2CacheSize = a(cudaDevAttrL2CacheSize)?;
    prop.persistingL2CacheMaxSize = a(cudaDevAttrMaxPersistingL2CacheSize)?;
    prop.maxThreadsPerMultiProcessor = a(cudaDevAttrMaxThreadsPerMultiProcessor)?;
    prop.streamPrioritiesSupported = a(cudaDevAttrStreamPrioritiesSupported)?;
    prop.globalL1CacheSupported = a(cudaDevAttrGlobalL1CacheSupported)?;
    prop.localL1CacheSupported = a(cudaDevAttrLocalL1CacheSupported)?;
    prop.sharedMemPerMultiprocessor = a(cudaDevAttrMaxSharedMemoryPerMultiprocessor)? as usize;
    prop.regsPerMultiprocessor = a(cudaDevAttrMaxRegistersPerMultiprocessor)?;
    prop.managedMemory = a(cudaDevAttrManagedMemory)?;
    prop.isMultiGpuBoard = a(cudaDevAttrIsMultiGpuBoard)?;
    prop.multiGpuBoardGroupID = a(cudaDevAttrMultiGpuBoardGroupID)?;
    prop.hostNativeAtomicSupported = a(cudaDevAttrHostNativeAtomicSupported)?;
    prop.pageableMemoryAccess = a(cudaDevAttrPageableMemoryAccess)?;
    prop.concurrentManagedAccess = a(cudaDevAttrConcurrentManagedAccess)?;
    prop.computePreemptionSupported = a(cudaDevAttrComputePreemptionSupported)?;
    prop.canUseHostPointerForRegisteredMem = a(cudaDevAttrCanUseHostPointerForRegisteredMem)?;
    prop.cooperativeLaunch = a(cudaDevAttrCooperativeLaunch)?;
    prop.sharedMemPerBlockOptin = a(cudaDevAttrMaxSharedMemoryPerBlockOptin)? as usize;
    prop.pageableMemoryAccessUsesHostPageTables = a(cudaDevAttrPageableMemoryAccessUsesHostPageTables)?;
    prop.directManagedMemAccessFromHost = a(cudaDevAttrDirectManagedMemAccessFromHost)?;
    prop.maxBlocksPerMultiProcessor = a(cudaDevAttrMaxBlocksPerMultiprocessor)?;
    prop.accessPolicyMaxWindowSize = a(cudaDevAttrMaxAccessPolicyWindowSize)?;
    prop.reservedSharedMemPerBlock = a(cudaDevAttrReservedSharedMemoryPerBlock)? as usize;
    prop.hostRegisterSupported = a(cudaDevAttrHostRegisterSupported)?;
    prop.sparseCudaArraySupported = a(cudaDevAttrSparseCudaArraySupported)?;
    prop.hostRegisterReadOnlySupported = a(cudaDevAttrHostRegisterReadOnlySupported)?;
    prop.timelineSemaphoreInteropSupported = a(cudaDevAttrTimelineSemaphoreInteropSupported)?;
    prop.memoryPoolsSupported = a(cudaDevAttrMemoryPoolsSupported)?;
    prop.gpuDirectRDMASupported = a(cudaDevAttrGPUDirectRDMASupported)?;
    prop.gpuDirectRDMAFlushWritesOptions = a(cudaDevAttrGPUDirectRDMAFlushWritesOptions)? as c_uint;
    prop.gpuDirectRDMAWritesOrdering = a(cudaDevAttrGPUDirectRDMAWritesOrdering)?;
    prop.memoryPoolSupportedHandleTypes = a(cudaDevAttrMemoryPoolSupportedHandleTypes)? as c_uint;
    prop.deferredMappingCudaArraySupported = a(cudaDevAttrDeferredMappingCudaArraySupported)?;
    prop.ipcEventSupported = a(cudaDevAttrIpcEventSupport)?;
    prop.clusterLaunch = a(cudaDevAttrClusterLaunch)?;
    // Not in cudaDeviceAttr; the driver's CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS.
    prop.unifiedFunctionPointers = attr(129, dev)?;
    prop.deviceNumaConfig = a(cudaDevAttrNumaConfig)?;
    prop.deviceNumaId = a(cudaDevAttrNumaId)?;
    prop.mpsEnabled = a(cudaDevAttrMpsEnabled)?;
    prop.hostNumaId = a(cudaDevAttrHostNumaId)?;
    prop.gpuPciDeviceID = a(cudaDevAttrGpuPciDeviceId)? as c_uint;
    prop.gpuPciSubsystemID = a(cudaDevAttrGpuPciSubsystemId)? as c_uint;
    prop.hostNumaMultinodeIpcSupported = a(cudaDevAttrHostNumaMultinodeIpcSupported)?;
    *p = prop;
    Ok(())
}

/// `cudaChooseDevice`: the device that matches the most of the requested
/// compute capability, preferring an exact match, then the closest newer
/// one, then the first device.
pub fn choose(out: Option<&mut c_int>, want: Option<&cudaDeviceProp>) -> CudaResult {
    let out = required(out)?;
    *out = best_match(required(want)?)?;
    Ok(())
}

fn best_match(want: &cudaDeviceProp) -> CudaResult<c_int> {
    let rt = runtime()?;
    let mut best: Option<(i64, c_int)> = None;
    for d in rt.devices.iter() {
        let major = attr(cudaDevAttrComputeCapabilityMajor.0, d.cu)? as i64;
        let minor = attr(cudaDevAttrComputeCapabilityMinor.0, d.cu)? as i64;
        let have = major * 10 + minor;
        let wanted = want.major as i64 * 10 + want.minor as i64;
        // Lower score is better: exact 0, newer by k: k, older by k: 1000 + k.
        let score = if want.major == 0 && want.minor == 0 {
            0
        } else if have >= wanted {
            have - wanted
        } else {
            1000 + wanted - have
        };
        if best.is_none_or(|(s, _)| score < s) {
            best = Some((score, d.ordinal));
        }
    }
    best.map(|(_, o)| o).ok_or(cudaErrorNoDevice)
}

/// `cudaDeviceGetByPCIBusId`.
pub fn by_pci_bus_id(out: Option<&mut c_int>, id: *const c_char) -> CudaResult {
    out_first(out, || {
        let rt = runtime()?;
        let mut dev = 0;
        cu!(cuDeviceGetByPCIBusId(&mut dev, non_null(id)?))?;
        rt.ordinal_of(dev)
    })
}

/// `cudaDeviceGetPCIBusId`.
pub fn pci_bus_id(buf: *mut c_char, len: c_int, ordinal: c_int) -> CudaResult {
    let d = runtime()?.device(ordinal)?;
    if buf.is_null() || len <= 0 {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuDeviceGetPCIBusId(buf, len, d.cu))
}

/// `cudaDeviceGetLimit`.
pub fn limit(value: Option<&mut usize>, l: cudaLimit) -> CudaResult {
    enter()?;
    let v = required(value)?;
    cu!(cuCtxGetLimit(v, l.0))
}

/// `cudaDeviceGetCacheConfig`.
pub fn cache_config(c: Option<&mut cudaFuncCache>) -> CudaResult {
    enter()?;
    let c = required(c)?;
    cu!(cuCtxGetCacheConfig(&mut c.0))
}

/// `cudaDeviceGetSharedMemConfig`: bank size is fixed at four bytes on every
/// architecture CUDA 13 supports, which is what NVIDIA's runtime reports.
pub fn shared_mem_config(c: Option<&mut cudaSharedMemConfig>) -> CudaResult {
    enter()?;
    *required(c)? = cudaSharedMemBankSizeFourByte;
    Ok(())
}

/// `cudaDeviceSetSharedMemConfig`: accepted and ignored for valid values
/// (no CUDA 13 device has configurable banks), as NVIDIA's runtime does.
pub fn set_shared_mem_config(c: cudaSharedMemConfig) -> CudaResult {
    enter()?;
    if !(0..=2).contains(&c.0) {
        return Err(cudaErrorInvalidValue);
    }
    Ok(())
}

/// The valid `cudaSetDeviceFlags` flags: one scheduling mode at most, plus
/// the other bits of `cudaDeviceMask`.
fn check_flags(flags: c_uint) -> CudaResult {
    if flags & !cudaDeviceMask != 0 {
        return Err(cudaErrorInvalidValue);
    }
    if !matches!(flags & cudaDeviceScheduleMask, 0 | 1 | 2 | 4) {
        return Err(cudaErrorInvalidValue);
    }
    Ok(())
}

/// `cudaSetDeviceFlags`: the flags of the current device's primary context.
pub fn set_flags(flags: c_uint) -> CudaResult {
    let rt = runtime()?;
    check_flags(flags)?;
    let d = rt.device(context::current_device()?)?;
    // cudaDeviceMapHost is always on since CUDA 4; the driver ignores it.
    cu!(cuDevicePrimaryCtxSetFlags(d.cu, flags & !cudaDeviceMapHost))?;
    d.set_runtime_flags(flags | cudaDeviceMapHost);
    Ok(())
}

/// `cudaGetDeviceFlags`: the flags the runtime recorded for the current
/// device. Measured on CUDA 13.0 / H100: `cudaDeviceMapHost` (0x8) before
/// any `cudaSetDeviceFlags`, the set flags plus 0x8 after one, and 0 after
/// `cudaDeviceReset` (see `Device::reset`).
pub fn flags(out: Option<&mut c_uint>) -> CudaResult {
    out_first(out, || {
        let rt = runtime()?;
        Ok(rt.device(context::current_device()?)?.runtime_flags())
    })
}

/// `cudaInitDevice`: initialize the device's primary context (optionally
/// with `device_flags`) without making it current.
pub fn init_device(ordinal: c_int, device_flags: c_uint, flags: c_uint) -> CudaResult {
    let rt = runtime()?;
    let d = rt.device(ordinal)?;
    // Other bits of `flags` are ignored (NVIDIA's runtime returns success
    // for 0x80; measured on CUDA 13.0).
    if flags & cudaInitDeviceFlagsAreValid != 0 {
        check_flags(device_flags)?;
        cu!(cuDevicePrimaryCtxSetFlags(d.cu, device_flags & !cudaDeviceMapHost))?;
        d.set_runtime_flags(device_flags | cudaDeviceMapHost);
    }
    d.primary()?;
    Ok(())
}

/// `cudaSetValidDevices`: checks the list. The list only steers implicit
/// device choice, which this runtime never makes (device 0 is the default,
/// as in NVIDIA's runtime since CUDA 12), so it is not used afterwards.
pub fn set_valid_devices(list: *mut c_int, len: c_int) -> CudaResult {
    let rt = runtime()?;
    // More entries than devices is an invalid value, answered without
    // reading the list (NVIDIA, H100, CUDA 13.0: len 2^31-1).
    if len < 0 || len > rt.count() || (len > 0 && list.is_null()) {
        return Err(cudaErrorInvalidValue);
    }
    // SAFETY: checked non-NULL above when len > 0; the caller gives len entries.
    let devs = if len == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(list, len as usize) } };
    // More entries than devices was caught above (cudaErrorInvalidValue);
    // an entry that is no device is cudaErrorInvalidDevice (both measured:
    // H100 with one device, 2x H200, CUDA 13.0).
    for &d in devs {
        rt.device(d)?;
    }
    // NVIDIA's runtime leaves the thread with no context current after
    // this call (H100, CUDA 13.0: cudaSetDevice(0), cudaSetValidDevices,
    // then cuCtxGetCurrent is NULL); the next call that needs a context
    // binds one again.
    super::context::unbind_thread()
}

/// `cudaDeviceGetTexture1DLinearMaxWidth`.
pub fn texture_1d_linear_max_width(out: Option<&mut usize>, desc: Option<&cudaChannelFormatDesc>, ordinal: c_int) -> CudaResult {
    // The descriptor first, then the device, then the out-pointer, as
    // NVIDIA's runtime (H100: an invalid descriptor is named before a bad
    // device or a NULL out-pointer).
    let (format, channels) = super::channel_format::array_format(required(desc)?)?;
    let d = runtime()?.device(ordinal)?;
    let out = required(out)?;
    cu!(cuDeviceGetTexture1DLinearMaxWidth(out, format.0, channels, d.cu))
}

/// `cudaDeviceGetHostAtomicCapabilities`: runtime and driver atomic
/// operation enums agree.
pub fn host_atomic_capabilities(caps: *mut c_uint, ops: *const cudaAtomicOperation, count: c_uint, ordinal: c_int) -> CudaResult {
    let d = runtime()?.device_arg(ordinal)?;
    if count > 0 && (caps.is_null() || ops.is_null()) {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuDeviceGetHostAtomicCapabilities(caps, ops.cast(), count, d.cu))
}

/// `cudaDeviceRegisterAsyncNotification`: the runtime's callback, info
/// struct and handle are laid out like the driver's, so they pass through.
pub fn register_async_notification(
    ordinal: c_int,
    callback: cudaAsyncCallback,
    user_data: *mut c_void,
    handle: *mut cudaAsyncCallbackHandle_t,
) -> CudaResult {
    let d = runtime()?.device_arg(ordinal)?;
    if callback.is_none() || handle.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuDeviceRegisterAsyncNotification(d.cu, callback, user_data, handle))
}

/// `cudaDeviceUnregisterAsyncNotification`.
pub fn unregister_async_notification(ordinal: c_int, handle: cudaAsyncCallbackHandle_t) -> CudaResult {
    let d = runtime()?.device_arg(ordinal)?;
    if handle.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuDeviceUnregisterAsyncNotification(d.cu, handle))
}

/// `cudaDeviceGetNvSciSyncAttributes`.
pub fn nvsci_sync_attributes(list: *mut c_void, ordinal: c_int, flags: c_int) -> CudaResult {
    let d = runtime()?.device(ordinal)?;
    if list.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuDeviceGetNvSciSyncAttributes(list, d.cu, flags))
}

/// `cudaCtxResetPersistingL2Cache`: acts on the thread's current context
/// and makes none current: with no context current it is the driver's
/// answer, cudaErrorDeviceUninitialized (NVIDIA's runtime, H100, CUDA 13.0:
/// first call of a process, after cudaInitDevice, after cudaSetValidDevices).
pub fn reset_persisting_l2_cache() -> CudaResult {
    runtime()?;
    cu!(cuCtxResetPersistingL2Cache())
}

/// `cudaProfilerStart` / `cudaProfilerStop`: forwarded to the driver, which
/// tells an attached profiler (Nsight) to start or stop collecting.
pub fn profiler(start: bool) -> CudaResult {
    enter()?;
    if start { cu!(cuProfilerStart()) } else { cu!(cuProfilerStop()) }
}
