//! Allocation and release of device, host, registered and managed memory.

use super::cache::{self, Kind};
use crate::runtime::context::enter;
use crate::runtime::{out_first, required};
use crate::types::*;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

/// `cudaMalloc`. Size 0 succeeds with NULL (NVIDIA's behaviour; the
/// driver itself rejects 0). The hot path is `enter` plus `cuMemAlloc`, or
/// the caching allocator when `CUDART_SHIM_POOL=1` (see [`cache`]).
#[inline]
pub fn malloc(out: Option<&mut *mut c_void>, size: usize) -> CudaResult {
    out_first(out, || {
        let (ctx, device) = enter()?;
        if size == 0 {
            return Ok(null_mut());
        }
        if cache::enabled() {
            cache::malloc(Kind::Device, ctx, device, size)
        } else {
            cache::driver_alloc(Kind::Device, size)
        }
    })
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
    if cache::enabled()
        && let Some(r) = cache::free(Kind::Device, p)
    {
        return r;
    }
    cache::driver_free(Kind::Device, p)
}

/// `cudaMallocHost`: page-locked host memory, portable and mapped like
/// NVIDIA's (`cuMemAllocHost`). Size 0 succeeds with NULL.
#[inline]
pub fn malloc_host(out: Option<&mut *mut c_void>, size: usize) -> CudaResult {
    out_first(out, || {
        let (ctx, device) = enter()?;
        if size == 0 {
            return Ok(null_mut());
        }
        if cache::enabled() {
            return cache::malloc(Kind::Host, ctx, device, size);
        }
        cache::driver_alloc(Kind::Host, size)
    })
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
    cache::driver_free(Kind::Host, p)
}

const HOST_ALLOC_FLAGS: c_uint = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;

/// `cudaHostAlloc`: flag values equal the driver's `CU_MEMHOSTALLOC_*`.
pub fn host_alloc(out: Option<&mut *mut c_void>, size: usize, flags: c_uint) -> CudaResult {
    out_first(out, || {
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
    })
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
pub fn host_device_pointer(out: Option<&mut *mut c_void>, p: *mut c_void, flags: c_uint) -> CudaResult {
    out_first(out, || {
        enter()?;
        if p.is_null() || flags != 0 {
            return Err(cudaErrorInvalidValue);
        }
        let mut d = 0;
        cu!(cuMemHostGetDevicePointer(&mut d, p, 0))?;
        Ok(d as usize as *mut c_void)
    })
}

/// `cudaHostGetFlags`.
pub fn host_flags(out: Option<&mut c_uint>, p: *mut c_void) -> CudaResult {
    out_first(out, || {
        enter()?;
        if p.is_null() {
            return Err(cudaErrorInvalidValue);
        }
        let mut f = 0;
        cu!(cuMemHostGetFlags(&mut f, p))?;
        Ok(f)
    })
}

/// `cudaMallocManaged`: size 0 and flags other than exactly one of
/// `cudaMemAttachGlobal`/`cudaMemAttachHost` are `cudaErrorInvalidValue`.
pub fn malloc_managed(out: Option<&mut *mut c_void>, size: usize, flags: c_uint) -> CudaResult {
    out_first(out, || {
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
    })
}

/// `cudaMallocPitch`: element size 16 lets the driver choose the widest
/// alignment, as NVIDIA's runtime does. A zero width or height succeeds
/// with NULL and pitch 0.
pub fn malloc_pitch(out: Option<&mut *mut c_void>, pitch: Option<&mut usize>, width: usize, height: usize) -> CudaResult {
    let (out, pitch) = (required(out)?, required(pitch)?);
    (*out, *pitch) = pitched(width, height)?;
    Ok(())
}

fn pitched(width: usize, height: usize) -> CudaResult<(*mut c_void, usize)> {
    enter()?;
    if width == 0 || height == 0 {
        return Ok((null_mut(), 0));
    }
    let (mut d, mut pitch) = (0, 0);
    cu!(cuMemAllocPitch(&mut d, &mut pitch, width, height, 16))?;
    Ok((d as usize as *mut c_void, pitch))
}

/// `cudaMalloc3D`: a pitched allocation of `height * depth` rows.
pub fn malloc_3d(out: Option<&mut cudaPitchedPtr>, extent: cudaExtent) -> CudaResult {
    out_first(out, || {
        enter()?;
        let rows = extent.height.checked_mul(extent.depth).ok_or(cudaErrorInvalidValue)?;
        let (ptr, pitch) = pitched(extent.width, rows)?;
        Ok(cudaPitchedPtr { ptr, pitch, xsize: extent.width, ysize: extent.height })
    })
}

/// `cudaMemGetInfo`. With the caching allocator on, the free bytes are the
/// driver's plus the device memory the cache holds free: the program could
/// get those bytes, and programs that size themselves from this call should
/// see them. Either out-parameter may be NULL: NVIDIA's runtime answers
/// `cudaSuccess` then (H100, driver 580: tests/data/bad_input_gpu.tsv) and
/// writes the other.
pub fn mem_info(free: Option<&mut usize>, total: Option<&mut usize>) -> CudaResult {
    let (_, device) = enter()?;
    let (mut f, mut t) = (0, 0);
    cu!(cuMemGetInfo(&mut f, &mut t))?;
    if cache::enabled() {
        f = f.saturating_add(cache::cached_device_bytes(device)).min(t);
    }
    if let Some(free) = free {
        *free = f;
    }
    if let Some(total) = total {
        *total = t;
    }
    Ok(())
}
