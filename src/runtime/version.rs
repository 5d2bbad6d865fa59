//! Runtime and driver versions.

use crate::types::*;
use std::ffi::c_int;

/// The CUDA version this runtime implements and reports (13.5: the newest
/// libcudart.so.13 whose exports it has). The one place that says so.
pub const RUNTIME_VERSION: c_int = 13050;

/// `cudaDriverGetVersion`: 0 (and success) when no driver can be loaded.
/// Needs no `cuInit`.
pub fn driver_version() -> CudaResult<c_int> {
    if crate::driver::driver().is_err() {
        return Ok(0);
    }
    let mut v = 0;
    cu!(cuDriverGetVersion(&mut v))?;
    Ok(v)
}
