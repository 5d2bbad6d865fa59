//! Stream capture over the fake driver, in process: what our own
//! stream-ordered calls put into the captured graph, fork/join across
//! streams, capture info and dependency updates, and NVIDIA's codes for
//! capture violations.

mod common;
use common::*;
use cudart_shim::api::capture::*;
use cudart_shim::api::device::*;
use cudart_shim::api::error::*;
use cudart_shim::api::event::*;
use cudart_shim::api::stream::*;
use cudart_shim::types::*;
use std::ffi::{c_int, c_void};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

/// `CUgraphNodeType` values.
const HOST: c_int = 3;
const WAIT_EVENT: c_int = 6;
const EVENT_RECORD: c_int = 7;

/// The fake driver's capture inspection API (same copy the shim loaded).
mod inspect {
    use std::ffi::{c_int, c_void};
    fn lib() -> &'static libloading::Library {
        static L: std::sync::OnceLock<libloading::Library> = std::sync::OnceLock::new();
        L.get_or_init(|| unsafe { libloading::Library::new(super::fake_driver()) }.unwrap())
    }
    /// Kinds of the nodes captured into `graph`, in capture order.
    pub fn kinds<T>(graph: *mut T) -> Vec<c_int> {
        let f: libloading::Symbol<unsafe extern "C" fn(*mut c_void, *mut c_int, usize) -> i64> =
            unsafe { lib().get(b"fake_cuda_captured_kinds\0") }.unwrap();
        let mut k = [0; 64];
        let n = unsafe { f(graph.cast(), k.as_mut_ptr(), 64) };
        assert!(n >= 0, "not a capture graph");
        k[..n as usize].to_vec()
    }
    pub fn deps<T>(graph: *mut T, i: usize) -> i64 {
        let f: libloading::Symbol<unsafe extern "C" fn(*mut c_void, usize) -> i64> =
            unsafe { lib().get(b"fake_cuda_captured_deps\0") }.unwrap();
        unsafe { f(graph.cast(), i) }
    }
    /// Run the captured work in capture order (stand-in for a graph launch).
    pub fn run<T>(graph: *mut T) -> i64 {
        let f: libloading::Symbol<unsafe extern "C" fn(*mut c_void) -> i64> =
            unsafe { lib().get(b"fake_cuda_run_captured\0") }.unwrap();
        unsafe { f(graph.cast()) }
    }
}

static COUNT: AtomicUsize = AtomicUsize::new(0);
static ORDER: parking_lot::Mutex<Vec<usize>> = parking_lot::Mutex::new(Vec::new());
unsafe extern "C" fn bump(data: *mut c_void) {
    COUNT.fetch_add(1, Ordering::SeqCst);
    ORDER.lock().push(data as usize);
}

unsafe extern "C" fn callback(_: cudaStream_t, _: cudaError_t, _: *mut c_void) {}

fn stream() -> cudaStream_t {
    let mut s = null_mut();
    assert_eq!(unsafe { cudaStreamCreateWithFlags(&mut s, cudaStreamNonBlocking) }, cudaSuccess);
    s
}

fn blocking_stream() -> cudaStream_t {
    let mut s = null_mut();
    assert_eq!(unsafe { cudaStreamCreate(&mut s) }, cudaSuccess);
    s
}

fn event() -> cudaEvent_t {
    let mut e = null_mut();
    assert_eq!(unsafe { cudaEventCreateWithFlags(&mut e, cudaEventDisableTiming) }, cudaSuccess);
    e
}

fn status(s: cudaStream_t) -> cudaStreamCaptureStatus {
    let mut st = cudaStreamCaptureStatus(-1);
    assert_eq!(unsafe { cudaStreamIsCapturing(s, &mut st) }, cudaSuccess);
    st
}

#[test]
fn captured_host_functions_and_event_nodes_land_in_the_graph() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream();
        let e = event();
        assert_eq!(status(s), cudaStreamCaptureStatusNone);
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(status(s), cudaStreamCaptureStatusActive);
        for i in 1..=3 {
            assert_eq!(cudaLaunchHostFunc(s, Some(bump), i as *mut c_void), cudaSuccess);
        }
        assert_eq!(cudaEventRecordWithFlags(e, s, cudaEventRecordExternal), cudaSuccess);
        assert_eq!(cudaStreamWaitEvent(s, e, cudaEventWaitExternal), cudaSuccess);

        let (mut st, mut id, mut g, mut deps, mut edges, mut n) =
            (cudaStreamCaptureStatus(-1), 0u64, null_mut(), null(), null(), 0usize);
        assert_eq!(cudaStreamGetCaptureInfo(s, &mut st, &mut id, &mut g, &mut deps, &mut edges, &mut n), cudaSuccess);
        assert_eq!(st, cudaStreamCaptureStatusActive);
        assert_ne!(id, 0);
        assert!(!g.is_null());
        assert_eq!(n, 1, "the stream depends on its last node");
        assert!(!deps.is_null() && !edges.is_null());
        assert_eq!(*edges, cudaGraphEdgeData::default());
        // Optional outputs may be NULL.
        assert_eq!(cudaStreamGetCaptureInfo(s, &mut st, null_mut(), null_mut(), null_mut(), null_mut(), null_mut()), cudaSuccess);
        assert_eq!(cudaStreamGetCaptureInfo(s, null_mut(), null_mut(), null_mut(), null_mut(), null_mut(), null_mut()), cudaErrorInvalidValue);

        // Nothing ran: the stream is capturing.
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);
        let mut graph = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut graph), cudaSuccess);
        assert_eq!(graph, g);
        assert_eq!(status(s), cudaStreamCaptureStatusNone);
        assert_eq!(inspect::kinds(graph), vec![HOST, HOST, HOST, EVENT_RECORD, WAIT_EVENT]);
        assert_eq!(inspect::deps(graph, 0), 0);
        for i in 1..5 {
            assert_eq!(inspect::deps(graph, i), 1, "node {i} follows the previous one");
        }
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);
        // Host nodes keep their function: the graph can run them again.
        assert_eq!(inspect::run(graph), 3);
        assert_eq!(inspect::run(graph), 3);
        assert_eq!(*ORDER.lock(), vec![1, 2, 3, 1, 2, 3]);

        // After capture, the stream runs work again.
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), 9 as *mut c_void), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
        assert_eq!(COUNT.load(Ordering::SeqCst), 7);
        assert_eq!(cudaStreamGetCaptureInfo(s, &mut st, &mut id, null_mut(), null_mut(), null_mut(), null_mut()), cudaSuccess);
        assert_eq!(st, cudaStreamCaptureStatusNone);
    }
}

#[test]
fn fork_and_join_across_streams() {
    use_fake_driver(&[]);
    unsafe {
        let (s1, s2) = (stream(), stream());
        let (fork, join) = (event(), event());
        assert_eq!(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s1, Some(bump), 1 as *mut c_void), cudaSuccess);
        assert_eq!(cudaEventRecord(fork, s1), cudaSuccess);
        assert_eq!(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
        assert_eq!(status(s2), cudaStreamCaptureStatusActive, "s2 joined the capture");
        let (mut id1, mut id2) = (0u64, 0u64);
        let mut st = cudaStreamCaptureStatus(0);
        cudaStreamGetCaptureInfo(s1, &mut st, &mut id1, null_mut(), null_mut(), null_mut(), null_mut());
        cudaStreamGetCaptureInfo(s2, &mut st, &mut id2, null_mut(), null_mut(), null_mut(), null_mut());
        assert_eq!(id1, id2);
        assert_eq!(cudaLaunchHostFunc(s2, Some(bump), 2 as *mut c_void), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s1, Some(bump), 3 as *mut c_void), cudaSuccess);
        assert_eq!(cudaEventRecord(join, s2), cudaSuccess);
        assert_eq!(cudaStreamWaitEvent(s1, join, 0), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s1, Some(bump), 4 as *mut c_void), cudaSuccess);
        // Ending on the forked stream is not allowed.
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s2, &mut g), cudaErrorStreamCaptureUnmatched);
        assert_eq!(cudaStreamEndCapture(s1, &mut g), cudaSuccess);
        assert_eq!(inspect::kinds(g), vec![HOST, HOST, HOST, HOST]);
        assert_eq!(inspect::deps(g, 1), 1, "node 2 follows node 1 (fork)");
        assert_eq!(inspect::deps(g, 2), 1);
        assert_eq!(inspect::deps(g, 3), 2, "node 4 joins both branches");
        assert_eq!(status(s1), cudaStreamCaptureStatusNone);
        assert_eq!(status(s2), cudaStreamCaptureStatusNone);
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);
    }
}

#[test]
fn unjoined_fork_fails_end_capture() {
    use_fake_driver(&[]);
    unsafe {
        let (s1, s2) = (stream(), stream());
        let fork = event();
        assert_eq!(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaEventRecord(fork, s1), cudaSuccess);
        assert_eq!(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s2, Some(bump), null_mut()), cudaSuccess);
        let mut g = 1 as cudaGraph_t;
        assert_eq!(cudaStreamEndCapture(s1, &mut g), cudaErrorStreamCaptureUnjoined);
        assert!(g.is_null());
        assert_eq!(status(s2), cudaStreamCaptureStatusNone);
    }
}

#[test]
fn synchronizing_a_capturing_stream_invalidates_the_capture() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream();
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
        assert_eq!(status(s), cudaStreamCaptureStatusInvalidated);
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), null_mut()), cudaErrorStreamCaptureInvalidated);
        assert_eq!(cudaStreamQuery(s), cudaErrorStreamCaptureUnsupported);
        let mut g = 1 as cudaGraph_t;
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaErrorStreamCaptureInvalidated);
        assert!(g.is_null());
        assert_eq!(status(s), cudaStreamCaptureStatusNone);
        assert_eq!(cudaGetLastError(), cudaErrorStreamCaptureInvalidated);
        // The stream works normally afterwards.
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
    }
}

#[test]
fn capture_state_errors() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream();
        let mut g = null_mut();
        // Legacy stream cannot capture.
        assert_eq!(cudaStreamBeginCapture(null_mut(), cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
        assert_eq!(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
        // Invalid mode never reaches the driver.
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureMode(3)), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuStreamBeginCapture"), 2);
        // Ending what never began.
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaErrorIllegalState);
        assert_eq!(cudaStreamEndCapture(s, null_mut()), cudaErrorInvalidValue);
        // Beginning twice.
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaErrorIllegalState);
        // cudaStreamAddCallback is not capturable.
        assert_eq!(cudaStreamAddCallback(s, Some(callback), null_mut(), 0), cudaErrorStreamCaptureUnsupported);
        assert_eq!(status(s), cudaStreamCaptureStatusInvalidated);
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaErrorStreamCaptureInvalidated);
        // NULL status pointer; destroyed stream.
        assert_eq!(cudaStreamIsCapturing(s, null_mut()), cudaErrorInvalidValue);
        let d = stream();
        cudaStreamDestroy(d);
        let mut st = cudaStreamCaptureStatus(0);
        assert_eq!(cudaStreamIsCapturing(d, &mut st), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaStreamBeginCapture(d, cudaStreamCaptureModeGlobal), cudaErrorInvalidResourceHandle);
    }
}

#[test]
fn end_capture_from_another_thread() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream() as usize;
        let r = stream() as usize;
        assert_eq!(cudaStreamBeginCapture(s as cudaStream_t, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaStreamBeginCapture(r as cudaStream_t, cudaStreamCaptureModeRelaxed), cudaSuccess);
        let (a, b) = std::thread::spawn(move || {
            let mut g = null_mut();
            let a = cudaStreamEndCapture(s as cudaStream_t, &mut g);
            let b = cudaStreamEndCapture(r as cudaStream_t, &mut g);
            (a, b)
        })
        .join()
        .unwrap();
        assert_eq!(a, cudaErrorStreamCaptureWrongThread);
        assert_eq!(b, cudaSuccess, "relaxed captures may end on any thread");
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s as cudaStream_t, &mut g), cudaSuccess);
    }
}

#[test]
fn legacy_stream_use_during_capture_is_an_implicit_dependency() {
    use_fake_driver(&[]);
    unsafe {
        let s = blocking_stream();
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
        let mut st = cudaStreamCaptureStatus(0);
        assert_eq!(cudaStreamIsCapturing(null_mut(), &mut st), cudaErrorStreamCaptureImplicit);
        assert_eq!(cudaLaunchHostFunc(null_mut(), Some(bump), null_mut()), cudaErrorStreamCaptureImplicit);
        assert_eq!(status(s), cudaStreamCaptureStatusInvalidated);
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaErrorStreamCaptureInvalidated);
        // With no capture left, the legacy stream is fine again.
        assert_eq!(cudaStreamIsCapturing(null_mut(), &mut st), cudaSuccess);
        assert_eq!(st, cudaStreamCaptureStatusNone);
        assert_eq!(cudaStreamSynchronize(null_mut()), cudaSuccess);
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);
    }
}

#[test]
fn events_recorded_in_capture() {
    use_fake_driver(&[]);
    unsafe {
        let (s, other) = (stream(), stream());
        let e = event();
        let outside = event();
        assert_eq!(cudaEventRecord(outside, other), cudaSuccess);
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaEventRecord(e, s), cudaSuccess);
        assert_eq!(cudaEventQuery(e), cudaErrorCapturedEvent);
        assert_eq!(cudaEventSynchronize(e), cudaErrorCapturedEvent);
        // Waiting on an event from outside the capture crosses its boundary.
        assert_eq!(cudaStreamWaitEvent(s, outside, 0), cudaErrorStreamCaptureIsolation);
        // The legacy stream cannot join a capture.
        assert_eq!(cudaStreamWaitEvent(null_mut(), e, 0), cudaErrorStreamCaptureImplicit);
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaErrorStreamCaptureInvalidated);
        // Re-recorded outside capture, the event is usable again.
        assert_eq!(cudaEventRecord(e, other), cudaSuccess);
        assert_eq!(cudaEventSynchronize(e), cudaSuccess);
    }
}

#[test]
fn merging_two_captures_is_refused() {
    use_fake_driver(&[]);
    unsafe {
        let (a, b) = (stream(), stream());
        let e = event();
        assert_eq!(cudaStreamBeginCapture(a, cudaStreamCaptureModeRelaxed), cudaSuccess);
        assert_eq!(cudaStreamBeginCapture(b, cudaStreamCaptureModeRelaxed), cudaSuccess);
        assert_eq!(cudaEventRecord(e, a), cudaSuccess);
        assert_eq!(cudaStreamWaitEvent(b, e, 0), cudaErrorStreamCaptureMerge);
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(a, &mut g), cudaErrorStreamCaptureInvalidated);
        assert_eq!(cudaStreamEndCapture(b, &mut g), cudaErrorStreamCaptureInvalidated);
    }
}

#[test]
fn capture_mode_violations() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream() as usize;
        // A global-mode capture forbids unsafe calls in every thread whose
        // mode is global.
        assert_eq!(cudaStreamBeginCapture(s as cudaStream_t, cudaStreamCaptureModeGlobal), cudaSuccess);
        let other = std::thread::spawn(|| {
            let strict = cudaDeviceSynchronize();
            let mut m = cudaStreamCaptureModeRelaxed;
            assert_eq!(cudaThreadExchangeStreamCaptureMode(&mut m), cudaSuccess);
            assert_eq!(m, cudaStreamCaptureModeGlobal, "the previous mode comes back");
            let relaxed = cudaDeviceSynchronize();
            (strict, relaxed)
        })
        .join()
        .unwrap();
        assert_eq!(other.0, cudaErrorStreamCaptureUnsupported);
        assert_eq!(other.1, cudaSuccess);
        assert_eq!(status(s as cudaStream_t), cudaStreamCaptureStatusInvalidated);
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s as cudaStream_t, &mut g), cudaErrorStreamCaptureInvalidated);

        // A thread-local capture only restricts its own thread.
        assert_eq!(cudaStreamBeginCapture(s as cudaStream_t, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        let elsewhere = std::thread::spawn(|| cudaDeviceSynchronize()).join().unwrap();
        assert_eq!(elsewhere, cudaSuccess);
        assert_eq!(status(s as cudaStream_t), cudaStreamCaptureStatusActive);
        assert_eq!(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
        assert_eq!(cudaStreamEndCapture(s as cudaStream_t, &mut g), cudaErrorStreamCaptureInvalidated);

        // A relaxed thread may call them even during its own capture... once
        // its own capture is relaxed too.
        let mut m = cudaStreamCaptureModeRelaxed;
        assert_eq!(cudaThreadExchangeStreamCaptureMode(&mut m), cudaSuccess);
        assert_eq!(cudaStreamBeginCapture(s as cudaStream_t, cudaStreamCaptureModeRelaxed), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(cudaStreamEndCapture(s as cudaStream_t, &mut g), cudaSuccess);

        // Bad input.
        assert_eq!(cudaThreadExchangeStreamCaptureMode(null_mut()), cudaErrorInvalidValue);
        let mut bad = cudaStreamCaptureMode(7);
        assert_eq!(cudaThreadExchangeStreamCaptureMode(&mut bad), cudaErrorInvalidValue);
        assert_eq!(bad, cudaStreamCaptureMode(7));
    }
}

#[test]
fn update_capture_dependencies() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream();
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), null_mut()), cudaSuccess);
        let mut st = cudaStreamCaptureStatus(0);
        let (mut deps, mut n) = (null(), 0usize);
        assert_eq!(cudaStreamGetCaptureInfo(s, &mut st, null_mut(), null_mut(), &mut deps, null_mut(), &mut n), cudaSuccess);
        assert_eq!(n, 1);
        let first = *deps;
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), null_mut()), cudaSuccess);
        // Replace the dependency set with nothing: the next node is a root.
        assert_eq!(cudaStreamUpdateCaptureDependencies(s, null_mut(), null(), 0, cudaStreamSetCaptureDependencies.0 as u32), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), null_mut()), cudaSuccess);
        // Add the first node: the next node depends on node 3 and node 1.
        let mut add = [first];
        assert_eq!(cudaStreamUpdateCaptureDependencies(s, add.as_mut_ptr(), null(), 1, cudaStreamAddCaptureDependencies.0 as u32), cudaSuccess);
        assert_eq!(cudaStreamGetCaptureInfo(s, &mut st, null_mut(), null_mut(), &mut deps, null_mut(), &mut n), cudaSuccess);
        assert_eq!(n, 2);
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), null_mut()), cudaSuccess);
        // Bad input.
        assert_eq!(cudaStreamUpdateCaptureDependencies(s, add.as_mut_ptr(), null(), 1, 2), cudaErrorInvalidValue);
        assert_eq!(cudaStreamUpdateCaptureDependencies(s, null_mut(), null(), 1, 0), cudaErrorInvalidValue);
        let mut bogus = [0x1234 as cudaGraphNode_t];
        assert_eq!(cudaStreamUpdateCaptureDependencies(s, bogus.as_mut_ptr(), null(), 1, 0), cudaErrorInvalidValue);
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaSuccess);
        assert_eq!(inspect::kinds(g), vec![HOST; 4]);
        assert_eq!((0..4).map(|i| inspect::deps(g, i)).collect::<Vec<_>>(), vec![0, 1, 0, 2]);
        // Not capturing any more.
        assert_eq!(cudaStreamUpdateCaptureDependencies(s, null_mut(), null(), 0, 0), cudaErrorIllegalState);
    }
}

#[test]
fn ptsz_capture_on_the_per_thread_stream() {
    use_fake_driver(&[]);
    unsafe {
        assert_eq!(cudaStreamBeginCapture_ptsz(null_mut(), cudaStreamCaptureModeGlobal), cudaSuccess);
        let mut st = cudaStreamCaptureStatus(0);
        assert_eq!(cudaStreamIsCapturing_ptsz(null_mut(), &mut st), cudaSuccess);
        assert_eq!(st, cudaStreamCaptureStatusActive);
        assert_eq!(status(cudaStreamPerThread), cudaStreamCaptureStatusActive);
        assert_eq!(cudaLaunchHostFunc_ptsz(null_mut(), Some(bump), null_mut()), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(cudaStreamPerThread, Some(bump), null_mut()), cudaSuccess);
        let (mut deps, mut n) = (null(), 0usize);
        assert_eq!(cudaStreamGetCaptureInfo_ptsz(null_mut(), &mut st, null_mut(), null_mut(), &mut deps, null_mut(), &mut n), cudaSuccess);
        assert_eq!(n, 1);
        let mut d = [*deps];
        assert_eq!(cudaStreamUpdateCaptureDependencies_ptsz(null_mut(), d.as_mut_ptr(), null(), 1, 1), cudaSuccess);
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture_ptsz(null_mut(), &mut g), cudaSuccess);
        assert_eq!(inspect::kinds(g), vec![HOST, HOST]);
        for f in [
            "cuStreamBeginCapture_ptsz",
            "cuStreamIsCapturing_ptsz",
            "cuStreamGetCaptureInfo_ptsz",
            "cuStreamUpdateCaptureDependencies_ptsz",
            "cuStreamEndCapture_ptsz",
        ] {
            assert_eq!(fake::calls(f), 1, "{f}");
        }

        // Capture into an existing graph, after its last node.
        assert_eq!(
            cudaStreamBeginCaptureToGraph_ptsz(null_mut(), g, null(), null(), 0, cudaStreamCaptureModeGlobal),
            cudaSuccess
        );
        assert_eq!(cudaLaunchHostFunc_ptsz(null_mut(), Some(bump), null_mut()), cudaSuccess);
        let mut g2 = null_mut();
        assert_eq!(cudaStreamEndCapture_ptsz(null_mut(), &mut g2), cudaSuccess);
        assert_eq!(g2, g);
        assert_eq!(inspect::kinds(g), vec![HOST, HOST, HOST]);
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);
    }
}

#[test]
fn begin_capture_to_graph_with_dependencies() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream();
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), null_mut()), cudaSuccess);
        let mut st = cudaStreamCaptureStatus(0);
        let (mut deps, mut n) = (null(), 0usize);
        assert_eq!(cudaStreamGetCaptureInfo(s, &mut st, null_mut(), null_mut(), &mut deps, null_mut(), &mut n), cudaSuccess);
        let first = *deps;
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaSuccess);

        let d = [first];
        let edges = [cudaGraphEdgeData::default()];
        assert_eq!(
            cudaStreamBeginCaptureToGraph(s, g, d.as_ptr(), edges.as_ptr(), 1, cudaStreamCaptureModeGlobal),
            cudaSuccess
        );
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), null_mut()), cudaSuccess);
        let mut g2 = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut g2), cudaSuccess);
        assert_eq!(g2, g);
        assert_eq!(inspect::deps(g, 1), 1);

        // Bad input.
        assert_eq!(cudaStreamBeginCaptureToGraph(s, null_mut(), null(), null(), 0, cudaStreamCaptureModeGlobal), cudaErrorInvalidValue);
        assert_eq!(cudaStreamBeginCaptureToGraph(s, g, null(), null(), 1, cudaStreamCaptureModeGlobal), cudaErrorInvalidValue);
        assert_eq!(cudaStreamBeginCaptureToGraph(s, g, d.as_ptr(), null(), 1, cudaStreamCaptureMode(9)), cudaErrorInvalidValue);
        let bogus = [0x10 as cudaGraphNode_t];
        assert_eq!(cudaStreamBeginCaptureToGraph(s, g, bogus.as_ptr(), null(), 1, cudaStreamCaptureModeGlobal), cudaErrorInvalidValue);
    }
}
