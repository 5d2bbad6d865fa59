//! The stream-ordered allocator and memory pools.
//!
//! Pools are the driver's (`cudaMemPool_t` is a `CUmemoryPool`), and every
//! struct here has the driver's layout and values, so the work is argument
//! checking and one translation: a device location's `id` is a runtime
//! ordinal, the driver wants a `CUdevice`.

use crate::runtime::required;
use super::context::enter;
use super::state::runtime;
use crate::driver::{CUdeviceptr, StreamMode};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

/// A location as the driver wants it: device ordinals become `CUdevice`s.
/// An id that names no device passes through unchanged, so the driver
/// answers for it as it does for NVIDIA's runtime.
pub fn driver_location(loc: &cudaMemLocation) -> CudaResult<cudaMemLocation> {
    let mut l = *loc;
    if l.r#type == cudaMemLocationTypeDevice
        && let Ok(d) = runtime()?.device(l.id)
    {
        l.id = d.cu;
    }
    Ok(l)
}

fn driver_props(p: &cudaMemPoolProps) -> CudaResult<cudaMemPoolProps> {
    let mut p = *p;
    p.location = driver_location(&p.location)?;
    Ok(p)
}

/// `cudaDeviceGetDefaultMemPool`.
pub fn device_default_pool(pool: Option<&mut cudaMemPool_t>, ordinal: c_int) -> CudaResult {
    let d = runtime()?.device(ordinal)?;
    let pool = required(pool)?;
    cu!(cuDeviceGetDefaultMemPool(pool, d.cu))
}

/// `cudaDeviceGetMemPool`.
pub fn device_pool(pool: Option<&mut cudaMemPool_t>, ordinal: c_int) -> CudaResult {
    let d = runtime()?.device_arg(ordinal)?;
    let pool = required(pool)?;
    cu!(cuDeviceGetMemPool(pool, d.cu))
}

/// `cudaDeviceSetMemPool`. A NULL pool is rejected here: the driver would
/// dereference it.
pub fn set_device_pool(ordinal: c_int, pool: cudaMemPool_t) -> CudaResult {
    let d = runtime()?.device_arg(ordinal)?;
    if pool.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuDeviceSetMemPool(d.cu, pool))
}

/// `cudaMemGetDefaultMemPool` / `cudaMemGetMemPool`.
pub fn location_pool(pool: Option<&mut cudaMemPool_t>, loc: Option<&cudaMemLocation>, ty: cudaMemAllocationType, default: bool) -> CudaResult {
    runtime()?;
    let pool = required(pool)?;
    let mut l = driver_location(required(loc)?)?;
    if default {
        cu!(cuMemGetDefaultMemPool(pool, &mut l, ty.0))
    } else {
        cu!(cuMemGetMemPool(pool, &mut l, ty.0))
    }
}

/// `cudaMemSetMemPool`.
pub fn set_location_pool(loc: Option<&cudaMemLocation>, ty: cudaMemAllocationType, pool: cudaMemPool_t) -> CudaResult {
    runtime()?;
    let mut l = driver_location(required(loc)?)?;
    if pool.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuMemSetMemPool(&mut l, ty.0, pool))
}

/// `cudaMallocAsync` (and `_ptsz`): from the current pool of the stream's
/// device. Size 0 goes to the driver, which decides (unverified: NVIDIA's
/// runtime may return success with NULL instead; the GPU run tells).
pub fn malloc_async(ptr: Option<&mut *mut c_void>, size: usize, stream: cudaStream_t, mode: StreamMode) -> CudaResult {
    enter()?;
    let ptr = required(ptr)?;
    let mut d: CUdeviceptr = 0;
    cu!(mode mode; cuMemAllocAsync(&mut d, size, stream))?;
    *ptr = d as *mut c_void;
    Ok(())
}

/// `cudaMallocFromPoolAsync` (and `_ptsz`).
pub fn malloc_from_pool_async(
    ptr: Option<&mut *mut c_void>,
    size: usize,
    pool: cudaMemPool_t,
    stream: cudaStream_t,
    mode: StreamMode,
) -> CudaResult {
    enter()?;
    let ptr = required(ptr)?;
    if pool.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    let mut d: CUdeviceptr = 0;
    cu!(mode mode; cuMemAllocFromPoolAsync(&mut d, size, pool, stream))?;
    *ptr = d as *mut c_void;
    Ok(())
}

/// `cudaFreeAsync` (and `_ptsz`). NULL goes to the driver (unverified
/// whether NVIDIA's runtime short-cuts it to success as `cudaFree` does).
pub fn free_async(ptr: *mut c_void, stream: cudaStream_t, mode: StreamMode) -> CudaResult {
    enter()?;
    cu!(mode mode; cuMemFreeAsync(ptr as CUdeviceptr, stream))
}

/// `cudaMemPoolCreate`.
pub fn create(pool: Option<&mut cudaMemPool_t>, props: Option<&cudaMemPoolProps>) -> CudaResult {
    enter()?;
    let pool = required(pool)?;
    let p = driver_props(required(props)?)?;
    cu!(cuMemPoolCreate(pool, &p))
}

fn pool_ok(pool: cudaMemPool_t) -> CudaResult<cudaMemPool_t> {
    if pool.is_null() { Err(cudaErrorInvalidValue) } else { Ok(pool) }
}

/// `cudaMemPoolDestroy`.
pub fn destroy(pool: cudaMemPool_t) -> CudaResult {
    enter()?;
    let pool = pool_ok(pool)?;
    cu!(cuMemPoolDestroy(pool))
}

/// `cudaMemPoolTrimTo`.
pub fn trim_to(pool: cudaMemPool_t, keep: usize) -> CudaResult {
    enter()?;
    let pool = pool_ok(pool)?;
    cu!(cuMemPoolTrimTo(pool, keep))
}

/// `cudaMemPoolGetAttribute` / `cudaMemPoolSetAttribute`: runtime and
/// driver attribute numbers and value types agree.
pub fn attribute(pool: cudaMemPool_t, attr: cudaMemPoolAttr, value: *mut c_void, set: bool) -> CudaResult {
    enter()?;
    let pool = pool_ok(pool)?;
    if value.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    if set {
        cu!(cuMemPoolSetAttribute(pool, attr.0, value))
    } else {
        cu!(cuMemPoolGetAttribute(pool, attr.0, value))
    }
}

/// `cudaMemPoolSetAccess`.
pub fn set_access(pool: cudaMemPool_t, list: *const cudaMemAccessDesc, count: usize) -> CudaResult {
    enter()?;
    let pool = pool_ok(pool)?;
    if count > 0 && list.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    // SAFETY: non-NULL when count > 0; the caller gives `count` entries.
    let descs = if count == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(list, count) } };
    let mapped = descs
        .iter()
        .map(|a| Ok(cudaMemAccessDesc { location: driver_location(&a.location)?, flags: a.flags }))
        .collect::<CudaResult<Vec<_>>>()?;
    cu!(cuMemPoolSetAccess(pool, mapped.as_ptr(), count))
}

/// `cudaMemPoolGetAccess`.
pub fn get_access(flags: Option<&mut cudaMemAccessFlags>, pool: cudaMemPool_t, loc: Option<&cudaMemLocation>) -> CudaResult {
    enter()?;
    let flags = required(flags)?;
    let pool = pool_ok(pool)?;
    let mut l = driver_location(required(loc)?)?;
    cu!(cuMemPoolGetAccess(&mut flags.0, pool, &mut l))
}

/// `cudaMemPoolExportToShareableHandle`.
pub fn export_handle(handle: *mut c_void, pool: cudaMemPool_t, ty: cudaMemAllocationHandleType, flags: c_uint) -> CudaResult {
    enter()?;
    let pool = pool_ok(pool)?;
    if handle.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuMemPoolExportToShareableHandle(handle, pool, ty.0, flags as u64))
}

/// `cudaMemPoolImportFromShareableHandle`. For a POSIX file descriptor the
/// handle *is* the fd, cast to a pointer, as with the driver.
pub fn import_handle(pool: Option<&mut cudaMemPool_t>, handle: *mut c_void, ty: cudaMemAllocationHandleType, flags: c_uint) -> CudaResult {
    enter()?;
    let pool = required(pool)?;
    cu!(cuMemPoolImportFromShareableHandle(pool, handle, ty.0, flags as u64))
}

/// `cudaMemPoolExportPointer`.
pub fn export_pointer(data: Option<&mut cudaMemPoolPtrExportData>, ptr: *mut c_void) -> CudaResult {
    enter()?;
    let data = required(data)?;
    cu!(cuMemPoolExportPointer(data, ptr as CUdeviceptr))
}

/// `cudaMemPoolImportPointer`.
pub fn import_pointer(ptr: Option<&mut *mut c_void>, pool: cudaMemPool_t, data: Option<&mut cudaMemPoolPtrExportData>) -> CudaResult {
    enter()?;
    let ptr = required(ptr)?;
    let pool = pool_ok(pool)?;
    let data = required(data)?;
    let mut d: CUdeviceptr = 0;
    cu!(cuMemPoolImportPointer(&mut d, pool, data))?;
    *ptr = d as *mut c_void;
    Ok(())
}
