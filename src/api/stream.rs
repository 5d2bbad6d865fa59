//! Exports of the stream area, and `cudaLaunchHostFunc` (host work on a
//! stream; listed under execution control by NVIDIA). `_ptsz` twins call
//! the same runtime function with `StreamMode::PerThread`.

use crate::control::params;
use crate::driver::StreamMode::{Legacy, PerThread};
use crate::runtime::{self, stream};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreate(pStream: *mut cudaStream_t) -> cudaError_t {
    entry!(cudaStreamCreate(pStream) => stream::create(unsafe { runtime::as_out(pStream) }, cudaStreamDefault, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreateWithFlags(pStream: *mut cudaStream_t, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamCreateWithFlags(pStream, flags) => stream::create(unsafe { runtime::as_out(pStream) }, flags, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreateWithPriority(pStream: *mut cudaStream_t, flags: c_uint, priority: c_int) -> cudaError_t {
    entry!(cudaStreamCreateWithPriority(pStream, flags, priority) => stream::create(unsafe { runtime::as_out(pStream) }, flags, Some(priority)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamDestroy(stream: cudaStream_t) -> cudaError_t {
    entry!(cudaStreamDestroy(stream) => stream::destroy(stream))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamQuery(stream: cudaStream_t) -> cudaError_t {
    entry!(cudaStreamQuery(stream) => stream::query(stream, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamQuery_ptsz(stream: cudaStream_t) -> cudaError_t {
    entry!(cudaStreamQuery_ptsz(stream) => stream::query(stream, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamSynchronize(stream: cudaStream_t) -> cudaError_t {
    entry!(cudaStreamSynchronize(stream) => stream::synchronize(stream, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamSynchronize_ptsz(stream: cudaStream_t) -> cudaError_t {
    entry!(cudaStreamSynchronize_ptsz(stream) => stream::synchronize(stream, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamWaitEvent(stream: cudaStream_t, event: cudaEvent_t, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamWaitEvent(stream, event, flags) => stream::wait_event(stream, event, flags, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamWaitEvent_ptsz(stream: cudaStream_t, event: cudaEvent_t, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamWaitEvent_ptsz(stream, event, flags) => stream::wait_event(stream, event, flags, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetFlags(hStream: cudaStream_t, flags: *mut c_uint) -> cudaError_t {
    entry!(cudaStreamGetFlags(hStream, flags) => stream::flags(hStream, unsafe { runtime::as_out(flags) }, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetFlags_ptsz(hStream: cudaStream_t, flags: *mut c_uint) -> cudaError_t {
    entry!(cudaStreamGetFlags_ptsz(hStream, flags) => stream::flags(hStream, unsafe { runtime::as_out(flags) }, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetPriority(hStream: cudaStream_t, priority: *mut c_int) -> cudaError_t {
    entry!(cudaStreamGetPriority(hStream, priority) => stream::priority(hStream, unsafe { runtime::as_out(priority) }, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetPriority_ptsz(hStream: cudaStream_t, priority: *mut c_int) -> cudaError_t {
    entry!(cudaStreamGetPriority_ptsz(hStream, priority) => stream::priority(hStream, unsafe { runtime::as_out(priority) }, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetId(hStream: cudaStream_t, streamId: *mut c_ulonglong) -> cudaError_t {
    entry!(cudaStreamGetId(hStream, streamId) => stream::id(hStream, unsafe { runtime::as_out(streamId) }, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetId_ptsz(hStream: cudaStream_t, streamId: *mut c_ulonglong) -> cudaError_t {
    entry!(cudaStreamGetId_ptsz(hStream, streamId) => stream::id(hStream, unsafe { runtime::as_out(streamId) }, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetDevice(hStream: cudaStream_t, device: *mut c_int) -> cudaError_t {
    entry!(cudaStreamGetDevice(hStream, device) => stream::device(hStream, unsafe { runtime::as_out(device) }, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetDevice_ptsz(hStream: cudaStream_t, device: *mut c_int) -> cudaError_t {
    entry!(cudaStreamGetDevice_ptsz(hStream, device) => stream::device(hStream, unsafe { runtime::as_out(device) }, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetAttribute(hStream: cudaStream_t, attr: cudaStreamAttrID, value_out: *mut cudaStreamAttrValue) -> cudaError_t {
    entry!(cudaStreamGetAttribute(hStream, attr, value_out) => stream::attribute(hStream, attr, unsafe { runtime::as_out(value_out) }, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetAttribute_ptsz(hStream: cudaStream_t, attr: cudaStreamAttrID, value_out: *mut cudaStreamAttrValue) -> cudaError_t {
    entry!(cudaStreamGetAttribute_ptsz(hStream, attr, value_out) => stream::attribute(hStream, attr, unsafe { runtime::as_out(value_out) }, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamSetAttribute(hStream: cudaStream_t, attr: cudaStreamAttrID, value: *const cudaStreamAttrValue) -> cudaError_t {
    entry!(cudaStreamSetAttribute(hStream, attr, value) => stream::set_attribute(hStream, attr, unsafe { runtime::as_in(value) }, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamSetAttribute_ptsz(hStream: cudaStream_t, attr: cudaStreamAttrID, value: *const cudaStreamAttrValue) -> cudaError_t {
    entry!(cudaStreamSetAttribute_ptsz(hStream, attr, value) => stream::set_attribute(hStream, attr, unsafe { runtime::as_in(value) }, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCopyAttributes(dst: cudaStream_t, src: cudaStream_t) -> cudaError_t {
    entry!(cudaStreamCopyAttributes(dst, src) => stream::copy_attributes(dst, src, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCopyAttributes_ptsz(dst: cudaStream_t, src: cudaStream_t) -> cudaError_t {
    entry!(cudaStreamCopyAttributes_ptsz(dst, src) => stream::copy_attributes(dst, src, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamAttachMemAsync(stream: cudaStream_t, devPtr: *mut c_void, length: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamAttachMemAsync(stream, devPtr, length, flags) => stream::attach_mem(stream, devPtr, length, flags, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamAttachMemAsync_ptsz(stream: cudaStream_t, devPtr: *mut c_void, length: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamAttachMemAsync_ptsz(stream, devPtr, length, flags) => stream::attach_mem(stream, devPtr, length, flags, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamAddCallback(stream: cudaStream_t, callback: cudaStreamCallback_t, userData: *mut c_void, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamAddCallback(stream, callback, userData, flags) => stream::add_callback(stream, callback, userData, flags, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamAddCallback_ptsz(stream: cudaStream_t, callback: cudaStreamCallback_t, userData: *mut c_void, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamAddCallback_ptsz(stream, callback, userData, flags) => stream::add_callback(stream, callback, userData, flags, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchHostFunc(stream: cudaStream_t, fn_: cudaHostFn_t, userData: *mut c_void) -> cudaError_t {
    entry!(cudaLaunchHostFunc(stream, fn_, userData) => stream::launch_host_func(stream, fn_, userData, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchHostFunc_ptsz(stream: cudaStream_t, fn_: cudaHostFn_t, userData: *mut c_void) -> cudaError_t {
    entry!(cudaLaunchHostFunc_ptsz(stream, fn_, userData) => stream::launch_host_func(stream, fn_, userData, PerThread))
}

// CUDA 13.x: host functions with a synchronization mode.

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchHostFunc_v2(stream: cudaStream_t, fn_: cudaHostFn_t, userData: *mut c_void, syncMode: c_uint) -> cudaError_t {
    entry!(cudaLaunchHostFunc_v2(stream, fn_, userData, syncMode) => crate::runtime::stream_v2::launch_host_func(stream, fn_, userData, syncMode, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchHostFunc_v2_ptsz(stream: cudaStream_t, fn_: cudaHostFn_t, userData: *mut c_void, syncMode: c_uint) -> cudaError_t {
    entry!(cudaLaunchHostFunc_v2_ptsz(stream, fn_, userData, syncMode) => crate::runtime::stream_v2::launch_host_func(stream, fn_, userData, syncMode, PerThread))
}
