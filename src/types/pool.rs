//! C ABI types of the stream-ordered allocator and memory pools (CUDA 13.0
//! layouts). `cudaMemLocation` lives here; other areas (memory advice,
//! prefetch) import it from here.

pub use super::pool_enums::*;
use std::ffi::{c_int, c_uchar, c_ushort, c_void};

/// C: `struct cudaMemLocation` (8 bytes). For a device location `id` is a
/// runtime device ordinal; for host NUMA locations a NUMA node id.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaMemLocation {
    pub r#type: cudaMemLocationType,
    pub id: c_int,
}

/// C: `struct cudaMemAccessDesc` (12 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaMemAccessDesc {
    pub location: cudaMemLocation,
    pub flags: cudaMemAccessFlags,
}

/// C: `struct cudaMemPoolProps` (88 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaMemPoolProps {
    pub allocType: cudaMemAllocationType,
    pub handleTypes: cudaMemAllocationHandleType,
    pub location: cudaMemLocation,
    pub win32SecurityAttributes: *mut c_void,
    pub maxSize: usize,
    pub usage: c_ushort,
    pub reserved: [c_uchar; 54],
}

impl Default for cudaMemPoolProps {
    fn default() -> Self {
        cudaMemPoolProps {
            allocType: cudaMemAllocationType(0),
            handleTypes: cudaMemAllocationHandleType(0),
            location: cudaMemLocation::default(),
            win32SecurityAttributes: std::ptr::null_mut(),
            maxSize: 0,
            usage: 0,
            reserved: [0; 54],
        }
    }
}

/// C: `struct cudaMemPoolPtrExportData` (64 opaque bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaMemPoolPtrExportData {
    pub reserved: [c_uchar; 64],
}

/// C: `cudaMemPoolCreateUsageHwDecompress`.
pub const cudaMemPoolCreateUsageHwDecompress: c_int = 0x2;

