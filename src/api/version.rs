//! Version exports.

use crate::control::params;
use crate::runtime::{as_out, version};
use crate::types::*;
use std::ffi::c_int;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaRuntimeGetVersion(runtimeVersion: *mut c_int) -> cudaError_t {
    entry!(@no_init cudaRuntimeGetVersion(runtimeVersion) => version::get_runtime_version(unsafe { as_out(runtimeVersion) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDriverGetVersion(driverVersion: *mut c_int) -> cudaError_t {
    entry!(@no_init cudaDriverGetVersion(driverVersion) => version::get_driver_version(unsafe { as_out(driverVersion) }))
}
