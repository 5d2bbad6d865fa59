//! The hidden API that nvcc-generated host code calls: fatbinary and
//! kernel registration, `<<<>>>` configuration and launch.
//! Signatures from `crt/host_runtime.h` and `crt/device_functions.h`.

use crate::control::params;
use crate::driver::StreamMode;
use crate::runtime::{launch, registry};
use crate::types::*;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::ptr::null_mut;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFatBinary(fatCubin: *mut c_void) -> *mut *mut c_void {
    entry!(__cudaRegisterFatBinary(fatCubin) -> registry::register_fat_binary(fatCubin), on_panic = null_mut())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFatBinaryEnd(fatCubinHandle: *mut *mut c_void) {
    entry!(__cudaRegisterFatBinaryEnd(fatCubinHandle) -> registry::register_end(fatCubinHandle), on_panic = ())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaUnregisterFatBinary(fatCubinHandle: *mut *mut c_void) {
    entry!(__cudaUnregisterFatBinary(fatCubinHandle) -> registry::unregister(fatCubinHandle), on_panic = ())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFunction(
    fatCubinHandle: *mut *mut c_void,
    hostFun: *const c_char,
    deviceFun: *mut c_char,
    deviceName: *const c_char,
    thread_limit: c_int,
    tid: *mut dim3,
    bid: *mut dim3,
    bDim: *mut dim3,
    gDim: *mut dim3,
    wSize: *mut c_int,
) {
    entry!(__cudaRegisterFunction(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize) ->
        registry::register_function(fatCubinHandle, hostFun, deviceName), on_panic = ())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterVar(
    fatCubinHandle: *mut *mut c_void,
    hostVar: *mut c_char,
    deviceAddress: *mut c_char,
    deviceName: *const c_char,
    ext: c_int,
    size: usize,
    constant: c_int,
    global: c_int,
) {
    entry!(__cudaRegisterVar(fatCubinHandle, hostVar, deviceAddress, deviceName, ext, size, constant, global) ->
        registry::register_var(fatCubinHandle, hostVar.cast(), deviceName, false), on_panic = ())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterManagedVar(
    fatCubinHandle: *mut *mut c_void,
    hostVarPtrAddress: *mut *mut c_void,
    deviceAddress: *mut c_char,
    deviceName: *const c_char,
    ext: c_int,
    size: usize,
    constant: c_int,
    global: c_int,
) {
    entry!(__cudaRegisterManagedVar(fatCubinHandle, hostVarPtrAddress, deviceAddress, deviceName, ext, size, constant, global) ->
        registry::register_var(fatCubinHandle, hostVarPtrAddress.cast(), deviceName, true), on_panic = ())
}

/// Returns nonzero when the module is loaded and its `__managed__` host
/// pointers are set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaInitModule(fatCubinHandle: *mut *mut c_void) -> c_char {
    entry!(__cudaInitModule(fatCubinHandle) -> registry::init_module(fatCubinHandle) as c_char, on_panic = 0)
}

/// A host variable referenced from device code (unified-memory builds): it
/// has no device storage of its own, so there is nothing to record.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterHostVar(fatCubinHandle: *mut *mut c_void, deviceName: *const c_char, hostVar: *mut c_char, size: usize) {
    entry!(__cudaRegisterHostVar(fatCubinHandle, deviceName, hostVar, size) -> (), on_panic = ())
}

/// The host function/data tables of heterogeneous-memory builds. Not
/// declared in NVIDIA's headers (5 pointer-sized arguments, per its
/// binary); accepted and ignored: the driver resolves such references
/// through `cudaLibraryHostUniversalFunctionAndDataTable`, which nvcc 13 does
/// not emit for ordinary builds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterUnifiedTable(
    fatCubinHandle: *mut *mut c_void,
    functionTable: *mut c_void,
    functionWindowSize: usize,
    dataTable: *mut c_void,
    dataWindowSize: usize,
) {
    entry!(__cudaRegisterUnifiedTable(fatCubinHandle, functionTable, functionWindowSize, dataTable, dataWindowSize) -> (), on_panic = ())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaPushCallConfiguration(gridDim: dim3, blockDim: dim3, sharedMem: usize, stream: cudaStream_t) -> c_uint {
    entry!(__cudaPushCallConfiguration(gridDim, blockDim, sharedMem, stream) -> launch::push_config(gridDim, blockDim, sharedMem, stream), on_panic = 1)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaPopCallConfiguration(gridDim: *mut dim3, blockDim: *mut dim3, sharedMem: *mut usize, stream: *mut c_void) -> cudaError_t {
    entry!(__cudaPopCallConfiguration(gridDim, blockDim, sharedMem, stream) => launch::pop_config(gridDim, blockDim, sharedMem, stream))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaGetKernel(kernel: *mut cudaKernel_t, hostFun: *const c_void) -> cudaError_t {
    entry!(__cudaGetKernel(kernel, hostFun) => registry::get_kernel_for_stub(unsafe { crate::runtime::as_out(kernel) }, hostFun))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaLaunchKernel(
    kernel: cudaKernel_t,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
) -> cudaError_t {
    entry!(__cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream) =>
        launch::launch_from_stub(kernel, gridDim, blockDim, args, sharedMem, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaLaunchKernel_ptsz(
    kernel: cudaKernel_t,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
) -> cudaError_t {
    entry!(__cudaLaunchKernel_ptsz(kernel, gridDim, blockDim, args, sharedMem, stream) =>
        launch::launch_from_stub(kernel, gridDim, blockDim, args, sharedMem, stream, StreamMode::PerThread))
}

/// NVIDIA's library exports this as a function that returns 0 and does
/// nothing else; so does ours.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaGetProcAddress() -> *mut c_void {
    entry!(__cudaGetProcAddress() -> null_mut(), on_panic = null_mut())
}
