//! C ABI types of textures, surfaces and channel formats (CUDA 13.0 layouts).

pub use super::texture_enums::*;
pub use super::texture_sampling_enums::*;
use super::handles::{cudaArray_t, cudaMipmappedArray_t};
use std::ffi::{c_float, c_int, c_uint, c_void};

/// C: `struct cudaChannelFormatDesc`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaChannelFormatDesc {
    pub x: c_int,
    pub y: c_int,
    pub z: c_int,
    pub w: c_int,
    pub f: cudaChannelFormatKind,
}

/// `cudaResourceDesc::res.array` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaResourceDescArray {
    pub array: cudaArray_t,
}

/// `cudaResourceDesc::res.mipmap` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaResourceDescMipmap {
    pub mipmap: cudaMipmappedArray_t,
}

/// `cudaResourceDesc::res.linear` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaResourceDescLinear {
    pub devPtr: *mut c_void,
    pub desc: cudaChannelFormatDesc,
    pub sizeInBytes: usize,
}

/// `cudaResourceDesc::res.pitch2D` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaResourceDescPitch2D {
    pub devPtr: *mut c_void,
    pub desc: cudaChannelFormatDesc,
    pub width: usize,
    pub height: usize,
    pub pitchInBytes: usize,
}

/// `cudaResourceDesc::res.reserved` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaResourceDescReserved {
    pub reserved: [c_int; 32],
}

/// `cudaResourceDesc::res` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaResourceDescRes {
    pub array: cudaResourceDescArray,
    pub mipmap: cudaResourceDescMipmap,
    pub linear: cudaResourceDescLinear,
    pub pitch2D: cudaResourceDescPitch2D,
    pub reserved: cudaResourceDescReserved,
}

/// C: `struct cudaResourceDesc` (144 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaResourceDesc {
    pub resType: cudaResourceType,
    pub res: cudaResourceDescRes,
    pub flags: c_uint,
}

impl Default for cudaResourceDesc {
    fn default() -> Self {
        cudaResourceDesc {
            resType: cudaResourceType(0),
            res: cudaResourceDescRes { reserved: cudaResourceDescReserved { reserved: [0; 32] } },
            flags: 0,
        }
    }
}

/// C: `struct cudaResourceViewDesc`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaResourceViewDesc {
    pub format: cudaResourceViewFormat,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub firstMipmapLevel: c_uint,
    pub lastMipmapLevel: c_uint,
    pub firstLayer: c_uint,
    pub lastLayer: c_uint,
    pub reserved: [c_uint; 16],
}

/// C: `struct cudaTextureDesc`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cudaTextureDesc {
    pub addressMode: [cudaTextureAddressMode; 3],
    pub filterMode: cudaTextureFilterMode,
    pub readMode: cudaTextureReadMode,
    pub sRGB: c_int,
    pub borderColor: [c_float; 4],
    pub normalizedCoords: c_int,
    pub maxAnisotropy: c_uint,
    pub mipmapFilterMode: cudaTextureFilterMode,
    pub mipmapLevelBias: c_float,
    pub minMipmapLevelClamp: c_float,
    pub maxMipmapLevelClamp: c_float,
    pub disableTrilinearOptimization: c_int,
    pub seamlessCubemap: c_int,
}
