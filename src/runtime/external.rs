//! External memory and semaphores (Vulkan, D3D, NvSci interop).
//!
//! The handle descriptors, buffer descriptors and signal/wait parameters
//! have the driver's layout and values and pass through; the mipmapped
//! array descriptor is converted (channel format + extent + flags become a
//! `CUDA_ARRAY3D_DESCRIPTOR`).

use crate::runtime::required;
use super::context::enter;
use crate::driver::api::misc_abi::{CUDA_ARRAY3D_DESCRIPTOR, CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC};
use crate::driver::{CUdeviceptr, StreamMode};
use crate::types::*;
use std::ffi::{c_uint, c_void};

/// `cudaImportExternalMemory`.
pub fn import_memory(mem: Option<&mut cudaExternalMemory_t>, desc: Option<&cudaExternalMemoryHandleDesc>) -> CudaResult {
    enter()?;
    let mem = required(mem)?;
    let desc = required(desc)?;
    cu!(cuImportExternalMemory(mem, desc))
}

/// `cudaExternalMemoryGetMappedBuffer`.
pub fn mapped_buffer(ptr: Option<&mut *mut c_void>, mem: cudaExternalMemory_t, desc: Option<&cudaExternalMemoryBufferDesc>) -> CudaResult {
    enter()?;
    let ptr = required(ptr)?;
    let desc = required(desc)?;
    if mem.is_null() {
        return Err(cudaErrorInvalidValue); // NULL: invalid value (NVIDIA, H100, CUDA 13.0)
    }
    let mut d: CUdeviceptr = 0;
    cu!(cuExternalMemoryGetMappedBuffer(&mut d, mem, desc))?;
    *ptr = d as *mut c_void;
    Ok(())
}

/// The driver's mipmapped-array descriptor for the runtime's.
pub fn driver_mipmap_desc(d: &cudaExternalMemoryMipmappedArrayDesc) -> CudaResult<CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC> {
    let (format, channels) = super::channel_format::array_format(&d.formatDesc)?;
    Ok(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC {
        offset: d.offset,
        arrayDesc: CUDA_ARRAY3D_DESCRIPTOR {
            Width: d.extent.width,
            Height: d.extent.height,
            Depth: d.extent.depth,
            Format: format,
            NumChannels: channels,
            // cudaArray* flags have the values of CUDA_ARRAY3D_* flags.
            Flags: d.flags,
        },
        numLevels: d.numLevels,
        reserved: [0; 16],
    })
}

/// `cudaExternalMemoryGetMappedMipmappedArray`.
pub fn mapped_mipmapped_array(
    mipmap: Option<&mut cudaMipmappedArray_t>,
    mem: cudaExternalMemory_t,
    desc: Option<&cudaExternalMemoryMipmappedArrayDesc>,
) -> CudaResult {
    enter()?;
    let mipmap = required(mipmap)?;
    let desc = driver_mipmap_desc(required(desc)?)?;
    if mem.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    cu!(cuExternalMemoryGetMappedMipmappedArray(mipmap, mem, &desc))
}

/// `cudaDestroyExternalMemory`.
pub fn destroy_memory(mem: cudaExternalMemory_t) -> CudaResult {
    enter()?;
    if mem.is_null() {
        return Err(cudaErrorInvalidValue); // NULL: invalid value (NVIDIA, H100, CUDA 13.0)
    }
    cu!(cuDestroyExternalMemory(mem))
}

/// `cudaImportExternalSemaphore`.
pub fn import_semaphore(sem: Option<&mut cudaExternalSemaphore_t>, desc: Option<&cudaExternalSemaphoreHandleDesc>) -> CudaResult {
    enter()?;
    let sem = required(sem)?;
    let desc = required(desc)?;
    cu!(cuImportExternalSemaphore(sem, desc))
}

fn arrays<A, B>(a: *const A, b: *const B, n: c_uint) -> CudaResult {
    if n > 0 && (a.is_null() || b.is_null()) { Err(cudaErrorInvalidValue) } else { Ok(()) }
}

/// `cudaSignalExternalSemaphoresAsync` (and `_ptsz`).
pub fn signal(
    sems: *const cudaExternalSemaphore_t,
    params: *const cudaExternalSemaphoreSignalParams,
    n: c_uint,
    stream: cudaStream_t,
    mode: StreamMode,
) -> CudaResult {
    enter()?;
    arrays(sems, params, n)?;
    cu!(mode mode; cuSignalExternalSemaphoresAsync(sems, params, n, stream))
}

/// `cudaWaitExternalSemaphoresAsync` (and `_ptsz`).
pub fn wait(
    sems: *const cudaExternalSemaphore_t,
    params: *const cudaExternalSemaphoreWaitParams,
    n: c_uint,
    stream: cudaStream_t,
    mode: StreamMode,
) -> CudaResult {
    enter()?;
    arrays(sems, params, n)?;
    cu!(mode mode; cuWaitExternalSemaphoresAsync(sems, params, n, stream))
}

/// `cudaDestroyExternalSemaphore`.
pub fn destroy_semaphore(sem: cudaExternalSemaphore_t) -> CudaResult {
    enter()?;
    if sem.is_null() {
        return Err(cudaErrorInvalidValue); // NULL: invalid value (NVIDIA, H100, CUDA 13.0)
    }
    cu!(cuDestroyExternalSemaphore(sem))
}
