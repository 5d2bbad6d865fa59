//! CUPTI's timestamps to nanoseconds on the trace's axis: the one place
//! that conversion is made ([`span`]).
//!
//! CUPTI stamps records in the clock of the timestamp callback registered
//! with it. Three cases:
//! - ours ([`super::timestamp`]: the trace clock plus [`super::BASE_NS`]):
//!   subtract `BASE_NS` (the default);
//! - none (CUPTI's own clock, nanoseconds): an offset taken once
//!   ([`offset_from`]);
//! - the program's, registered before ours could be (PyTorch's Kineto):
//!   any unit. Kineto's returns TSC-like ticks (about 2.1 per ns on an
//!   H200 host), so an offset alone made every GPU duration 2.1 times too
//!   long (measured: docs/GPU-ACTIVITY.md, "Clock"). So the conversion is
//!   linear: an anchor (a paired read of both clocks) and a rate (program
//!   ticks per ns) from a second paired read a few ms later
//!   ([`linear_from`]), refined from new paired reads against the same
//!   anchor as the run goes on ([`refine`]), so the error of positions
//!   falls as the span grows.
//!
//! Invariant: the anchor, the rate and the clock they are of are published
//! together under a sequence number (a seqlock of atomics): a reader sees one whole
//! conversion, old or new, never a mix; writers take the odd number by
//! compare-and-swap, so two never interleave. No lock: the registration
//! path runs on a program thread.

use super::super::clock;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering::*};

/// One conversion: trace ns = `anchor_ns + (raw - anchor_raw) / rate`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Linear {
    pub anchor_raw: u64,
    pub anchor_ns: f64,
    /// CUPTI clock units per nanosecond.
    pub rate: f64,
    /// The program's clock callback this conversion is from (0: ours or
    /// CUPTI's own), published with the anchor: a refinement reads the
    /// clock its anchor was taken on.
    pub app_clock: usize,
}

impl Linear {
    /// (start on the trace's axis, duration), in ns, of an activity
    /// stamped `start`..`end` (end >= start). Before the axis's zero: 0.
    pub fn span(&self, start: u64, end: u64) -> (u64, u64) {
        let since = start.wrapping_sub(self.anchor_raw) as i64 as f64;
        let ts = self.anchor_ns + since / self.rate;
        let dur = end.saturating_sub(start) as f64 / self.rate;
        (if ts > 0.0 { ts.round() as u64 } else { 0 }, dur.round() as u64)
    }

    /// The rate from the anchor to a later paired read (`ns`, `raw`); None
    /// when that clock did not go forward (no usable rate).
    fn rate_to(&self, ns: f64, raw: u64) -> Option<f64> {
        let r = raw.wrapping_sub(self.anchor_raw) as i64 as f64 / (ns - self.anchor_ns);
        (r.is_finite() && r > 0.0 && ns > self.anchor_ns).then_some(r)
    }
}

/// Even: stable; odd: a writer is between its stores.
static SEQ: AtomicU64 = AtomicU64::new(0);
static ANCHOR_RAW: AtomicU64 = AtomicU64::new(super::BASE_NS);
/// f64 bits.
static ANCHOR_NS: AtomicU64 = AtomicU64::new(0);
/// f64 bits (1.0).
static RATE: AtomicU64 = AtomicU64::new(0x3FF0_0000_0000_0000);
/// A `front_abi::Timestamp` as usize (0: none).
static APP_CLOCK: AtomicUsize = AtomicUsize::new(0);
/// At exit: no more calls to the program's clock ([`at_exit`]).
static EXITING: AtomicBool = AtomicBool::new(false);
/// Trace ns of the last paired read of the program's clock (f64 bits).
static LAST_READ_NS: AtomicU64 = AtomicU64::new(0);

/// Set from just before the program's clock becomes CUPTI's until its rate
/// is published: records taken meanwhile would be converted by the old
/// conversion, so takes wait ([`wait_measured`]; [`FIRST_SPAN`] at most).
static MEASURING: AtomicBool = AtomicBool::new(false);

/// Refine the rate at most this often (a paired read is 16 reads of the
/// program's clock: cheap, but not per buffer).
const REFINE_EVERY_NS: f64 = 200e6;
/// Between the two paired reads that give the first rate: its error is
/// about the reads' uncertainty (tens of ns) over this.
const FIRST_SPAN: std::time::Duration = std::time::Duration::from_millis(5);

fn load() -> (u64, Linear) {
    loop {
        let s = SEQ.load(Acquire);
        if s & 1 == 0 {
            let l = Linear {
                anchor_raw: ANCHOR_RAW.load(Relaxed),
                anchor_ns: f64::from_bits(ANCHOR_NS.load(Relaxed)),
                rate: f64::from_bits(RATE.load(Relaxed)),
                app_clock: APP_CLOCK.load(Relaxed),
            };
            fence(Acquire);
            if SEQ.load(Relaxed) == s {
                return (s, l);
            }
        }
        std::hint::spin_loop();
    }
}

/// Publish `l`; with `only_at`, only if nothing was published since that
/// sequence number (false: not published).
fn store(l: Linear, only_at: Option<u64>) -> bool {
    loop {
        let s = SEQ.load(Relaxed);
        if only_at.is_some_and(|o| o != s) {
            return false;
        }
        if s & 1 == 0 && SEQ.compare_exchange_weak(s, s + 1, Acquire, Relaxed).is_ok() {
            fence(Release);
            ANCHOR_RAW.store(l.anchor_raw, Relaxed);
            ANCHOR_NS.store(l.anchor_ns.to_bits(), Relaxed);
            RATE.store(l.rate.to_bits(), Relaxed);
            APP_CLOCK.store(l.app_clock, Relaxed);
            SEQ.store(s + 2, Release);
            return true;
        }
        std::hint::spin_loop();
    }
}

/// The current conversion.
pub(super) fn current() -> Linear {
    load().1
}

/// [`Linear::span`] with the current conversion: every CUPTI timestamp
/// goes to the trace's axis through here.
pub(super) fn span(start: u64, end: u64) -> (u64, u64) {
    current().span(start, end)
}

/// Another clock and ours at one instant: (trace ns, its reading), the
/// tightest of 16 bracketed reads.
fn paired(read: &dyn Fn() -> u64) -> (f64, u64) {
    let (t, raw) = clock::bracketed(16, read);
    (clock::since_start_ns(t), raw)
}

/// CUPTI runs on its own clock (nanoseconds): an offset taken once.
pub(super) fn offset_from(read: &dyn Fn() -> u64) {
    let (ns, raw) = paired(read);
    store(Linear { anchor_raw: raw, anchor_ns: ns, rate: 1.0, app_clock: 0 }, None);
}

/// CUPTI runs on the program's clock `app_clock`, of unknown unit: the
/// anchor now, the rate from a second paired read [`FIRST_SPAN`] later
/// (the calling thread sleeps that long, once).
pub(crate) fn linear_from(app_clock: super::front_abi::Timestamp) {
    measuring(true);
    // SAFETY: the program's callback, a plain clock read.
    let read = || unsafe { app_clock() };
    let (ns, raw) = paired(&read);
    let mut l = Linear { anchor_raw: raw, anchor_ns: ns, rate: 1.0, app_clock: app_clock as usize };
    std::thread::sleep(FIRST_SPAN);
    let (ns1, raw1) = paired(&read);
    match l.rate_to(ns1, raw1) {
        Some(r) => l.rate = r,
        None => log::warn!("GPU activity: the program's CUPTI clock did not advance; its offset alone is used"),
    }
    LAST_READ_NS.store(ns1.to_bits(), Relaxed);
    store(l, None);
    MEASURING.store(false, Release);
    log::debug!("GPU activity: CUPTI runs on the program's clock: {:.6} units per ns", l.rate);
}

/// The program's clock is about to become CUPTI's (`on`), or did not after
/// all (`!on`: its registration failed).
pub(super) fn measuring(on: bool) {
    MEASURING.store(on, Release);
}

/// Where records are taken, before converting them: wait while the
/// program's clock is being measured. Never on a launching thread; at
/// most [`FIRST_SPAN`] (the measuring thread touches no lock and no CUPTI
/// call meanwhile, so it cannot wait on the taker).
pub(super) fn wait_measured() {
    while MEASURING.load(Acquire) {
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

/// When the program's clock is CUPTI's and [`REFINE_EVERY_NS`] passed
/// since the last paired read: a new one, against the same anchor, gives
/// the rate over the whole span so far. Called where records are taken
/// (CUPTI's buffer thread, a flush, the watchdog's flushing thread): of two
/// at once, the second's store finds the sequence moved and is dropped.
pub(super) fn refine() {
    // A quick look first (most takes: not the program's clock, or too soon);
    // what counts is the clock published with the anchor, below.
    if APP_CLOCK.load(Relaxed) == 0 || EXITING.load(Relaxed) {
        return;
    }
    let now = clock::since_start_ns(clock::ticks());
    if now - f64::from_bits(LAST_READ_NS.load(Relaxed)) < REFINE_EVERY_NS {
        return;
    }
    let (seq, mut l) = load();
    if l.app_clock == 0 {
        return;
    }
    // SAFETY: a `Timestamp` published by linear_from with this anchor: the
    // program's callback.
    let app_clock: super::front_abi::Timestamp = unsafe { std::mem::transmute::<usize, super::front_abi::Timestamp>(l.app_clock) };
    let (ns, raw) = paired(&|| unsafe { app_clock() });
    LAST_READ_NS.store(ns.to_bits(), Relaxed);
    if let Some(r) = l.rate_to(ns, raw) {
        l.rate = r;
        // Lost to a new registration meanwhile (its own anchor): skipped.
        if store(l, Some(seq)) {
            log::debug!("GPU activity: the program's CUPTI clock, refined over {:.0} ms: {r:.6} units per ns", (ns - l.anchor_ns) / 1e6);
        }
    }
}

/// At exit no program callback of ours is called (its objects may be
/// gone): the last flush converts with the rate as it stands.
pub(super) fn at_exit() {
    EXITING.store(true, Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_is_an_offset_of_base_ns() {
        // The default: our own timestamp callback's clock, the trace clock plus BASE_NS.
        let l = current();
        assert_eq!(l.span(super::super::BASE_NS + 5_000, super::super::BASE_NS + 5_500), (5_000, 500));
        // Stamped before the axis's zero.
        assert_eq!(l.span(10, 20), (0, 10));
    }

    /// A TSC-like clock (2.1 ticks per ns, anchored far from zero): times
    /// and durations come back in ns, before and after the anchor.
    #[test]
    fn ticks_of_another_rate_become_ns() {
        let l = Linear { anchor_raw: 7_000_000_000_000, anchor_ns: 1_000_000.0, rate: 2.1, app_clock: 0 };
        assert_eq!(l.span(7_000_000_000_000 + 2_100_000, 7_000_000_000_000 + 2_100_000 + 2_100), (2_000_000, 1_000));
        assert_eq!(l.span(7_000_000_000_000 - 1_050_000, 7_000_000_000_000), (500_000, 500_000));
        assert_eq!(l.rate_to(2_000_000.0, 7_000_000_000_000 + 2_100_000), Some(2.1));
        assert_eq!(l.rate_to(1_000_000.0, 7_000_000_000_000), None, "no time passed");
        assert_eq!(l.rate_to(2_000_000.0, 6_000_000_000_000), None, "the clock went back");
    }
}
