//! GPU activity (`CUDART_SHIM_TRACE=gpu`) over the fake driver and the fake
//! CUPTI (tests/fake-cupti): the GPU tables, the timeline's GPU tracks and
//! launch arrows, buffers under load, the flush at exit, and a run with no
//! CUPTI or a CUPTI held by another profiler.
//!
//! The fake CUPTI's durations are fixed (see its module note): a kernel
//! takes 1000 ns per block, a copy 1000 ns + 1 ns per byte, a memset 500 ns
//! + 1 ns per 2 bytes; so every total below is exact.

mod common;
use common::*;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Output;

fn fake_cupti() -> PathBuf {
    let p = target_dir().join("libfake_cupti.so");
    assert!(p.exists(), "{} is missing: run `cargo build --workspace` first", p.display());
    p
}

fn program(test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    let exe = compile_cu(&[&repo_root().join("tests/cu/gpu_activity.cu")], &dir.join("gpu_activity"), &[]);
    (dir, exe)
}

fn run_gpu(exe: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let cupti = fake_cupti().display().to_string();
    let mut env = fake_env(&[]);
    env.push(("CUDART_SHIM_CUPTI".into(), cupti));
    env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let out = run(exe, args, &env);
    assert!(out.status.success(), "{} failed: {}\n{}", exe.display(), out.status, String::from_utf8_lossy(&out.stderr));
    out
}

fn json_file(p: &Path) -> Value {
    let s = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{} is not valid JSON ({e}):\n{s}", p.display()))
}

/// A table's rows by name: (count, total).
fn rows(j: &Value, table: &str, count: &str, name: &str, total: &str) -> HashMap<String, (u64, f64)> {
    j[table]
        .as_array()
        .unwrap_or_else(|| panic!("no {table} in {j}"))
        .iter()
        .map(|r| (r[name].as_str().unwrap().to_owned(), (r[count].as_u64().unwrap(), r[total].as_f64().unwrap())))
        .collect()
}

const HTOD: &str = "[CUDA memcpy Host-to-Device]";
const DTOH: &str = "[CUDA memcpy Device-to-Host]";
const MEMSET: &str = "[CUDA memset]";

/// The tables `gpu_activity basic` must give (tests/cu/gpu_activity.cu).
fn check_basic_tables(j: &Value) {
    let k = rows(j, "cuda_gpu_kern_sum", "Instances", "Name", "Total Time (ns)");
    assert_eq!(k.len(), 2, "{j}");
    // Demangled names; 3 launches of 2 blocks, 2 of 1 block.
    assert_eq!(k["void fill<float>(float*, float)"], (3, 6000.0), "{j}");
    assert_eq!(k["empty()"], (2, 2000.0), "{j}");
    let t = rows(j, "cuda_gpu_mem_time_sum", "Count", "Operation", "Total Time (ns)");
    assert_eq!(t[HTOD], (1, 5096.0), "{j}");
    assert_eq!(t[DTOH], (2, 4048.0), "{j}");
    assert_eq!(t[MEMSET], (1, 1500.0), "{j}");
    let s = rows(j, "cuda_gpu_mem_size_sum", "Count", "Operation", "Total (MB)");
    assert_eq!(s[HTOD], (1, 0.004), "{j}");
    assert_eq!(s[DTOH], (2, 0.002), "{j}");
    assert_eq!(s[MEMSET], (1, 0.002), "{j}");
    let first = &j["cuda_gpu_kern_sum"][0];
    assert_eq!(first["Time (%)"], 75.0, "sorted by total time, percentages of the kernels' total: {j}");
    assert_eq!((first["Avg (ns)"].as_f64(), first["Med (ns)"].as_f64(), first["StdDev (ns)"].as_f64()), (Some(2000.0), Some(2000.0), Some(0.0)));
}

#[test]
fn summary_json_has_the_api_and_gpu_tables() {
    let (dir, exe) = program("gpu_summary_json");
    let f = dir.join("summary.json");
    run_gpu(&exe, &[], &[("CUDART_SHIM_TRACE", "summary,gpu"), ("CUDART_SHIM_TRACE_SUMMARY_FILE", f.to_str().unwrap())]);
    let j = json_file(&f);
    check_basic_tables(&j);
    let api = j["cuda_api_sum"].as_array().unwrap();
    assert!(api.iter().any(|r| r["Name"] == "cudaMemcpy" && r["Num Calls"] == 3), "{j}");
}

#[test]
fn text_and_csv_tables() {
    let (dir, exe) = program("gpu_text_csv");
    // gpu alone: the GPU tables on stderr, no API table.
    let out = run_gpu(&exe, &[], &[("CUDART_SHIM_TRACE", "gpu")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cuda_api_sum"), "{err}");
    for needle in [
        " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum), cudart-shim:",
        " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)  Name",
        "     75.0            6,000          3   2,000.0   2,000.0     2,000     2,000          0.0  void fill<float>(float*, float)",
        " ** CUDA GPU MemOps Summary (by Time) (cuda_gpu_mem_time_sum), cudart-shim:",
        " Total (MB)  Count  Avg (MB)  Med (MB)  Min (MB)  Max (MB)  StdDev (MB)  Operation",
        "      0.004      1     0.004     0.004     0.004     0.004        0.000  [CUDA memcpy Host-to-Device]",
    ] {
        assert!(err.contains(needle), "missing {needle:?} in:\n{err}");
    }
    let f = dir.join("summary.csv");
    run_gpu(&exe, &[], &[("CUDART_SHIM_TRACE", "summary,gpu"), ("CUDART_SHIM_TRACE_SUMMARY_FILE", f.to_str().unwrap())]);
    let csv = std::fs::read_to_string(&f).unwrap();
    let blocks: Vec<&str> = csv.split("\n\n").collect();
    assert_eq!(blocks.len(), 4, "API, kernels, copies by time, by size:\n{csv}");
    assert!(blocks[0].starts_with("\"Time (%)\",\"Total Time (ns)\",\"Num Calls\""), "{csv}");
    assert!(blocks[1].contains("75.0,6000,3,2000.0,2000.0,2000,2000,0.0,\"void fill<float>(float*, float)\""), "{csv}");
    assert!(blocks[2].contains(",5096,1,5096.0,5096.0,5096,5096,0.0,\"[CUDA memcpy Host-to-Device]\""), "{csv}");
    assert!(blocks[3].contains("0.002,1,0.002,0.002,0.002,0.002,0.000,\"[CUDA memset]\""), "{csv}");
}

/// Events of a timeline by phase.
struct Trace {
    events: Vec<Value>,
}

impl Trace {
    /// A timeline in either format (protobuf read back as the JSON's events).
    fn load(p: &Path) -> Trace {
        let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if trace_format::perfetto::looks_like_protobuf(&bytes) {
            return Trace { events: trace_format::perfetto::to_chrome(&trace_format::perfetto::packets(&bytes).unwrap()) };
        }
        Trace { events: json_file(p)["traceEvents"].as_array().unwrap().clone() }
    }
    fn gpu_slices(&self) -> Vec<&Value> {
        self.events.iter().filter(|e| e["ph"] == "X" && e["cat"].as_str().is_some_and(|c| c.starts_with("gpu_"))).collect()
    }
    fn flows(&self, ph: &str) -> HashMap<u64, &Value> {
        let mut m = HashMap::new();
        for e in self.events.iter().filter(|e| e["ph"] == ph && e["cat"] == "gpu_launch") {
            assert!(m.insert(e["id"].as_u64().unwrap(), e).is_none(), "flow id used twice: {e}");
        }
        m
    }
}

#[test]
fn timeline_has_gpu_tracks_and_launch_arrows() {
    let (dir, exe) = program("gpu_timeline");
    let f = dir.join("trace.json");
    run_gpu(&exe, &[], &[("CUDART_SHIM_TRACE", "gpu,timeline"), ("CUDART_SHIM_TRACE_TIMELINE_FILE", f.to_str().unwrap())]);
    check_gpu_timeline(&Trace::load(&f));
}

/// The same in Perfetto's protobuf (GPU slices on their stream's own
/// sequence, the launch id carried once as the flow's): read back, the
/// same slices with the same arguments, arrows and tracks; Perfetto's own
/// classes count the same slices and arrows.
#[test]
fn protobuf_timeline_has_the_same_gpu_slices_and_launch_arrows() {
    let (dir, exe) = program("gpu_timeline_pb");
    let (json, pb) = (dir.join("trace.json"), dir.join("trace.pftrace"));
    let mut slices = Vec::new();
    for f in [&json, &pb] {
        run_gpu(&exe, &[], &[("CUDART_SHIM_TRACE", "gpu,timeline"), ("CUDART_SHIM_TRACE_TIMELINE_FILE", f.to_str().unwrap())]);
        let t = Trace::load(f);
        check_gpu_timeline(&t);
        // Two runs: the same slices but for their start times and ids.
        let mut s: Vec<String> = t
            .gpu_slices()
            .iter()
            .map(|s| {
                let mut a = s["args"].clone();
                a.as_object_mut().unwrap().retain(|k, _| k != "launch" && k != "correlation");
                format!("{} {} {} {}", s["name"], s["cat"], s["dur"], a)
            })
            .collect();
        s.sort();
        slices.push(s);
    }
    assert_eq!(slices[0], slices[1], "JSON vs protobuf");
    let c = perfetto_check(&pb);
    assert_eq!((c["gpu"].as_u64(), c["flows_out"].as_u64(), c["flows_in"].as_u64()), (Some(9), Some(9), Some(9)), "{c}");
}

fn check_gpu_timeline(t: &Trace) {
    // One track per device and stream, named, sorted after the host threads.
    let names: HashMap<u64, String> = t
        .events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| (e["tid"].as_u64().unwrap(), e["args"]["name"].as_str().unwrap().to_owned()))
        .collect();
    let slices = t.gpu_slices();
    assert_eq!(slices.len(), 9, "5 kernels, 3 copies, 1 memset");
    let tracks: HashSet<u64> = slices.iter().map(|s| s["tid"].as_u64().unwrap()).collect();
    assert_eq!(tracks.len(), 2, "the legacy stream and the created one");
    for tid in &tracks {
        assert!(names[tid].starts_with("GPU 0 stream "), "{}", names[tid]);
    }
    let fill: Vec<&&Value> = slices.iter().filter(|s| s["name"] == "void fill<float>(float*, float)").collect();
    assert_eq!(fill.len(), 3);
    let a = &fill[0]["args"];
    assert_eq!((a["grid"].as_str(), a["block"].as_str(), a["registers per thread"].as_u64()), (Some("[2, 1, 1]"), Some("[64, 1, 1]"), Some(32)));
    assert_eq!(fill[0]["dur"].as_f64(), Some(2.0));
    let htod = slices.iter().find(|s| s["args"]["operation"] == HTOD).unwrap();
    assert_eq!(htod["args"]["bytes"], 4096);
    assert_eq!(htod["args"]["bandwidth (GB/s)"].as_f64(), Some(0.804), "4096 bytes in 5096 ns");
    // Every slice has an arrow from the call that launched it: the start
    // lies in that call's slice on the host thread, the end on the GPU
    // slice's track at its start, and the GPU work starts after the call did.
    let (starts, ends) = (t.flows("s"), t.flows("f"));
    assert_eq!((starts.len(), ends.len()), (9, 9));
    let calls: Vec<&Value> = t.events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "cuda_api").collect();
    let mut launched_by: HashMap<String, usize> = HashMap::new();
    for s in &slices {
        let id = s["args"]["launch"].as_u64().unwrap_or_else(|| panic!("no launch id: {s}"));
        let (st, en) = (starts[&id], ends[&id]);
        assert_eq!((en["tid"].as_u64(), en["ts"].as_f64(), en["bp"].as_str()), (s["tid"].as_u64(), s["ts"].as_f64(), Some("e")));
        let ts = st["ts"].as_f64().unwrap();
        let call = calls
            .iter()
            .find(|c| c["tid"] == st["tid"] && c["ts"].as_f64().unwrap() <= ts && ts <= c["ts"].as_f64().unwrap() + c["dur"].as_f64().unwrap())
            .unwrap_or_else(|| panic!("no call holds the arrow's start {st}"));
        assert!(s["ts"].as_f64().unwrap() >= call["ts"].as_f64().unwrap(), "{s} before {call}");
        *launched_by.entry(call["name"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    let expect: HashMap<String, usize> =
        [("__cudaLaunchKernel", 5), ("cudaMemcpy", 3), ("cudaMemsetAsync", 1)].iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(launched_by, expect);
}

#[test]
fn report_prints_the_gpu_tables_of_a_saved_timeline() {
    let (dir, exe) = program("gpu_report");
    let f = dir.join("trace.json");
    let s = dir.join("summary.json");
    run_gpu(
        &exe,
        &[],
        &[("CUDART_SHIM_TRACE", "summary,gpu,timeline"), ("CUDART_SHIM_TRACE_TIMELINE_FILE", f.to_str().unwrap()), ("CUDART_SHIM_TRACE_SUMMARY_FILE", s.to_str().unwrap())],
    );
    let cli = target_dir().join("cudart-shim");
    let out = run(&cli, &["report", f.to_str().unwrap(), "--format", "json"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_basic_tables(&j);
    // The same tables as the library's own.
    let lib = json_file(&s);
    for k in ["cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum"] {
        assert_eq!(j[k], lib[k], "{k}");
    }
    let text = run(&cli, &["report", f.to_str().unwrap()], &[]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("cuda_gpu_kern_sum"));
}

#[test]
fn buffers_under_load_lose_and_repeat_nothing() {
    let (dir, exe) = program("gpu_load");
    let f = dir.join("trace.json");
    let s = dir.join("summary.json");
    // 8 threads x 1500 launches, buffers handed back every 7 records: over
    // 3000 buffer round trips on the fake's worker thread while launches go on.
    let out = run_gpu(
        &exe,
        &["load", "8", "1500"],
        &[
            ("CUDART_SHIM_TRACE", "gpu,timeline"),
            ("CUDART_SHIM_TRACE_TIMELINE_FILE", f.to_str().unwrap()),
            ("CUDART_SHIM_TRACE_SUMMARY_FILE", s.to_str().unwrap()),
            ("FAKE_CUPTI_RECORDS_PER_BUFFER", "7"),
        ],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("load done 12000"));
    let j = json_file(&s);
    assert_eq!(rows(&j, "cuda_gpu_kern_sum", "Instances", "Name", "Total Time (ns)")["empty()"], (12000, 12_000_000.0));
    let t = Trace::load(&f);
    let slices = t.gpu_slices();
    assert_eq!(slices.len(), 12000);
    let corr: HashSet<u64> = slices.iter().map(|s| s["args"]["correlation"].as_u64().unwrap()).collect();
    assert_eq!(corr.len(), 12000, "a record written twice");
    let tracks: HashSet<u64> = slices.iter().map(|s| s["tid"].as_u64().unwrap()).collect();
    assert_eq!(tracks.len(), 8, "one stream per thread");
    assert_eq!((t.flows("s").len(), t.flows("f").len()), (12000, 12000));
}

#[test]
fn records_still_in_cupti_at_exit_are_flushed() {
    // Default buffers (4 MiB) never fill here: every record reaches the
    // tables only through the forced flush at exit.
    let (dir, exe) = program("gpu_exit_flush");
    let s = dir.join("summary.json");
    run_gpu(&exe, &["load", "2", "300"], &[("CUDART_SHIM_TRACE", "gpu"), ("CUDART_SHIM_TRACE_SUMMARY_FILE", s.to_str().unwrap())]);
    let j = json_file(&s);
    assert_eq!(rows(&j, "cuda_gpu_kern_sum", "Instances", "Name", "Total Time (ns)")["empty()"].0, 600);
}

/// `summary,gpu` without a usable CUPTI: one line says why, the summary is
/// printed, the program runs on.
fn check_gpu_off(vars: &[(&str, &str)], why: &str) {
    let (_, exe) = program("gpu_off");
    let mut v = vec![("CUDART_SHIM_TRACE", "summary,gpu")];
    v.extend_from_slice(vars);
    let out = run_gpu(&exe, &[], &v);
    assert!(String::from_utf8_lossy(&out.stdout).contains("basic done"));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("GPU activity")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("GPU activity is off") && lines[0].contains(why) && lines[0].contains("the program runs on"), "{err}");
    assert!(err.contains("cuda_api_sum") && !err.contains("cuda_gpu_kern_sum"), "{err}");
}

#[test]
fn without_cupti_the_program_runs_on() {
    check_gpu_off(&[("CUDART_SHIM_CUPTI", "/nonexistent/libcupti.so.13")], "libcupti.so.13 not found");
}

#[test]
fn cupti_held_by_another_profiler_is_left_alone() {
    check_gpu_off(&[("FAKE_CUPTI_HELD", "1")], "another profiler holds CUPTI");
}

#[test]
fn the_command_prints_the_gpu_tables_with_trace_gpu() {
    let (_, exe) = program("gpu_cli_trace");
    let cli = target_dir().join("cudart-shim");
    let mut env = fake_env(&[]);
    env.push(("CUDART_SHIM_CUPTI".into(), fake_cupti().display().to_string()));
    let out = run(&cli, &["trace", "--gpu", "--", exe.to_str().unwrap()], &env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let api = err.find("cuda_api_sum").unwrap_or_else(|| panic!("{err}"));
    let kern = err.find("cuda_gpu_kern_sum").unwrap_or_else(|| panic!("{err}"));
    assert!(api < kern, "API table first:\n{err}");
    assert!(err.contains("void fill<float>(float*, float)") && err.contains("cuda_gpu_mem_size_sum"), "{err}");
}

#[test]
fn a_forked_child_prints_no_gpu_tables() {
    // The child inherits the parent's records: only the parent reports them.
    let (_, exe) = program("gpu_fork");
    let out = run_gpu(&exe, &["fork"], &[("CUDART_SHIM_TRACE", "gpu")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("cuda_gpu_kern_sum").count(), 1, "{err}");
}

/// `cudart-shim trace --gpu` of a program whose first CUDA call is nvcc's
/// fatbin registration, in a static initializer: the trace starts CUPTI
/// there, CUPTI loads the driver (the interposer, under `trace`), and the
/// interposer's initializer asks the runtime to switch its tracing on,
/// while that runtime is still setting it up on this thread. That waited
/// for itself on an H100 (a CUDA 12 program, 2026-11-25); calls made during
/// the setup are now part of it, not traced. The fake CUPTI loads the
/// driver on subscribe as CUPTI 13 does.
#[test]
fn gpu_trace_starting_in_a_static_initializer_does_not_wait_for_itself() {
    let (dir, exe) = program("gpu_activity/static_init");
    let json = dir.join("t.json");
    let mut child = cli_on_fake()
        .env("CUDART_SHIM_CUPTI", fake_cupti())
        .env("CUDART_SHIM_LOG", "off")
        .args(["trace", "--gpu", "--timeline"])
        .arg(&json)
        .arg("--")
        .arg(&exe)
        .arg("basic")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_or_fail(&mut child, 60, "`cudart-shim trace --gpu` (the runtime waiting for its own setup)");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{status}\n{err}");
    let j = json_file(&json);
    let kernels = j["traceEvents"].as_array().unwrap().iter().filter(|e| e["cat"] == "gpu_kernel" && e["name"].as_str().is_some_and(|n| n.contains("fill"))).count();
    assert!(kernels > 0, "no GPU kernel slice in the timeline:\n{err}");
}
