//! C ABI types of the memory, unified addressing and peer areas (CUDA 13.0
//! layouts).

pub use super::memory_enums::*;
use super::handles::cudaArray_t;
use super::{pool::cudaMemLocation, shared::*};
use std::ffi::{c_int, c_long, c_uint, c_ulonglong, c_void};




/// C: `struct cudaMemcpy3DPeerParms`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaMemcpy3DPeerParms {
    pub srcArray: cudaArray_t,
    pub srcPos: cudaPos,
    pub srcPtr: cudaPitchedPtr,
    pub srcDevice: c_int,
    pub dstArray: cudaArray_t,
    pub dstPos: cudaPos,
    pub dstPtr: cudaPitchedPtr,
    pub dstDevice: c_int,
    pub extent: cudaExtent,
}

/// C: `struct cudaArrayMemoryRequirements`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaArrayMemoryRequirements {
    pub size: usize,
    pub alignment: usize,
    pub reserved: [c_uint; 4],
}

/// C: the anonymous `tileExtent` of `struct cudaArraySparseProperties`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaArraySparseTileExtent {
    pub width: c_uint,
    pub height: c_uint,
    pub depth: c_uint,
}

/// C: `struct cudaArraySparseProperties`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaArraySparseProperties {
    pub tileExtent: cudaArraySparseTileExtent,
    pub miptailFirstLevel: c_uint,
    pub miptailSize: c_ulonglong,
    pub flags: c_uint,
    pub reserved: [c_uint; 4],
}


/// C: `struct cudaPointerAttributes` (88 bytes since CUDA 13).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaPointerAttributes {
    pub r#type: cudaMemoryType,
    pub device: c_int,
    pub devicePointer: *mut c_void,
    pub hostPointer: *mut c_void,
    /// CUDA 13.5: the locality domain of a device allocation, or -1 (a
    /// `union { int; long }` in C: ours is the int and 4 bytes of padding).
    pub localityDomainOrdinal: c_int,
    pub _localityDomainOrdinalPad: c_int,
    pub reserved: [c_long; 7],
}

/// C: `struct cudaMemcpyAttributes`. Same layout and values as the
/// driver's `CUmemcpyAttributes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaMemcpyAttributes {
    pub srcAccessOrder: cudaMemcpySrcAccessOrder,
    pub srcLocHint: cudaMemLocation,
    pub dstLocHint: cudaMemLocation,
    pub flags: c_uint,
}

/// C: `struct cudaOffset3D`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaOffset3D {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

/// C: the `ptr` member of `cudaMemcpy3DOperand::op`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaMemcpy3DOperandPtr {
    pub ptr: *mut c_void,
    pub rowLength: usize,
    pub layerHeight: usize,
    pub locHint: cudaMemLocation,
}

/// C: the `array` member of `cudaMemcpy3DOperand::op`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaMemcpy3DOperandArray {
    pub array: cudaArray_t,
    pub offset: cudaOffset3D,
}

/// C: the anonymous union `op` of `struct cudaMemcpy3DOperand`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaMemcpy3DOperandOp {
    pub ptr: cudaMemcpy3DOperandPtr,
    pub array: cudaMemcpy3DOperandArray,
}

/// C: `struct cudaMemcpy3DOperand`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaMemcpy3DOperand {
    pub r#type: cudaMemcpy3DOperandType,
    pub op: cudaMemcpy3DOperandOp,
}

/// C: `struct cudaMemcpy3DBatchOp`. Same layout and values as the driver's
/// `CUDA_MEMCPY3D_BATCH_OP`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaMemcpy3DBatchOp {
    pub src: cudaMemcpy3DOperand,
    pub dst: cudaMemcpy3DOperand,
    pub extent: cudaExtent,
    pub srcAccessOrder: cudaMemcpySrcAccessOrder,
    pub flags: c_uint,
}

// Flags of cudaHostAlloc, cudaHostRegister, cudaMallocArray and friends,
// cudaMallocManaged and cudaDeviceEnablePeerAccess.
pub const cudaHostAllocDefault: c_uint = 0x00;
pub const cudaHostAllocPortable: c_uint = 0x01;
pub const cudaHostAllocMapped: c_uint = 0x02;
pub const cudaHostAllocWriteCombined: c_uint = 0x04;
pub const cudaHostRegisterDefault: c_uint = 0x00;
pub const cudaHostRegisterPortable: c_uint = 0x01;
pub const cudaHostRegisterMapped: c_uint = 0x02;
pub const cudaHostRegisterIoMemory: c_uint = 0x04;
pub const cudaHostRegisterReadOnly: c_uint = 0x08;
pub const cudaPeerAccessDefault: c_uint = 0x00;
pub const cudaArrayDefault: c_uint = 0x00;
pub const cudaArrayLayered: c_uint = 0x01;
pub const cudaArraySurfaceLoadStore: c_uint = 0x02;
pub const cudaArrayCubemap: c_uint = 0x04;
pub const cudaArrayTextureGather: c_uint = 0x08;
pub const cudaArrayColorAttachment: c_uint = 0x20;
pub const cudaArraySparse: c_uint = 0x40;
pub const cudaArrayDeferredMapping: c_uint = 0x80;
pub const cudaArraySparsePropertiesSingleMipTail: c_uint = 0x1;
pub const cudaMemAttachGlobal: c_uint = 0x01;
pub const cudaMemAttachHost: c_uint = 0x02;
pub const cudaMemAttachSingle: c_uint = 0x04;
