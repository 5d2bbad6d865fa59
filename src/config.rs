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
        let filter = env_var("CUDART_SHIM_LOG").unwrap_or_else(|| "warn".to_owned());
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

/// What `CUDART_SHIM_TRACE*` asks for, parsed once by [`trace_config`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceConfig {
    pub summary: bool,
    pub calls: bool,
    pub timeline: bool,
    /// `CUDART_SHIM_TRACE_DRIVER=1`: wrap driver entry points handed out by
    /// `cudaGetDriverEntryPoint*` in traced forwarders.
    pub driver: bool,
    /// Include (`true`) / exclude (`false`) globs, in the order given.
    pub filter: Vec<(bool, String)>,
    /// Expanded destinations; None = the default (stderr for summary and
    /// calls, `cudart-shim-<pid>.json` for the timeline).
    pub summary_file: Option<String>,
    pub calls_file: Option<String>,
    pub timeline_file: Option<String>,
    /// `CUDART_SHIM_TRACE_SAMPLE=N`: with only the summary (or counters)
    /// on, time 1 call in N of each function on each thread; every call is
    /// still counted. 1 (the default) times every call.
    pub sample: u32,
}

impl TraceConfig {
    pub fn any(&self) -> bool {
        self.summary || self.calls || self.timeline
    }

    /// Whether the filter lets function `name` through: the last glob that
    /// matches decides; with only exclusions, everything else is included;
    /// with inclusions, only what they match.
    pub fn includes(&self, name: &str) -> bool {
        let mut decided = !self.filter.iter().any(|(inc, _)| *inc);
        for (inc, g) in &self.filter {
            if glob_match(g.as_bytes(), name.as_bytes()) {
                decided = *inc;
            }
        }
        decided
    }
}

/// `*` any run, `?` one character; everything else literal.
pub fn glob_match(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut i, mut star, mut mark) = (0, 0, usize::MAX, 0);
    while i < s.len() {
        if p < pat.len() && (pat[p] == b'?' || pat[p] == s[i]) {
            p += 1;
            i += 1;
        } else if p < pat.len() && pat[p] == b'*' {
            star = p;
            mark = i;
            p += 1;
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

/// Expand `%p` (pid), `%r` (rank: `RANK`, else `LOCAL_RANK`, else 0) and
/// `%%` in a trace file name.
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

/// The rank of this process in a multi-process job, for `%r`.
pub fn rank() -> String {
    let valid = |v: String| (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())).then_some(v);
    env_var("RANK").and_then(valid).or_else(|| env_var("LOCAL_RANK").and_then(valid)).unwrap_or_else(|| "0".to_owned())
}

/// Parse the tracing variables from a lookup function (the environment in
/// production, a map in unit tests). Returns the configuration and the
/// warnings for values that were not understood (the rest still applies).
pub fn parse_trace_config(get: impl Fn(&str) -> Option<String>, pid: u32, rank: &str) -> (TraceConfig, Vec<String>) {
    let mut c = TraceConfig::default();
    let mut warnings = Vec::new();
    if let Some(v) = get("CUDART_SHIM_TRACE") {
        let v = v.trim();
        if !v.is_empty() && v != "0" {
            for m in v.split(',').map(str::trim).filter(|m| !m.is_empty()) {
                match m.to_ascii_lowercase().as_str() {
                    "1" | "summary" => c.summary = true,
                    "calls" => c.calls = true,
                    "timeline" => c.timeline = true,
                    "all" => (c.summary, c.calls, c.timeline) = (true, true, true),
                    _ => warnings.push(format!(
                        "CUDART_SHIM_TRACE: ignoring {m:?}; accepted: a comma list of summary, calls, timeline (or 1 = summary, 0 = off)"
                    )),
                }
            }
        }
    }
    c.sample = 1;
    if let Some(v) = get("CUDART_SHIM_TRACE_SAMPLE") {
        match v.trim().parse::<u32>() {
            Ok(n) if (1..=1_000_000).contains(&n) => c.sample = n,
            _ => warnings.push(format!(
                "CUDART_SHIM_TRACE_SAMPLE: ignoring {v:?}; accepted: a whole number from 1 (time every call, the default) to 1000000"
            )),
        }
    }
    if let Some(v) = get("CUDART_SHIM_TRACE_DRIVER") {
        match v.trim() {
            "1" | "on" | "true" | "yes" => c.driver = true,
            "" | "0" | "off" | "false" | "no" => {}
            o => warnings.push(format!("CUDART_SHIM_TRACE_DRIVER: ignoring {o:?}; accepted: 1 or 0")),
        }
    }
    if let Some(v) = get("CUDART_SHIM_TRACE_FILTER") {
        for g in v.split(',').map(str::trim).filter(|g| !g.is_empty()) {
            let (inc, pat) = match g.strip_prefix('-') {
                Some(p) => (false, p),
                None => (true, g.strip_prefix('+').unwrap_or(g)),
            };
            if pat.is_empty() || !pat.bytes().all(|b| b.is_ascii_alphanumeric() || b"_*?".contains(&b)) {
                warnings.push(format!(
                    "CUDART_SHIM_TRACE_FILTER: ignoring {g:?}; accepted: comma-separated globs of function names (letters, digits, _, *, ?), prefixed - to exclude"
                ));
                continue;
            }
            c.filter.push((inc, pat.to_owned()));
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
        if c.timeline {
            c.timeline_file = Some(f);
        } else {
            c.summary_file = c.summary.then(|| f.clone());
            c.calls_file = c.calls.then_some(f);
        }
    }
    if let Some(f) = path("CUDART_SHIM_TRACE_SUMMARY_FILE", &mut warnings) {
        c.summary_file = Some(f);
    }
    if let Some(f) = path("CUDART_SHIM_TRACE_CALLS_FILE", &mut warnings) {
        c.calls_file = Some(f);
    }
    if let Some(f) = path("CUDART_SHIM_TRACE_TIMELINE_FILE", &mut warnings) {
        c.timeline_file = Some(f);
    }
    if c.timeline && c.timeline_file.is_none() {
        c.timeline_file = Some(expand_path("cudart-shim-%p.json", pid, rank));
    }
    (c, warnings)
}

/// The tracing configuration of this process: read once from the
/// environment, warnings and effective values logged.
pub fn trace_config() -> &'static TraceConfig {
    static CONFIG: std::sync::OnceLock<TraceConfig> = std::sync::OnceLock::new();
    CONFIG.get_or_init(|| {
        init_logging();
        let (c, warnings) = parse_trace_config(env_var, std::process::id(), &rank());
        for w in warnings {
            log::warn!("{w}");
        }
        log::debug!(
            "tracing: summary={} calls={} timeline={} driver={} sample=1/{} filter={:?} summary_file={:?} calls_file={:?} timeline_file={:?}",
            c.summary, c.calls, c.timeline, c.driver, c.sample, c.filter, c.summary_file, c.calls_file, c.timeline_file
        );
        c
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(vars: &[(&str, &str)]) -> (TraceConfig, Vec<String>) {
        let m: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        parse_trace_config(|k| m.get(k).cloned(), 42, "3")
    }

    #[test]
    fn modes() {
        assert!(!parse(&[]).0.any());
        assert!(!parse(&[("CUDART_SHIM_TRACE", "0")]).0.any());
        let c = parse(&[("CUDART_SHIM_TRACE", "1")]).0;
        assert!(c.summary && !c.calls && !c.timeline);
        let (c, w) = parse(&[("CUDART_SHIM_TRACE", "calls, timeline,bogus")]);
        assert!(!c.summary && c.calls && c.timeline);
        assert_eq!(c.timeline_file.as_deref(), Some("cudart-shim-42.json"));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("CUDART_SHIM_TRACE") && w[0].contains("summary, calls, timeline"));
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
    }

    #[test]
    fn driver_flag() {
        assert_eq!(parse(&[]).0.sample, 1);
        assert_eq!(parse(&[("CUDART_SHIM_TRACE_SAMPLE", " 16 ")]).0.sample, 16);
        for bad in ["0", "-3", "x", "1e3", "2000000"] {
            let (c, w) = parse(&[("CUDART_SHIM_TRACE_SAMPLE", bad)]);
            assert!(c.sample == 1 && w[0].contains("CUDART_SHIM_TRACE_SAMPLE"), "{bad}");
        }
        assert!(parse(&[("CUDART_SHIM_TRACE_DRIVER", "1")]).0.driver);
        let (c, w) = parse(&[("CUDART_SHIM_TRACE_DRIVER", "maybe")]);
        assert!(!c.driver && w[0].contains("CUDART_SHIM_TRACE_DRIVER"));
    }
}
