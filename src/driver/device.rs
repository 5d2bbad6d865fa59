//! Driver entry points for initialization, devices and contexts.

use super::table::driver_table;
use super::types::*;
use std::ffi::{c_char, c_int, c_uint};

driver_table! {
    fn cuInit(flags: c_uint);
    fn cuDriverGetVersion(version: *mut c_int);
    fn cuDeviceGetCount(count: *mut c_int);
    fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int);
    fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice);
    fn cuDeviceGetUuid(uuid: *mut CUuuid, dev: CUdevice);
    fn cuDeviceGetLuid(luid: *mut c_char, device_node_mask: *mut c_uint, dev: CUdevice);
    fn cuDeviceTotalMem(bytes: *mut usize, dev: CUdevice);
    fn cuDeviceGetAttribute(value: *mut c_int, attrib: c_int, dev: CUdevice);
    fn cuDeviceGetByPCIBusId(dev: *mut CUdevice, pci_bus_id: *const c_char);
    fn cuDeviceGetPCIBusId(pci_bus_id: *mut c_char, len: c_int, dev: CUdevice);
    fn cuDeviceGetTexture1DLinearMaxWidth(max_width: *mut usize, format: c_int, num_channels: c_uint, dev: CUdevice);
    fn cuDeviceGetHostAtomicCapabilities(caps: *mut c_uint, ops: *const c_int, count: c_uint, dev: CUdevice);
    fn cuDevicePrimaryCtxRetain(ctx: *mut CUcontext, dev: CUdevice);
    fn cuDevicePrimaryCtxRelease(dev: CUdevice);
    fn cuDevicePrimaryCtxReset(dev: CUdevice);
    fn cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: c_uint);
    fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int);
    fn cuCtxGetCurrent(ctx: *mut CUcontext);
    fn cuCtxSetCurrent(ctx: CUcontext);
    fn cuCtxGetDevice(device: *mut CUdevice, ctx: CUcontext);
    fn cuCtxGetFlags(flags: *mut c_uint);
    fn cuCtxSetFlags(flags: c_uint);
    fn cuCtxSynchronize(ctx: CUcontext);
    fn cuCtxGetLimit(value: *mut usize, limit: c_int);
    fn cuCtxSetLimit(limit: c_int, value: usize);
    fn cuCtxGetCacheConfig(config: *mut c_int);
    fn cuCtxSetCacheConfig(config: c_int);
    fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int);
    fn cuCtxResetPersistingL2Cache();
    fn cuFlushGPUDirectRDMAWrites(target: c_int, scope: c_int);
    fn cuProfilerStart();
    fn cuProfilerStop();
}

driver_table! {
    fn cuDeviceRegisterAsyncNotification(
        device: CUdevice,
        callback: crate::types::cudaAsyncCallback,
        user_data: *mut std::ffi::c_void,
        handle: *mut crate::types::cudaAsyncCallbackHandle_t,
    );
    fn cuDeviceUnregisterAsyncNotification(device: CUdevice, handle: crate::types::cudaAsyncCallbackHandle_t);
    fn cuDeviceGetNvSciSyncAttributes(list: *mut std::ffi::c_void, dev: CUdevice, flags: c_int);
}
