//! The timeline in Perfetto's protobuf format (`*.pftrace`) against the
//! JSON timeline of the same run: the same events, parsed by Perfetto's own
//! classes, complete after a flush and after a kill, bounded by
//! `--max-size` (stop, or `--ring`), read by `report` and `--merge`;
//! no call lost when threads end during the exit flush.

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

fn app(test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    let exe = compile_c_shim(&repo_root().join("tests/c/perfetto_app.c"), &dir.join("perfetto_app"), &["-lpthread"]);
    (dir, exe)
}

fn traced(exe: &Path, args: &[&str], file: &Path, vars: &[(&str, &str)]) -> Output {
    let _ = std::fs::remove_file(file);
    let mut env = fake_env(&[]);
    env.push(("CUDART_SHIM_TRACE".into(), "timeline".into()));
    env.push(("CUDART_SHIM_TRACE_TIMELINE_FILE".into(), file.display().to_string()));
    env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let out = run(exe, args, &env);
    assert!(out.status.success(), "{} failed: {}\n{}", exe.display(), out.status, String::from_utf8_lossy(&out.stderr));
    out
}

/// A timeline's events as Chrome trace events, whatever its format.
fn events(file: &Path) -> Vec<Value> {
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    if trace_format::perfetto::looks_like_protobuf(&bytes) {
        trace_format::perfetto::to_chrome(&trace_format::perfetto::packets(&bytes).unwrap())
    } else {
        let j: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} is not valid JSON ({e})", file.display()));
        j["traceEvents"].as_array().unwrap().clone()
    }
}

/// Each call (name, result, depth, arguments) with its count; addresses
/// (which differ from run to run) as `0x`.
fn calls(events: &[Value]) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "cuda_api") {
        let mut args: Vec<(String, String)> = e["args"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), if v.to_string().contains("0x") { "0x".to_owned() } else { v.to_string() }))
            .collect();
        args.sort();
        *m.entry(format!("{} {:?}", e["name"], args)).or_default() += 1;
    }
    m
}

fn count(events: &[Value], ph: &str) -> usize {
    events.iter().filter(|e| e["ph"] == ph).count()
}

#[test]
fn protobuf_holds_every_json_event_and_perfettos_classes_parse_it() {
    let (dir, exe) = app("perfetto_same_events");
    let (j, p) = (dir.join("t.json"), dir.join("t.pftrace"));
    traced(&exe, &["mix", "200"], &j, &[]);
    traced(&exe, &["mix", "200"], &p, &[]);
    let (je, pe) = (events(&j), events(&p));
    // Every call, with its result, depth and every argument's text.
    let (jc, pc) = (calls(&je), calls(&pe));
    assert_eq!(jc.values().sum::<u64>(), 2 * 200 * 10);
    assert_eq!(jc.keys().collect::<Vec<_>>(), pc.keys().collect::<Vec<_>>(), "the calls differ");
    // Pointers and stream handles differ between runs: compare counts by
    // name and result, and the full argument text where it is stable.
    let by = |e: &[Value], key: &dyn Fn(&Value) -> String| {
        let mut m: BTreeMap<String, u64> = BTreeMap::new();
        for x in e.iter().filter(|x| x["ph"] == "X") {
            *m.entry(key(x)).or_default() += 1;
        }
        m
    };
    let name_result = |x: &Value| format!("{} {} {}", x["name"], x["args"]["result"], x["args"]["depth"]);
    assert_eq!(by(&je, &name_result), by(&pe, &name_result));
    let memcpy = |e: &[Value]| e.iter().find(|x| x["name"] == "cudaMemcpy").unwrap()["args"]["kind"].clone();
    assert_eq!(memcpy(&je), memcpy(&pe));
    assert_eq!(memcpy(&pe), "cudaMemcpyHostToDevice");
    assert_eq!(count(&je, "C"), count(&pe, "C"), "memory counter samples");
    assert_eq!(count(&je, "C"), 2 * 200 * 2);
    // The ledger's memory events: an instant per allocation and free (size,
    // kind, device, library) and the counter of its device and kind.
    let memory = |e: &[Value]| {
        let mut m: BTreeMap<String, u64> = BTreeMap::new();
        for x in e.iter().filter(|x| x["cat"] == "memory") {
            *m.entry(format!("{} {} {}", x["ph"], x["name"], if x["ph"] == "i" { x["args"].to_string() } else { String::new() })).or_default() += 1;
        }
        m
    };
    assert_eq!(memory(&je), memory(&pe));
    let alloc = r#""i" "alloc" {"bytes":65536,"device":0,"kind":"device","library":"perfetto_app"}"#;
    assert_eq!(memory(&je).get(alloc), Some(&400), "{:?}", memory(&je));
    assert!(pe.iter().any(|x| x["ph"] == "C" && x["name"] == "GPU 0 device memory (bytes)"));
    let threads = |e: &[Value]| e.iter().filter(|x| x["name"] == "thread_name").count();
    assert_eq!(threads(&je), threads(&pe));
    // The same from Perfetto's own generated classes.
    let c = perfetto_check(&p);
    assert_eq!(c["calls"].as_u64(), Some(2 * 200 * 10));
    assert_eq!(c["counters"].as_u64(), Some(2 * 200 * 2));
    assert_eq!(c["names"]["cudaMalloc"].as_u64(), Some(400));
    assert_eq!(c["results"]["cudaErrorInvalidDevice"].as_u64(), Some(800), "{c}");
    assert_eq!((c["memory"]["alloc"].as_u64(), c["memory"]["free"].as_u64()), (Some(400), Some(400)), "{c}");
    // Bytes per event (calls and counter samples), both formats.
    let n = (count(&je, "X") + count(&je, "C")) as f64;
    let (jb, pb) = (std::fs::metadata(&j).unwrap().len() as f64, std::fs::metadata(&p).unwrap().len() as f64);
    println!("timeline size over {n} events: JSON {:.1} B/event, protobuf {:.1} B/event ({:.1}x smaller)", jb / n, pb / n, jb / pb);
    assert!(pb / n < jb / n / 3.0, "protobuf {pb} B vs JSON {jb} B");
}

#[test]
fn protobuf_is_complete_after_a_flush_and_after_a_kill() {
    let (dir, exe) = app("perfetto_kill");
    let p = dir.join("k.pftrace");
    let _ = std::fs::remove_file(&p);
    let mut env = fake_env(&[]);
    env.push(("CUDART_SHIM_TRACE".into(), "timeline".into()));
    env.push(("CUDART_SHIM_TRACE_TIMELINE_FILE".into(), p.display().to_string()));
    let mut child = std::process::Command::new(&exe)
        .args(["hang", "300"])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "flushed");
    // After the flush: every call of the two threads is there.
    let flushed = calls(&events(&p)).values().sum::<u64>();
    assert_eq!(flushed, 2 * 300 * 10);
    // Killed while it runs on (the writer thread may be mid-batch): every
    // packet in the file is whole, and Perfetto's classes parse it.
    std::thread::sleep(std::time::Duration::from_millis(50));
    child.kill().unwrap();
    child.wait().unwrap();
    let after = events(&p);
    assert!(calls(&after).values().sum::<u64>() >= flushed);
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(trace_format::perfetto::packets(&bytes).unwrap().len() as u64, perfetto_check(&p)["packets"].as_u64().unwrap());
}

#[test]
fn max_size_stops_with_a_marker_and_the_summary_stays_exact() {
    let (dir, exe) = app("perfetto_max_size");
    for ext in ["json", "pftrace"] {
        let f = dir.join(format!("m.{ext}"));
        let s = dir.join(format!("m-{ext}-summary.json"));
        let vars = [("CUDART_SHIM_TRACE", "summary,timeline"), ("CUDART_SHIM_TRACE_SUMMARY_FILE", s.to_str().unwrap()), ("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE", "64K")];
        let out = traced(&exe, &["mix", "2000"], &f, &vars);
        let size = std::fs::metadata(&f).unwrap().len();
        // The limit, plus the marker and the last process record.
        assert!(size <= 64 * 1024 + 2048, "{ext}: {size} bytes");
        let ev = events(&f);
        let kept = calls(&ev).values().sum::<u64>();
        assert!(kept > 100 && kept < 2 * 2000 * 10, "{ext}: {kept} calls kept");
        let marker = |e: &&Value| e["name"].as_str().is_some_and(|n| n.contains("size limit")) || e["args"]["labels"].as_str().is_some_and(|n| n.contains("size limit"));
        assert_eq!(ev.iter().filter(marker).count(), 1, "{ext}: one marker");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().filter(|l| l.contains("size limit")).count(), 1, "{ext}: one line\n{err}");
        // The summary counts every call.
        let sum: Value = serde_json::from_str(&std::fs::read_to_string(&s).unwrap()).unwrap();
        let row = sum["cuda_api_sum"].as_array().unwrap().iter().find(|r| r["Name"] == "cudaMalloc").unwrap().clone();
        assert_eq!(row["Num Calls"], 4000, "{ext}");
    }
}

#[test]
fn ring_keeps_the_newest_events_within_the_size() {
    let (dir, exe) = app("perfetto_ring");
    for ext in ["json", "pftrace"] {
        let f = dir.join(format!("r.{ext}"));
        traced(&exe, &["mix", "2000"], &f, &[("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE", "64K"), ("CUDART_SHIM_TRACE_TIMELINE_RING", "1")]);
        let size = std::fs::metadata(&f).unwrap().len();
        assert!(size <= 64 * 1024 + 2048, "{ext}: {size} bytes");
        let ev = events(&f);
        let marker = ev
            .iter()
            .flat_map(|e| [e["name"].as_str(), e["args"]["labels"].as_str()])
            .flatten()
            .find(|n| n.contains("older events dropped"))
            .unwrap_or_else(|| panic!("{ext}: no ring marker"))
            .to_owned();
        let dropped: u64 = marker.split("bytes: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        // Kept and dropped add up to every event (calls and counter samples).
        let kept = (count(&ev, "X") + count(&ev, "C")) as u64;
        assert_eq!(kept + dropped, 2 * 2000 * 12, "{ext}: {kept} kept, {dropped} dropped");
        // The newest: the program's last calls are in the window.
        let last_ts = ev.iter().filter(|e| e["ph"] == "X").map(|e| e["ts"].as_f64().unwrap()).fold(0.0, f64::max);
        let first_ts = ev.iter().filter(|e| e["ph"] == "X").map(|e| e["ts"].as_f64().unwrap()).fold(f64::MAX, f64::min);
        assert!(first_ts > 0.0 && last_ts > first_ts);
        if ext == "pftrace" {
            assert_eq!(perfetto_check(&f)["calls"].as_u64(), Some(count(&ev, "X") as u64));
        }
    }
}

#[test]
fn report_and_merge_read_and_write_both_formats() {
    let (dir, exe) = app("perfetto_report");
    let (j, p) = (dir.join("a.json"), dir.join("b.pftrace"));
    traced(&exe, &["mix", "20"], &j, &[]);
    traced(&exe, &["mix", "20"], &p, &[]);
    let mut reports = Vec::new();
    for f in [&j, &p] {
        let o = cli_on_fake().arg("report").arg(f).output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{err}");
        assert_eq!(summary_calls(&out, "cudaMalloc"), Some(40), "{}:\n{out}", f.display());
        assert_eq!(summary_calls(&out, "cudaSetDevice"), Some(40));
        reports.push(out);
    }
    // The same tables from both formats: headings, rows, call counts and
    // errors (two runs: times, their order and the process line differ;
    // the same events give the same report exactly: the timeline's unit
    // test both_writers_give_the_same_events).
    let shape = |r: &str| {
        let mut rows: Vec<String> = r
            .lines()
            .filter(|l| !l.trim_start().starts_with("Process:") && !l.trim_start().starts_with("---"))
            .map(|l| {
                let cols: Vec<&str> = l.split_whitespace().collect();
                // A timed row (it starts with the time's share): keep
                // the count and the name (and style); other rows and
                // headings whole.
                if cols.len() >= 9 && cols[0].contains('.') && cols[0].parse::<f64>().is_ok() {
                    format!("{} {}", cols[2], cols[8..].join(" "))
                } else {
                    cols.join(" ")
                }
            })
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(shape(&reports[0]), shape(&reports[1]), "report from JSON:\n{}\nfrom protobuf:\n{}", reports[0], reports[1]);
    for out in ["all.json", "all.pftrace"] {
        let m = dir.join(out);
        let o = cli_on_fake().arg("report").arg(&j).arg(&p).arg("--merge").arg(&m).output().unwrap();
        assert!(o.status.success(), "{}", output_text(&o).1);
        let ev = events(&m);
        assert_eq!(calls(&ev).values().sum::<u64>(), 2 * 2 * 20 * 10, "{out}");
        let pids: std::collections::BTreeSet<u64> = ev.iter().filter(|e| e["ph"] == "X").map(|e| e["pid"].as_u64().unwrap()).collect();
        assert_eq!(pids.len(), 2, "{out}: one process per file");
        let o = cli_on_fake().arg("report").arg(&m).output().unwrap();
        assert_eq!(summary_calls(&output_text(&o).0, "cudaMalloc"), Some(80), "{out}");
    }
    assert_eq!(perfetto_check(&dir.join("all.pftrace"))["calls"].as_u64(), Some(800));
}

/// The size figure (docs/PERFORMANCE.md, docs/TIMELINE.md): bytes per call
/// event of the protobuf timeline on a framework-like mix of short calls
/// with 0 to 5 arguments, their driver calls nested under them (traced
/// through the interposer by `cudart-shim trace`), and allocations; the
/// same run's JSON for comparison. Printed (`--no-capture`), not a target
/// checked here.
#[test]
fn bytes_per_call_event_on_a_step_mix() {
    let (dir, exe) = app("perfetto_size");
    let mut figures = Vec::new();
    for ext in ["json", "pftrace"] {
        let f = dir.join(format!("s.{ext}"));
        let _ = std::fs::remove_file(&f);
        let o = cli_on_fake().args(["trace", "--timeline", f.to_str().unwrap(), "--"]).arg(&exe).args(["steps", "400"]).output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        let ev = events(&f);
        let calls = count(&ev, "X") as u64 - ev.iter().filter(|e| e["cat"] == "nvtx").count() as u64;
        let nested = ev.iter().filter(|e| e["ph"] == "X" && e["args"]["depth"].as_u64().unwrap_or(0) > 0).count();
        assert!(nested as u64 > calls / 4, "{ext}: driver calls nest under the runtime's ({nested} of {calls})");
        figures.push((calls, std::fs::metadata(&f).unwrap().len(), ev));
    }
    let (jcalls, jbytes, _) = &figures[0];
    let c = perfetto_check(&dir.join("s.pftrace"));
    assert_eq!(c["calls"].as_u64(), Some(figures[1].0));
    let per_call = c["call_bytes"].as_f64().unwrap() / c["calls"].as_f64().unwrap();
    let pb_all = figures[1].1 as f64 / figures[1].0 as f64;
    println!(
        "timeline size, step mix ({} calls, {} nested): protobuf {per_call:.1} B per call event (begin + end packets and what they intern), whole file {pb_all:.1} B per call; JSON {:.1} B per call",
        figures[1].0,
        figures[1].2.iter().filter(|e| e["ph"] == "X" && e["args"]["depth"].as_u64().unwrap_or(0) > 0).count(),
        *jbytes as f64 / *jcalls as f64
    );
    assert!(per_call < *jbytes as f64 / *jcalls as f64 / 3.0);
}

/// A driver-API program (no runtime: the interposer alone reports its
/// calls): its `cuMemAlloc`/`cuMemFree` reach the timeline through the
/// ledger as they do from the runtime, the same in both formats.
#[test]
fn driver_allocations_through_the_interposer_in_both_formats() {
    let dir = scratch("perfetto_driver_memory");
    let exe = dir.join("driver_api");
    let interposer = target_dir().join("driver/libcuda.so.1");
    let o = std::process::Command::new("cc")
        .args(["-Wall", "-Werror", "-g", "-I"])
        .arg(cuda_include())
        .arg(repo_root().join("tests/c/driver_api.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", interposer.parent().unwrap().display()))
        .arg("-lcuda")
        .output()
        .unwrap();
    assert!(o.status.success(), "cc driver_api.c: {}", String::from_utf8_lossy(&o.stderr));
    let mut seen = Vec::new();
    for ext in ["json", "pftrace"] {
        let f = dir.join(format!("d.{ext}"));
        let _ = std::fs::remove_file(&f);
        let o = cli_on_fake().args(["trace", "--timeline", f.to_str().unwrap(), "--"]).arg(&exe).output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        let ev = events(&f);
        let mem: Vec<String> = ev
            .iter()
            .filter(|e| e["cat"] == "memory")
            .map(|e| format!("{} {} {}", e["ph"], e["name"], if e["ph"] == "i" { e["args"].to_string() } else { e["args"]["bytes"].to_string() }))
            .collect();
        seen.push(mem);
    }
    let alloc = r#""i" "alloc" {"bytes":1048576,"device":0,"kind":"device","library":"driver_api"}"#;
    assert!(seen[0].iter().any(|m| m == alloc), "{:?}", seen[0]);
    assert!(seen[0].iter().any(|m| m == r#""C" "GPU 0 device memory (bytes)" 1048576"#), "{:?}", seen[0]);
    assert!(seen[0].iter().any(|m| m.starts_with(r#""i" "free""#)), "{:?}", seen[0]);
    assert_eq!(seen[0], seen[1], "JSON vs protobuf");
}

/// Threads that end while the process exits hand their last events to the
/// writer while the final flush runs (tests/c/timeline_exit.c: 32 detached
/// threads, 100 calls each, end as main returns): every call is in the
/// timeline, in both formats, and in the call log. Before
/// the hand-off was ordered with flushes (timeline's `HANDOFF`), about one
/// run in five lost a thread's calls; these 16 runs then missed it with a
/// chance of about 5%.
#[test]
fn threads_ending_during_the_exit_flush_lose_no_call() {
    let dir = scratch("timeline_exit");
    let exe = compile_c_shim(&repo_root().join("tests/c/timeline_exit.c"), &dir.join("timeline_exit"), &["-lpthread"]);
    let log = dir.join("calls.log");
    let want = 32 * 100;
    for round in 0..8 {
        for file in ["t.json", "t.pftrace"] {
            let t = dir.join(file);
            let _ = std::fs::remove_file(&log);
            let vars = [
                ("CUDART_SHIM_TRACE", "calls,timeline"),
                ("CUDART_SHIM_TRACE_CALLS_FILE", log.to_str().unwrap()),
            ];
            traced(&exe, &["exit", "32", "100"], &t, &vars);
            // The call log does not go through the timeline's hand-off: it
            // held every call even when the timeline lost some.
            let lines = std::fs::read_to_string(&log).unwrap().lines().filter(|l| l.contains(" cudaGetDevice(")).count() as u64;
            assert_eq!(lines, want, "round {round}: call log lines");
            let n = calls(&events(&t)).values().sum::<u64>();
            assert_eq!(n, want, "round {round}, {file}: calls in the timeline");
        }
    }
}

