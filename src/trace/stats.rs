//! Per-call statistics, kept per thread and merged when read.
//!
//! Each thread owns one [`SiteStats`] per function it called and is its
//! only writer: counters are updated with a relaxed load and store, no
//! locked instruction, so counts are exact under any number of threads and
//! the hot path never contends. Readers (flush, counters API) merge every
//! thread's records with relaxed loads.
//!
//! Medians come from a log-linear histogram per (thread, function): exact
//! below 32 ticks, then 16 buckets per power of two, so a reported median
//! is the midpoint of a bucket within 1/32 (3.1%) of the true value,
//! clamped to [min, max]. Count, total, min, max, mean and standard
//! deviation are exact.
//!
//! Sampling (`CUDART_SHIM_TRACE_SAMPLE=N`, summary and counters only):
//! every call is counted, 1 in N of each function on each thread is timed;
//! min, max, median and deviation come from the timed calls and the total
//! is scaled to every call ([`Agg::total_estimate`]).
//!
//! Reset (`cudartShimResetCounters`) bumps a global epoch; each owner clears
//! its record at its next call, readers ignore records of older epochs.

use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering::{Acquire, Relaxed, Release}};

const SUB_BITS: u32 = 4;
const SUB: u64 = 1 << SUB_BITS;
/// Durations up to 2^44 ticks (hours) get their own bucket; longer ones
/// share the last.
const MAX_EXP: u32 = 44;
pub const BUCKETS: usize = ((MAX_EXP - SUB_BITS + 1) as usize + 1) * SUB as usize;
const ERR_SLOTS: usize = 4;

pub static EPOCH: AtomicU32 = AtomicU32::new(0);

pub fn bucket(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let e = (63 - v.leading_zeros()).min(MAX_EXP); // v in [2^e, 2^(e+1))
    let sub = (v >> (e - SUB_BITS)) & (SUB - 1);
    ((e - SUB_BITS + 1) as u64 * SUB + sub) as usize
}

/// The midpoint of bucket `b`'s range (lower bound for exact buckets).
pub fn bucket_mid(b: usize) -> f64 {
    let b = b as u64;
    if b < 2 * SUB {
        return b as f64;
    }
    let e = b / SUB + SUB_BITS as u64 - 1;
    let sub = b % SUB;
    let lo = (1u64 << e) + (sub << (e - SUB_BITS as u64));
    lo as f64 + (1u64 << (e - SUB_BITS as u64)) as f64 / 2.0
}

/// Time 1 call in this many (per thread and function) when only
/// statistics are kept (`CUDART_SHIM_TRACE_SAMPLE`); 1: every call.
pub static SAMPLE_EVERY: AtomicU32 = AtomicU32::new(1);

pub struct SiteStats {
    epoch: AtomicU32,
    /// Every call, timed or not.
    calls: AtomicU64,
    /// Calls whose duration is in `total`, `min`, `max`, `sumsq`, `hist`.
    timed: AtomicU64,
    /// Untimed calls left before the next timed one (sampling).
    countdown: AtomicU32,
    total: AtomicU64,
    min: AtomicU64,
    max: AtomicU64,
    /// f64 bits: sum of squared durations (ticks^2).
    sumsq: AtomicU64,
    err_code: [AtomicI32; ERR_SLOTS],
    err_count: [AtomicU64; ERR_SLOTS],
    /// Failures with a code that found no free slot.
    err_other: AtomicU64,
    hist: [AtomicU64; BUCKETS],
}

#[inline(always)]
fn bump(a: &AtomicU64, by: u64) {
    a.store(a.load(Relaxed).wrapping_add(by), Relaxed);
}

impl SiteStats {
    pub fn new() -> Box<SiteStats> {
        Box::new(SiteStats {
            epoch: AtomicU32::new(EPOCH.load(Relaxed)),
            calls: AtomicU64::new(0),
            timed: AtomicU64::new(0),
            countdown: AtomicU32::new(0),
            total: AtomicU64::new(0),
            min: AtomicU64::new(u64::MAX),
            max: AtomicU64::new(0),
            sumsq: AtomicU64::new(0),
            err_code: std::array::from_fn(|_| AtomicI32::new(0)),
            err_count: std::array::from_fn(|_| AtomicU64::new(0)),
            err_other: AtomicU64::new(0),
            hist: std::array::from_fn(|_| AtomicU64::new(0)),
        })
    }

    #[cold]
    fn clear(&self, epoch: u32) {
        self.countdown.store(0, Relaxed);
        for a in [&self.calls, &self.timed, &self.total, &self.max, &self.sumsq, &self.err_other] {
            a.store(0, Relaxed);
        }
        self.min.store(u64::MAX, Relaxed);
        for i in 0..ERR_SLOTS {
            self.err_code[i].store(0, Relaxed);
            self.err_count[i].store(0, Relaxed);
        }
        for h in &self.hist {
            h.store(0, Relaxed);
        }
        // Release, paired with the Acquire in `merge_into`: a reader that
        // sees the new epoch sees the cleared counters, never the old
        // epoch's counts under the new epoch. (Relaxed allowed that in the
        // memory model, though not on x86; TSan cannot see it: all atomics.)
        self.epoch.store(epoch, Release);
    }

    /// Whether the next call is to be timed (sampling; owner thread only).
    #[inline(always)]
    pub fn time_next(&self) -> bool {
        let left = self.countdown.load(Relaxed);
        if left > 0 {
            self.countdown.store(left - 1, Relaxed);
            return false;
        }
        self.countdown.store(SAMPLE_EVERY.load(Relaxed).saturating_sub(1), Relaxed);
        true
    }

    #[inline(always)]
    fn check_epoch(&self) {
        let epoch = EPOCH.load(Relaxed);
        if self.epoch.load(Relaxed) != epoch {
            self.clear(epoch);
        }
    }

    /// Record one call that was not timed (sampling). Owner thread only.
    #[inline(always)]
    pub fn add_untimed(&self, err: i32) {
        self.check_epoch();
        bump(&self.calls, 1);
        if err != 0 {
            self.add_error(err);
        }
    }

    /// Record one call. Only the owning thread calls this.
    #[inline(always)]
    pub fn add(&self, dt: u64, err: i32) {
        self.check_epoch();
        bump(&self.calls, 1);
        bump(&self.timed, 1);
        bump(&self.total, dt);
        if dt < self.min.load(Relaxed) {
            self.min.store(dt, Relaxed);
        }
        if dt > self.max.load(Relaxed) {
            self.max.store(dt, Relaxed);
        }
        let sq = f64::from_bits(self.sumsq.load(Relaxed)) + (dt as f64) * (dt as f64);
        self.sumsq.store(sq.to_bits(), Relaxed);
        bump(&self.hist[bucket(dt)], 1);
        if err != 0 {
            self.add_error(err);
        }
    }

    #[cold]
    fn add_error(&self, err: i32) {
        for i in 0..ERR_SLOTS {
            let c = self.err_code[i].load(Relaxed);
            if c == err {
                bump(&self.err_count[i], 1);
                return;
            }
            if c == 0 {
                self.err_count[i].store(1, Relaxed);
                self.err_code[i].store(err, Relaxed);
                return;
            }
        }
        bump(&self.err_other, 1);
    }

    /// Fold this record into `agg` (if it belongs to the current epoch).
    pub fn merge_into(&self, agg: &mut Agg) {
        if self.epoch.load(Acquire) != EPOCH.load(Relaxed) {
            return;
        }
        let n = self.calls.load(Relaxed);
        if n == 0 {
            return;
        }
        agg.calls += n;
        agg.timed += self.timed.load(Relaxed);
        agg.total += self.total.load(Relaxed);
        // A flush reads records while their owners write them: a record
        // whose first timed call is being written has min > max (the
        // defaults); its extremes are not folded in.
        let (min, max) = (self.min.load(Relaxed), self.max.load(Relaxed));
        if min <= max {
            agg.min = agg.min.min(min);
            agg.max = agg.max.max(max);
        }
        agg.sumsq += f64::from_bits(self.sumsq.load(Relaxed));
        if agg.hist.is_empty() {
            agg.hist = vec![0; BUCKETS];
        }
        for (a, h) in agg.hist.iter_mut().zip(&self.hist) {
            *a += h.load(Relaxed);
        }
        for i in 0..ERR_SLOTS {
            let c = self.err_code[i].load(Relaxed);
            if c != 0 {
                *agg.errors.entry(c).or_default() += self.err_count[i].load(Relaxed);
            }
        }
        *agg.errors.entry(-1).or_default() += self.err_other.load(Relaxed);
        agg.errors.retain(|_, v| *v > 0);
    }
}

/// One function's statistics over every thread, in ticks.
#[derive(Default, Clone, Debug)]
pub struct Agg {
    pub calls: u64,
    /// Calls with a duration (all of them unless sampling).
    pub timed: u64,
    /// Sum of the timed calls' durations.
    pub total: u64,
    pub min: u64,
    pub max: u64,
    pub sumsq: f64,
    pub hist: Vec<u64>,
    /// error code (-1: codes beyond the slots) -> count.
    pub errors: std::collections::BTreeMap<i32, u64>,
}

impl Agg {
    pub fn new() -> Agg {
        Agg { min: u64::MAX, ..Default::default() }
    }

    pub fn errors_total(&self) -> u64 {
        self.errors.values().sum()
    }

    /// Total time of every call: the timed calls' total, scaled up by
    /// calls/timed when sampling.
    pub fn total_estimate(&self) -> u64 {
        if self.timed == 0 || self.timed == self.calls {
            return self.total;
        }
        (self.total as f64 * self.calls as f64 / self.timed as f64).round() as u64
    }

    /// Median in ticks (see the module note on precision).
    pub fn median(&self) -> f64 {
        let half = self.timed.div_ceil(2).max(1);
        let mut seen = 0;
        for (b, &c) in self.hist.iter().enumerate() {
            seen += c;
            if seen >= half {
                // Not `clamp`, which panics when min > max (no timed call read yet).
                return bucket_mid(b).max(self.min as f64).min(self.max as f64);
            }
        }
        0.0
    }

    /// The summary row's figures in nanoseconds (`k`: ns per tick): total,
    /// median, min, max, standard deviation. Whatever a flush racing calls
    /// read (`calls` counted before the first duration's extremes were
    /// stored: min > max), no panic: extremes not yet known are 0. (The
    /// median's `clamp(min, max)` panicked there: scripts/stress, `flush`,
    /// 1 lifecycle in 5,568, `cudartShimFlush` returned cudaErrorUnknown.)
    pub fn ns_figures(&self, k: f64) -> (u64, f64, u64, u64, f64) {
        let ns = |t: u64| ((t as f64 * k).round() as u64).max(1);
        let (min, max) = if self.min <= self.max { (ns(self.min), ns(self.max)) } else { (0, 0) };
        let total = ((self.total_estimate() as f64 * k).round() as u64).max(self.calls);
        let med = (self.median() * k).round().max(min as f64).min(max as f64);
        (total, med, min, max, self.stddev() * k)
    }

    /// Sample standard deviation in ticks.
    pub fn stddev(&self) -> f64 {
        if self.timed < 2 {
            return 0.0;
        }
        let n = self.timed as f64;
        let mean = self.total as f64 / n;
        ((self.sumsq - n * mean * mean).max(0.0) / (n - 1.0)).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_tight() {
        let mut last = 0;
        for v in [0u64, 1, 31, 32, 33, 63, 64, 100, 1000, 12345, 1 << 30, 1 << 44, u64::MAX] {
            let b = bucket(v);
            assert!(b >= last && b < BUCKETS, "{v} -> {b}");
            last = b;
            if v < (1 << 44) && v > 0 {
                let m = bucket_mid(b);
                assert!((m - v as f64).abs() / v as f64 <= 1.0 / 32.0 + 1e-9, "{v} mid {m}");
            }
        }
    }

    #[test]
    fn sampling_times_one_call_in_n_and_scales_the_total() {
        SAMPLE_EVERY.store(4, Relaxed);
        let s = SiteStats::new();
        let pattern: Vec<bool> = (0..9).map(|_| s.time_next()).collect();
        assert_eq!(pattern, [true, false, false, false, true, false, false, false, true]);
        for i in 0..8u64 {
            if i % 4 == 0 {
                s.add(100 + i, 0);
            } else {
                s.add_untimed(if i == 3 { 2 } else { 0 });
            }
        }
        let mut a = Agg::new();
        s.merge_into(&mut a);
        assert_eq!((a.calls, a.timed, a.total, a.min, a.max), (8, 2, 204, 100, 104));
        assert_eq!(a.total_estimate(), 816);
        assert_eq!(a.errors.get(&2), Some(&1));
        SAMPLE_EVERY.store(1, Relaxed);
        let fresh = SiteStats::new();
        assert!((0..3).all(|_| fresh.time_next()));
    }

    /// A record read by a flush between its owner's count and its first
    /// duration: the row's figures are made without a panic.
    #[test]
    fn a_record_read_mid_write_gives_figures_without_panicking() {
        let s = SiteStats::new();
        s.calls.store(1, Relaxed);
        s.timed.store(1, Relaxed);
        s.hist[bucket(500)].store(1, Relaxed);
        let mut a = Agg::new();
        s.merge_into(&mut a);
        assert_eq!(a.calls, 1);
        let (total, med, min, max, _) = a.ns_figures(1.0);
        assert_eq!((total, min, max), (1, 0, 0));
        assert!(med.is_finite());
        // Folded with a complete record: its extremes alone.
        let t = SiteStats::new();
        t.add(300, 0);
        t.merge_into(&mut a);
        assert_eq!(a.ns_figures(1.0).2..=a.ns_figures(1.0).3, 300..=300);
    }

    #[test]
    fn stats_merge_and_reset() {
        let s = SiteStats::new();
        for v in [100, 200, 300] {
            s.add(v, 0);
        }
        s.add(400, 2);
        s.add(500, 2);
        let mut a = Agg::new();
        s.merge_into(&mut a);
        assert_eq!((a.calls, a.total, a.min, a.max), (5, 1500, 100, 500));
        assert_eq!(a.errors.get(&2), Some(&2));
        assert!((a.median() - 300.0).abs() <= 300.0 / 32.0);
        assert!((a.stddev() - 158.1138).abs() < 0.01);
        EPOCH.fetch_add(1, Relaxed);
        let mut b = Agg::new();
        s.merge_into(&mut b);
        assert_eq!(b.calls, 0);
        s.add(7, 0);
        s.merge_into(&mut b);
        assert_eq!((b.calls, b.min), (1, 7));
    }
}
