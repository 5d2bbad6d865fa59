//! NVTX ranges and capture windows, over the fake driver: a C program built
//! on NVIDIA's NVTX3 headers (nvidia-nvtx) and NVIDIA's runtime headers,
//! linked to libcudart.so.13 and two shared libraries that each embed their
//! own copy of NVTX3, run under `cudart-shim trace` (tests/c/nvtx_app.c).

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The program and its two libraries, built once per test (nextest runs
/// each test in its own process: each builds in its own folder).
fn app(test: &str) -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| {
        let dir = scratch(&format!("nvtx_app_{test}"));
        let inc = nvtx_include();
        for l in ["a", "b"] {
            let o = std::process::Command::new("cc")
                .args(["-std=c11", "-Wall", "-Werror", "-g", "-fPIC", "-shared", "-fvisibility=hidden"])
                .arg("-I")
                .arg(&inc)
                .arg(format!("-DLIB_FN=nvtx_lib_{l}"))
                .arg(format!("-DLIB_RANGE=\"lib {l} range\""))
                .arg(repo_root().join("tests/c/nvtx_lib.c"))
                .arg("-o")
                .arg(dir.join(format!("libnvtx_{l}.so")))
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        let libdir = dir.display().to_string();
        compile_c_cudart(
            &repo_root().join("tests/c/nvtx_app.c"),
            &dir.join("nvtx_app"),
            &[
                "-Werror",
                &format!("-I{}", inc.display()),
                "-DWITH_LIBS",
                &format!("-L{libdir}"),
                &format!("-Wl,-rpath,{libdir}"),
                "-lnvtx_a",
                "-lnvtx_b",
                "-lpthread",
                "-ldl",
            ],
        )
    })
    .clone()
}

/// `cudart-shim trace ARGS -- nvtx_app MODE...` over the fake driver, with
/// NVIDIA's library on the library path (ours is preloaded).
fn trace(test: &str, args: &[&str], mode: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let mut c = cli_on_fake();
    c.env("LD_LIBRARY_PATH", nvidia_lib_dir()).env_remove("NVTX_INJECTION64_PATH");
    for (k, v) in env {
        c.env(k, v);
    }
    let o: Output = c.arg("trace").args(args).arg("--").arg(app(test)).args(mode).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    (out, err)
}

/// Instances of NVTX range `range` (style `style`) in a text nvtx_sum.
fn instances(err: &str, style: &str, range: &str) -> Option<u64> {
    let table = &err[err.find("(nvtx_sum)")?..];
    let l = table.lines().find(|l| l.ends_with(&format!("  {range}")) && l.contains(&format!(" {style} ")))?;
    l.split_whitespace().nth(2)?.replace(',', "").parse().ok()
}

fn timeline(p: &Path) -> Vec<Value> {
    let j: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    j["traceEvents"].as_array().unwrap().clone()
}

fn thread_names(ev: &[Value]) -> Vec<(i64, String)> {
    ev.iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| (e["tid"].as_i64().unwrap(), e["args"]["name"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn ranges_domains_strings_payloads_names_and_two_embedded_copies() {
    let dir = scratch("nvtx_basic");
    let tl = dir.join("tl.json");
    let cupti = target_dir().join("libfake_cupti.so");
    let (out, err) = trace(
        "basic",
        &["--calls", "--gpu", "--timeline", tl.to_str().unwrap()],
        &["basic"],
        &[("CUDART_SHIM_CUPTI", cupti.to_str().unwrap())],
    );
    assert_eq!(out, "basic done\n");
    // nvtx_sum: one instance of each range, by style; the libraries' copies
    // of NVTX3 each initialized the injection (their ranges are here).
    for (style, range) in [
        ("PushPop", "outer"),
        ("PushPop", "inner"),
        ("PushPop", "mylib:registered"),
        ("StartEnd", "handoff"),
        ("PushPop", "lib a range"),
        ("PushPop", "lib b range"),
    ] {
        assert_eq!(instances(&err, style, range), Some(1), "{style} {range}: {err}");
    }
    // The call log names each call's innermost range.
    let line = |call: &str| err.lines().filter(|l| l.contains(&format!(" {call}(")) && !l.contains("nested=")).map(str::to_owned).collect::<Vec<_>>();
    let gd = line("cudaGetDevice");
    assert_eq!(gd.len(), 3, "{err}");
    assert!(gd[0].contains("range=\"outer\"") && gd[1].contains("range=\"inner\"") && gd[2].contains("range=\"inner\""), "{gd:?}");
    assert!(line("cudaDeviceSynchronize")[0].contains("range=\"mylib:registered\""), "{err}");
    assert!(!line("cudaStreamCreate")[0].contains("range="), "{err}");

    let ev = timeline(&tl);
    let nvtx: Vec<&Value> = ev.iter().filter(|e| e["cat"] == "nvtx").collect();
    let by = |name: &str, ph: &str| nvtx.iter().find(|e| e["name"] == name && e["ph"] == ph).copied().unwrap_or_else(|| panic!("no {ph} {name}: {nvtx:?}"));
    let (outer, inner, reg) = (by("outer", "X"), by("inner", "X"), by("registered", "X"));
    assert_eq!(outer["args"]["color"], "#ff0000");
    assert_eq!(outer["args"]["level"], 0);
    assert_eq!(inner["args"]["level"], 1);
    assert_eq!(inner["args"]["payload"], "42");
    assert_eq!(inner["args"]["category"], "io");
    assert_eq!(reg["args"]["domain"], "mylib");
    assert_eq!(reg["args"]["payload"], "2.5");
    // inner nests in outer, on the same NVTX track; the domain has its own.
    let (t, d) = (|e: &Value| e["ts"].as_f64().unwrap(), |e: &Value| e["dur"].as_f64().unwrap());
    assert!(t(inner) >= t(outer) && t(inner) + d(inner) <= t(outer) + d(outer));
    assert_eq!(outer["tid"], inner["tid"]);
    assert_ne!(outer["tid"], reg["tid"]);
    let mark = by("tick", "i");
    assert_eq!(mark["tid"], reg["tid"]);
    // The start/end range: an async pair, ended on another thread.
    let (b, e) = (by("handoff", "b"), by("handoff", "e"));
    assert_eq!(b["id"], e["id"]);
    assert!(e["ts"].as_f64().unwrap() >= b["ts"].as_f64().unwrap() + 1000.0, "started 2 ms before its end: {b} {e}");
    // Names: the thread, its NVTX tracks, the named stream's GPU track.
    let names = thread_names(&ev);
    let name_of = |tid: &Value| names.iter().find(|(t, _)| *t == tid.as_i64().unwrap()).map(|(_, n)| n.clone()).unwrap_or_default();
    assert_eq!(name_of(&outer["tid"]), "NVTX main thread");
    assert_eq!(name_of(&reg["tid"]), "NVTX mylib main thread");
    assert!(names.iter().any(|(_, n)| n == "main thread"), "{names:?}");
    assert!(names.iter().any(|(_, n)| n.starts_with("GPU 0 stream ") && n.ends_with("(copy stream)")), "{names:?}");

    // `report` prints the same nvtx_sum from the saved timeline.
    let o = cli_on_fake().arg("report").arg(&tl).output().unwrap();
    let (rep, rerr) = output_text(&o);
    assert!(o.status.success(), "{rerr}");
    assert_eq!(instances(&rep, "PushPop", "mylib:registered"), Some(1), "{rep}");
    assert_eq!(instances(&rep, "StartEnd", "handoff"), Some(1), "{rep}");
}

#[test]
fn an_injection_path_set_by_someone_else_is_left_alone() {
    let (out, err) = trace("an_injection_path_set_by_someone_else_is_left_alone", &[], &["env"], &[("NVTX_INJECTION64_PATH", "/opt/other-tool/libinject.so")]);
    assert_eq!(out, "NVTX_INJECTION64_PATH=/opt/other-tool/libinject.so\n");
    assert_eq!(err.matches("NVTX_INJECTION64_PATH is already set (/opt/other-tool/libinject.so)").count(), 1, "{err}");
    assert!(!err.contains("(nvtx_sum)"), "{err}");
    // Unset: trace points it at the preloaded library.
    let (out, err) = trace("an_injection_path_set_by_someone_else_is_left_alone", &[], &["env"], &[]);
    assert!(out.starts_with("NVTX_INJECTION64_PATH=/") && out.trim_end().ends_with("libcudart_shim.so"), "{out}");
    assert_eq!(instances(&err, "PushPop", "step"), Some(1), "{err}");
}

#[test]
fn cuda_profiler_api_window_opened_inside_a_range() {
    let (_, err) = trace("cuda_profiler_api_window_opened_inside_a_range", &["--capture-range=cudaProfilerApi"], &["profiler"], &[]);
    // Only the 3 steps inside cudaProfilerStart/Stop; "outer", open when
    // the window opened, is shown; "before" (no window) is not.
    assert_eq!(instances(&err, "PushPop", "step"), Some(3), "{err}");
    assert_eq!(instances(&err, "PushPop", "outer"), Some(1), "{err}");
    assert_eq!(instances(&err, "PushPop", "before"), None, "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDevice"), Some(3), "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDeviceCount"), None, "{err}");
    assert!(err.contains("Capture windows: 1 window:"), "{err}");
    // repeat:2: the second window too; stop (the default): the first only.
    let (_, err) = trace("cuda_profiler_api_window_opened_inside_a_range", &["--capture-range=cudaProfilerApi", "--capture-range-end=repeat:2"], &["profiler", "repeat"], &[]);
    assert_eq!(summary_calls(&err, "cudaGetDevice"), Some(5), "{err}");
    assert!(err.contains("Capture windows: 2 windows:"), "{err}");
    let (_, err) = trace("cuda_profiler_api_window_opened_inside_a_range", &["--capture-range=cudaProfilerApi"], &["profiler", "repeat"], &[]);
    assert_eq!(summary_calls(&err, "cudaGetDevice"), Some(3), "{err}");
}

#[test]
fn nvtx_range_window() {
    let (_, err) = trace("nvtx_range_window", &["--capture-range=nvtx", "--nvtx-capture=capture@mylib"], &["nvtxrange"], &[]);
    assert_eq!(instances(&err, "PushPop", "step"), Some(3), "{err}");
    assert_eq!(instances(&err, "PushPop", "mylib:capture"), Some(1), "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDevice"), Some(3), "{err}");
    // A name in another domain opens nothing.
    let (_, err) = trace("nvtx_range_window", &["--capture-range=nvtx", "--nvtx-capture=capture"], &["nvtxrange"], &[]);
    assert_eq!(summary_calls(&err, "cudaGetDevice"), None, "{err}");
    assert!(err.contains("none opened: nothing was recorded"), "{err}");
}

#[test]
fn delay_and_duration_windows() {
    // 5 cudaGetDevice at once, then 1.5 s later 3 cudaGetDeviceCount.
    let (_, err) = trace("delay_and_duration_windows", &["--delay", "0.7"], &["timed"], &[]);
    assert_eq!(summary_calls(&err, "cudaGetDevice"), None, "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDeviceCount"), Some(3), "{err}");
    let (_, err) = trace("delay_and_duration_windows", &["--duration", "0.7"], &["timed"], &[]);
    assert_eq!(summary_calls(&err, "cudaGetDevice"), Some(5), "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDeviceCount"), None, "{err}");
}

#[test]
fn signal_windows_and_the_programs_own_handler() {
    let (out, err) = trace("signal_windows_and_the_programs_own_handler", &["--capture-signal", "USR2"], &["signal"], &[]);
    assert_eq!(out, "own handler ran 2\n");
    assert_eq!(summary_calls(&err, "cudaGetDevice"), None, "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDeviceCount"), Some(3), "{err}");
    assert_eq!(summary_calls(&err, "cudaDeviceSynchronize"), None, "{err}");
}

/// The capture options' values are checked by the command before the
/// program starts (exit 2 naming the option and what is accepted), in the
/// grammar the library reads (trace_format::capture); the same value in
/// the variable is one warning, and the run goes on unwindowed.
#[test]
fn bad_capture_values_exit_2_from_the_command_and_warn_from_a_variable() {
    let exe = app("bad_capture_values");
    for (opt, val, says) in [
        ("--nvtx-capture", "@mylib", "names no range (NAME[@DOMAIN])"),
        ("--nvtx-capture", " @ 0.5", "names no range (NAME[@DOMAIN])"),
        ("--nvtx-capture", "", "names no range (NAME[@DOMAIN])"),
        ("--capture-range-end", "repeat:x", "accepted: stop (one window, the default) or repeat:N"),
    ] {
        let o = cli_on_fake().args(["trace", "--capture-range=nvtx", &format!("{opt}={val}"), "--"]).arg(&exe).arg("env").output().unwrap();
        let (out, err) = output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{opt}={val:?}: {err}");
        assert!(err.contains(&format!("for '{opt} ")) && err.contains(says), "{opt}={val:?}: {err}");
        assert_eq!(out, "", "the program did not run");
    }
    // The forms the library takes pass.
    let (_, err) = trace("bad_capture_values", &["--capture-range=nvtx", "--nvtx-capture=capture@mylib", "--capture-range-end=repeat:0"], &["nvtxrange"], &[]);
    assert_eq!(instances(&err, "PushPop", "mylib:capture"), Some(1), "{err}");
    // The variable: one warning naming it, the run unwindowed.
    let (_, err) = trace("bad_capture_values", &[], &["env"], &[("CUDART_SHIM_CAPTURE_RANGE", "nvtx"), ("CUDART_SHIM_NVTX_CAPTURE", "@mylib")]);
    assert_eq!(err.matches("CUDART_SHIM_NVTX_CAPTURE=\"@mylib\" names no range (NAME[@DOMAIN]); recording is not windowed").count(), 1, "{err}");
    assert_eq!(summary_calls(&err, "cudaGetDevice"), Some(1), "{err}");
}

#[test]
fn window_variables_are_checked() {
    let (_, err) = trace("window_variables_are_checked", &[], &["env"], &[("CUDART_SHIM_CAPTURE_RANGE", "sometimes"), ("CUDART_SHIM_DELAY", "-1")]);
    assert!(err.contains("CUDART_SHIM_CAPTURE_RANGE: ignoring \"sometimes\""), "{err}");
    assert!(err.contains("CUDART_SHIM_DELAY: ignoring \"-1\""), "{err}");
    // The run goes on, unwindowed.
    assert_eq!(summary_calls(&err, "cudaGetDevice"), Some(1), "{err}");
}

#[test]
fn a_driver_only_program_through_the_interposer_alone() {
    // The environment route, with NVTX_INJECTION64_PATH naming the driver
    // interposer: its InitializeInjectionNvtx2 forwards to the machinery
    // its driver calls go to.
    let dir = scratch("nvtx_driver");
    let drv = target_dir().join("driver/libcuda.so.1");
    let exe = dir.join("nvtx_driver");
    let o = std::process::Command::new("cc")
        .args(["-Wall", "-Werror", "-g", "-I"])
        .arg(cuda_include())
        .arg("-I")
        .arg(nvtx_include())
        .arg(repo_root().join("tests/c/nvtx_driver.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", drv.parent().unwrap().display()))
        .args(["-lcuda", "-ldl"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let f = dir.join("summary.txt");
    let _ = std::fs::remove_file(&f);
    let o = std::process::Command::new(&exe)
        .env_remove("LD_PRELOAD")
        .env("LD_LIBRARY_PATH", drv.parent().unwrap())
        .env("CUDART_SHIM_DRIVER", fake_driver())
        .env("CUDART_SHIM_TRACE", "summary")
        .env("CUDART_SHIM_TRACE_FILE", &f)
        .env("NVTX_INJECTION64_PATH", &drv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = std::fs::read_to_string(&f).unwrap();
    assert_eq!(summary_calls(&s, "cuDeviceGetCount"), Some(1), "{s}");
    assert_eq!(instances(&s, "PushPop", "driver range"), Some(1), "{s}");
}

/// The rows of table `key` in `text` as the GPU check reads them
/// (gpu/checks/nvtx/nvtx.py `table`, run by python3).
fn gpu_check_rows(text: &str, key: &str) -> Vec<Vec<String>> {
    use std::io::Write;
    let code = "import json, sys; sys.path.insert(0, sys.argv[1]); import nvtx; print(json.dumps(nvtx.table(sys.stdin.read(), sys.argv[2])))";
    let mut c = std::process::Command::new("python3")
        .args(["-c", code])
        .arg(repo_root().join("gpu/checks/nvtx"))
        .arg(key)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = c.wait_with_output().unwrap();
    assert!(o.status.success(), "python3: {}", String::from_utf8_lossy(&o.stdout));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn gpu_projection_equals_the_gpu_slices_launched_inside_each_range() {
    let dir = scratch("nvtx_gpu");
    let inc = format!("-I{}", nvtx_include().display());
    let exe = compile_cu(&[&repo_root().join("tests/cu/nvtx_gpu.cu")], &dir.join("nvtx_gpu"), &[&inc, "-ldl"]);
    let cupti = target_dir().join("libfake_cupti.so");
    // A table's rows by range name (split on whitespace).
    fn rows_of(text: &str, title: &str) -> Vec<Vec<String>> {
        let t = &text[text.find(title).unwrap_or_else(|| panic!("no {title}: {text}"))..];
        t.lines().skip(1).skip_while(|l| !l.trim_start().starts_with("---")).skip(1).take_while(|l| !l.trim().is_empty() && !l.starts_with("cudart-shim")).map(|l| l.split_whitespace().map(str::to_owned).collect()).collect()
    }
    for tl in [dir.join("tl.json"), dir.join("tl.pftrace")] {
        let _ = std::fs::remove_file(&tl);
        let o = cli_on_fake().env("CUDART_SHIM_CUPTI", &cupti).args(["trace", "--gpu", "--timeline"]).arg(&tl).arg("--").arg(&exe).args(["3", "4"]).output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{err}");
        assert_eq!(out, "nvtx_gpu done\n");
        let table = rows_of(&err, "(nvtx_gpu_proj_sum)");
        // The GPU check reads the same rows from the same output (it found
        // none on the GPU, 2026-11-28: its parser wanted a rule of 8 dashes).
        assert_eq!(gpu_check_rows(&err, "nvtx_gpu_proj_sum"), table, "gpu/checks/nvtx/nvtx.py's table():\n{err}");
        let row = |name: &str| table.iter().find(|r| r[0] == name).unwrap_or_else(|| panic!("no {name}: {table:?}")).clone();
        let (step, inner) = (row("step"), row("inner"));
        // Range, Style, Total Proj, Total Range, Instances, ..., Total GPU Ops.
        assert_eq!((step[4].as_str(), step[10].as_str()), ("3", "12"), "{table:?}");
        assert_eq!((inner[4].as_str(), inner[10].as_str()), ("3", "3"), "{table:?}");
        // `report` computes the same table from the saved timeline.
        let (again, rerr) = output_text(&cli_on_fake().arg("report").arg(&tl).output().unwrap());
        assert_eq!(rows_of(&again, "(nvtx_gpu_proj_sum)"), table, "{}: {again}{rerr}", tl.display());
        if tl.extension().is_some_and(|e| e == "pftrace") {
            continue;
        }
        // The projection of "step" from our own rows: per instance, the GPU
        // slices whose launching call lies inside it, first start to last end.
        let ev = timeline(&tl);
        let us = |e: &Value, k: &str| e[k].as_f64().unwrap_or(0.0);
        let flows: Vec<(f64, u64)> = ev.iter().filter(|e| e["ph"] == "s" && e["cat"] == "gpu_launch").map(|e| (us(e, "ts"), e["id"].as_u64().unwrap())).collect();
        let slices: Vec<&Value> = ev.iter().filter(|e| e["cat"] == "gpu_kernel").collect();
        let mut ours = 0.0;
        for r in ev.iter().filter(|e| e["cat"] == "nvtx" && e["name"] == "step") {
            let (t0, t1) = (us(r, "ts"), us(r, "ts") + us(r, "dur"));
            let ids: Vec<u64> = flows.iter().filter(|f| f.0 >= t0 && f.0 <= t1).map(|f| f.1).collect();
            let mine: Vec<&&Value> = slices.iter().filter(|s| ids.contains(&s["args"]["launch"].as_u64().unwrap_or(0))).collect();
            assert_eq!(mine.len(), 4);
            let first = mine.iter().map(|s| us(s, "ts")).fold(f64::MAX, f64::min);
            let last = mine.iter().map(|s| us(s, "ts") + us(s, "dur")).fold(0.0, f64::max);
            ours += (last - first) * 1000.0;
        }
        let theirs: f64 = step[2].parse().unwrap();
        assert!((theirs - ours).abs() <= 3.0 + ours * 0.001, "projection {theirs} ns, our GPU rows {ours} ns\n{table:?}");
    }
}

/// The same NVTX run written to JSON and to Perfetto's protobuf: the same
/// NVTX events (push/pop slices on the NVTX tracks, start/end pairs, marks)
/// with the same names and arguments (level, domain, color, payload,
/// category), read back by our reader and by Perfetto's own classes.
#[test]
fn nvtx_events_are_the_same_in_json_and_protobuf() {
    let dir = scratch("nvtx_formats");
    let mut nvtx: Vec<std::collections::BTreeMap<String, u64>> = Vec::new();
    for f in [dir.join("tl.json"), dir.join("tl.pftrace")] {
        let _ = std::fs::remove_file(&f);
        trace("formats", &["--timeline", f.to_str().unwrap()], &["basic"], &[]);
        let bytes = std::fs::read(&f).unwrap();
        let ev = if trace_format::perfetto::looks_like_protobuf(&bytes) {
            trace_format::perfetto::to_chrome(&trace_format::perfetto::packets(&bytes).unwrap())
        } else {
            timeline(&f)
        };
        let mut m = std::collections::BTreeMap::new();
        for e in ev.iter().filter(|e| e["cat"] == "nvtx") {
            *m.entry(format!("{} {} {}", e["ph"], e["name"], e["args"])).or_default() += 1;
        }
        // The NVTX tracks keep their names.
        let names = thread_names(&ev);
        assert!(names.iter().any(|(_, n)| n == "NVTX mylib main thread"), "{names:?}");
        nvtx.push(m);
    }
    assert!(nvtx[0].keys().any(|k| k.starts_with("\"X\" \"outer\"") && k.contains("#ff0000")), "{:?}", nvtx[0]);
    assert!(nvtx[0].keys().any(|k| k.starts_with("\"b\" \"handoff\"")), "{:?}", nvtx[0]);
    assert!(nvtx[0].keys().any(|k| k.starts_with("\"i\" \"tick\"")), "{:?}", nvtx[0]);
    assert_eq!(nvtx[0], nvtx[1], "JSON vs protobuf");
    // Perfetto's classes: one range per push, one mark, one start/end.
    let c = perfetto_check(&dir.join("tl.pftrace"));
    let count = |ph: &str, name: &str| nvtx[0].iter().filter(|(k, _)| k.starts_with(&format!("\"{ph}\" \"{name}\""))).map(|(_, n)| n).sum::<u64>();
    for (kind, ph, name) in [("range", "X", "outer"), ("range", "X", "inner"), ("range", "X", "registered"), ("startend", "b", "handoff"), ("mark", "i", "tick")] {
        assert_eq!(c["nvtx"][format!("{kind} {name}")].as_u64(), Some(count(ph, name)), "{kind} {name}: {c}");
    }
}
