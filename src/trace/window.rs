//! Capture windows: recording only between a start and a stop.
//!
//! Rules (`cudart-shim trace --capture-range ...` or the environment, see
//! [`crate::config::Capture`]): cudaProfilerStart/Stop (and the driver's
//! cuProfilerStart/Stop when a program calls them through our runtime's
//! driver table or through the driver interposer, which traces them by
//! name and through cuGetProcAddress: a program on NVIDIA's static runtime
//! reaches them that way), an NVTX range of a given message, a delay and a
//! duration, a signal.
//!
//! Mechanism: while no window is open the trace switch word
//! ([`super::FLAGS`]) carries [`super::CLOSED`]; the observation stage
//! ([`super::traced`]) sees it with the one load it already makes and
//! runs the call without recording it. So outside a window a call costs
//! tracing off plus that check. Opening and closing are atomic
//! operations only (a signal handler may do them). NVTX ranges are still
//! tracked outside windows ([`super::nvtx`]).
//!
//! The windows' times (since the trace's start) are kept for the tables,
//! which say what they cover, and for GPU activity, whose records arrive
//! later and are kept only when they started inside a window.

use super::clock;
use crate::config::Capture;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::*};

/// The most windows whose times are kept (later ones still open and close).
const KEPT: usize = 256;

static RULED: AtomicBool = AtomicBool::new(false);
static OPEN: AtomicBool = AtomicBool::new(true);
/// Windows opened so far.
static OPENED: AtomicU32 = AtomicU32::new(0);
/// No more windows (the limit was reached, or the duration ran out).
static DONE: AtomicBool = AtomicBool::new(false);
static LIMIT: AtomicU32 = AtomicU32::new(0);
static STARTS: [AtomicU64; KEPT] = [const { AtomicU64::new(0) }; KEPT];
/// 0: still open.
static ENDS: [AtomicU64; KEPT] = [const { AtomicU64::new(0) }; KEPT];

/// Functions that open (1) or close (2) a window under `cudaProfilerApi`.
static PROFILER_SITES: [AtomicU8; super::MAX_SITES] = [const { AtomicU8::new(0) }; super::MAX_SITES];
static PROFILER_API: AtomicBool = AtomicBool::new(false);
/// Set once the delay has passed (or when there is none).
static DELAY_OVER: AtomicBool = AtomicBool::new(true);

fn rule() -> &'static Capture {
    &crate::config::trace_config().capture
}

/// Set up the rules at configuration; returns whether recording starts closed.
pub(super) fn start() -> bool {
    let c = rule();
    if !c.any() {
        return false;
    }
    RULED.store(true, Relaxed);
    LIMIT.store(c.windows, Relaxed);
    PROFILER_API.store(c.profiler_api, Relaxed);
    let closed = c.starts_closed();
    OPEN.store(!closed, Relaxed);
    if !closed {
        STARTS[0].store(1, Relaxed);
        OPENED.store(1, Relaxed);
    }
    if c.signal {
        install_signal();
    }
    if c.delay_s.is_some() || c.duration_s.is_some() {
        DELAY_OVER.store(c.delay_s.is_none(), Relaxed);
        let (delay, duration) = (c.delay_s.unwrap_or(0.0), c.duration_s);
        let other_rule = c.profiler_api || c.nvtx.is_some() || c.signal;
        let spawned = std::thread::Builder::new().name("cudart-shim-win".into()).spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs_f64(delay));
            DELAY_OVER.store(true, Relaxed);
            if !other_rule {
                open();
            }
            if let Some(d) = duration {
                std::thread::sleep(std::time::Duration::from_secs_f64(d));
                close();
                DONE.store(true, Relaxed);
            }
        });
        if let Err(e) = spawned {
            log::warn!("capture window: cannot start the delay/duration timer ({e}); recording follows the other rules only");
        }
    }
    log::debug!("capture windows: {c:?}");
    closed
}

/// Remember whether function `id` (`name`) opens or closes windows.
pub(super) fn classify(id: u32, name: &str) {
    let v = match name {
        "cudaProfilerStart" | "cuProfilerStart" => 1,
        "cudaProfilerStop" | "cuProfilerStop" => 2,
        _ => 0,
    };
    if let Some(s) = PROFILER_SITES.get(id as usize) {
        s.store(v, Relaxed);
    }
}

/// After call `id` ran (recorded or not): a profiler start opens a window,
/// a stop closes it (`cudaProfilerApi`).
#[inline]
pub(super) fn after_call(id: u32) {
    if !PROFILER_API.load(Relaxed) {
        return;
    }
    match PROFILER_SITES.get(id as usize).map_or(0, |s| s.load(Relaxed)) {
        1 => open(),
        2 => close(),
        _ => {}
    }
}

fn now_ns() -> u64 {
    (clock::since_start_ns(clock::ticks()).max(0.0) as u64).max(1)
}

/// Open a window (nothing when one is open, the limit is reached, or the
/// delay has not passed). Async-signal-safe.
pub fn open() {
    if DONE.load(Relaxed) || !DELAY_OVER.load(Relaxed) {
        return;
    }
    let limit = LIMIT.load(Relaxed);
    if limit != 0 && OPENED.load(Relaxed) >= limit {
        return;
    }
    if OPEN.swap(true, AcqRel) {
        return;
    }
    let n = OPENED.fetch_add(1, AcqRel) as usize;
    if n < KEPT {
        ENDS[n].store(0, Relaxed);
        STARTS[n].store(now_ns(), Release);
    }
    super::FLAGS.fetch_and(!super::CLOSED, Release);
}

/// Close the open window (nothing when none is open). Async-signal-safe.
pub fn close() {
    if !RULED.load(Relaxed) || !OPEN.swap(false, AcqRel) {
        return;
    }
    super::FLAGS.fetch_or(super::CLOSED, Release);
    let n = OPENED.load(Acquire) as usize;
    if (1..=KEPT).contains(&n) {
        ENDS[n - 1].store(now_ns(), Release);
    }
    let limit = LIMIT.load(Relaxed);
    if limit != 0 && n as u32 >= limit {
        DONE.store(true, Relaxed);
    }
}

/// Whether recording is on now (always, without window rules).
#[inline]
pub fn is_open() -> bool {
    OPEN.load(Relaxed)
}

/// How many windows have opened.
#[inline]
pub fn opened() -> u32 {
    OPENED.load(Relaxed)
}

/// Whether window rules are in force.
pub fn ruled() -> bool {
    RULED.load(Relaxed)
}

/// Whether time `ns` (since the trace's start) lies in a window (always
/// true without window rules). For GPU records, which arrive late.
pub fn covers(ns: u64) -> bool {
    if !RULED.load(Relaxed) {
        return true;
    }
    let n = (OPENED.load(Acquire) as usize).min(KEPT);
    (0..n).any(|i| {
        let (s, e) = (STARTS[i].load(Acquire), ENDS[i].load(Acquire));
        ns >= s && (e == 0 || ns <= e)
    })
}

/// `--capture-range=nvtx`: a range of `message` in domain `domain` begins;
/// true when it opened a window (its end closes it).
pub(super) fn nvtx_begins(domain: &str, message: &str) -> bool {
    let Some((name, dom)) = &rule().nvtx else { return false };
    if !RULED.load(Relaxed) || name != message || dom.as_deref().unwrap_or("") != domain || is_open() {
        return false;
    }
    open();
    is_open()
}

pub(super) fn nvtx_ends() {
    close();
}

/// The windows, for the tables: None without window rules.
pub fn describe() -> Option<String> {
    if !RULED.load(Relaxed) {
        return None;
    }
    let n = OPENED.load(Acquire) as usize;
    if n == 0 {
        return Some("none opened: nothing was recorded".into());
    }
    let mut s = format!("{n} window{}:", if n == 1 { "" } else { "s" });
    for i in 0..n.min(KEPT) {
        let (a, b) = (STARTS[i].load(Acquire), ENDS[i].load(Acquire));
        let end = if b == 0 { "end".to_owned() } else { format!("{:.6} s", b as f64 / 1e9) };
        s.push_str(&format!(" {}{:.6} s - {end}", if i > 0 { ", " } else { "" }, a as f64 / 1e9));
    }
    if n > KEPT {
        s.push_str(&format!(" (and {} more)", n - KEPT));
    }
    Some(s)
}

// ---- the signal ------------------------------------------------------------

static OLD_ACTION: std::sync::OnceLock<libc::sigaction> = std::sync::OnceLock::new();

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    if is_open() {
        close();
    } else {
        open();
    }
    // The program's own handler, if it had one, still runs.
    if let Some(old) = OLD_ACTION.get() {
        let h = old.sa_sigaction;
        if h != libc::SIG_DFL && h != libc::SIG_IGN {
            if old.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: the handler the program installed, with its own signature.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = unsafe { std::mem::transmute(h) };
                f(sig, info, ctx);
            } else {
                // SAFETY: as above.
                let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(h) };
                f(sig);
            }
        }
    }
}

fn install_signal() {
    // SAFETY: plain sigaction calls with structs we own.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_signal as *const () as usize;
        act.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        libc::sigemptyset(&mut act.sa_mask);
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGUSR2, &act, &mut old) != 0 {
            log::warn!("capture window: cannot install the SIGUSR2 handler; --capture-signal does nothing");
            return;
        }
        let _ = OLD_ACTION.set(old);
    }
    log::info!("capture window: each SIGUSR2 to pid {} opens or closes a window", std::process::id());
}
