//! Process lifecycle: fork after initialization, calls from atexit handlers
//! and thread destructors, dlopen/dlclose cycles, exit(). No crash, no hang,
//! and NVIDIA's codes where it defines them.

mod common;
use common::*;

/// Built once per test: tests run in parallel processes, so each needs its own copy.
fn program_for(test: &str) -> std::path::PathBuf {
    programs::lifecycle::PROGRAM.build(&scratch(&format!("lifecycle-{test}")), &[])
}

/// Run case `case` (with `extra` arguments) and check what it prints.
fn expect_case(case: &str, extra: &[&str]) {
    let args: Vec<&str> = [case].iter().chain(extra).copied().collect();
    let (want, status) = programs::lifecycle::expected(case);
    assert_eq!(status, 0);
    assert_eq!(run_on_fake(&program_for(case), &args, &[]), want);
}

#[test]
fn forked_child_gets_initialization_error_and_exits_cleanly() {
    expect_case("fork", &[]);
}

#[test]
fn calls_from_atexit_answer() {
    expect_case("atexit", &[]);
}

#[test]
fn calls_from_thread_destructors_answer() {
    expect_case("thread-dtor", &[]);
}

#[test]
fn dlopen_dlclose_cycles() {
    expect_case("dlclose", &[shim_lib().to_str().unwrap()]);
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
    let (want, status) = programs::lifecycle::expected("exit-in-callback");
    assert_eq!(o.status.code(), Some(status), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).expect("valid JSON");
    let names: Vec<&str> = v["traceEvents"].as_array().unwrap().iter().filter_map(|e| e["name"].as_str()).collect();
    assert!(names.contains(&"cudaLaunchHostFunc"), "{names:?}");
}
