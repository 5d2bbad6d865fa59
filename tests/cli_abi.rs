//! `cudart-shim trace` and `doctor` with the two runtimes (libcudart.so.13
//! and libcudart.so.12, issue #20), over the fake driver: which library is
//! preloaded for which program, a preloaded runtime the process does not use
//! stays inert, a process that uses both writes one set of outputs per
//! runtime (each naming its runtime), and driver calls nest under the
//! runtime call that made them, whichever runtime it is.
//!
//! tests/c/runtimes.c is the probe: linked to one runtime by its SONAME, or
//! loading the SONAMEs it is given with dlopen (as Python does).

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The probe: `linked` 12 or 13 (NEEDED libcudart.so.N, found by no rpath:
/// the loader's list says "not found" and the preload answers it), or 0
/// for the dlopen form.
fn probe(dir: &Path, linked: u32) -> PathBuf {
    let exe = dir.join(format!("runtimes-{linked}"));
    let mut cmd = Command::new("cc");
    cmd.args(["-std=c11", "-Wall", "-Werror", "-D_DEFAULT_SOURCE"]).arg(repo_root().join("tests/c/runtimes.c")).arg("-o").arg(&exe);
    if linked != 0 {
        cmd.arg("-DLINKED").arg(format!("-L{}", target_dir().display())).arg(format!("-l:libcudart.so.{linked}"));
    }
    cmd.arg("-ldl");
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    exe
}

fn fresh(test: &str) -> PathBuf {
    let d = scratch(&format!("cli_abi/{test}"));
    for e in std::fs::read_dir(&d).unwrap().flatten() {
        let _ = std::fs::remove_file(e.path());
    }
    d
}

fn files_in(dir: &Path, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect();
    v.sort();
    v
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A timeline's call events: (name, depth).
fn calls(tl: &serde_json::Value) -> Vec<(String, u64)> {
    tl["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] != "gpu")
        .map(|e| (e["name"].as_str().unwrap_or("").to_owned(), e["args"]["depth"].as_u64().unwrap_or(0)))
        .collect()
}

/// The pid in the first `cudart-shim: pid P ...` heading.
fn o_pid(err: &str) -> String {
    err.lines().find_map(|l| l.strip_prefix("cudart-shim: pid ")).and_then(|r| r.split_whitespace().next()).unwrap_or("?").to_owned()
}

fn lib12() -> String {
    shim12_lib().canonicalize().unwrap().display().to_string()
}
fn lib13() -> String {
    shim_lib().canonicalize().unwrap().display().to_string()
}

/// A program linked to libcudart.so.12 gets only the 12 library; one
/// linked to .13 only the 13 one; the summary and the timeline say which
/// runtime wrote them.
#[test]
fn an_elf_program_gets_the_runtime_its_closure_names() {
    let dir = fresh("linked");
    for (abi, lib, version) in [(12, lib12(), 12090), (13, lib13(), 13000)] {
        let exe = probe(&dir, abi);
        let tl = dir.join(format!("tl-{abi}.json"));
        let o = cli_on_fake().args(["trace", "--timeline"]).arg(&tl).arg("--").arg(&exe).output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{out}{err}");
        assert!(out.contains(&format!("linked: runtime {version} count 0 devices 1 malloc 0 free 0\n")), "{out}");
        assert!(out.contains(&format!("preload {lib}\n")), "only the {abi} library: {out}");
        assert_eq!(summary_calls(&err, "cudaMalloc"), Some(1), "{err}");
        let t = json(&tl);
        assert_eq!(t["otherData"]["process"]["runtime"], format!("libcudart.so.{abi}"), "{t}");
    }
}

/// The CUDA 12 program built by scripts/nvcc12 (tests/cu12/hello12.cu):
/// its runtime calls in the summary and on the timeline, and the driver
/// calls our 12 runtime makes nested under them (the driver interposer
/// reports to the 12 runtime's machinery), not counted as the program's.
#[test]
fn trace_a_cuda_12_program_with_its_driver_calls_nested() {
    let dir = fresh("hello12");
    let exe = dir.join("hello12");
    let out = Command::new(repo_root().join("scripts/nvcc12"))
        .args(["-arch=sm_90", "-O1"])
        .arg(repo_root().join("tests/cu12/hello12.cu"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tl = dir.join("tl.json");
    let o = cli_on_fake().args(["trace", "--timeline"]).arg(&tl).arg("--").arg(&exe).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("CUDART_VERSION 12090, cudaRuntimeGetVersion 12090") && out.ends_with("done\n"), "{out}");
    for (name, n) in [("cudaMalloc", 1), ("cudaMemcpyToSymbol", 1), ("__cudaLaunchKernel", 1), ("cudaFree", 1), ("cudaGetDeviceCount", 1)] {
        assert_eq!(summary_calls(&err, name), Some(n), "{name}: {err}");
    }
    // Driver calls are traced but none is the program's own.
    assert!(!err.lines().any(|l| l.trim_end().ends_with("  cuMemAlloc_v2")), "{err}");
    let t = json(&tl);
    assert_eq!(t["otherData"]["process"]["runtime"], "libcudart.so.12");
    let c = calls(&t);
    assert!(c.contains(&("cudaMalloc".into(), 0)) && c.contains(&("__cudaLaunchKernel".into(), 0)), "{c:?}");
    let driver: Vec<&(String, u64)> = c.iter().filter(|(n, _)| n.starts_with("cu") && !n.starts_with("cuda")).collect();
    assert!(driver.iter().any(|(n, _)| n == "cuMemAlloc_v2"), "driver calls on the 12 runtime's timeline: {c:?}");
    assert!(driver.iter().all(|(_, d)| *d > 0), "every driver call nested under a runtime call: {driver:?}");
    assert_eq!(files_in(&dir, "tl"), ["tl.json"], "one timeline, no stray file");
}

/// An interpreter (here a shell script) gets both libraries; the runtime
/// a process does not use stays inert: no thread, no driver, no output
/// file, no log line, not even with every output on.
#[test]
fn a_script_gets_both_and_an_unused_runtime_stays_inert() {
    let dir = fresh("inert");
    let exe = probe(&dir, 0);
    let script = dir.join("run.sh");
    std::fs::write(&script, format!("#!/bin/sh\nexec {} \"$@\"\n", exe.display())).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let tl = dir.join("tl-%p.json");
    let o = cli_on_fake()
        .env("CUDART_SHIM_LOG", "debug")
        .args(["trace", "--calls", "--gpu", "--timeline"])
        .arg(&tl)
        .arg("--")
        .arg(&script)
        .output()
        .unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    // With --gpu, the CUPTI front follows the runtimes (docs/GPU-ACTIVITY.md).
    let front = std::path::Path::new(&lib13()).with_file_name("libcudart_shim_cupti.so");
    assert!(out.contains(&format!("preload {}:{}:{}\n", lib13(), lib12(), front.display())), "both, 13 first: {out}");
    assert!(out.contains("threads 1 driver 0\n"), "{out}");
    assert_eq!(files_in(&dir, "tl-"), Vec::<String>::new(), "no timeline");
    // The command's own line, and nothing from either library.
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines, ["cudart-shim: no summary was written: no process made a CUDA call through the shim (registering kernels or asking for the device count alone is not one: see --registration)"], "{err}");
}

/// A shell script that runs a CUDA 12 program and a CUDA 13 program: both
/// libraries preloaded in each, each process traced on the runtime it
/// uses, distinct outputs, each naming its runtime, no stray file.
#[test]
fn a_script_running_a_12_and_a_13_program_traces_both() {
    let dir = fresh("script");
    let (p12, p13) = (probe(&dir, 12), probe(&dir, 13));
    let tl = dir.join("tl-%p.json");
    let o = cli_on_fake()
        .args(["trace", "--timeline"])
        .arg(&tl)
        .args(["--", "sh", "-c"])
        .arg(format!("{} && {}", p12.display(), p13.display()))
        .output()
        .unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("linked: runtime 12090 ") && out.contains("linked: runtime 13000 "), "{out}");
    // Two summaries (two processes), each headed by its process and runtime.
    let heads: Vec<&str> = err.lines().filter(|l| l.starts_with("cudart-shim: pid ")).collect();
    assert_eq!(heads.len(), 2, "{err}");
    assert!(heads.iter().any(|h| h.ends_with(" on libcudart.so.12")) && heads.iter().any(|h| h.ends_with(" on libcudart.so.13")), "{err}");
    let files = files_in(&dir, "tl-");
    assert_eq!(files.len(), 2, "one timeline per process, nothing else: {files:?}");
    let mut runtimes: Vec<String> = files.iter().map(|f| json(&dir.join(f))["otherData"]["process"]["runtime"].as_str().unwrap().to_owned()).collect();
    runtimes.sort();
    assert_eq!(runtimes, ["libcudart.so.12", "libcudart.so.13"]);
    assert!(!files.iter().any(|f| f.contains("cudart1")), "no runtime-tagged name: one runtime per process {files:?}");
}

/// One process that uses both runtimes (loads libcudart.so.12 and .13
/// itself, as two Python extension modules might): two summaries, one per
/// runtime; the timeline name taken by the first runtime, the second
/// writing NAME.cudartNN.json; each runtime's driver calls nested under its
/// own calls, none counted as the program's.
#[test]
fn one_process_using_both_runtimes_writes_one_set_of_outputs_per_runtime() {
    let dir = fresh("both");
    let exe = probe(&dir, 0);
    let tl = dir.join("tl.json");
    let o = cli_on_fake()
        .args(["trace", "--timeline"])
        .arg(&tl)
        .arg("--")
        .arg(&exe)
        .args(["libcudart.so.12", "libcudart.so.13"])
        .output()
        .unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("libcudart.so.12: runtime 12090 count 0 devices 1 malloc 0 free 0\n"), "{out}");
    assert!(out.contains("libcudart.so.13: runtime 13000 count 0 devices 1 malloc 0 free 0\n"), "{out}");
    let heads: Vec<&str> = err.lines().filter(|l| l.starts_with("cudart-shim: pid ")).collect();
    assert_eq!(heads.len(), 2, "{err}");
    assert!(heads[0].ends_with(" on libcudart.so.12") != heads[1].ends_with(" on libcudart.so.12"), "{heads:?}");
    assert!(err.contains(&format!("is written by this process's other cudart-shim runtime (libcudart.so.12); this runtime (libcudart.so.13) writes {}", dir.join("tl.cudart13.json").display())), "says where the second went: {err}");
    assert!(!err.contains("summary-"), "the command's own summary files go unmentioned: {err}");
    assert!(err.contains(&format!("(pid {}, libcudart.so.13): {}", o_pid(&err), dir.join("tl.cudart13.json").display())), "{err}");
    // The 12 runtime came first: it has the name, the 13 one tags its file.
    assert_eq!(files_in(&dir, "tl"), ["tl.cudart13.json", "tl.json"]);
    for (f, rt) in [("tl.json", "libcudart.so.12"), ("tl.cudart13.json", "libcudart.so.13")] {
        let t = json(&dir.join(f));
        assert_eq!(t["otherData"]["process"]["runtime"], rt, "{f}");
        let c = calls(&t);
        assert_eq!(c.iter().filter(|(n, d)| n == "cudaMalloc" && *d == 0).count(), 1, "{f}: {c:?}");
        let driver: Vec<&(String, u64)> = c.iter().filter(|(n, _)| n.starts_with("cu") && !n.starts_with("cuda")).collect();
        assert!(driver.iter().any(|(n, _)| n == "cuMemAlloc_v2"), "{f}: its runtime's driver calls: {c:?}");
        assert!(driver.iter().all(|(_, d)| *d > 0), "{f}: nested: {driver:?}");
    }
    assert!(!err.lines().any(|l| l.trim_end().ends_with("  cuMemAlloc_v2")), "no driver call is the program's own: {err}");
    // `report` names each file's runtime: alone (its Process line) and
    // side by side (each heading).
    let r = cli_on_fake().arg("report").arg(dir.join("tl.json")).output().unwrap();
    let (rep, rerr) = output_text(&r);
    assert!(r.status.success(), "{rerr}");
    assert!(rep.lines().any(|l| l.starts_with(" Process: pid ") && l.contains(" on libcudart.so.12; ")), "{rep}");
    let r = cli_on_fake().arg("report").arg(dir.join("tl.json")).arg(dir.join("tl.cudart13.json")).output().unwrap();
    let (rep, rerr) = output_text(&r);
    assert!(r.status.success(), "{rerr}");
    let heads: Vec<&str> = rep.lines().filter(|l| l.starts_with("== pid ")).collect();
    assert_eq!(heads.len(), 2, "{rep}");
    assert!(heads[0].contains(") on libcudart.so.12 (") && heads[1].contains(") on libcudart.so.13 ("), "{heads:?}");
}

/// `--library`: its SONAME says its ABI. A 12 library for a program that
/// loads only libcudart.so.13 is an error that says so; a file that is no
/// runtime is refused; a 12 library for a 12 program is used.
#[test]
fn an_explicit_library_must_match_the_programs_abi() {
    let dir = fresh("library");
    let p13 = probe(&dir, 13);
    let o = cli_on_fake().args(["trace", "--library"]).arg(shim12_lib()).arg("--").arg(&p13).output().unwrap();
    let (out, err) = output_text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("is libcudart.so.12, but") && err.contains("loads only libcudart.so.13"), "{err}");
    assert!(out.is_empty(), "the program did not run: {out}");
    let o = cli_on_fake().args(["trace", "--library"]).arg(fake_driver()).arg("--").arg(&p13).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).1.contains("its SONAME is libcuda.so.1, not a cudart-shim runtime"), "{}", output_text(&o).1);
    let p12 = probe(&dir, 12);
    let o = cli_on_fake().args(["trace", "--library"]).arg(shim12_lib()).arg("--").arg(&p12).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains(&format!("preload {}\n", lib12())), "{out}");
}

/// `doctor` reports libcudart.so.13 and .12 separately: which file the
/// loader gives for each, ours or NVIDIA's, its runtime version; and both
/// of our libraries.
#[test]
fn doctor_reports_both_runtimes() {
    let nvidia12 = cuda12().join("nvidia/cuda_runtime/lib");
    let o = cli_on_fake()
        .env("LD_LIBRARY_PATH", format!("{}:{}", nvidia12.display(), target_dir().display()))
        .arg("doctor")
        .output()
        .unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains(&format!("libcudart.so.13 on the loader path: {} (cudart-shim, runtime 13000)\n", lib13())), "{out}");
    let nv = nvidia12.join("libcudart.so.12").canonicalize().unwrap();
    assert!(out.contains(&format!("libcudart.so.12 on the loader path: {} (NVIDIA's, runtime 12090)\n", nv.display())), "{out}");
    assert!(out.contains(&format!("library:  {} (libcudart.so.13)\n", shim_lib().display())), "{out}");
    assert!(out.contains(&format!("library:  {} (libcudart.so.12)\n          runtime 12.9 (12090)", shim12_lib().display())), "{out}");
    assert!(out.ends_with("ok\n"), "{out}");
    // Ours for 12 on the path, nothing for 13.
    let only12 = fresh("doctor");
    std::os::unix::fs::symlink(shim12_lib(), only12.join("libcudart.so.12")).unwrap();
    let o = cli_on_fake().env("LD_LIBRARY_PATH", &only12).arg("doctor").output().unwrap();
    let (out, _) = output_text(&o);
    assert!(out.contains(&format!("libcudart.so.12 on the loader path: {} (cudart-shim, runtime 12090)\n", lib12())), "{out}");
    assert!(out.contains("libcudart.so.13 on the loader path: none"), "{out}");
}

/// Without the command: a process that loads both of our runtimes itself,
/// `RTLD_LOCAL` from the library path (as Python loads extension modules)
/// or preloaded, with one file name for the timeline. The second runtime to
/// open it asks the first (found among the loaded objects, local or global)
/// and writes NAME.cudart13.json; neither overwrites the other.
#[test]
fn without_the_command_two_runtimes_of_one_process_never_share_a_file() {
    for (case, preload) in [("local", None), ("preloaded", Some(format!("{}:{}", lib13(), lib12())))] {
        let dir = fresh(&format!("env-{case}"));
        let exe = probe(&dir, 0);
        let mut env = fake_env(&[("CUDART_SHIM_TRACE", "timeline"), ("CUDART_SHIM_TRACE_FILE", dir.join("x.json").to_str().unwrap())]);
        if let Some(p) = &preload {
            env.push(("LD_PRELOAD".into(), p.clone()));
        }
        let o = run(&exe, &["libcudart.so.12", "libcudart.so.13"], &env);
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{case}: {out}{err}");
        assert!(out.contains("libcudart.so.12: runtime 12090 ") && out.contains("libcudart.so.13: runtime 13000 "), "{case}: {out}");
        assert!(err.contains("writes ") && err.contains("x.cudart13.json"), "{case}: says so: {err}");
        assert_eq!(files_in(&dir, "x"), ["x.cudart13.json", "x.json"], "{case}");
        assert_eq!(json(&dir.join("x.json"))["otherData"]["process"]["runtime"], "libcudart.so.12", "{case}");
        assert_eq!(json(&dir.join("x.cudart13.json"))["otherData"]["process"]["runtime"], "libcudart.so.13", "{case}");
    }
}
