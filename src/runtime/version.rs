//! Runtime and driver versions.

use crate::types::*;
use std::ffi::c_int;

/// The CUDA version this runtime implements (13.0).
pub const RUNTIME_VERSION: c_int = 13000;

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
