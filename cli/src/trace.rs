//! `cudart-shim trace`: run a program (and every process it starts, as
//! torchrun does) with the shim preloaded and tracing on; when it ends,
//! print each process's summary and name every file the processes wrote.
//!
//! Which runtime is preloaded: `libcudart_shim.so` for a program whose
//! load closure has libcudart.so.13, `libcudart_shim12.so` for .12, both
//! for both and for interpreters and scripts (see `library`). A process
//! that uses both runtimes writes one summary per runtime, each naming its
//! runtime.
//!
//! The run has a private folder (mode 0700), passed to the library as
//! `CUDART_SHIM_TRACE_SESSION`: each process writes its summary there as
//! JSON (`summary-<pid>.json`, with its rank, host, pid and runtime; a
//! second runtime of the process writes `summary-<pid>.cudart13.json`),
//! claims the names of the files it writes under `claims/` so no two
//! processes (or two runtimes of one process) write the same file, and
//! lists each file it wrote in `outputs`, with its pid, rank and runtime
//! (see the library's `trace::output`).

use crate::launch;
use crate::library;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use trace_format::table::Summary;

#[derive(Args)]
pub struct Options {
    /// Nsight-style summary table (cuda_api_sum) of each process, printed
    /// when the program ends (the default; kept for explicitness).
    #[arg(long)]
    summary: bool,
    /// Do not print the summary.
    #[arg(long, conflicts_with = "summary")]
    no_summary: bool,
    /// One line per call, with decoded arguments, on stderr (or --calls-file).
    #[arg(long)]
    calls: bool,
    /// Write the call log to FILE instead of stderr (%p = pid, %r = rank:
    /// RANK, else LOCAL_RANK, else norank-<pid>).
    #[arg(long, value_name = "FILE")]
    calls_file: Option<String>,
    /// Write a timeline (Perfetto's UI, chrome://tracing) to FILE (%p =
    /// pid, %r = rank: RANK, else LOCAL_RANK, else norank-<pid>): Chrome
    /// JSON for FILE.json, else Perfetto's protobuf (FILE.pftrace; or see
    /// --format). Processes that would write the same file
    /// write FILE.<pid>.<ext> instead; a process that only registered
    /// kernels writes none.
    #[arg(long, value_name = "FILE")]
    timeline: Option<String>,
    /// The timeline's format whatever FILE's extension: json, perfetto or
    /// kineto (the PyTorch profiler's JSON, which Holistic Trace Analysis
    /// reads; also chosen by FILE.kineto.json).
    #[arg(long, value_name = "FORMAT", value_parser = ["json", "perfetto", "kineto"], requires = "timeline")]
    format: Option<String>,
    /// The timeline file's size limit, at least 4KiB (bytes, or with a
    /// unit B, KiB, MiB, GiB, TiB; K, M, G, T for short). Reached:
    /// recording stops there, with a line on stderr and a marker in the
    /// trace (or see --ring); the summary stays exact.
    #[arg(long, value_name = "SIZE", requires = "timeline", value_parser = crate::sizes::timeline_max)]
    max_size: Option<String>,
    /// With --max-size: keep the newest events within the size (the file is
    /// rewritten at each flush and at exit) rather than stop recording.
    #[arg(long, requires = "max_size")]
    ring: bool,
    /// Also put the kernel registration calls (`__cudaRegister*`,
    /// `__cudaUnregister*`, and the driver calls inside them) on the
    /// timeline and in the call log; by default they are only counted in
    /// the summary, and a process that made no other call writes no file
    /// (CUDART_SHIM_TRACE_REGISTRATION=1).
    #[arg(long)]
    registration: bool,
    /// Comma-separated globs of function names to trace; -glob excludes.
    #[arg(long, value_name = "GLOBS")]
    filter: Option<String>,
    #[command(flatten)]
    layers: crate::api_layers::ApiLayers,
    /// GPU activity from CUPTI: the GPU kernel and memory tables with the
    /// summary, GPU tracks on the timeline.
    #[arg(long)]
    gpu: bool,
    /// The memory reports: the memory table by device, library and kind
    /// at exit, the leak report, an OOM report at the first failed
    /// allocation of each kind (stderr, or --memory-file).
    #[arg(long)]
    memory: bool,
    /// Write the memory reports to FILE (.csv, .json or text; %p, %r).
    #[arg(long, value_name = "FILE")]
    memory_file: Option<String>,
    /// Device-memory limit: SIZE for every device (64MiB) or per device
    /// (0=8GiB,1=4GiB); units B, KiB, MiB, GiB, TiB (K, M, G, T for
    /// short). Allocations past it fail with out-of-memory;
    /// cudaMemGetInfo/cuMemGetInfo report it.
    #[arg(long, value_name = "SPEC", value_parser = crate::sizes::memory_limit)]
    memory_limit: Option<String>,
    /// Summary only: time 1 call in N (1 to 1000000) of each function
    /// (every call is still counted; CUDART_SHIM_TRACE_SAMPLE).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    sample: Option<u32>,
    #[command(flatten)]
    recorder: launch::Recorder,
    #[command(flatten)]
    watchdog: launch::Watchdog,
    /// Record only inside capture windows: cudaProfilerApi (between
    /// cudaProfilerStart and cudaProfilerStop) or nvtx (inside the NVTX range
    /// --nvtx-capture names). CUDART_SHIM_CAPTURE_RANGE.
    #[arg(long, value_name = "cudaProfilerApi|nvtx", value_parser = ["cudaProfilerApi", "nvtx"])]
    capture_range: Option<String>,
    /// stop (one window, the default) or repeat:N (N windows; 0: no limit).
    /// CUDART_SHIM_CAPTURE_RANGE_END.
    #[arg(long, value_name = "stop|repeat:N", requires = "capture_range", value_parser = capture_range_end)]
    capture_range_end: Option<String>,
    /// The NVTX range that is the window with --capture-range=nvtx:
    /// NAME (default domain) or NAME@DOMAIN. CUDART_SHIM_NVTX_CAPTURE.
    #[arg(long, value_name = "NAME[@DOMAIN]", value_parser = nvtx_capture)]
    nvtx_capture: Option<String>,
    /// Record nothing for the first SECONDS. CUDART_SHIM_DELAY.
    #[arg(long, value_name = "SECONDS")]
    delay: Option<f64>,
    /// Stop recording SECONDS after recording started. CUDART_SHIM_DURATION.
    #[arg(long, value_name = "SECONDS")]
    duration: Option<f64>,
    /// Each signal (USR2) sent to the program opens or closes a window;
    /// recording starts closed. CUDART_SHIM_CAPTURE_SIGNAL.
    #[arg(long, value_name = "USR2", value_parser = ["USR2"])]
    capture_signal: Option<String>,
    #[command(flatten)]
    faults: launch::Faults,
    // ---- metrics (issue #36) ----
    #[command(flatten)]
    metrics: crate::metrics::Metrics,
    #[command(flatten)]
    steps: Steps,
    #[command(flatten)]
    target: launch::Target,
}

/// Training steps (CUDART_SHIM_STEP_RANGE): one option for every user of
/// steps (the Kineto timeline's ProfilerStep ranges, docs/HTA.md; the
/// metrics' step-time histogram, docs/METRICS.md).
#[derive(Args)]
pub struct Steps {
    /// Each instance of the NVTX range NAME (or NAME#N) is a training
    /// step: in a kineto timeline, `ProfilerStep#<n>` from 0, as HTA needs;
    /// in the metrics, one observation of the step-time histogram.
    #[arg(long, value_name = "NAME", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub step_range: Option<String>,
}

/// The CUPTI front (cupti-front/), preloaded with `--gpu`.
const CUPTI_FRONT: &str = "libcudart_shim_cupti.so";

pub fn run(o: Options) -> ExitCode {
    let mut launch = match launch::prepare(o.target.library, &o.target.program) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let summary = o.summary || (!o.no_summary && o.recorder.recorder.is_none());
    let calls = o.calls || o.calls_file.is_some();
    let modes: Vec<&str> =
        [(summary, "summary"), (calls, "calls"), (o.timeline.is_some(), "timeline"), (o.gpu, "gpu"), (o.recorder.recorder.is_some(), "recorder"), (o.memory || o.memory_file.is_some(), "memory")]
        .into_iter()
        .filter_map(|(on, m)| on.then_some(m))
        .collect();
    let session = match Session::create() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cudart-shim: cannot create the run's folder: {e}");
            return ExitCode::from(1);
        }
    };
    let cmd = &mut launch.cmd;
    cmd.env("CUDART_SHIM_TRACE", modes.join(","));
    // With --gpu, CUPTI is shared with the program's own profiler through
    // libcudart_shim_cupti.so beside the library (docs/GPU-ACTIVITY.md).
    if o.gpu {
        match launch.libs.primary().parent().map(|d| d.join(CUPTI_FRONT)).filter(|p| p.exists()) {
            Some(p) => launch::preload_too(cmd, &p),
            None => eprintln!(
                "cudart-shim: {CUPTI_FRONT} is not beside {}: a profiler the program starts itself would not share CUPTI with --gpu",
                launch.libs.primary().display()
            ),
        }
    }
    cmd.env("CUDART_SHIM_TRACE_SESSION", &session.dir).env_remove("CUDART_SHIM_TRACE_FILE");
    if summary {
        cmd.env("CUDART_SHIM_TRACE_SUMMARY_FILE", session.dir.join("summary-%p.json"));
    }
    let vars = [
        ("CUDART_SHIM_TRACE_CALLS_FILE", o.calls_file),
        ("CUDART_SHIM_TRACE_TIMELINE_FILE", o.timeline),
        ("CUDART_SHIM_TRACE_FILTER", o.filter),
        ("CUDART_SHIM_TRACE_SAMPLE", o.sample.map(|n| n.to_string())),
        ("CUDART_SHIM_TRACE_TIMELINE_FORMAT", o.format),
        ("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE", o.max_size),
        ("CUDART_SHIM_TRACE_TIMELINE_RING", o.ring.then(|| "1".to_owned())),
        ("CUDART_SHIM_TRACE_MEMORY_FILE", o.memory_file),
        ("CUDART_SHIM_MEMORY_LIMIT", o.memory_limit),
        ("CUDART_SHIM_CAPTURE_RANGE", o.capture_range),
        ("CUDART_SHIM_CAPTURE_RANGE_END", o.capture_range_end),
        ("CUDART_SHIM_NVTX_CAPTURE", o.nvtx_capture),
        ("CUDART_SHIM_DELAY", o.delay.map(|s| s.to_string())),
        ("CUDART_SHIM_DURATION", o.duration.map(|s| s.to_string())),
        ("CUDART_SHIM_CAPTURE_SIGNAL", o.capture_signal),
        ("CUDART_SHIM_STEP_RANGE", o.steps.step_range),
    ];
    if o.registration {
        cmd.env("CUDART_SHIM_TRACE_REGISTRATION", "1");
    }
    for (k, v) in vars.into_iter().chain(o.recorder.vars()).chain(o.watchdog.vars()).chain(o.metrics.vars()) {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    if let Err(code) = o.faults.apply(launch.libs.primary(), cmd) {
        return code;
    }
    o.layers.apply(cmd, launch.libs.primary(), &session.dir);
    nvtx_injection(cmd, launch.libs.primary());
    let status = match launch::status(cmd, &o.target.program[0]) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if summary {
        print_summaries(&session.dir);
    }
    name_outputs(&session.outputs());
    launch::exit_code(status)
}

/// NVTX: every copy of NVTX3 in the program loads the library that
/// `NVTX_INJECTION64_PATH` names and hands it its callback tables; ours
/// (the runtime preloaded from that same path, so the same copy) records
/// the ranges. Another tool's value is left alone, with one line saying so.
pub(crate) fn nvtx_injection(cmd: &mut std::process::Command, lib: &Path) {
    match std::env::var_os("NVTX_INJECTION64_PATH") {
        Some(v) if !v.is_empty() => eprintln!(
            "cudart-shim: NVTX_INJECTION64_PATH is already set ({}): left as it is, so NVTX ranges go to that tool, not into this trace",
            v.to_string_lossy()
        ),
        _ => {
            let abs = std::fs::canonicalize(lib).unwrap_or_else(|_| lib.to_owned());
            cmd.env("NVTX_INJECTION64_PATH", abs);
        }
    }
}

/// The run's private folder; removed when dropped.
struct Session {
    dir: PathBuf,
}

impl Session {
    fn create() -> std::io::Result<Session> {
        use std::os::unix::fs::DirBuilderExt;
        let s = Session { dir: library::private_dir("trace")? };
        std::fs::DirBuilder::new().mode(0o700).create(s.dir.join("claims"))?;
        std::fs::File::create(s.dir.join("outputs"))?;
        Ok(s)
    }

    /// Files the processes wrote: (what, pid, rank, path), in the order
    /// written.
    fn outputs(&self) -> Vec<Output> {
        let text = std::fs::read_to_string(self.dir.join("outputs")).unwrap_or_default();
        text.lines()
            .filter_map(|l| {
                let mut f = l.splitn(5, '\t');
                Some(Output {
                    what: f.next()?.to_owned(),
                    pid: f.next()?.to_owned(),
                    rank: f.next()?.to_owned(),
                    runtime: f.next()?.to_owned(),
                    path: f.next()?.to_owned(),
                })
            })
            // The summaries are this folder's; printed, not named.
            .filter(|o| o.what != "summary")
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Output {
    what: String,
    pid: String,
    rank: String,
    /// The SONAME of the runtime that wrote it (empty: not known).
    runtime: String,
    path: String,
}

impl Output {
    /// `rank N`, or `no rank` (a process with neither RANK nor LOCAL_RANK).
    fn rank(&self) -> String {
        if self.rank.is_empty() { "no rank".to_owned() } else { format!("rank {}", self.rank) }
    }

    /// `pid P` or `pid P, libcudart.so.12`.
    fn who(&self) -> String {
        if self.runtime.is_empty() { format!("pid {}", self.pid) } else { format!("pid {}, {}", self.pid, self.runtime) }
    }
}

/// Print every process's summary, by rank then pid; with several, each
/// under its process's name.
fn print_summaries(dir: &Path) {
    let mut summaries: Vec<(PathBuf, Summary)> = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    files.retain(|f| f.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("summary-")));
    for f in files {
        let parsed = std::fs::read_to_string(&f)
            .map_err(|e| e.to_string())
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).map_err(|e| e.to_string()))
            .and_then(|j| Summary::from_json(&j));
        match parsed {
            Ok(s) => summaries.push((f, s)),
            Err(e) => eprintln!("cudart-shim: cannot read {}: {e}", f.display()),
        }
    }
    if summaries.is_empty() {
        eprintln!("cudart-shim: no summary was written: no process made a CUDA call through the shim (registering kernels or asking for the device count alone is not one: see --registration)");
    }
    let key = |s: &Summary| s.process.as_ref().map_or((u32::MAX, u32::MAX), |p| (p.rank.unwrap_or(u32::MAX), p.pid));
    summaries.sort_by_key(|(_, s)| key(s));
    let several = summaries.len() > 1;
    for (f, mut s) in summaries {
        if several && s.rows.is_empty() && !crate::gpu_report::has_tables(&f) {
            continue;
        }
        let process = s.process.take();
        if several {
            let name = process.map_or_else(|| f.display().to_string(), |p| p.label());
            eprintln!("\ncudart-shim: {name}");
        }
        eprint!("{}", s.to_text());
        if let Some(w) = crate::gpu_report::windows_line_from_summary(&f) {
            eprint!("{w}");
        }
        crate::gpu_report::eprint_from_summary(&f);
        crate::gpu_report::eprint_nvtx_from_summary(&f);
    }
}

/// Name the timelines and call logs the processes wrote (only those
/// actually created), with %p and %r expanded.
fn name_outputs(outputs: &[Output]) {
    // By rank (processes with no rank last), then pid: the order `report` uses.
    let mut timelines: Vec<&Output> = outputs.iter().filter(|o| o.what == "timeline").collect();
    timelines.sort_by_key(|t| (t.rank.parse::<u32>().unwrap_or(u32::MAX), t.pid.parse::<u32>().unwrap_or(u32::MAX)));
    for o in outputs.iter().filter(|o| o.what != "timeline") {
        eprintln!("cudart-shim: {} of {} ({}): {}", o.what, o.rank(), o.who(), o.path);
    }
    match timelines[..] {
        [] => {}
        [t] => eprintln!(
            "cudart-shim: timeline in {} (open in https://ui.perfetto.dev or chrome://tracing; `cudart-shim report {}`)",
            t.path, t.path
        ),
        _ => {
            for t in &timelines {
                eprintln!("cudart-shim: timeline of {} ({}): {}", t.rank(), t.who(), t.path);
            }
            let all: Vec<&str> = timelines.iter().map(|t| t.path.as_str()).collect();
            eprintln!(
                "cudart-shim: {} timelines; compare the ranks with `cudart-shim report {}`, add `--merge all.json` for one timeline",
                timelines.len(),
                all.join(" ")
            );
        }
    }
}

// ---- the capture options' values (checked by clap before anything runs) ----

/// `--nvtx-capture`: refused where the library would warn and record
/// unwindowed (`@DOMAIN` alone, nothing): exit 2 naming the option. The
/// value goes on to the library as given.
fn nvtx_capture(s: &str) -> Result<String, String> {
    trace_format::capture::nvtx_range(s).map(|_| s.to_owned())
}

/// `--capture-range-end`: `stop` or `repeat:N`, as the library reads it.
fn capture_range_end(s: &str) -> Result<String, String> {
    trace_format::capture::range_end(s).map(|_| s.to_owned())
}
