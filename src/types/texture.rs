//! C ABI types of textures, surfaces and channel formats (CUDA 13.0 layouts).

pub use super::texture_enums::*;
use std::ffi::c_int;

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
crate::trace_debug!(cudaChannelFormatDesc);
