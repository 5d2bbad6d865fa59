//! `cudaExtent` and `cudaPitchedPtr` belong to the memory area; the external
//! memory and EGL descriptors need them too. Defined here until the memory
//! branch lands: when it does, delete this file and its line in
//! `types/mod.rs` (the memory area's definitions are the same layout).

use std::ffi::c_void;

/// C: `struct cudaExtent`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaExtent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// C: `struct cudaPitchedPtr`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaPitchedPtr {
    pub ptr: *mut c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}
