//! Per-call cost of the shim over the fake driver, on the CPU: for
//! cudaGetDevice, cudaGetLastError and cudaDeviceGetAttribute, the time of
//! a direct call into the fake driver's corresponding function, and of the
//! export with tracing off, `summary`, `calls` (to a file), `timeline` and
//! `recorder` (the flight recorder alone: its cost target is 15 ns a call).
//!
//! `cargo bench --bench entry`. Each mode runs in a child process of its own
//! (the configuration is read once per process); the modes run interleaved
//! `CUDART_SHIM_BENCH_REPEATS` times (default 3). Figures: the best of 7
//! rounds over every repeat, in ns per call; "added" = export - direct
//! driver call. Then the median over the repeats of each mode's figure.
//!
//! `CUDART_SHIM_BENCH_MODES=summary,summary+metrics` runs only those modes
//! (and `off`, the baseline), interleaved A B A B..., for a comparison of
//! two modes over many repeats on a shared machine: the bench then prints
//! the median of the paired differences (each repeat's B - A, two runs
//! next to each other in time), which other load moves least.

use cudart_shim::api::device::{cudaDeviceGetAttribute, cudaGetDevice, cudaSetDevice};
use cudart_shim::api::error::cudaGetLastError;
use cudart_shim::types::*;
use std::ffi::{c_char, c_int, c_void, CString};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// "summary/16": the summary with 1 call in 16 timed (CUDART_SHIM_TRACE_SAMPLE).
/// "hooks/none": a hook registered on a function these calls are not (the
/// pipeline runs; no handler wants the call). "faults/none": a fault spec
/// on another function (CUDART_SHIM_FAULTS). "subscriber": a subscriber
/// (cudartShimSubscribe) with empty enter and exit callbacks, tracing off:
/// every call is delivered twice (a subscriber wants every function, so
/// there is no "call not wanted" case).
/// "watchdog": CUDART_SHIM_WATCHDOG=300, tracing off (each call published
/// in its thread's progress slot; its cost target is 10 ns a call).
/// "summary+metrics": the summary with both metrics outputs on (issue #36;
/// target: 5 ns a call over the summary). "summary+memory": the summary
/// with the memory ledger on, the one stage the metrics add to a call.
const MODES: &[&str] = &["off", "summary", "calls", "timeline", "summary/16", "hooks/none", "faults/none", "recorder", "subscriber", "watchdog", "summary+metrics", "summary+memory"];
const FUNCS: &[&str] = &["cudaGetDevice", "cudaGetLastError", "cudaDeviceGetAttribute"];

fn target_dir() -> PathBuf {
    // target/<profile>/deps/entry-<hash>
    std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf()
}

fn best_ns(iters: u64, f: impl FnMut()) -> f64 {
    rounds(iters, f, || ())
}

/// Best of 7 rounds of `iters` calls, `between` run (untimed) after each.
fn rounds(iters: u64, mut f: impl FnMut(), mut between: impl FnMut()) -> f64 {
    for _ in 0..iters / 10 {
        f();
    }
    between();
    let mut best = f64::MAX;
    for _ in 0..7 {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / iters as f64);
        between();
    }
    best
}

type Gpa = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> c_int;

fn driver_fn(lib: &libloading::Library, name: &str) -> *mut c_void {
    let gpa: libloading::Symbol<Gpa> = unsafe { lib.get(b"cuGetProcAddress_v2\0") }.unwrap();
    let n = CString::new(name).unwrap();
    let (mut p, mut st) = (std::ptr::null_mut(), 0);
    assert_eq!(unsafe { gpa(n.as_ptr(), &mut p, 13000, 0, &mut st) }, 0);
    p
}

/// In a child: measure every function in the mode the environment set.
fn child(mode: &str) {
    let iters: u64 = if mode == "off" || mode.starts_with("summary") || mode.ends_with("/none") || mode == "recorder" || mode == "watchdog" { 1_000_000 } else { 200_000 };
    // `CUDART_SHIM_BENCH_ITERS=N`: N calls a round instead (a child run
    // alone under callgrind, which counts instructions: load moves no
    // instruction count).
    let iters = std::env::var("CUDART_SHIM_BENCH_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(iters);
    if mode == "hooks/none" {
        unsafe extern "C" fn never(_: *mut c_void, _: *mut cudart_shim::types::cudartShimCall) -> c_int {
            0
        }
        let mut h = 0;
        let r = unsafe { cudart_shim::api::shim::cudartShimHookRegister(c"cudaMemcpy3DPeer".as_ptr(), 0, Some(never), std::ptr::null_mut(), &mut h) };
        assert_eq!(r, cudaSuccess);
    }
    if mode == "subscriber" {
        unsafe extern "C" fn nothing(_: *mut c_void, _: *const cudart_shim::types::cudartShimCallbackData) {}
        let mut h = 0;
        let r = unsafe { cudart_shim::api::shim::cudartShimSubscribe(Some(nothing), Some(nothing), std::ptr::null_mut(), &mut h) };
        assert_eq!(r, cudaSuccess);
    }
    let mut d = 0;
    let mut v = 0;
    assert_eq!(unsafe { cudaSetDevice(0) }, cudaSuccess);
    let mut out = Vec::new();
    out.push(best_ns(iters, || unsafe {
        black_box(cudaGetDevice(black_box(&mut d)));
    }));
    out.push(best_ns(iters, || unsafe {
        black_box(cudaGetLastError());
    }));
    out.push(best_ns(iters, || unsafe {
        black_box(cudaDeviceGetAttribute(black_box(&mut v), cudaDevAttrWarpSize, 0));
    }));
    if mode == "timeline" {
        // Bursts that fit the timeline's buffers (16 queued chunks of 4096
        // events), the writer draining them between rounds: the cost on
        // the calling thread. The figures above are sustained rates, bound
        // by the writer thread on a machine with few cores.
        let flush = || unsafe {
            cudart_shim::api::shim::cudartShimFlush();
        };
        let burst = 30_000;
        out.push(rounds(burst, || unsafe {
            black_box(cudaGetDevice(black_box(&mut d)));
        }, flush));
        out.push(rounds(burst, || unsafe {
            black_box(cudaGetLastError());
        }, flush));
        out.push(rounds(burst, || unsafe {
            black_box(cudaDeviceGetAttribute(black_box(&mut v), cudaDevAttrWarpSize, 0));
        }, flush));
    }
    if mode == "off" {
        // The same functions of the driver, called directly.
        let lib = unsafe { libloading::Library::new(target_dir().join("libfake_cuda.so")) }.unwrap();
        let ctx_get: unsafe extern "C" fn(*mut *mut c_void) -> c_int = unsafe { std::mem::transmute(driver_fn(&lib, "cuCtxGetCurrent")) };
        let ver: unsafe extern "C" fn(*mut c_int) -> c_int = unsafe { std::mem::transmute(driver_fn(&lib, "cuDriverGetVersion")) };
        let attr: unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int =
            unsafe { std::mem::transmute(driver_fn(&lib, "cuDeviceGetAttribute")) };
        let mut c = std::ptr::null_mut();
        out.push(best_ns(iters, || unsafe {
            black_box(ctx_get(black_box(&mut c)));
        }));
        out.push(best_ns(iters, || unsafe {
            black_box(ver(black_box(&mut v)));
        }));
        out.push(best_ns(iters, || unsafe {
            black_box(attr(black_box(&mut v), 10, 0));
        }));
        std::mem::forget(lib);
    }
    println!("RESULT {}", out.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" "));
}

fn main() {
    if let Ok(mode) = std::env::var("CUDART_SHIM_BENCH_MODE") {
        return child(&mode);
    }
    let scratch = std::env::temp_dir().join(format!("cudart-shim-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    // The modes run interleaved, REPEATS times, and each figure is the best
    // over the repeats: on a shared machine, other load only adds time.
    let repeats: usize = std::env::var("CUDART_SHIM_BENCH_REPEATS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let modes = chosen_modes();
    let mut rows: Vec<(String, Vec<f64>)> = modes.iter().map(|m| (m.to_string(), Vec::new())).collect();
    // Every repeat's figures, per mode (for the medians).
    let mut runs: Vec<Vec<Vec<f64>>> = vec![Vec::new(); modes.len()];
    for _ in 0..repeats {
    for (mi, mode) in modes.iter().enumerate() {
        let mut c = std::process::Command::new(std::env::current_exe().unwrap());
        c.env("CUDART_SHIM_BENCH_MODE", mode)
            .env("CUDART_SHIM_DRIVER", target_dir().join("libfake_cuda.so"))
            .env_remove("CUDART_SHIM_TRACE_FILTER")
            .env_remove("CUDART_SHIM_TRACE_FILE");
        c.env_remove("CUDART_SHIM_TRACE_SAMPLE");
        c.env_remove("CUDART_SHIM_FAULTS");
        c.env_remove("CUDART_SHIM_WATCHDOG");
        c.env_remove("CUDART_SHIM_TRACE_MEMORY_FILE");
        for v in ["CUDART_SHIM_METRICS_FILE", "CUDART_SHIM_METRICS_LISTEN", "CUDART_SHIM_METRICS_INTERVAL"] {
            c.env_remove(v);
        }
        match *mode {
            "watchdog" => c.env_remove("CUDART_SHIM_TRACE").env("CUDART_SHIM_WATCHDOG", "300"),
            "off" | "hooks/none" | "subscriber" => c.env_remove("CUDART_SHIM_TRACE"),
            "faults/none" => c.env_remove("CUDART_SHIM_TRACE").env("CUDART_SHIM_FAULTS", "cudaMemcpy3DPeer:error=cudaErrorInvalidValue"),
            // The summary with both metrics outputs on: the textfile
            // rewritten every second and the endpoint listening (issue #36).
            "summary+metrics" => c
                .env("CUDART_SHIM_TRACE", "summary")
                .env("CUDART_SHIM_TRACE_FILE", scratch.join("metrics.out"))
                .env("CUDART_SHIM_METRICS_FILE", scratch.join("m.prom"))
                .env("CUDART_SHIM_METRICS_INTERVAL", "1")
                .env("CUDART_SHIM_METRICS_LISTEN", "127.0.0.1:0"),
            // The summary with the memory ledger on (its report at exit):
            // the per-call part of the metrics (they read the ledger's
            // memory table) without their threads.
            "summary+memory" => c.env("CUDART_SHIM_TRACE", "summary,memory").env("CUDART_SHIM_TRACE_FILE", scratch.join("memory.out")).env("CUDART_SHIM_TRACE_MEMORY_FILE", scratch.join("memory.json")),
            "summary/16" => c.env("CUDART_SHIM_TRACE", "summary").env("CUDART_SHIM_TRACE_SAMPLE", "16").env("CUDART_SHIM_TRACE_FILE", scratch.join("sampled.out")),
            m => c.env("CUDART_SHIM_TRACE", m).env("CUDART_SHIM_TRACE_FILE", scratch.join(format!("{m}.out"))),
        };
        let o = c.output().unwrap();
        let s = String::from_utf8_lossy(&o.stdout);
        let line = s.lines().find_map(|l| l.strip_prefix("RESULT ")).unwrap_or_else(|| {
            panic!("mode {mode} failed: {}\n{}", s, String::from_utf8_lossy(&o.stderr))
        });
        let vals: Vec<f64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        runs[mi].push(vals.clone());
        let r = &mut rows[mi].1;
        if r.is_empty() {
            *r = vals;
        } else {
            for (a, b) in r.iter_mut().zip(vals) {
                *a = a.min(b);
            }
        }
    }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let direct = &rows[0].1[3..6];
    println!("ns per call (best of 7 rounds x {repeats} interleaved runs); added = export - direct call of the fake driver's function");
    print!("{:<24} {:>10}", "function", "direct");
    for m in &modes {
        print!(" {:>16}", format!("{m} (added)"));
    }
    println!();
    let base = ["cuCtxGetCurrent", "cuDriverGetVersion", "cuDeviceGetAttribute"];
    for (i, f) in FUNCS.iter().enumerate() {
        print!("{:<24} {:>10.1}", f, direct[i]);
        for (_, r) in &rows {
            print!(" {:>16}", format!("{:.1} ({:+.1})", r[i], r[i] - direct[i]));
        }
        println!("    [direct = {}]", base[i]);
    }
    if let Some(tl) = at(&modes, &rows, "timeline") {
        print!("{:<24} {:>10}", "timeline, bursts", "");
        println!();
        for (i, f) in FUNCS.iter().enumerate() {
            println!("  {:<22} {:>10.1} ns/call ({:+.1} over off)", f, tl[3 + i], tl[3 + i] - rows[0].1[i]);
        }
    }
    let off = &rows[0].1;
    println!("cost over off (ns/call):");
    for (mode, r) in &rows[1..] {
        let d: Vec<String> = (0..3).map(|i| format!("{}={:+.1}", FUNCS[i], r[i] - off[i])).collect();
        println!("  {mode:<9} {}", d.join("  "));
    }
    // The medians over the repeats (the best above is each figure's
    // minimum): what a typical run of the mode costs on this machine.
    println!("median over {repeats} repeats, cost over off (ns/call):");
    let medians: Vec<Vec<f64>> = runs.iter().map(|r| (0..3).map(|i| median(r.iter().map(|v| v[i]))).collect()).collect();
    for (mi, mode) in modes.iter().enumerate().skip(1) {
        let d: Vec<String> = (0..3).map(|i| format!("{}={:+.1}", FUNCS[i], medians[mi][i] - medians[0][i])).collect();
        println!("  {mode:<9} {}", d.join("  "));
    }
    if let Some(rec) = at(&modes, &rows, "recorder") {
        let worst = (0..3).map(|i| rec[i] - off[i]).fold(f64::MIN, f64::max);
        println!("recorder: {worst:.1} ns/call over off at most (target: 15 ns) -> {}", if worst <= 15.0 { "within target" } else { "OVER TARGET" });
    }
    if let (Some(sum), Some(met)) = (at(&modes, &rows, "summary"), at(&modes, &rows, "summary+metrics")) {
        let worst = (0..3).map(|i| met[i] - sum[i]).fold(f64::MIN, f64::max);
        println!("metrics: {worst:.1} ns/call over summary at most (target: 5 ns) -> {}", if worst <= 5.0 { "within target" } else { "OVER TARGET" });
    }
    // Each repeat ran summary and the mode next to each other: the median
    // of those paired differences, per function.
    for over in ["summary+metrics", "summary+memory"] {
        let (Some(a), Some(b)) = (modes.iter().position(|m| *m == "summary"), modes.iter().position(|m| *m == over)) else { continue };
        let paired: Vec<f64> = (0..3).map(|i| median(runs[a].iter().zip(&runs[b]).map(|(x, y)| y[i] - x[i]))).collect();
        let d: Vec<String> = (0..3).map(|i| format!("{}={:+.1}", FUNCS[i], paired[i])).collect();
        let worst = paired.iter().copied().fold(f64::MIN, f64::max);
        println!("{over} over summary, median of {repeats} paired differences (ns/call): {} -> {worst:.1} at most", d.join("  "));
    }
    if let Some(wd) = at(&modes, &rows, "watchdog") {
        let worst = (0..3).map(|i| wd[i] - off[i]).fold(f64::MIN, f64::max);
        println!("watchdog: {worst:.1} ns/call over off at most (target: 10 ns) -> {}", if worst <= 10.0 { "within target" } else { "OVER TARGET" });
    }
}

/// The modes to run: `CUDART_SHIM_BENCH_MODES` (comma-separated, in
/// [`MODES`]) or all; `off`, the baseline, always and first.
fn chosen_modes() -> Vec<&'static str> {
    let Ok(list) = std::env::var("CUDART_SHIM_BENCH_MODES") else { return MODES.to_vec() };
    let asked: Vec<&str> = list.split(',').map(str::trim).filter(|m| !m.is_empty()).collect();
    for m in &asked {
        assert!(MODES.contains(m), "CUDART_SHIM_BENCH_MODES: unknown mode {m:?} (modes: {})", MODES.join(", "));
    }
    MODES.iter().copied().filter(|m| *m == "off" || asked.contains(m)).collect()
}

/// A mode's best figures, if it ran.
fn at<'a>(modes: &[&str], rows: &'a [(String, Vec<f64>)], mode: &str) -> Option<&'a Vec<f64>> {
    modes.iter().position(|m| *m == mode).map(|i| &rows[i].1)
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}
