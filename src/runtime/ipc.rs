//! Inter-process sharing of device memory and events: the driver's IPC
//! calls, whose 64-byte handles have the runtime's layout.

use crate::runtime::required;
use super::context::enter;
use crate::driver::CUdeviceptr;
use crate::types::*;
use std::ffi::{c_uint, c_void};

/// `cudaIpcGetMemHandle`.
pub fn get_mem_handle(handle: Option<&mut cudaIpcMemHandle_t>, ptr: *mut c_void) -> CudaResult {
    enter()?;
    let handle = required(handle)?;
    cu!(cuIpcGetMemHandle(handle, ptr as CUdeviceptr))
}

/// `cudaIpcOpenMemHandle`: `cudaIpcMemLazyEnablePeerAccess` is the only flag.
pub fn open_mem_handle(ptr: Option<&mut *mut c_void>, handle: cudaIpcMemHandle_t, flags: c_uint) -> CudaResult {
    enter()?;
    let ptr = required(ptr)?;
    if flags & !(cudaIpcMemLazyEnablePeerAccess as c_uint) != 0 {
        return Err(cudaErrorInvalidValue);
    }
    let mut d: CUdeviceptr = 0;
    cu!(cuIpcOpenMemHandle(&mut d, handle, flags))?;
    *ptr = d as *mut c_void;
    Ok(())
}

/// `cudaIpcCloseMemHandle`.
pub fn close_mem_handle(ptr: *mut c_void) -> CudaResult {
    enter()?;
    cu!(cuIpcCloseMemHandle(ptr as CUdeviceptr))
}

/// `cudaIpcGetEventHandle`: the driver requires an event made with
/// `cudaEventInterprocess | cudaEventDisableTiming` and answers otherwise.
pub fn get_event_handle(handle: Option<&mut cudaIpcEventHandle_t>, event: cudaEvent_t) -> CudaResult {
    enter()?;
    let handle = required(handle)?;
    // NULL is an invalid value here (NVIDIA, H100, CUDA 13.0).
    if event.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuIpcGetEventHandle(handle, event))
}

/// `cudaIpcOpenEventHandle`.
pub fn open_event_handle(event: Option<&mut cudaEvent_t>, handle: cudaIpcEventHandle_t) -> CudaResult {
    enter()?;
    let event = required(event)?;
    cu!(cuIpcOpenEventHandle(event, handle))
}
