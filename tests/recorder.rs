//! The flight recorder (`CUDART_SHIM_TRACE=recorder`) over the fake
//! driver, with tests/c/recorder.c: rings wrap per thread under 8 threads,
//! a sticky error dumps once, crash signals dump and the process still dies
//! by its signal (the program's own handler called), SIGUSR1 on request,
//! nothing written without a trigger; every dump parsed (call log lines and
//! the JSON timeline).

mod common;
use common::*;
use serde_json::Value;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn program(test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    let exe = compile_c_shim(&repo_root().join("tests/c/recorder.c"), &dir.join("recorder"), &["-lpthread"]);
    // Each run starts from an empty folder: a dump file must come from it.
    let work = dir.join("work");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    (work, exe)
}

/// Run `exe args` in `work` with the recorder on (plus `vars`), no core
/// file, at most 60 s.
fn run_recorded(work: &Path, exe: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut c = Command::new(exe);
    c.args(args).current_dir(work).envs(fake_env(&[])).env("CUDART_SHIM_TRACE", "recorder");
    for (k, v) in vars {
        c.env(k, v);
    }
    // SAFETY: setrlimit is async-signal-safe; no core files from the
    // planted crashes.
    unsafe {
        c.pre_exec(|| {
            let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        });
    }
    let mut child = c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    // Read both pipes while the program runs (a full pipe would stall it).
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let (out, err) = (read(Box::new(child.stdout.take().unwrap())), read(Box::new(child.stderr.take().unwrap())));
    let status = wait_or_fail(&mut child, 60, "the recorder test program");
    Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

/// One call of the dump's call log.
#[derive(Debug)]
struct Line {
    tid: i32,
    name: String,
    args: String,
    result: String,
}

fn parse_line(l: &str) -> Line {
    let rest = l.strip_prefix("[cudart-shim] tid=").unwrap_or_else(|| panic!("not a call line: {l:?}"));
    let (tid, rest) = rest.split_once(' ').unwrap();
    let rest = rest.split_once(' ').filter(|(n, _)| n.starts_with("nested=")).map_or(rest, |(_, r)| r);
    let (name, rest) = rest.split_once('(').unwrap();
    let (args, rest) = rest.rsplit_once(") = ").unwrap();
    let (result, ns) = rest.split_once(" (").unwrap();
    assert!(ns.ends_with(" ns)") && ns.trim_end_matches(" ns)").parse::<u64>().is_ok(), "{l:?}");
    Line { tid: tid.parse().unwrap(), name: name.to_owned(), args: args.to_owned(), result: result.to_owned() }
}

/// The dump's two files, parsed: the call log's sections (thread, "its
/// last K of N", lines) and the timeline's call events.
struct Dump {
    reason: String,
    sections: Vec<(i32, u64, u64, Vec<Line>)>,
    events: Vec<Value>,
}

fn read_dump(log: &Path) -> Dump {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let mut lines = text.lines();
    let head = lines.next().unwrap();
    // "# cudart-shim recorder dump: WHY (pid P, thread T)"
    let reason = head.strip_prefix("# cudart-shim recorder dump: ").and_then(|r| r.rsplit_once(" (pid ")).unwrap_or_else(|| panic!("{head:?}")).0.to_owned();
    let mut sections: Vec<(i32, u64, u64, Vec<Line>)> = Vec::new();
    for l in lines {
        if let Some(h) = l.strip_prefix("# thread ") {
            // "# thread T: its last K of N calls"
            let (t, rest) = h.split_once(": its last ").unwrap();
            let (k, rest) = rest.split_once(" of ").unwrap();
            let n = rest.strip_suffix(" calls").unwrap();
            sections.push((t.parse().unwrap(), k.parse().unwrap(), n.parse().unwrap(), Vec::new()));
        } else {
            let line = parse_line(l);
            let s = sections.last_mut().expect("a call line before any thread header");
            assert_eq!(line.tid, s.0, "{l:?}");
            s.3.push(line);
        }
    }
    // The timeline beside it: Perfetto's protobuf (the default format), or
    // the JSON when the test asked for that format.
    let pftrace = log.with_extension("pftrace");
    let json = log.with_extension("json");
    let all: Vec<Value> = if pftrace.exists() {
        assert!(!json.exists(), "one timeline only");
        let packets = trace_format::perfetto::packets(&std::fs::read(&pftrace).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", pftrace.display()));
        assert_eq!(dump_reason(&packets).as_deref(), Some(reason.as_str()), "the reason, on the process track");
        trace_format::perfetto::to_chrome(&packets)
    } else {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", json.display()));
        assert_eq!(v["otherData"]["reason"], Value::String(reason.clone()));
        v["traceEvents"].as_array().unwrap().clone()
    };
    let events: Vec<Value> = all.into_iter().filter(|e| e["ph"] == "X").collect();
    for e in &events {
        assert_eq!(e["cat"], "cuda_api");
        assert!(e["ts"].as_f64().is_some() && e["dur"].as_f64().is_some() && e["args"]["result"].is_string(), "{e}");
    }
    Dump { reason, sections, events }
}

/// The `reason` annotation of the protobuf dump's instant.
fn dump_reason(packets: &[trace_format::perfetto::protos::TracePacket]) -> Option<String> {
    use trace_format::perfetto::protos::{debug_annotation, trace_packet::Data};
    packets.iter().find_map(|p| match &p.data {
        Some(Data::TrackEvent(e)) => e.debug_annotations.iter().find_map(|a| match (&a.name_field, &a.value) {
            (Some(debug_annotation::NameField::Name(n)), Some(debug_annotation::Value::StringValue(v))) if n == "reason" => Some(v.clone()),
            _ => None,
        }),
        _ => None,
    })
}

fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn rings_keep_each_threads_last_calls_in_order_under_8_threads() {
    let (work, exe) = program("recorder_threads");
    let o = run_recorded(&work, &exe, &["threads", "8", "20"], &[("CUDART_SHIM_RECORDER_SIZE", "16"), ("CUDART_SHIM_TRACE_FILE", "rings.log")]);
    let err = stderr_of(&o);
    assert!(o.status.success(), "{}\n{err}", o.status);
    assert!(err.contains("cudart-shim recorder: cudartShimFlush() on thread "), "{err}");
    let log = work.join("rings.log");
    assert!(err.contains(&log.display().to_string()) && err.contains(&work.join("rings.pftrace").display().to_string()), "the files are named: {err}");
    let d = read_dump(&log);
    assert_eq!(d.reason, "cudartShimFlush()");
    // main (cudaGetDeviceCount, cudaFree's init...) and the 8 workers.
    let workers: Vec<_> = d.sections.iter().filter(|s| s.3.iter().any(|l| l.name == "cudaMalloc")).collect();
    assert_eq!(workers.len(), 8, "sections: {:?}", d.sections.iter().map(|s| (s.0, s.1, s.2)).collect::<Vec<_>>());
    let mut seen_threads = Vec::new();
    for (tid, k, n, lines) in workers {
        assert_eq!((*k, *n, lines.len()), (16, 40, 16), "thread {tid}");
        // The last 8 (cudaMalloc, cudaFree) pairs, oldest first: sizes
        // t*1000000 + 13 ..= t*1000000 + 20.
        let sizes: Vec<u64> = lines
            .iter()
            .step_by(2)
            .map(|l| {
                assert_eq!(l.name, "cudaMalloc");
                assert_eq!(l.result, "cudaSuccess");
                let size = l.args.split(", ").find_map(|a| a.strip_prefix("size=")).unwrap();
                size.parse().unwrap()
            })
            .collect();
        assert!(lines.iter().skip(1).step_by(2).all(|l| l.name == "cudaFree" && l.result == "cudaSuccess"));
        let t = sizes[0] / 1_000_000;
        assert_eq!(sizes, (13..=20).map(|i| t * 1_000_000 + i).collect::<Vec<_>>(), "thread {tid}");
        seen_threads.push(t);
    }
    seen_threads.sort();
    assert_eq!(seen_threads, (1..=8).collect::<Vec<_>>());
    // The timeline holds the same calls.
    let total: usize = d.sections.iter().map(|s| s.3.len()).sum();
    assert_eq!(d.events.len(), total);
    assert_eq!(d.events.iter().filter(|e| e["name"] == "cudaMalloc").count(), 8 * 8);
}

/// Threads that ended keep their rings: 20 threads one after another
/// (each new one finds the last one's state free). The dump holds the
/// last 16 that ended (trace::KEEP_ENDED), each with its own calls; the
/// 4 oldest rings went to the 4 newest threads. Before the fix a new
/// thread always took the ring of the thread that had just ended: one
/// worker's ring only (and the 8-thread test above failed whenever a
/// worker finished before another one's first call).
#[test]
fn rings_of_threads_that_ended_stay_until_16_more_ended() {
    let (work, exe) = program("recorder_ended");
    let o = run_recorded(&work, &exe, &["ended", "20", "3"], &[("CUDART_SHIM_RECORDER_SIZE", "16"), ("CUDART_SHIM_TRACE_FILE", "ended.log")]);
    let err = stderr_of(&o);
    assert!(o.status.success(), "{}\n{err}", o.status);
    let d = read_dump(&work.join("ended.log"));
    let mut seen: Vec<u64> = d
        .sections
        .iter()
        .filter(|s| s.3.iter().any(|l| l.name == "cudaMalloc"))
        .map(|(tid, k, n, lines)| {
            assert_eq!((*k, *n), (6, 6), "thread {tid}: its own 3 pairs, no other thread's");
            let sizes: Vec<u64> = lines.iter().step_by(2).map(|l| l.args.split(", ").find_map(|a| a.strip_prefix("size=")).unwrap().parse().unwrap()).collect();
            let t = sizes[0] / 1_000_000;
            assert_eq!(sizes, (1..=3).map(|i| t * 1_000_000 + i).collect::<Vec<_>>(), "thread {tid}");
            t
        })
        .collect();
    seen.sort();
    assert_eq!(seen, (5..=20).collect::<Vec<_>>(), "sections: {:?}", d.sections.iter().map(|s| (s.0, s.1, s.2)).collect::<Vec<_>>());
}

#[test]
fn a_sticky_error_dumps_the_rings_once() {
    let (work, exe) = program("recorder_sticky");
    let o = run_recorded(&work, &exe, &["sticky"], &[("FAKE_CUDA_FAIL", "cuCtxSynchronize:0:700")]);
    let err = stderr_of(&o);
    assert!(o.status.success(), "{}\n{err}", o.status);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "sticky done\n");
    let why = "cudaDeviceSynchronize returned cudaErrorIllegalAddress (a sticky error)";
    assert_eq!(err.matches(why).count(), 1, "{err}");
    // stderr: the thread's last calls, ending with the failing one.
    let calls: Vec<Line> = err.lines().filter(|l| l.starts_with("[cudart-shim] tid=")).map(parse_line).collect();
    let names: Vec<&str> = calls.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["cudaSetDevice", "cudaGetLastError", "cudaGetLastError", "cudaMalloc", "cudaFree", "cudaDeviceSynchronize"], "{err}");
    // The last-error rule holds while recorded (the program checks it too).
    let results: Vec<&str> = calls.iter().map(|l| l.result.as_str()).collect();
    assert_eq!(results, ["cudaErrorInvalidDevice", "cudaErrorInvalidDevice", "cudaSuccess", "cudaSuccess", "cudaSuccess", "cudaErrorIllegalAddress"], "{err}");
    assert!(calls[3].args.starts_with("devPtr=0x") && calls[3].args.ends_with("size=4096"), "{:?}", calls[3]);
    let pid = err.lines().find_map(|l| l.split("cudart-shim-recorder-").nth(1)).and_then(|r| r.split('.').next()).unwrap().to_owned();
    let d = read_dump(&work.join(format!("cudart-shim-recorder-{pid}.log")));
    assert_eq!(d.reason, why);
    let last = d.sections[0].3.last().unwrap();
    assert_eq!((last.name.as_str(), last.result.as_str()), ("cudaDeviceSynchronize", "cudaErrorIllegalAddress"));
    let ev = d.events.last().unwrap();
    assert_eq!((ev["name"].as_str(), ev["args"]["result"].as_str()), (Some("cudaDeviceSynchronize"), Some("cudaErrorIllegalAddress")));
}

fn check_crash(test: &str, args: &[&str], sig: i32, own_handler: bool) {
    let (work, exe) = program(test);
    let o = run_recorded(&work, &exe, args, &[("CUDART_SHIM_TRACE_FILE", "crash.log")]);
    let err = stderr_of(&o);
    assert_eq!(o.status.signal(), Some(sig), "{args:?}: {}\n{err}", o.status);
    let name = if sig == libc::SIGSEGV { "SIGSEGV" } else { "SIGABRT" };
    assert_eq!(err.matches(&format!("cudart-shim recorder: {name} (a crash signal) on thread ")).count(), 1, "{err}");
    assert_eq!(err.contains("program handler: SIGSEGV"), own_handler, "{args:?}: {err}");
    let d = read_dump(&work.join("crash.log"));
    assert_eq!(d.reason, format!("{name} (a crash signal)"));
    let last = d.sections[0].3.last().unwrap();
    let want = if sig == libc::SIGSEGV { "cudaFree" } else { "cudaGetDeviceCount" };
    assert_eq!(last.name, want);
    assert!(!d.events.is_empty());
}

#[test]
fn a_segfault_dumps_and_still_dies_by_sigsegv() {
    check_crash("recorder_segv", &["segv", "none"], libc::SIGSEGV, false);
}

#[test]
fn a_segfault_calls_the_programs_handler_installed_before_ours() {
    check_crash("recorder_segv_before", &["segv", "before"], libc::SIGSEGV, true);
}

#[test]
fn a_segfault_dumps_when_the_programs_handler_installed_after_ours_chains() {
    check_crash("recorder_segv_after", &["segv", "after"], libc::SIGSEGV, true);
}

#[test]
fn abort_dumps_and_still_dies_by_sigabrt() {
    check_crash("recorder_abort", &["abort"], libc::SIGABRT, false);
}

#[test]
fn sigusr1_dumps_only_when_asked_and_the_program_goes_on() {
    let (work, exe) = program("recorder_usr1");
    let o = run_recorded(&work, &exe, &["usr1"], &[("CUDART_SHIM_RECORDER_SIGUSR1", "1"), ("CUDART_SHIM_TRACE_FILE", "u.log")]);
    let err = stderr_of(&o);
    assert!(o.status.success(), "{}\n{err}", o.status);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "usr1 done\n");
    assert!(err.contains("cudart-shim recorder: SIGUSR1 on thread "), "{err}");
    assert_eq!(read_dump(&work.join("u.log")).reason, "SIGUSR1");
    // Not asked for: SIGUSR1 keeps its default (the program ends by it).
    let (work, exe) = program("recorder_usr1_off");
    let o = run_recorded(&work, &exe, &["usr1"], &[("CUDART_SHIM_TRACE_FILE", "u.log")]);
    assert_eq!(o.status.signal(), Some(libc::SIGUSR1), "{}", stderr_of(&o));
    assert!(!work.join("u.log").exists());
}

#[test]
fn nothing_is_written_without_a_trigger() {
    let dir = scratch("recorder_quiet");
    let exe = compile_c_shim(&repo_root().join("tests/c/trace_app.c"), &dir.join("trace_app"), &["-lpthread"]);
    let work = dir.join("work");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let o = run_recorded(&work, &exe, &["basic"], &[]);
    let err = stderr_of(&o);
    assert!(o.status.success(), "{}\n{err}", o.status);
    assert!(!err.contains("recorder"), "{err}");
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "files written without a trigger");
}

#[test]
fn trace_recorder_keeps_driver_calls_and_dumps_once_the_outer_call_returns() {
    let (work, exe) = program("recorder_cli");
    let o = cli_on_fake()
        .current_dir(&work)
        .env("FAKE_CUDA_FAIL", "cuCtxSynchronize:0:700")
        .args(["trace", "--recorder=64"])
        .arg(&exe)
        .arg("sticky")
        .output()
        .unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{}\n{err}", o.status);
    assert_eq!(out, "sticky done\n");
    // The driver's sticky error inside cudaDeviceSynchronize waits for it:
    // one dump, its reason the runtime call, the nested driver call shown.
    assert_eq!(err.matches("cudart-shim recorder: ").count(), 2, "one dump (its header and list): {err}");
    assert!(err.contains("cudart-shim recorder: cudaDeviceSynchronize returned cudaErrorIllegalAddress (a sticky error) on thread "), "{err}");
    let calls: Vec<&str> = err.lines().filter(|l| l.starts_with("[cudart-shim] tid=")).collect();
    let n = calls.len();
    assert!(n >= 2, "{err}");
    assert!(calls[n - 2].contains(" nested=1 cuCtxSynchronize_v2(") && calls[n - 2].contains(") = CUDA_ERROR_ILLEGAL_ADDRESS ("), "{err}");
    assert!(calls[n - 1].contains(" cudaDeviceSynchronize() = cudaErrorIllegalAddress ("), "{err}");
    assert!(calls.iter().any(|l| l.contains("cuMemAlloc")), "driver calls under cudaMalloc: {err}");
    // No summary by default with --recorder.
    assert!(!err.contains("Time (%)"), "{err}");
}

#[test]
fn a_forked_child_dumps_to_its_own_files_under_its_own_thread_id() {
    let (work, exe) = program("recorder_fork");
    let o = run_recorded(&work, &exe, &["fork"], &[("CUDART_SHIM_TRACE_FILE", "f.log")]);
    let err = stderr_of(&o);
    assert!(o.status.success(), "{}\n{err}", o.status);
    assert_eq!(String::from_utf8_lossy(&o.stdout), format!("child: signal {}\n", libc::SIGABRT));
    // The parent's dump: its own calls, the flush's reason.
    let parent = read_dump(&work.join("f.log"));
    assert_eq!(parent.reason, "cudartShimFlush()");
    let names: Vec<&str> = parent.sections[0].3.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["cudaGetDeviceCount", "cudaDriverGetVersion"]);
    // The child's: f.<pid>.log, the calls up to the fork then its own, under its id.
    let child_log = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "log") && p.file_name().unwrap() != "f.log")
        .unwrap_or_else(|| panic!("no child dump in {}: {err}", work.display()));
    let child = read_dump(&child_log);
    assert_eq!(child.reason, "SIGABRT (a crash signal)");
    let stem = child_log.file_stem().unwrap().to_str().unwrap();
    let pid: i32 = stem.strip_prefix("f.").unwrap().parse().unwrap();
    let (tid, _, _, lines) = &child.sections[0];
    assert_eq!(*tid, pid);
    let names: Vec<&str> = lines.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["cudaGetDeviceCount", "cudaGetDevice"]);
    assert!(err.contains(&format!("cudart-shim recorder: SIGABRT (a crash signal) on thread {pid};")), "{err}");
}

#[test]
fn run_recorder_dumps_a_sticky_error_and_writes_nothing_else() {
    let (work, exe) = program("recorder_run");
    let o = cli_on_fake().current_dir(&work).env("FAKE_CUDA_FAIL", "cuCtxSynchronize:0:700").args(["run", "--recorder=8", "--"]).arg(&exe).arg("sticky").output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert_eq!(out, "sticky done\n");
    assert_eq!(err.matches("cudaDeviceSynchronize returned cudaErrorIllegalAddress (a sticky error)").count(), 1, "{err}");
    // No summary (tracing is off under `run`), the dump's two files only.
    assert!(!err.contains("CUDA API Summary"), "{err}");
    let mut files: Vec<String> = std::fs::read_dir(&work).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    // Issue #33: the timeline in the default format (Perfetto's protobuf).
    assert!(files[0].starts_with("cudart-shim-recorder-") && files[0].ends_with(".log") && files[1].ends_with(".pftrace"), "{files:?}");
    // --recorder=8: the ring keeps 8 calls (the program made more).
    let d = read_dump(&work.join(&files[0]));
    // Perfetto's own classes read it: every call a slice on a thread track.
    let p = perfetto_check(&work.join(&files[1]));
    assert_eq!(p["calls"].as_u64(), Some(d.events.len() as u64), "{p}");
    assert!(p["names"]["cudaDeviceSynchronize"].as_u64() == Some(1) && p["threads"].as_u64() >= Some(1), "{p}");
    assert_eq!(d.sections.iter().map(|s| s.3.len()).max(), Some(8), "{:?}", d.sections.iter().map(|s| (s.0, s.1, s.2)).collect::<Vec<_>>());
}

/// With the timeline format set to JSON, the dump's timeline is the
/// Chrome JSON document (the same calls).
#[test]
fn the_dump_follows_the_timeline_format() {
    let (work, exe) = program("recorder_json");
    let o = run_recorded(&work, &exe, &["sticky"], &[("FAKE_CUDA_FAIL", "cuCtxSynchronize:0:700"), ("CUDART_SHIM_TRACE_FILE", "j.log"), ("CUDART_SHIM_TRACE_TIMELINE_FORMAT", "json")]);
    let err = stderr_of(&o);
    assert!(o.status.success(), "{}\n{err}", o.status);
    assert!(err.contains(&work.join("j.json").display().to_string()) && !work.join("j.pftrace").exists(), "{err}");
    let d = read_dump(&work.join("j.log"));
    let ev = d.events.last().unwrap();
    assert_eq!((ev["name"].as_str(), ev["args"]["result"].as_str()), (Some("cudaDeviceSynchronize"), Some("cudaErrorIllegalAddress")));
    assert_eq!(d.events.len(), d.sections.iter().map(|s| s.3.len()).sum::<usize>());
}
