//! Version exports.

use crate::runtime::{out, version};
use crate::types::*;
use std::ffi::c_int;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaRuntimeGetVersion(runtimeVersion: *mut c_int) -> cudaError_t {
    entry!(@no_init cudaRuntimeGetVersion(runtimeVersion) => {
        *out(runtimeVersion)? = version::RUNTIME_VERSION;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDriverGetVersion(driverVersion: *mut c_int) -> cudaError_t {
    entry!(@no_init cudaDriverGetVersion(driverVersion) => {
        let v = out(driverVersion)?;
        *v = version::driver_version()?;
        Ok(())
    })
}
