//! Allocation and release of device, host, registered and managed memory.

use super::cache::{self, Kind};
use super::dptr;
use crate::runtime::context::enter;
use crate::types::*;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

/// `cudaMalloc`. Size 0 succeeds with NULL (NVIDIA's behaviour; the
/// driver itself rejects 0). The hot path is `enter` plus `cuMemAlloc`, or
/// the caching allocator when `CUDART_SHIM_POOL=1` (see [`cache`]).
#[inline]
pub fn malloc(size: usize) -> CudaResult<*mut c_void> {
    let (ctx, device) = enter()?;
    if size == 0 {
        return Ok(null_mut());
    }
    let p = if cache::enabled() {
        cache::malloc(Kind::Device, ctx, device, size)?
    } else {
        driver_alloc(Kind::Device, size)?
    };
    if crate::trace::active() {
        // A cached block counts at its rounded size, as `free` sees it.
        crate::trace::memory_counter(cache::block_size(p).unwrap_or(size) as i64);
    }
    Ok(p)
}

/// `cudaFree`. NULL is a no-op that still initializes the context (the
/// `cudaFree(0)` idiom); an unknown pointer gets the driver's code
/// (`cudaErrorInvalidValue`).
#[inline]
pub fn free(p: *mut c_void) -> CudaResult {
    enter()?;
    if p.is_null() {
        return Ok(());
    }
    if crate::trace::active() {
        return free_traced(p);
    }
    release(p)
}

/// `cudaFree` of a non-NULL pointer: the cache's block, or the driver's.
#[inline(always)]
fn release(p: *mut c_void) -> CudaResult {
    if cache::enabled()
        && let Some(r) = cache::free(Kind::Device, p)
    {
        return r;
    }
    driver_free(Kind::Device, p)
}

/// `cudaFree` while tracing: the timeline's memory track needs the size
/// (the driver's allocation size; for a cached block, its rounded size:
/// the driver would report the whole segment it was carved from).
#[cold]
fn free_traced(p: *mut c_void) -> CudaResult {
    let (mut base, mut size) = (0, 0usize);
    let known = match cache::block_size(p) {
        Some(s) => {
            size = s;
            true
        }
        None => cu!(cuMemGetAddressRange(&mut base, &mut size, dptr(p))).is_ok(),
    };
    release(p)?;
    if known {
        crate::trace::memory_counter(-(size as i64));
    }
    Ok(())
}

/// `cudaMallocHost`: page-locked host memory, portable and mapped like
/// NVIDIA's (`cuMemAllocHost`). Size 0 succeeds with NULL.
#[inline]
pub fn malloc_host(size: usize) -> CudaResult<*mut c_void> {
    let (ctx, device) = enter()?;
    if size == 0 {
        return Ok(null_mut());
    }
    if cache::enabled() {
        return cache::malloc(Kind::Host, ctx, device, size);
    }
    driver_alloc(Kind::Host, size)
}

/// `cudaFreeHost`. NULL is a no-op.
#[inline]
pub fn free_host(p: *mut c_void) -> CudaResult {
    enter()?;
    if p.is_null() {
        return Ok(());
    }
    if cache::enabled()
        && let Some(r) = cache::free(Kind::Host, p)
    {
        return r;
    }
    driver_free(Kind::Host, p)
}

/// The driver's allocation behind `cudaMalloc` / `cudaMallocHost`.
#[inline(always)]
pub(super) fn driver_alloc(kind: Kind, size: usize) -> CudaResult<*mut c_void> {
    match kind {
        Kind::Device => {
            let mut d = 0;
            cu!(cuMemAlloc(&mut d, size))?;
            Ok(d as usize as *mut c_void)
        }
        Kind::Host => {
            let mut p = null_mut();
            cu!(cuMemAllocHost(&mut p, size))?;
            Ok(p)
        }
    }
}

/// The driver's release behind `cudaFree` / `cudaFreeHost`.
#[inline(always)]
pub(super) fn driver_free(kind: Kind, p: *mut c_void) -> CudaResult {
    match kind {
        Kind::Device => cu!(cuMemFree(dptr(p))),
        Kind::Host => cu!(cuMemFreeHost(p)),
    }
}

const HOST_ALLOC_FLAGS: c_uint = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;

/// `cudaHostAlloc`: flag values equal the driver's `CU_MEMHOSTALLOC_*`.
pub fn host_alloc(size: usize, flags: c_uint) -> CudaResult<*mut c_void> {
    enter()?;
    if flags & !HOST_ALLOC_FLAGS != 0 {
        return Err(cudaErrorInvalidValue);
    }
    if size == 0 {
        return Ok(null_mut());
    }
    let mut p = null_mut();
    cu!(cuMemHostAlloc(&mut p, size, flags))?;
    Ok(p)
}

const HOST_REGISTER_FLAGS: c_uint =
    cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;

/// `cudaHostRegister`: flag values equal the driver's `CU_MEMHOSTREGISTER_*`.
pub fn host_register(p: *mut c_void, size: usize, flags: c_uint) -> CudaResult {
    enter()?;
    if p.is_null() || size == 0 || flags & !HOST_REGISTER_FLAGS != 0 {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuMemHostRegister(p, size, flags))
}

/// `cudaHostUnregister`: not registered gives `cudaErrorHostMemoryNotRegistered`.
pub fn host_unregister(p: *mut c_void) -> CudaResult {
    enter()?;
    if p.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuMemHostUnregister(p))
}

/// `cudaHostGetDevicePointer`: `flags` must be 0.
pub fn host_device_pointer(p: *mut c_void, flags: c_uint) -> CudaResult<*mut c_void> {
    enter()?;
    if p.is_null() || flags != 0 {
        return Err(cudaErrorInvalidValue);
    }
    let mut d = 0;
    cu!(cuMemHostGetDevicePointer(&mut d, p, 0))?;
    Ok(d as usize as *mut c_void)
}

/// `cudaHostGetFlags`.
pub fn host_flags(p: *mut c_void) -> CudaResult<c_uint> {
    enter()?;
    if p.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    let mut f = 0;
    cu!(cuMemHostGetFlags(&mut f, p))?;
    Ok(f)
}

/// `cudaMallocManaged`: size 0 and flags other than exactly one of
/// `cudaMemAttachGlobal`/`cudaMemAttachHost` are `cudaErrorInvalidValue`.
pub fn malloc_managed(size: usize, flags: c_uint) -> CudaResult<*mut c_void> {
    enter()?;
    if flags != cudaMemAttachGlobal && flags != cudaMemAttachHost {
        return Err(cudaErrorInvalidValue);
    }
    // Size 0 succeeds with NULL, as NVIDIA's runtime (H100, CUDA 13.0).
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let mut d = 0;
    cu!(cuMemAllocManaged(&mut d, size, flags))?;
    Ok(d as usize as *mut c_void)
}

/// `cudaMallocPitch`: element size 16 lets the driver choose the widest
/// alignment, as NVIDIA's runtime does. A zero width or height succeeds
/// with NULL and pitch 0.
pub fn malloc_pitch(width: usize, height: usize) -> CudaResult<(*mut c_void, usize)> {
    enter()?;
    if width == 0 || height == 0 {
        return Ok((null_mut(), 0));
    }
    let (mut d, mut pitch) = (0, 0);
    cu!(cuMemAllocPitch(&mut d, &mut pitch, width, height, 16))?;
    Ok((d as usize as *mut c_void, pitch))
}

/// `cudaMalloc3D`: a pitched allocation of `height * depth` rows.
pub fn malloc_3d(extent: cudaExtent) -> CudaResult<cudaPitchedPtr> {
    enter()?;
    let rows = extent.height.checked_mul(extent.depth).ok_or(cudaErrorInvalidValue)?;
    let (ptr, pitch) = malloc_pitch(extent.width, rows)?;
    Ok(cudaPitchedPtr { ptr, pitch, xsize: extent.width, ysize: extent.height })
}

/// `cudaMemGetInfo`. With the caching allocator on, the free bytes are the
/// driver's plus the device memory the cache holds free: the program could
/// get those bytes, and programs that size themselves from this call should
/// see them.
pub fn mem_info() -> CudaResult<(usize, usize)> {
    let (_, device) = enter()?;
    let (mut free, mut total) = (0, 0);
    cu!(cuMemGetInfo(&mut free, &mut total))?;
    if cache::enabled() {
        free = free.saturating_add(cache::cached_device_bytes(device)).min(total);
    }
    Ok((free, total))
}
