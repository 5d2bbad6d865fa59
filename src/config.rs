//! Reading the environment and setting up diagnostics.
//!
//! Variables are read with `secure_getenv` semantics: in a setuid/setgid
//! program every `CUDART_SHIM_*` variable is ignored, so the library cannot
//! be steered into writing files or loading code with raised privileges.

use std::ffi::CString;
use std::sync::Once;

/// The value of `name`, or None when unset, not UTF-8, or the process runs
/// with raised privileges.
pub fn env_var(name: &str) -> Option<String> {
    let key = CString::new(name).ok()?;
    // SAFETY: key is a valid C string; secure_getenv returns NULL or a pointer
    // into the environment that we copy at once.
    let p = unsafe { secure_getenv(key.as_ptr()) };
    if p.is_null() {
        return None;
    }
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().ok().map(str::to_owned)
}

unsafe extern "C" {
    /// glibc: getenv, but NULL when the process is setuid/setgid (AT_SECURE).
    fn secure_getenv(name: *const std::ffi::c_char) -> *mut std::ffi::c_char;
}

static LOGGING: Once = Once::new();

/// Set up our `log` output once: filter from `CUDART_SHIM_LOG` (env_logger
/// syntax, default `warn`), lines to stderr prefixed `cudart-shim`.
///
/// The `log` crate's logger is a static of *our* copy of the crate (a cdylib
/// links its own), so this cannot replace a logger the host program owns; in
/// the rlib (tests) `try_init` leaves an existing logger alone.
pub fn init_logging() {
    LOGGING.call_once(|| {
        let filter = log_filter(env_var);
        let mut b = env_logger::Builder::new();
        b.parse_filters(&filter)
            .target(env_logger::Target::Stderr)
            .format(|buf, rec| {
                use std::io::Write;
                writeln!(buf, "cudart-shim {}: {}", rec.level().as_str().to_lowercase(), rec.args())
            });
        let _ = b.try_init();
        log::debug!("CUDART_SHIM_LOG={filter}");
    });
}

/// The log filter `CUDART_SHIM_LOG` asks for (env_logger syntax, which
/// takes any text: what it does not understand it reports and ignores).
pub fn log_filter(get: impl Fn(&str) -> Option<String>) -> String {
    get("CUDART_SHIM_LOG").unwrap_or_else(|| "warn".to_owned())
}

/// Whether `CUDART_SHIM_POOL` switches the caching allocator on; Err: a
/// value that is not understood (the allocator stays off), as a warning.
pub fn pool_switch(get: impl Fn(&str) -> Option<String>) -> Result<bool, String> {
    match get("CUDART_SHIM_POOL").as_deref() {
        None | Some("") | Some("0") => Ok(false),
        Some("1") => Ok(true),
        Some(v) => Err(format!("CUDART_SHIM_POOL={v:?} is not understood (accepted values: 0 or 1): the caching allocator stays off")),
    }
}

/// `CUDART_SHIM_RUNTIME_VERSION`: the answer `cudaRuntimeGetVersion`
/// gives instead of its own (`13000`, or `13.0` written with a dot; from
/// 1000 to 99990). Err: a value not understood, as a warning (the rule of
/// `runtime::version` applies).
pub fn runtime_version_switch(get: impl Fn(&str) -> Option<String>) -> Result<Option<i32>, String> {
    let Some(v) = get("CUDART_SHIM_RUNTIME_VERSION") else { return Ok(None) };
    let t = v.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let parsed = match t.split_once('.') {
        Some((major, minor)) if !major.is_empty() && major.len() <= 2 && (1..=2).contains(&minor.len()) => {
            let num = |s: &str| s.bytes().all(|b| b.is_ascii_digit()).then(|| s.parse::<i32>().ok()).flatten();
            num(major).zip(num(minor)).map(|(a, b)| a * 1000 + b * 10)
        }
        Some(_) => None,
        None => t.bytes().all(|b| b.is_ascii_digit()).then(|| t.parse::<i32>().ok()).flatten(),
    };
    match parsed {
        Some(n) if (1000..=99990).contains(&n) => Ok(Some(n)),
        _ => Err(format!(
            "CUDART_SHIM_RUNTIME_VERSION={v:?} is not understood (accepted: a CUDA version such as 13000 or 13.0): cudaRuntimeGetVersion keeps its own answer"
        )),
    }
}

/// [`runtime_version_switch`] of this process's environment, read once
/// (one warning for a bad value).
pub fn runtime_version_override() -> Option<i32> {
    static V: std::sync::OnceLock<Option<i32>> = std::sync::OnceLock::new();
    *V.get_or_init(|| {
        runtime_version_switch(env_var).unwrap_or_else(|w| {
            init_logging();
            log::warn!("{w}");
            None
        })
    })
}

/// The timeline's file format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimelineFormat {
    /// Chrome trace event JSON (`*.json`).
    Json,
    /// Perfetto's native protobuf (`*.pftrace`, `*.perfetto-trace`): the
    /// default (about 38 B per call event against JSON's 225 on a PyTorch
    /// job, docs/PERFORMANCE.md), and what a name with neither extension gets.
    #[default]
    Perfetto,
    /// PyTorch profiler (Kineto) form of Chrome JSON (`*.kineto.json`), for
    /// Holistic Trace Analysis and other tools that read PyTorch traces
    /// (docs/HTA.md).
    Kineto,
}

impl TimelineFormat {
    /// The format a file name asks for, if it asks for one.
    pub fn of_path(path: &str) -> Option<TimelineFormat> {
        if path.ends_with(".pftrace") || path.ends_with(".perfetto-trace") {
            Some(TimelineFormat::Perfetto)
        } else if path.ends_with(".kineto.json") {
            Some(TimelineFormat::Kineto)
        } else if path.ends_with(".json") {
            Some(TimelineFormat::Json)
        } else {
            None
        }
    }
}

/// `CUDART_SHIM_FAULTS`: the fault specs, as text (parsed and judged by
/// `control::faults`, which warns once about a bad one), read once.
pub fn faults_var() -> Option<&'static str> {
    static V: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    V.get_or_init(|| env_var("CUDART_SHIM_FAULTS").filter(|v| !v.trim().is_empty())).as_deref()
}

/// What `CUDART_SHIM_TRACE*` asks for, parsed once by [`trace_config`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceConfig {
    pub summary: bool,
    pub calls: bool,
    pub timeline: bool,
    /// `gpu`: GPU activity from CUPTI (tables with the summary's, slices
    /// on the timeline).
    pub gpu: bool,
    /// `memory`: the memory reports of the ledger (table, leaks, OOM).
    pub memory: bool,
    /// Where they go (`CUDART_SHIM_TRACE_MEMORY_FILE`; None: stderr).
    pub memory_file: Option<String>,
    /// Driver API calls are traced (`CUDART_SHIM_TRACE_DRIVER`, default
    /// on; `0` turns it off): the driver interposer reports them, and our
    /// runtime loads its driver through the interposer when it finds one.
    pub driver: bool,
    /// Runtime API calls are traced (`CUDART_SHIM_TRACE_RUNTIME`, default
    /// on; `0` turns it off).
    pub runtime: bool,
    /// Include (`true`) / exclude (`false`) globs, in the order given.
    pub filter: Vec<(bool, String)>,
    /// Expanded destinations; None = the default (stderr for summary and
    /// calls, `cudart-shim-<pid>.pftrace` for the timeline).
    pub summary_file: Option<String>,
    pub calls_file: Option<String>,
    pub timeline_file: Option<String>,
    /// The timeline's format: `CUDART_SHIM_TRACE_TIMELINE_FORMAT` (`json`,
    /// `perfetto`), else the file's extension (`.json`; `.pftrace`,
    /// `.perfetto-trace`), else Perfetto's protobuf.
    pub timeline_format: TimelineFormat,
    /// `CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE` (a size, `trace_format::size`;
    /// at least 4096 bytes): the timeline file stays about this size or under.
    pub timeline_max_size: Option<u64>,
    /// `CUDART_SHIM_TRACE_TIMELINE_RING=1`: at the size limit keep the
    /// newest events (rewritten at each flush) rather than stop recording.
    pub timeline_ring: bool,
    /// `CUDART_SHIM_TRACE_SAMPLE=N`: with only the summary (or counters)
    /// on, time 1 call in N of each function on each thread; every call is
    /// still counted. 1 (the default) times every call.
    pub sample: u32,
    /// `recorder`: the flight recorder (`trace::recorder`): a ring of the
    /// last calls per thread, dumped on a sticky error, a crash signal or
    /// `cudartShimFlush()`.
    pub recorder: bool,
    /// `CUDART_SHIM_RECORDER_SIZE`: calls kept per thread (default 1024).
    pub recorder_size: u32,
    /// `CUDART_SHIM_RECORDER_SIGUSR1=1`: SIGUSR1 also dumps the rings.
    pub recorder_sigusr1: bool,
    /// Where the recorder's call log goes (its timeline: the same name
    /// with `.json`): `CUDART_SHIM_TRACE_FILE` when neither the call log
    /// nor the timeline takes it, else `cudart-shim-recorder-<pid>.log`.
    pub recorder_file: Option<String>,
    /// `CUDART_SHIM_TRACE_SESSION`: the private folder of the `cudart-shim
    /// trace` run this process belongs to. Processes of one run claim their
    /// file names there (no two write the same file) and list the files
    /// they wrote, for the command to name them (see `trace::output`).
    pub session: Option<String>,
    /// `CUDART_SHIM_TRACE_REGISTRATION=1`: the registration calls nvcc's
    /// host code makes from constructors (`__cudaRegister*`,
    /// `__cudaUnregister*`) and the driver calls inside them go on the
    /// timeline and in the call log. Off by default: they are counted in
    /// the summary only, and a process that made no other call writes no
    /// file (see `trace`'s module note).
    pub registration: bool,
    /// Capture windows (`CUDART_SHIM_CAPTURE_*`, `CUDART_SHIM_DELAY`,
    /// `CUDART_SHIM_DURATION`): see `trace::window`.
    pub capture: Capture,
    /// `CUDART_SHIM_STEP_RANGE=NAME`: every instance of the NVTX range NAME
    /// (or `NAME#N`, [`is_step`]) is a training step (the Kineto timeline
    /// writes it as `ProfilerStep#<n>`, numbered from 0: docs/HTA.md; the
    /// metrics' step-time histogram: docs/METRICS.md). One option for
    /// every user of steps.
    pub step_range: Option<String>,
}

/// What opens and closes capture windows. The default (every field unset)
/// records from the first call to exit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Capture {
    /// `CUDART_SHIM_CAPTURE_RANGE=cudaProfilerApi`: cudaProfilerStart/Stop
    /// and cuProfilerStart/Stop open and close windows.
    pub profiler_api: bool,
    /// `CUDART_SHIM_CAPTURE_RANGE=nvtx` with `CUDART_SHIM_NVTX_CAPTURE=NAME[@DOMAIN]`:
    /// a range of that message (in that domain; none: the default domain) is a window.
    pub nvtx: Option<(String, Option<String>)>,
    /// `CUDART_SHIM_CAPTURE_RANGE_END=stop|repeat:N`: how many windows the
    /// range opens (stop: 1, the default); 0: no limit (`repeat:0`).
    pub windows: u32,
    /// `CUDART_SHIM_DELAY=SECONDS`: nothing is recorded until then.
    pub delay_s: Option<f64>,
    /// `CUDART_SHIM_DURATION=SECONDS`: recording stops this long after it started.
    pub duration_s: Option<f64>,
    /// `CUDART_SHIM_CAPTURE_SIGNAL=USR2`: each SIGUSR2 opens or closes a window.
    pub signal: bool,
}

// The seconds are finite (parse_capture rejects the rest), so equality is total.
impl Eq for Capture {}

impl Capture {
    /// Whether recording waits for something (starts closed).
    pub fn starts_closed(&self) -> bool {
        self.profiler_api || self.nvtx.is_some() || self.delay_s.is_some() || self.signal
    }

    /// Whether any window rule is set.
    pub fn any(&self) -> bool {
        self.starts_closed() || self.duration_s.is_some()
    }
}

/// The capture-window variables (see [`Capture`]); a value that is not
/// understood is one warning and that rule stays off.
pub fn parse_capture(get: &impl Fn(&str) -> Option<String>, warnings: &mut Vec<String>) -> Capture {
    let mut c = Capture { windows: 1, ..Capture::default() };
    let nvtx_name = get("CUDART_SHIM_NVTX_CAPTURE").map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    match get("CUDART_SHIM_CAPTURE_RANGE").as_deref().map(str::trim) {
        None | Some("" | "none") => {}
        Some(v) if v.eq_ignore_ascii_case("cudaProfilerApi") => c.profiler_api = true,
        Some(v) if v.eq_ignore_ascii_case("nvtx") => match &nvtx_name {
            // `@DOMAIN` alone names no range (found by fuzz/capture); the
            // command refuses what is refused here (one grammar).
            Some(n) => match trace_format::capture::nvtx_range(n) {
                Ok(rule) => c.nvtx = Some(rule),
                Err(e) => warnings.push(format!("CUDART_SHIM_NVTX_CAPTURE={e}; recording is not windowed")),
            },
            None => warnings.push(
                "CUDART_SHIM_CAPTURE_RANGE=nvtx needs CUDART_SHIM_NVTX_CAPTURE=NAME[@DOMAIN] (the range that opens the window); recording is not windowed".into(),
            ),
        },
        Some(o) => warnings.push(format!("CUDART_SHIM_CAPTURE_RANGE: ignoring {o:?}; accepted: cudaProfilerApi, nvtx")),
    }
    if nvtx_name.is_some() && c.nvtx.is_none() && !warnings.iter().any(|w| w.contains("NVTX_CAPTURE")) {
        warnings.push("CUDART_SHIM_NVTX_CAPTURE applies with CUDART_SHIM_CAPTURE_RANGE=nvtx; ignored".into());
    }
    if let Some(v) = get("CUDART_SHIM_CAPTURE_RANGE_END") {
        match trace_format::capture::range_end(&v) {
            Ok(n) => c.windows = n,
            Err(e) => warnings.push(format!("CUDART_SHIM_CAPTURE_RANGE_END: ignoring {e}")),
        }
    }
    for (var, out) in [("CUDART_SHIM_DELAY", &mut c.delay_s), ("CUDART_SHIM_DURATION", &mut c.duration_s)] {
        if let Some(v) = get(var) {
            match v.trim().parse::<f64>() {
                Ok(s) if (0.0..1e9).contains(&s) => *out = Some(s),
                _ => warnings.push(format!("{var}: ignoring {v:?}; accepted: a number of seconds (0 or more)")),
            }
        }
    }
    match get("CUDART_SHIM_CAPTURE_SIGNAL").as_deref().map(str::trim) {
        None | Some("") => {}
        Some("USR2" | "SIGUSR2" | "usr2") => c.signal = true,
        Some(o) => warnings.push(format!("CUDART_SHIM_CAPTURE_SIGNAL: ignoring {o:?}; accepted: USR2")),
    }
    c
}

impl TraceConfig {
    pub fn any(&self) -> bool {
        self.summary || self.calls || self.timeline || self.recorder
    }

    /// Whether the filter lets function `name` through: the last glob that
    /// matches decides; with only exclusions, everything else is included;
    /// with inclusions, only what they match.
    pub fn includes(&self, name: &str) -> bool {
        globs_include(&self.filter, name)
    }
}

/// Whether a list of include (`true`) / exclude (`false`) globs lets
/// `name` through: the last glob that matches decides; with only
/// exclusions, everything else is included; with inclusions, only what
/// they match. (The trace filter, hook registrations.)
pub fn globs_include(globs: &[(bool, String)], name: &str) -> bool {
    let mut decided = !globs.iter().any(|(inc, _)| *inc);
    for (inc, g) in globs {
        if glob_match(g.as_bytes(), name.as_bytes()) {
            decided = *inc;
        }
    }
    decided
}

/// One item of a comma-separated glob list over function names: `glob`
/// or `+glob` includes, `-glob` excludes. None: not a glob of letters,
/// digits, `_`, `*` and `?`.
pub fn glob_item(g: &str) -> Option<(bool, String)> {
    let (inc, pat) = match g.strip_prefix('-') {
        Some(p) => (false, p),
        None => (true, g.strip_prefix('+').unwrap_or(g)),
    };
    (!pat.is_empty() && pat.bytes().all(|b| b.is_ascii_alphanumeric() || b"_*?".contains(&b))).then(|| (inc, pat.to_owned()))
}

/// `*` any run, `?` one character; everything else literal.
pub fn glob_match(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut i, mut star, mut mark) = (0, 0, usize::MAX, 0);
    while i < s.len() {
        // A `*` is always a wildcard, even facing a `*` in `s` (matching it
        // literally would lose the backtracking point).
        if p < pat.len() && pat[p] == b'*' {
            star = p;
            mark = i;
            p += 1;
        } else if p < pat.len() && (pat[p] == b'?' || pat[p] == s[i]) {
            p += 1;
            i += 1;
        } else if star != usize::MAX {
            p = star + 1;
            mark += 1;
            i = mark;
        } else {
            return false;
        }
    }
    pat[p..].iter().all(|&c| c == b'*')
}

/// Expand `%p` (pid), `%r` (`rank`: see [`rank_in_name`]) and `%%` in a
/// trace file name.
pub fn expand_path(template: &str, pid: u32, rank: &str) -> String {
    let mut out = String::with_capacity(template.len() + 8);
    let mut it = template.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('p') => out.push_str(&pid.to_string()),
            Some('r') => out.push_str(rank),
            Some('%') => out.push('%'),
            Some(o) => {
                out.push('%');
                out.push(o);
            }
            None => out.push('%'),
        }
    }
    out
}

/// The rank of this process in a multi-process job: `RANK`, else
/// `LOCAL_RANK`; None for a process with neither (a launcher such as
/// torchrun, a tool). Only digits are taken, so `%r` can never add a `/`
/// or a `..` to a file name.
pub fn rank(get: impl Fn(&str) -> Option<String>) -> Option<String> {
    let valid = |v: String| (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())).then_some(v);
    get("RANK").and_then(valid).or_else(|| get("LOCAL_RANK").and_then(valid))
}

/// What `%r` becomes in a file name: the [`rank`], or `norank-<pid>` for a
/// process with no rank. Never `0` for it: the launcher of a job (torchrun
/// imports torch, and has no `RANK`) must not take the name rank 0 wants
/// (`trace-rank%r.json`). Such a process usually writes nothing at all
/// (registration alone is not work: `trace`'s module note).
pub fn rank_in_name(get: impl Fn(&str) -> Option<String>, pid: u32) -> String {
    rank(get).unwrap_or_else(|| format!("norank-{pid}"))
}

/// Who this process is, for the record every trace file carries
/// (`trace_format::process`): `RANK` (else `LOCAL_RANK`), `LOCAL_RANK`,
/// `WORLD_SIZE` (digits only, as for `%r`), the host name, the pid and
/// `CUDA_VISIBLE_DEVICES`. Devices used and clock samples are added by the
/// tracing layer.
pub fn process_identity(get: impl Fn(&str) -> Option<String>, pid: u32) -> trace_format::process::Process {
    let num = |k: &str| get(k).and_then(|v| v.trim().parse::<u32>().ok());
    let mut host = [0u8; 256];
    // SAFETY: a valid buffer of the length given; the name is NUL-terminated
    // when it fits, and the last byte stays 0 in any case.
    let ok = unsafe { libc::gethostname(host.as_mut_ptr().cast(), host.len() - 1) } == 0;
    let host = if ok { String::from_utf8_lossy(&host[..host.iter().position(|&b| b == 0).unwrap_or(0)]).into_owned() } else { String::new() };
    trace_format::process::Process {
        rank: num("RANK").or_else(|| num("LOCAL_RANK")),
        local_rank: num("LOCAL_RANK"),
        world_size: num("WORLD_SIZE"),
        host: if host.is_empty() { "?".to_owned() } else { host },
        pid,
        visible_devices: get("CUDA_VISIBLE_DEVICES"),
        ..Default::default()
    }
}

/// Parse the tracing variables from a lookup function (the environment in
/// production, a map in unit tests and the fuzz target). Returns the
/// configuration and the warnings for values that were not understood (the
/// rest still applies).
pub fn parse_trace_config(get: impl Fn(&str) -> Option<String>, pid: u32) -> (TraceConfig, Vec<String>) {
    let rank = &rank_in_name(&get, pid);
    let mut c = TraceConfig { driver: true, runtime: true, ..TraceConfig::default() };
    let mut warnings = Vec::new();
    if let Some(v) = get("CUDART_SHIM_TRACE") {
        let v = v.trim();
        if !v.is_empty() && v != "0" {
            for m in v.split(',').map(str::trim).filter(|m| !m.is_empty()) {
                match m.to_ascii_lowercase().as_str() {
                    "1" | "summary" => c.summary = true,
                    "calls" => c.calls = true,
                    "timeline" => c.timeline = true,
                    "gpu" => c.gpu = true,
                    "recorder" => c.recorder = true,
                    "memory" => c.memory = true,
                    "all" => (c.summary, c.calls, c.timeline) = (true, true, true),
                    _ => warnings.push(format!(
                        "CUDART_SHIM_TRACE: ignoring {m:?}; accepted: a comma list of summary, calls, timeline, gpu, recorder, memory (or 1 = summary, 0 = off)"
                    )),
                }
            }
        }
    }
    c.sample = 1;
    c.recorder_size = 1024;
    if let Some(v) = get("CUDART_SHIM_RECORDER_SIZE") {
        match v.trim().parse::<u32>() {
            Ok(n) if (1..=1_000_000).contains(&n) => c.recorder_size = n,
            _ => warnings.push(format!(
                "CUDART_SHIM_RECORDER_SIZE: ignoring {v:?}; accepted: a whole number of calls kept per thread, from 1 to 1000000 (default 1024)"
            )),
        }
    }
    match get("CUDART_SHIM_RECORDER_SIGUSR1").as_deref().map(str::trim) {
        None | Some("" | "0" | "off" | "false" | "no") => {}
        Some("1" | "on" | "true" | "yes") => c.recorder_sigusr1 = true,
        Some(o) => warnings.push(format!("CUDART_SHIM_RECORDER_SIGUSR1: ignoring {o:?}; accepted: 1 (SIGUSR1 dumps the recorder) or 0 (the default)")),
    }
    if let Some(v) = get("CUDART_SHIM_TRACE_SAMPLE") {
        match v.trim().parse::<u32>() {
            Ok(n) if (1..=1_000_000).contains(&n) => c.sample = n,
            _ => warnings.push(format!(
                "CUDART_SHIM_TRACE_SAMPLE: ignoring {v:?}; accepted: a whole number from 1 (time every call, the default) to 1000000"
            )),
        }
    }
    for (var, on) in [("CUDART_SHIM_TRACE_DRIVER", &mut c.driver), ("CUDART_SHIM_TRACE_RUNTIME", &mut c.runtime)] {
        match get(var).as_deref().map(str::trim) {
            None | Some("" | "1" | "on" | "true" | "yes") => {}
            Some("0" | "off" | "false" | "no") => *on = false,
            Some(o) => warnings.push(format!("{var}: ignoring {o:?}; accepted: 1 (the default) or 0")),
        }
    }
    match get("CUDART_SHIM_TRACE_REGISTRATION").as_deref().map(str::trim) {
        None | Some("" | "0" | "off" | "false" | "no") => {}
        Some("1" | "on" | "true" | "yes") => c.registration = true,
        Some(o) => warnings.push(format!(
            "CUDART_SHIM_TRACE_REGISTRATION: ignoring {o:?}; accepted: 0 (the default: registration calls only counted) or 1 (also on the timeline and in the call log)"
        )),
    }
    if let Some(v) = get("CUDART_SHIM_TRACE_FILTER") {
        for g in v.split(',').map(str::trim).filter(|g| !g.is_empty()) {
            match glob_item(g) {
                Some(item) => c.filter.push(item),
                None => warnings.push(format!(
                    "CUDART_SHIM_TRACE_FILTER: ignoring {g:?}; accepted: comma-separated globs of function names (letters, digits, _, *, ?), prefixed - to exclude"
                )),
            }
        }
    }
    let path = |var: &str, warnings: &mut Vec<String>| -> Option<String> {
        let v = get(var)?;
        if v.is_empty() || v.contains('\0') {
            warnings.push(format!("{var}: ignoring an empty value; accepted: a file path (%p = pid, %r = rank)"));
            return None;
        }
        Some(expand_path(&v, pid, rank))
    };
    let common = path("CUDART_SHIM_TRACE_FILE", &mut warnings);
    // One file for the modes that are on: with the timeline on it receives
    // the timeline (summary and calls stay on stderr); otherwise it
    // receives the summary and/or the call log. Per-mode variables override.
    if let Some(f) = common {
        if c.recorder && !c.timeline && !c.calls {
            c.recorder_file = Some(f.clone());
        }
        if c.timeline {
            c.timeline_file = Some(f);
        } else {
            c.summary_file = (c.summary || c.gpu).then(|| f.clone());
            c.calls_file = c.calls.then_some(f);
        }
    }
    if let Some(f) = path("CUDART_SHIM_TRACE_SUMMARY_FILE", &mut warnings) {
        c.summary_file = Some(f);
    }
    if let Some(f) = path("CUDART_SHIM_TRACE_CALLS_FILE", &mut warnings) {
        c.calls_file = Some(f);
    }
    if let Some(f) = path("CUDART_SHIM_TRACE_MEMORY_FILE", &mut warnings) {
        c.memory_file = Some(f);
    }
    if let Some(f) = path("CUDART_SHIM_TRACE_TIMELINE_FILE", &mut warnings) {
        c.timeline_file = Some(f);
    }
    let format = match get("CUDART_SHIM_TRACE_TIMELINE_FORMAT").as_deref().map(str::trim) {
        None | Some("") => None,
        Some("json") => Some(TimelineFormat::Json),
        Some("perfetto" | "protobuf") => Some(TimelineFormat::Perfetto),
        Some("kineto") => Some(TimelineFormat::Kineto),
        Some(o) => {
            warnings.push(format!("CUDART_SHIM_TRACE_TIMELINE_FORMAT: ignoring {o:?}; accepted: json, perfetto or kineto"));
            None
        }
    };
    c.timeline_format = format.or_else(|| c.timeline_file.as_deref().and_then(TimelineFormat::of_path)).unwrap_or_default();
    if c.timeline && c.timeline_file.is_none() {
        let name = match c.timeline_format {
            TimelineFormat::Json => "cudart-shim-%p.json",
            TimelineFormat::Perfetto => "cudart-shim-%p.pftrace",
            TimelineFormat::Kineto => "cudart-shim-%p.kineto.json",
        };
        c.timeline_file = Some(expand_path(name, pid, rank));
    }
    if let Some(v) = get("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE") {
        match trace_format::size::parse_timeline_max(&v) {
            Ok(n) => c.timeline_max_size = Some(n),
            Err(e) => warnings.push(format!("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE={v:?}: {e}; the timeline has no size limit")),
        }
    }
    match get("CUDART_SHIM_TRACE_TIMELINE_RING").as_deref().map(str::trim) {
        None | Some("" | "0" | "off" | "false" | "no") => {}
        Some("1" | "on" | "true" | "yes") => c.timeline_ring = true,
        Some(o) => warnings.push(format!("CUDART_SHIM_TRACE_TIMELINE_RING: ignoring {o:?}; accepted: 1 or 0 (the default)")),
    }
    if c.timeline_ring && c.timeline_max_size.is_none() {
        warnings.push("CUDART_SHIM_TRACE_TIMELINE_RING needs CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE (the window's size): the timeline keeps every event".into());
        c.timeline_ring = false;
    }
    if c.recorder && c.recorder_file.is_none() {
        c.recorder_file = Some(expand_path("cudart-shim-recorder-%p.log", pid, rank));
    }
    c.session = get("CUDART_SHIM_TRACE_SESSION").filter(|s| s.starts_with('/') && !s.contains('\0'));
    c.capture = parse_capture(&get, &mut warnings);
    // Steps (docs/HTA.md): an empty name is no step range.
    c.step_range = get("CUDART_SHIM_STEP_RANGE").filter(|v| !v.trim().is_empty());
    (c, warnings)
}

/// Whether an NVTX range's message is an instance of the step range
/// `step` ([`TraceConfig::step_range`]): `step` itself or `step#N`.
pub fn is_step(step: &str, message: &str) -> bool {
    match message.strip_prefix(step) {
        Some("") => true,
        Some(rest) => rest.strip_prefix('#').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    }
}

// ---- metrics (issue #36) ---------------------------------------------------

/// What the metrics variables ask for ([`metrics_config`]); off (both
/// outputs None) unless one is set.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricsConfig {
    /// `CUDART_SHIM_METRICS_FILE` (`%p`, `%r` expanded): the textfile for
    /// node_exporter's textfile collector.
    pub file: Option<String>,
    /// `CUDART_SHIM_METRICS_INTERVAL`: seconds between rewrites of the file.
    pub interval_s: f64,
    /// `CUDART_SHIM_METRICS_LISTEN`: the HTTP endpoint's address, with the
    /// port already moved by `LOCAL_RANK`.
    pub listen: Option<std::net::SocketAddr>,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig { file: None, interval_s: 10.0, listen: None }
    }
}

impl MetricsConfig {
    pub fn on(&self) -> bool {
        self.file.is_some() || self.listen.is_some()
    }
}

/// Parse the metrics variables. A value not understood is one warning and
/// no metrics at all (the program runs on).
pub fn parse_metrics_config(get: impl Fn(&str) -> Option<String>, pid: u32) -> (MetricsConfig, Vec<String>) {
    use trace_format::metrics as m;
    let mut c = MetricsConfig::default();
    let mut errors = Vec::new();
    if let Some(v) = get("CUDART_SHIM_METRICS_FILE") {
        match m::check_textfile(&v) {
            Ok(()) => c.file = Some(expand_path(&v, pid, &rank_in_name(&get, pid))),
            Err(e) => errors.push(format!("CUDART_SHIM_METRICS_FILE={e}")),
        }
    }
    if let Some(v) = get("CUDART_SHIM_METRICS_INTERVAL") {
        match m::parse_interval(&v) {
            Ok(s) => c.interval_s = s,
            Err(e) => errors.push(format!("CUDART_SHIM_METRICS_INTERVAL={e}")),
        }
    }
    if let Some(v) = get("CUDART_SHIM_METRICS_LISTEN") {
        let local = get("LOCAL_RANK").and_then(|r| r.trim().parse::<u32>().ok());
        match m::parse_listen(&v, local) {
            Ok(a) => c.listen = Some(a),
            Err(e) => errors.push(format!("CUDART_SHIM_METRICS_LISTEN={e}")),
        }
    }
    if !errors.is_empty() {
        let w = errors.into_iter().map(|e| e + "; no metrics").collect();
        return (MetricsConfig::default(), w);
    }
    (c, errors)
}

/// The metrics configuration of this process: read once, warnings logged.
pub fn metrics_config() -> &'static MetricsConfig {
    static CONFIG: std::sync::OnceLock<MetricsConfig> = std::sync::OnceLock::new();
    CONFIG.get_or_init(|| {
        init_logging();
        let (c, warnings) = parse_metrics_config(env_var, std::process::id());
        for w in warnings {
            log::warn!("{w}");
        }
        c
    })
}

/// What the memory ledger's own variables ask for ([`memory_config`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryConfig {
    /// `CUDART_SHIM_MEMORY_LIMIT`: `64MiB` (every device) or
    /// `0=8GiB,1=4GiB`; a spec not understood applies no limit.
    pub limit: trace_format::memory::LimitSpec,
    /// `CUDART_SHIM_MEMORY_BACKTRACE=N`: native frames kept per allocation
    /// (0, the default: the calling library and call site only; at most 64).
    pub backtrace: u32,
}

/// Parse the memory variables; warnings name the variable and what was
/// not understood (that part then does nothing).
pub fn parse_memory_config(get: impl Fn(&str) -> Option<String>) -> (MemoryConfig, Vec<String>) {
    let mut c = MemoryConfig::default();
    let mut warnings = Vec::new();
    if let Some(v) = get("CUDART_SHIM_MEMORY_LIMIT").filter(|v| !v.trim().is_empty()) {
        match trace_format::memory::parse_limit_spec(&v) {
            Ok(l) => c.limit = l,
            Err(e) => warnings.push(format!("CUDART_SHIM_MEMORY_LIMIT={v:?}: {e}; no memory limit is applied")),
        }
    }
    if let Some(v) = get("CUDART_SHIM_MEMORY_BACKTRACE") {
        match v.trim().parse::<u32>() {
            Ok(n) if n <= 64 => c.backtrace = n,
            _ => warnings.push(format!("CUDART_SHIM_MEMORY_BACKTRACE={v:?} is not understood (accepted: a number of frames from 0 to 64); no backtraces are kept")),
        }
    }
    (c, warnings)
}

/// The memory configuration of this process: read once, warnings logged.
pub fn memory_config() -> &'static MemoryConfig {
    static CONFIG: std::sync::OnceLock<MemoryConfig> = std::sync::OnceLock::new();
    CONFIG.get_or_init(|| {
        init_logging();
        let (c, warnings) = parse_memory_config(env_var);
        for w in warnings {
            log::warn!("{w}");
        }
        c
    })
}

/// The tracing configuration of this process: read once from the
/// environment, warnings and effective values logged.
pub fn trace_config() -> &'static TraceConfig {
    static CONFIG: std::sync::OnceLock<TraceConfig> = std::sync::OnceLock::new();
    CONFIG.get_or_init(|| {
        init_logging();
        let (c, warnings) = parse_trace_config(env_var, std::process::id());
        for w in warnings {
            log::warn!("{w}");
        }
        log::debug!(
            "tracing: summary={} calls={} timeline={} gpu={} driver={} runtime={} sample=1/{} filter={:?} summary_file={:?} calls_file={:?} timeline_file={:?} recorder={} ({} calls per thread, SIGUSR1 {}) recorder_file={:?}",
            c.summary, c.calls, c.timeline, c.gpu, c.driver, c.runtime, c.sample, c.filter, c.summary_file, c.calls_file, c.timeline_file,
            c.recorder, c.recorder_size, c.recorder_sigusr1, c.recorder_file
        );
        c
    })
}

/// The configuration fuzz target's work (fuzz/fuzz_targets/config.rs),
/// also run over the committed corpus by the unit test
/// `fuzz_corpus_keeps_the_invariants`, so CI exercises it on stable.
#[cfg(any(test, fuzzing))]
pub mod fuzzing {
    use super::*;

    /// The variables an input sets, in the order of its fields.
    pub const VARS: &[&str] = &[
        "CUDART_SHIM_TRACE",
        "CUDART_SHIM_TRACE_DRIVER",
        "CUDART_SHIM_TRACE_FILTER",
        "CUDART_SHIM_TRACE_FILE",
        "CUDART_SHIM_TRACE_SUMMARY_FILE",
        "CUDART_SHIM_TRACE_CALLS_FILE",
        "CUDART_SHIM_TRACE_TIMELINE_FILE",
        "RANK",
        "LOCAL_RANK",
        "CUDART_SHIM_LOG",
        "CUDART_SHIM_POOL",
        "CUDART_SHIM_TRACE_SAMPLE",
        "CUDART_SHIM_TRACE_RUNTIME",
        "CUDART_SHIM_TRACE_REGISTRATION",
        "CUDART_SHIM_RECORDER_SIZE",
        "CUDART_SHIM_RECORDER_SIGUSR1",
    ];
    const FILES: &[&str] =
        &["CUDART_SHIM_TRACE_FILE", "CUDART_SHIM_TRACE_SUMMARY_FILE", "CUDART_SHIM_TRACE_CALLS_FILE", "CUDART_SHIM_TRACE_TIMELINE_FILE"];

    /// One input: its NUL-separated fields are the values of [`VARS`] in
    /// order (a field that is not UTF-8, or past the end, leaves the
    /// variable unset: `env_var` reads such values as unset too), then the
    /// pid (decimal) and a function name for the filter. Panics when an
    /// invariant does not hold.
    pub fn one_input(data: &[u8]) {
        let mut fields = data.split(|&b| b == 0).map(|f| std::str::from_utf8(f).ok().map(str::to_owned));
        let vals: Vec<Option<String>> = VARS.iter().map(|_| fields.next().flatten()).collect();
        let pid: u32 = fields.next().flatten().and_then(|p| p.parse().ok()).unwrap_or(4242);
        let name = fields.next().flatten().unwrap_or_default();
        let get = |k: &str| VARS.iter().position(|v| *v == k).and_then(|i| vals[i].clone());

        let (c, warnings) = parse_trace_config(get, pid);
        assert_eq!((&c, &warnings), (&parse_trace_config(get, pid).0, &parse_trace_config(get, pid).1), "not deterministic");
        for w in &warnings {
            assert!(VARS.iter().any(|v| w.starts_with(v) && get(v).is_some()), "a warning about no variable set: {w}");
        }

        // Modes come only from CUDART_SHIM_TRACE, each named in it.
        let trace = get("CUDART_SHIM_TRACE").unwrap_or_default().to_ascii_lowercase();
        let named = |m: &str| [m, "all", "1"].iter().any(|n| trace.contains(n));
        assert!(!c.summary || named("summary"), "{trace:?} -> {c:?}");
        assert!(!c.calls || named("calls"), "{trace:?} -> {c:?}");
        assert!(!c.timeline || named("timeline"), "{trace:?} -> {c:?}");
        assert!(!c.timeline || c.timeline_file.is_some(), "timeline on without a file: {c:?}");
        assert!((1..=1_000_000).contains(&c.sample), "sample {}", c.sample);

        // %r takes only digits; every file is a template the user wrote
        // (or the default), with %p/%r/%% expanded: no value can add a
        // directory, a `.` or a `..`, or make a path absolute.
        let r = rank_in_name(get, pid);
        match rank(get) {
            Some(d) => assert!(r == d && !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()), "rank {d:?} -> %r {r:?}"),
            None => assert_eq!(r, format!("norank-{pid}"), "%r of a process with no rank"),
        }
        let templates: Vec<String> =
            FILES.iter().filter_map(|v| get(v)).chain(["cudart-shim-%p.json".to_owned(), "cudart-shim-recorder-%p.log".to_owned()]).collect();
        assert!(!c.recorder || c.recorder_file.is_some(), "recorder on without a file: {c:?}");
        assert!(!c.recorder || named("recorder"), "{trace:?} -> {c:?}");
        for path in [&c.summary_file, &c.calls_file, &c.timeline_file, &c.recorder_file].into_iter().flatten() {
            assert!(templates.iter().any(|t| same_shape(t, path)), "{path:?} is no expansion of {templates:?}");
        }
        for t in &templates {
            if !t.is_empty() {
                assert!(same_shape(t, &expand_path(t, pid, &r)), "{t:?} -> {:?}", expand_path(t, pid, &r));
            }
        }

        // The filter keeps well-formed globs, warns about each other item,
        // and decides like a reference matcher (dynamic programming).
        let filter = get("CUDART_SHIM_TRACE_FILTER").unwrap_or_default();
        let items = filter.split(',').map(str::trim).filter(|g| !g.is_empty()).count();
        let dropped = warnings.iter().filter(|w| w.starts_with("CUDART_SHIM_TRACE_FILTER")).count();
        assert_eq!(items, c.filter.len() + dropped, "{filter:?} -> {:?}", c.filter);
        for (_, g) in &c.filter {
            assert!(!g.is_empty() && g.bytes().all(|b| b.is_ascii_alphanumeric() || b"_*?".contains(&b)), "{g:?}");
        }
        for n in [name.as_str(), "cudaMalloc", "cudaMemcpyAsync", "cudaLaunchKernel_ptsz", ""] {
            if n.len() > 256 {
                continue;
            }
            let last = c.filter.iter().rev().find(|(_, g)| reference_glob(g.as_bytes(), n.as_bytes()));
            let want = last.map_or(!c.filter.iter().any(|(inc, _)| *inc), |(inc, _)| *inc);
            assert_eq!(c.includes(n), want, "{n:?} through {:?}", c.filter);
        }
        if name.len() <= 256 {
            let pattern = get("CUDART_SHIM_TRACE_FILTER").unwrap_or_default();
            if pattern.len() <= 256 {
                let (p, n) = (pattern.as_bytes(), name.as_bytes());
                assert_eq!(glob_match(p, n), reference_glob(p, n), "{pattern:?} ~ {name:?}");
            }
        }

        // The pool switch: on for "1" only; a warning naming any other value.
        match pool_switch(get) {
            Ok(on) => assert_eq!(on, get("CUDART_SHIM_POOL").as_deref() == Some("1")),
            Err(w) => assert!(w.contains(&format!("{:?}", get("CUDART_SHIM_POOL").unwrap())), "{w}"),
        }
        // env_logger takes any filter text without panicking.
        env_logger::Builder::new().parse_filters(&log_filter(get)).build();
    }

    /// `path` has the directory structure of `template`: as many
    /// components, absolute only if it is, and `.`/`..` only where it has them.
    fn same_shape(template: &str, path: &str) -> bool {
        let (t, p): (Vec<&str>, Vec<&str>) = (template.split('/').collect(), path.split('/').collect());
        !path.is_empty()
            && !path.contains('\0')
            && t.len() == p.len()
            && t.iter().zip(&p).all(|(a, b)| !matches!(*b, "." | "..") || a == b)
    }

    /// `*` any run, `?` one byte: m[i][j] = pattern[..i] matches s[..j].
    fn reference_glob(pattern: &[u8], s: &[u8]) -> bool {
        let mut m = vec![vec![false; s.len() + 1]; pattern.len() + 1];
        m[0][0] = true;
        for i in 1..=pattern.len() {
            for j in 0..=s.len() {
                m[i][j] = match pattern[i - 1] {
                    b'*' => m[i - 1][j] || (j > 0 && m[i][j - 1]),
                    c => j > 0 && m[i - 1][j - 1] && (c == b'?' || c == s[j - 1]),
                };
            }
        }
        m[pattern.len()][s.len()]
    }
}

// ---- the watchdog (issue 35) ----------------------------------------------

/// What the watchdog and the on-demand hang report are asked to do
/// (`CUDART_SHIM_WATCHDOG`, `_WATCHDOG_ACTION`, `_HANG_FILE`,
/// `_DUMP_SIGNAL`; `cudart-shim trace|run --watchdog ...` sets them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WatchdogConfig {
    /// Report when nothing has progressed for this long (None: off).
    pub seconds: Option<f64>,
    /// Raise SIGABRT after the report.
    pub abort: bool,
    /// The report's path, `%p`/`%r` expanded (default
    /// `cudart-shim-hang-<pid>.json` in the working folder).
    pub file: String,
    /// The signal that asks for a report at any time.
    pub dump_signal: Option<i32>,
}

impl WatchdogConfig {
    /// Whether anything is asked (progress state is then kept).
    pub fn any(&self) -> bool {
        self.seconds.is_some() || self.dump_signal.is_some()
    }
}

pub use trace_format::hang::{parse_dump_signal, parse_watchdog_seconds};

/// Parse the watchdog's variables (the environment in production, a map
/// in unit tests). A bad value: one warning, that part off.
pub fn parse_watchdog_config(get: impl Fn(&str) -> Option<String>, pid: u32) -> (WatchdogConfig, Vec<String>) {
    let mut c = WatchdogConfig::default();
    let mut warnings = Vec::new();
    if let Some(v) = get("CUDART_SHIM_WATCHDOG") {
        match parse_watchdog_seconds(&v) {
            Ok(s) => c.seconds = Some(s),
            Err(e) => warnings.push(format!("CUDART_SHIM_WATCHDOG: {e}; the watchdog is off")),
        }
    }
    match get("CUDART_SHIM_WATCHDOG_ACTION").as_deref().map(str::trim) {
        None | Some("" | "report") => {}
        Some("abort") => c.abort = true,
        Some(o) => warnings.push(format!("CUDART_SHIM_WATCHDOG_ACTION: ignoring {o:?}; accepted: report (the default) or abort")),
    }
    if let Some(v) = get("CUDART_SHIM_DUMP_SIGNAL") {
        match parse_dump_signal(&v) {
            Ok(s) => c.dump_signal = Some(s),
            Err(e) => warnings.push(format!("CUDART_SHIM_DUMP_SIGNAL: {e}; no signal asks for a report")),
        }
    }
    let rank = rank_in_name(&get, pid);
    c.file = match get("CUDART_SHIM_HANG_FILE").filter(|v| !v.trim().is_empty()) {
        Some(t) => expand_path(&t, pid, &rank),
        None => format!("cudart-shim-hang-{pid}.json"),
    };
    (c, warnings)
}

/// The watchdog configuration of this process: read once, warnings logged.
pub fn watchdog_config() -> &'static WatchdogConfig {
    static CONFIG: std::sync::OnceLock<WatchdogConfig> = std::sync::OnceLock::new();
    CONFIG.get_or_init(|| {
        init_logging();
        let (c, warnings) = parse_watchdog_config(env_var, std::process::id());
        for w in warnings {
            log::warn!("{w}");
        }
        c
    })
}

#[cfg(test)]
mod tests {
    /// fuzz/capture found `CUDART_SHIM_NVTX_CAPTURE=@ 0.5` taken as a
    /// window opened by a range with no name.
    #[test]
    fn an_nvtx_capture_of_a_domain_alone_is_refused() {
        for v in ["@ 0.5", "@torch", " @x"] {
            let get = |k: &str| match k {
                "CUDART_SHIM_CAPTURE_RANGE" => Some("nvtx".to_owned()),
                "CUDART_SHIM_NVTX_CAPTURE" => Some(v.to_owned()),
                _ => None,
            };
            let mut w = Vec::new();
            let c = parse_capture(&get, &mut w);
            assert_eq!(c.nvtx, None, "{v:?}");
            assert_eq!(w.len(), 1, "{w:?}");
            assert!(w[0].contains("names no range"), "{w:?}");
        }
        let get = |k: &str| match k {
            "CUDART_SHIM_CAPTURE_RANGE" => Some("nvtx".to_owned()),
            "CUDART_SHIM_NVTX_CAPTURE" => Some("step@torch".to_owned()),
            _ => None,
        };
        assert_eq!(parse_capture(&get, &mut Vec::new()).nvtx, Some(("step".to_owned(), Some("torch".to_owned()))));
    }

    use super::*;
    use std::collections::HashMap;

    fn parse(vars: &[(&str, &str)]) -> (TraceConfig, Vec<String>) {
        let mut m: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        m.entry("RANK".into()).or_insert_with(|| "3".into());
        parse_trace_config(|k| m.get(k).cloned(), 42)
    }

    #[test]
    fn recorder_mode_size_signal_and_file() {
        let (c, w) = parse(&[("CUDART_SHIM_TRACE", "recorder")]);
        assert!(w.is_empty(), "{w:?}");
        assert!(c.recorder && c.any() && !c.summary && !c.timeline);
        assert_eq!((c.recorder_size, c.recorder_sigusr1), (1024, false));
        assert_eq!(c.recorder_file.as_deref(), Some("cudart-shim-recorder-42.log"));
        let (c, w) = parse(&[
            ("CUDART_SHIM_TRACE", "summary,recorder"),
            ("CUDART_SHIM_RECORDER_SIZE", "64"),
            ("CUDART_SHIM_RECORDER_SIGUSR1", "1"),
            ("CUDART_SHIM_TRACE_FILE", "crash-%p.log"),
        ]);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!((c.recorder_size, c.recorder_sigusr1), (64, true));
        assert_eq!(c.recorder_file.as_deref(), Some("crash-42.log"));
        // With the timeline on, the common file is the timeline's.
        let c = parse(&[("CUDART_SHIM_TRACE", "timeline,recorder"), ("CUDART_SHIM_TRACE_FILE", "t.json")]).0;
        assert_eq!((c.timeline_file.as_deref(), c.recorder_file.as_deref()), (Some("t.json"), Some("cudart-shim-recorder-42.log")));
        // Bad values: one warning each, naming the variable; defaults kept.
        let (c, w) = parse(&[("CUDART_SHIM_TRACE", "recorder"), ("CUDART_SHIM_RECORDER_SIZE", "0"), ("CUDART_SHIM_RECORDER_SIGUSR1", "maybe")]);
        assert_eq!((c.recorder_size, c.recorder_sigusr1), (1024, false));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("CUDART_SHIM_RECORDER_SIZE") && w[1].starts_with("CUDART_SHIM_RECORDER_SIGUSR1"), "{w:?}");
    }

    #[test]
    fn capture_windows() {
        let c = parse(&[]).0.capture;
        assert!(!c.any() && c.windows == 1);
        let c = parse(&[("CUDART_SHIM_CAPTURE_RANGE", "cudaProfilerApi"), ("CUDART_SHIM_CAPTURE_RANGE_END", "repeat:3")]).0.capture;
        assert!(c.profiler_api && c.starts_closed() && c.windows == 3);
        let c = parse(&[("CUDART_SHIM_CAPTURE_RANGE", "nvtx"), ("CUDART_SHIM_NVTX_CAPTURE", "step@my lib")]).0.capture;
        assert_eq!(c.nvtx, Some(("step".into(), Some("my lib".into()))));
        let c = parse(&[("CUDART_SHIM_CAPTURE_RANGE", "nvtx"), ("CUDART_SHIM_NVTX_CAPTURE", "a@b@")]).0.capture;
        assert_eq!(c.nvtx, Some(("a@b@".into(), None)));
        let c = parse(&[("CUDART_SHIM_DURATION", "2.5"), ("CUDART_SHIM_CAPTURE_SIGNAL", "USR2")]).0.capture;
        assert!(c.duration_s == Some(2.5) && c.signal && c.starts_closed());
        let c = parse(&[("CUDART_SHIM_DURATION", "2")]).0.capture;
        assert!(c.any() && !c.starts_closed());
        // Bad values: one warning each, naming the variable; that rule is off.
        let (c, w) = parse(&[
            ("CUDART_SHIM_CAPTURE_RANGE", "nvtx"),
            ("CUDART_SHIM_CAPTURE_RANGE_END", "repeat:x"),
            ("CUDART_SHIM_DELAY", "NaN"),
            ("CUDART_SHIM_CAPTURE_SIGNAL", "HUP"),
        ]);
        assert!(!c.capture.any() && c.capture.windows == 1, "{:?}", c.capture);
        assert_eq!(w.len(), 4, "{w:?}");
        for v in ["CUDART_SHIM_NVTX_CAPTURE", "CUDART_SHIM_CAPTURE_RANGE_END", "CUDART_SHIM_DELAY", "CUDART_SHIM_CAPTURE_SIGNAL"] {
            assert!(w.iter().any(|x| x.contains(v)), "{v}: {w:?}");
        }
    }

    #[test]
    fn modes() {
        assert!(!parse(&[]).0.any());
        assert!(!parse(&[("CUDART_SHIM_TRACE", "0")]).0.any());
        let c = parse(&[("CUDART_SHIM_TRACE", "1")]).0;
        assert!(c.summary && !c.calls && !c.timeline);
        let (c, w) = parse(&[("CUDART_SHIM_TRACE", "calls, timeline,bogus")]);
        assert!(!c.summary && c.calls && c.timeline);
        assert_eq!(c.timeline_file.as_deref(), Some("cudart-shim-42.pftrace"));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("CUDART_SHIM_TRACE") && w[0].contains("summary, calls, timeline"));
    }

    #[test]
    fn timeline_format_size_and_ring() {
        let tl = |vars: &[(&str, &str)]| parse(&[&[("CUDART_SHIM_TRACE", "timeline")], vars].concat());
        assert_eq!(tl(&[]).0.timeline_format, TimelineFormat::Perfetto);
        assert_eq!(tl(&[("CUDART_SHIM_TRACE_TIMELINE_FILE", "t.json")]).0.timeline_format, TimelineFormat::Json);
        assert_eq!(tl(&[("CUDART_SHIM_TRACE_TIMELINE_FILE", "trace")]).0.timeline_format, TimelineFormat::Perfetto);
        let c = tl(&[("CUDART_SHIM_TRACE_TIMELINE_FILE", "t.pftrace")]).0;
        assert_eq!((c.timeline_format, c.timeline_file.as_deref()), (TimelineFormat::Perfetto, Some("t.pftrace")));
        assert_eq!(tl(&[("CUDART_SHIM_TRACE_TIMELINE_FILE", "t.perfetto-trace")]).0.timeline_format, TimelineFormat::Perfetto);
        let c = tl(&[("CUDART_SHIM_TRACE_TIMELINE_FORMAT", "perfetto")]).0;
        assert_eq!((c.timeline_format, c.timeline_file.as_deref()), (TimelineFormat::Perfetto, Some("cudart-shim-42.pftrace")));
        // The variable wins over the extension.
        let c = tl(&[("CUDART_SHIM_TRACE_TIMELINE_FORMAT", "json"), ("CUDART_SHIM_TRACE_TIMELINE_FILE", "t.pftrace")]).0;
        assert_eq!(c.timeline_format, TimelineFormat::Json);
        let (c, w) = tl(&[("CUDART_SHIM_TRACE_TIMELINE_FORMAT", "xml")]);
        assert_eq!((c.timeline_format, w.len()), (TimelineFormat::Perfetto, 1));
        assert!(w[0].contains("CUDART_SHIM_TRACE_TIMELINE_FORMAT"));
        // The Kineto form (issue #37): by name, by variable, its default name.
        assert_eq!(tl(&[("CUDART_SHIM_TRACE_TIMELINE_FILE", "r0.kineto.json")]).0.timeline_format, TimelineFormat::Kineto);
        let c = tl(&[("CUDART_SHIM_TRACE_TIMELINE_FORMAT", "kineto")]).0;
        assert_eq!((c.timeline_format, c.timeline_file.as_deref()), (TimelineFormat::Kineto, Some("cudart-shim-42.kineto.json")));
        let (c, w) = tl(&[("CUDART_SHIM_TRACE_TIMELINE_FORMAT", "hta"), ("CUDART_SHIM_TRACE_TIMELINE_FILE", "t.json")]);
        assert_eq!((c.timeline_format, w.len()), (TimelineFormat::Json, 1));
        assert!(w[0].contains("kineto"), "{w:?}");
        assert_eq!(tl(&[("CUDART_SHIM_STEP_RANGE", "train step")]).0.step_range.as_deref(), Some("train step"));
        assert_eq!(tl(&[("CUDART_SHIM_STEP_RANGE", " ")]).0.step_range, None);
        let c = tl(&[("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE", "10M"), ("CUDART_SHIM_TRACE_TIMELINE_RING", "1")]).0;
        assert_eq!((c.timeline_max_size, c.timeline_ring), (Some(10 << 20), true));
        for (good, n) in [("64M", 64u64 << 20), ("64MiB", 64 << 20), ("4096", 4096), ("1 gib", 1 << 30), ("2T", 2 << 40)] {
            let (c, w) = tl(&[("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE", good)]);
            assert_eq!((c.timeline_max_size, w.len()), (Some(n), 0), "{good:?}");
        }
        for (bad, why) in [("10X", "unknown unit"), ("", "empty"), ("12", "least timeline size"), ("-1M", "not a size"), ("64MB", "did you mean 64MiB?")] {
            let (c, w) = tl(&[("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE", bad)]);
            assert_eq!((c.timeline_max_size, w.len()), (None, 1), "{bad:?}");
            assert!(w[0].starts_with("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE=") && w[0].contains(why), "{bad:?}: {}", w[0]);
            assert!(w[0].contains(trace_format::size::UNITS), "{}", w[0]);
        }
        // A ring needs a size.
        let (c, w) = tl(&[("CUDART_SHIM_TRACE_TIMELINE_RING", "1")]);
        assert!(!c.timeline_ring && w[0].contains("CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE"));
    }

    #[test]
    fn the_memory_limit_variable_reads_the_one_size_grammar() {
        let mem = |v: &str| parse_memory_config(|k| (k == "CUDART_SHIM_MEMORY_LIMIT").then(|| v.to_owned()));
        let (c, w) = mem("0=8G,1=4GiB,512m");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!((c.limit.of(0), c.limit.of(1), c.limit.of(2)), (Some(8 << 30), Some(4 << 30), Some(512 << 20)));
        let (c, w) = mem("1MB");
        assert!(c.limit.is_empty());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("CUDART_SHIM_MEMORY_LIMIT=\"1MB\": unknown unit \"MB\"") && w[0].contains("did you mean 1MiB?"), "{}", w[0]);
        assert!(w[0].contains(trace_format::size::UNITS) && w[0].ends_with("no memory limit is applied"), "{}", w[0]);
    }

    #[test]
    fn gpu_mode_combines_and_takes_the_summary_file() {
        let c = parse(&[("CUDART_SHIM_TRACE", "summary,GPU")]).0;
        assert!(c.summary && c.gpu && !c.timeline);
        let c = parse(&[("CUDART_SHIM_TRACE", "gpu"), ("CUDART_SHIM_TRACE_FILE", "/tmp/g.json")]).0;
        assert!(c.gpu && !c.summary);
        assert_eq!(c.summary_file.as_deref(), Some("/tmp/g.json"));
        assert!(!parse(&[("CUDART_SHIM_TRACE", "all")]).0.gpu, "all stays summary, calls, timeline");
    }

    #[test]
    fn files_and_expansion() {
        assert_eq!(expand_path("t-%p-%r-%%-%x.json", 7, "2"), "t-7-2-%-%x.json");
        let c = parse(&[("CUDART_SHIM_TRACE", "summary,calls"), ("CUDART_SHIM_TRACE_FILE", "/tmp/s-%r.csv")]).0;
        assert_eq!(c.summary_file.as_deref(), Some("/tmp/s-3.csv"));
        assert_eq!(c.calls_file.as_deref(), Some("/tmp/s-3.csv"));
        let c = parse(&[("CUDART_SHIM_TRACE", "summary,timeline"), ("CUDART_SHIM_TRACE_FILE", "t%p.json")]).0;
        assert_eq!(c.timeline_file.as_deref(), Some("t42.json"));
        assert_eq!(c.summary_file, None);
    }

    #[test]
    fn filter() {
        let (c, w) = parse(&[("CUDART_SHIM_TRACE_FILTER", "cudaMem*,-cudaMemset*,bad glob!")]);
        assert_eq!(w.len(), 1);
        assert!(c.includes("cudaMemcpy") && !c.includes("cudaMemsetAsync") && !c.includes("cudaGetDevice"));
        let c = parse(&[("CUDART_SHIM_TRACE_FILTER", "-cudaGetLastError")]).0;
        assert!(c.includes("cudaMalloc") && !c.includes("cudaGetLastError"));
        assert!(glob_match(b"cuda?et*", b"cudaGetDevice") && !glob_match(b"cuda", b"cudaX"));
        // Found by the fuzz target: a `*` facing a `*` stays a wildcard.
        assert!(glob_match(b"**a*", b"x*a*?"));
    }

    #[test]
    fn driver_flag() {
        assert_eq!(parse(&[]).0.sample, 1);
        assert_eq!(parse(&[("CUDART_SHIM_TRACE_SAMPLE", " 16 ")]).0.sample, 16);
        for bad in ["0", "-3", "x", "1e3", "2000000"] {
            let (c, w) = parse(&[("CUDART_SHIM_TRACE_SAMPLE", bad)]);
            assert!(c.sample == 1 && w[0].contains("CUDART_SHIM_TRACE_SAMPLE"), "{bad}");
        }
        let c = parse(&[]).0;
        assert!(c.driver && c.runtime, "both API layers are traced by default");
        assert!(!parse(&[("CUDART_SHIM_TRACE_DRIVER", "0")]).0.driver);
        assert!(!parse(&[("CUDART_SHIM_TRACE_RUNTIME", "off")]).0.runtime);
        assert!(parse(&[("CUDART_SHIM_TRACE_DRIVER", "1")]).0.driver);
        assert!(!c.registration, "registration calls are only counted by default");
        assert!(parse(&[("CUDART_SHIM_TRACE_REGISTRATION", "1")]).0.registration);
        let (c, w) = parse(&[("CUDART_SHIM_TRACE_REGISTRATION", "all")]);
        assert!(!c.registration && w[0].contains("CUDART_SHIM_TRACE_REGISTRATION"));
        let (c, w) = parse(&[("CUDART_SHIM_TRACE_DRIVER", "maybe")]);
        assert!(c.driver && w[0].contains("CUDART_SHIM_TRACE_DRIVER"));
        let (c, w) = parse(&[("CUDART_SHIM_TRACE_RUNTIME", "maybe")]);
        assert!(c.runtime && w[0].contains("CUDART_SHIM_TRACE_RUNTIME"));
    }

    /// Every file of the committed corpus of the configuration fuzz target
    /// (fuzz/corpus/config) keeps its invariants.
    #[test]
    fn fuzz_corpus_keeps_the_invariants() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/config");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            fuzzing::one_input(&std::fs::read(&p).unwrap());
            n += 1;
        }
        assert!(n >= 10, "{n} files in {}", dir.display());
    }

    #[test]
    fn process_identity_reads_the_job_variables() {
        let m: HashMap<&str, &str> = [("RANK", "3"), ("LOCAL_RANK", "1"), ("WORLD_SIZE", "8"), ("CUDA_VISIBLE_DEVICES", "2,3")].into();
        let p = process_identity(|k| m.get(k).map(|v| v.to_string()), 77);
        assert_eq!((p.rank, p.local_rank, p.world_size, p.pid), (Some(3), Some(1), Some(8), 77));
        assert_eq!(p.visible_devices.as_deref(), Some("2,3"));
        assert!(!p.host.is_empty());
        let p = process_identity(|k| (k == "LOCAL_RANK").then(|| "2".to_owned()), 1);
        assert_eq!((p.rank, p.world_size), (Some(2), None));
        assert_eq!(process_identity(|k| (k == "RANK").then(|| "../1".to_owned()), 1).rank, None);
    }

    #[test]
    fn rank_takes_digits_only() {
        let r = |rank: &str, local: &str| {
            rank_of(&[("RANK", rank), ("LOCAL_RANK", local)])
        };
        assert_eq!(r("7", "1").as_deref(), Some("7"));
        assert_eq!(r("../x", "2").as_deref(), Some("2"));
        assert_eq!(r("1/2", "a"), None);
        assert_eq!(rank_of(&[]), None);
    }

    fn rank_of(vars: &[(&str, &str)]) -> Option<String> {
        let m: HashMap<&str, &str> = vars.iter().copied().collect();
        rank(|k| m.get(k).map(|v| v.to_string()))
    }

    /// `%r` of a process with neither RANK nor LOCAL_RANK is never a name a
    /// rank wants (issue #27: torchrun's launcher took rank 0's file).
    #[test]
    fn a_process_without_a_rank_never_takes_rank_0s_name() {
        let none = |_: &str| None;
        assert_eq!(rank_in_name(none, 4242), "norank-4242");
        assert_eq!(rank_in_name(|k| (k == "LOCAL_RANK").then(|| "1".to_owned()), 7), "1");
        assert_eq!(rank_in_name(|k| (k == "RANK").then(|| "0".to_owned()), 7), "0");
        let (c, _) = parse_trace_config(|k| (k == "CUDART_SHIM_TRACE_TIMELINE_FILE").then(|| "tl-rank%r.json".to_owned()), 4242);
        assert_eq!(c.timeline_file.as_deref(), Some("tl-ranknorank-4242.json"));
    }

    #[test]
    fn runtime_version_values() {
        let v = |s: &str| runtime_version_switch(|_| Some(s.to_owned()));
        assert_eq!(v("13000"), Ok(Some(13000)));
        assert_eq!(v(" 12.9 "), Ok(Some(12090)));
        assert_eq!(v("13.5"), Ok(Some(13050)));
        assert_eq!(v("13.10"), Ok(Some(13100)));
        assert_eq!(v(""), Ok(None));
        assert_eq!(runtime_version_switch(|_| None), Ok(None));
        for bad in ["13", "-13000", "13.0.1", "x", ".5", "13.", "100000", "1e4"] {
            let w = v(bad).unwrap_err();
            assert!(w.contains("CUDART_SHIM_RUNTIME_VERSION") && w.contains(&format!("{bad:?}")), "{bad}: {w}");
        }
    }

    #[test]
    fn metrics_variables() {
        let m = |vars: &[(&str, &str)]| {
            let map: HashMap<&str, &str> = vars.iter().copied().collect();
            parse_metrics_config(|k| map.get(k).map(|v| v.to_string()), 42)
        };
        let (c, w) = m(&[]);
        assert!(!c.on() && w.is_empty());
        let (c, w) = m(&[("CUDART_SHIM_METRICS_FILE", "/tmp/m-%r-%p.prom"), ("RANK", "3"), ("CUDART_SHIM_METRICS_INTERVAL", "2")]);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!((c.file.as_deref(), c.interval_s, c.listen), (Some("/tmp/m-3-42.prom"), 2.0, None));
        let (c, _) = m(&[("CUDART_SHIM_METRICS_LISTEN", "9400"), ("LOCAL_RANK", "1")]);
        assert_eq!(c.listen.unwrap().to_string(), "127.0.0.1:9401");
        // One bad value: one warning naming it, and no metrics at all.
        for (var, bad) in [("CUDART_SHIM_METRICS_LISTEN", "localhost:x"), ("CUDART_SHIM_METRICS_INTERVAL", "0"), ("CUDART_SHIM_METRICS_FILE", "")] {
            let (c, w) = m(&[("CUDART_SHIM_METRICS_FILE", "/tmp/ok.prom"), (var, bad)]);
            assert!(!c.on(), "{var}={bad}");
            assert_eq!(w.len(), 1, "{w:?}");
            assert!(w[0].starts_with(var) && w[0].ends_with("no metrics"), "{}", w[0]);
        }
    }

    #[test]
    fn step_range_instances() {
        assert!(is_step("step", "step") && is_step("ProfilerStep", "ProfilerStep#12"));
        for no in ["steps", "step#", "step#x", "Step", "xstep"] {
            assert!(!is_step("step", no), "{no}");
        }
    }

    #[test]
    fn pool_switch_values() {
        let p = |v: &str| pool_switch(|_| Some(v.to_owned()));
        assert_eq!(p("1"), Ok(true));
        assert_eq!(p("0"), Ok(false));
        assert!(p("yes").unwrap_err().contains("CUDART_SHIM_POOL=\"yes\""));
        assert_eq!(pool_switch(|_| None), Ok(false));
    }
}
