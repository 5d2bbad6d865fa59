//! Live numbers for the monitoring stack: Prometheus metrics of the traced
//! process while it runs (issue #36, docs/METRICS.md).
//!
//! Two ways out, both off unless asked:
//! - a textfile for node_exporter's textfile collector
//!   (`CUDART_SHIM_METRICS_FILE`, [`textfile`]), rewritten every
//!   `CUDART_SHIM_METRICS_INTERVAL` seconds by a task of the service thread
//!   (`crate::service`, our one ticking thread) and at exit, each time
//!   through a temporary file in the same folder and a rename;
//! - an HTTP endpoint (`CUDART_SHIM_METRICS_LISTEN`, [`http`]), a thread of
//!   its own serving `GET /metrics`.
//!
//! **Metrics are views** ([`collect`]): every figure is read, at the
//! scrape, from what already exists: the call counters (`trace::summary`,
//! the very function the exit summary is made from), the ledger's memory
//! table, the GPU busy counters that `trace::gpu` adds where it takes the
//! CUPTI records, the step histogram `trace::step` keeps where NVTX
//! ranges end. Nothing is counted a second time, so at exit the counters
//! equal the summary by construction, and turning metrics on adds no work
//! to a call beyond what counting costs (the summary's statistics) and the
//! memory ledger the gauges read, whose stage runs for memory calls alone
//! (`ledger::concerns`: 12 to 13 instructions on any other call).
//!
//! **A scrape never blocks a CUDA call**: it reads atomics and the
//! per-thread statistics (relaxed loads), and takes no lock that a program
//! thread holds while making a call (the invariant and the three locks it
//! shares with program threads outside their calls: `collect::View`).
//!
//! **Nothing starts unless asked**: the threads and the socket exist only
//! once a variable asks, from the process's first CUDA call that is work
//! (not kernel registration: a launcher that imports torch starts
//! nothing). A forked child starts nothing of its own
//! and closes the inherited listening socket; a child that execs reads the
//! variables anew.

mod collect;
pub mod http;
pub mod textfile;

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

pub use collect::render;

/// Set once the outputs were started in this process.
static STARTED: AtomicBool = AtomicBool::new(false);

/// Arm the metrics (nothing when no variable asks): they start at the
/// process's first call that is work (`trace`'s rule for its files), so a
/// process that only registers kernels (a launcher importing torch) starts
/// nothing and takes no port. Called by the pipeline's one-time setup,
/// after the trace's (which turned counting on for the metrics).
pub fn arm() {
    if crate::config::metrics_config().on() {
        crate::trace::set_on_first_work(start);
    }
}

/// Start what the metrics variables ask for (once).
fn start() {
    let c = crate::config::metrics_config();
    if !c.on() || STARTED.swap(true, Relaxed) {
        return;
    }
    crate::trace::set_after_last_flush(at_exit);
    // The progress state (NCCL operations) and the watchdog's last
    // progress are read when the watchdog keeps them, never switched on
    // here: keeping the progress state costs every call its publication
    // (measured: +25 to +80 ns a call over the summary on the fake driver,
    // past the metrics' 5 ns target).
    // SAFETY: registering a plain extern "C" function.
    unsafe { libc::pthread_atfork(None, None, Some(in_forked_child)) };
    if let Some(addr) = c.listen {
        http::start(addr);
    }
    if let Some(path) = &c.file {
        textfile::start(path, c.interval_s);
    }
}

/// The final textfile, after the trace's final flush (it took the last GPU
/// records): its counters are the exit summary's.
fn at_exit() {
    collect::exiting();
    let _ = std::panic::catch_unwind(textfile::last);
}

/// A forked child: its parent's threads are not there; the inherited
/// listening socket is closed, so the port is its parent's alone.
extern "C" fn in_forked_child() {
    http::in_forked_child();
    textfile::in_forked_child();
}

/// What tracing costs per call, for the `estimated_overhead_seconds_total`
/// metric: the added nanoseconds per call of each output mode, over tracing
/// off, measured on the H100 host's CPU with the fake driver (`cargo bench
/// --bench entry`, docs/PERFORMANCE.md, "Tracing cost per call": session
/// 3 for summary, sampled summary, timeline and the call log; session 7
/// for the recorder on the H200 host). An estimate: a host whose clock
/// reads cost more or less moves it.
pub mod cost {
    /// `summary` (and counting alone, which the metrics turn on): every
    /// call timed, two clock reads and a statistics update (+38.6 to +42.9).
    pub(crate) const SUMMARY_NS: f64 = 41.0;
    /// `summary` with `CUDART_SHIM_TRACE_SAMPLE=16` (+5.1 to +11.4).
    pub(crate) const SUMMARY_SAMPLED_NS: f64 = 8.0;
    /// `timeline`, on the calling thread (+46.2 to +71.8, bursts).
    pub(crate) const TIMELINE_NS: f64 = 60.0;
    /// The call log, one `write` per call (+510 to +630).
    pub(crate) const CALLS_NS: f64 = 570.0;
    /// The flight recorder (+59.6 to +67.0, H200 host).
    pub(crate) const RECORDER_NS: f64 = 63.0;

    /// The estimated cost of one call with the outputs `flags` (the
    /// trace's switches) on and the summary timing 1 call in `sample`.
    /// The timeline and the recorder read the clock the summary reads, so
    /// the dearest of them is the base; the call log adds its write.
    pub fn per_call_ns(flags: u32, sample: u32) -> f64 {
        use crate::trace::{CALLS, COUNT, RECORDER, SUMMARY, TIMELINE};
        let mut base: f64 = 0.0;
        if flags & (SUMMARY | COUNT) != 0 {
            base = if sample > 1 { SUMMARY_SAMPLED_NS } else { SUMMARY_NS };
        }
        if flags & TIMELINE != 0 {
            base = base.max(TIMELINE_NS);
        }
        if flags & RECORDER != 0 {
            base = base.max(RECORDER_NS);
        }
        base + if flags & CALLS != 0 { CALLS_NS } else { 0.0 }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::trace::{CALLS, COUNT, SUMMARY, TIMELINE};

        #[test]
        fn the_dearest_clock_user_plus_the_call_log() {
            assert_eq!(per_call_ns(0, 1), 0.0);
            assert_eq!(per_call_ns(COUNT, 1), SUMMARY_NS);
            assert_eq!(per_call_ns(SUMMARY, 16), SUMMARY_SAMPLED_NS);
            assert_eq!(per_call_ns(SUMMARY | TIMELINE, 1), TIMELINE_NS);
            assert_eq!(per_call_ns(SUMMARY | CALLS, 1), SUMMARY_NS + CALLS_NS);
        }
    }
}
