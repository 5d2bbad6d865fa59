//! The watchdog (`--watchdog SECONDS`, `CUDART_SHIM_WATCHDOG`) and the
//! on-demand hang report (`--dump-signal USR2`, `CUDART_SHIM_DUMP_SIGNAL`).
//!
//! A task on the service thread (`crate::service`) reads the progress
//! state (`crate::trace::progress`) at each tick (every quarter of SECONDS,
//! from 0.1 s to 1 s) and notices when nothing has progressed for SECONDS:
//!
//! - (a) a thread has been inside one CUDA call (runtime or driver) for
//!   SECONDS (the same call: its generation number did not change);
//! - (b) a stream holds launched work and has completed nothing for
//!   SECONDS (completion from the progress probe, [`probe`], and with
//!   `gpu` on from CUPTI's kernel records, flushed at each tick: [`exact`]);
//! - (c) a host-side stall: no kernel launched and no GPU work completed
//!   for SECONDS, after the process launched some, with none of the above
//!   (the threads' NVTX ranges say where the host is). Launches, not calls:
//!   a framework's helper threads poll (`cudaEventQuery`) while the main
//!   thread stalls.
//!
//! It then writes the hang report ([`report`]) to `CUDART_SHIM_HANG_FILE`
//! (default `cudart-shim-hang-<pid>.json`), prints one stderr line with the
//! verdict and the file, and the program goes on (or, with
//! `--watchdog-action abort`, SIGABRT is raised after the report: the
//! flight recorder, when on, dumps on it as on any SIGABRT). When what was
//! stuck moves again (the thread left its call, the stream completed work,
//! a kernel was launched after a host stall), the report gets a `recovered`
//! record and stderr a `recovered after N s` line; a later hang writes a
//! new report over it (`hang_number` counts them).
//!
//! Never waiting on the program: everything read is the progress state's
//! atomics and sequence-locked copies, the ledger's atomics, `/proc` files;
//! the probe's driver calls are made from our thread only ([`probe`]).
//!
//! [`keep_progress`] is the one way to switch progress state on (the
//! watchdog and the metrics call it): it gives the progress state the
//! means to name kernels and to read a thread's context, which live in the
//! layers above it.

pub mod exact;
pub mod probe;
pub mod report;

use crate::service::{self, Tick};
use crate::trace::progress;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::time::Duration;

/// Keep progress state from now on (idempotent): launches are counted,
/// calls published, kernels named at their first launch.
pub fn keep_progress() {
    probe::install();
    progress::enable();
}

/// Set by the dump signal's handler; the tick writes the report.
static REQUESTED: AtomicBool = AtomicBool::new(false);
/// The watchdog period (ns; 0: none, reports on request only).
static PERIOD_NS: AtomicU64 = AtomicU64::new(0);
/// How long a tick waits for CUPTI's flush (exact completion): one tick
/// interval (a flush normally returns in milliseconds).
static FLUSH_WAIT_NS: AtomicU64 = AtomicU64::new(1_000_000_000);

/// Start what the environment asks for (once, from the pipeline's
/// one-time setup at the first CUDA call): nothing when nothing is asked.
pub fn configure() {
    let c = crate::config::watchdog_config();
    if !c.any() {
        return;
    }
    keep_progress();
    // With `gpu` on: completion from CUPTI's kernel records (exact.rs).
    let exact = exact::start();
    log::debug!("watchdog: {c:?}; completion {}", if exact { "exact (CUPTI)" } else { "from the probe" });
    if let Some(sig) = c.dump_signal {
        crate::trace::recorder::signals::install_request(sig, on_request);
    }
    let period = match c.seconds {
        Some(s) => {
            PERIOD_NS.store((s * 1e9) as u64, Relaxed);
            let tick = Duration::from_secs_f64((s / 4.0).clamp(0.1, 1.0));
            FLUSH_WAIT_NS.store(tick.as_nanos() as u64, Relaxed);
            tick
        }
        // Reports on request only: the signal wakes the thread.
        None => Duration::from_secs(3600),
    };
    service::register(tick, period);
}

/// The dump signal arrived (in its handler: async-signal-safe).
fn on_request() {
    REQUESTED.store(true, Release);
    service::wake();
}

/// What the watchdog remembers between ticks (used by the service thread
/// alone; the lock is never taken by a program thread).
#[derive(Default)]
struct Memory {
    /// Per thread: (generation seen, first seen at).
    calls: HashMap<i32, (u64, u64)>,
    /// Per stream: (completed seen, pending since).
    streams: HashMap<u64, (u64, u64)>,
    /// In a hang since (ns) and what was stuck.
    hang: Option<Stuck>,
    hangs: u64,
    /// Kernels launched (every stream), and when that count last moved.
    launches: (u64, u64),
}

/// What a report found stuck; recovered when all of it moved.
#[derive(Clone, Debug, Default)]
pub struct Stuck {
    pub since_ns: u64,
    pub threads: Vec<(i32, u64)>,
    pub streams: Vec<(u64, u64)>,
    pub host_stall: bool,
    pub launches: u64,
}

static MEMORY: Mutex<Option<Memory>> = Mutex::new(None);

fn tick(t: Tick) {
    if service::stopping() {
        return;
    }
    let mut guard = MEMORY.lock();
    let m = guard.get_or_insert_with(Memory::default);
    let requested = t.woken && REQUESTED.swap(false, AcqRel);
    let period = PERIOD_NS.load(Relaxed);
    // CUPTI's flush runs on its own thread while the probe asks the driver;
    // the tick waits for it a bounded time, never on a lock.
    let asked = exact::on().then(exact::ask);
    probe::probe_streams();
    let completion = match asked.map(|a| exact::wait(a, FLUSH_WAIT_NS.load(Relaxed))) {
        None => report::Completion::Probe,
        Some(exact::Flush::Done { .. }) => report::Completion::Exact,
        Some(f) => report::Completion::FlushLate(f),
    };
    let now = progress::now_ns();
    let threads = progress::threads();
    let streams = progress::streams();
    // (a) calls: how long each thread has been in its current call.
    let mut in_call: HashMap<i32, u64> = HashMap::new();
    for th in &threads {
        if th.call.is_some() {
            let e = m.calls.entry(th.tid).or_insert((th.seq_gen, now));
            if e.0 != th.seq_gen {
                *e = (th.seq_gen, now);
            }
            in_call.insert(th.tid, now - e.1);
        } else {
            m.calls.remove(&th.tid);
        }
    }
    m.calls.retain(|tid, _| threads.iter().any(|t| t.tid == *tid));
    // (b) streams: how long each has held work with nothing completed.
    let mut held: HashMap<u64, u64> = HashMap::new();
    // A stream the probe cannot ask (a per-thread default stream: only its
    // thread can name it) never counts as held: its completion is unknown.
    for s in &streams {
        if s.launched > s.completed && progress::stream_handle(s.key).is_some() {
            let e = m.streams.entry(s.key).or_insert((s.completed, now));
            if e.0 != s.completed {
                *e = (s.completed, now);
            }
            held.insert(s.key, now - e.1);
        } else {
            m.streams.remove(&s.key);
        }
    }
    let launches: u64 = streams.iter().map(|s| s.launched).sum();
    if m.launches.0 != launches || m.launches.1 == 0 {
        m.launches = (launches, now);
    }
    publish_last_progress(now, period, &in_call, &held, if launches > 0 { now.saturating_sub(m.launches.1.max(progress::last_completion_ns())) } else { 0 });
    let ctx = report::Context { in_call: &in_call, held: &held, idle_ns: now.saturating_sub(m.launches.1), period_ns: period, completion };
    if let Some(h) = &m.hang {
        if recovered(h, &threads, &streams, launches) {
            let after = (now - h.since_ns) as f64 / 1e9;
            report::recovered(after);
            m.hang = None;
        }
    } else if period > 0 {
        let stuck_threads: Vec<(i32, u64)> = threads.iter().filter(|t| in_call.get(&t.tid).is_some_and(|&d| d >= period)).map(|t| (t.tid, t.seq_gen)).collect();
        let stuck_streams: Vec<(u64, u64)> = streams.iter().filter(|s| held.get(&s.key).is_some_and(|&d| d >= period)).map(|s| (s.key, s.completed)).collect();
        // A host stall: the process has launched work, launched none for
        // the period, and no GPU work completed meanwhile.
        let done = progress::last_completion_ns();
        // Only when nothing else is stuck: a thread in a call or a busy
        // stream is the better name for it (and what must move again).
        let host_stall = stuck_threads.is_empty() && stuck_streams.is_empty() && launches > 0 && now.saturating_sub(m.launches.1.max(done)) >= period;
        if !stuck_threads.is_empty() || !stuck_streams.is_empty() || host_stall {
            m.hangs += 1;
            let since = now - period;
            let stuck = Stuck { since_ns: since, threads: stuck_threads, streams: stuck_streams, host_stall, launches };
            report::write(report::Why::Watchdog, &ctx, &threads, &streams, Some(&stuck), m.hangs);
            m.hang = Some(stuck);
            if crate::config::watchdog_config().abort {
                drop(guard);
                report::abort();
                return;
            }
            return;
        }
    }
    if requested {
        report::write(report::Why::Signal, &ctx, &threads, &streams, m.hang.as_ref(), m.hangs);
    }
}

// ---- the last progress, for the metrics --------------------------------------

/// [`last_progress_wall_ns`], as of the last tick (0: none yet).
static LAST_PROGRESS_WALL_NS: AtomicU64 = AtomicU64::new(0);

/// Publish the watchdog's notion of the last progress at this tick: the
/// start of the longest stretch it is watching without progress (a thread
/// in one call, a stream holding work with nothing completed, the host
/// launching nothing and the GPU completing nothing once work was
/// launched: `in_call`, `held`, `host_idle`, the very durations the tick
/// compares with its period), or now when nothing stalls. Unix time, so
/// that `time() - cudart_shim_last_progress_timestamp_seconds` in a
/// Prometheus alert is what the watchdog compares with SECONDS: the alert
/// fires when the watchdog would report. Not kept without a period (the
/// dump signal alone: no ticks to keep it fresh).
fn publish_last_progress(now: u64, period: u64, in_call: &HashMap<i32, u64>, held: &HashMap<u64, u64>, host_idle: u64) {
    if period == 0 {
        return;
    }
    let stalled = in_call.values().chain(held.values()).copied().fold(host_idle, u64::max);
    let wall = progress::wall_ns().saturating_sub(progress::now_ns().saturating_sub(now));
    LAST_PROGRESS_WALL_NS.store(wall.saturating_sub(stalled), Relaxed);
}

/// When the program last made progress as the watchdog sees it (Unix
/// time, ns), as of its last tick ([`publish_last_progress`]); None before
/// the first tick and without a watchdog period. One atomic load: the
/// metrics' scrape reads it without waiting on the watchdog's thread.
pub fn last_progress_wall_ns() -> Option<u64> {
    Some(LAST_PROGRESS_WALL_NS.load(Relaxed)).filter(|&t| t != 0)
}

/// Whether everything a hang found stuck has moved.
fn recovered(h: &Stuck, threads: &[progress::ThreadView], streams: &[progress::StreamView], launches: u64) -> bool {
    let threads_moved = h.threads.iter().all(|(tid, g)| threads.iter().find(|t| t.tid == *tid).is_none_or(|t| t.seq_gen != *g));
    let streams_moved = h.streams.iter().all(|(key, done)| streams.iter().find(|s| s.key == *key).is_none_or(|s| s.completed != *done || s.completed >= s.launched));
    let host_moved = !h.host_stall || launches != h.launches;
    threads_moved && streams_moved && host_moved
}
