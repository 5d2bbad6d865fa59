//! The `cudart-shim` command: run a program under the shim with tracing on
//! (`trace`), print the summary of a saved timeline (`report`), and say what
//! the machine offers (`doctor`).

use clap::{Parser, Subcommand};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The summary table, shared with the library (one implementation).
#[path = "../../src/trace/table.rs"]
#[allow(dead_code)]
mod table;
/// The GPU tables, shared with the library.
#[path = "../../src/trace/gpu_table.rs"]
#[allow(dead_code)]
mod gpu_table;
mod gpu_report;

#[derive(Parser)]
#[command(name = "cudart-shim", version, about = "cudart-shim: an open CUDA runtime; trace CUDA programs")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run PROGRAM under the shim (LD_PRELOAD) with tracing on; print the
    /// summary when it ends.
    Trace {
        /// Nsight-style summary table (cuda_api_sum), printed when the
        /// program ends (the default; kept for explicitness).
        #[arg(long)]
        summary: bool,
        /// Do not print the summary.
        #[arg(long, conflicts_with = "summary")]
        no_summary: bool,
        /// One line per call, with decoded arguments, on stderr (or --calls-file).
        #[arg(long)]
        calls: bool,
        /// Write the call log to this file instead of stderr (%p = pid, %r = rank).
        #[arg(long, value_name = "FILE")]
        calls_file: Option<String>,
        /// Write a Chrome trace (Perfetto, chrome://tracing) to FILE (%p = pid, %r = rank).
        #[arg(long, value_name = "FILE")]
        timeline: Option<String>,
        /// Comma-separated globs of function names to trace; -glob excludes.
        #[arg(long, value_name = "GLOBS")]
        filter: Option<String>,
        /// Also trace driver entry points from cudaGetDriverEntryPoint*.
        #[arg(long)]
        driver: bool,
        /// GPU activity from CUPTI: the GPU kernel and memory tables with the
        /// summary, GPU tracks on the timeline.
        #[arg(long)]
        gpu: bool,
        /// Summary only: time 1 call in N of each function (every call is
        /// still counted; CUDART_SHIM_TRACE_SAMPLE).
        #[arg(long, value_name = "N")]
        sample: Option<u32>,
        /// The library to preload (default: next to this command, or target/<profile>).
        #[arg(long, value_name = "PATH")]
        library: Option<PathBuf>,
        /// The program and its arguments.
        #[arg(last = true, required = true, value_name = "PROGRAM ARGS")]
        program: Vec<String>,
    },
    /// Print the summary table of a timeline written by `trace --timeline`.
    Report {
        file: PathBuf,
        /// text (default), csv or json.
        #[arg(long, default_value = "text")]
        format: String,
    },
    /// Say which driver, GPUs, runtime versions and library are found, and
    /// why anything is missing.
    Doctor {
        #[arg(long, value_name = "PATH")]
        library: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().cmd {
        Cmd::Trace { summary, no_summary, calls, calls_file, timeline, filter, driver, gpu, sample, library, program } => {
            trace(summary || !no_summary, calls, calls_file, timeline, filter, driver, gpu, sample, library, &program)
        }
        Cmd::Report { file, format } => report(&file, &format),
        Cmd::Doctor { library } => doctor(library),
    }
}

/// The shim library: --library, $CUDART_SHIM_LIBRARY, next to this binary,
/// or target/{release,debug} under the current directory.
fn find_library(explicit: Option<PathBuf>) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    let mut candidates: Vec<PathBuf> = explicit.into_iter().collect();
    if let Some(p) = std::env::var_os("CUDART_SHIM_LIBRARY") {
        candidates.push(p.into());
    }
    if let Ok(exe) = std::env::current_exe()
        && let Some(d) = exe.parent()
    {
        candidates.push(d.join("libcudart_shim.so"));
        candidates.push(d.join("../lib/libcudart_shim.so"));
    }
    for prof in ["release", "debug"] {
        candidates.push(PathBuf::from("target").join(prof).join("libcudart_shim.so"));
    }
    for c in candidates {
        if c.is_file() {
            return std::fs::canonicalize(&c).map_err(|e| format!("{}: {e}", c.display()));
        }
        tried.push(c.display().to_string());
    }
    Err(format!("libcudart_shim.so not found (tried {}); build it with `cargo build --release` or pass --library", tried.join(", ")))
}

#[allow(clippy::too_many_arguments)]
fn trace(
    summary: bool,
    calls: bool,
    calls_file: Option<String>,
    timeline: Option<String>,
    filter: Option<String>,
    driver: bool,
    gpu: bool,
    sample: Option<u32>,
    library: Option<PathBuf>,
    program: &[String],
) -> ExitCode {
    let lib = match find_library(library) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cudart-shim: {e}");
            return ExitCode::from(127);
        }
    };
    let calls = calls || calls_file.is_some();
    let mut modes = Vec::new();
    if summary {
        modes.push("summary");
    }
    if calls {
        modes.push("calls");
    }
    if timeline.is_some() {
        modes.push("timeline");
    }
    if gpu {
        modes.push("gpu");
    }
    // Summaries go to a private folder, one JSON per process, printed after
    // the program ends (torchrun and friends start several processes).
    let tmp = std::env::temp_dir().join(format!("cudart-shim-trace-{}", std::process::id()));
    if summary
        && let Err(e) = std::fs::create_dir(&tmp)
    {
        eprintln!("cudart-shim: cannot create {}: {e}", tmp.display());
        return ExitCode::from(1);
    }
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", lib.display()),
        _ => lib.display().to_string(),
    };
    let mut cmd = Command::new(&program[0]);
    cmd.args(&program[1..]).env("LD_PRELOAD", preload).env("CUDART_SHIM_TRACE", modes.join(","));
    cmd.env_remove("CUDART_SHIM_TRACE_FILE");
    if summary {
        cmd.env("CUDART_SHIM_TRACE_SUMMARY_FILE", tmp.join("summary-%p.json"));
    }
    if let Some(f) = calls_file {
        cmd.env("CUDART_SHIM_TRACE_CALLS_FILE", f);
    }
    if let Some(f) = &timeline {
        cmd.env("CUDART_SHIM_TRACE_TIMELINE_FILE", f);
    }
    if let Some(f) = filter {
        cmd.env("CUDART_SHIM_TRACE_FILTER", f);
    }
    if driver {
        cmd.env("CUDART_SHIM_TRACE_DRIVER", "1");
    }
    if let Some(n) = sample {
        cmd.env("CUDART_SHIM_TRACE_SAMPLE", n.to_string());
    }
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cudart-shim: cannot run {}: {e}", program[0]);
            let _ = std::fs::remove_dir_all(&tmp);
            return ExitCode::from(127);
        }
    };
    if summary {
        print_summaries(&tmp);
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if let Some(f) = &timeline {
        eprintln!("cudart-shim: timeline in {f} (open in https://ui.perfetto.dev or chrome://tracing; `cudart-shim report {f}`)");
    }
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => ExitCode::from(c as u8),
        (None, Some(s)) => ExitCode::from(128 + s as u8),
        _ => ExitCode::from(1),
    }
}

fn print_summaries(dir: &Path) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    files.sort();
    if files.is_empty() {
        eprintln!("cudart-shim: no summary was written (the program made no CUDA runtime call through the shim?)");
    }
    for f in &files {
        let pid = f.file_stem().and_then(|s| s.to_str()).and_then(|s| s.strip_prefix("summary-")).unwrap_or("?");
        match std::fs::read_to_string(f).map_err(|e| e.to_string()).and_then(|s| summary_from_json(&s)) {
            Ok(s) if s.rows.is_empty() && files.len() > 1 => {}
            Ok(s) => {
                if files.len() > 1 {
                    eprintln!("\ncudart-shim: process {pid}");
                }
                eprint!("{}", s.to_text());
                gpu_report::eprint_from_summary(f);
            }
            Err(e) => eprintln!("cudart-shim: cannot read {}: {e}", f.display()),
        }
    }
}

/// A summary back from its JSON form (see table::Summary::to_json).
fn summary_from_json(s: &str) -> Result<table::Summary, String> {
    let j: serde_json::Value = serde_json::from_str(s).map_err(|e| e.to_string())?;
    let num = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
    let mut out = table::Summary { timed_one_in: j["timed_one_call_in"].as_u64().unwrap_or(1) as u32, ..Default::default() };
    for r in j["cuda_api_sum"].as_array().ok_or("no cuda_api_sum")? {
        out.rows.push(table::Row {
            name: r["Name"].as_str().unwrap_or("?").to_owned(),
            calls: num(r, "Num Calls") as u64,
            total_ns: num(r, "Total Time (ns)") as u64,
            med_ns: num(r, "Med (ns)"),
            min_ns: num(r, "Min (ns)") as u64,
            max_ns: num(r, "Max (ns)") as u64,
            stddev_ns: num(r, "StdDev (ns)"),
        });
    }
    for e in j["errors"].as_array().into_iter().flatten() {
        out.errors.push(table::ErrRow {
            name: e["Name"].as_str().unwrap_or("?").to_owned(),
            error: e["Error"].as_str().unwrap_or("?").to_owned(),
            calls: num(e, "Num Calls") as u64,
        });
    }
    out.sort();
    Ok(out)
}

/// The summary of a Chrome trace: every complete event of category
/// `cuda_api`, exact statistics from every duration.
fn report(file: &Path, format: &str) -> ExitCode {
    let f = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cudart-shim: {}: {e}", file.display());
            return ExitCode::from(1);
        }
    };
    let j: serde_json::Value = match serde_json::from_reader(std::io::BufReader::new(f)) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("cudart-shim: {} is not a complete JSON trace ({e})", file.display());
            return ExitCode::from(1);
        }
    };
    let Some(events) = j["traceEvents"].as_array().or_else(|| j.as_array()) else {
        eprintln!("cudart-shim: {} has no traceEvents", file.display());
        return ExitCode::from(1);
    };
    let mut durs: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut errs: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in events {
        if e["ph"] != "X" || e["cat"] != "cuda_api" {
            continue;
        }
        let name = e["name"].as_str().unwrap_or("?").to_owned();
        let ns = (e["dur"].as_f64().unwrap_or(0.0) * 1000.0).round() as u64;
        if let Some(r) = e["args"]["result"].as_str()
            && r != "cudaSuccess"
        {
            *errs.entry((name.clone(), r.to_owned())).or_default() += 1;
        }
        durs.entry(name).or_default().push(ns);
    }
    let mut s = table::Summary::default();
    for (name, mut d) in durs {
        s.rows.push(table::Row::from_samples(&name, &mut d));
    }
    for ((name, error), calls) in errs {
        s.errors.push(table::ErrRow { name, error, calls });
    }
    s.sort();
    let Some(text) = gpu_report::render(&s, gpu_report::from_events(events).as_ref(), format) else {
        eprintln!("cudart-shim: unknown format {format:?}; accepted: text, csv, json");
        return ExitCode::from(2);
    };
    print!("{text}");
    ExitCode::SUCCESS
}

// ---- doctor ---------------------------------------------------------------

type CuInt = unsafe extern "C" fn(c_int) -> c_int;
type CuPInt = unsafe extern "C" fn(*mut c_int) -> c_int;

fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Option<T> {
    // SAFETY: T is the C signature of `name` (CUDA 13.0 headers).
    unsafe { lib.get::<T>(name.as_bytes()).ok().map(|s| *s) }
}

/// A driver function as the runtime gets it: `cuGetProcAddress_v2(name,
/// 13000)`, else the plain symbol.
fn drv<T: Copy>(lib: &libloading::Library, name: &str) -> Option<T> {
    type Gpa = unsafe extern "C" fn(*const c_char, *mut *mut std::ffi::c_void, c_int, u64, *mut c_int) -> c_int;
    if let Some(gpa) = sym::<Gpa>(lib, "cuGetProcAddress_v2") {
        let n = std::ffi::CString::new(name).ok()?;
        let (mut p, mut st) = (std::ptr::null_mut(), 0);
        // SAFETY: valid arguments; p receives a function of type T.
        if unsafe { gpa(n.as_ptr(), &mut p, 13000, 0, &mut st) } == 0 && !p.is_null() {
            assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut std::ffi::c_void>());
            return Some(unsafe { std::mem::transmute_copy(&p) });
        }
    }
    sym(lib, name)
}

/// Path of a loaded library whose file name contains `needle` (from /proc/self/maps).
fn loaded_path(needle: &str) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().filter_map(|l| l.split_whitespace().nth(5)).find(|p| p.contains(needle)).map(str::to_owned)
}

fn doctor(library: Option<PathBuf>) -> ExitCode {
    let mut problems = 0;
    println!("cudart-shim doctor");
    // The driver.
    let driver_name = std::env::var("CUDART_SHIM_DRIVER").unwrap_or_else(|_| "libcuda.so.1".to_owned());
    // SAFETY: loading the CUDA driver runs its initializers, as any CUDA program does.
    match unsafe { libloading::Library::new(&driver_name) } {
        Err(e) => {
            problems += 1;
            println!("driver:   NOT FOUND: {driver_name} ({e})");
            println!("          Install the NVIDIA driver (it provides libcuda.so.1), or set CUDART_SHIM_DRIVER to its path.");
        }
        Ok(lib) => {
            let path = loaded_path(driver_name.rsplit('/').next().unwrap_or(&driver_name)).unwrap_or(driver_name.clone());
            println!("driver:   {path}");
            let init: Option<CuInt> = drv(&lib, "cuInit");
            let ver: Option<CuPInt> = drv(&lib, "cuDriverGetVersion");
            let mut v = 0;
            if let Some(f) = ver {
                // SAFETY: valid out-pointer.
                unsafe { f(&mut v) };
                println!("          CUDA driver API version {}.{} ({v}){}", v / 1000, v % 1000 / 10,
                    if v < 13000 { "  -- too old: cudart-shim needs a CUDA 13.0 driver (580 or newer)" } else { "" });
                if v < 13000 {
                    problems += 1;
                }
            }
            // SAFETY: cuInit(0) is the documented first call.
            let r = init.map_or(-1, |f| unsafe { f(0) });
            if r != 0 {
                problems += 1;
                println!("          cuInit failed with CUresult {r} (100 = no device; 999 = unknown: check dmesg, nvidia-smi, /dev/nvidia*)");
            } else {
                let count: Option<CuPInt> = drv(&lib, "cuDeviceGetCount");
                let get: Option<unsafe extern "C" fn(*mut c_int, c_int) -> c_int> = drv(&lib, "cuDeviceGet");
                let name: Option<unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int> = drv(&lib, "cuDeviceGetName");
                let attr: Option<unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int> = drv(&lib, "cuDeviceGetAttribute");
                let mem: Option<unsafe extern "C" fn(*mut usize, c_int) -> c_int> = drv(&lib, "cuDeviceTotalMem");
                let mut n = 0;
                // SAFETY: valid out-pointers throughout.
                if let Some(f) = count {
                    unsafe { f(&mut n) };
                }
                println!("gpus:     {n}");
                for i in 0..n {
                    let mut d = 0;
                    let mut buf = [0 as c_char; 256];
                    let (mut major, mut minor, mut bytes) = (0, 0, 0usize);
                    unsafe {
                        if let Some(f) = get { f(&mut d, i); }
                        if let Some(f) = name { f(buf.as_mut_ptr(), 256, d); }
                        if let Some(f) = attr { f(&mut major, 75, d); f(&mut minor, 76, d); }
                        if let Some(f) = mem { f(&mut bytes, d); }
                    }
                    let nm = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
                    println!("          {i}: {nm}, compute capability {major}.{minor}, {} MiB", bytes >> 20);
                }
                if n == 0 {
                    problems += 1;
                    println!("          no GPU visible (check CUDA_VISIBLE_DEVICES and nvidia-smi)");
                }
            }
            std::mem::forget(lib);
        }
    }
    // Which libcudart.so.13 the loader would give a program (before ours is
    // loaded here: the loader matches an already-loaded SONAME).
    // SAFETY: loading a runtime library; only its version is read.
    match unsafe { libloading::Library::new("libcudart.so.13") } {
        Ok(lib) => {
            let ours = sym::<unsafe extern "C" fn() -> c_int>(&lib, "cudartShimFlush").is_some();
            let path = loaded_path("libcudart.so.13").unwrap_or_else(|| "libcudart.so.13".into());
            let mut v = 0;
            if let Some(f) = sym::<CuPInt>(&lib, "cudaRuntimeGetVersion") {
                // SAFETY: valid out-pointer.
                unsafe { f(&mut v) };
            }
            println!("libcudart.so.13 on the loader path: {path} ({}, runtime {v})", if ours { "cudart-shim" } else { "NVIDIA's" });
            std::mem::forget(lib);
        }
        Err(_) => println!("libcudart.so.13 on the loader path: none (programs linked to it need LD_LIBRARY_PATH or `cudart-shim trace`)"),
    }
    // The shim library, and the runtime it presents.
    match find_library(library) {
        Err(e) => {
            problems += 1;
            println!("library:  NOT FOUND: {e}");
        }
        Ok(p) => {
            println!("library:  {}", p.display());
            // SAFETY: tracing off: this process only asks for versions.
            unsafe { std::env::remove_var("CUDART_SHIM_TRACE") };
            match unsafe { libloading::Library::new(&p) } {
                Err(e) => {
                    problems += 1;
                    println!("          cannot load it: {e}");
                }
                Ok(lib) => {
                    let (mut rv, mut dv, mut n) = (0, 0, 0);
                    let rt: Option<CuPInt> = sym(&lib, "cudaRuntimeGetVersion");
                    let dr: Option<CuPInt> = sym(&lib, "cudaDriverGetVersion");
                    let cnt: Option<CuPInt> = sym(&lib, "cudaGetDeviceCount");
                    // SAFETY: valid out-pointers.
                    unsafe {
                        if let Some(f) = rt { f(&mut rv); }
                        if let Some(f) = dr { f(&mut dv); }
                    }
                    let r = cnt.map_or(-1, |f| unsafe { f(&mut n) });
                    println!("          runtime {}.{} ({rv}); driver seen through it: {dv}; cudaGetDeviceCount = {r} ({n} devices)", rv / 1000, rv % 1000 / 10);
                    if r != 0 {
                        problems += 1;
                        println!("          the runtime cannot use the driver (error {r}: 35 = driver too old or missing, 100 = no device)");
                    }
                    std::mem::forget(lib);
                }
            }
        }
    }
    if problems == 0 {
        println!("ok");
        ExitCode::SUCCESS
    } else {
        println!("{problems} problem(s) found");
        ExitCode::from(1)
    }
}
