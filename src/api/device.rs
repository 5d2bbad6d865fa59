//! Device management exports.

use crate::control::params;
use crate::runtime::{self, as_in, as_out, device};
use crate::types::*;
use std::ffi::{c_char, c_int, c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceCount(count: *mut c_int) -> cudaError_t {
    entry!(cudaGetDeviceCount(count) => device::count(unsafe { as_out(count) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDevice(device: *mut c_int) -> cudaError_t {
    entry!(cudaGetDevice(device) => device::current(unsafe { as_out(device) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSetDevice(device: c_int) -> cudaError_t {
    entry!(cudaSetDevice(device) => runtime::context::set_device(device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceProperties(prop: *mut cudaDeviceProp, device: c_int) -> cudaError_t {
    entry!(cudaGetDeviceProperties(prop, device) => device::properties(unsafe { as_out(prop) }, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetAttribute(value: *mut c_int, attr: cudaDeviceAttr, device: c_int) -> cudaError_t {
    entry!(cudaDeviceGetAttribute(value, attr, device) => device::attribute(unsafe { as_out(value) }, attr, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaChooseDevice(device: *mut c_int, prop: *const cudaDeviceProp) -> cudaError_t {
    entry!(cudaChooseDevice(device, prop) => device::choose(unsafe { as_out(device) }, unsafe { as_in(prop) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetByPCIBusId(device: *mut c_int, pciBusId: *const c_char) -> cudaError_t {
    entry!(cudaDeviceGetByPCIBusId(device, pciBusId) => device::by_pci_bus_id(unsafe { as_out(device) }, pciBusId))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetPCIBusId(pciBusId: *mut c_char, len: c_int, device: c_int) -> cudaError_t {
    entry!(cudaDeviceGetPCIBusId(pciBusId, len, device) => device::pci_bus_id(pciBusId, len, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSynchronize() -> cudaError_t {
    entry!(cudaDeviceSynchronize() => runtime::pass!(cuCtxSynchronize(std::ptr::null_mut())))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceReset() -> cudaError_t {
    entry!(cudaDeviceReset() => runtime::context::reset_current())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetLimit(pValue: *mut usize, limit: cudaLimit) -> cudaError_t {
    entry!(cudaDeviceGetLimit(pValue, limit) => device::limit(unsafe { runtime::as_out(pValue) }, limit))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSetLimit(limit: cudaLimit, value: usize) -> cudaError_t {
    entry!(cudaDeviceSetLimit(limit, value) => runtime::pass!(cuCtxSetLimit(limit.0, value)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetCacheConfig(pCacheConfig: *mut cudaFuncCache) -> cudaError_t {
    entry!(cudaDeviceGetCacheConfig(pCacheConfig) => device::cache_config(unsafe { runtime::as_out(pCacheConfig) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSetCacheConfig(cacheConfig: cudaFuncCache) -> cudaError_t {
    entry!(cudaDeviceSetCacheConfig(cacheConfig) => runtime::pass!(cuCtxSetCacheConfig(cacheConfig.0)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetSharedMemConfig(pConfig: *mut cudaSharedMemConfig) -> cudaError_t {
    entry!(cudaDeviceGetSharedMemConfig(pConfig) => device::shared_mem_config(unsafe { runtime::as_out(pConfig) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSetSharedMemConfig(config: cudaSharedMemConfig) -> cudaError_t {
    entry!(cudaDeviceSetSharedMemConfig(config) => device::set_shared_mem_config(config))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetStreamPriorityRange(leastPriority: *mut c_int, greatestPriority: *mut c_int) -> cudaError_t {
    // Either pointer may be NULL.
    entry!(cudaDeviceGetStreamPriorityRange(leastPriority, greatestPriority) => runtime::pass!(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSetDeviceFlags(flags: c_uint) -> cudaError_t {
    entry!(cudaSetDeviceFlags(flags) => device::set_flags(flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceFlags(flags: *mut c_uint) -> cudaError_t {
    entry!(cudaGetDeviceFlags(flags) => device::flags(unsafe { as_out(flags) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaInitDevice(device: c_int, deviceFlags: c_uint, flags: c_uint) -> cudaError_t {
    entry!(cudaInitDevice(device, deviceFlags, flags) => device::init_device(device, deviceFlags, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSetValidDevices(device_arr: *mut c_int, len: c_int) -> cudaError_t {
    entry!(cudaSetValidDevices(device_arr, len) => device::set_valid_devices(device_arr, len))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetTexture1DLinearMaxWidth(
    maxWidthInElements: *mut usize,
    fmtDesc: *const cudaChannelFormatDesc,
    device: c_int,
) -> cudaError_t {
    entry!(cudaDeviceGetTexture1DLinearMaxWidth(maxWidthInElements, fmtDesc, device) =>
        device::texture_1d_linear_max_width(unsafe { runtime::as_out(maxWidthInElements) }, unsafe { runtime::as_in(fmtDesc) }, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetHostAtomicCapabilities(
    capabilities: *mut c_uint,
    operations: *const cudaAtomicOperation,
    count: c_uint,
    device: c_int,
) -> cudaError_t {
    entry!(cudaDeviceGetHostAtomicCapabilities(capabilities, operations, count, device) =>
        device::host_atomic_capabilities(capabilities, operations, count, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceRegisterAsyncNotification(
    device: c_int,
    callbackFunc: cudaAsyncCallback,
    userData: *mut c_void,
    callback: *mut cudaAsyncCallbackHandle_t,
) -> cudaError_t {
    entry!(cudaDeviceRegisterAsyncNotification(device, callbackFunc, userData, callback) =>
        device::register_async_notification(device, callbackFunc, userData, callback))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceUnregisterAsyncNotification(device: c_int, callback: cudaAsyncCallbackHandle_t) -> cudaError_t {
    entry!(cudaDeviceUnregisterAsyncNotification(device, callback) => device::unregister_async_notification(device, callback))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetNvSciSyncAttributes(nvSciSyncAttrList: *mut c_void, device: c_int, flags: c_int) -> cudaError_t {
    entry!(cudaDeviceGetNvSciSyncAttributes(nvSciSyncAttrList, device, flags) =>
        device::nvsci_sync_attributes(nvSciSyncAttrList, device, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceFlushGPUDirectRDMAWrites(
    target: cudaFlushGPUDirectRDMAWritesTarget,
    scope: cudaFlushGPUDirectRDMAWritesScope,
) -> cudaError_t {
    // The enums agree with the driver's.
    entry!(cudaDeviceFlushGPUDirectRDMAWrites(target, scope) => runtime::pass!(cuFlushGPUDirectRDMAWrites(target.0, scope.0)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaCtxResetPersistingL2Cache() -> cudaError_t {
    entry!(cudaCtxResetPersistingL2Cache() => device::reset_persisting_l2_cache())
}
