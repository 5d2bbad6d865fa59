//! Driver entry points and export tables.

use crate::control::params;
use crate::driver::loader::CUDA_VERSION;
use crate::runtime::{self, entry_point};
use crate::types::*;
use std::ffi::{c_char, c_uint, c_ulonglong, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDriverEntryPoint(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    flags: c_ulonglong,
    driverStatus: *mut cudaDriverEntryPointQueryResult,
) -> cudaError_t {
    entry!(cudaGetDriverEntryPoint(symbol, funcPtr, flags, driverStatus) =>
        entry_point::get(symbol, unsafe { runtime::as_out(funcPtr) }, CUDA_VERSION, flags, unsafe { runtime::as_out(driverStatus) }, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDriverEntryPoint_ptsz(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    flags: c_ulonglong,
    driverStatus: *mut cudaDriverEntryPointQueryResult,
) -> cudaError_t {
    entry!(cudaGetDriverEntryPoint_ptsz(symbol, funcPtr, flags, driverStatus) =>
        entry_point::get(symbol, unsafe { runtime::as_out(funcPtr) }, CUDA_VERSION, flags, unsafe { runtime::as_out(driverStatus) }, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDriverEntryPointByVersion(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    cudaVersion: c_uint,
    flags: c_ulonglong,
    driverStatus: *mut cudaDriverEntryPointQueryResult,
) -> cudaError_t {
    entry!(cudaGetDriverEntryPointByVersion(symbol, funcPtr, cudaVersion, flags, driverStatus) =>
        entry_point::get(symbol, unsafe { runtime::as_out(funcPtr) }, cudaVersion as i32, flags, unsafe { runtime::as_out(driverStatus) }, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDriverEntryPointByVersion_ptsz(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    cudaVersion: c_uint,
    flags: c_ulonglong,
    driverStatus: *mut cudaDriverEntryPointQueryResult,
) -> cudaError_t {
    entry!(cudaGetDriverEntryPointByVersion_ptsz(symbol, funcPtr, cudaVersion, flags, driverStatus) =>
        entry_point::get(symbol, unsafe { runtime::as_out(funcPtr) }, cudaVersion as i32, flags, unsafe { runtime::as_out(driverStatus) }, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetExportTable(ppExportTable: *mut *const c_void, pExportTableId: *const cudaUUID_t) -> cudaError_t {
    entry!(@no_init cudaGetExportTable(ppExportTable, pExportTableId) => entry_point::export_table(unsafe { runtime::as_out(ppExportTable) }, pExportTableId))
}
