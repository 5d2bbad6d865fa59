//! Timestamps for the hot path: the TSC where it ticks at a constant rate
//! in every power state (the kernel uses it as its clocksource, or the CPU
//! reports an invariant TSC: `constant_tsc` and `nonstop_tsc`), else
//! `CLOCK_MONOTONIC`. Ticks are converted to nanoseconds with one ratio
//! calibrated once at start-up, so every output (summary, call log,
//! timeline) agrees.
//!
//! Why not always `CLOCK_MONOTONIC`: in virtual machines the kernel often
//! picks `kvm-clock` although the TSC is invariant, and reading the time
//! through it costs about 25 ns where `rdtsc` costs under 10 (measured on
//! the H100 host, docs/PERFORMANCE.md); two reads per call are most of what
//! the summary costs. A TSC read on another core may be a few ticks behind
//! on some hosts: durations are clamped at zero ([`elapsed`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static USE_TSC: AtomicBool = AtomicBool::new(false);
/// f64 bits of nanoseconds per tick (1.0 without the TSC).
static NS_PER_TICK: AtomicU64 = AtomicU64::new(0x3FF0_0000_0000_0000);
static TICKS0: AtomicU64 = AtomicU64::new(0);

pub fn mono_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: t is a valid timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[inline(always)]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if USE_TSC.load(Ordering::Relaxed) {
        // SAFETY: rdtsc has no preconditions.
        return unsafe { core::arch::x86_64::_rdtsc() };
    }
    mono_ns()
}

/// Pick the clock and calibrate it (about 2 ms, once, when tracing starts).
pub fn init() {
    let kernel_tsc = std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .is_ok_and(|s| s.trim() == "tsc");
    let tsc = cfg!(target_arch = "x86_64") && (kernel_tsc || invariant_tsc());
    if tsc {
        USE_TSC.store(true, Ordering::Relaxed);
        // Each end of the 2 ms is a `CLOCK_MONOTONIC` read bracketed by two
        // TSC reads, the tightest of a few: the process's first clock
        // reads are slow (the vDSO's pages are touched for the first
        // time), and one such read at an end skewed the ratio by 0.5%
        // (measured on this project's VM: durations 0.5% short).
        let (t0, n0) = bracketed(5, mono_ns);
        while mono_ns() - n0 < 2_000_000 {}
        let (t1, n1) = bracketed(5, mono_ns);
        let r = (n1 - n0) as f64 / (t1.saturating_sub(t0)).max(1) as f64;
        NS_PER_TICK.store(r.to_bits(), Ordering::Relaxed);
    }
    TICKS0.store(ticks(), Ordering::Relaxed);
    let _ = START.set(sample());
    log::debug!("tracing clock: {} ({:.4} ns/tick)", if tsc { "tsc" } else { "CLOCK_MONOTONIC" }, ns_per_tick());
}

static START: std::sync::OnceLock<trace_format::process::ClockSample> = std::sync::OnceLock::new();

/// The trace clock and the wall clock read together, taken when tracing
/// starts (see `trace_format::process` for what the samples are for).
pub fn start_sample() -> Option<trace_format::process::ClockSample> {
    START.get().copied()
}

/// Another clock's reading `read()` and the ticks at the same instant: the
/// read bracketed by two tick reads, the tightest of `tries` (a preemption
/// or a slow first read inside the bracket would skew the pair), the ticks
/// taken halfway.
pub fn bracketed(tries: u32, read: impl Fn() -> u64) -> (u64, u64) {
    let mut best = (u64::MAX, 0, 0);
    for _ in 0..tries {
        let a = ticks();
        let v = read();
        let b = ticks();
        if b.saturating_sub(a) < best.0 {
            best = (b.saturating_sub(a), a / 2 + b / 2 + (a & b & 1), v);
        }
    }
    (best.1, best.2)
}

/// The trace clock (ns since its zero) and the wall clock (ns since the
/// epoch) at one instant (the tightest of three bracketed reads).
pub fn sample() -> trace_format::process::ClockSample {
    let wall = || {
        let mut w = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: w is a valid timespec; CLOCK_REALTIME always exists.
        unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut w) };
        w.tv_sec as u64 * 1_000_000_000 + w.tv_nsec as u64
    };
    let (t, wall_ns) = bracketed(3, wall);
    trace_format::process::ClockSample { trace_ns: since_start_ns(t).round() as u64, wall_ns }
}

/// The CPU says its TSC runs at a constant rate and never stops.
fn invariant_tsc() -> bool {
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else { return false };
    let Some(flags) = info.lines().find(|l| l.starts_with("flags")) else { return false };
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    has("constant_tsc") && has("nonstop_tsc")
}

/// Ticks from `t0` to now (zero if the clock read earlier on another core
/// is ahead).
#[inline(always)]
pub fn elapsed(t0: u64) -> u64 {
    ticks().saturating_sub(t0)
}

pub fn ns_per_tick() -> f64 {
    f64::from_bits(NS_PER_TICK.load(Ordering::Relaxed))
}

/// A duration in ticks as nanoseconds (at least 1: every call takes time).
pub fn to_ns(ticks: u64) -> u64 {
    ((ticks as f64 * ns_per_tick()).round() as u64).max(1)
}

/// Nanoseconds from tracing start to tick `t`.
pub fn since_start_ns(t: u64) -> f64 {
    t.saturating_sub(TICKS0.load(Ordering::Relaxed)) as f64 * ns_per_tick()
}
