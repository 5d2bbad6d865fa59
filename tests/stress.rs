//! The stress harness's lifecycles as regression tests (scripts/stress,
//! tests/c/stress.c; docs/RELIABILITY.md, "Nothing lost"). Each runs the
//! harness, which checks every output (summary, call log, timeline in both
//! formats read back by `report`, the ledger) against what the program did.

mod common;
use common::*;

/// Run scripts/stress with `args` over this build; its report on failure.
fn stress(args: &[&str]) {
    let out = std::process::Command::new(repo_root().join("scripts/stress"))
        .args(["--target", target_dir().to_str().unwrap(), "--keep", scratch("stress-failures").to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "scripts/stress {args:?}:\n{text}");
    assert!(text.contains(" 0 with a difference"), "{text}");
}

/// Threads whose first calls race the trace's one-time setup, with the
/// setup held 100 ms in the window where it had set its flags but not yet
/// the pipeline's switch bit (`CUDART_SHIM_TEST_PAUSE_SETUP_MS`, debug
/// builds): every call is in every output. Before the fix (the pipeline's
/// setup waits for the trace's, `intercept::configure`) the threads' calls
/// made during the pause skipped observation: every run lost calls from
/// all outputs at once (the summary's 3,199 of 3,200 and the JSON
/// timeline's 3,975 of 4,000, with a window of nanoseconds).
#[test]
fn first_calls_racing_the_setup_are_all_traced() {
    stress(&["--lifecycles", "4", "--modes", "join,exit-ending", "--threads", "8", "--rounds", "20", "--pause-setup-ms", "100", "--busy", "0"]);
}

/// `exit()` from one thread while the others call without pause: each
/// output (summary, call log, timeline) holds the same calls, and every
/// call that had returned before `exit()` (the exit rule,
/// docs/RELIABILITY.md). Before the final flush cut recording
/// (`trace::cut_recording`), calls returning during the flush were in the
/// call log but not in the summary or the timeline.
#[test]
fn calls_in_flight_at_exit_are_in_every_output_or_none() {
    stress(&["--lifecycles", "12", "--modes", "exit-busy", "--threads", "6", "--rounds", "10", "--busy", "1"]);
}

/// One of each lifecycle (fork with and without exec, reset, flushes and
/// recorder dumps racing calls, Python threads through hooks...).
#[test]
fn every_lifecycle_loses_nothing() {
    stress(&["--lifecycles", "18", "--threads", "4", "--rounds", "10", "--busy", "1"]);
}

/// The GPU churn check's comparison (gpu/checks/churn/churn.py: each
/// process's summary against its own timeline, JSON and protobuf in turn)
/// over the fake driver: `processes` runs of the stress program, `env`
/// added; its exit status and output.
fn churn(name: &str, processes: u32, env: &[&str]) -> (bool, String) {
    // A folder per test: nextest runs the two at once, and one folder
    // shared made each read the other's half-written timelines.
    let dir = scratch(name);
    let _ = std::fs::remove_dir_all(dir.join("out"));
    let exe = compile_c_shim(&repo_root().join("tests/c/stress.c"), &dir.join("stress"), &["-lpthread"]);
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(repo_root().join("gpu/checks/churn/churn.py"))
        .args(["--lib", target_dir().to_str().unwrap(), "--out", dir.join("out").to_str().unwrap()])
        .args(["--runs", &processes.to_string(), "--parallel", "2"])
        .arg(format!("--env=CUDART_SHIM_DRIVER={}", fake_driver().display()));
    for e in env {
        cmd.arg(format!("--env={e}"));
    }
    let out = cmd.arg("--").arg(&exe).args(["join", "4", "10"]).output().unwrap();
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn churn_comparison_passes_when_every_summary_equals_its_timeline() {
    let (ok, text) = churn("churn-pass", 8, &[]);
    assert!(ok, "{text}");
    assert!(text.contains("PASS summary-equals-timeline: processes 8, differing 0"), "{text}");
}

/// A timeline stopped by its size limit holds fewer calls than the exact
/// summary: the comparison must say so, per process and function.
#[test]
fn churn_comparison_fails_when_a_timeline_lacks_calls() {
    let (ok, text) = churn("churn-fail", 2, &["CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE=4K"]);
    assert!(!ok, "{text}");
    assert!(text.contains("FAIL summary-equals-timeline: processes 2, differing 2"), "{text}");
    assert!(text.contains("cudaGetDevice: summary 40, timeline "), "{text}");
}

/// The harness's metrics check (scripts/stress `check_metrics`: the
/// textfile's calls and failures per function against the summary's)
/// passes when they are equal and names the difference when they are not,
/// or when the textfile is missing.
#[test]
fn the_metrics_check_finds_a_difference_and_a_missing_textfile() {
    let dir = scratch("stress-metrics-check");
    let prom = "# TYPE cudart_shim_calls_total counter\n\
                cudart_shim_calls_total{function=\"cudaMalloc\",layer=\"runtime\",pid=\"7\"} 40\n\
                cudart_shim_call_errors_total{function=\"cudaSetDevice\",layer=\"runtime\",error=\"cudaErrorInvalidDevice\",pid=\"7\"} 2\n";
    std::fs::write(dir.join("metrics.prom"), prom).unwrap();
    let code = r#"import collections, importlib.util, sys
from importlib.machinery import SourceFileLoader
loader = SourceFileLoader("stress", sys.argv[1])
s = importlib.util.module_from_spec(importlib.util.spec_from_loader("stress", loader))
loader.exec_module(s)
C = collections.Counter
errs = C({("cudaSetDevice", "cudaErrorInvalidDevice"): 2})
print(s.check_metrics(sys.argv[2], C({"cudaMalloc": 40}), errs))
print(s.check_metrics(sys.argv[2], C({"cudaMalloc": 41}), errs))
print(s.check_metrics(sys.argv[2], C({"cudaMalloc": 40}), C()))
print(s.check_metrics(sys.argv[2] + "/none", C(), C()))"#;
    let o = std::process::Command::new("python3").args(["-c", code]).arg(repo_root().join("scripts/stress")).arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "[]");
    assert_eq!(lines[1], "[\"metrics calls {'cudaMalloc': 40} != summary {'cudaMalloc': 41}\"]");
    assert!(lines[2].starts_with("[\"metrics errors {('cudaSetDevice', 'cudaErrorInvalidDevice'): 2} != summary {}"), "{}", lines[2]);
    assert_eq!(lines[3], "['no metrics textfile']");
}
