//! Events over the fake driver, in process: flags, recording, queries,
//! timing and NVIDIA's codes for the error cases.

mod common;
use common::*;
use cudart_shim::api::error::*;
use cudart_shim::api::event::*;
use cudart_shim::api::stream::*;
use cudart_shim::types::*;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;
use std::time::Duration;

fn event(flags: c_uint) -> cudaEvent_t {
    let mut e = null_mut();
    assert_eq!(unsafe { cudaEventCreateWithFlags(&mut e, flags) }, cudaSuccess);
    assert!(!e.is_null());
    e
}

unsafe extern "C" fn sleep_ms(data: *mut c_void) {
    std::thread::sleep(Duration::from_millis(data as u64));
}

#[test]
fn events_time_work_on_a_stream() {
    use_fake_driver(&[]);
    unsafe {
        let mut s = null_mut();
        assert_eq!(cudaStreamCreate(&mut s), cudaSuccess);
        let mut start = null_mut();
        assert_eq!(cudaEventCreate(&mut start), cudaSuccess);
        let stop = event(cudaEventBlockingSync);
        assert_eq!(cudaEventRecord(start, s), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, Some(sleep_ms), 250 as *mut c_void), cudaSuccess);
        assert_eq!(cudaEventRecordWithFlags(stop, s, cudaEventRecordDefault), cudaSuccess);
        assert_eq!(cudaEventQuery(stop), cudaErrorNotReady);
        let mut ms = -1.0f32;
        assert_eq!(cudaEventElapsedTime(&mut ms, start, stop), cudaErrorNotReady);
        // NotReady is not recorded as the last error.
        assert_eq!(cudaGetLastError(), cudaSuccess);
        assert_eq!(cudaEventSynchronize(stop), cudaSuccess);
        assert_eq!(cudaEventQuery(stop), cudaSuccess);
        assert_eq!(cudaEventElapsedTime(&mut ms, start, stop), cudaSuccess);
        assert!((245.0..10000.0).contains(&ms), "{ms} ms");
        let mut back = 0.0f32;
        assert_eq!(cudaEventElapsedTime(&mut back, stop, start), cudaSuccess);
        assert!((back + ms).abs() < 0.01, "{back} vs {ms}");
        assert_eq!(fake::calls("cuEventRecord"), 2);
        assert_eq!(fake::calls("cuEventRecordWithFlags"), 0, "flags 0 use cuEventRecord");
        assert_eq!(cudaEventRecord(start, null_mut()), cudaSuccess);
        assert_eq!(cudaEventRecord_ptsz(start, null_mut()), cudaSuccess);
        assert_eq!(cudaEventRecordWithFlags_ptsz(start, null_mut(), cudaEventRecordExternal), cudaSuccess);
        assert_eq!(fake::calls("cuEventRecord_ptsz"), 1);
        assert_eq!(fake::calls("cuEventRecordWithFlags_ptsz"), 1);
        assert_eq!(cudaEventDestroy(start), cudaSuccess);
        assert_eq!(cudaEventDestroy(stop), cudaSuccess);
    }
}

#[test]
fn elapsed_time_codes() {
    use_fake_driver(&[]);
    unsafe {
        let a = event(0);
        let b = event(0);
        let nt = event(cudaEventDisableTiming);
        let mut ms = 0.0f32;
        // Never recorded.
        assert_eq!(cudaEventElapsedTime(&mut ms, a, b), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventRecord(a, null_mut()), cudaSuccess);
        assert_eq!(cudaEventElapsedTime(&mut ms, a, b), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventRecord(b, null_mut()), cudaSuccess);
        assert_eq!(cudaEventRecord(nt, null_mut()), cudaSuccess);
        assert_eq!(cudaEventSynchronize(b), cudaSuccess);
        assert_eq!(cudaEventSynchronize(nt), cudaSuccess);
        assert_eq!(cudaEventElapsedTime(&mut ms, a, b), cudaSuccess);
        assert!(ms >= 0.0);
        // Timing disabled on either side.
        assert_eq!(cudaEventElapsedTime(&mut ms, a, nt), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventElapsedTime(&mut ms, nt, b), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidResourceHandle);
        // Bad pointers and handles.
        assert_eq!(cudaEventElapsedTime(null_mut(), a, b), cudaErrorInvalidValue);
        assert_eq!(cudaEventElapsedTime(&mut ms, null_mut(), b), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventElapsedTime(&mut ms, a, null_mut()), cudaErrorInvalidResourceHandle);
    }
}

#[test]
fn unrecorded_event_is_complete() {
    use_fake_driver(&[]);
    unsafe {
        let e = event(0);
        assert_eq!(cudaEventQuery(e), cudaSuccess);
        assert_eq!(cudaEventSynchronize(e), cudaSuccess);
    }
}

#[test]
fn create_flags_and_bad_handles() {
    use_fake_driver(&[]);
    unsafe {
        let mut e = null_mut();
        assert_eq!(cudaEventCreate(null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaEventCreateWithFlags(null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaEventCreateWithFlags(&mut e, 8), cudaErrorInvalidValue);
        assert_eq!(cudaEventCreateWithFlags(&mut e, cudaEventInterprocess), cudaErrorInvalidValue);
        assert!(e.is_null());
        assert_eq!(fake::calls("cuEventCreate"), 0, "bad flags never reach the driver");
        let ipc = event(cudaEventInterprocess | cudaEventDisableTiming);
        let all = event(cudaEventBlockingSync | cudaEventDisableTiming);
        assert_eq!(cudaEventDestroy(ipc), cudaSuccess);
        assert_eq!(cudaEventDestroy(all), cudaSuccess);

        // NULL and destroyed events.
        assert_eq!(cudaEventRecord(null_mut(), null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventQuery(null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventSynchronize(null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventDestroy(null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventQuery(all), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventRecord(all, null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEventDestroy(all), cudaErrorInvalidResourceHandle);

        // Record flags; record on a destroyed stream.
        let e = event(0);
        assert_eq!(cudaEventRecordWithFlags(e, null_mut(), 2), cudaErrorInvalidValue);
        let mut s = null_mut();
        assert_eq!(cudaStreamCreate(&mut s), cudaSuccess);
        assert_eq!(cudaStreamDestroy(s), cudaSuccess);
        assert_eq!(cudaEventRecord(e, s), cudaErrorInvalidResourceHandle);
    }
}

#[test]
fn rerecording_waits_for_the_latest_record() {
    use_fake_driver(&[]);
    unsafe {
        let e = event(cudaEventDisableTiming);
        let mut s = null_mut();
        assert_eq!(cudaStreamCreateWithFlags(&mut s, cudaStreamNonBlocking), cudaSuccess);
        assert_eq!(cudaEventRecord(e, s), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
        assert_eq!(cudaEventQuery(e), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, Some(sleep_ms), 250 as *mut c_void), cudaSuccess);
        assert_eq!(cudaEventRecord(e, s), cudaSuccess);
        assert_eq!(cudaEventQuery(e), cudaErrorNotReady);
        assert_eq!(cudaEventSynchronize(e), cudaSuccess);
        assert_eq!(cudaStreamQuery(s), cudaSuccess);
    }
}
