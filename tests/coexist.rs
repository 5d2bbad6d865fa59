//! Tracing inside real jobs (issue #27 points 2 and 3), on the fake
//! driver through `cudart-shim trace`:
//! - registration (`__cudaRegister*`/`__cudaUnregister*` and the driver
//!   calls inside them) is counted in the summary, exactly, but written
//!   to neither the timeline nor the call log unless `--registration`;
//! - a process that made no call besides registration and setup calls
//!   (the device count) writes no file; setup calls made before the work
//!   are in every output of a process that works;
//! - a process with no rank never takes a rank's file name, and the
//!   README's torchrun recipe gives one timeline per rank under the
//!   documented names; `report` and `--merge` order and label by the rank
//!   recorded in each file.
//!
//! tests/c/coexist.c plays the program: `register` (an `import torch`),
//! `work`, `count` (the device count torchrun's launcher makes), and a
//! launcher that counts the devices and starts two ranks (torchrun).

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn program(test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::remove_file(p).unwrap();
        }
    }
    let exe = compile_c_shim(&repo_root().join("tests/c/coexist.c"), &dir.join("coexist"), &[]);
    (dir, exe)
}

fn files(dir: &Path, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect();
    v.sort();
    v
}

fn json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

/// The call events (`cuda_api` slices) of a timeline.
fn calls(t: &Value) -> Vec<Value> {
    t["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X" && e["cat"] == "cuda_api").cloned().collect()
}

fn is_registration(name: &str) -> bool {
    name.starts_with("__cudaRegister") || name.starts_with("__cudaUnregister")
}

/// Name -> count of `events` that are neither registration calls nor
/// inside one (same thread, within its span).
fn work_counts(events: &[Value]) -> BTreeMap<String, usize> {
    let spans: Vec<(i64, f64, f64)> = events
        .iter()
        .filter(|e| is_registration(e["name"].as_str().unwrap()))
        .map(|e| (e["tid"].as_i64().unwrap(), e["ts"].as_f64().unwrap(), e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap()))
        .collect();
    let mut m = BTreeMap::new();
    for e in events {
        let name = e["name"].as_str().unwrap();
        let (tid, ts) = (e["tid"].as_i64().unwrap(), e["ts"].as_f64().unwrap());
        let inside = e["args"]["depth"].as_u64().unwrap_or(0) > 0 && spans.iter().any(|s| s.0 == tid && s.1 <= ts && ts <= s.2);
        if !is_registration(name) && !inside {
            *m.entry(name.to_owned()).or_insert(0) += 1;
        }
    }
    m
}

/// `cudart-shim trace ARGS -- coexist MODE` in `dir`: (stdout, stderr).
fn trace(dir: &Path, args: &[&str], program: &[&str]) -> (String, String) {
    trace_with(dir, args, program, &[])
}

fn trace_with(dir: &Path, args: &[&str], program: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let o = cli_on_fake().current_dir(dir).envs(env.iter().copied()).arg("trace").args(args).arg("--").args(program).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    (out, err)
}

#[test]
fn registration_is_counted_in_the_summary_not_written_to_the_timeline_or_call_log() {
    let (dir, exe) = program("coexist_registration");
    let exe = exe.to_str().unwrap();
    // Eager loading: the registration's end loads the module, so the
    // driver is initialized and called inside a registration call.
    let eager = [("CUDA_MODULE_LOADING", "EAGER")];
    let (_, err) = trace_with(&dir, &["--timeline", "tl.json", "--calls-file", "calls.txt"], &[exe, "work"], &eager);
    // Counted exactly, one row each.
    for (name, n) in [("__cudaRegisterFatBinary", 1), ("__cudaRegisterFunction", 1000), ("__cudaRegisterFatBinaryEnd", 1), ("__cudaUnregisterFatBinary", 1), ("cudaMalloc", 1)] {
        assert_eq!(summary_calls(&err, name), Some(n), "{name}: {err}");
        assert_eq!(err.lines().filter(|l| l.ends_with(&format!("  {name}"))).count(), 1, "one row of {name}: {err}");
    }
    let quiet = calls(&json(&dir.join("tl.json")));
    assert!(quiet.iter().all(|e| !is_registration(e["name"].as_str().unwrap())), "no registration event");
    assert!(quiet.iter().any(|e| e["name"] == "cudaMalloc"), "the work is there");
    assert!(!quiet.iter().any(|e| e["name"] == "cuLibraryLoadData" || e["name"] == "cuInit"), "nor the driver calls inside registration");
    let log = std::fs::read_to_string(dir.join("calls.txt")).unwrap();
    assert!(!log.contains("__cuda"), "no registration line: {log}");
    assert!(log.contains(" cudaMalloc(") && log.contains(" cudaFree("), "{log}");

    // Kept: every registration call and the calls inside it; the rest the same.
    let (_, err) = trace_with(&dir, &["--registration", "--timeline", "tl-kept.json", "--calls-file", "calls-kept.txt"], &[exe, "work"], &eager);
    assert_eq!(summary_calls(&err, "__cudaRegisterFunction"), Some(1000), "{err}");
    let kept = calls(&json(&dir.join("tl-kept.json")));
    assert_eq!(kept.iter().filter(|e| e["name"] == "__cudaRegisterFunction").count(), 1000);
    assert_eq!(kept.iter().filter(|e| e["name"] == "__cudaUnregisterFatBinary").count(), 1);
    let nested = |name: &str| kept.iter().any(|e| e["name"] == name && e["args"]["depth"] == 1);
    assert!(nested("cuLibraryLoadData") && nested("cuInit"), "the driver calls inside registration are kept too");
    assert_eq!(work_counts(&kept), work_counts(&quiet), "only registration and what runs inside it is left out");
    let log = std::fs::read_to_string(dir.join("calls-kept.txt")).unwrap();
    assert_eq!(log.lines().filter(|l| l.contains(" __cudaRegisterFunction(")).count(), 1000);
}

#[test]
fn a_process_that_only_registers_kernels_writes_no_file() {
    let (dir, exe) = program("coexist_register_only");
    let exe = exe.to_str().unwrap();
    let (_, err) = trace(&dir, &["--timeline", "tl.json", "--calls-file", "calls.txt"], &[exe, "register"]);
    assert_eq!(files(&dir, "tl"), Vec::<String>::new());
    assert_eq!(files(&dir, "calls"), Vec::<String>::new());
    assert!(!err.contains("Time (%)"), "no summary table: {err}");
    assert!(err.contains("no summary was written: no process made a CUDA call through the shim (registering kernels or asking for the device count alone"), "{err}");

    // Without the command: no summary file, call log or timeline either,
    // and no table on stderr.
    let env = fake_env(&[
        ("CUDART_SHIM_TRACE", "summary,calls,timeline"),
        ("CUDART_SHIM_TRACE_SUMMARY_FILE", "env-summary.json"),
        ("CUDART_SHIM_TRACE_CALLS_FILE", "env-calls.txt"),
        ("CUDART_SHIM_TRACE_TIMELINE_FILE", "env-tl.json"),
    ]);
    let o = std::process::Command::new(exe).arg("register").current_dir(&dir).envs(env.iter().map(|(k, v)| (k, v))).output().unwrap();
    assert!(o.status.success());
    assert_eq!(files(&dir, "env-"), Vec::<String>::new());
    let o = std::process::Command::new(exe).arg("register").envs(fake_env(&[("CUDART_SHIM_TRACE", "summary")])).output().unwrap();
    let (_, err) = output_text(&o);
    assert!(o.status.success() && !err.contains("Time (%)"), "no table on stderr: {err}");

    // Kept, registration is the process's work: its files are written.
    trace(&dir, &["--registration", "--timeline", "tl-kept.json"], &[exe, "register"]);
    let kept = calls(&json(&dir.join("tl-kept.json")));
    assert_eq!(kept.iter().filter(|e| e["name"] == "__cudaRegisterFunction").count(), 1000);
}

/// torchrun's launcher imports torch and counts the devices
/// (tests/c/coexist.c `count`, the calls its GPU timeline showed):
/// setup calls are not work, so such a process writes no file and prints
/// no summary, with the command or without it.
#[test]
fn a_process_that_only_counts_devices_writes_no_file() {
    let (dir, exe) = program("coexist_count_only");
    let exe = exe.to_str().unwrap();
    let (_, err) = trace(&dir, &["--timeline", "tl.json", "--calls-file", "calls.txt"], &[exe, "count"]);
    assert_eq!(files(&dir, "tl"), Vec::<String>::new(), "{err}");
    assert_eq!(files(&dir, "calls"), Vec::<String>::new(), "{err}");
    assert!(!err.contains("Time (%)"), "no summary table: {err}");
    assert!(err.contains("no summary was written"), "{err}");
    let env = fake_env(&[
        ("CUDART_SHIM_TRACE", "summary,calls,timeline"),
        ("CUDART_SHIM_TRACE_SUMMARY_FILE", "env-summary.json"),
        ("CUDART_SHIM_TRACE_CALLS_FILE", "env-calls.txt"),
        ("CUDART_SHIM_TRACE_TIMELINE_FILE", "env-tl.json"),
    ]);
    let o = std::process::Command::new(exe).arg("count").current_dir(&dir).envs(env.iter().map(|(k, v)| (k, v))).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(files(&dir, "env-"), Vec::<String>::new());
}

/// Counting the devices, then working: the count's calls, held until the
/// work began, are in every output, before the work, and the outputs
/// agree call for call.
#[test]
fn setup_calls_before_the_work_are_in_every_output() {
    let (dir, exe) = program("coexist_count_work");
    let (_, err) = trace(&dir, &["--timeline", "tl.json", "--calls-file", "calls.txt"], &[exe.to_str().unwrap(), "count-work"]);
    // The summary: the program's own calls (the driver calls it made itself).
    for (name, n) in [("cudaGetDeviceCount", 1), ("cuGetProcAddress_v2", 2), ("cuDriverGetVersion", 1), ("cuGetExportTable", 1), ("cudaMalloc", 1), ("cudaFree", 1)] {
        assert_eq!(summary_calls(&err, name), Some(n), "{name}: {err}");
    }
    let tl = calls(&json(&dir.join("tl.json")));
    let log = std::fs::read_to_string(dir.join("calls.txt")).unwrap();
    let mut in_log: BTreeMap<String, usize> = BTreeMap::new();
    for l in log.lines().filter(|l| l.starts_with("[cudart-shim] tid=")) {
        let name = l.split_whitespace().find(|w| w.contains('(')).unwrap();
        *in_log.entry(name.split('(').next().unwrap().to_owned()).or_insert(0) += 1;
    }
    let mut in_tl: BTreeMap<String, usize> = BTreeMap::new();
    for e in &tl {
        *in_tl.entry(e["name"].as_str().unwrap().to_owned()).or_insert(0) += 1;
    }
    assert_eq!(in_tl, in_log, "the timeline and the call log hold the same calls");
    for name in ["cudaGetDeviceCount", "cuInit", "cuDeviceGetCount", "cuGetExportTable", "cudaMalloc"] {
        assert!(in_tl.contains_key(name), "{name}: {in_tl:?}");
    }
    let nested = |name: &str| tl.iter().any(|e| e["name"] == name && e["args"]["depth"] == 1);
    assert!(nested("cuInit") && nested("cuDeviceGetCount"), "the driver calls inside cudaGetDeviceCount, nested");
    let at = |s: &str| log.find(s).unwrap_or_else(|| panic!("{s}: {log}"));
    assert!(at(" cudaGetDeviceCount(") < at(" cuGetExportTable(") && at(" cuGetExportTable(") < at(" cudaMalloc("), "in the order made: {log}");
}

/// Setup calls are held for a while only: past 256 (trace's SETUP_MAX),
/// the process counts as working, and the held calls and the later ones
/// are all written: 300 device counts, 300 in every output.
#[test]
fn a_process_past_256_setup_calls_counts_as_working_and_loses_none() {
    let (dir, exe) = program("coexist_count_many");
    let (_, err) = trace(&dir, &["--timeline", "tl.json", "--calls-file", "calls.txt"], &[exe.to_str().unwrap(), "count-many", "300"]);
    assert_eq!(summary_calls(&err, "cudaGetDeviceCount"), Some(300), "{err}");
    let tl = calls(&json(&dir.join("tl.json")));
    assert_eq!(tl.iter().filter(|e| e["name"] == "cudaGetDeviceCount").count(), 300);
    let log = std::fs::read_to_string(dir.join("calls.txt")).unwrap();
    assert_eq!(log.lines().filter(|l| l.starts_with("[cudart-shim] tid=") && l.contains(" cudaGetDeviceCount(")).count(), 300);
    // Each call once, in the order made: the held ones first.
    let ts: Vec<f64> = tl.iter().filter(|e| e["name"] == "cudaGetDeviceCount").map(|e| e["ts"].as_f64().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] < w[1]), "{ts:?}");
}

/// README, "Many ranks (torchrun)", as written: the launcher (no RANK,
/// registration and a device count, like torchrun) writes nothing; each
/// rank writes its file under the documented name; `report` names both.
#[test]
fn the_readme_torchrun_recipe_works_as_written() {
    let (dir, exe) = program("coexist_torchrun");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let _ = std::fs::remove_file(bin.join("torchrun"));
    std::os::unix::fs::symlink(&exe, bin.join("torchrun")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let recipe: Vec<&str> = readme.lines().skip_while(|l| *l != "### Many ranks (torchrun)").skip_while(|l| !l.starts_with("```")).skip(1).take_while(|l| *l != "```").collect();
    assert_eq!(
        recipe,
        [
            "cudart-shim trace --timeline 'trace-rank%r.json' -- torchrun --nproc-per-node 2 train.py",
            "cudart-shim report --merge all-ranks.json trace-rank0.json trace-rank1.json"
        ],
        "the recipe this test runs"
    );
    // Each line as a shell runs it, `cudart-shim` on the PATH.
    let cli = target_dir();
    let path = format!("{}:{path}", cli.display());
    let sh = |line: &str| {
        // The environment of `cli_on_fake`, with the PATH above.
        let mut c = std::process::Command::new("sh");
        c.arg("-c").arg(line).current_dir(&dir).env("PATH", &path).env("CUDART_SHIM_DRIVER", fake_driver());
        for v in ["CUDART_SHIM_TRACE", "CUDART_SHIM_TRACE_DRIVER", "LD_PRELOAD", "LD_LIBRARY_PATH", "CUDART_SHIM_LIBRARY"] {
            c.env_remove(v);
        }
        let o = c.output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{line}: {out}{err}");
        (out, err)
    };
    let (_, err) = sh(recipe[0]);
    assert_eq!(files(&dir, "trace-rank"), ["trace-rank0.json", "trace-rank1.json"], "{err}");
    for r in 0..2 {
        let t = json(&dir.join(format!("trace-rank{r}.json")));
        assert_eq!(t["otherData"]["process"]["rank"], r, "trace-rank{r}.json is rank {r}'s");
        assert!(calls(&t).iter().any(|e| e["name"] == "cudaMalloc"));
        assert!(err.contains(&format!("timeline of rank {r} (pid ")), "{err}");
    }
    assert!(err.contains("cudart-shim report ") && err.contains("trace-rank0.json") && !err.contains("no rank"), "{err}");
    let (out, err) = sh(recipe[1]);
    assert!(out.contains("== rank 0 (") && out.contains("== rank 1 (") && out.contains("** Across 2 ranks"), "{out}");
    assert!(err.contains("merged 2 timelines"), "{err}");
    let merged = json(&dir.join("all-ranks.json"));
    let names: Vec<String> = merged["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.len() == 2 && names[0].starts_with("rank 0 (") && names[1].starts_with("rank 1 ("), "{names:?}");
}

/// A launcher that does CUDA work itself (no RANK) writes a file, but
/// under `norank-<pid>` for `%r`, never a rank's name.
#[test]
fn a_working_process_without_a_rank_never_takes_a_ranks_name() {
    let (dir, exe) = program("coexist_norank");
    let (_, err) = trace(&dir, &["--timeline", "t-rank%r.json"], &[exe.to_str().unwrap(), "launcher", "busy"]);
    let names = files(&dir, "t-rank");
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(&names[..2], ["t-rank0.json", "t-rank1.json"]);
    let launcher = &names[2];
    let pid = launcher.strip_prefix("t-ranknorank-").and_then(|s| s.strip_suffix(".json")).unwrap_or_else(|| panic!("{launcher}"));
    let t = json(&dir.join(launcher));
    assert_eq!(t["otherData"]["process"]["pid"].to_string(), pid);
    assert!(t["otherData"]["process"].get("rank").is_none_or(Value::is_null), "{}", t["otherData"]["process"]);
    assert!(err.contains(&format!("timeline of no rank (pid {pid}")), "{err}");
    // `report` puts the ranks first, by rank, and the launcher after them.
    let o = cli_on_fake().current_dir(&dir).args(["report", launcher, "t-rank1.json", "t-rank0.json"]).output().unwrap();
    let (out, _) = output_text(&o);
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("{s:?}: {out}"));
    assert!(at("== rank 0 (") < at("== rank 1 (") && at("== rank 1 (") < at(&format!("== pid {pid}")), "{out}");
}

/// `report` and `--merge` go by the rank recorded inside each file, not by
/// its name nor the order given.
#[test]
fn report_and_merge_order_and_label_by_the_recorded_rank() {
    let (dir, exe) = program("coexist_report_order");
    trace(&dir, &["--timeline", "r%r.json"], &[exe.to_str().unwrap(), "launcher", "quiet"]);
    // Misleading names: rank 1's file called "a-rank0", rank 0's "b-rank1".
    std::fs::rename(dir.join("r1.json"), dir.join("a-rank0.json")).unwrap();
    std::fs::rename(dir.join("r0.json"), dir.join("b-rank1.json")).unwrap();
    let o = cli_on_fake().current_dir(&dir).args(["report", "--merge", "m.json", "a-rank0.json", "b-rank1.json"]).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("{s:?}: {out}"));
    assert!(at("== rank 0 (") < at("== rank 1 ("), "{out}");
    assert!(out[at("== rank 0 (")..].lines().next().unwrap().ends_with("(b-rank1.json)"), "{out}");
    let m = json(&dir.join("m.json"));
    let inputs = m["otherData"]["inputs"].as_array().unwrap();
    assert_eq!((inputs[0]["file"].as_str(), inputs[0]["process"]["rank"].as_u64()), (Some("b-rank1.json"), Some(0)));
    assert_eq!((inputs[1]["file"].as_str(), inputs[1]["process"]["rank"].as_u64()), (Some("a-rank0.json"), Some(1)));
    for (i, input) in inputs.iter().enumerate() {
        let pid = &input["pid"];
        let ev = m["traceEvents"].as_array().unwrap();
        let name = ev.iter().find(|e| e["name"] == "process_name" && e["pid"] == *pid).unwrap();
        let sort = ev.iter().find(|e| e["name"] == "process_sort_index" && e["pid"] == *pid).unwrap();
        assert!(name["args"]["name"].as_str().unwrap().starts_with(&format!("rank {i} (")), "{name}");
        assert_eq!(sort["args"]["sort_index"], i);
    }
}
