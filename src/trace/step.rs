//! The step-time histogram: each instance of the NVTX range named the step
//! (`CUDART_SHIM_STEP_RANGE`, `--step-range NAME`) adds its duration here
//! when it ends ([`observe`], called by `nvtx` where a range ends, after
//! its `nvtx_sum` sample). Read by the metrics as a Prometheus histogram.
//!
//! Lock-free: one atomic per bucket, the count and the sum; a reader
//! takes each bucket once and derives the count from them, so a snapshot is
//! always a consistent histogram (its count is the sum of its buckets)
//! even while a step ends.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Upper bounds in seconds (the last bucket, +Inf, is implied): from a
/// millisecond (an inference step) to ten minutes (a large model's step).
pub const BOUNDS_S: [f64; 20] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 180.0, 300.0, 600.0];

static BUCKETS: [AtomicU64; BOUNDS_S.len() + 1] = [const { AtomicU64::new(0) }; BOUNDS_S.len() + 1];
static SUM_NS: AtomicU64 = AtomicU64::new(0);

/// Whether `message` is an instance of the step range, the name read once.
fn is_step(message: &str) -> bool {
    match crate::config::trace_config().step_range.as_deref() {
        Some(step) => crate::config::is_step(step, message),
        None => false,
    }
}

/// A range named `message` ended after `ns` nanoseconds.
pub fn observe(message: &str, ns: u64) {
    if is_step(message) {
        add(ns);
    }
}

fn add(ns: u64) {
    let s = ns as f64 / 1e9;
    let i = BOUNDS_S.iter().position(|&b| s <= b).unwrap_or(BOUNDS_S.len());
    SUM_NS.fetch_add(ns, Relaxed);
    BUCKETS[i].fetch_add(1, Relaxed);
}

/// The histogram as of now: per bucket (non-cumulative) counts, the last
/// one +Inf, and the sum of the durations in seconds.
pub fn snapshot() -> (Vec<u64>, f64) {
    let counts: Vec<u64> = BUCKETS.iter().map(|b| b.load(Relaxed)).collect();
    (counts, SUM_NS.load(Relaxed) as f64 / 1e9)
}

/// Whether a step range is named at all.
pub fn named() -> bool {
    crate::config::trace_config().step_range.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_land_in_their_buckets() {
        let before = snapshot().0;
        add(1_000_000); // 1 ms: the first bucket (le="0.001")
        add(1_000_001); // just past: the second
        add(700_000_000_000); // past 600 s: +Inf
        let after = snapshot().0;
        let d: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
        assert_eq!((d[0], d[1], d[BOUNDS_S.len()]), (1, 1, 1));
        assert_eq!(d.iter().sum::<u64>(), 3);
    }
}
