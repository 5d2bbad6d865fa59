//! Streams and host work over the fake driver, in process (one process per
//! test under nextest). The fake runs each stream on its own worker
//! thread, so ordering and implicit synchronization are real here.

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::error::*;
use cudart_shim::api::event::*;
use cudart_shim::api::stream::*;
use cudart_shim::types::*;
use parking_lot::Mutex;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn stream(flags: c_uint) -> cudaStream_t {
    let mut s = null_mut();
    assert_eq!(unsafe { cudaStreamCreateWithFlags(&mut s, flags) }, cudaSuccess);
    assert!(!s.is_null());
    s
}

/// A host function that appends `*(u32*)data` to LOG, after an optional
/// sleep encoded in the value's high bits (ms).
static LOG: Mutex<Vec<u32>> = Mutex::new(Vec::new());
unsafe extern "C" fn log_value(data: *mut c_void) {
    let v = data as usize as u32;
    std::thread::sleep(Duration::from_millis((v >> 16) as u64));
    LOG.lock().push(v & 0xffff);
}

fn tag(v: u32, sleep_ms: u32) -> *mut c_void {
    ((sleep_ms << 16) | v) as usize as *mut c_void
}

#[test]
fn create_get_destroy_and_bad_input() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream(cudaStreamNonBlocking);
        let mut flags = 9;
        assert_eq!(cudaStreamGetFlags(s, &mut flags), cudaSuccess);
        assert_eq!(flags, cudaStreamNonBlocking);
        let mut prio = 9;
        assert_eq!(cudaStreamGetPriority(s, &mut prio), cudaSuccess);
        assert_eq!(prio, 0);
        let (mut id1, mut id2) = (0, 0);
        let s2 = stream(0);
        assert_eq!(cudaStreamGetId(s, &mut id1), cudaSuccess);
        assert_eq!(cudaStreamGetId(s2, &mut id2), cudaSuccess);
        assert_ne!(id1, id2);
        let mut dev = -1;
        assert_eq!(cudaStreamGetDevice(s, &mut dev), cudaSuccess);
        assert_eq!(dev, 0);
        assert_eq!(cudaStreamQuery(s), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);

        // Bad input.
        assert_eq!(cudaStreamCreate(null_mut()), cudaErrorInvalidValue);
        let mut x = null_mut();
        assert_eq!(cudaStreamCreateWithFlags(&mut x, 2), cudaErrorInvalidValue);
        assert!(x.is_null());
        assert_eq!(cudaStreamGetFlags(s, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaStreamGetId(s, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaStreamGetDevice(s, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaStreamDestroy(null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaStreamDestroy(cudaStreamPerThread), cudaErrorInvalidResourceHandle);

        // A destroyed stream is an invalid handle, not a crash.
        assert_eq!(cudaStreamDestroy(s), cudaSuccess);
        assert_eq!(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaStreamGetFlags(s, &mut flags), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaStreamDestroy(s2), cudaSuccess);
    }
}

#[test]
fn default_streams_answer_queries() {
    use_fake_driver(&[]);
    unsafe {
        for s in [null_mut(), cudaStreamLegacy, cudaStreamPerThread] {
            assert_eq!(cudaStreamQuery(s), cudaSuccess);
            assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
            let mut flags = 9;
            assert_eq!(cudaStreamGetFlags(s, &mut flags), cudaSuccess);
            assert_eq!(flags, 0);
        }
        // The legacy stream and this thread's per-thread stream differ.
        let (mut a, mut b, mut c) = (0, 0, 0);
        assert_eq!(cudaStreamGetId(cudaStreamLegacy, &mut a), cudaSuccess);
        assert_eq!(cudaStreamGetId(cudaStreamPerThread, &mut b), cudaSuccess);
        assert_ne!(a, b);
        // Stream 0 is the legacy stream in plain exports, the per-thread
        // stream in the _ptsz twins.
        assert_eq!(cudaStreamGetId(null_mut(), &mut c), cudaSuccess);
        assert_eq!(c, a);
        assert_eq!(cudaStreamGetId_ptsz(null_mut(), &mut c), cudaSuccess);
        assert_eq!(c, b);
    }
}

#[test]
fn ptsz_twins_reach_the_per_thread_driver_entry_points() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream(0);
        let mut u = 0;
        let mut i = 0;
        let mut id = 0;
        assert_eq!(cudaStreamQuery_ptsz(null_mut()), cudaSuccess);
        assert_eq!(cudaStreamSynchronize_ptsz(null_mut()), cudaSuccess);
        assert_eq!(cudaStreamGetFlags_ptsz(s, &mut u), cudaSuccess);
        assert_eq!(cudaStreamGetPriority_ptsz(s, &mut i), cudaSuccess);
        assert_eq!(cudaStreamGetId_ptsz(s, &mut id), cudaSuccess);
        assert_eq!(cudaStreamGetDevice_ptsz(s, &mut i), cudaSuccess);
        assert_eq!(cudaStreamCopyAttributes_ptsz(s, s), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc_ptsz(null_mut(), Some(log_value), tag(1, 0)), cudaSuccess);
        assert_eq!(cudaStreamSynchronize_ptsz(null_mut()), cudaSuccess);
        for f in [
            "cuStreamQuery_ptsz",
            "cuStreamGetFlags_ptsz",
            "cuStreamGetPriority_ptsz",
            "cuStreamGetId_ptsz",
            "cuStreamGetDevice_ptsz",
            "cuStreamCopyAttributes_ptsz",
            "cuLaunchHostFunc_ptsz",
        ] {
            assert_eq!(fake::calls(f), 1, "{f}");
        }
        assert_eq!(fake::calls("cuStreamSynchronize_ptsz"), 2);
        assert_eq!(fake::calls("cuStreamQuery"), 0);
        assert_eq!(*LOG.lock(), vec![1]);
    }
}

#[test]
fn priorities_follow_the_device_range() {
    use_fake_driver(&[]);
    unsafe {
        let (mut least, mut greatest) = (9, 9);
        assert_eq!(cudaDeviceGetStreamPriorityRange(&mut least, &mut greatest), cudaSuccess);
        assert!(greatest < least);
        for (asked, got) in [(greatest, greatest), (least, least), (-1000, greatest), (1000, least)] {
            let mut s = null_mut();
            assert_eq!(cudaStreamCreateWithPriority(&mut s, cudaStreamNonBlocking, asked), cudaSuccess);
            let mut p = 9;
            assert_eq!(cudaStreamGetPriority(s, &mut p), cudaSuccess);
            assert_eq!(p, got, "asked {asked}");
            let mut f = 9;
            assert_eq!(cudaStreamGetFlags(s, &mut f), cudaSuccess);
            assert_eq!(f, cudaStreamNonBlocking);
            cudaStreamDestroy(s);
        }
        let mut s = null_mut();
        assert_eq!(cudaStreamCreateWithPriority(&mut s, 7, 0), cudaErrorInvalidValue);
    }
}

#[test]
fn work_runs_in_order_and_query_is_not_ready_meanwhile() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream(0);
        assert_eq!(cudaLaunchHostFunc(s, Some(log_value), tag(1, 250)), cudaSuccess);
        for v in 2..=5 {
            assert_eq!(cudaLaunchHostFunc(s, Some(log_value), tag(v, 0)), cudaSuccess);
        }
        assert_eq!(cudaStreamQuery(s), cudaErrorNotReady);
        // NotReady is never the last error.
        assert_eq!(cudaGetLastError(), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
        assert_eq!(*LOG.lock(), vec![1, 2, 3, 4, 5]);
        assert_eq!(cudaStreamQuery(s), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, None, null_mut()), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuLaunchHostFunc"), 5);
    }
}

struct Seen {
    stream: usize,
    status: cudaError_t,
    user: usize,
    thread: std::thread::ThreadId,
}
static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

unsafe extern "C" fn callback(s: cudaStream_t, status: cudaError_t, user: *mut c_void) {
    SEEN.lock().push(Seen {
        stream: s as usize,
        status,
        user: user as usize,
        thread: std::thread::current().id(),
    });
}

#[test]
fn callbacks_fire_once_in_order_with_the_handle_passed() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream(0);
        assert_eq!(cudaLaunchHostFunc(s, Some(log_value), tag(0, 50)), cudaSuccess);
        assert_eq!(cudaStreamAddCallback(s, Some(callback), 11 as *mut c_void, 0), cudaSuccess);
        assert_eq!(cudaStreamAddCallback(s, Some(callback), 12 as *mut c_void, 0), cudaSuccess);
        assert_eq!(cudaStreamAddCallback(null_mut(), Some(callback), 13 as *mut c_void, 0), cudaSuccess);
        assert_eq!(
            cudaStreamAddCallback(cudaStreamPerThread, Some(callback), 14 as *mut c_void, 0),
            cudaSuccess
        );
        assert_eq!(
            cudaStreamAddCallback_ptsz(null_mut(), Some(callback), 15 as *mut c_void, 0),
            cudaSuccess
        );
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        std::thread::sleep(Duration::from_millis(20));
        let seen = SEEN.lock();
        let users: Vec<usize> = seen.iter().map(|x| x.user).collect();
        // The callbacks on `s` run in order; the legacy-stream one waits for `s`.
        assert_eq!(users.len(), 5, "each callback fires exactly once");
        let pos = |u| users.iter().position(|&x| x == u).unwrap();
        assert!(pos(11) < pos(12) && pos(12) < pos(13), "{users:?}");
        for x in seen.iter() {
            assert_eq!(x.status, cudaSuccess);
            assert_ne!(x.thread, std::thread::current().id(), "callbacks run on a driver thread");
            let want = match x.user {
                11 | 12 => s as usize,
                13 | 15 => 0,
                14 => cudaStreamPerThread as usize,
                _ => unreachable!(),
            };
            assert_eq!(x.stream, want, "callback {} got the wrong stream", x.user);
        }
        drop(seen);
        assert_eq!(fake::calls("cuStreamAddCallback"), 4);
        assert_eq!(fake::calls("cuStreamAddCallback_ptsz"), 1);
        // Bad input.
        assert_eq!(cudaStreamAddCallback(s, None, null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaStreamAddCallback(s, Some(callback), null_mut(), 1), cudaErrorInvalidValue);
        cudaStreamDestroy(s);
        assert_eq!(
            cudaStreamAddCallback(s, Some(callback), null_mut(), 0),
            cudaErrorInvalidResourceHandle
        );
        assert_eq!(SEEN.lock().len(), 5);
    }
}

#[test]
fn callback_driver_failure_frees_and_reports() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream(0);
        fake::fail("cuStreamAddCallback", 1, 999);
        assert_eq!(cudaStreamAddCallback(s, Some(callback), null_mut(), 0), cudaErrorUnknown);
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
        assert!(SEEN.lock().is_empty());
    }
}

static FLAG: AtomicUsize = AtomicUsize::new(0);
static OBSERVED: AtomicUsize = AtomicUsize::new(usize::MAX);
unsafe extern "C" fn set_flag(_: *mut c_void) {
    std::thread::sleep(Duration::from_millis(250));
    FLAG.store(1, Ordering::SeqCst);
}
unsafe extern "C" fn observe_flag(_: *mut c_void) {
    OBSERVED.store(FLAG.load(Ordering::SeqCst), Ordering::SeqCst);
}

#[test]
fn wait_event_orders_work_across_streams() {
    use_fake_driver(&[]);
    unsafe {
        let a = stream(cudaStreamNonBlocking);
        let b = stream(cudaStreamNonBlocking);
        let mut e = null_mut();
        assert_eq!(cudaEventCreateWithFlags(&mut e, cudaEventDisableTiming), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(a, Some(set_flag), null_mut()), cudaSuccess);
        assert_eq!(cudaEventRecord(e, a), cudaSuccess);
        assert_eq!(cudaStreamWaitEvent(b, e, 0), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(b, Some(observe_flag), null_mut()), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(b), cudaSuccess);
        assert_eq!(OBSERVED.load(Ordering::SeqCst), 1, "b ran before a's event");
        // Bad input.
        assert_eq!(cudaStreamWaitEvent(b, null_mut(), 0), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaStreamWaitEvent(b, e, 2), cudaErrorInvalidValue);
        assert_eq!(cudaStreamWaitEvent_ptsz(null_mut(), e, 0), cudaSuccess);
        assert_eq!(fake::calls("cuStreamWaitEvent_ptsz"), 1);
    }
}

#[test]
fn legacy_stream_synchronizes_with_blocking_streams() {
    use_fake_driver(&[]);
    unsafe {
        let a = stream(cudaStreamDefault);
        assert_eq!(cudaLaunchHostFunc(a, Some(set_flag), null_mut()), cudaSuccess);
        // Stream 0 waits for the blocking stream's earlier work.
        assert_eq!(cudaLaunchHostFunc(null_mut(), Some(observe_flag), null_mut()), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(null_mut()), cudaSuccess);
        assert_eq!(OBSERVED.load(Ordering::SeqCst), 1);
    }
}

#[test]
fn non_blocking_streams_do_not_wait_for_the_legacy_stream() {
    use_fake_driver(&[]);
    unsafe {
        let nb = stream(cudaStreamNonBlocking);
        // Legacy stream busy for 80 ms; the non-blocking stream runs meanwhile.
        assert_eq!(cudaLaunchHostFunc(null_mut(), Some(set_flag), null_mut()), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(nb, Some(observe_flag), null_mut()), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(nb), cudaSuccess);
        assert_eq!(OBSERVED.load(Ordering::SeqCst), 0);
        // A blocking stream does wait.
        let b = stream(cudaStreamDefault);
        FLAG.store(0, Ordering::SeqCst);
        assert_eq!(cudaLaunchHostFunc(null_mut(), Some(set_flag), null_mut()), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(b, Some(observe_flag), null_mut()), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(b), cudaSuccess);
        assert_eq!(OBSERVED.load(Ordering::SeqCst), 1);
    }
}

#[test]
fn attributes_round_trip_and_copy() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream(0);
        let t = stream(0);
        let mut v: cudaStreamAttrValue = std::mem::zeroed();
        v.accessPolicyWindow = cudaAccessPolicyWindow {
            base_ptr: 0x1000 as *mut c_void,
            num_bytes: 4096,
            hitRatio: 0.5,
            hitProp: cudaAccessPropertyPersisting,
            missProp: cudaAccessPropertyStreaming,
        };
        assert_eq!(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v), cudaSuccess);
        let mut sync: cudaStreamAttrValue = std::mem::zeroed();
        sync.syncPolicy = cudaSyncPolicyYield;
        assert_eq!(
            cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &sync),
            cudaSuccess
        );

        let mut got: cudaStreamAttrValue = std::mem::zeroed();
        assert_eq!(
            cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &mut got),
            cudaSuccess
        );
        assert_eq!(got.accessPolicyWindow.num_bytes, 4096);
        assert_eq!(got.accessPolicyWindow.base_ptr as usize, 0x1000);
        assert_eq!(got.accessPolicyWindow.hitRatio, 0.5);
        assert_eq!(got.accessPolicyWindow.hitProp, cudaAccessPropertyPersisting);
        assert_eq!(got.accessPolicyWindow.missProp, cudaAccessPropertyStreaming);

        assert_eq!(cudaStreamCopyAttributes(t, s), cudaSuccess);
        let mut got: cudaStreamAttrValue = std::mem::zeroed();
        assert_eq!(
            cudaStreamGetAttribute(t, cudaStreamAttributeSynchronizationPolicy, &mut got),
            cudaSuccess
        );
        assert_eq!(got.syncPolicy, cudaSyncPolicyYield);
        assert_eq!(
            cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow, &mut got),
            cudaSuccess
        );
        assert_eq!(got.accessPolicyWindow.num_bytes, 4096);
        assert_eq!(
            cudaStreamGetAttribute_ptsz(t, cudaStreamAttributeAccessPolicyWindow, &mut got),
            cudaSuccess
        );
        assert_eq!(
            cudaStreamSetAttribute_ptsz(t, cudaStreamAttributeAccessPolicyWindow, &v),
            cudaSuccess
        );

        // Bad input.
        assert_eq!(
            cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, null_mut()),
            cudaErrorInvalidValue
        );
        assert_eq!(
            cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, std::ptr::null()),
            cudaErrorInvalidValue
        );
        assert_eq!(
            cudaStreamGetAttribute(s, cudaLaunchAttributeID(9999), &mut got),
            cudaErrorInvalidValue
        );
        v.accessPolicyWindow.hitRatio = 2.0;
        assert_eq!(
            cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v),
            cudaErrorInvalidValue
        );
        sync.syncPolicy = cudaSynchronizationPolicy(77);
        assert_eq!(
            cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &sync),
            cudaErrorInvalidValue
        );
        cudaStreamDestroy(t);
        assert_eq!(cudaStreamCopyAttributes(t, s), cudaErrorInvalidResourceHandle);
    }
}

#[test]
fn attach_mem_async() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream(0);
        let mut buf = [0u8; 64];
        let p = buf.as_mut_ptr().cast::<c_void>();
        assert_eq!(cudaStreamAttachMemAsync(s, p, 0, 4 /* cudaMemAttachSingle */), cudaSuccess);
        assert_eq!(
            cudaStreamAttachMemAsync_ptsz(null_mut(), p, 64, 1 /* cudaMemAttachGlobal */),
            cudaSuccess
        );
        assert_eq!(cudaStreamAttachMemAsync(s, p, 0, 3), cudaErrorInvalidValue);
        assert_eq!(cudaStreamAttachMemAsync(s, null_mut(), 0, 4), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuStreamAttachMemAsync"), 3);
        assert_eq!(fake::calls("cuStreamAttachMemAsync_ptsz"), 1);
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
    }
}

#[test]
fn per_thread_streams_are_per_thread() {
    use_fake_driver(&[]);
    let mine = unsafe {
        let mut id = 0;
        assert_eq!(cudaStreamGetId(cudaStreamPerThread, &mut id), cudaSuccess);
        id
    };
    let theirs = std::thread::spawn(|| unsafe {
        let mut id = 0;
        assert_eq!(cudaStreamGetId_ptsz(null_mut(), &mut id), cudaSuccess);
        id
    })
    .join()
    .unwrap();
    assert_ne!(mine, theirs);
}

#[test]
fn no_driver_stream_calls_fail_cleanly() {
    use_fake_driver(&[("FAKE_CUDA_DRIVER_VERSION", "12000")]);
    unsafe {
        let mut s = null_mut();
        assert_eq!(cudaStreamCreate(&mut s), cudaErrorInsufficientDriver);
        assert_eq!(cudaStreamQuery(null_mut()), cudaErrorInsufficientDriver);
    }
}

/// What the reentrant callback saw, as raw codes.
static REENTRANT: Mutex<Vec<(&'static str, i32)>> = Mutex::new(Vec::new());
unsafe extern "C" fn reentrant(s: cudaStream_t, _: cudaError_t, other: *mut c_void) {
    // SAFETY: runtime calls with valid pointers.
    unsafe {
        let mut r = REENTRANT.lock();
        let mut d = -1;
        r.push(("cudaGetDevice", cudaGetDevice(&mut d).0));
        r.push(("device", d));
        r.push(("cudaStreamQuery(other)", cudaStreamQuery(other.cast()).0));
        let mut e = null_mut();
        r.push(("cudaEventCreate", cudaEventCreate(&mut e).0));
        r.push(("cudaEventRecord(other)", cudaEventRecord(e, other.cast()).0));
        r.push(("cudaStreamSynchronize(own)", cudaStreamSynchronize(s).0));
        r.push(("cudaEventSynchronize", cudaEventSynchronize(e).0));
        r.push(("cudaDeviceSynchronize", cudaDeviceSynchronize().0));
    }
}

#[test]
fn callbacks_may_call_back_into_the_runtime() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream(0);
        let other = stream(cudaStreamNonBlocking);
        assert_eq!(cudaStreamAddCallback(s, Some(reentrant), other.cast(), 0), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
        let r = REENTRANT.lock().clone();
        assert_eq!(
            r,
            vec![
                ("cudaGetDevice", 0),
                ("device", 0),
                ("cudaStreamQuery(other)", 0),
                ("cudaEventCreate", 0),
                ("cudaEventRecord(other)", 0),
                // Blocking synchronization from a callback is not permitted.
                ("cudaStreamSynchronize(own)", cudaErrorNotPermitted.0),
                ("cudaEventSynchronize", cudaErrorNotPermitted.0),
                ("cudaDeviceSynchronize", cudaErrorNotPermitted.0),
            ]
        );
        // The errors were the callback thread's, not ours.
        assert_eq!(cudaGetLastError(), cudaSuccess);
    }
}
