//! ThreadSanitizer canary, run by scripts/tsan (ignored in CI, which has no
//! ThreadSanitizer build): races a program makes through the runtime must
//! be reported, proving that our crate and the fake driver are instrumented
//! and that a report fails the run. The rest of scripts/tsan's suites pass
//! only because they report nothing.

mod common;
use common::*;
use cudart_shim::api::{device::*, memory::*, stream::*};
use cudart_shim::types::*;
use std::ffi::c_void;
use std::process::Command;
use std::ptr::null_mut;

/// ThreadSanitizer's exit status after a report.
const TSAN_EXIT: i32 = 66;

fn under_tsan() -> bool {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__tsan_init".as_ptr()) }.is_null()
}

#[test]
#[ignore = "run by scripts/tsan: needs the ThreadSanitizer build"]
fn races_through_the_runtime_are_reported() {
    assert!(under_tsan(), "not a ThreadSanitizer build: run scripts/tsan");
    // In this (Rust) process: run the racing test in a child.
    let o = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "racing_calls", "--ignored", "--nocapture"])
        .env("CUDART_SHIM_TSAN_CANARY", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(TSAN_EXIT), "{err}");
    let reports: Vec<&str> = err.split("WARNING: ThreadSanitizer: data race").skip(1).collect();
    assert!(reports.iter().any(|r| r.contains("cudart_shim::api::device::cudaGetDevice")), "no race reported in our crate:\n{err}");
    assert!(reports.iter().any(|r| r.contains("fake_cuda::")), "no race reported in the fake driver:\n{err}");
    // In a C program built with gcc -fsanitize=thread (as scripts/tsan
    // builds them through CUDART_SHIM_TEST_CFLAGS) over the library.
    let exe = programs::SANITIZER_CANARY.build(&scratch("tsan-canary"), &[]);
    let o = run(&exe, &["race"], &fake_env(&[]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(TSAN_EXIT), "{err}");
    assert!(err.contains("WARNING: ThreadSanitizer: data race") && err.contains("cudaGetDevice"), "{err}");
}

/// The child of the test above: two threads write the same out-parameter
/// through `cudaGetDevice` (a race in our crate) and set the same device
/// bytes from two streams (a race between the fake driver's stream workers).
#[test]
#[ignore = "run by races_through_the_runtime_are_reported"]
fn racing_calls() {
    assert_eq!(std::env::var("CUDART_SHIM_TSAN_CANARY").as_deref(), Ok("1"), "run by races_through_the_runtime_are_reported");
    use_fake_driver(&[]);
    let shared = Box::leak(Box::new(0i32)) as *mut i32 as usize;
    let mut p: *mut c_void = null_mut();
    assert_eq!(unsafe { cudaMalloc(&mut p, 4096) }, cudaSuccess);
    let p = p as usize;
    let threads: Vec<_> = (0..2)
        .map(|t| {
            std::thread::spawn(move || unsafe {
                let mut s = null_mut();
                assert_eq!(cudaStreamCreate(&mut s), cudaSuccess);
                for _ in 0..200 {
                    cudaGetDevice(shared as *mut i32);
                    cudaMemsetAsync(p as *mut c_void, t, 4096, s);
                }
                assert_eq!(cudaStreamSynchronize(s), cudaSuccess);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}
