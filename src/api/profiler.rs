//! Profiler control exports.

use crate::control::params;
use crate::runtime::device;
use crate::types::*;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaProfilerStart() -> cudaError_t {
    entry!(cudaProfilerStart() => device::profiler(true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaProfilerStop() -> cudaError_t {
    entry!(cudaProfilerStop() => device::profiler(false))
}
