//! Error-log management (`cudaLogs*`): the driver keeps the log; these are
//! its `cuLogs*` calls. The iterator and callback handle are the driver's.

use crate::runtime::required;
use super::state::runtime;
use crate::types::*;
use std::ffi::{c_char, c_uint, c_void};

/// `cudaLogsRegisterCallback`.
pub fn register(cb: cudaLogsCallback_t, user: *mut c_void, handle: Option<&mut cudaLogsCallbackHandle>) -> CudaResult {
    runtime()?;
    let handle = required(handle)?;
    if cb.is_none() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuLogsRegisterCallback(cb, user, handle))
}

/// `cudaLogsUnregisterCallback`.
pub fn unregister(handle: cudaLogsCallbackHandle) -> CudaResult {
    runtime()?;
    if handle.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuLogsUnregisterCallback(handle))
}

/// `cudaLogsCurrent`: `flags` must be 0.
pub fn current(it: Option<&mut cudaLogIterator>, flags: c_uint) -> CudaResult {
    runtime()?;
    let it = required(it)?;
    cu!(cuLogsCurrent(it, flags))
}

/// `cudaLogsDumpToFile`: a NULL iterator dumps the whole log; the path is
/// required.
pub fn dump_to_file(it: *mut cudaLogIterator, path: *const c_char, flags: c_uint) -> CudaResult {
    runtime()?;
    if path.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuLogsDumpToFile(it, path, flags))
}

/// `cudaLogsDumpToMemory`: a NULL iterator dumps the whole log; `size`
/// holds the buffer's size in and the bytes written out.
pub fn dump_to_memory(it: *mut cudaLogIterator, buffer: *mut c_char, size: *mut usize, flags: c_uint) -> CudaResult {
    runtime()?;
    if buffer.is_null() || size.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuLogsDumpToMemory(it, buffer, size, flags))
}
