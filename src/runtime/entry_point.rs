//! `cudaGetDriverEntryPoint*` and `cudaGetExportTable`: the driver's own
//! answers, passed through.

use crate::runtime::required;
use crate::driver::{loader, CUuuid, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM};
use crate::types::*;
use std::ffi::{c_char, c_int, c_void, CStr};

/// `cudaGetDriverEntryPoint[ByVersion][_ptsz]`. An unknown symbol, or one
/// newer than `version`, is not an error: success, a NULL pointer, and the
/// reason in `status` (what PyTorch relies on).
pub fn get(
    symbol: *const c_char,
    func: Option<&mut *mut c_void>,
    version: c_int,
    flags: u64,
    status: Option<&mut cudaDriverEntryPointQueryResult>,
    per_thread: bool,
) -> CudaResult {
    let out = required(func)?;
    if symbol.is_null() || flags > cudaEnablePerThreadDefaultStream {
        return Err(cudaErrorInvalidValue);
    }
    super::state::runtime()?;
    // In a program built for the per-thread default stream, "default"
    // means the per-thread flavour.
    let flags = if per_thread && flags == cudaEnableDefault { CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM } else { flags };
    // SAFETY: checked non-NULL; a C string by the API contract.
    let name = unsafe { CStr::from_ptr(symbol) };
    let (r, p, s) = loader::get_proc_address(name, version, flags).map_err(|_| cudaErrorInsufficientDriver)?;
    if r.0 == 0 && !p.is_null() {
        // Traced when the driver is the interposer (src/trace/driver.rs).
        *out = p;
        if let Some(st) = status {
            *st = cudaDriverEntryPointSuccess;
        }
        return Ok(());
    }
    *out = std::ptr::null_mut();
    match s.0 {
        1 | 2 => {
            if let Some(st) = status {
                *st = cudaDriverEntryPointQueryResult(s.0);
            }
            Ok(())
        }
        _ => crate::driver::check(r),
    }
}

/// `cudaGetExportTable`: forwarded to `cuGetExportTable`.
pub fn export_table(table: Option<&mut *const c_void>, id: *const cudaUUID_t) -> CudaResult {
    let out = required(table)?;
    super::non_null(id)?;
    // With no driver NVIDIA's runtime answers cudaErrorUnknown for an id it
    // does not serve; with one, the driver's answer (cudaErrorInvalidValue
    // for an unknown id). Measured on CUDA 13.0 without and with an H100.
    super::state::runtime().map_err(|_| cudaErrorUnknown)?;
    cu!(cuGetExportTable(out, id.cast::<CUuuid>()))
}
