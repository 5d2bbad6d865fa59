//! Sets: `cudaMemset*`. The runtime's value is an `int` of which the low
//! byte is written (the driver's 8-bit sets).

use super::copy::On;
use super::dptr;
use crate::driver::StreamMode;
use crate::runtime::context::enter;
use crate::types::*;
use std::ffi::{c_int, c_void};

/// `cudaMemset` / `cudaMemsetAsync`.
#[inline]
pub fn memset(p: *mut c_void, value: c_int, count: usize, on: On, m: StreamMode) -> CudaResult {
    enter()?;
    if count == 0 {
        return Ok(());
    }
    match on {
        None => cu!(mode m; cuMemsetD8(dptr(p), value as u8, count)),
        Some(st) => cu!(mode m; cuMemsetD8Async(dptr(p), value as u8, count, st)),
    }
}

/// `cudaMemset2D` / `cudaMemset2DAsync`.
pub fn memset_2d(p: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, on: On, m: StreamMode) -> CudaResult {
    enter()?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    set_rows(p, pitch, value, width, height, on, m)
}

fn set_rows(p: *mut c_void, pitch: usize, value: c_int, width: usize, rows: usize, on: On, m: StreamMode) -> CudaResult {
    match on {
        None => cu!(mode m; cuMemsetD2D8(dptr(p), pitch, value as u8, width, rows)),
        Some(st) => cu!(mode m; cuMemsetD2D8Async(dptr(p), pitch, value as u8, width, rows, st)),
    }
}

/// `cudaMemset3D` / `cudaMemset3DAsync`: `extent.width` bytes of
/// `extent.height` rows in `extent.depth` slices of `ysize` rows each.
/// When the slices are contiguous (`height == ysize`, or one slice) this
/// is one 2D set; otherwise one per slice.
pub fn memset_3d(p: cudaPitchedPtr, value: c_int, extent: cudaExtent, on: On, m: StreamMode) -> CudaResult {
    enter()?;
    if extent.width == 0 || extent.height == 0 || extent.depth == 0 {
        return Ok(());
    }
    if extent.height > p.ysize && extent.depth > 1 {
        return Err(cudaErrorInvalidValue);
    }
    if extent.depth == 1 || extent.height == p.ysize {
        let rows = extent.height.checked_mul(extent.depth).ok_or(cudaErrorInvalidValue)?;
        return set_rows(p.ptr, p.pitch, value, extent.width, rows, on, m);
    }
    let slice = p.pitch.checked_mul(p.ysize).ok_or(cudaErrorInvalidValue)?;
    for z in 0..extent.depth {
        let base = (p.ptr as usize).wrapping_add(z * slice) as *mut c_void;
        set_rows(base, p.pitch, value, extent.width, extent.height, on, m)?;
    }
    Ok(())
}
