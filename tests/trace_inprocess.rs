//! Tracing entry points used by other areas, in process over the fake
//! driver: the ledger's memory events on the timeline. (Driver entry points handed out by
//! `cudaGetDriverEntryPoint*` are traced by the driver interposer:
//! tests/interposer.rs.)

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::memory::{cudaFree, cudaMalloc};
use cudart_shim::trace;
use cudart_shim::types::*;

fn env(vars: &[(&str, &str)]) {
    use_fake_driver(&[]);
    for (k, v) in vars {
        // SAFETY: one process per test (nextest), before any CUDA call.
        unsafe { std::env::set_var(k, v) };
    }
}

/// The timeline's memory events come from the ledger (the one source of
/// memory accounting), which the timeline switches on: each allocation
/// and free is an instant (size, kind, device, library) and a sample of
/// the counter track of its device and kind (bytes live). The protobuf
/// writer's: tests/perfetto.rs.
#[test]
fn memory_events_from_the_ledger() {
    let f = scratch("memevents").join("tl.json");
    let _ = std::fs::remove_file(&f);
    env(&[("CUDART_SHIM_TRACE", "timeline"), ("CUDART_SHIM_TRACE_FILE", f.to_str().unwrap())]);
    let (mut a, mut b) = (std::ptr::null_mut(), std::ptr::null_mut());
    assert_eq!(unsafe { cudaMalloc(&mut a, 1 << 20) }, cudaSuccess);
    assert_eq!(unsafe { cudaMalloc(&mut b, 4096) }, cudaSuccess);
    assert_eq!(unsafe { cudaFree(a) }, cudaSuccess);
    // A failed free changes nothing: no event.
    assert_eq!(unsafe { cudaFree(a) }, cudaErrorInvalidValue);
    trace::flush();
    let read = || -> Vec<serde_json::Value> {
        let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        j["traceEvents"].as_array().unwrap().clone()
    };
    let ev = read();
    let instants: Vec<(&str, u64, &str, i64)> = ev
        .iter()
        .filter(|e| e["ph"] == "i" && e["cat"] == "memory")
        .map(|e| (e["name"].as_str().unwrap(), e["args"]["bytes"].as_u64().unwrap(), e["args"]["kind"].as_str().unwrap(), e["args"]["device"].as_i64().unwrap()))
        .collect();
    assert_eq!(instants, [("alloc", 1 << 20, "device", 0), ("alloc", 4096, "device", 0), ("free", 1 << 20, "device", 0)]);
    // The library: the test binary itself, the first caller outside our libraries.
    let lib = ev.iter().find(|e| e["ph"] == "i" && e["cat"] == "memory").unwrap()["args"]["library"].as_str().unwrap().to_owned();
    assert!(lib.starts_with("trace_inprocess"), "{lib}");
    let counter: Vec<(&str, i64)> = ev.iter().filter(|e| e["ph"] == "C").map(|e| (e["name"].as_str().unwrap(), e["args"]["bytes"].as_i64().unwrap())).collect();
    let name = "GPU 0 device memory (bytes)";
    assert_eq!(counter, [(name, 1 << 20), (name, (1 << 20) + 4096), (name, 4096)]);
    // Flushing again later keeps the file valid and adds the new events.
    assert_eq!(unsafe { cudaFree(b) }, cudaSuccess);
    trace::flush();
    let ev = read();
    assert_eq!(ev.iter().rfind(|e| e["ph"] == "C").unwrap()["args"]["bytes"], 0);
    assert_eq!(ev.iter().filter(|e| e["name"] == "cudaFree").count(), 3);
}

/// Threads append to their timeline buffers without a lock while flushes
/// read those buffers in place: every call must be written exactly once,
/// with its out-parameter, across chunk hand-offs (a chunk holds 4096
/// events) and concurrent flushes. (File order is not call order: a flush
/// can write a thread's new chunk before the full one it just handed to
/// the writer; viewers order events by timestamp.)
#[test]
fn flushes_while_threads_append_write_every_event_once() {
    const THREADS: usize = 4;
    const CALLS: usize = 6000;
    let f = scratch("tl_concurrent_flush").join("tl.json");
    let _ = std::fs::remove_file(&f);
    env(&[("CUDART_SHIM_TRACE", "timeline"), ("CUDART_SHIM_TRACE_FILE", f.to_str().unwrap())]);
    let mut d = 0;
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaSuccess);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let done = done.clone();
            std::thread::spawn(move || {
                let mut v = 0;
                for _ in 0..CALLS {
                    assert_eq!(unsafe { cudaDeviceGetAttribute(&mut v, cudaDevAttrWarpSize, 0) }, cudaSuccess);
                }
                done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                // SAFETY: gettid has no preconditions.
                unsafe { libc::syscall(libc::SYS_gettid) as i64 }
            })
        })
        .collect();
    let mut flushes = 0;
    while done.load(std::sync::atomic::Ordering::SeqCst) < THREADS {
        trace::flush();
        flushes += 1;
    }
    let tids: Vec<i64> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    trace::flush();
    assert!(flushes > 1, "the flushes should overlap the calls");
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let events = j["traceEvents"].as_array().unwrap();
    for tid in tids {
        let mine: Vec<&serde_json::Value> =
            events.iter().filter(|e| e["tid"].as_i64() == Some(tid) && e["name"] == "cudaDeviceGetAttribute").collect();
        assert_eq!(mine.len(), CALLS, "thread {tid}: every call once");
        // No event written twice (a start and duration to the nanosecond
        // identify a call).
        let distinct: std::collections::HashSet<String> = mine.iter().map(|e| format!("{}/{}", e["ts"], e["dur"])).collect();
        assert_eq!(distinct.len(), CALLS, "thread {tid}: no event written twice");
        assert!(mine.iter().all(|e| e["args"]["value"].as_str().is_some_and(|v| v.ends_with("->32"))));
        assert!(mine.iter().all(|e| e["args"]["attr"] == "cudaDevAttrWarpSize" && e["args"]["result"] == "cudaSuccess"));
    }
    assert!(!events.iter().any(|e| e["ph"] == "M" && e["name"] == "process_labels"), "no events dropped");
}
