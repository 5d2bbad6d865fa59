//! The `cudart-shim` command over the fake driver: trace, report, doctor.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};

fn app(test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    let exe = compile_c_shim(&repo_root().join("tests/c/trace_app.c"), &dir.join("trace_app"), &["-lpthread"]);
    (dir, exe)
}

#[test]
fn trace_prints_the_summary_after_the_program() {
    let (_dir, exe) = app("cli_trace");
    let o = cli_on_fake().args(["trace", "--"]).arg(&exe).arg("basic").output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "devices 1 warp 32\n");
    assert_eq!(summary_calls(&err, "cudaSetDevice"), Some(3), "{err}");
    assert_eq!(summary_calls(&err, "cudaDeviceSynchronize"), Some(3), "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDeviceCount"), Some(2), "{err}");
    assert!(err.contains("cudaErrorInvalidDevice"), "{err}");
}

#[test]
fn trace_sample_counts_every_call_and_says_it_sampled() {
    let (_dir, exe) = app("cli_sample");
    let o = cli_on_fake().args(["trace", "--sample", "3", "--"]).arg(&exe).args(["threads", "4", "100"]).output().unwrap();
    let (_, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDevice"), Some(400), "{err}");
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
    let o = cli_on_fake()
        .args(["trace", "--calls", "--filter", "cudaSetDevice,cudaDeviceSynchronize", "--timeline"])
        .arg(&tl)
        .arg("--")
        .arg(&exe)
        .arg("basic")
        .output()
        .unwrap();
    let (_, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    let call_lines: Vec<&str> = err.lines().filter(|l| l.starts_with("[cudart-shim] tid=")).collect();
    assert_eq!(call_lines.len(), 6, "{err}");
    assert!(call_lines.iter().all(|l| l.contains(" cudaSetDevice(") || l.contains(" cudaDeviceSynchronize(")), "{err}");
    assert_eq!(summary_calls(&err, "cudaSetDevice"), Some(3), "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDeviceCount"), None, "filtered out: {err}");
    // %p expanded by the library: exactly one file.
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("tl-"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let r = cli_on_fake().arg("report").arg(&files[0]).output().unwrap();
    let (rep, rerr) = output_text(&r);
    assert!(r.status.success(), "{rerr}");
    assert!(rep.contains(" Time (%)  Total Time (ns)  Num Calls"), "{rep}");
    assert_eq!(summary_calls(&rep, "cudaSetDevice"), Some(3), "{rep}");
    assert_eq!(summary_calls(&rep, "cudaDeviceSynchronize"), Some(3), "{rep}");
    assert!(rep.contains("cudaErrorInvalidDevice"), "{rep}");
    let j = cli_on_fake().args(["report", "--format", "json"]).arg(&files[0]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    let n: u64 = v["cuda_api_sum"].as_array().unwrap().iter().map(|r| r["Num Calls"].as_u64().unwrap()).sum();
    assert_eq!(n, 6);
}

#[test]
fn trace_keeps_the_exit_status_and_reports_bad_input() {
    let o = cli_on_fake().args(["trace", "--", "sh", "-c", "exit 3"]).output().unwrap();
    assert_eq!(o.status.code(), Some(3));
    let o = cli_on_fake().args(["trace", "--", "/no/such/program"]).output().unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert!(output_text(&o).1.contains("cannot run /no/such/program"));
    let bad = scratch("cli_bad").join("bad.json");
    std::fs::write(&bad, "{\"traceEvents\":[").unwrap();
    let o = cli_on_fake().arg("report").arg(&bad).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(output_text(&o).1.contains("not a complete JSON trace"));
}

#[test]
fn doctor_finds_the_fake_driver_and_the_library() {
    let o = cli_on_fake().arg("doctor").output().unwrap();
    let (out, _) = output_text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains(&format!("driver:   {}", fake_driver().display())), "{out}");
    assert!(out.contains("CUDA driver API version 13.0 (13000)"), "{out}");
    assert!(out.contains("0: Fake CUDA Device 0, compute capability 9.0"), "{out}");
    assert!(out.contains(&format!("library:  {}", shim_lib().display())), "{out}");
    // Never newer than the driver (docs/COMPATIBILITY.md).
    assert!(out.contains("runtime 13.0 (13000)"), "{out}");
    assert!(out.ends_with("ok\n"), "{out}");
}

#[test]
fn doctor_explains_a_missing_driver() {
    let o = cli_on_fake().arg("doctor").env("CUDART_SHIM_DRIVER", "/nonexistent/libcuda.so.1").output().unwrap();
    let (out, _) = output_text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("driver:   NOT FOUND: /nonexistent/libcuda.so.1"), "{out}");
    assert!(out.contains("Install the NVIDIA driver"), "{out}");
    assert!(out.contains("cudaGetDeviceCount: cudaErrorInsufficientDriver (35)"), "error names, not numbers: {out}");
    assert!(out.contains("(because of the driver problem above)"), "{out}");
    assert!(out.ends_with("1 problem found\n"), "one root cause, one problem: {out}");
    let err = output_text(&o).1;
    assert!(!err.contains("cudart-shim warn"), "the library does not repeat the diagnosis: {err}");
}

#[test]
fn doctor_names_driver_errors_and_counts_each_cause_once() {
    let o = cli_on_fake().arg("doctor").env("FAKE_CUDA_INIT_RESULT", "100").output().unwrap();
    let (out, err) = output_text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("cuInit failed: CUDA_ERROR_NO_DEVICE (100) (no GPU visible"), "{out}");
    assert!(out.contains("cudaGetDeviceCount: cudaErrorNoDevice (100)") && out.contains("(because of the driver problem above)"), "{out}");
    assert!(out.ends_with("1 problem found\n"), "{out}");
    assert!(!err.contains("cudart-shim warn"), "{err}");
    let o = cli_on_fake().arg("doctor").env("FAKE_CUDA_DRIVER_VERSION", "12080").output().unwrap();
    let (out, _) = output_text(&o);
    assert!(out.contains("CUDA driver API version 12.8 (12080)  -- too old"), "{out}");
    assert!(out.contains("cudaGetDeviceCount: cudaErrorInsufficientDriver (35)"), "{out}");
    assert!(out.ends_with("1 problem found\n"), "{out}");
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
    let o = cli_on_fake()
        .env("LD_LIBRARY_PATH", nvidia_lib_dir())
        .args(["trace", "--calls", "--"])
        .arg(&exe)
        .arg("basic")
        .output()
        .unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "devices 1 warp 32\n");
    // The program's 12 runtime calls; the driver calls our runtime makes
    // inside them (traced by the driver interposer) are marked nested.
    assert_eq!(err.lines().filter(|l| l.starts_with("[cudart-shim] tid=") && !l.contains(" nested=")).count(), 12, "{err}");
    assert!(err.lines().any(|l| l.contains(" nested=1 cuInit(")), "{err}");
    assert_eq!(summary_calls(&err, "cudaSetDevice"), Some(3), "{err}");
}

/// Every file in `dir` whose name starts with `prefix`, removed first by
/// [`clear`].
fn files_starting(dir: &std::path::Path, prefix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
        .collect();
    v.sort();
    v
}

fn clear(dir: &std::path::Path, prefix: &str) {
    for f in files_starting(dir, prefix) {
        std::fs::remove_file(f).unwrap();
    }
}

#[test]
fn a_library_path_that_does_not_exist_is_a_usage_error() {
    let (_dir, exe) = app("cli_no_library");
    let o = cli_on_fake().args(["trace", "--library", "/no/such/libcudart_shim.so", "--"]).arg(&exe).arg("basic").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).1.contains("--library /no/such/libcudart_shim.so: does not exist"), "{}", output_text(&o).1);
    assert_eq!(output_text(&o).0, "", "the program did not run");
    let o = cli_on_fake().args(["doctor", "--library", "/no/such/libcudart_shim.so"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).1.contains("--library /no/such/libcudart_shim.so: does not exist"), "{}", output_text(&o).1);
    let o = cli_on_fake().env("CUDART_SHIM_LIBRARY", "/no/such.so").arg("doctor").output().unwrap();
    assert_eq!(o.status.code(), Some(2), "the variable is not a silent fallback either");
}

#[test]
fn trace_names_the_timelines_written_and_nothing_else() {
    let (dir, exe) = app("cli_names");
    clear(&dir, "named-");
    let o = cli_on_fake().arg("trace").arg("--timeline").arg(dir.join("named-%p-%r.json")).arg(&exe).arg("basic").env("RANK", "5").output().unwrap();
    let (_, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    let files = files_starting(&dir, "named-");
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap();
    assert!(name.ends_with("-5.json") && !name.contains('%'), "{name}");
    assert!(err.contains(&format!("cudart-shim: timeline in {} (open in", files[0].display())), "%p and %r expanded: {err}");
    // A timeline that cannot be created: the library says why, the
    // command names no file.
    let o = cli_on_fake().arg("trace").arg("--timeline").arg(dir.join("no/such/dir/t.json")).arg(&exe).arg("basic").output().unwrap();
    let (_, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("cannot create the timeline file"), "{err}");
    assert!(!err.contains("timeline in") && !err.contains("timeline of"), "{err}");
}

#[test]
fn processes_of_one_trace_never_write_the_same_file() {
    let (dir, exe) = app("cli_shared_name");
    clear(&dir, "shared");
    let tl = dir.join("shared.json");
    let script = format!("RANK=0 '{0}' basic & RANK=1 '{0}' basic; wait", exe.display());
    let o = cli_on_fake().arg("trace").arg("--timeline").arg(&tl).args(["--", "sh", "-c", &script]).output().unwrap();
    let (_, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    let files = files_starting(&dir, "shared");
    assert_eq!(files.len(), 2, "{files:?} {err}");
    assert!(files.contains(&tl), "{files:?}");
    let other = files.iter().find(|f| **f != tl).unwrap();
    assert!(err.contains(&format!("writes {} instead", other.display())), "says which: {err}");
    for f in &files {
        assert!(err.contains(&format!(": {}\n", f.display())), "names {}: {err}", f.display());
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        assert_eq!(v["traceEvents"].as_array().unwrap().iter().filter(|e| e["name"] == "cudaDeviceSynchronize").count(), 3, "{}", f.display());
    }
    assert!(err.contains("cudart-shim: rank 0 (") && err.contains("cudart-shim: rank 1 ("), "each rank's summary: {err}");
}

#[test]
fn live_summary_and_report_agree_on_the_median() {
    let (dir, exe) = app("cli_median");
    clear(&dir, "med-");
    let o = Command::new(&exe)
        .args(["threads", "3", "200"])
        .env("CUDART_SHIM_DRIVER", fake_driver())
        .env("CUDART_SHIM_TRACE", "summary,timeline")
        .env("CUDART_SHIM_TRACE_SUMMARY_FILE", dir.join("med-summary.json"))
        .env("CUDART_SHIM_TRACE_TIMELINE_FILE", dir.join("med-timeline.json"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output_text(&o).1);
    let live: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("med-summary.json")).unwrap()).unwrap();
    let r = cli_on_fake().args(["report", "--format", "json"]).arg(dir.join("med-timeline.json")).output().unwrap();
    assert!(r.status.success(), "{}", output_text(&r).1);
    let rep: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let rows = |v: &serde_json::Value| -> Vec<(String, u64, f64)> {
        let mut r: Vec<_> = v["cuda_api_sum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["Name"].as_str().unwrap().to_owned(), r["Num Calls"].as_u64().unwrap(), r["Med (ns)"].as_f64().unwrap()))
            .collect();
        r.sort_by(|a, b| a.0.cmp(&b.0));
        r
    };
    let (a, b) = (rows(&live), rows(&rep));
    assert_eq!(a.iter().map(|r| (&r.0, r.1)).collect::<Vec<_>>(), b.iter().map(|r| (&r.0, r.1)).collect::<Vec<_>>());
    let get_device = a.iter().find(|r| r.0 == "cudaGetDevice").unwrap();
    assert_eq!(get_device.1, 600, "an even count");
    for ((name, _, live), (_, _, exact)) in a.iter().zip(&b) {
        // docs/TRACING.md's statement (was the README's): the live median is within 1/32 of the
        // exact one (the same call's duration, by histogram bucket).
        assert!((live - exact).abs() <= exact / 32.0 + 1.0, "{name}: live {live} vs report {exact}");
    }
}

/// The entries of the argument and option sections of a help text that
/// have no description, on their line or (for long names) on the next,
/// indented further.
fn undocumented(help: &str) -> Vec<String> {
    let lines: Vec<&str> = help.lines().collect();
    let entry = |l: &str| l.starts_with("  -") || l.starts_with("  <") || l.starts_with("  [");
    (0..lines.len())
        .filter(|&i| entry(lines[i]) && !lines[i].trim().contains("  "))
        .filter(|&i| !lines.get(i + 1).is_some_and(|n| n.starts_with("        ") && !n.trim().is_empty()))
        .map(|i| lines[i].to_owned())
        .collect()
}

#[test]
fn every_subcommand_and_option_has_a_help_line() {
    let top = cli_on_fake().arg("--help").output().unwrap();
    let top = output_text(&top).0;
    for sub in ["trace", "report", "doctor"] {
        assert!(top.lines().any(|l| l.trim_start().starts_with(sub) && l.trim().len() > sub.len() + 2), "{sub}: {top}");
        let o = cli_on_fake().args([sub, "--help"]).output().unwrap();
        let (help, _) = output_text(&o);
        assert!(o.status.success());
        assert_eq!(undocumented(&help), Vec::<String>::new(), "{sub}:\n{help}");
    }
    let report = output_text(&cli_on_fake().args(["report", "--help"]).output().unwrap()).0;
    assert!(report.contains("<FILE>...") && report.contains("Timelines written by `trace --timeline`"), "{report}");
    let doctor = output_text(&cli_on_fake().args(["doctor", "--help"]).output().unwrap()).0;
    assert!(doctor.contains("--library <PATH>  The cudart-shim library to check"), "{doctor}");
    // gpu/checks/conformance/conformance.py is Python; its --help needs no GPU and no nvcc.
    let o = Command::new("python3").arg(repo_root().join("gpu/checks/conformance/conformance.py")).arg("--help").env("PATH", "/usr/bin:/bin").output().unwrap();
    let (help, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert!(help.contains("--bad-input") && help.contains("--lib"), "{help}");
    assert_eq!(undocumented(&help), Vec::<String>::new(), "conformance.py:\n{help}");
}

#[test]
fn options_are_checked_when_parsed() {
    let (_dir, exe) = app("cli_parse");
    let o = cli_on_fake().args(["trace", "--sample", "0", "--"]).arg(&exe).arg("basic").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).1.contains("0 is not in 1..=1000000"), "{}", output_text(&o).1);
    assert_eq!(output_text(&o).0, "", "the program did not run");
    // No `--` needed; the program's own options stay its own.
    let o = cli_on_fake().args(["trace", "--calls"]).arg(&exe).args(["basic"]).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "devices 1 warp 32\n");
    // The program's own runtime calls (the driver calls our runtime makes
    // inside them are logged too, marked nested=1).
    let own = err.lines().filter(|l| l.starts_with("[cudart-shim] tid=") && !l.contains(" nested=")).count();
    assert_eq!(own, 12, "{err}");
    let o = cli_on_fake().args(["trace", "sh", "-c", "echo $0 $1", "--calls", "x"]).output().unwrap();
    assert_eq!(output_text(&o).0, "--calls x\n", "{}", output_text(&o).1);
    // An unknown option before the program: the error says how to pass it.
    let o = cli_on_fake().args(["trace", "--bogus"]).arg(&exe).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).1.contains("use '-- --bogus'"), "{}", output_text(&o).1);
}

#[test]
fn trace_refuses_a_symbolic_link_and_says_why() {
    let (dir, exe) = app("cli_symlink");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep").unwrap();
    let link = dir.join("link.json");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let o = cli_on_fake().arg("trace").arg("--timeline").arg(&link).arg(&exe).arg("basic").output().unwrap();
    let (_, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!("{} is a symbolic link, and trace files are never written through one", link.display())),
        "{err}"
    );
    assert!(!err.contains("Too many levels of symbolic links"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
}

/// Run the basic program as rank `rank` with its timeline in `file`.
fn run_rank(exe: &std::path::Path, rank: &str, file: &std::path::Path) -> Output {
    Command::new(exe)
        .arg("basic")
        .env("CUDART_SHIM_DRIVER", fake_driver())
        .env("CUDART_SHIM_TRACE", "timeline")
        .env("CUDART_SHIM_TRACE_TIMELINE_FILE", file)
        .env("RANK", rank)
        .env("LOCAL_RANK", rank)
        .env("WORLD_SIZE", "2")
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap()
}

#[test]
fn two_ranks_report_and_merge() {
    let (dir, exe) = app("cli_ranks");
    clear(&dir, "rank");
    let files = [dir.join("rank0.json"), dir.join("rank1.json")];
    for (r, f) in files.iter().enumerate() {
        let o = run_rank(&exe, &r.to_string(), f);
        assert!(o.status.success(), "{}", output_text(&o).1);
    }
    // Each file records who wrote it, with clock samples at start and flush.
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&files[1]).unwrap()).unwrap();
    let p = &v["otherData"]["process"];
    assert_eq!((p["rank"].as_u64(), p["local_rank"].as_u64(), p["world_size"].as_u64()), (Some(1), Some(1), Some(2)), "{p}");
    assert!(p["host"].as_str().is_some_and(|h| !h.is_empty()) && p["pid"].as_u64().is_some(), "{p}");
    assert!(p["clock"][0]["wall_ns"].as_u64().is_some_and(|w| w > 1_700_000_000_000_000_000), "{p}");
    let last = v["traceEvents"].as_array().unwrap().iter().rev().find(|e| e["name"] == "cudart_shim_process").expect("a record at flush");
    let clock = last["args"]["clock"].as_array().unwrap();
    assert_eq!(clock.len(), 2, "start and flush: {last}");
    // The trace clock runs at the wall clock's rate (its calibration once
    // read the process's first, slow clock read: durations 0.5% short).
    let d = |k: &str| clock[1][k].as_f64().unwrap() - clock[0][k].as_f64().unwrap();
    assert!((d("wall_ns") / d("trace_ns") - 1.0).abs() < 0.001, "wall/trace rate {}: {last}", d("wall_ns") / d("trace_ns"));
    assert_eq!(last["args"]["devices"], serde_json::json!([0]), "the device used: {last}");

    // The reverse order on the command line: the report sorts by rank.
    let merged = dir.join("rank-merged.out.json");
    let o = cli_on_fake().arg("report").arg(&files[1]).arg(&files[0]).arg("--merge").arg(&merged).output().unwrap();
    let (rep, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    let at = |s: &str| rep.find(s).unwrap_or_else(|| panic!("{s:?} missing: {rep}"));
    assert!(at("== rank 0 (") < at("== rank 1 ("), "{rep}");
    assert!(at("** Across 2 ranks") > at("== rank 1 ("), "{rep}");
    let cross = &rep[at("** Across 2 ranks")..];
    assert!(cross.contains("Min Total (ns)  Med Total (ns)  Max Total (ns)"), "{cross}");
    let sync = cross.lines().find(|l| l.ends_with(" cudaDeviceSynchronize")).unwrap_or_else(|| panic!("{cross}"));
    assert!(sync.contains(" 2/2 ") && (sync.contains(" rank 0 ") || sync.contains(" rank 1 ")), "{sync}");
    // JSON: both ranks, and per function the totals of each rank.
    let j = cli_on_fake().args(["report", "--format", "json"]).arg(&files[0]).arg(&files[1]).output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(j["ranks"].as_array().unwrap().len(), 2);
    let row = j["across_ranks"].as_array().unwrap().iter().find(|r| r["Name"] == "cudaSetDevice").unwrap().clone();
    let totals: Vec<u64> = row["Totals (ns)"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap()).collect();
    assert_eq!(row["Max Total (ns)"].as_u64(), totals.iter().max().copied(), "{row}");
    assert_eq!(row["Min Total (ns)"].as_u64(), totals.iter().min().copied(), "{row}");
    let slowest = format!("rank {}", totals.iter().position(|t| Some(*t) == totals.iter().max().copied()).unwrap());
    assert_eq!(row["Slowest"].as_str(), Some(slowest.as_str()), "{row}");

    // The merged trace: valid JSON, one process per rank, named by rank,
    // every event in one of them.
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(&merged).unwrap()).expect("valid JSON");
    let events = m["traceEvents"].as_array().unwrap();
    let names: Vec<(u64, String)> = events
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| (e["pid"].as_u64().unwrap(), e["args"]["name"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].1.starts_with("rank 0 (") && names[1].1.starts_with("rank 1 ("), "{names:?}");
    assert!(names[0].1.ends_with(&format!(", pid {}) on libcudart.so.13", names[0].0)), "rank N (host, pid) on RUNTIME: {names:?}");
    assert_ne!(names[0].0, names[1].0);
    let pids: std::collections::HashSet<u64> = names.iter().map(|n| n.0).collect();
    assert!(events.iter().all(|e| e["pid"].as_u64().is_some_and(|p| pids.contains(&p))));
    for (pid, _) in &names {
        let calls = events.iter().filter(|e| e["pid"].as_u64() == Some(*pid) && e["name"] == "cudaDeviceSynchronize").count();
        assert_eq!(calls, 3, "pid {pid}");
    }
    // Ranks ran one after the other: on the wall-clock axis rank 1's first
    // call comes after rank 0's last.
    let span = |pid: u64| {
        let ts: Vec<f64> = events.iter().filter(|e| e["pid"].as_u64() == Some(pid) && e["ph"] == "X").map(|e| e["ts"].as_f64().unwrap()).collect();
        (ts.iter().cloned().fold(f64::MAX, f64::min), ts.iter().cloned().fold(0.0, f64::max))
    };
    assert!(span(names[0].0).1 < span(names[1].0).0, "{:?} {:?}", span(names[0].0), span(names[1].0));
    assert!(err.contains("merged 2 timelines into"), "{err}");
}

#[test]
fn summary_and_call_log_files_record_the_process() {
    let (dir, exe) = app("cli_records");
    clear(&dir, "rec-");
    let o = Command::new(&exe)
        .arg("basic")
        .env("CUDART_SHIM_DRIVER", fake_driver())
        .env("CUDART_SHIM_TRACE", "summary,calls")
        .env("CUDART_SHIM_TRACE_SUMMARY_FILE", dir.join("rec-%r.json"))
        .env("CUDART_SHIM_TRACE_CALLS_FILE", dir.join("rec-%r.log"))
        .env("RANK", "3")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output_text(&o).1);
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("rec-3.json")).unwrap()).unwrap();
    assert_eq!(s["process"]["rank"], 3, "{s}");
    assert_eq!(s["process"]["clock"].as_array().unwrap().len(), 2, "{s}");
    let log = std::fs::read_to_string(dir.join("rec-3.log")).unwrap();
    let first = log.lines().next().unwrap();
    assert!(first.starts_with("# cudart-shim call log: rank 3 (") && first.contains("trace clock 0 = wall clock"), "{first}");
    let last = log.lines().last().unwrap();
    assert!(last.starts_with("# cudart-shim call log ends: rank 3 (") && last.contains(", drift "), "{last}");
}

/// `cargo tree` of the given selection: each package with the features
/// the build turns on (normal and build dependencies, as `cargo build`
/// resolves them), as a sorted list of lines.
fn features_built(args: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let o = Command::new(cargo)
        .current_dir(repo_root())
        .args(["tree", "--offline", "-e", "normal,build", "--prefix", "none", "-f", "{p} {f}"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output_text(&o).1);
    let mut v: Vec<String> = output_text(&o).0.lines().map(|l| l.replace(" (*)", "")).filter(|l| !l.trim().is_empty()).collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn the_default_build_and_the_workspace_build_turn_on_the_same_features() {
    // `cargo build --release` (the default members) must build the command,
    // and alternating it with `--workspace` must not rebuild the library:
    // every crate both build must have the same features in both, which
    // cargo's feature unification gives only when the default members
    // already include everything that adds features (the command's clap
    // turns on features of syn and anstream, which the library also uses).
    let default = features_built(&[]);
    let workspace = features_built(&["--workspace"]);
    assert!(default.iter().any(|l| l.starts_with("cudart-shim-cli ")), "the command is a default member: {default:?}");
    let only_workspace: Vec<&String> = workspace.iter().filter(|l| !default.contains(l)).collect();
    assert!(
        // Only the test equipment (the fake driver and the fake CUPTI, under
        // tests/) is built by --workspace alone.
        only_workspace.iter().all(|l| l.starts_with("fake-cuda ") || l.starts_with("fake-cupti ")),
        "built with other features under --workspace (the library would rebuild): {only_workspace:?}"
    );
    let only_default: Vec<&String> = default.iter().filter(|l| !workspace.contains(l)).collect();
    assert_eq!(only_default, Vec::<&String>::new());
}
