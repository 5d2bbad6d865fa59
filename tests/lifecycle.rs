//! Process lifecycle: fork after initialization, calls from atexit handlers
//! and thread destructors, dlopen/dlclose cycles, exit(). No crash, no hang,
//! and NVIDIA's codes where it defines them.

mod common;
use common::*;

/// Built once per test: tests run in parallel processes, so each needs its own copy.
fn program_for(test: &str) -> std::path::PathBuf {
    let dir = scratch(&format!("lifecycle-{test}"));
    compile_c_shim(&repo_root().join("tests/c/lifecycle.c"), &dir.join("lifecycle"), &["-ldl", "-lpthread"])
}

#[test]
fn forked_child_gets_initialization_error_and_exits_cleanly() {
    let out = run_on_fake(&program_for("fork"), &["fork"], &[]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "cudaGetDeviceCount(&n) cudaSuccess",
            "cudaSetDevice(0) cudaSuccess",
            "cudaGetDeviceCount(&n) cudaErrorInitializationError",
            "cudaSetDevice(0) cudaErrorInitializationError",
            "cudaGetLastError() cudaErrorInitializationError",
            "child initialization error",
            "child exit 0",
            "cudaDeviceSynchronize() cudaSuccess",
        ]
    );
}

#[test]
fn calls_from_atexit_answer() {
    let out = run_on_fake(&program_for("atexit"), &["atexit"], &[]);
    assert_eq!(out, "cudaSetDevice(0) cudaSuccess\natexit cudaGetDeviceCount ok\n");
}

#[test]
fn calls_from_thread_destructors_answer() {
    let out = run_on_fake(&program_for("thread-dtor"), &["thread-dtor"], &[]);
    assert_eq!(out, "cudaSetDevice(0) cudaSuccess\nthread destructor cudaGetDevice ok\n");
}

#[test]
fn dlopen_dlclose_cycles() {
    let lib = shim_lib();
    let out = run_on_fake(&program_for("dlclose"), &["dlclose", lib.to_str().unwrap()], &[]);
    assert_eq!(out, "round 0 count 0 set 0\nround 1 count 0 set 0\nround 2 count 0 set 0\n");
}

#[test]
fn exit_with_status() {
    let o = run(&program_for("exit"), &["exit-mid-call-thread"], &fake_env(&[]));
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn exit_from_a_stream_callback_ends_the_process_and_keeps_the_trace_valid() {
    let exe = program_for("exit-in-callback");
    let dir = scratch("lifecycle-exit-in-callback");
    let trace = dir.join("tl.json");
    let _ = std::fs::remove_file(&trace);
    let mut env = fake_env(&[]);
    env.push(("CUDART_SHIM_TRACE".into(), "timeline".into()));
    env.push(("CUDART_SHIM_TRACE_FILE".into(), trace.display().to_string()));
    let o = run(&exe, &["exit-in-callback"], &env);
    assert_eq!(o.status.code(), Some(7), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "cudaStreamCreate(&s) cudaSuccess\ncudaLaunchHostFunc(s, exit_from_callback, NULL) cudaSuccess\ncallback exits\n"
    );
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).expect("valid JSON");
    let names: Vec<&str> = v["traceEvents"].as_array().unwrap().iter().filter_map(|e| e["name"].as_str()).collect();
    assert!(names.contains(&"cudaLaunchHostFunc"), "{names:?}");
}
