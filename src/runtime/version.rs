//! Runtime and driver versions.

use super::out_first;
use crate::types::*;
use std::ffi::c_int;

/// The CUDA version this runtime implements and reports (13.5: the newest
/// libcudart.so.13 whose exports it has). The one place that says so.
pub const RUNTIME_VERSION: c_int = 13050;

/// `cudaDriverGetVersion`: 0 (and success) when no driver can be loaded.
/// Needs no `cuInit`.
pub fn get_driver_version(out: Option<&mut c_int>) -> CudaResult {
    out_first(out, driver_version)
}

/// `cudaRuntimeGetVersion` of the 13 library (see [`reported`]).
pub fn get_runtime_version(out: Option<&mut c_int>) -> CudaResult {
    out_first(out, || Ok(reported(RUNTIME_VERSION)))
}

/// What `cudaRuntimeGetVersion` answers for a runtime that implements
/// `ours` (13050 for the 13 library, 12090 for the 12 one): never more
/// than the driver's version. A program that checks `driver >= runtime`
/// (frameworks print "CUDA driver version is insufficient for CUDA runtime
/// version") passes with NVIDIA's runtime of its toolkit on an older
/// driver, and must pass with ours: on driver 580 (13000) ours answers
/// 13000, as NVIDIA's 13.0 runtime does. With no driver (or one that
/// cannot say), our own version, as before. `CUDART_SHIM_RUNTIME_VERSION`
/// forces an answer. Only this answer follows the driver: `CUDART_VERSION`
/// in the headers stays ours, and the version we ask the driver's entry
/// points at (`driver::loader::CUDA_VERSION`, per function) does not move.
pub fn reported(ours: c_int) -> c_int {
    if let Some(v) = crate::config::runtime_version_override() {
        return v;
    }
    match crate::driver::driver() {
        Ok(d) if d.version() > 0 => ours.min(d.version()),
        _ => ours,
    }
}

fn driver_version() -> CudaResult<c_int> {
    if crate::driver::driver().is_err() {
        return Ok(0);
    }
    let mut v = 0;
    cu!(cuDriverGetVersion(&mut v))?;
    Ok(v)
}
