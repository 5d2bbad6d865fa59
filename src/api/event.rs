//! Exports of the event area. `_ptsz` twins call the same runtime
//! function with `StreamMode::PerThread`.

use crate::control::params;
use crate::driver::StreamMode::{Legacy, PerThread};
use crate::runtime::{self, event};
use crate::types::*;
use std::ffi::c_uint;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventCreate(event: *mut cudaEvent_t) -> cudaError_t {
    entry!(cudaEventCreate(event) => event::create(unsafe { runtime::as_out(event) }, cudaEventDefault))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventCreateWithFlags(event: *mut cudaEvent_t, flags: c_uint) -> cudaError_t {
    entry!(cudaEventCreateWithFlags(event, flags) => event::create(unsafe { runtime::as_out(event) }, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventRecord(event: cudaEvent_t, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaEventRecord(event, stream) => event::record(event, stream, cudaEventRecordDefault, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventRecord_ptsz(event: cudaEvent_t, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaEventRecord_ptsz(event, stream) => event::record(event, stream, cudaEventRecordDefault, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventRecordWithFlags(event: cudaEvent_t, stream: cudaStream_t, flags: c_uint) -> cudaError_t {
    entry!(cudaEventRecordWithFlags(event, stream, flags) => event::record(event, stream, flags, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventRecordWithFlags_ptsz(event: cudaEvent_t, stream: cudaStream_t, flags: c_uint) -> cudaError_t {
    entry!(cudaEventRecordWithFlags_ptsz(event, stream, flags) => event::record(event, stream, flags, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventQuery(event: cudaEvent_t) -> cudaError_t {
    entry!(cudaEventQuery(event) => event::query(event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventSynchronize(event: cudaEvent_t) -> cudaError_t {
    entry!(cudaEventSynchronize(event) => event::synchronize(event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventDestroy(event: cudaEvent_t) -> cudaError_t {
    entry!(cudaEventDestroy(event) => event::destroy(event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventElapsedTime(ms: *mut f32, start: cudaEvent_t, end: cudaEvent_t) -> cudaError_t {
    entry!(cudaEventElapsedTime(ms, start, end) => event::elapsed(unsafe { runtime::as_out(ms) }, start, end))
}
