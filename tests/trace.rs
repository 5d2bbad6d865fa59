//! Tracing over the fake driver: every mode's output for a C program with a
//! known sequence of calls, parsed and checked.

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

fn app(test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    let exe = compile_c_shim(&repo_root().join("tests/c/trace_app.c"), &dir.join("trace_app"), &["-lpthread"]);
    (dir, exe)
}

fn run_traced(exe: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut env = fake_env(&[]);
    env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let out = run(exe, args, &env);
    assert!(out.status.success(), "{} failed: {}\n{}", exe.display(), out.status, String::from_utf8_lossy(&out.stderr));
    out
}

/// Calls made by `trace_app basic` (see tests/c/trace_app.c).
const BASIC: &[(&str, u64)] = &[
    ("cudaGetDeviceCount", 2),
    ("cudaSetDevice", 3),
    ("cudaGetDeviceProperties", 1),
    ("cudaDeviceSynchronize", 3),
    ("cudaDeviceGetAttribute", 2),
    ("cudaGetLastError", 1),
];
const BASIC_ERRORS: &[(&str, &str, u64)] = &[
    ("cudaSetDevice", "cudaErrorInvalidDevice", 2),
    ("cudaGetDeviceCount", "cudaErrorInvalidValue", 1),
    ("cudaGetLastError", "cudaErrorInvalidValue", 1),
];

fn json_file(p: &Path) -> Value {
    let s = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{} is not valid JSON ({e}):\n{s}", p.display()))
}

/// Rows of a JSON summary by name, each checked for internal consistency.
fn summary_rows(j: &Value) -> HashMap<String, Value> {
    let rows = j["cuda_api_sum"].as_array().expect("cuda_api_sum");
    let mut pct = 0.0;
    let mut last_total = u64::MAX;
    let mut m = HashMap::new();
    for r in rows {
        let n = r["Num Calls"].as_u64().unwrap();
        let total = r["Total Time (ns)"].as_u64().unwrap();
        let (min, max) = (r["Min (ns)"].as_u64().unwrap(), r["Max (ns)"].as_u64().unwrap());
        let (avg, med) = (r["Avg (ns)"].as_f64().unwrap(), r["Med (ns)"].as_f64().unwrap());
        assert!(n > 0 && min > 0 && min <= max, "{r}");
        assert!(total >= min * n && total <= max * n, "{r}");
        assert!((avg * n as f64 - total as f64).abs() <= n as f64, "{r}");
        assert!(med >= min as f64 && med <= max as f64, "{r}");
        assert!(total <= last_total, "not sorted by total time: {j}");
        last_total = total;
        pct += r["Time (%)"].as_f64().unwrap();
        m.insert(r["Name"].as_str().unwrap().to_owned(), r.clone());
    }
    assert!((pct - 100.0).abs() < 0.5, "percentages sum to {pct}");
    m
}

#[test]
fn summary_json_counts_equal_the_calls_made() {
    let (dir, exe) = app("summary_json");
    let f = dir.join("summary.json");
    let _ = std::fs::remove_file(&f);
    run_traced(&exe, &["basic"], &[("CUDART_SHIM_TRACE", "1"), ("CUDART_SHIM_TRACE_FILE", f.to_str().unwrap())]);
    let j = json_file(&f);
    let rows = summary_rows(&j);
    assert_eq!(rows.len(), BASIC.len(), "{j}");
    for (name, n) in BASIC {
        assert_eq!(rows[*name]["Num Calls"], *n, "{name}: {j}");
    }
    let errs = j["errors"].as_array().unwrap();
    assert_eq!(errs.len(), BASIC_ERRORS.len(), "{j}");
    for (name, err, n) in BASIC_ERRORS {
        assert!(errs.iter().any(|e| e["Name"] == *name && e["Error"] == *err && e["Num Calls"] == *n), "{name} {err}: {j}");
    }
}

#[test]
fn summary_text_on_stderr_and_csv_file() {
    let (dir, exe) = app("summary_text");
    let out = run_traced(&exe, &["basic", "exit"], &[("CUDART_SHIM_TRACE", "summary")]);
    let err = String::from_utf8(out.stderr).unwrap();
    let header = err.lines().find(|l| l.contains("Time (%)")).expect(&err);
    let cols: Vec<&str> = header.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cols, ["Time (%)", "Total Time (ns)", "Num Calls", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"]);
    for (name, n) in BASIC {
        let line = err.lines().find(|l| l.ends_with(&format!(" {name}"))).unwrap_or_else(|| panic!("{name}:\n{err}"));
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f[2].replace(',', "").parse::<u64>().unwrap(), *n, "{line}");
    }
    assert!(err.contains("cudaErrorInvalidDevice"), "{err}");

    let csv = dir.join("s.csv");
    run_traced(&exe, &["basic"], &[("CUDART_SHIM_TRACE", "summary"), ("CUDART_SHIM_TRACE_FILE", csv.to_str().unwrap())]);
    let s = std::fs::read_to_string(&csv).unwrap();
    let mut lines = s.lines();
    assert_eq!(lines.next().unwrap(), "\"Time (%)\",\"Total Time (ns)\",\"Num Calls\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\",\"Max (ns)\",\"StdDev (ns)\",\"Name\"");
    let rows: HashMap<&str, Vec<&str>> = lines.by_ref().take_while(|l| !l.is_empty()).map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f[8], f)
    }).collect();
    for (name, n) in BASIC {
        assert_eq!(rows[name][2].parse::<u64>().unwrap(), *n, "{s}");
    }
    assert_eq!(lines.next(), Some("\"Name\",\"Error\",\"Num Calls\""));
    assert!(s.contains("cudaSetDevice,cudaErrorInvalidDevice,2"), "{s}");
}

/// `[cudart-shim] tid=T [nested=N ]name(args) = result (D ns)`
struct Line {
    tid: u64,
    nested: u32,
    name: String,
    args: String,
    result: String,
    ns: u64,
}

/// The call lines of a call-log file, after checking its process-record
/// lines (`# cudart-shim call log: ...` first, `# cudart-shim call log
/// ends: ...` last).
fn call_lines(s: &str) -> Vec<Line> {
    let all: Vec<&str> = s.lines().collect();
    assert!(all.first().is_some_and(|l| l.starts_with("# cudart-shim call log: ")), "{:?}", all.first());
    assert!(all.last().is_some_and(|l| l.starts_with("# cudart-shim call log ends: ")), "{:?}", all.last());
    all.iter().filter(|l| !l.starts_with("# cudart-shim ")).map(|l| parse_line(l)).collect()
}

fn parse_line(l: &str) -> Line {
    let rest = l.strip_prefix("[cudart-shim] tid=").unwrap_or_else(|| panic!("torn or foreign line: {l:?}"));
    let (tid, mut rest) = rest.split_once(' ').unwrap();
    let mut nested = 0;
    if let Some(r) = rest.strip_prefix("nested=") {
        let (n, r) = r.split_once(' ').unwrap();
        nested = n.parse().unwrap();
        rest = r;
    }
    let (name, rest) = rest.split_once('(').unwrap();
    let (args, rest) = rest.rsplit_once(") = ").unwrap();
    let (result, dur) = rest.split_once(" (").unwrap();
    let ns = dur.strip_suffix(" ns)").unwrap_or_else(|| panic!("{l:?}")).parse().unwrap();
    Line { tid: tid.parse().unwrap(), nested, name: name.into(), args: args.into(), result: result.into(), ns }
}

#[test]
fn call_log_decodes_arguments_results_and_durations() {
    let (dir, exe) = app("calls");
    let f = dir.join("calls.log");
    let out = run_traced(&exe, &["basic"], &[("CUDART_SHIM_TRACE", "calls"), ("CUDART_SHIM_TRACE_FILE", f.to_str().unwrap())]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("[cudart-shim]"), "calls went to stderr, not the file");
    let s = std::fs::read_to_string(&f).unwrap();
    let lines: Vec<Line> = call_lines(&s);
    assert_eq!(lines.len() as u64, BASIC.iter().map(|(_, n)| n).sum::<u64>(), "{s}");
    let names: Vec<&str> = lines.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(&names[..4], ["cudaGetDeviceCount", "cudaSetDevice", "cudaGetDeviceProperties", "cudaDeviceSynchronize"]);
    assert!(lines.iter().all(|l| l.ns > 0 && l.nested == 0 && l.tid == lines[0].tid));
    let attr = &lines[7];
    assert_eq!(attr.name, "cudaDeviceGetAttribute");
    let a: Vec<&str> = attr.args.split(", ").collect();
    assert!(a[0].starts_with("value=0x") && a[0].ends_with("->32"), "out-parameter with the value written: {}", attr.args);
    assert_eq!(&a[1..], ["attr=cudaDevAttrWarpSize", "device=0"]);
    assert_eq!(attr.result, "cudaSuccess");
    assert!(lines[0].args.starts_with("count=0x") && lines[0].args.ends_with("->1"), "{}", lines[0].args);
    assert_eq!((lines[8].args.as_str(), lines[8].result.as_str()), ("device=99", "cudaErrorInvalidDevice"));
    assert_eq!((lines[10].args.as_str(), lines[10].result.as_str()), ("count=0x0", "cudaErrorInvalidValue"));
    assert_eq!((lines[11].name.as_str(), lines[11].result.as_str()), ("cudaGetLastError", "cudaErrorInvalidValue"));
}

/// Complete events of a timeline, checked: valid JSON, metadata present,
/// durations positive, events of one thread in order and not overlapping.
fn timeline_events(p: &Path) -> Vec<Value> {
    let j = json_file(p);
    let ev = j["traceEvents"].as_array().expect("traceEvents").clone();
    assert!(ev.iter().any(|e| e["ph"] == "M" && e["name"] == "process_name"), "no process name");
    let calls: Vec<Value> = ev.iter().filter(|e| e["ph"] == "X").cloned().collect();
    let mut by_tid: HashMap<u64, Vec<&Value>> = HashMap::new();
    for e in &calls {
        assert!(e["dur"].as_f64().unwrap() > 0.0, "{e}");
        assert!(e["args"]["result"].as_str().unwrap().starts_with("cuda"), "{e}");
        by_tid.entry(e["tid"].as_u64().unwrap()).or_default().push(e);
    }
    for (tid, evs) in &mut by_tid {
        assert!(ev.iter().any(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["tid"] == *tid), "no name for thread {tid}");
        evs.sort_by(|a, b| a["ts"].as_f64().unwrap().total_cmp(&b["ts"].as_f64().unwrap()));
        for w in evs.windows(2) {
            let end = w[0]["ts"].as_f64().unwrap() + w[0]["dur"].as_f64().unwrap();
            assert!(end <= w[1]["ts"].as_f64().unwrap() + 0.002, "overlap on thread {tid}: {} {}", w[0], w[1]);
        }
    }
    calls
}

#[test]
fn timeline_is_valid_json_at_return_exit_and_after_reset() {
    let (dir, exe) = app("timeline_endings");
    for ending in ["return", "exit", "reset"] {
        let f = dir.join(format!("t-{ending}.json"));
        let _ = std::fs::remove_file(&f);
        run_traced(&exe, &["basic", ending], &[("CUDART_SHIM_TRACE", "timeline"), ("CUDART_SHIM_TRACE_FILE", f.to_str().unwrap())]);
        let calls = timeline_events(&f);
        let extra = if ending == "reset" { 2 } else { 0 };
        assert_eq!(calls.len() as u64, BASIC.iter().map(|(_, n)| n).sum::<u64>() + extra, "{ending}");
        let attr = calls.iter().find(|e| e["name"] == "cudaDeviceGetAttribute").unwrap();
        assert_eq!(attr["args"]["attr"], "cudaDevAttrMultiProcessorCount");
        assert_eq!(attr["args"]["device"], "0");
        assert!(attr["cat"] == "cuda_api" && attr["args"]["depth"] == 0);
        let failed = calls.iter().filter(|e| e["args"]["result"] == "cudaErrorInvalidDevice").count();
        assert_eq!(failed, 2);
        if ending == "reset" {
            assert!(calls.iter().any(|e| e["name"] == "cudaDeviceReset"));
        }
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o600);
    }
}

#[test]
fn filter_includes_and_excludes_by_glob() {
    let (dir, exe) = app("filter");
    let f = dir.join("f.json");
    run_traced(
        &exe,
        &["basic"],
        &[
            ("CUDART_SHIM_TRACE", "summary"),
            ("CUDART_SHIM_TRACE_FILE", f.to_str().unwrap()),
            ("CUDART_SHIM_TRACE_FILTER", "cudaSetDevice,cudaDevice*,-cudaDeviceSynchronize"),
        ],
    );
    let rows = summary_rows(&json_file(&f));
    let mut names: Vec<&str> = rows.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, ["cudaDeviceGetAttribute", "cudaSetDevice"]);
    assert_eq!(rows["cudaSetDevice"]["Num Calls"], 3);
}

#[test]
fn pid_and_rank_expand_in_file_names() {
    let (dir, exe) = app("expand");
    for (var, rank) in [("RANK", "5"), ("LOCAL_RANK", "3")] {
        let mut env = fake_env(&[]);
        env.push(("CUDART_SHIM_TRACE".into(), "summary".into()));
        env.push(("CUDART_SHIM_TRACE_FILE".into(), dir.join("s-%p-%r.json").display().to_string()));
        env.push((var.into(), rank.into()));
        let child = std::process::Command::new(&exe)
            .arg("basic")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env_remove(if var == "RANK" { "LOCAL_RANK" } else { "RANK" })
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        assert!(child.wait_with_output().unwrap().status.success());
        let f = dir.join(format!("s-{pid}-{rank}.json"));
        assert_eq!(summary_rows(&json_file(&f))["cudaSetDevice"]["Num Calls"], 3);
    }
}

#[test]
fn sixteen_threads_exact_counts_and_whole_lines() {
    let (dir, exe) = app("threads");
    let (calls, summary, tl) = (dir.join("calls.log"), dir.join("sum.json"), dir.join("tl.json"));
    let per = 2500u64;
    run_traced(
        &exe,
        &["threads", "16", &per.to_string()],
        &[
            ("CUDART_SHIM_TRACE", "summary,calls,timeline"),
            ("CUDART_SHIM_TRACE_CALLS_FILE", calls.to_str().unwrap()),
            ("CUDART_SHIM_TRACE_SUMMARY_FILE", summary.to_str().unwrap()),
            ("CUDART_SHIM_TRACE_TIMELINE_FILE", tl.to_str().unwrap()),
        ],
    );
    let rows = summary_rows(&json_file(&summary));
    assert_eq!(rows["cudaGetDevice"]["Num Calls"], 16 * per);
    let s = std::fs::read_to_string(&calls).unwrap();
    let lines: Vec<Line> = call_lines(&s);
    assert_eq!(lines.len() as u64, 16 * per);
    let mut per_tid: HashMap<u64, u64> = HashMap::new();
    for l in &lines {
        assert!(l.name == "cudaGetDevice" && l.result == "cudaSuccess" && l.args.ends_with("->0"), "{}", l.args);
        *per_tid.entry(l.tid).or_default() += 1;
    }
    assert_eq!(per_tid.len(), 16);
    assert!(per_tid.values().all(|&n| n == per));
    // 40000 events pass through many chunks and the writer thread.
    let ev = timeline_events(&tl);
    assert_eq!(ev.len() as u64, 16 * per);
    let tids: std::collections::HashSet<u64> = ev.iter().map(|e| e["tid"].as_u64().unwrap()).collect();
    assert_eq!(tids.len(), 16);
}

#[test]
fn bad_values_warn_and_the_program_runs() {
    let (_dir, exe) = app("bad_values");
    let out = run_traced(
        &exe,
        &["basic"],
        &[("CUDART_SHIM_TRACE", "summary,everything"), ("CUDART_SHIM_TRACE_FILTER", "cuda Get"), ("CUDART_SHIM_TRACE_DRIVER", "maybe")],
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("CUDART_SHIM_TRACE: ignoring \"everything\"") && err.contains("summary, calls, timeline"), "{err}");
    assert!(err.contains("CUDART_SHIM_TRACE_FILTER: ignoring"), "{err}");
    assert!(err.contains("CUDART_SHIM_TRACE_DRIVER: ignoring"), "{err}");
    assert!(err.contains("Num Calls"), "summary still on: {err}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "devices 1 warp 32\n");
}

#[test]
fn trace_files_never_follow_a_planted_symlink() {
    let (dir, exe) = app("symlink");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let link = dir.join("trace.json");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let out = run_traced(&exe, &["basic"], &[("CUDART_SHIM_TRACE", "timeline"), ("CUDART_SHIM_TRACE_FILE", link.to_str().unwrap())]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot create the timeline file"));
}

#[test]
fn tracing_off_writes_nothing() {
    let (_dir, exe) = app("off");
    for v in ["0", ""] {
        let out = run_traced(&exe, &["basic"], &[("CUDART_SHIM_TRACE", v)]);
        assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    }
}

#[test]
fn subscriber_api_from_c() {
    let dir = scratch("subscriber");
    let exe = compile_c_shim(&repo_root().join("tests/c/trace_subscriber.c"), &dir.join("trace_subscriber"), &[]);
    let out = run_on_fake(&exe, &[], &[]);
    let want_attr = "exit cudaDeviceGetAttribute depth=0 result=0 dur_positive=1 args: value=0x";
    let l = out.lines().find(|l| l.starts_with(want_attr)).unwrap_or_else(|| panic!("{out}"));
    assert!(l.ends_with("->32 attr=cudaDevAttrWarpSize device=0"), "{l}");
    // cudaGetDeviceCount, cudaDeviceGetAttribute, cudaSetDevice(42); the
    // cudaGetDevice made by the exit callback is not delivered, but counted.
    assert!(out.contains("enters=3 exits=3 nested=0 failed=1\n"), "{out}");
    assert!(out.contains("counter cudaGetDevice calls=1 failed=0\n"), "{out}");
    assert!(out.contains("counter cudaSetDevice calls=1 failed=1 total_positive=1\n"), "{out}");
    // The shim's own calls (cudartShim*) are neither counted nor delivered.
    assert!(out.contains("functions=4 calls=4\n"), "{out}");
    assert!(out.contains("after unsubscribe enters=3\n"), "{out}");
    assert!(out.contains("after reset calls=0\n"), "{out}");
    assert!(out.contains("counting calls=5\n"), "{out}");
}

/// Callbacks that call the runtime (cudaGetErrorName from on_exit used to
/// recurse until the stack overflowed): those calls are answered and
/// counted, never delivered again, and the program ends with exit 0, over
/// the fake driver and with no driver at all.
#[test]
fn subscriber_callbacks_that_call_the_runtime_end_normally() {
    let dir = scratch("subscriber_reentry");
    let exe = compile_c_shim(&repo_root().join("tests/c/subscriber_reentry.c"), &dir.join("subscriber_reentry"), &[]);
    let no_driver = [
        ("CUDART_SHIM_DRIVER".to_owned(), "/nonexistent/libcuda.so.1".to_owned()),
        ("CUDART_SHIM_LOG".to_owned(), "off".to_owned()),
    ];
    for (what, env, count) in [("fake driver", fake_env(&[]), "cudaSuccess"), ("no driver", no_driver.to_vec(), "cudaErrorInsufficientDriver")] {
        let out = run(&exe, &[], &env);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{what}: {}\n{text}{}", out.status, String::from_utf8_lossy(&out.stderr));
        assert!(!text.contains("REDELIVERED") && !text.contains("bad") && !text.contains("failed"), "{what}: {text}");
        assert!(text.contains(&format!("cudaGetDeviceCount: {count}\n")), "{what}: {text}");
        // cudaGetDeviceCount, cudaGetErrorName, cudaSetDevice: 3 calls, each
        // callback making 6 runtime calls that are counted but not delivered.
        assert!(text.contains("enters=3 exits=3 deepest=0 inner=36\n"), "{what}: {text}");
        assert!(text.contains("counted cudaGetErrorName=7\n"), "{what}: {text}");
        assert!(text.contains("counted cudaGetDevice=6\n"), "{what}: {text}");
    }
}

#[test]
fn nested_calls_are_marked_in_the_call_log_and_timeline() {
    // trace_subscriber calls cudaGetDevice from inside the exit callback of
    // cudaDeviceGetAttribute: a call made while another call runs.
    let dir = scratch("nested");
    let exe = compile_c_shim(&repo_root().join("tests/c/trace_subscriber.c"), &dir.join("trace_subscriber"), &[]);
    let (calls, tl) = (dir.join("calls.log"), dir.join("tl.json"));
    run_traced(
        &exe,
        &[],
        &[
            ("CUDART_SHIM_TRACE", "calls,timeline"),
            ("CUDART_SHIM_TRACE_CALLS_FILE", calls.to_str().unwrap()),
            ("CUDART_SHIM_TRACE_TIMELINE_FILE", tl.to_str().unwrap()),
        ],
    );
    let s = std::fs::read_to_string(&calls).unwrap();
    let lines: Vec<Line> = call_lines(&s);
    let nested: Vec<&Line> = lines.iter().filter(|l| l.nested > 0).collect();
    assert_eq!(nested.len(), 1, "{s}");
    assert_eq!((nested[0].name.as_str(), nested[0].nested), ("cudaGetDevice", 1));
    assert!(nested[0].args.starts_with("device=0x") && nested[0].args.ends_with("->0"), "{}", nested[0].args);
    // Exit callbacks run after the call is logged: the nested call follows it.
    let i = lines.iter().position(|l| l.nested > 0).unwrap();
    assert_eq!(lines[i - 1].name, "cudaDeviceGetAttribute");
    let ev = timeline_events(&tl);
    let n: Vec<&Value> = ev.iter().filter(|e| e["args"]["depth"] == 1).collect();
    assert_eq!(n.len(), 1);
    assert_eq!(n[0]["name"], "cudaGetDevice");
}

#[test]
fn calls_during_thread_and_process_teardown_are_answered_and_counted() {
    // 8 threads call once each and once more from a pthread key destructor
    // (which runs after the thread's Rust thread-locals are destroyed);
    // main calls once more from an atexit handler (before the final flush).
    let (dir, exe) = app("teardown");
    let (summary, tl) = (dir.join("sum.json"), dir.join("tl.json"));
    let out = run_traced(
        &exe,
        &["teardown", "8"],
        &[
            ("CUDART_SHIM_TRACE", "summary,timeline"),
            ("CUDART_SHIM_TRACE_SUMMARY_FILE", summary.to_str().unwrap()),
            ("CUDART_SHIM_TRACE_TIMELINE_FILE", tl.to_str().unwrap()),
        ],
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "teardown done\n");
    let rows = summary_rows(&json_file(&summary));
    assert_eq!(rows["cudaGetDevice"]["Num Calls"], 17);
    let ev = timeline_events(&tl);
    assert_eq!(ev.iter().filter(|e| e["name"] == "cudaGetDevice").count(), 17);
    // Each worker's two calls (the second made during its teardown) are on
    // its own track.
    let mut per_tid: HashMap<u64, usize> = HashMap::new();
    for e in &ev {
        *per_tid.entry(e["tid"].as_u64().unwrap()).or_default() += 1;
    }
    assert_eq!(per_tid.values().filter(|&&n| n == 2).count(), 8, "{per_tid:?}");
}

#[test]
fn a_forked_worker_that_calls_nothing_leaves_the_summary_alone() {
    let (dir, exe) = app("fork");
    let f = dir.join("s.json");
    let _ = std::fs::remove_file(&f);
    let out = run_traced(&exe, &["basic", "fork"], &[("CUDART_SHIM_TRACE", "summary,timeline"), ("CUDART_SHIM_TRACE_SUMMARY_FILE", f.to_str().unwrap()), ("CUDART_SHIM_TRACE_TIMELINE_FILE", dir.join("t.json").to_str().unwrap())]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "devices 1 warp 32\n");
    let rows = summary_rows(&json_file(&f));
    for (name, n) in BASIC {
        assert_eq!(rows[*name]["Num Calls"], *n, "{name}");
    }
    assert_eq!(timeline_events(&dir.join("t.json")).len() as u64, BASIC.iter().map(|(_, n)| n).sum::<u64>());
    // On stderr: one table (the parent's), none from the child.
    let out = run_traced(&exe, &["basic", "fork"], &[("CUDART_SHIM_TRACE", "summary")]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.matches("Time (%)").count(), 1, "{err}");
}

/// Calls made from a library constructor under dlopen hold the loader's
/// lock, which the timeline writer thread needs to start: the timeline must
/// neither wait forever (this deadlocked PyTorch's import on a GPU before
/// the wait was bounded) nor lose the calls.
#[test]
fn timeline_never_deadlocks_calls_made_under_the_loader_lock() {
    let dir = scratch("trace-dlopen");
    let t = target_dir();
    let lib = dir.join("libctor.so");
    let o = std::process::Command::new("cc")
        .args(["-shared", "-fPIC"])
        .arg(repo_root().join("tests/c/trace_ctor_lib.c"))
        .arg("-o")
        .arg(&lib)
        .arg(format!("-L{}", t.display()))
        .arg("-lcudart_shim")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let exe = dir.join("dlopen");
    let o = std::process::Command::new("cc").arg(repo_root().join("tests/c/trace_dlopen.c")).arg("-o").arg(&exe).arg("-ldl").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let trace = dir.join("tl-%p.json");
    // Only this run's trace may be found below.
    for old in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
        if old.file_name().unwrap().to_str().unwrap().starts_with("tl-") {
            std::fs::remove_file(old).unwrap();
        }
    }
    let mut env = fake_env(&[]);
    env.push(("LD_PRELOAD".into(), shim_lib().display().to_string()));
    env.push(("CUDART_SHIM_TRACE".into(), "timeline".into()));
    env.push(("CUDART_SHIM_TRACE_FILE".into(), trace.display().to_string()));
    // Registration only: counted, not written; the process writes no file.
    let out = run(&exe, &[lib.to_str().unwrap()], &env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files = || std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("tl-")).count();
    assert_eq!(files(), 0, "a process that only registered kernels writes no timeline");
    // Registration kept on the timeline: 200k events from the constructor.
    env.push(("CUDART_SHIM_TRACE_REGISTRATION".into(), "1".into()));
    let out = run(&exe, &[lib.to_str().unwrap()], &env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "dlopen ok\n");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with("tl-"))
        .expect("a timeline file");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).expect("valid JSON");
    let events = v["traceEvents"].as_array().unwrap();
    let calls = events.iter().filter(|e| e["name"] == "__cudaRegisterFunction").count();
    let label = events.iter().find(|e| e["name"] == "process_labels").map(|e| e["args"]["labels"].as_str().unwrap().to_owned());
    // The writer thread cannot run while the constructor holds the loader
    // lock: after a bounded wait the calling thread writes the full
    // buffers itself, so all 200k calls are kept (dropping them instead
    // lost thousands of PyTorch's import-time calls on an H100).
    assert_eq!((calls, label), (200_000, None));
}

#[test]
fn sampled_summary_counts_every_call_and_every_failure() {
    let (dir, exe) = app("sampled");
    let summary = dir.join("sum.json");
    let per = 2500u64;
    run_traced(
        &exe,
        &["threads", "16", &per.to_string()],
        &[("CUDART_SHIM_TRACE", "summary"), ("CUDART_SHIM_TRACE_SAMPLE", "7"), ("CUDART_SHIM_TRACE_FILE", summary.to_str().unwrap())],
    );
    let j = json_file(&summary);
    assert_eq!(j["timed_one_call_in"], 7, "{j}");
    // Counts are exact; the total is an estimate within [min, max] x calls
    // (summary_rows checks it).
    assert_eq!(summary_rows(&j)["cudaGetDevice"]["Num Calls"], 16 * per);

    // Failures are counted whether or not their call was timed.
    let text = run_traced(&exe, &["basic"], &[("CUDART_SHIM_TRACE", "summary"), ("CUDART_SHIM_TRACE_SAMPLE", "2")]);
    let err = String::from_utf8_lossy(&text.stderr);
    assert!(err.contains("Sampled (CUDART_SHIM_TRACE_SAMPLE=2)"), "{err}");
    for (name, error, n) in BASIC_ERRORS {
        let line = err.lines().find(|l| l.contains(name) && l.contains(error)).unwrap_or_else(|| panic!("{name} {error}:\n{err}"));
        assert_eq!(line.split_whitespace().next(), Some(n.to_string().as_str()), "{line}");
    }
    for (name, n) in BASIC {
        let line = err.lines().find(|l| l.ends_with(&format!(" {name}"))).unwrap_or_else(|| panic!("{name}:\n{err}"));
        assert!(line.split_whitespace().nth(2) == Some(n.to_string().as_str()), "{name}: {line}");
    }
}
