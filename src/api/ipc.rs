//! Inter-process communication exports.

use crate::control::params;
use crate::runtime::{self, ipc};
use crate::types::*;
use std::ffi::{c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaIpcGetMemHandle(handle: *mut cudaIpcMemHandle_t, devPtr: *mut c_void) -> cudaError_t {
    entry!(cudaIpcGetMemHandle(handle, devPtr) => ipc::get_mem_handle(unsafe { runtime::as_out(handle) }, devPtr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaIpcOpenMemHandle(devPtr: *mut *mut c_void, handle: cudaIpcMemHandle_t, flags: c_uint) -> cudaError_t {
    entry!(cudaIpcOpenMemHandle(devPtr, handle, flags) => ipc::open_mem_handle(unsafe { runtime::as_out(devPtr) }, handle, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaIpcCloseMemHandle(devPtr: *mut c_void) -> cudaError_t {
    entry!(cudaIpcCloseMemHandle(devPtr) => ipc::close_mem_handle(devPtr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaIpcGetEventHandle(handle: *mut cudaIpcEventHandle_t, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaIpcGetEventHandle(handle, event) => ipc::get_event_handle(unsafe { runtime::as_out(handle) }, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaIpcOpenEventHandle(event: *mut cudaEvent_t, handle: cudaIpcEventHandle_t) -> cudaError_t {
    entry!(cudaIpcOpenEventHandle(event, handle) => ipc::open_event_handle(unsafe { runtime::as_out(event) }, handle))
}
