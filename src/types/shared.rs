//! C ABI types several areas share: copy shapes (memory, graphs, textures),
//! host functions (streams, graphs), launch attributes (launches, streams,
//! graph kernel nodes). One definition each; the areas import them.

pub use super::shared_enums::*;
use super::handles::*;
use std::ffi::{c_char, c_int, c_uint, c_void};


/// C: `cudaHostFn_t`.
pub type cudaHostFn_t = Option<unsafe extern "C" fn(userData: *mut c_void)>;

/// C: `struct cudaPitchedPtr`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaPitchedPtr {
    pub ptr: *mut c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}

/// C: `struct cudaExtent`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaExtent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// C: `struct cudaPos`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaPos {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

/// C: `struct cudaMemcpy3DParms`. Positions and widths are in bytes for
/// linear memory and in elements for arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaMemcpy3DParms {
    pub srcArray: cudaArray_t,
    pub srcPos: cudaPos,
    pub srcPtr: cudaPitchedPtr,
    pub dstArray: cudaArray_t,
    pub dstPos: cudaPos,
    pub dstPtr: cudaPitchedPtr,
    pub extent: cudaExtent,
    pub kind: cudaMemcpyKind,
}

impl Default for cudaPitchedPtr {
    fn default() -> Self {
        cudaPitchedPtr { ptr: std::ptr::null_mut(), pitch: 0, xsize: 0, ysize: 0 }
    }
}

impl Default for cudaMemcpy3DParms {
    fn default() -> Self {
        cudaMemcpy3DParms {
            srcArray: std::ptr::null_mut(),
            srcPos: cudaPos::default(),
            srcPtr: cudaPitchedPtr::default(),
            dstArray: std::ptr::null_mut(),
            dstPos: cudaPos::default(),
            dstPtr: cudaPitchedPtr::default(),
            extent: cudaExtent::default(),
            kind: cudaMemcpyHostToHost,
        }
    }
}

/// C: `struct cudaAccessPolicyWindow`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaAccessPolicyWindow {
    pub base_ptr: *mut c_void,
    pub num_bytes: usize,
    pub hitRatio: f32,
    pub hitProp: cudaAccessProperty,
    pub missProp: cudaAccessProperty,
}

/// C: `cudaLaunchMemSyncDomainMap` (`struct cudaLaunchMemSyncDomainMap_st`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaLaunchMemSyncDomainMap {
    pub default_: u8,
    pub remote: u8,
}

/// C: `union cudaLaunchAttributeValue` (64 bytes). The members NVIDIA
/// declares with anonymous struct types (clusterDim, programmaticEvent, ...)
/// are reached through `pad`; every member starts at offset 0.
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaLaunchAttributeValue {
    pub pad: [c_char; 64],
    pub accessPolicyWindow: cudaAccessPolicyWindow,
    pub cooperative: c_int,
    pub syncPolicy: cudaSynchronizationPolicy,
    pub clusterSchedulingPolicyPreference: c_int,
    pub programmaticStreamSerializationAllowed: c_int,
    pub priority: c_int,
    pub memSyncDomainMap: cudaLaunchMemSyncDomainMap,
    pub memSyncDomain: c_int,
    /// Keeps the 8-byte alignment of NVIDIA's pointer members.
    pub _devNode: cudaGraphDeviceNode_t,
}


