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

/// Starting the timeline inside a library initializer, while the loader
/// initializes several libraries for one dlopen, runs no other library's
/// initializer: the runtime's own setup never waits for itself. PyTorch
/// hung this way on an H100 (libtorch_nvshmem's fatbin registration
/// started the timeline, whose lookup of the other runtimes `dlopen`ed
/// libtorch_cuda, running its registration inside the first). The
/// lookups now read the mapped objects (src/trace/loaded.rs). This
/// machine's glibc did not hang with the old code on this program (it
/// does not run a pending initializer there), so the test shows the
/// sequence completes and is traced, not the hang itself.
#[test]
fn timeline_started_inside_a_library_initializer_during_dlopen() {
    use std::process::Command;
    let dir = scratch("lifecycle/init_chain");
    let src = repo_root().join("tests/c/init_chain");
    let t = target_dir();
    let cc = |args: &[&str]| {
        let o = Command::new("cc").current_dir(&dir).args(args).output().unwrap();
        assert!(o.status.success(), "cc {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    let lib = format!("-L{}", t.display());
    cc(&["-shared", "-fPIC", src.join("b.c").to_str().unwrap(), "-o", "libb.so", &lib, "-l:libcudart.so.13"]);
    cc(&["-shared", "-fPIC", src.join("a.c").to_str().unwrap(), "-o", "liba.so", "-L.", "-lb", &lib, "-l:libcudart.so.13", "-Wl,-rpath,$ORIGIN"]);
    cc(&[src.join("main.c").to_str().unwrap(), "-o", "main", "-ldl"]);
    let json = dir.join("t.json");
    let _ = std::fs::remove_file(&json);
    // Every call is work (REGISTRATION=1): the initializers' device counts
    // alone are setup calls, which would create no file; the file must be
    // created inside libb.so's initializer, the case of this test.
    let env = fake_env(&[
        ("CUDART_SHIM_TRACE", "timeline"),
        ("CUDART_SHIM_TRACE_FILE", json.to_str().unwrap()),
        ("CUDART_SHIM_TRACE_REGISTRATION", "1"),
        ("CUDART_SHIM_LOG", "off"),
    ]);
    let mut child = Command::new(dir.join("main")).current_dir(&dir).envs(env).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let status = wait_or_fail(&mut child, 60, "the program (a runtime waiting for itself)");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert!(status.success(), "{status}: {out}");
    assert_eq!(out, "a_value 3\n");
    let trace = std::fs::read_to_string(&json).unwrap();
    assert_eq!(trace.matches("\"name\":\"cudaGetDeviceCount\"").count(), 2, "both initializers' calls are traced:\n{trace}");
}
