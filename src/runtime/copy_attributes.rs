//! Copies with attributes (CUDA 13.2) and memory location queries (13.4).
//! On an older driver NVIDIA's 13.5 runtime answers
//! `cudaErrorCallRequiresNewerDriver` whatever the arguments (measured on
//! H100 / driver 580), so the entry point is looked up first; the driver
//! then checks the arguments. The runtime's attribute and batch-op structs
//! are laid out like the driver's (as `cudaMemcpyBatchAsync` relies on).

use crate::driver::api::*;
use crate::driver::{check, CUdeviceptr, StreamMode};
use crate::types::*;
use std::ffi::{c_ulonglong, c_void};
use std::ptr::null_mut;

/// `cudaMemcpyWithAttributesAsync`.
pub fn memcpy(dst: *mut c_void, src: *const c_void, size: usize, attr: Option<&mut cudaMemcpyAttributes>, s: cudaStream_t, m: StreamMode) -> CudaResult {
    let f = cuMemcpyWithAttributesAsync.get_mode(m)?;
    super::context::enter()?;
    let attr = attr.map_or(null_mut(), |a| a as *mut _);
    // SAFETY: addresses go to the driver as numbers (it validates them);
    // `attr` is NULL or a valid reference.
    check(unsafe { f(dst as CUdeviceptr, src as CUdeviceptr, size, attr, s) })
}

/// `cudaMemcpy3DWithAttributesAsync`.
pub fn memcpy_3d(op: Option<&mut cudaMemcpy3DBatchOp>, flags: c_ulonglong, s: cudaStream_t, m: StreamMode) -> CudaResult {
    let f = cuMemcpy3DWithAttributesAsync.get_mode(m)?;
    super::context::enter()?;
    let op = op.map_or(null_mut(), |o| o as *mut _);
    // SAFETY: `op` is NULL or a valid reference.
    check(unsafe { f(op, flags, s) })
}

/// `cudaMemGetLocationInfo`.
pub fn location_info(ptr: *mut c_void, size: usize, summary: usize, sampling: usize, out: Option<&mut cudaMemLocation>) -> CudaResult {
    let f = cuMemGetLocationInfo.get()?;
    super::context::enter()?;
    let out = out.map_or(null_mut(), |o| o as *mut _);
    // SAFETY: `out` is NULL or a valid reference; the address is a number.
    check(unsafe { f(ptr as CUdeviceptr, size, summary, sampling, out) })
}
