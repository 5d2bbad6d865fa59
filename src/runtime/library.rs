//! `cudaLibrary*`: PTX, cubin or fatbin loaded by the program itself. The
//! handles are the driver's (`cudaLibrary_t` is a `CUlibrary`, `cudaKernel_t`
//! a `CUkernel`); JIT and library option numbers are the driver's too.

use crate::runtime::required;
use super::registry;
use crate::driver::{CUdeviceptr, CUlibrary};
use crate::types::*;
use std::ffi::{c_char, c_uint, c_void};

fn check_options(n: c_uint, keys: *const c_void, values: *mut *mut c_void) -> CudaResult {
    if n > 0 && (keys.is_null() || values.is_null()) {
        return Err(cudaErrorInvalidValue);
    }
    Ok(())
}

/// Where the image comes from.
pub enum Source {
    Data(*const c_void),
    File(*const c_char),
}

/// `cudaLibraryLoadData` / `cudaLibraryLoadFromFile`.
#[allow(clippy::too_many_arguments)]
pub fn load(
    library: Option<&mut cudaLibrary_t>,
    source: Source,
    jit_options: *mut cudaJitOption,
    jit_values: *mut *mut c_void,
    num_jit: c_uint,
    lib_options: *mut cudaLibraryOption,
    lib_values: *mut *mut c_void,
    num_lib: c_uint,
) -> CudaResult {
    let out = required(library)?;
    check_options(num_jit, jit_options.cast(), jit_values)?;
    check_options(num_lib, lib_options.cast(), lib_values)?;
    super::state::runtime()?;
    let mut lib: CUlibrary = std::ptr::null_mut();
    match source {
        Source::Data(code) => {
            if code.is_null() {
                return Err(cudaErrorInvalidValue);
            }
            cu!(cuLibraryLoadData(&mut lib, code, jit_options.cast(), jit_values, num_jit, lib_options.cast(), lib_values, num_lib))?
        }
        Source::File(name) => {
            if name.is_null() {
                return Err(cudaErrorInvalidValue);
            }
            cu!(cuLibraryLoadFromFile(&mut lib, name, jit_options.cast(), jit_values, num_jit, lib_options.cast(), lib_values, num_lib))?
        }
    }
    *out = lib;
    Ok(())
}

/// `cudaLibraryUnload`.
pub fn unload(library: cudaLibrary_t) -> CudaResult {
    if library.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    super::state::runtime()?;
    cu!(cuLibraryUnload(library))
}

/// `cudaLibraryGetKernel`.
pub fn get_kernel(kernel: Option<&mut cudaKernel_t>, library: cudaLibrary_t, name: *const c_char) -> CudaResult {
    let out = required(kernel)?;
    if name.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    if library.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    super::state::runtime()?;
    let mut k = std::ptr::null_mut();
    cu!(cuLibraryGetKernel(&mut k, library, name))?;
    registry::remember_kernel(k);
    *out = k;
    Ok(())
}

/// `cudaLibraryGetKernelCount`.
pub fn kernel_count(count: Option<&mut c_uint>, library: cudaLibrary_t) -> CudaResult {
    let out = required(count)?;
    if library.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    super::state::runtime()?;
    cu!(cuLibraryGetKernelCount(out, library))
}

/// `cudaLibraryEnumerateKernels`.
pub fn enumerate_kernels(kernels: *mut cudaKernel_t, num: c_uint, library: cudaLibrary_t) -> CudaResult {
    if kernels.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    if library.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    super::state::runtime()?;
    cu!(cuLibraryEnumerateKernels(kernels, num, library))?;
    for i in 0..num as usize {
        // SAFETY: the driver filled `num` entries of the caller's array.
        registry::remember_kernel(unsafe { *kernels.add(i) });
    }
    Ok(())
}

/// `cudaLibraryGetGlobal` (in the current context) and `cudaLibraryGetManaged`.
pub fn get_global(dptr: Option<&mut *mut c_void>, bytes: Option<&mut usize>, library: cudaLibrary_t, name: *const c_char, managed: bool) -> CudaResult {
    let out = required(dptr)?;
    if name.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    if library.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    let (mut p, mut n): (CUdeviceptr, usize) = (0, 0);
    if managed {
        super::state::runtime()?;
        cu!(cuLibraryGetManaged(&mut p, &mut n, library, name))?;
    } else {
        super::context::enter()?;
        cu!(cuLibraryGetGlobal(&mut p, &mut n, library, name))?;
    }
    *out = p as *mut c_void;
    // The size is optional.
    if let Some(b) = bytes {
        *b = n;
    }
    Ok(())
}

/// `cudaLibraryGetUnifiedFunction`.
pub fn unified_function(fptr: Option<&mut *mut c_void>, library: cudaLibrary_t, symbol: *const c_char) -> CudaResult {
    let out = required(fptr)?;
    if symbol.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    if library.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    super::state::runtime()?;
    cu!(cuLibraryGetUnifiedFunction(out, library, symbol))
}
