//! Tracing entry points used by other areas, in process over the fake
//! driver: the device-memory counter. (Driver entry points handed out by
//! `cudaGetDriverEntryPoint*` are traced by the driver interposer:
//! tests/interposer.rs.)

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::trace;
use cudart_shim::types::*;

fn env(vars: &[(&str, &str)]) {
    use_fake_driver(&[]);
    for (k, v) in vars {
        // SAFETY: one process per test (nextest), before any CUDA call.
        unsafe { std::env::set_var(k, v) };
    }
}

#[test]
fn memory_counter_track_in_timeline() {
    let f = scratch("memcounter").join("tl.json");
    let _ = std::fs::remove_file(&f);
    env(&[("CUDART_SHIM_TRACE", "timeline"), ("CUDART_SHIM_TRACE_FILE", f.to_str().unwrap())]);
    let mut d = 0;
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaSuccess);
    trace::memory_counter(1 << 20);
    trace::memory_counter(4096);
    trace::memory_counter(-(1 << 20));
    assert_eq!(trace::memory_allocated(), 4096);
    trace::flush();
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let vals: Vec<i64> = j["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "C")
        .map(|e| e["args"]["bytes"].as_i64().unwrap())
        .collect();
    assert_eq!(vals, [1 << 20, (1 << 20) + 4096, 4096]);
    // Flushing again later keeps the file valid and adds the new events.
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaSuccess);
    trace::flush();
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let n = j["traceEvents"].as_array().unwrap().iter().filter(|e| e["name"] == "cudaGetDevice").count();
    assert_eq!(n, 2);
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
