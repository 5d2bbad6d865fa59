//! 32 threads doing a mixed workload at once over the fake driver for a
//! bounded time (device switches, allocations, copies, launches, streams,
//! events, errors) with the call summary on: no deadlock, bytes right,
//! last errors never leak between threads, and the summary counts exactly
//! the calls each thread made.

mod common;
use common::*;
use cudart_shim::api::{device::*, error::*, event::*, launch::*, library::*, memory::*, stream::*};
use cudart_shim::types::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

const THREADS: usize = 32;

#[test]
fn thirty_two_threads_mixed_workload_exact_counts() {
    let dir = scratch("concurrency");
    let summary = dir.join("summary.json");
    let _ = std::fs::remove_file(&summary);
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
    // SAFETY: before the first CUDA call of this process (one per test).
    unsafe {
        std::env::set_var("CUDART_SHIM_TRACE", "summary");
        std::env::set_var("CUDART_SHIM_TRACE_FILE", &summary);
    }
    let ptx = c".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n ret;\n}\n";
    let kernel = unsafe {
        let mut lib = null_mut();
        assert_eq!(cudaLibraryLoadData(&mut lib, ptx.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0), cudaSuccess);
        let mut k = null_mut();
        assert_eq!(cudaLibraryGetKernel(&mut k, lib, c"k".as_ptr()), cudaSuccess);
        k as usize
    };
    let deadline = Instant::now() + Duration::from_millis(1500);
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            std::thread::spawn(move || -> HashMap<&'static str, u64> {
                let mut n: HashMap<&'static str, u64> = HashMap::new();
                let mut count = |f: &'static str| *n.entry(f).or_default() += 1;
                let mut round = 0u32;
                while Instant::now() < deadline {
                    round += 1;
                    let dev = ((t as u32 + round) % 2) as i32;
                    unsafe {
                        assert_eq!(cudaSetDevice(dev), cudaSuccess);
                        count("cudaSetDevice");
                        let mut d = -1;
                        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
                        count("cudaGetDevice");
                        assert_eq!(d, dev);
                        // Bytes through device memory and back.
                        let src: Vec<u8> = (0..4096).map(|i| (i as u32 ^ t as u32 ^ round) as u8).collect();
                        let mut back = vec![0u8; 4096];
                        let mut p: *mut c_void = null_mut();
                        assert_eq!(cudaMalloc(&mut p, 4096), cudaSuccess);
                        count("cudaMalloc");
                        let mut s: cudaStream_t = null_mut();
                        assert_eq!(cudaStreamCreateWithFlags(&mut s, cudaStreamNonBlocking), cudaSuccess);
                        count("cudaStreamCreateWithFlags");
                        assert_eq!(cudaMemcpyAsync(p, src.as_ptr().cast(), 4096, cudaMemcpyHostToDevice, s), cudaSuccess);
                        count("cudaMemcpyAsync");
                        let mut arg = p as u64;
                        let mut args = [(&mut arg as *mut u64).cast::<c_void>()];
                        let one = dim3 { x: 1, y: 1, z: 1 };
                        assert_eq!(cudaLaunchKernel(kernel as *const c_void, one, one, args.as_mut_ptr(), 0, s), cudaSuccess);
                        count("cudaLaunchKernel");
                        let mut e: cudaEvent_t = null_mut();
                        assert_eq!(cudaEventCreateWithFlags(&mut e, cudaEventDisableTiming), cudaSuccess);
                        count("cudaEventCreateWithFlags");
                        assert_eq!(cudaEventRecord(e, s), cudaSuccess);
                        count("cudaEventRecord");
                        assert_eq!(cudaEventSynchronize(e), cudaSuccess);
                        count("cudaEventSynchronize");
                        assert_eq!(cudaMemcpy(back.as_mut_ptr().cast(), p, 4096, cudaMemcpyDeviceToHost), cudaSuccess);
                        count("cudaMemcpy");
                        assert_eq!(back, src, "thread {t} round {round}");
                        assert_eq!(cudaEventDestroy(e), cudaSuccess);
                        count("cudaEventDestroy");
                        assert_eq!(cudaStreamDestroy(s), cudaSuccess);
                        count("cudaStreamDestroy");
                        assert_eq!(cudaFree(p), cudaSuccess);
                        count("cudaFree");
                        // An error of this thread's own, every few rounds.
                        if round.is_multiple_of(3) {
                            assert_eq!(cudaSetDevice(99), cudaErrorInvalidDevice);
                            count("cudaSetDevice");
                        }
                        let want = if round.is_multiple_of(3) { cudaErrorInvalidDevice } else { cudaSuccess };
                        assert_eq!(cudaGetLastError(), want, "thread {t} round {round}: another thread's error leaked");
                        count("cudaGetLastError");
                    }
                }
                assert!(round > 1, "thread {t} made no progress");
                n
            })
        })
        .collect();
    let mut total: HashMap<&'static str, u64> = HashMap::new();
    for w in workers {
        for (f, c) in w.join().expect("a worker panicked") {
            *total.entry(f).or_default() += c;
        }
    }
    unsafe { assert_eq!(cudart_shim::api::shim::cudartShimFlush(), cudaSuccess) };
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    let rows: HashMap<String, u64> = j["cuda_api_sum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["Name"].as_str().unwrap().to_owned(), r["Num Calls"].as_u64().unwrap()))
        .collect();
    for (f, c) in &total {
        assert_eq!(rows.get(*f).copied(), Some(*c), "{f}: the summary lost or invented calls");
    }
    eprintln!("{} calls by {THREADS} threads: {total:?}", total.values().sum::<u64>());
}
