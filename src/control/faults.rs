//! Faults injected without code: `CUDART_SHIM_FAULTS`, and `--fault` of
//! `cudart-shim run` and `trace` (which set the variable).
//!
//! Grammar (docs/CONTROL.md has the long form): specs separated by `;`,
//!
//! ```text
//! SPEC = GLOB { ":" KEY [ "=" VALUE ] }
//! ```
//!
//! - GLOB: one glob (`*`, `?`) over runtime (`cuda*`) or driver (`cu*`)
//!   names; it must match at least one function, and only functions of the
//!   layer of `error=`;
//! - which calls (all of them when none is given; several are all required):
//!   `nth=N` (the N-th matching call, once), `every=N` (every N-th),
//!   `after=SECONDS` (since the process's first call that is not kernel
//!   registration), `p=P` with `seed=S`
//!   (probability, deterministic for a seed: call n fires when
//!   splitmix64(seed, n) < P), `device=D` (the calling thread's device),
//!   `count=K` (at most K faults);
//! - what happens (at least one): `error=NAME` (a `cudaError*` name for
//!   runtime functions, `CUDA_ERROR_*` for driver functions), `sticky` (with
//!   `error=`: from then on every call on that device fails with it, as
//!   after a real illegal address; see [`STICKY_EXEMPT`]), `delay=MS` (the
//!   call runs MS milliseconds late).
//!
//! Matching calls are counted at every depth (a driver call our runtime
//! makes counts too); a sticky error is answered by the program's own
//! calls only (depth 0), as the runtime call already answered for the
//! driver calls under it. The faults stage runs after the hooks' `before`
//! phase (see `crate::intercept`). Through the variable, a bad spec is one
//! warning and no fault at all; the command refuses it (exit 2) with the
//! same message.

use super::{params, Call, DRIVER, RUNTIME};
use crate::config::glob_match;
use std::cell::Cell;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// What a spec may say, for every message about a bad one.
pub const ALLOWED: &str = "a fault spec is GLOB:KEY=VALUE:... (several separated by ';'). GLOB: one glob (*, ?) over runtime (cuda*) or driver (cu*) function names. \
Which calls: nth=N (the N-th matching call, once), every=N, after=SECONDS (since the first call that is not kernel registration), p=P (0 to 1) with seed=S, device=D, count=K (at most K faults). \
What happens (at least one): error=NAME (cudaError* for runtime functions, CUDA_ERROR_* for driver functions), sticky (with error=: every later call on that device fails), delay=MS. \
Example: cudaMalloc:nth=3:error=cudaErrorMemoryAllocation";

/// An error by name, with its layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorCode {
    pub code: i32,
    pub layer: u32,
    pub name: &'static str,
}

/// One parsed spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The spec as written (for messages and the marks in the outputs).
    pub text: String,
    pub glob: String,
    pub nth: Option<u64>,
    pub every: Option<u64>,
    pub after: Option<f64>,
    pub p: Option<f64>,
    pub seed: u64,
    pub device: Option<i32>,
    pub count: Option<u64>,
    pub error: Option<ErrorCode>,
    pub sticky: bool,
    pub delay_ms: Option<u64>,
    /// Function ids the glob matches (a bit per id).
    matches: Box<[u64]>,
}

impl Spec {
    fn matches(&self, id: u32) -> bool {
        self.matches.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
}

/// The error named `name`, in the runtime's or the driver's list.
pub fn error_by_name(name: &str) -> Option<ErrorCode> {
    if let Some(t) = crate::types::error_codes::ERROR_TABLE.iter().find(|t| t.1.to_bytes() == name.as_bytes()) {
        return Some(ErrorCode { code: t.0, layer: RUNTIME, name: crate::types::error_names::name(crate::types::cudaError_t(t.0)) });
    }
    params::DRIVER_RESULTS.iter().find(|r| r.1 == name).map(|r| ErrorCode { code: r.0, layer: DRIVER, name: r.1 })
}

fn layer_of(id: u32) -> u32 {
    if id < params::DRIVER_BASE { RUNTIME } else { DRIVER }
}

fn layer_name(l: u32) -> &'static str {
    if l == RUNTIME { "runtime" } else { "driver" }
}

/// Parse every spec of `text` (separated by `;`; empty items are skipped).
pub fn parse(text: &str) -> Result<Vec<Spec>, String> {
    text.split(';').map(str::trim).filter(|s| !s.is_empty()).map(parse_one).collect()
}

fn bad<T>(text: &str, part: &str, why: &str) -> Result<T, String> {
    Err(format!("bad fault spec {text:?}: {part:?} {why}. {ALLOWED}"))
}

/// Parse one spec. Err: a message naming the bad part and what is allowed.
pub fn parse_one(text: &str) -> Result<Spec, String> {
    let mut parts = text.split(':');
    let glob = parts.next().unwrap_or("").trim().to_owned();
    if glob.is_empty() || !glob.bytes().all(|b| b.is_ascii_alphanumeric() || b"_*?".contains(&b)) {
        return bad(text, &glob, "is not a glob of function names (letters, digits, _, *, ?)");
    }
    let words = params::COUNT.div_ceil(64) as usize;
    let mut matches = vec![0u64; words].into_boxed_slice();
    let mut layers = [false; 2];
    let mut examples: [Option<&str>; 2] = [None; 2];
    for (id, name) in params::NAMES.iter().enumerate() {
        if glob_match(glob.as_bytes(), name.as_bytes()) {
            matches[id / 64] |= 1 << (id % 64);
            let l = layer_of(id as u32) as usize;
            layers[l] = true;
            examples[l].get_or_insert(name);
        }
    }
    if !layers[0] && !layers[1] {
        return bad(text, &glob, "matches no runtime or driver function");
    }
    let mut s = Spec {
        text: text.to_owned(),
        glob,
        nth: None,
        every: None,
        after: None,
        p: None,
        seed: 0,
        device: None,
        count: None,
        error: None,
        sticky: false,
        delay_ms: None,
        matches,
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut seed_given = false;
    for part in parts {
        let (key, value) = match part.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (part.trim(), None),
        };
        if seen.contains(&key) {
            return bad(text, part, "is given twice");
        }
        seen.push(key);
        let count = |v: Option<&str>| v.and_then(|v| v.parse::<u64>().ok()).filter(|&n| n >= 1);
        match (key, value) {
            ("nth", v) => s.nth = Some(match count(v) { Some(n) => n, None => return bad(text, part, "needs a whole number of 1 or more") }),
            ("every", v) => s.every = Some(match count(v) { Some(n) => n, None => return bad(text, part, "needs a whole number of 1 or more") }),
            ("count", v) => s.count = Some(match count(v) { Some(n) => n, None => return bad(text, part, "needs a whole number of 1 or more") }),
            ("after", Some(v)) => match v.parse::<f64>() {
                Ok(t) if t.is_finite() && t >= 0.0 => s.after = Some(t),
                _ => return bad(text, part, "needs a number of seconds, 0 or more"),
            },
            ("p", Some(v)) => match v.parse::<f64>() {
                Ok(p) if (0.0..=1.0).contains(&p) => s.p = Some(p),
                _ => return bad(text, part, "needs a probability from 0 to 1"),
            },
            ("seed", Some(v)) => match v.parse::<u64>() {
                Ok(n) => {
                    s.seed = n;
                    seed_given = true;
                }
                _ => return bad(text, part, "needs a whole number"),
            },
            ("device", Some(v)) => match v.parse::<i32>() {
                Ok(d) if d >= 0 => s.device = Some(d),
                _ => return bad(text, part, "needs a device number, 0 or more"),
            },
            ("delay", Some(v)) => match v.parse::<u64>() {
                Ok(ms) if ms <= 3_600_000 => s.delay_ms = Some(ms),
                _ => return bad(text, part, "needs whole milliseconds (at most an hour)"),
            },
            ("error", Some(v)) => match error_by_name(v) {
                Some(e) if e.code == 0 => return bad(text, part, "is not an error"),
                Some(e) => s.error = Some(e),
                None => return bad(text, part, "names no cudaError_t or CUresult value (e.g. cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY)"),
            },
            ("sticky", None) => s.sticky = true,
            ("sticky", Some(_)) => return bad(text, part, "takes no value"),
            ("after" | "p" | "seed" | "device" | "delay" | "error", None) => return bad(text, part, "needs a value (KEY=VALUE)"),
            _ => return bad(text, part, "is not a key"),
        }
    }
    if s.sticky && s.error.is_none() {
        return bad(text, "sticky", "needs error=NAME");
    }
    if s.error.is_none() && s.delay_ms.is_none() {
        return bad(text, text, "says nothing to do: give error=NAME, delay=MS or both");
    }
    if seed_given && s.p.is_none() {
        return bad(text, "seed", "applies to p= only");
    }
    if let Some(e) = s.error {
        let other = 1 - e.layer as usize;
        if layers[other] {
            let why = format!(
                "is a {} error, but the glob {:?} also matches {} functions ({}...): use a glob of {} functions only",
                layer_name(e.layer),
                s.glob,
                layer_name(other as u32),
                examples[other].unwrap_or("?"),
                layer_name(e.layer)
            );
            return bad(text, e.name, &why);
        }
    }
    Ok(s)
}

/// Calls that still answer after a sticky error: they need no context
/// (versions, error names, device counts and properties, the last error,
/// which the runtime answers from its own sticky record), or they recover
/// from it (a device reset). Measured on the GPU by scripts/gpu-control.
pub const STICKY_EXEMPT: &[&str] = &[
    "cudaGetLastError",
    "cudaPeekAtLastError",
    "cudaGetErrorName",
    "cudaGetErrorString",
    "cudaRuntimeGetVersion",
    "cudaDriverGetVersion",
    "cudaGetDeviceCount",
    "cudaGetDevice",
    "cudaSetDevice",
    "cudaGetDeviceProperties",
    "cudaDeviceGetAttribute",
    "cudaDeviceGetPCIBusId",
    "cudaDeviceGetByPCIBusId",
    "cudaDeviceReset",
    "__cuda*",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDeviceGetUuid*",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem*",
    "cuDeviceGetPCIBusId",
    "cuDeviceGetByPCIBusId",
    "cuDevicePrimaryCtxGetState",
    "cuDevicePrimaryCtxReset*",
    "cuGetProcAddress*",
    "cuGetExportTable",
    "cuCtxGetCurrent",
    "cuCtxGetDevice*",
    // Measured on an H200 (driver 580): NVIDIA's static runtime calls these
    // after a real illegal address and the driver answers them.
    "cuCtxGetApiVersion",
    "cuCtxSetCurrent",
];

struct Active {
    spec: Spec,
    seen: AtomicU64,
    fired: AtomicU64,
}

struct State {
    specs: Box<[Active]>,
    /// `after=`'s clock: the first call that is program work. Kernel
    /// registration does not start it (`import torch` registers thousands
    /// of kernels, seconds before the program's first CUDA call).
    start: OnceLock<Instant>,
    /// A bit per id: registration calls (`__cudaRegister*`).
    registration: Box<[u64]>,
    /// A bit per id: matched by some spec (a quick no).
    any: Box<[u64]>,
    /// A bit per id: answers after a sticky error.
    exempt: Box<[u64]>,
}

static STATE: OnceLock<Option<State>> = OnceLock::new();
/// The sticky error (0: none) and its device (-1: every device).
static STICKY: AtomicI32 = AtomicI32::new(0);
static STICKY_DEVICE: AtomicI32 = AtomicI32::new(-1);
/// The device was reset after the sticky error (see [`sticky_answer`]).
static RESET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static STICKY_SPEC: AtomicU64 = AtomicU64::new(0);

fn bitset(f: impl Fn(&str) -> bool) -> Box<[u64]> {
    let mut b = vec![0u64; params::COUNT.div_ceil(64) as usize].into_boxed_slice();
    for (id, name) in params::NAMES.iter().enumerate() {
        if f(name) {
            b[id / 64] |= 1 << (id % 64);
        }
    }
    b
}

fn bit(b: &[u64], id: u32) -> bool {
    b.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
}

fn state() -> Option<&'static State> {
    STATE
        .get_or_init(|| {
            let text = crate::config::faults_var()?;
            crate::config::init_logging();
            match parse(text) {
                Ok(specs) if !specs.is_empty() => {
                    log::info!("faults: {} spec(s) from CUDART_SHIM_FAULTS: {text}", specs.len());
                    Some(build(specs))
                }
                Ok(_) => None,
                Err(e) => {
                    log::warn!("CUDART_SHIM_FAULTS: {e}. No fault is injected.");
                    None
                }
            }
        })
        .as_ref()
}

fn build(specs: Vec<Spec>) -> State {
    let mut any = vec![0u64; params::COUNT.div_ceil(64) as usize].into_boxed_slice();
    for s in &specs {
        for (a, m) in any.iter_mut().zip(s.matches.iter()) {
            *a |= m;
        }
    }
    State {
        specs: specs.into_iter().map(|spec| Active { spec, seen: AtomicU64::new(0), fired: AtomicU64::new(0) }).collect(),
        start: OnceLock::new(),
        registration: bitset(super::is_registration),
        any,
        exempt: bitset(|n| STICKY_EXEMPT.iter().any(|g| glob_match(g.as_bytes(), n.as_bytes()))),
    }
}

/// Whether faults are configured (reads `CUDART_SHIM_FAULTS` once).
pub fn enabled() -> bool {
    state().is_some()
}

/// Whether a call of function `id` needs the faults stage: a spec matches
/// it, a sticky error is set, or `after=`'s clock has not started yet (the
/// first call that is program work starts it). The pipeline asks this when
/// faults (and hooks) are all that is on, so that the calls no spec names
/// keep the fast path.
#[inline]
pub fn wanted(id: u32) -> bool {
    match STATE.get() {
        Some(Some(st)) => STICKY.load(Relaxed) != 0 || st.start.get().is_none() || bit(&st.any, id),
        _ => false,
    }
}

/// The calling thread's device, as the runtime knows it; set by the runtime
/// when it initializes (its current device, which needs no context).
static DEVICE_QUERY: OnceLock<fn() -> Option<i32>> = OnceLock::new();

/// Register how to ask the runtime for the calling thread's device.
pub fn set_device_query(f: fn() -> Option<i32>) {
    let _ = DEVICE_QUERY.set(f);
}

/// The device of the calling thread: the runtime's answer, else the
/// driver's current context's device; None when neither knows (nothing
/// is opened or initialized here: this runs inside their own calls).
fn calling_device() -> Option<i32> {
    if let Some(f) = DEVICE_QUERY.get() {
        return f();
    }
    if !crate::driver::loader::opened() {
        return None;
    }
    let mut dev = 0;
    crate::driver::cu!(cuCtxGetDevice(&mut dev, std::ptr::null_mut())).ok().map(|_| dev)
}

thread_local! {
    // No destructors: usable during thread teardown.
    /// Set while this thread evaluates faults: the device query's own
    /// calls come back through the pipeline and must not be judged.
    static JUDGING: Cell<bool> = const { Cell::new(false) };
    /// The mark of the call that just went through the stages (0: none),
    /// for observation to take ([`take_mark`]).
    static MARK: Cell<usize> = const { Cell::new(0) };
}

/// What the faults stage decided for one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// Fail the call with this code (it does not run).
    pub fail: Option<i32>,
    /// What to mark the call with in the outputs (0: nothing).
    pub mark: usize,
}

/// The faults stage: before the call. Delays happen here.
pub fn before(call: &Call) -> Decision {
    let Some(st) = state() else { return Decision::default() };
    if st.start.get().is_none() && !bit(&st.registration, call.function_id) {
        let _ = st.start.set(Instant::now());
    }
    let sticky = STICKY.load(Relaxed);
    if sticky == 0 && !bit(&st.any, call.function_id) {
        return Decision::default();
    }
    if JUDGING.try_with(|j| j.replace(true)).unwrap_or(true) {
        return Decision::default();
    }
    struct Judged;
    impl Drop for Judged {
        fn drop(&mut self) {
            let _ = JUDGING.try_with(|j| j.set(false));
        }
    }
    let _judged = Judged;
    let mut device = None;
    let dev = |d: &mut Option<Option<i32>>| *d.get_or_insert_with(calling_device);
    if sticky != 0 && is_reset(call.function_id) {
        RESET.store(true, Relaxed);
    }
    // Only the program's own calls (depth 0) answer the sticky error: a
    // driver call our runtime makes inside a runtime call was judged with
    // that call (cudaSetDevice answers after a sticky error, and so must
    // the driver calls it makes).
    if sticky != 0 && call.depth == 0 && !bit(&st.exempt, call.function_id) {
        let on = STICKY_DEVICE.load(Relaxed);
        if on < 0 || dev(&mut device).is_none_or(|d| d == on) {
            return Decision { fail: Some(sticky_answer(sticky, call)), mark: STICKY_MARK };
        }
    }
    for (i, a) in st.specs.iter().enumerate() {
        let s = &a.spec;
        if !s.matches(call.function_id) {
            continue;
        }
        if let Some(d) = s.device
            && dev(&mut device) != Some(d)
        {
            continue;
        }
        let n = a.seen.fetch_add(1, Relaxed) + 1;
        let selected = s.nth.is_none_or(|k| n == k)
            && s.every.is_none_or(|k| n % k == 0)
            && s.after.is_none_or(|t| st.start.get().is_some_and(|t0| t0.elapsed().as_secs_f64() >= t))
            && s.p.is_none_or(|p| draw(s.seed, n) < p);
        if !selected {
            continue;
        }
        let fired = a.fired.fetch_add(1, Relaxed);
        if s.count.is_some_and(|k| fired >= k) {
            continue;
        }
        if let Some(ms) = s.delay_ms {
            std::thread::sleep(Duration::from_millis(ms));
        }
        let mark = i + 1;
        if let Some(e) = s.error {
            if s.sticky && STICKY.compare_exchange(0, e.code, Relaxed, Relaxed).is_ok() {
                STICKY_DEVICE.store(s.device.or_else(|| dev(&mut device)).unwrap_or(-1), Relaxed);
                STICKY_SPEC.store(mark as u64, Relaxed);
                log::warn!("fault {:?}: injected {} on {} as a sticky error: every later call on this device fails with it", s.text, e.name, params::NAMES.get(call.function_id as usize).unwrap_or(&"?"));
            }
            return Decision { fail: Some(e.code), mark };
        }
        return Decision { fail: None, mark };
    }
    Decision::default()
}

/// What a call answers after sticky error `code`. Measured on an H100
/// after a real illegal address (gpu/checks/control/control.py): once the device is
/// reset (`cudaDeviceReset`, which succeeds; NVIDIA's runtime makes it
/// `cuDevicePrimaryCtxReset`), the runtime's calls that need the device
/// answer cudaErrorDevicesUnavailable (46), while the driver's keep
/// answering the sticky error (`cuDevicePrimaryCtxRetain` included: the
/// runtime turns that into 46), except `cuLibraryUnload`, which answers
/// CUDA_ERROR_DEINITIALIZED (its library went with the context).
fn sticky_answer(code: i32, call: &Call) -> i32 {
    const DEVICES_UNAVAILABLE: i32 = 46;
    const DEINITIALIZED: i32 = 4;
    if !RESET.load(Relaxed) {
        return code;
    }
    match call.layer {
        DRIVER if params::NAMES.get(call.function_id as usize) == Some(&"cuLibraryUnload") => DEINITIALIZED,
        DRIVER => code,
        _ => DEVICES_UNAVAILABLE,
    }
}

fn is_reset(id: u32) -> bool {
    params::NAMES.get(id as usize).is_some_and(|n| *n == "cudaDeviceReset" || n.starts_with("cuDevicePrimaryCtxReset"))
}

/// The mark of a call failed by an earlier sticky fault.
const STICKY_MARK: usize = usize::MAX;

/// splitmix64 of (seed, n), as a number in [0, 1): call n of a `p=` spec
/// fires when this is below p.
pub fn draw(seed: u64, n: u64) -> f64 {
    let mut z = seed.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The pipeline marks the call it just finished (after every stage, so
/// calls made meanwhile do not take the mark).
pub fn set_mark(mark: usize) {
    let _ = MARK.try_with(|m| m.set(mark));
}

/// Observation takes the mark of the call it records: the spec that
/// acted on it, as written (`sticky: SPEC` for a call failed by an earlier
/// sticky fault), or None.
pub fn take_mark() -> Option<&'static str> {
    let m = MARK.try_with(|m| m.replace(0)).unwrap_or(0);
    if m == 0 {
        return None;
    }
    let st = state()?;
    if m == STICKY_MARK {
        static STICKY_TEXT: OnceLock<String> = OnceLock::new();
        let i = STICKY_SPEC.load(Relaxed) as usize;
        let spec = st.specs.get(i.wrapping_sub(1)).map_or("", |a| a.spec.text.as_str());
        return Some(STICKY_TEXT.get_or_init(|| format!("sticky: {spec}")).as_str());
    }
    st.specs.get(m - 1).map(|a| a.spec.text.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_is_deterministic_and_spread() {
        assert_eq!(draw(7, 1), draw(7, 1));
        assert_ne!(draw(7, 1), draw(8, 1));
        let below = (1..=10_000).filter(|&n| draw(42, n) < 0.1).count();
        assert!((800..1200).contains(&below), "{below}");
    }
}
