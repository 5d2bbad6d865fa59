//! Error log management exports.

use crate::control::params;
use crate::runtime::{self, logs};
use crate::types::*;
use std::ffi::{c_char, c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLogsRegisterCallback(
    callbackFunc: cudaLogsCallback_t,
    userData: *mut c_void,
    callback_out: *mut cudaLogsCallbackHandle,
) -> cudaError_t {
    entry!(cudaLogsRegisterCallback(callbackFunc, userData, callback_out) => logs::register(callbackFunc, userData, unsafe { runtime::as_out(callback_out) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLogsUnregisterCallback(callback: cudaLogsCallbackHandle) -> cudaError_t {
    entry!(cudaLogsUnregisterCallback(callback) => logs::unregister(callback))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLogsCurrent(iterator_out: *mut cudaLogIterator, flags: c_uint) -> cudaError_t {
    entry!(cudaLogsCurrent(iterator_out, flags) => logs::current(unsafe { runtime::as_out(iterator_out) }, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLogsDumpToFile(iterator: *mut cudaLogIterator, pathToFile: *const c_char, flags: c_uint) -> cudaError_t {
    entry!(cudaLogsDumpToFile(iterator, pathToFile, flags) => logs::dump_to_file(iterator, pathToFile, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLogsDumpToMemory(
    iterator: *mut cudaLogIterator,
    buffer: *mut c_char,
    size: *mut usize,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaLogsDumpToMemory(iterator, buffer, size, flags) => logs::dump_to_memory(iterator, buffer, size, flags))
}
