//! Runtime and driver versions.

use super::out_first;
use crate::types::*;
use std::ffi::c_int;

/// The CUDA version this runtime implements and reports (13.5: the newest
/// libcudart.so.13 whose exports it has). The one place that says so.
pub const RUNTIME_VERSION: c_int = 13050;

/// `cudaDriverGetVersion`: 0 (and success) when no driver can be loaded.
/// Needs no `cuInit`.
/// `cudaDriverGetVersion`.
pub fn get_driver_version(out: Option<&mut c_int>) -> CudaResult {
    out_first(out, driver_version)
}

/// `cudaRuntimeGetVersion`.
pub fn get_runtime_version(out: Option<&mut c_int>) -> CudaResult {
    out_first(out, || Ok(RUNTIME_VERSION))
}

fn driver_version() -> CudaResult<c_int> {
    if crate::driver::driver().is_err() {
        return Ok(0);
    }
    let mut v = 0;
    cu!(cuDriverGetVersion(&mut v))?;
    Ok(v)
}
