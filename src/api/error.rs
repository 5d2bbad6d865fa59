//! Error handling exports.

use crate::control::params;
use crate::runtime::{error, last_error};
use crate::types::*;
use std::ffi::c_char;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetLastError() -> cudaError_t {
    entry!(cudaGetLastError() -> last_error::take(), on_panic = cudaErrorUnknown)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaPeekAtLastError() -> cudaError_t {
    entry!(cudaPeekAtLastError() -> last_error::peek(), on_panic = cudaErrorUnknown)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetErrorName(error: cudaError_t) -> *const c_char {
    entry!(cudaGetErrorName(error) -> error::name_c(error).as_ptr(), on_panic = c"cudaErrorUnknown".as_ptr())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetErrorString(error: cudaError_t) -> *const c_char {
    entry!(cudaGetErrorString(error) -> error::string_c(error).as_ptr(), on_panic = c"unknown error".as_ptr())
}
