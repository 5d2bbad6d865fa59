//! Driver entry points of the memory, unified addressing and peer areas,
//! with their CUDA 13.0 signatures, and the driver structs they take.
//!
//! Where a runtime struct has exactly the driver's layout and values
//! (`cudaMemLocation`, `cudaMemcpyAttributes`, `cudaMemcpy3DBatchOp`,
//! `cudaArrayMemoryRequirements`, `cudaArraySparseProperties`), the table
//! takes the runtime type and the runtime passes it through.

use super::enums::CUarray_format;
use super::table::driver_table;
use super::types::*;
use crate::types::{
    cudaArray, cudaArrayMemoryRequirements, cudaArraySparseProperties, cudaMemLocation, cudaMemcpy3DBatchOp,
    cudaMemcpyAttributes, cudaMipmappedArray,
};
use std::ffi::{c_int, c_uchar, c_uint, c_ulonglong, c_void};

/// C: `CUarray` (the runtime's `cudaArray_t` is the same handle).
pub type CUarray = *mut cudaArray;
/// C: `CUmipmappedArray` (the runtime's `cudaMipmappedArray_t`).
pub type CUmipmappedArray = *mut cudaMipmappedArray;

/// C: `CUmemorytype`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct CUmemorytype(pub c_uint);
pub const CU_MEMORYTYPE_HOST: CUmemorytype = CUmemorytype(1);
pub const CU_MEMORYTYPE_DEVICE: CUmemorytype = CUmemorytype(2);
pub const CU_MEMORYTYPE_ARRAY: CUmemorytype = CUmemorytype(3);
pub const CU_MEMORYTYPE_UNIFIED: CUmemorytype = CUmemorytype(4);

/// C: `CUpointer_attribute` (the values we read).
pub const CU_POINTER_ATTRIBUTE_CONTEXT: c_int = 1;
pub const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: c_int = 2;
pub const CU_POINTER_ATTRIBUTE_DEVICE_POINTER: c_int = 3;
pub const CU_POINTER_ATTRIBUTE_HOST_POINTER: c_int = 4;
pub const CU_POINTER_ATTRIBUTE_IS_MANAGED: c_int = 8;
pub const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: c_int = 9;
pub const CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: c_int = 11;
pub const CU_POINTER_ATTRIBUTE_RANGE_SIZE: c_int = 12;

/// C: `CUDA_MEMCPY2D` (v2).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMCPY2D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcMemoryType: CUmemorytype,
    pub srcHost: *const c_void,
    pub srcDevice: CUdeviceptr,
    pub srcArray: CUarray,
    pub srcPitch: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstMemoryType: CUmemorytype,
    pub dstHost: *mut c_void,
    pub dstDevice: CUdeviceptr,
    pub dstArray: CUarray,
    pub dstPitch: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
}

/// C: `CUDA_MEMCPY3D` (v2).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMCPY3D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcZ: usize,
    pub srcLOD: usize,
    pub srcMemoryType: CUmemorytype,
    pub srcHost: *const c_void,
    pub srcDevice: CUdeviceptr,
    pub srcArray: CUarray,
    pub reserved0: *mut c_void,
    pub srcPitch: usize,
    pub srcHeight: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstZ: usize,
    pub dstLOD: usize,
    pub dstMemoryType: CUmemorytype,
    pub dstHost: *mut c_void,
    pub dstDevice: CUdeviceptr,
    pub dstArray: CUarray,
    pub reserved1: *mut c_void,
    pub dstPitch: usize,
    pub dstHeight: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
    pub Depth: usize,
}

impl Default for CUDA_MEMCPY3D {
    fn default() -> Self {
        // SAFETY: every field is an integer or a raw pointer; all-zero is valid.
        unsafe { std::mem::zeroed() }
    }
}

/// C: `CUDA_MEMCPY3D_PEER`: `CUDA_MEMCPY3D` with the two reserved
/// pointers replaced by the source and destination contexts.
pub type CUDA_MEMCPY3D_PEER = CUDA_MEMCPY3D;

/// C: `CUDA_ARRAY_DESCRIPTOR` (v2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUDA_ARRAY_DESCRIPTOR {
    pub Width: usize,
    pub Height: usize,
    pub Format: CUarray_format,
    pub NumChannels: c_uint,
}

/// C: `CUDA_ARRAY3D_DESCRIPTOR` (v2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUDA_ARRAY3D_DESCRIPTOR {
    pub Width: usize,
    pub Height: usize,
    pub Depth: usize,
    pub Format: CUarray_format,
    pub NumChannels: c_uint,
    pub Flags: c_uint,
}

driver_table! {
    // Allocation.
    fn cuMemAlloc(dptr: *mut CUdeviceptr, bytesize: usize);
    fn cuMemAllocPitch(dptr: *mut CUdeviceptr, pitch: *mut usize, width: usize, height: usize, element_size: c_uint);
    fn cuMemFree(dptr: CUdeviceptr);
    fn cuMemAllocHost(pp: *mut *mut c_void, bytesize: usize);
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, flags: c_uint);
    fn cuMemFreeHost(p: *mut c_void);
    fn cuMemHostRegister(p: *mut c_void, bytesize: usize, flags: c_uint);
    fn cuMemHostUnregister(p: *mut c_void);
    fn cuMemHostGetDevicePointer(dptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint);
    fn cuMemHostGetFlags(flags: *mut c_uint, p: *mut c_void);
    fn cuMemAllocManaged(dptr: *mut CUdeviceptr, bytesize: usize, flags: c_uint);
    fn cuMemGetInfo(free: *mut usize, total: *mut usize);
    fn cuMemGetAddressRange(base: *mut CUdeviceptr, size: *mut usize, dptr: CUdeviceptr);

    // Arrays.
    fn cuArrayCreate(handle: *mut CUarray, desc: *const CUDA_ARRAY_DESCRIPTOR);
    fn cuArray3DCreate(handle: *mut CUarray, desc: *const CUDA_ARRAY3D_DESCRIPTOR);
    fn cuArray3DGetDescriptor(desc: *mut CUDA_ARRAY3D_DESCRIPTOR, array: CUarray);
    fn cuArrayDestroy(array: CUarray);
    fn cuArrayGetPlane(plane: *mut CUarray, array: CUarray, plane_idx: c_uint);
    fn cuArrayGetMemoryRequirements(req: *mut cudaArrayMemoryRequirements, array: CUarray, device: CUdevice);
    fn cuArrayGetSparseProperties(props: *mut cudaArraySparseProperties, array: CUarray);
    fn cuMipmappedArrayCreate(handle: *mut CUmipmappedArray, desc: *const CUDA_ARRAY3D_DESCRIPTOR, levels: c_uint);
    fn cuMipmappedArrayGetLevel(level_array: *mut CUarray, mipmap: CUmipmappedArray, level: c_uint);
    fn cuMipmappedArrayDestroy(mipmap: CUmipmappedArray);
    fn cuMipmappedArrayGetMemoryRequirements(req: *mut cudaArrayMemoryRequirements, mipmap: CUmipmappedArray, device: CUdevice);
    fn cuMipmappedArrayGetSparseProperties(props: *mut cudaArraySparseProperties, mipmap: CUmipmappedArray);

    // Copies (each has a _ptds/_ptsz variant).
    fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, count: usize);
    fn cuMemcpyHtoD(dst: CUdeviceptr, src: *const c_void, count: usize);
    fn cuMemcpyDtoH(dst: *mut c_void, src: CUdeviceptr, count: usize);
    fn cuMemcpyDtoD(dst: CUdeviceptr, src: CUdeviceptr, count: usize);
    fn cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, count: usize, stream: CUstream);
    fn cuMemcpyHtoDAsync(dst: CUdeviceptr, src: *const c_void, count: usize, stream: CUstream);
    fn cuMemcpyDtoHAsync(dst: *mut c_void, src: CUdeviceptr, count: usize, stream: CUstream);
    fn cuMemcpyDtoDAsync(dst: CUdeviceptr, src: CUdeviceptr, count: usize, stream: CUstream);
    fn cuMemcpy2D(copy: *const CUDA_MEMCPY2D);
    fn cuMemcpy2DUnaligned(copy: *const CUDA_MEMCPY2D);
    fn cuMemcpy2DAsync(copy: *const CUDA_MEMCPY2D, stream: CUstream);
    fn cuMemcpy3D(copy: *const CUDA_MEMCPY3D);
    fn cuMemcpy3DAsync(copy: *const CUDA_MEMCPY3D, stream: CUstream);
    fn cuMemcpyPeer(dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, count: usize);
    fn cuMemcpyPeerAsync(dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, count: usize, stream: CUstream);
    fn cuMemcpy3DPeer(copy: *const CUDA_MEMCPY3D_PEER);
    fn cuMemcpy3DPeerAsync(copy: *const CUDA_MEMCPY3D_PEER, stream: CUstream);
    fn cuMemcpyBatchAsync(dsts: *mut CUdeviceptr, srcs: *mut CUdeviceptr, sizes: *mut usize, count: usize, attrs: *mut cudaMemcpyAttributes, attr_idxs: *mut usize, num_attrs: usize, stream: CUstream);
    fn cuMemcpy3DBatchAsync(num_ops: usize, ops: *mut cudaMemcpy3DBatchOp, flags: c_ulonglong, stream: CUstream);

    // Sets.
    fn cuMemsetD8(dst: CUdeviceptr, value: c_uchar, count: usize);
    fn cuMemsetD8Async(dst: CUdeviceptr, value: c_uchar, count: usize, stream: CUstream);
    fn cuMemsetD2D8(dst: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize);
    fn cuMemsetD2D8Async(dst: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize, stream: CUstream);

    // Unified addressing and managed memory.
    fn cuPointerGetAttributes(count: c_uint, attrs: *mut c_int, data: *mut *mut c_void, ptr: CUdeviceptr);
    fn cuMemPrefetchAsync(ptr: CUdeviceptr, count: usize, location: cudaMemLocation, flags: c_uint, stream: CUstream);
    fn cuMemAdvise(ptr: CUdeviceptr, count: usize, advice: c_int, location: cudaMemLocation);
    fn cuMemPrefetchBatchAsync(ptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, locs: *mut cudaMemLocation, loc_idxs: *mut usize, num_locs: usize, flags: c_ulonglong, stream: CUstream);
    fn cuMemDiscardBatchAsync(ptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, flags: c_ulonglong, stream: CUstream);
    fn cuMemDiscardAndPrefetchBatchAsync(ptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, locs: *mut cudaMemLocation, loc_idxs: *mut usize, num_locs: usize, flags: c_ulonglong, stream: CUstream);
    fn cuMemRangeGetAttribute(data: *mut c_void, size: usize, attr: c_int, ptr: CUdeviceptr, count: usize);
    fn cuMemRangeGetAttributes(data: *mut *mut c_void, sizes: *mut usize, attrs: *mut c_int, num: usize, ptr: CUdeviceptr, count: usize);

    // Peer access.
    fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice);
    fn cuCtxEnablePeerAccess(peer: CUcontext, flags: c_uint);
    fn cuCtxDisablePeerAccess(peer: CUcontext);
    fn cuDeviceGetP2PAttribute(value: *mut c_int, attr: c_int, src: CUdevice, dst: CUdevice);
    fn cuDeviceGetP2PAtomicCapabilities(caps: *mut c_uint, ops: *const c_int, count: c_uint, src: CUdevice, dst: CUdevice);
}
