//! Runtime semantics of the event area. A `cudaEvent_t` is the driver's
//! `CUevent`; flags have the driver's values. NULL events are refused here
//! with `cudaErrorInvalidResourceHandle` before reaching the driver.

use crate::runtime::required;
use super::context;
use crate::driver::StreamMode;
use crate::types::*;
use std::ffi::c_uint;

const CREATE_FLAGS: c_uint = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;

fn handle(e: cudaEvent_t) -> CudaResult<cudaEvent_t> {
    if e.is_null() { Err(cudaErrorInvalidResourceHandle) } else { Ok(e) }
}

/// `cudaEventCreate*`: an interprocess event must also disable timing.
pub fn create(p: Option<&mut cudaEvent_t>, flags: c_uint) -> CudaResult {
    let p = required(p)?;
    if flags & !CREATE_FLAGS != 0 || (flags & cudaEventInterprocess != 0 && flags & cudaEventDisableTiming == 0) {
        return Err(cudaErrorInvalidValue);
    }
    context::enter()?;
    let mut e = std::ptr::null_mut();
    cu!(cuEventCreate(&mut e, flags))?;
    *p = e;
    Ok(())
}

pub fn destroy(e: cudaEvent_t) -> CudaResult {
    context::enter()?;
    cu!(cuEventDestroy(handle(e)?))
}

/// `cudaEventRecord*`. Flags: `cudaEventRecordDefault` or
/// `cudaEventRecordExternal` (meaningful in capture).
#[inline]
pub fn record(e: cudaEvent_t, s: cudaStream_t, flags: c_uint, m: StreamMode) -> CudaResult {
    context::enter()?;
    let e = handle(e)?;
    if flags == 0 {
        return cu!(mode m; cuEventRecord(e, s));
    }
    if flags & !cudaEventRecordExternal != 0 {
        return Err(cudaErrorInvalidValue);
    }
    cu!(mode m; cuEventRecordWithFlags(e, s, flags))
}

/// `cudaEventQuery`: `cudaErrorNotReady` while pending (not recorded as
/// the last error, see entry.rs).
#[inline]
pub fn query(e: cudaEvent_t) -> CudaResult {
    context::enter()?;
    cu!(cuEventQuery(handle(e)?))
}

pub fn synchronize(e: cudaEvent_t) -> CudaResult {
    context::enter()?;
    cu!(cuEventSynchronize(handle(e)?))
}

/// `cudaEventElapsedTime`: the driver gives NVIDIA's codes:
/// `cudaErrorInvalidResourceHandle` when either event disables timing or
/// was never recorded, `cudaErrorNotReady` while one is pending.
pub fn elapsed(ms: Option<&mut f32>, start: cudaEvent_t, end: cudaEvent_t) -> CudaResult {
    elapsed_by(&crate::driver::api::cuEventElapsedTime, ms, start, end)
}

/// A driver entry point of `cuEventElapsedTime`'s signature.
pub(super) type ElapsedFn = unsafe extern "C" fn(*mut f32, cudaEvent_t, cudaEvent_t) -> crate::driver::CUresult;

/// `cudaEventElapsedTime` on the driver's `entry`: 13's plain name
/// (`cuEventElapsedTime_v2`), or the CUDA 12 library's plain form's older
/// one (`runtime::abi12::elapsed_plain`).
pub(super) fn elapsed_by(entry: &'static crate::driver::DriverFn<ElapsedFn>, ms: Option<&mut f32>, start: cudaEvent_t, end: cudaEvent_t) -> CudaResult {
    let ms = required(ms)?;
    context::enter()?;
    let (start, end) = (handle(start)?, handle(end)?);
    let f = entry.get()?;
    // SAFETY: `ms` is a live out-reference; the events are the program's
    // handles, checked by the driver, as for every event call.
    crate::driver::check(unsafe { f(ms, start, end) })
}
