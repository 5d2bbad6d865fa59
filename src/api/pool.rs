//! Stream-ordered allocator and memory pool exports.

use crate::control::params;
use crate::driver::StreamMode::{Legacy, PerThread};
use crate::runtime::{self, pool};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetDefaultMemPool(memPool: *mut cudaMemPool_t, device: c_int) -> cudaError_t {
    entry!(cudaDeviceGetDefaultMemPool(memPool, device) => pool::device_default_pool(unsafe { runtime::as_out(memPool) }, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetMemPool(memPool: *mut cudaMemPool_t, device: c_int) -> cudaError_t {
    entry!(cudaDeviceGetMemPool(memPool, device) => pool::device_pool(unsafe { runtime::as_out(memPool) }, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSetMemPool(device: c_int, memPool: cudaMemPool_t) -> cudaError_t {
    entry!(cudaDeviceSetMemPool(device, memPool) => pool::set_device_pool(device, memPool))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemGetDefaultMemPool(
    memPool: *mut cudaMemPool_t,
    location: *mut cudaMemLocation,
    r#type: cudaMemAllocationType,
) -> cudaError_t {
    entry!(cudaMemGetDefaultMemPool(memPool, location, r#type) => pool::location_pool(unsafe { runtime::as_out(memPool) }, unsafe { runtime::as_in(location) }, r#type, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemGetMemPool(
    memPool: *mut cudaMemPool_t,
    location: *mut cudaMemLocation,
    r#type: cudaMemAllocationType,
) -> cudaError_t {
    entry!(cudaMemGetMemPool(memPool, location, r#type) => pool::location_pool(unsafe { runtime::as_out(memPool) }, unsafe { runtime::as_in(location) }, r#type, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemSetMemPool(
    location: *mut cudaMemLocation,
    r#type: cudaMemAllocationType,
    memPool: cudaMemPool_t,
) -> cudaError_t {
    entry!(cudaMemSetMemPool(location, r#type, memPool) => pool::set_location_pool(unsafe { runtime::as_in(location) }, r#type, memPool))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocAsync(devPtr: *mut *mut c_void, size: usize, hStream: cudaStream_t) -> cudaError_t {
    entry!(cudaMallocAsync(devPtr, size, hStream) => pool::malloc_async(unsafe { runtime::as_out(devPtr) }, size, hStream, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocAsync_ptsz(devPtr: *mut *mut c_void, size: usize, hStream: cudaStream_t) -> cudaError_t {
    entry!(cudaMallocAsync_ptsz(devPtr, size, hStream) => pool::malloc_async(unsafe { runtime::as_out(devPtr) }, size, hStream, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeAsync(devPtr: *mut c_void, hStream: cudaStream_t) -> cudaError_t {
    entry!(cudaFreeAsync(devPtr, hStream) => pool::free_async(devPtr, hStream, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeAsync_ptsz(devPtr: *mut c_void, hStream: cudaStream_t) -> cudaError_t {
    entry!(cudaFreeAsync_ptsz(devPtr, hStream) => pool::free_async(devPtr, hStream, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocFromPoolAsync(
    ptr: *mut *mut c_void,
    size: usize,
    memPool: cudaMemPool_t,
    stream: cudaStream_t,
) -> cudaError_t {
    entry!(cudaMallocFromPoolAsync(ptr, size, memPool, stream) => pool::malloc_from_pool_async(unsafe { runtime::as_out(ptr) }, size, memPool, stream, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocFromPoolAsync_ptsz(
    ptr: *mut *mut c_void,
    size: usize,
    memPool: cudaMemPool_t,
    stream: cudaStream_t,
) -> cudaError_t {
    entry!(cudaMallocFromPoolAsync_ptsz(ptr, size, memPool, stream) => pool::malloc_from_pool_async(unsafe { runtime::as_out(ptr) }, size, memPool, stream, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolCreate(memPool: *mut cudaMemPool_t, poolProps: *const cudaMemPoolProps) -> cudaError_t {
    entry!(cudaMemPoolCreate(memPool, poolProps) => pool::create(unsafe { runtime::as_out(memPool) }, unsafe { runtime::as_in(poolProps) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolDestroy(memPool: cudaMemPool_t) -> cudaError_t {
    entry!(cudaMemPoolDestroy(memPool) => pool::destroy(memPool))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolTrimTo(memPool: cudaMemPool_t, minBytesToKeep: usize) -> cudaError_t {
    entry!(cudaMemPoolTrimTo(memPool, minBytesToKeep) => pool::trim_to(memPool, minBytesToKeep))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolGetAttribute(memPool: cudaMemPool_t, attr: cudaMemPoolAttr, value: *mut c_void) -> cudaError_t {
    entry!(cudaMemPoolGetAttribute(memPool, attr, value) => pool::attribute(memPool, attr, value, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolSetAttribute(memPool: cudaMemPool_t, attr: cudaMemPoolAttr, value: *mut c_void) -> cudaError_t {
    entry!(cudaMemPoolSetAttribute(memPool, attr, value) => pool::attribute(memPool, attr, value, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolSetAccess(memPool: cudaMemPool_t, descList: *const cudaMemAccessDesc, count: usize) -> cudaError_t {
    entry!(cudaMemPoolSetAccess(memPool, descList, count) => pool::set_access(memPool, descList, count))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolGetAccess(
    flags: *mut cudaMemAccessFlags,
    memPool: cudaMemPool_t,
    location: *mut cudaMemLocation,
) -> cudaError_t {
    entry!(cudaMemPoolGetAccess(flags, memPool, location) => pool::get_access(unsafe { runtime::as_out(flags) }, memPool, unsafe { runtime::as_in(location) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolExportToShareableHandle(
    shareableHandle: *mut c_void,
    memPool: cudaMemPool_t,
    handleType: cudaMemAllocationHandleType,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaMemPoolExportToShareableHandle(shareableHandle, memPool, handleType, flags) =>
        pool::export_handle(shareableHandle, memPool, handleType, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolImportFromShareableHandle(
    memPool: *mut cudaMemPool_t,
    shareableHandle: *mut c_void,
    handleType: cudaMemAllocationHandleType,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaMemPoolImportFromShareableHandle(memPool, shareableHandle, handleType, flags) =>
        pool::import_handle(unsafe { runtime::as_out(memPool) }, shareableHandle, handleType, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolExportPointer(exportData: *mut cudaMemPoolPtrExportData, ptr: *mut c_void) -> cudaError_t {
    entry!(cudaMemPoolExportPointer(exportData, ptr) => pool::export_pointer(unsafe { runtime::as_out(exportData) }, ptr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPoolImportPointer(
    ptr: *mut *mut c_void,
    memPool: cudaMemPool_t,
    exportData: *mut cudaMemPoolPtrExportData,
) -> cudaError_t {
    entry!(cudaMemPoolImportPointer(ptr, memPool, exportData) => pool::import_pointer(unsafe { runtime::as_out(ptr) }, memPool, unsafe { runtime::as_out(exportData) }))
}
