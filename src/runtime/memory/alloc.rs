//! Allocation and release of device, host, registered and managed memory.

use super::dptr;
use crate::runtime::context::enter;
use crate::types::*;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

/// `cudaMalloc`. Size 0 succeeds with NULL (NVIDIA's behaviour; the
/// driver itself rejects 0). The hot path is `enter` plus `cuMemAlloc`.
#[inline]
pub fn malloc(size: usize) -> CudaResult<*mut c_void> {
    enter()?;
    if size == 0 {
        return Ok(null_mut());
    }
    let mut d = 0;
    cu!(cuMemAlloc(&mut d, size))?;
    if crate::trace::active() {
        crate::trace::memory_counter(size as i64);
    }
    Ok(d as usize as *mut c_void)
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
        // The timeline's memory track needs the size; asked only when tracing.
        let (mut base, mut size) = (0, 0usize);
        let known = cu!(cuMemGetAddressRange(&mut base, &mut size, dptr(p))).is_ok();
        cu!(cuMemFree(dptr(p)))?;
        if known {
            crate::trace::memory_counter(-(size as i64));
        }
        return Ok(());
    }
    cu!(cuMemFree(dptr(p)))
}

/// `cudaMallocHost`: page-locked host memory, portable and mapped like
/// NVIDIA's (`cuMemAllocHost`). Size 0 succeeds with NULL.
#[inline]
pub fn malloc_host(size: usize) -> CudaResult<*mut c_void> {
    enter()?;
    if size == 0 {
        return Ok(null_mut());
    }
    let mut p = null_mut();
    cu!(cuMemAllocHost(&mut p, size))?;
    Ok(p)
}

/// `cudaFreeHost`. NULL is a no-op.
#[inline]
pub fn free_host(p: *mut c_void) -> CudaResult {
    enter()?;
    if p.is_null() {
        return Ok(());
    }
    cu!(cuMemFreeHost(p))
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

/// `cudaMemGetInfo`.
pub fn mem_info() -> CudaResult<(usize, usize)> {
    enter()?;
    let (mut free, mut total) = (0, 0);
    cu!(cuMemGetInfo(&mut free, &mut total))?;
    Ok((free, total))
}
