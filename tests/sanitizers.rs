//! The C examples (c_examples/) and the C test programs (tests/c/) under
//! AddressSanitizer and under valgrind's memcheck, on the shim over the
//! fake driver; each run must print what the plain tests check for
//! (tests/common/programs.rs) and the checker must report nothing.
//!
//! - AddressSanitizer (gcc `-fsanitize=address`, LeakSanitizer included)
//!   instruments the C program and replaces malloc/free and the string
//!   functions for the whole process, so it sees the program's overruns,
//!   our library's `memcpy`/`memset` on the program's buffers, and every
//!   block still unreachable at exit, ours included. Any report ends the run
//!   with status 86 (`ASAN_OPTIONS` below).
//! - valgrind checks every instruction of every library (ours and the fake
//!   driver included): invalid reads and writes, uses of uninitialized
//!   values, bad frees, and blocks definitely lost at exit; any of those
//!   ends the run with status 99. Blocks our library keeps on purpose for
//!   the life of the process (trace thread states and call sites, fatbinary
//!   records, the caching allocator) are reachable from statics, so they are
//!   "still reachable", not errors; a "possibly lost" block allocated in our
//!   library fails the test too, so that stays true. No suppressions.
//!
//! `sanitizer_canary` proves each checker runs and fails a run on its
//! report. A missing checker fails the test: `scripts/test` installs them.
//!
//! Not here: tests/c programs that only read static tables without a driver
//! (errors.c, script.c) or need setuid (secure_env.c).

mod common;
use common::programs::{self, Program};
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[derive(Clone, Copy, Debug)]
enum Tool {
    Asan,
    Valgrind,
}

/// Every AddressSanitizer or LeakSanitizer report ends the run with this status.
const ASAN_EXIT: i32 = 86;
const ASAN_OPTIONS: &str = "halt_on_error=1:detect_leaks=1:exitcode=86:abort_on_error=0:detect_stack_use_after_return=1:strict_string_checks=1";
/// Every valgrind error (definite leaks included) ends the run with this status.
const VALGRIND_EXIT: i32 = 99;

/// Build `p` for `tool` into its own scratch folder (tests run in parallel).
fn build(p: &Program, tool: Tool, test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(&format!("sanitizers-{test}-{tool:?}"));
    let exe = match tool {
        Tool::Asan => {
            let exe = p.build(&dir, &["-fsanitize=address", "-fno-omit-frame-pointer"]);
            // The checker is really in: the program links libasan.
            let ldd = Command::new("ldd").arg(&exe).output().expect("ldd");
            let libs = String::from_utf8_lossy(&ldd.stdout);
            assert!(libs.contains("libasan.so"), "{} does not link libasan:\n{libs}", exe.display());
            exe
        }
        Tool::Valgrind => p.build(&dir, &[]),
    };
    (dir, exe)
}

/// Run `exe` under `tool` on the fake driver, with extra environment.
/// Fails the test on any report of the checker; returns the program's
/// output for its own checks (its status included).
fn run_under(tool: Tool, dir: &Path, exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let (out, reports) = run_checked(tool, dir, exe, args, env);
    match tool {
        Tool::Asan => {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.code() != Some(ASAN_EXIT) && !err.contains("Sanitizer"), "AddressSanitizer reported errors ({}):\n{err}", out.status);
        }
        Tool::Valgrind => {
            assert_ne!(out.status.code(), Some(VALGRIND_EXIT), "valgrind reported errors:\n{reports:#?}");
            for (path, log) in &reports {
                check_valgrind_log(log, path);
            }
        }
    }
    out
}

/// Run `exe` under `tool`: its output, and valgrind's logs (one per
/// process: fork), kept apart from the program's stderr.
fn run_checked(tool: Tool, dir: &Path, exe: &Path, args: &[&str], env: &[(&str, &str)]) -> (Output, Vec<(PathBuf, String)>) {
    let mut vars = fake_env(env);
    match tool {
        Tool::Asan => {
            vars.push(("ASAN_OPTIONS".into(), ASAN_OPTIONS.into()));
            (run(exe, args, &vars), Vec::new())
        }
        Tool::Valgrind => {
            for f in logs(dir) {
                std::fs::remove_file(f).unwrap();
            }
            let o = Command::new("valgrind")
                .args([
                    "--error-exitcode=99",
                    "--errors-for-leak-kinds=definite",
                    "--leak-check=full",
                    "--show-leak-kinds=definite,possible",
                    "--num-callers=40",
                ])
                .arg(format!("--log-file={}/valgrind.%p.log", dir.display()))
                .arg(exe)
                .args(args)
                .envs(vars.iter().map(|(k, v)| (k, v)))
                .output()
                .unwrap_or_else(|e| panic!("cannot run valgrind ({e}): scripts/test installs it"));
            let reports: Vec<_> = logs(dir).into_iter().map(|p| {
                let s = std::fs::read_to_string(&p).unwrap();
                (p, s)
            }).collect();
            assert!(!reports.is_empty(), "valgrind wrote no log in {}", dir.display());
            (o, reports)
        }
    }
}

fn logs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("valgrind."))
        .collect();
    v.sort();
    v
}

/// Blocks valgrind calls "possibly lost" that are in use, by their
/// allocator's frame: valgrind finds only a pointer into their middle.
const IN_USE_THOUGH_POSSIBLY_LOST: &[&str] = &[
    // A hash table's storage: hashbrown points at its control bytes, past
    // the buckets, so every live `HashMap` (our registries) looks so.
    "hashbrown::raw::RawTableInner::new_uninitialized",
    // The TLS block of a thread that runs until exit (the timeline writer):
    // glibc points at it past its header.
    "_dl_allocate_tls",
];

/// One process's valgrind log: valgrind ran to the end with no error, and
/// no block allocated in our library is even possibly lost (apart from the
/// ones above).
fn check_valgrind_log(log: &str, path: &Path) {
    assert!(log.contains("ERROR SUMMARY: 0 errors from 0 contexts"), "{}:\n{log}", path.display());
    // Loss records are separated by empty `==pid== ` lines; a record's
    // allocator is its innermost frame in our crate or the fake driver's.
    for record in log.split("== \n") {
        if !record.contains(" lost in loss record ") || IN_USE_THOUGH_POSSIBLY_LOST.iter().any(|f| record.contains(f)) {
            continue;
        }
        let owner = record.lines().find_map(|l| {
            if l.contains("cudart_shim::") {
                Some("ours")
            } else if l.contains("fake_cuda::") {
                Some("fake")
            } else {
                None
            }
        });
        assert_ne!(owner, Some("ours"), "a block allocated by cudart-shim is lost ({}):\n{record}", path.display());
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn assert_status(o: &Output, want: i32) {
    assert_eq!(o.status.code(), Some(want), "{}", String::from_utf8_lossy(&o.stderr));
}

// ---------------------------------------------------------------- programs

fn device_query(tool: Tool) {
    use programs::device_query::*;
    let (dir, exe) = build(&PROGRAM, tool, "device_query");
    let o = run_under(tool, &dir, &exe, &[], KNOBS);
    assert_status(&o, 0);
    check(&stdout(&o));
}

fn memory_copies(tool: Tool) {
    use programs::memory_copies::*;
    let (dir, exe) = build(&PROGRAM, tool, "memory_copies");
    let o = run_under(tool, &dir, &exe, &[], &[]);
    assert_status(&o, 0);
    check(&stdout(&o));
}

fn library_ptx(tool: Tool) {
    use programs::library_ptx::*;
    let (dir, exe) = build(&PROGRAM, tool, "library_ptx");
    let log = dir.join("launches.txt");
    let _ = std::fs::remove_file(&log);
    let o = run_under(tool, &dir, &exe, ARGS, &[("FAKE_CUDA_LAUNCH_LOG", log.to_str().unwrap())]);
    assert_status(&o, 0);
    check(&stdout(&o), &std::fs::read_to_string(&log).unwrap());
}

/// c_examples/streams_graph.c: events timing a copy, a cross-stream wait,
/// a host callback, then a two-stream capture (copy a->b, fork to a host
/// node on the side stream, a host node on the main stream, join, copy
/// b->host) instantiated and launched 100 times. Each launch runs both host
/// nodes once (100 each, none during the capture) and leaves the output
/// buffer, zeroed before the capture, equal to the input: dev_a holds the
/// input since the timed copy of part 1.
fn streams_graph(tool: Tool) {
    let program = Program { src: "c_examples/streams_graph.c", libs: &[] };
    let (dir, exe) = build(&program, tool, "streams_graph");
    let o = run_under(tool, &dir, &exe, &[], &[]);
    assert_status(&o, 0);
    assert_eq!(
        stdout(&o),
        "\
timed copy of 1048576 bytes: ok
callback: 1 call(s), right stream 1, status cudaSuccess
round trip: ok
side stream joined the capture: 1
capture ended: 1, host nodes ran during capture: 0
graph replayed 100 times: main 100, side 100, data ok
PASS
"
    );
}

fn streams_fake(tool: Tool) {
    use programs::streams_fake::*;
    let (dir, exe) = build(&PROGRAM, tool, "streams_fake");
    let o = run_under(tool, &dir, &exe, &[], &[]);
    assert_status(&o, 0);
    assert_eq!(stdout(&o), OUTPUT);
}

/// Fork, atexit, thread destructors, dlopen/dlclose cycles, exit() from a
/// stream callback with the timeline on.
fn lifecycle(tool: Tool) {
    let (dir, exe) = build(&programs::lifecycle::PROGRAM, tool, "lifecycle");
    let shim = shim_lib();
    let timeline = dir.join("timeline.json");
    /// A case's name, its extra arguments and its extra environment.
    type Case<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: [Case; 5] = [
        ("fork", &[], &[]),
        ("atexit", &[], &[]),
        ("thread-dtor", &[], &[]),
        ("dlclose", &[shim.to_str().unwrap()], &[]),
        (
            "exit-in-callback",
            &[],
            &[("CUDART_SHIM_TRACE", "timeline"), ("CUDART_SHIM_TRACE_FILE", timeline.to_str().unwrap())],
        ),
    ];
    for (case, extra, env) in cases {
        let args: Vec<&str> = [case].iter().chain(extra).copied().collect();
        let o = run_under(tool, &dir, &exe, &args, env);
        let (want, status) = programs::lifecycle::expected(case);
        assert_eq!(stdout(&o), want, "case {case}");
        assert_status(&o, status);
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&timeline).unwrap()).expect("valid JSON");
    assert!(v["traceEvents"].as_array().unwrap().iter().any(|e| e["name"] == "cudaLaunchHostFunc"), "{v}");
}

/// Tracing in every mode while 8 threads call once each and once more from
/// a pthread key destructor, and main once more from an atexit handler:
/// thread states are adopted, retired and recycled, the writer thread
/// runs, the summary and the timeline are written at exit. The calls in
/// key destructors, made at once by threads exiting together, once lost
/// 32 bytes each now and then: a parking_lot wait there registers a
/// thread-local destructor that glibc never runs (src/trace/mod.rs FREE).
/// Then 8 threads whose first call is made from their key destructor: their
/// state's retirement is registered that late (it lost 32 bytes per thread
/// while it was a Rust thread-local's destructor; src/trace/mod.rs RETIRE_KEY).
fn trace_teardown(tool: Tool) {
    let program = Program { src: "tests/c/trace_app.c", libs: &["-lpthread"] };
    let (dir, exe) = build(&program, tool, "trace_teardown");
    // (mode, cudaGetDevice calls: 8 workers x 2, + 1 from atexit; or 1 from
    // main first, 8 workers x 1, + 1 from atexit)
    for (mode, n) in [("teardown", 17), ("teardown-first", 10)] {
        let (calls, summary, tl) = (dir.join("calls.log"), dir.join("summary.json"), dir.join("timeline.json"));
        let _ = std::fs::remove_file(&calls);
        let o = run_under(
            tool,
            &dir,
            &exe,
            &[mode, "8"],
            &[
                ("CUDART_SHIM_TRACE", "summary,calls,timeline"),
                ("CUDART_SHIM_TRACE_CALLS_FILE", calls.to_str().unwrap()),
                ("CUDART_SHIM_TRACE_SUMMARY_FILE", summary.to_str().unwrap()),
                ("CUDART_SHIM_TRACE_TIMELINE_FILE", tl.to_str().unwrap()),
            ],
        );
        assert_status(&o, 0);
        assert_eq!(stdout(&o), "teardown done\n");
        let json = |p: &Path| -> serde_json::Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).expect("valid JSON") };
        let s = json(&summary);
        let row = s["cuda_api_sum"].as_array().unwrap().iter().find(|r| r["Name"] == "cudaGetDevice").cloned();
        assert_eq!(row.map(|r| r["Num Calls"].clone()), Some(n.into()), "{mode}: {s}");
        let log = std::fs::read_to_string(&calls).unwrap();
        assert_eq!(log.lines().filter(|l| l.contains("cudaGetDevice(")).count(), n, "{mode}: {log}");
        let t = json(&tl);
        assert_eq!(t["traceEvents"].as_array().unwrap().iter().filter(|e| e["name"] == "cudaGetDevice").count(), n, "{mode}: {t}");
    }
}

/// Each program, once under each checker: `<program>::asan`, `<program>::valgrind`.
macro_rules! under_both {
    ($($program:ident),* $(,)?) => {$(
        mod $program {
            #[test]
            fn asan() {
                super::$program(super::Tool::Asan)
            }
            #[test]
            fn valgrind() {
                super::$program(super::Tool::Valgrind)
            }
        }
    )*};
}

under_both!(device_query, memory_copies, library_ptx, streams_graph, streams_fake, lifecycle, trace_teardown);

// ---------------------------------------------------------------- canary

/// Each checker passes a clean run and fails a leak and a heap overrun,
/// through the exit status: proof that it runs and is heard.
fn canary(tool: Tool) {
    let (dir, exe) = build(&programs::SANITIZER_CANARY, tool, "canary");
    let o = run_under(tool, &dir, &exe, &["clean"], &[]);
    assert_status(&o, 0);
    assert_eq!(stdout(&o), "devices 1\n");
    for (case, asan_says, valgrind_says) in [
        ("leak", "ERROR: LeakSanitizer: detected memory leaks", "4,096 bytes in 1 blocks are definitely lost"),
        ("overflow", "ERROR: AddressSanitizer: heap-buffer-overflow", "Invalid read of size 1"),
    ] {
        let (o, reports) = run_checked(tool, &dir, &exe, &[case], &[]);
        let (status, said, what) = match tool {
            Tool::Asan => (ASAN_EXIT, String::from_utf8_lossy(&o.stderr).into_owned(), asan_says),
            Tool::Valgrind => (VALGRIND_EXIT, reports.into_iter().map(|r| r.1).collect(), valgrind_says),
        };
        assert_eq!(o.status.code(), Some(status), "{tool:?} did not fail the {case} run: {said}");
        assert!(said.contains(what), "{case}: {said}");
    }
}

under_both!(canary);
