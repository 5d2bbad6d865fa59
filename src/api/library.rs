//! Library management: load PTX, cubin or fatbin images and reach their
//! kernels and globals without nvcc-generated host code.

use crate::control::params;
use crate::runtime;
use crate::runtime::library::{self, Source};
use crate::types::*;
use std::ffi::{c_char, c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryLoadData(
    library: *mut cudaLibrary_t,
    code: *const c_void,
    jitOptions: *mut cudaJitOption,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut cudaLibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> cudaError_t {
    entry!(cudaLibraryLoadData(library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions) =>
        library::load(unsafe { runtime::as_out(library) }, Source::Data(code), jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryLoadFromFile(
    library: *mut cudaLibrary_t,
    fileName: *const c_char,
    jitOptions: *mut cudaJitOption,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut cudaLibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> cudaError_t {
    entry!(cudaLibraryLoadFromFile(library, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions) =>
        library::load(unsafe { runtime::as_out(library) }, Source::File(fileName), jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryUnload(library: cudaLibrary_t) -> cudaError_t {
    entry!(cudaLibraryUnload(library) => library::unload(library))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryGetKernel(pKernel: *mut cudaKernel_t, library: cudaLibrary_t, name: *const c_char) -> cudaError_t {
    entry!(cudaLibraryGetKernel(pKernel, library, name) => library::get_kernel(unsafe { runtime::as_out(pKernel) }, library, name))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryGetGlobal(dptr: *mut *mut c_void, bytes: *mut usize, library: cudaLibrary_t, name: *const c_char) -> cudaError_t {
    entry!(cudaLibraryGetGlobal(dptr, bytes, library, name) => library::get_global(unsafe { runtime::as_out(dptr) }, unsafe { runtime::as_out(bytes) }, library, name, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryGetManaged(dptr: *mut *mut c_void, bytes: *mut usize, library: cudaLibrary_t, name: *const c_char) -> cudaError_t {
    entry!(cudaLibraryGetManaged(dptr, bytes, library, name) => library::get_global(unsafe { runtime::as_out(dptr) }, unsafe { runtime::as_out(bytes) }, library, name, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryGetUnifiedFunction(fptr: *mut *mut c_void, library: cudaLibrary_t, symbol: *const c_char) -> cudaError_t {
    entry!(cudaLibraryGetUnifiedFunction(fptr, library, symbol) => library::unified_function(unsafe { runtime::as_out(fptr) }, library, symbol))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryGetKernelCount(count: *mut c_uint, lib: cudaLibrary_t) -> cudaError_t {
    entry!(cudaLibraryGetKernelCount(count, lib) => library::kernel_count(unsafe { runtime::as_out(count) }, lib))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLibraryEnumerateKernels(kernels: *mut cudaKernel_t, numKernels: c_uint, lib: cudaLibrary_t) -> cudaError_t {
    entry!(cudaLibraryEnumerateKernels(kernels, numKernels, lib) => library::enumerate_kernels(kernels, numKernels, lib))
}
