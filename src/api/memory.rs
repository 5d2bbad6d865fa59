//! Exports of the memory and unified addressing areas. `_ptds` (synchronous)
//! and `_ptsz` (stream-ordered) twins call the same runtime function with
//! `StreamMode::PerThread`.

use crate::control::params;
use crate::driver::StreamMode;
use crate::runtime::{as_in, as_out, memory};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMalloc(devPtr: *mut *mut c_void, size: usize) -> cudaError_t {
    entry!(cudaMalloc(devPtr, size) => memory::malloc(unsafe { as_out(devPtr) }, size))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFree(devPtr: *mut c_void) -> cudaError_t {
    entry!(cudaFree(devPtr) => memory::free(devPtr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> cudaError_t {
    entry!(cudaMallocHost(ptr, size) => memory::malloc_host(unsafe { as_out(ptr) }, size))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeHost(ptr: *mut c_void) -> cudaError_t {
    entry!(cudaFreeHost(ptr) => memory::free_host(ptr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostAlloc(pHost: *mut *mut c_void, size: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaHostAlloc(pHost, size, flags) => memory::host_alloc(unsafe { as_out(pHost) }, size, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostRegister(ptr: *mut c_void, size: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaHostRegister(ptr, size, flags) => memory::host_register(ptr, size, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostUnregister(ptr: *mut c_void) -> cudaError_t {
    entry!(cudaHostUnregister(ptr) => memory::host_unregister(ptr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostGetDevicePointer(pDevice: *mut *mut c_void, pHost: *mut c_void, flags: c_uint) -> cudaError_t {
    entry!(cudaHostGetDevicePointer(pDevice, pHost, flags) => memory::host_device_pointer(unsafe { as_out(pDevice) }, pHost, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostGetFlags(pFlags: *mut c_uint, pHost: *mut c_void) -> cudaError_t {
    entry!(cudaHostGetFlags(pFlags, pHost) => memory::host_flags(unsafe { as_out(pFlags) }, pHost))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocManaged(devPtr: *mut *mut c_void, size: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaMallocManaged(devPtr, size, flags) => memory::malloc_managed(unsafe { as_out(devPtr) }, size, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocPitch(devPtr: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize) -> cudaError_t {
    entry!(cudaMallocPitch(devPtr, pitch, width, height) => memory::malloc_pitch(unsafe { as_out(devPtr) }, unsafe { as_out(pitch) }, width, height))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMalloc3D(pitchedDevPtr: *mut cudaPitchedPtr, extent: cudaExtent) -> cudaError_t {
    entry!(cudaMalloc3D(pitchedDevPtr, extent) => memory::malloc_3d(unsafe { as_out(pitchedDevPtr) }, extent))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemGetInfo(free: *mut usize, total: *mut usize) -> cudaError_t {
    entry!(cudaMemGetInfo(free, total) => memory::mem_info(unsafe { as_out(free) }, unsafe { as_out(total) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocArray(array: *mut cudaArray_t, desc: *const cudaChannelFormatDesc, width: usize, height: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaMallocArray(array, desc, width, height, flags) => memory::malloc_array(unsafe { as_out(array) }, unsafe { as_in(desc) }, width, height, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMalloc3DArray(array: *mut cudaArray_t, desc: *const cudaChannelFormatDesc, extent: cudaExtent, flags: c_uint) -> cudaError_t {
    entry!(cudaMalloc3DArray(array, desc, extent, flags) => memory::malloc_3d_array(unsafe { as_out(array) }, unsafe { as_in(desc) }, extent, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocMipmappedArray(mipmappedArray: *mut cudaMipmappedArray_t, desc: *const cudaChannelFormatDesc, extent: cudaExtent, numLevels: c_uint, flags: c_uint) -> cudaError_t {
    entry!(cudaMallocMipmappedArray(mipmappedArray, desc, extent, numLevels, flags) => memory::malloc_mipmapped_array(unsafe { as_out(mipmappedArray) }, unsafe { as_in(desc) }, extent, numLevels, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetMipmappedArrayLevel(levelArray: *mut cudaArray_t, mipmappedArray: cudaMipmappedArray_const_t, level: c_uint) -> cudaError_t {
    entry!(cudaGetMipmappedArrayLevel(levelArray, mipmappedArray, level) => memory::mipmapped_array_level(unsafe { as_out(levelArray) }, mipmappedArray, level))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeArray(array: cudaArray_t) -> cudaError_t {
    entry!(cudaFreeArray(array) => memory::free_array(array))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeMipmappedArray(mipmappedArray: cudaMipmappedArray_t) -> cudaError_t {
    entry!(cudaFreeMipmappedArray(mipmappedArray) => memory::free_mipmapped_array(mipmappedArray))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaArrayGetInfo(desc: *mut cudaChannelFormatDesc, extent: *mut cudaExtent, flags: *mut c_uint, array: cudaArray_t) -> cudaError_t {
    entry!(cudaArrayGetInfo(desc, extent, flags, array) => memory::array_info(unsafe { as_out(desc) }, unsafe { as_out(extent) }, unsafe { as_out(flags) }, array))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaArrayGetPlane(pPlaneArray: *mut cudaArray_t, hArray: cudaArray_t, planeIdx: c_uint) -> cudaError_t {
    entry!(cudaArrayGetPlane(pPlaneArray, hArray, planeIdx) => memory::array_plane(unsafe { as_out(pPlaneArray) }, hArray, planeIdx))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaArrayGetMemoryRequirements(memoryRequirements: *mut cudaArrayMemoryRequirements, array: cudaArray_t, device: c_int) -> cudaError_t {
    entry!(cudaArrayGetMemoryRequirements(memoryRequirements, array, device) => memory::array_memory_requirements(unsafe { as_out(memoryRequirements) }, array, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMipmappedArrayGetMemoryRequirements(memoryRequirements: *mut cudaArrayMemoryRequirements, mipmap: cudaMipmappedArray_t, device: c_int) -> cudaError_t {
    entry!(cudaMipmappedArrayGetMemoryRequirements(memoryRequirements, mipmap, device) => memory::mipmapped_array_memory_requirements(unsafe { as_out(memoryRequirements) }, mipmap, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaArrayGetSparseProperties(sparseProperties: *mut cudaArraySparseProperties, array: cudaArray_t) -> cudaError_t {
    entry!(cudaArrayGetSparseProperties(sparseProperties, array) => memory::array_sparse_properties(unsafe { as_out(sparseProperties) }, array))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMipmappedArrayGetSparseProperties(sparseProperties: *mut cudaArraySparseProperties, mipmap: cudaMipmappedArray_t) -> cudaError_t {
    entry!(cudaMipmappedArrayGetSparseProperties(sparseProperties, mipmap) => memory::mipmapped_array_sparse_properties(unsafe { as_out(sparseProperties) }, mipmap))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy(dst, src, count, kind) => memory::memcpy(dst, src, count, kind, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy_ptds(dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy_ptds(dst, src, count, kind) => memory::memcpy(dst, src, count, kind, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyAsync(dst, src, count, kind, stream) => memory::memcpy(dst, src, count, kind, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyAsync_ptsz(dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyAsync_ptsz(dst, src, count, kind, stream) => memory::memcpy(dst, src, count, kind, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2D(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind) => memory::memcpy_2d(dst, dpitch, src, spitch, width, height, kind, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2D_ptds(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy2D_ptds(dst, dpitch, src, spitch, width, height, kind) => memory::memcpy_2d(dst, dpitch, src, spitch, width, height, kind, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DAsync(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream) => memory::memcpy_2d(dst, dpitch, src, spitch, width, height, kind, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DAsync_ptsz(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy2DAsync_ptsz(dst, dpitch, src, spitch, width, height, kind, stream) => memory::memcpy_2d(dst, dpitch, src, spitch, width, height, kind, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DToArray(dst: cudaArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind) => memory::memcpy_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DToArray_ptds(dst: cudaArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy2DToArray_ptds(dst, wOffset, hOffset, src, spitch, width, height, kind) => memory::memcpy_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DToArrayAsync(dst: cudaArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind, stream) => memory::memcpy_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DToArrayAsync_ptsz(dst: cudaArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy2DToArrayAsync_ptsz(dst, wOffset, hOffset, src, spitch, width, height, kind, stream) => memory::memcpy_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DFromArray(dst: *mut c_void, dpitch: usize, src: cudaArray_const_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind) => memory::memcpy_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DFromArray_ptds(dst: *mut c_void, dpitch: usize, src: cudaArray_const_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy2DFromArray_ptds(dst, dpitch, src, wOffset, hOffset, width, height, kind) => memory::memcpy_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DFromArrayAsync(dst: *mut c_void, dpitch: usize, src: cudaArray_const_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream) => memory::memcpy_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DFromArrayAsync_ptsz(dst: *mut c_void, dpitch: usize, src: cudaArray_const_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy2DFromArrayAsync_ptsz(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream) => memory::memcpy_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DArrayToArray(dst: cudaArray_t, wOffsetDst: usize, hOffsetDst: usize, src: cudaArray_const_t, wOffsetSrc: usize, hOffsetSrc: usize, width: usize, height: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy2DArrayToArray(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, width, height, kind) => memory::memcpy_2d_array_to_array(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, width, height, kind, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DArrayToArray_ptds(dst: cudaArray_t, wOffsetDst: usize, hOffsetDst: usize, src: cudaArray_const_t, wOffsetSrc: usize, hOffsetSrc: usize, width: usize, height: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpy2DArrayToArray_ptds(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, width, height, kind) => memory::memcpy_2d_array_to_array(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, width, height, kind, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToArray(dst: cudaArray_t, wOffset: usize, hOffset: usize, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind) => memory::memcpy_to_array(dst, wOffset, hOffset, src, count, kind, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToArray_ptds(dst: cudaArray_t, wOffset: usize, hOffset: usize, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyToArray_ptds(dst, wOffset, hOffset, src, count, kind) => memory::memcpy_to_array(dst, wOffset, hOffset, src, count, kind, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToArrayAsync(dst: cudaArray_t, wOffset: usize, hOffset: usize, src: *const c_void, count: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyToArrayAsync(dst, wOffset, hOffset, src, count, kind, stream) => memory::memcpy_to_array(dst, wOffset, hOffset, src, count, kind, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToArrayAsync_ptsz(dst: cudaArray_t, wOffset: usize, hOffset: usize, src: *const c_void, count: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyToArrayAsync_ptsz(dst, wOffset, hOffset, src, count, kind, stream) => memory::memcpy_to_array(dst, wOffset, hOffset, src, count, kind, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromArray(dst: *mut c_void, src: cudaArray_const_t, wOffset: usize, hOffset: usize, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind) => memory::memcpy_from_array(dst, src, wOffset, hOffset, count, kind, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromArray_ptds(dst: *mut c_void, src: cudaArray_const_t, wOffset: usize, hOffset: usize, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyFromArray_ptds(dst, src, wOffset, hOffset, count, kind) => memory::memcpy_from_array(dst, src, wOffset, hOffset, count, kind, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromArrayAsync(dst: *mut c_void, src: cudaArray_const_t, wOffset: usize, hOffset: usize, count: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyFromArrayAsync(dst, src, wOffset, hOffset, count, kind, stream) => memory::memcpy_from_array(dst, src, wOffset, hOffset, count, kind, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromArrayAsync_ptsz(dst: *mut c_void, src: cudaArray_const_t, wOffset: usize, hOffset: usize, count: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyFromArrayAsync_ptsz(dst, src, wOffset, hOffset, count, kind, stream) => memory::memcpy_from_array(dst, src, wOffset, hOffset, count, kind, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyArrayToArray(dst: cudaArray_t, wOffsetDst: usize, hOffsetDst: usize, src: cudaArray_const_t, wOffsetSrc: usize, hOffsetSrc: usize, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyArrayToArray(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, count, kind) => memory::memcpy_array_to_array(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, count, kind, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyArrayToArray_ptds(dst: cudaArray_t, wOffsetDst: usize, hOffsetDst: usize, src: cudaArray_const_t, wOffsetSrc: usize, hOffsetSrc: usize, count: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyArrayToArray_ptds(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, count, kind) => memory::memcpy_array_to_array(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, count, kind, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3D(p: *const cudaMemcpy3DParms) -> cudaError_t {
    entry!(cudaMemcpy3D(p) => memory::memcpy_3d(unsafe { as_in(p) }, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3D_ptds(p: *const cudaMemcpy3DParms) -> cudaError_t {
    entry!(cudaMemcpy3D_ptds(p) => memory::memcpy_3d(unsafe { as_in(p) }, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DAsync(p: *const cudaMemcpy3DParms, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DAsync(p, stream) => memory::memcpy_3d(unsafe { as_in(p) }, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DAsync_ptsz(p: *const cudaMemcpy3DParms, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DAsync_ptsz(p, stream) => memory::memcpy_3d(unsafe { as_in(p) }, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DPeer(p: *const cudaMemcpy3DPeerParms) -> cudaError_t {
    entry!(cudaMemcpy3DPeer(p) => memory::memcpy_3d_peer(unsafe { as_in(p) }, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DPeer_ptds(p: *const cudaMemcpy3DPeerParms) -> cudaError_t {
    entry!(cudaMemcpy3DPeer_ptds(p) => memory::memcpy_3d_peer(unsafe { as_in(p) }, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DPeerAsync(p: *const cudaMemcpy3DPeerParms, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DPeerAsync(p, stream) => memory::memcpy_3d_peer(unsafe { as_in(p) }, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DPeerAsync_ptsz(p: *const cudaMemcpy3DPeerParms, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DPeerAsync_ptsz(p, stream) => memory::memcpy_3d_peer(unsafe { as_in(p) }, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyPeer(dst: *mut c_void, dstDevice: c_int, src: *const c_void, srcDevice: c_int, count: usize) -> cudaError_t {
    entry!(cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count) => memory::memcpy_peer(dst, dstDevice, src, srcDevice, count, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyPeerAsync(dst: *mut c_void, dstDevice: c_int, src: *const c_void, srcDevice: c_int, count: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyPeerAsync(dst, dstDevice, src, srcDevice, count, stream) => memory::memcpy_peer(dst, dstDevice, src, srcDevice, count, Some(stream)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyBatchAsync(dsts: *const *mut c_void, srcs: *const *const c_void, sizes: *const usize, count: usize, attrs: *mut cudaMemcpyAttributes, attrsIdxs: *mut usize, numAttrs: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream) => memory::memcpy_batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyBatchAsync_ptsz(dsts: *const *mut c_void, srcs: *const *const c_void, sizes: *const usize, count: usize, attrs: *mut cudaMemcpyAttributes, attrsIdxs: *mut usize, numAttrs: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyBatchAsync_ptsz(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream) => memory::memcpy_batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DBatchAsync(numOps: usize, opList: *mut cudaMemcpy3DBatchOp, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DBatchAsync(numOps, opList, flags, stream) => memory::memcpy_3d_batch(numOps, opList, flags, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DBatchAsync_ptsz(numOps: usize, opList: *mut cudaMemcpy3DBatchOp, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DBatchAsync_ptsz(numOps, opList, flags, stream) => memory::memcpy_3d_batch(numOps, opList, flags, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset(devPtr: *mut c_void, value: c_int, count: usize) -> cudaError_t {
    entry!(cudaMemset(devPtr, value, count) => memory::memset(devPtr, value, count, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset_ptds(devPtr: *mut c_void, value: c_int, count: usize) -> cudaError_t {
    entry!(cudaMemset_ptds(devPtr, value, count) => memory::memset(devPtr, value, count, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemsetAsync(devPtr: *mut c_void, value: c_int, count: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemsetAsync(devPtr, value, count, stream) => memory::memset(devPtr, value, count, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemsetAsync_ptsz(devPtr: *mut c_void, value: c_int, count: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemsetAsync_ptsz(devPtr, value, count, stream) => memory::memset(devPtr, value, count, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset2D(devPtr: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) -> cudaError_t {
    entry!(cudaMemset2D(devPtr, pitch, value, width, height) => memory::memset_2d(devPtr, pitch, value, width, height, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset2D_ptds(devPtr: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) -> cudaError_t {
    entry!(cudaMemset2D_ptds(devPtr, pitch, value, width, height) => memory::memset_2d(devPtr, pitch, value, width, height, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset2DAsync(devPtr: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemset2DAsync(devPtr, pitch, value, width, height, stream) => memory::memset_2d(devPtr, pitch, value, width, height, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset2DAsync_ptsz(devPtr: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemset2DAsync_ptsz(devPtr, pitch, value, width, height, stream) => memory::memset_2d(devPtr, pitch, value, width, height, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset3D(pitchedDevPtr: cudaPitchedPtr, value: c_int, extent: cudaExtent) -> cudaError_t {
    entry!(cudaMemset3D(pitchedDevPtr, value, extent) => memory::memset_3d(pitchedDevPtr, value, extent, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset3D_ptds(pitchedDevPtr: cudaPitchedPtr, value: c_int, extent: cudaExtent) -> cudaError_t {
    entry!(cudaMemset3D_ptds(pitchedDevPtr, value, extent) => memory::memset_3d(pitchedDevPtr, value, extent, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset3DAsync(pitchedDevPtr: cudaPitchedPtr, value: c_int, extent: cudaExtent, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemset3DAsync(pitchedDevPtr, value, extent, stream) => memory::memset_3d(pitchedDevPtr, value, extent, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset3DAsync_ptsz(pitchedDevPtr: cudaPitchedPtr, value: c_int, extent: cudaExtent, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemset3DAsync_ptsz(pitchedDevPtr, value, extent, stream) => memory::memset_3d(pitchedDevPtr, value, extent, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaPointerGetAttributes(attributes: *mut cudaPointerAttributes, ptr: *const c_void) -> cudaError_t {
    entry!(cudaPointerGetAttributes(attributes, ptr) => memory::pointer_attributes(unsafe { as_out(attributes) }, ptr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPrefetchAsync(devPtr: *const c_void, count: usize, location: cudaMemLocation, flags: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemPrefetchAsync(devPtr, count, location, flags, stream) => memory::prefetch(devPtr, count, location, flags, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPrefetchAsync_ptsz(devPtr: *const c_void, count: usize, location: cudaMemLocation, flags: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemPrefetchAsync_ptsz(devPtr, count, location, flags, stream) => memory::prefetch(devPtr, count, location, flags, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemAdvise(devPtr: *const c_void, count: usize, advice: cudaMemoryAdvise, location: cudaMemLocation) -> cudaError_t {
    entry!(cudaMemAdvise(devPtr, count, advice, location) => memory::advise(devPtr, count, advice, location))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPrefetchBatchAsync(dptrs: *mut *mut c_void, sizes: *mut usize, count: usize, prefetchLocs: *mut cudaMemLocation, prefetchLocIdxs: *mut usize, numPrefetchLocs: usize, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemPrefetchBatchAsync(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream) => memory::prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPrefetchBatchAsync_ptsz(dptrs: *mut *mut c_void, sizes: *mut usize, count: usize, prefetchLocs: *mut cudaMemLocation, prefetchLocIdxs: *mut usize, numPrefetchLocs: usize, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemPrefetchBatchAsync_ptsz(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream) => memory::prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemDiscardBatchAsync(dptrs: *mut *mut c_void, sizes: *mut usize, count: usize, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemDiscardBatchAsync(dptrs, sizes, count, flags, stream) => memory::discard_batch(dptrs, sizes, count, flags, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemDiscardBatchAsync_ptsz(dptrs: *mut *mut c_void, sizes: *mut usize, count: usize, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemDiscardBatchAsync_ptsz(dptrs, sizes, count, flags, stream) => memory::discard_batch(dptrs, sizes, count, flags, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemDiscardAndPrefetchBatchAsync(dptrs: *mut *mut c_void, sizes: *mut usize, count: usize, prefetchLocs: *mut cudaMemLocation, prefetchLocIdxs: *mut usize, numPrefetchLocs: usize, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemDiscardAndPrefetchBatchAsync(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream) => memory::discard_and_prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemDiscardAndPrefetchBatchAsync_ptsz(dptrs: *mut *mut c_void, sizes: *mut usize, count: usize, prefetchLocs: *mut cudaMemLocation, prefetchLocIdxs: *mut usize, numPrefetchLocs: usize, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemDiscardAndPrefetchBatchAsync_ptsz(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream) => memory::discard_and_prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemRangeGetAttribute(data: *mut c_void, dataSize: usize, attribute: cudaMemRangeAttribute, devPtr: *const c_void, count: usize) -> cudaError_t {
    entry!(cudaMemRangeGetAttribute(data, dataSize, attribute, devPtr, count) => memory::range_attribute(data, dataSize, attribute, devPtr, count))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemRangeGetAttributes(data: *mut *mut c_void, dataSizes: *mut usize, attributes: *mut cudaMemRangeAttribute, numAttributes: usize, devPtr: *const c_void, count: usize) -> cudaError_t {
    entry!(cudaMemRangeGetAttributes(data, dataSizes, attributes, numAttributes, devPtr, count) => memory::range_attributes(data, dataSizes, attributes, numAttributes, devPtr, count))
}

// CUDA 13.2 to 13.4: copies with attributes, memory location queries.

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyWithAttributesAsync(dst: *mut c_void, src: *const c_void, size: usize, attr: *mut cudaMemcpyAttributes, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyWithAttributesAsync(dst, src, size, attr, stream) => crate::runtime::copy_attributes::memcpy(dst, src, size, unsafe { attr.as_mut() }, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyWithAttributesAsync_ptsz(dst: *mut c_void, src: *const c_void, size: usize, attr: *mut cudaMemcpyAttributes, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyWithAttributesAsync_ptsz(dst, src, size, attr, stream) => crate::runtime::copy_attributes::memcpy(dst, src, size, unsafe { attr.as_mut() }, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DWithAttributesAsync(op: *mut cudaMemcpy3DBatchOp, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DWithAttributesAsync(op, flags, stream) => crate::runtime::copy_attributes::memcpy_3d(unsafe { op.as_mut() }, flags, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy3DWithAttributesAsync_ptsz(op: *mut cudaMemcpy3DBatchOp, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DWithAttributesAsync_ptsz(op, flags, stream) => crate::runtime::copy_attributes::memcpy_3d(unsafe { op.as_mut() }, flags, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemGetLocationInfo(devPtr: *mut c_void, size: usize, summaryGranularity: usize, samplingGranularity: usize, location_out: *mut cudaMemLocation) -> cudaError_t {
    entry!(cudaMemGetLocationInfo(devPtr, size, summaryGranularity, samplingGranularity, location_out) => crate::runtime::copy_attributes::location_info(devPtr, size, summaryGranularity, samplingGranularity, unsafe { location_out.as_mut() }))
}
