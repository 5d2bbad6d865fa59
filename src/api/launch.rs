//! Execution control: launches and function attributes.

use crate::control::params;
use crate::driver::StreamMode;
use crate::runtime::{self, as_out, launch};
use crate::types::*;
use std::ffi::{c_char, c_int, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernel(func: *const c_void, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream) =>
        launch::launch(func, gridDim, blockDim, args, sharedMem, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernel_ptsz(func: *const c_void, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaLaunchKernel_ptsz(func, gridDim, blockDim, args, sharedMem, stream) =>
        launch::launch(func, gridDim, blockDim, args, sharedMem, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernelExC(config: *const cudaLaunchConfig_t, func: *const c_void, args: *mut *mut c_void) -> cudaError_t {
    entry!(cudaLaunchKernelExC(config, func, args) => launch::launch_ex(unsafe { runtime::as_in(config) }, func, args, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernelExC_ptsz(config: *const cudaLaunchConfig_t, func: *const c_void, args: *mut *mut c_void) -> cudaError_t {
    entry!(cudaLaunchKernelExC_ptsz(config, func, args) => launch::launch_ex(unsafe { runtime::as_in(config) }, func, args, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel(func: *const c_void, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem, stream) =>
        launch::launch_cooperative(func, gridDim, blockDim, args, sharedMem, stream, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel_ptsz(func: *const c_void, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaLaunchCooperativeKernel_ptsz(func, gridDim, blockDim, args, sharedMem, stream) =>
        launch::launch_cooperative(func, gridDim, blockDim, args, sharedMem, stream, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncGetAttributes(attr: *mut cudaFuncAttributes, func: *const c_void) -> cudaError_t {
    entry!(cudaFuncGetAttributes(attr, func) => launch::func_attributes(unsafe { as_out(attr) }, func))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncSetAttribute(func: *const c_void, attr: cudaFuncAttribute, value: c_int) -> cudaError_t {
    entry!(cudaFuncSetAttribute(func, attr, value) => launch::set_func_attribute(func, attr, value))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncSetCacheConfig(func: *const c_void, cacheConfig: cudaFuncCache) -> cudaError_t {
    entry!(cudaFuncSetCacheConfig(func, cacheConfig) => launch::set_cache_config(func, cacheConfig))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncSetSharedMemConfig(func: *const c_void, config: cudaSharedMemConfig) -> cudaError_t {
    entry!(cudaFuncSetSharedMemConfig(func, config) => launch::set_shared_mem_config(func, config))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetFuncBySymbol(functionPtr: *mut cudaFunction_t, symbolPtr: *const c_void) -> cudaError_t {
    entry!(cudaGetFuncBySymbol(functionPtr, symbolPtr) => launch::func_by_symbol(unsafe { as_out(functionPtr) }, symbolPtr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetKernel(kernelPtr: *mut cudaKernel_t, entryFuncAddr: *const c_void) -> cudaError_t {
    entry!(cudaGetKernel(kernelPtr, entryFuncAddr) => launch::get_kernel(unsafe { as_out(kernelPtr) }, entryFuncAddr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncGetName(name: *mut *const c_char, func: *const c_void) -> cudaError_t {
    entry!(cudaFuncGetName(name, func) => launch::func_name(unsafe { as_out(name) }, func))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncGetParamInfo(func: *const c_void, paramIndex: usize, paramOffset: *mut usize, paramSize: *mut usize) -> cudaError_t {
    entry!(cudaFuncGetParamInfo(func, paramIndex, paramOffset, paramSize) => launch::param_info(func, paramIndex, unsafe { runtime::as_out(paramOffset) }, unsafe { runtime::as_out(paramSize) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaKernelSetAttributeForDevice(kernel: cudaKernel_t, attr: cudaFuncAttribute, value: c_int, device: c_int) -> cudaError_t {
    entry!(cudaKernelSetAttributeForDevice(kernel, attr, value, device) => launch::kernel_set_attribute_for_device(kernel, attr, value, device))
}

// CUDA 13.2: a kernel's parameter count.

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncGetParamCount(func: *const c_void, paramCount: *mut usize) -> cudaError_t {
    entry!(cudaFuncGetParamCount(func, paramCount) => crate::runtime::stream_v2::func_param_count(func, unsafe { paramCount.as_mut() }))
}
