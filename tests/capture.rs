//! Stream capture over the fake driver, in process: what our own
//! stream-ordered calls put into the captured graph (seen through the graph
//! API, as for a graph built node by node), fork/join across streams,
//! capture info and dependency updates, NVIDIA's codes for capture
//! violations, and captured graphs instantiated and launched: every launch
//! runs the captured work again, in dependency order.

mod common;
use common::*;
use cudart_shim::api::capture::*;
use cudart_shim::api::device::*;
use cudart_shim::api::error::*;
use cudart_shim::api::event::*;
use cudart_shim::api::graph::*;
use cudart_shim::api::launch::*;
use cudart_shim::api::library::*;
use cudart_shim::api::memory::*;
use cudart_shim::api::stream::*;
use cudart_shim::types::*;
use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The nodes of `g` (the fake driver lists them in creation order).
fn nodes(g: cudaGraph_t) -> Vec<cudaGraphNode_t> {
    let mut n = 0usize;
    unsafe {
        assert_eq!(cudaGraphGetNodes(g, null_mut(), &mut n), cudaSuccess);
        let mut v = vec![null_mut(); n];
        assert_eq!(cudaGraphGetNodes(g, v.as_mut_ptr(), &mut n), cudaSuccess);
        assert_eq!(n, v.len());
        v
    }
}

/// The types of the nodes of `g`, in creation order.
fn kinds(g: cudaGraph_t) -> Vec<cudaGraphNodeType> {
    nodes(g)
        .into_iter()
        .map(|n| {
            let mut t = cudaGraphNodeType(-1);
            assert_eq!(unsafe { cudaGraphNodeGetType(n, &mut t) }, cudaSuccess);
            t
        })
        .collect()
}

/// For each node of `g`, the positions in `nodes(g)` of the nodes it
/// depends on, sorted.
fn deps_of(g: cudaGraph_t) -> Vec<Vec<usize>> {
    let all = nodes(g);
    all.iter()
        .map(|&node| {
            let mut n = 0usize;
            let mut d = [null_mut(); 8];
            unsafe {
                assert_eq!(cudaGraphNodeGetDependencies(node, null_mut(), null_mut(), &mut n), cudaSuccess);
                assert!(n <= d.len());
                assert_eq!(cudaGraphNodeGetDependencies(node, d.as_mut_ptr(), null_mut(), &mut n), cudaSuccess);
            }
            let mut idx: Vec<usize> = d[..n].iter().map(|x| all.iter().position(|y| y == x).expect("a node of the graph")).collect();
            idx.sort();
            idx
        })
        .collect()
}

fn edge_count(g: cudaGraph_t) -> usize {
    let mut n = 0usize;
    assert_eq!(unsafe { cudaGraphGetEdges(g, null_mut(), null_mut(), null_mut(), &mut n) }, cudaSuccess);
    n
}

fn instantiate(g: cudaGraph_t) -> cudaGraphExec_t {
    let mut e = null_mut();
    assert_eq!(unsafe { cudaGraphInstantiate(&mut e, g, 0) }, cudaSuccess);
    assert!(!e.is_null());
    e
}

/// Launch `e` on `s` and wait for it.
fn launch(e: cudaGraphExec_t, s: cudaStream_t) {
    unsafe {
        assert_eq!(cudaGraphLaunch(e, s), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
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
        // Read before the next call on the stream, which may reuse the array.
        let last = *deps;
        // Optional outputs may be NULL.
        assert_eq!(cudaStreamGetCaptureInfo(s, &mut st, null_mut(), null_mut(), null_mut(), null_mut(), null_mut()), cudaSuccess);
        assert_eq!(cudaStreamGetCaptureInfo(s, null_mut(), null_mut(), null_mut(), null_mut(), null_mut(), null_mut()), cudaErrorInvalidValue);

        // The capture's graph is a graph already: its nodes, the last one
        // the stream's dependency.
        let during = nodes(g);
        assert_eq!(during.len(), 5);
        assert_eq!(last, during[4]);

        // Nothing ran: the stream is capturing.
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);
        let mut graph = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut graph), cudaSuccess);
        assert_eq!(graph, g);
        assert_eq!(status(s), cudaStreamCaptureStatusNone);
        assert_eq!(nodes(graph), during);
        assert_eq!(
            kinds(graph),
            vec![cudaGraphNodeTypeHost, cudaGraphNodeTypeHost, cudaGraphNodeTypeHost, cudaGraphNodeTypeEventRecord, cudaGraphNodeTypeWaitEvent]
        );
        assert_eq!(deps_of(graph), vec![vec![], vec![0], vec![1], vec![2], vec![3]], "each node follows the previous one");
        assert_eq!(edge_count(graph), 4);
        // Nodes hold what was captured, as nodes added one by one would.
        let mut hp = cudaHostNodeParams { r#fn: None, userData: null_mut() };
        assert_eq!(cudaGraphHostNodeGetParams(during[1], &mut hp), cudaSuccess);
        assert_eq!(hp.r#fn.map(|f| f as usize), Some(bump as *const () as usize));
        assert_eq!(hp.userData as usize, 2);
        let mut ev = null_mut();
        assert_eq!(cudaGraphEventRecordNodeGetEvent(during[3], &mut ev), cudaSuccess);
        assert_eq!(ev, e);
        assert_eq!(cudaGraphEventWaitNodeGetEvent(during[4], &mut ev), cudaSuccess);
        assert_eq!(ev, e);
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);
        // Host nodes keep their function: every launch runs them again.
        let exec = instantiate(graph);
        launch(exec, s);
        launch(exec, s);
        assert_eq!(*ORDER.lock(), vec![1, 2, 3, 1, 2, 3]);
        assert_eq!(cudaGraphExecDestroy(exec), cudaSuccess);
        assert_eq!(cudaGraphDestroy(graph), cudaSuccess);

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
        assert_eq!(cudaLaunchHostFunc(s1, Some(bump), std::ptr::without_provenance_mut(1)), cudaSuccess);
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
        assert_eq!(kinds(g), vec![cudaGraphNodeTypeHost; 4]);
        // Node 2 (on s2) and node 3 (on s1) both follow node 1 (the fork);
        // node 4 joins both branches.
        assert_eq!(deps_of(g), vec![vec![], vec![0], vec![0], vec![1, 2]]);
        assert_eq!(edge_count(g), 4);
        assert_eq!(status(s1), cudaStreamCaptureStatusNone);
        assert_eq!(status(s2), cudaStreamCaptureStatusNone);
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);
        // A launch runs node 1 first and node 4 last, on one stream.
        let exec = instantiate(g);
        launch(exec, s2);
        let order = ORDER.lock().clone();
        assert_eq!(order.len(), 4);
        assert_eq!((order[0], order[3]), (1, 4), "{order:?}");
        assert_eq!(cudaGraphExecDestroy(exec), cudaSuccess);
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
        assert_eq!(kinds(g), vec![cudaGraphNodeTypeHost; 4]);
        // Node 3 is a root; node 4 depends on node 3 and node 1.
        assert_eq!(deps_of(g), vec![vec![], vec![0], vec![], vec![0, 2]]);
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
        assert_eq!(kinds(g), vec![cudaGraphNodeTypeHost; 2]);
        for f in [
            "cuStreamBeginCapture_ptsz",
            "cuStreamIsCapturing_ptsz",
            "cuStreamGetCaptureInfo_ptsz",
            "cuStreamUpdateCaptureDependencies_ptsz",
            "cuStreamEndCapture_ptsz",
        ] {
            assert_eq!(fake::calls(f), 1, "{f}");
        }

        // Capture into an existing graph, with no dependencies: a new root.
        assert_eq!(
            cudaStreamBeginCaptureToGraph_ptsz(null_mut(), g, null(), null(), 0, cudaStreamCaptureModeGlobal),
            cudaSuccess
        );
        assert_eq!(cudaLaunchHostFunc_ptsz(null_mut(), Some(bump), null_mut()), cudaSuccess);
        let mut g2 = null_mut();
        assert_eq!(cudaStreamEndCapture_ptsz(null_mut(), &mut g2), cudaSuccess);
        assert_eq!(g2, g);
        assert_eq!(kinds(g), vec![cudaGraphNodeTypeHost; 3]);
        assert_eq!(deps_of(g), vec![vec![], vec![0], vec![]]);
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
        assert_eq!(deps_of(g), vec![vec![], vec![0]]);

        // Bad input.
        assert_eq!(cudaStreamBeginCaptureToGraph(s, null_mut(), null(), null(), 0, cudaStreamCaptureModeGlobal), cudaErrorInvalidValue);
        assert_eq!(cudaStreamBeginCaptureToGraph(s, g, null(), null(), 1, cudaStreamCaptureModeGlobal), cudaErrorInvalidValue);
        assert_eq!(cudaStreamBeginCaptureToGraph(s, g, d.as_ptr(), null(), 1, cudaStreamCaptureMode(9)), cudaErrorInvalidValue);
        let bogus = [0x10 as cudaGraphNode_t];
        assert_eq!(cudaStreamBeginCaptureToGraph(s, g, bogus.as_ptr(), null(), 1, cudaStreamCaptureModeGlobal), cudaErrorInvalidValue);
    }
}

/// A memset, a copy back to the host and a host function captured on one
/// stream make a three-node chain; each launch of the instantiated graph
/// sets, copies and calls again (both ends are cleared between launches).
#[test]
fn captured_memset_copy_and_host_function_run_at_every_launch() {
    use_fake_driver(&[]);
    const N: usize = 4096;
    unsafe {
        let s = stream();
        let mut dev = null_mut();
        assert_eq!(cudaMalloc(&mut dev, N), cudaSuccess);
        std::ptr::write_bytes(dev.cast::<u8>(), 0, N);
        let mut host = vec![0u8; N];
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaMemsetAsync(dev, 0x5a, N, s), cudaSuccess);
        assert_eq!(cudaMemcpyAsync(host.as_mut_ptr().cast(), dev, N, cudaMemcpyDeviceToHost, s), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), 7 as *mut c_void), cudaSuccess);
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaSuccess);
        assert!(!g.is_null());
        // Nothing ran during the capture.
        assert!(host.iter().all(|&b| b == 0));
        assert_eq!(*dev.cast::<u8>(), 0);
        assert_eq!(COUNT.load(Ordering::SeqCst), 0);

        assert_eq!(nodes(g).len(), 3);
        assert_eq!(kinds(g), vec![cudaGraphNodeTypeMemset, cudaGraphNodeTypeMemcpy, cudaGraphNodeTypeHost]);
        assert_eq!(deps_of(g), vec![vec![], vec![0], vec![1]]);
        assert_eq!(edge_count(g), 2);
        let mut roots = 0usize;
        assert_eq!(cudaGraphGetRootNodes(g, null_mut(), &mut roots), cudaSuccess);
        assert_eq!(roots, 1);

        let exec = instantiate(g);
        launch(exec, s);
        assert!(host.iter().all(|&b| b == 0x5a), "first launch: the memset and the copy ran");
        assert_eq!(COUNT.load(Ordering::SeqCst), 1);

        host.fill(0);
        std::ptr::write_bytes(dev.cast::<u8>(), 0, N);
        launch(exec, s);
        assert!(std::slice::from_raw_parts(dev.cast::<u8>(), N).iter().all(|&b| b == 0x5a), "second launch: the memset ran again");
        assert!(host.iter().all(|&b| b == 0x5a), "second launch: the copy ran again");
        assert_eq!(COUNT.load(Ordering::SeqCst), 2);
        assert_eq!(*ORDER.lock(), vec![7, 7]);

        // The graph outlives its executable and instantiates again.
        assert_eq!(cudaGraphExecDestroy(exec), cudaSuccess);
        host.fill(0);
        let again = instantiate(g);
        launch(again, s);
        assert!(host.iter().all(|&b| b == 0x5a));
        assert_eq!(COUNT.load(Ordering::SeqCst), 3);
        assert_eq!(cudaGraphExecDestroy(again), cudaSuccess);
        assert_eq!(cudaGraphDestroy(g), cudaSuccess);
        assert_eq!(cudaFree(dev), cudaSuccess);
    }
}

const PTX: &CStr = c".version 8.0
.target sm_90
.address_size 64
.visible .entry noargs()
{
    ret;
}
";

/// Kernel launches recorded by the fake driver (its launch log).
fn launches() -> Vec<String> {
    let count: unsafe extern "C" fn() -> u64 = fake::control("fake_cuda_launch_count");
    let get: unsafe extern "C" fn(u64, *mut c_char, usize) -> usize = fake::control("fake_cuda_launch_get");
    (0..unsafe { count() })
        .map(|i| {
            let mut buf = vec![0u8; 4096];
            let len = unsafe { get(i, buf.as_mut_ptr().cast(), buf.len()) };
            String::from_utf8_lossy(&buf[..len.min(4095)]).into_owned()
        })
        .collect()
}

/// A captured kernel launch is a kernel node; each graph launch launches
/// the kernel again.
#[test]
fn captured_kernel_launch_runs_at_every_launch() {
    use_fake_driver(&[]);
    unsafe {
        let mut lib = null_mut();
        assert_eq!(cudaLibraryLoadData(&mut lib, PTX.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0), cudaSuccess);
        let mut k = null_mut();
        assert_eq!(cudaLibraryGetKernel(&mut k, lib, c"noargs".as_ptr()), cudaSuccess);
        let s = stream();
        let one = dim3 { x: 1, y: 1, z: 1 };
        let grid = dim3 { x: 3, y: 1, z: 1 };
        assert_eq!(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaLaunchKernel(k as *const c_void, grid, one, null_mut(), 0, s), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), null_mut()), cudaSuccess);
        let mut g = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut g), cudaSuccess);
        assert!(launches().is_empty(), "nothing launched during the capture");
        assert_eq!(kinds(g), vec![cudaGraphNodeTypeKernel, cudaGraphNodeTypeHost]);
        assert_eq!(deps_of(g), vec![vec![], vec![0]]);

        let exec = instantiate(g);
        launch(exec, s);
        launch(exec, s);
        let l = launches();
        assert_eq!(l.len(), 2, "{l:?}");
        for line in &l {
            assert!(line.contains("name=noargs grid=3,1,1 block=1,1,1"), "{line}");
        }
        assert_eq!(COUNT.load(Ordering::SeqCst), 2);
        assert_eq!(cudaGraphExecDestroy(exec), cudaSuccess);
        assert_eq!(cudaGraphDestroy(g), cudaSuccess);
    }
}

/// Captured nodes and nodes added with the graph API are nodes of one
/// graph: a capture into a graph starts after a node added by hand, a node
/// added by hand during the capture depends on a captured one, and the
/// stream's dependencies can be set to it.
#[test]
fn capture_and_graph_api_nodes_mix_in_one_graph() {
    use_fake_driver(&[]);
    unsafe {
        let s = stream();
        let mut g = null_mut();
        assert_eq!(cudaGraphCreate(&mut g, 0), cudaSuccess);
        let mut first = null_mut();
        assert_eq!(cudaGraphAddEmptyNode(&mut first, g, null(), 0), cudaSuccess);
        let d = [first];
        assert_eq!(cudaStreamBeginCaptureToGraph(s, g, d.as_ptr(), null(), 1, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), std::ptr::without_provenance_mut(1)), cudaSuccess);
        let mut st = cudaStreamCaptureStatus(0);
        let (mut cur, mut n) = (null(), 0usize);
        assert_eq!(cudaStreamGetCaptureInfo(s, &mut st, null_mut(), null_mut(), &mut cur, null_mut(), &mut n), cudaSuccess);
        assert_eq!(n, 1);
        let captured = *cur;
        // A node added by hand after the captured one; the stream goes on from it.
        let host = cudaHostNodeParams { r#fn: Some(bump), userData: 2 as *mut c_void };
        let mut by_hand = null_mut();
        assert_eq!(cudaGraphAddHostNode(&mut by_hand, g, &captured, 1, &host), cudaSuccess);
        let mut to = [by_hand];
        assert_eq!(
            cudaStreamUpdateCaptureDependencies(s, to.as_mut_ptr(), null(), 1, cudaStreamSetCaptureDependencies.0 as u32),
            cudaSuccess
        );
        assert_eq!(cudaLaunchHostFunc(s, Some(bump), 3 as *mut c_void), cudaSuccess);
        let mut out = null_mut();
        assert_eq!(cudaStreamEndCapture(s, &mut out), cudaSuccess);
        assert_eq!(out, g);
        assert_eq!(
            kinds(g),
            vec![cudaGraphNodeTypeEmpty, cudaGraphNodeTypeHost, cudaGraphNodeTypeHost, cudaGraphNodeTypeHost]
        );
        assert_eq!(deps_of(g), vec![vec![], vec![0], vec![1], vec![2]]);
        let exec = instantiate(g);
        launch(exec, s);
        assert_eq!(*ORDER.lock(), vec![1, 2, 3]);
        assert_eq!(cudaGraphExecDestroy(exec), cudaSuccess);
        // A failed capture into the graph leaves the graph to its owner.
        assert_eq!(cudaStreamBeginCaptureToGraph(s, g, null(), null(), 0, cudaStreamCaptureModeGlobal), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
        assert_eq!(cudaStreamEndCapture(s, &mut out), cudaErrorStreamCaptureInvalidated);
        assert!(out.is_null());
        assert_eq!(cudaGraphDestroy(g), cudaSuccess);
    }
}
