//! The `cudart-shim` command over the fake driver: trace, report, doctor.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};

fn cli() -> Command {
    let exe = target_dir().join("cudart-shim");
    assert!(exe.exists(), "{} is missing: run `cargo build --workspace`", exe.display());
    let mut c = Command::new(exe);
    c.env("CUDART_SHIM_DRIVER", fake_driver()).env_remove("CUDART_SHIM_TRACE").env_remove("LD_PRELOAD");
    c
}

fn app(test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    let exe = compile_c_shim(&repo_root().join("tests/c/trace_app.c"), &dir.join("trace_app"), &["-lpthread"]);
    (dir, exe)
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// `Num Calls` of `name` in a text summary.
fn calls_of(table: &str, name: &str) -> Option<u64> {
    let l = table.lines().find(|l| l.ends_with(&format!("  {name}")))?;
    l.split_whitespace().nth(2)?.replace(',', "").parse().ok()
}

#[test]
fn trace_prints_the_summary_after_the_program() {
    let (_dir, exe) = app("cli_trace");
    let o = cli().args(["trace", "--"]).arg(&exe).arg("basic").output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "devices 1 warp 32\n");
    assert_eq!(calls_of(&err, "cudaSetDevice"), Some(3), "{err}");
    assert_eq!(calls_of(&err, "cudaDeviceSynchronize"), Some(3), "{err}");
    assert_eq!(calls_of(&err, "cudaGetDeviceCount"), Some(2), "{err}");
    assert!(err.contains("cudaErrorInvalidDevice"), "{err}");
}

#[test]
fn trace_sample_counts_every_call_and_says_it_sampled() {
    let (_dir, exe) = app("cli_sample");
    let o = cli().args(["trace", "--sample", "3", "--"]).arg(&exe).args(["threads", "4", "100"]).output().unwrap();
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(calls_of(&err, "cudaGetDevice"), Some(400), "{err}");
    assert!(err.contains("Sampled (CUDART_SHIM_TRACE_SAMPLE=3)"), "{err}");
}

#[test]
fn trace_calls_timeline_filter_then_report() {
    let (dir, exe) = app("cli_timeline");
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        if e.file_name().to_str().unwrap().starts_with("tl-") {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    let tl = dir.join("tl-%p.json");
    let o = cli()
        .args(["trace", "--calls", "--filter", "cudaSetDevice,cudaDeviceSynchronize", "--timeline"])
        .arg(&tl)
        .arg("--")
        .arg(&exe)
        .arg("basic")
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let call_lines: Vec<&str> = err.lines().filter(|l| l.starts_with("[cudart-shim] tid=")).collect();
    assert_eq!(call_lines.len(), 6, "{err}");
    assert!(call_lines.iter().all(|l| l.contains(" cudaSetDevice(") || l.contains(" cudaDeviceSynchronize(")), "{err}");
    assert_eq!(calls_of(&err, "cudaSetDevice"), Some(3), "{err}");
    assert_eq!(calls_of(&err, "cudaGetDeviceCount"), None, "filtered out: {err}");
    // %p expanded by the library: exactly one file.
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("tl-"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let r = cli().arg("report").arg(&files[0]).output().unwrap();
    let (rep, rerr) = text(&r);
    assert!(r.status.success(), "{rerr}");
    assert!(rep.contains(" Time (%)  Total Time (ns)  Num Calls"), "{rep}");
    assert_eq!(calls_of(&rep, "cudaSetDevice"), Some(3), "{rep}");
    assert_eq!(calls_of(&rep, "cudaDeviceSynchronize"), Some(3), "{rep}");
    assert!(rep.contains("cudaErrorInvalidDevice"), "{rep}");
    let j = cli().args(["report", "--format", "json"]).arg(&files[0]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    let n: u64 = v["cuda_api_sum"].as_array().unwrap().iter().map(|r| r["Num Calls"].as_u64().unwrap()).sum();
    assert_eq!(n, 6);
}

#[test]
fn trace_keeps_the_exit_status_and_reports_bad_input() {
    let o = cli().args(["trace", "--", "sh", "-c", "exit 3"]).output().unwrap();
    assert_eq!(o.status.code(), Some(3));
    let o = cli().args(["trace", "--", "/no/such/program"]).output().unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert!(text(&o).1.contains("cannot run /no/such/program"));
    let bad = scratch("cli_bad").join("bad.json");
    std::fs::write(&bad, "{\"traceEvents\":[").unwrap();
    let o = cli().arg("report").arg(&bad).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("not a complete JSON trace"));
}

#[test]
fn doctor_finds_the_fake_driver_and_the_library() {
    let o = cli().arg("doctor").output().unwrap();
    let (out, _) = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains(&format!("driver:   {}", fake_driver().display())), "{out}");
    assert!(out.contains("CUDA driver API version 13.0 (13000)"), "{out}");
    assert!(out.contains("0: Fake CUDA Device 0, compute capability 9.0"), "{out}");
    assert!(out.contains(&format!("library:  {}", shim_lib().display())), "{out}");
    assert!(out.contains("runtime 13.5 (13050)"), "{out}");
    assert!(out.ends_with("ok\n"), "{out}");
}

#[test]
fn doctor_explains_a_missing_driver() {
    let o = cli().arg("doctor").env("CUDART_SHIM_DRIVER", "/nonexistent/libcuda.so.1").output().unwrap();
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("driver:   NOT FOUND: /nonexistent/libcuda.so.1"), "{out}");
    assert!(out.contains("Install the NVIDIA driver"), "{out}");
    assert!(out.contains("cudaGetDeviceCount = 35"), "{out}");
}

#[test]
fn trace_preloads_into_a_program_linked_to_nvidias_runtime() {
    // The C program built against NVIDIA's headers and linked to
    // libcudart.so.13, with NVIDIA's library first on the library path:
    // the preloaded shim answers every call (as with PyTorch wheels).
    let dir = scratch("cli_nvidia_linked");
    let src = std::fs::read_to_string(repo_root().join("tests/c/trace_app.c"))
        .unwrap()
        .replace("#include <cudart_shim.h>", "#include <cuda_runtime_api.h>");
    let c = dir.join("nv_app.c");
    std::fs::write(&c, src).unwrap();
    let exe = compile_c_cudart(&c, &dir.join("nv_app"), &["-lpthread"]);
    let o = cli()
        .env("LD_LIBRARY_PATH", nvidia_lib_dir())
        .args(["trace", "--calls", "--"])
        .arg(&exe)
        .arg("basic")
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "devices 1 warp 32\n");
    assert_eq!(err.lines().filter(|l| l.starts_with("[cudart-shim] tid=")).count(), 12, "{err}");
    assert_eq!(calls_of(&err, "cudaSetDevice"), Some(3), "{err}");
}
