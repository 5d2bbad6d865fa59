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

use crate::library;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
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
    /// Write the call log to FILE instead of stderr (%p = pid, %r = rank).
    #[arg(long, value_name = "FILE")]
    calls_file: Option<String>,
    /// Write a Chrome trace (Perfetto, chrome://tracing) to FILE (%p = pid,
    /// %r = rank). Processes that would write the same file write
    /// FILE.<pid>.json instead.
    #[arg(long, value_name = "FILE")]
    timeline: Option<String>,
    /// Comma-separated globs of function names to trace; -glob excludes.
    #[arg(long, value_name = "GLOBS")]
    filter: Option<String>,
    #[command(flatten)]
    layers: crate::api_layers::ApiLayers,
    /// GPU activity from CUPTI: the GPU kernel and memory tables with the
    /// summary, GPU tracks on the timeline.
    #[arg(long)]
    gpu: bool,
    /// Summary only: time 1 call in N (1 to 1000000) of each function
    /// (every call is still counted; CUDART_SHIM_TRACE_SAMPLE).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    sample: Option<u32>,
    /// The cudart-shim library to preload (default: next to this command,
    /// or target/<profile>); must exist. Its SONAME says its ABI
    /// (libcudart.so.13 or .12); the other ABI's library beside it is
    /// preloaded too when the program needs it (interpreters: both). A
    /// library of an ABI the program does not load is an error.
    #[arg(long, value_name = "PATH")]
    library: Option<PathBuf>,
    /// The program and its arguments (`--` before them is optional; needed
    /// only when PROGRAM starts with `-`).
    #[arg(required = true, trailing_var_arg = true, value_name = "PROGRAM [ARGS]")]
    program: Vec<String>,
}

/// The CUPTI front (cupti-front/), preloaded with `--gpu`.
const CUPTI_FRONT: &str = "libcudart_shim_cupti.so";

pub fn run(o: Options) -> ExitCode {
    let libs = match library::find_all(o.library) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cudart-shim: {}", e.message);
            return e.exit_code;
        }
    };
    // libcudart.so.13, .12 or both, as the program's load closure says
    // (both for interpreters and scripts): see `library`.
    let libs_to_preload = match library::to_preload(&libs, &library::resolve_program(&o.program[0])) {
        Ok(l) => l,
        Err(m) => {
            eprintln!("cudart-shim: {m}");
            return ExitCode::from(2);
        }
    };
    let summary = o.summary || !o.no_summary;
    let calls = o.calls || o.calls_file.is_some();
    let modes: Vec<&str> = [(summary, "summary"), (calls, "calls"), (o.timeline.is_some(), "timeline"), (o.gpu, "gpu")]
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
    let mut ours: Vec<String> = libs_to_preload.iter().map(|l| l.display().to_string()).collect();
    // With --gpu, CUPTI is shared with the program's own profiler through
    // libcudart_shim_cupti.so beside the library (docs/GPU-ACTIVITY.md).
    if o.gpu {
        match libs.primary().parent().map(|d| d.join(CUPTI_FRONT)).filter(|p| p.exists()) {
            Some(p) => ours.push(p.display().to_string()),
            None => eprintln!(
                "cudart-shim: {CUPTI_FRONT} is not beside {}: a profiler the program starts itself would not share CUPTI with --gpu",
                libs.primary().display()
            ),
        }
    }
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", ours.join(":")),
        _ => ours.join(":"),
    };
    let mut cmd = Command::new(&o.program[0]);
    cmd.args(&o.program[1..]).env("LD_PRELOAD", preload).env("CUDART_SHIM_TRACE", modes.join(","));
    cmd.env("CUDART_SHIM_TRACE_SESSION", &session.dir).env_remove("CUDART_SHIM_TRACE_FILE");
    if summary {
        cmd.env("CUDART_SHIM_TRACE_SUMMARY_FILE", session.dir.join("summary-%p.json"));
    }
    let vars = [
        ("CUDART_SHIM_TRACE_CALLS_FILE", o.calls_file),
        ("CUDART_SHIM_TRACE_TIMELINE_FILE", o.timeline),
        ("CUDART_SHIM_TRACE_FILTER", o.filter),
        ("CUDART_SHIM_TRACE_SAMPLE", o.sample.map(|n| n.to_string())),
    ];
    for (k, v) in vars {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    o.layers.apply(&mut cmd, libs.primary());
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) => {
            // As a shell: 127 not found, 126 found but not executable.
            let code = if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 };
            eprintln!("cudart-shim: cannot run {}: {e}", o.program[0]);
            return ExitCode::from(code);
        }
    };
    if summary {
        print_summaries(&session.dir);
    }
    name_outputs(&session.outputs());
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => ExitCode::from(c as u8),
        (None, Some(s)) => ExitCode::from(128 + s as u8),
        _ => ExitCode::from(1),
    }
}

/// The run's private folder; removed when dropped.
struct Session {
    dir: PathBuf,
}

impl Session {
    fn create() -> std::io::Result<Session> {
        use std::os::unix::fs::DirBuilderExt;
        // A fresh name (pid and clock): never an existing folder, which
        // create() refuses, so nothing planted in the temporary folder is used.
        let mut tries = 0;
        let dir = loop {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
            let dir = std::env::temp_dir().join(format!("cudart-shim-trace-{}-{nanos:09}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
                r => break r.map(|_| dir)?,
            }
        };
        let s = Session { dir };
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
        eprintln!("cudart-shim: no summary was written (the program made no CUDA runtime call through the shim?)");
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
        crate::gpu_report::eprint_from_summary(&f);
    }
}

/// Name the timelines and call logs the processes wrote (only those
/// actually created), with %p and %r expanded.
fn name_outputs(outputs: &[Output]) {
    let timelines: Vec<&Output> = outputs.iter().filter(|o| o.what == "timeline").collect();
    for o in outputs.iter().filter(|o| o.what != "timeline") {
        eprintln!("cudart-shim: {} of rank {} ({}): {}", o.what, o.rank, o.who(), o.path);
    }
    match timelines[..] {
        [] => {}
        [t] => eprintln!(
            "cudart-shim: timeline in {} (open in https://ui.perfetto.dev or chrome://tracing; `cudart-shim report {}`)",
            t.path, t.path
        ),
        _ => {
            for t in &timelines {
                eprintln!("cudart-shim: timeline of rank {} ({}): {}", t.rank, t.who(), t.path);
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
