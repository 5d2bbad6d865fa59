//! Exact completion with `gpu` on: CUPTI's kernel records say which
//! launches finished, flushed at each watchdog tick.
//!
//! - **The link**: each outermost kernel or graph launch pushes an
//!   external correlation id (`crate::trace::gpu::push_id`); CUPTI ties it
//!   to the launch's driver call and so to its kernel's record; the
//!   progress state keeps the id per launch (`progress::link_launches`) and
//!   marks a launch, and the launches before it on its stream, complete
//!   when its kernel's record is taken (`progress::finished`). A graph
//!   launch's record (one per node) marks only the launches before it.
//! - **The flush**: at each tick the watchdog asks this module's thread to
//!   flush CUPTI (`cuptiActivityFlushAll`, forced) and waits for it at
//!   most a bounded time ([`wait`]). A flush can block while the GPU is
//!   hung, or on the multiplexer's locks, or run the program's own buffer
//!   callbacks (the app side of `crate::trace::gpu::mux`): so never on the
//!   watchdog's thread, which waits on an atomic word with a timeout and
//!   never on a lock. A flush that did not return in time leaves that
//!   tick's completion to the probe (the report says so); a flush still
//!   running at the next tick is not asked again.
//! - **fork**: the child has no flushing thread (nor a service thread, nor
//!   CUPTI records of its own); it would start its own only if asked.
//! - **exit**: no flush is asked once the process is ending
//!   (`service::stopping`); a wait in progress ends at once.

use crate::service;
use crate::trace::{gpu, progress};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::*};

static ON: AtomicBool = AtomicBool::new(false);
/// Flushes asked (the tick bumps it) and flushes done (the thread sets it
/// to the request it served): equal when no flush is running.
static ASKED: AtomicU32 = AtomicU32::new(0);
static DONE: AtomicU32 = AtomicU32::new(0);
/// When the flush now running was asked (CLOCK_MONOTONIC ns).
static ASKED_NS: AtomicU64 = AtomicU64::new(0);
static THREAD: service::OwnThread = service::OwnThread::new();

/// Switch exact completion on, when GPU activity is on and its CUPTI can
/// tie launches to records. False: completion stays the probe's.
pub fn start() -> bool {
    if !gpu::on() {
        return false;
    }
    if !gpu::link_for_completion() {
        log::warn!("watchdog: CUPTI cannot tie launches to their kernel records here (no cuptiActivityEnableDriverApi, or external correlation records refused); completion is the probe's");
        return false;
    }
    progress::link_launches(progress::LaunchIds { push: gpu::push_id, pop: gpu::pop_id, last: gpu::last_id });
    ON.store(true, Release);
    true
}

/// Whether completion can be exact (the flush is asked at each tick).
pub fn on() -> bool {
    ON.load(Acquire)
}

/// How this tick's completion is known.
#[derive(Clone, Copy, Debug)]
pub enum Flush {
    /// CUPTI's flush returned: every kernel record it held is taken.
    Done { ms: f64 },
    /// The flush asked now did not return within `waited_ms`.
    Late { waited_ms: f64 },
    /// A flush asked `running_s` ago (an earlier tick) has not returned.
    Running { running_s: f64 },
    /// The flushing thread could not start.
    NoThread,
}

/// A flush asked by [`ask`], to [`wait`] for.
pub struct Asked {
    ticket: Option<u32>,
    at_ns: u64,
}

/// Ask the flushing thread for a flush (started at the first ask). Never
/// blocks. When the last one is still running, none is asked.
pub fn ask() -> Asked {
    let now = progress::now_ns();
    if service::stopping() || !thread() {
        return Asked { ticket: None, at_ns: now };
    }
    let asked = ASKED.load(Acquire);
    if DONE.load(Acquire) != asked {
        return Asked { ticket: None, at_ns: ASKED_NS.load(Relaxed) };
    }
    let t = asked.wrapping_add(1);
    ASKED_NS.store(now, Relaxed);
    ASKED.store(t, Release);
    service::futex_wake(&ASKED);
    Asked { ticket: Some(t), at_ns: now }
}

/// Wait for the flush `a` asked, at most `bound_ns` after it was asked.
/// Waits on an atomic word only (no lock): a flush that blocks never
/// holds the caller longer.
pub fn wait(a: Asked, bound_ns: u64) -> Flush {
    let Some(t) = a.ticket else {
        return if !THREAD.running() {
            Flush::NoThread
        } else {
            Flush::Running { running_s: progress::now_ns().saturating_sub(a.at_ns) as f64 / 1e9 }
        };
    };
    loop {
        let done = DONE.load(Acquire);
        let now = progress::now_ns();
        if done == t {
            return Flush::Done { ms: now.saturating_sub(a.at_ns) as f64 / 1e6 };
        }
        let left = (a.at_ns + bound_ns).saturating_sub(now);
        if left == 0 || service::stopping() {
            return Flush::Late { waited_ms: now.saturating_sub(a.at_ns) as f64 / 1e6 };
        }
        // In slices, so an exit that begins meanwhile ends the wait.
        service::futex_wait(&DONE, done, left.min(20_000_000));
    }
}

/// The flushing thread of this process, started if needed.
fn thread() -> bool {
    if THREAD.running() {
        return true;
    }
    let seen = ASKED.load(Acquire);
    DONE.store(seen, Release);
    THREAD.start("cudart-shim-cupti", in_forked_child, "completion is the probe's", move || run(seen))
}

/// A forked child: no flushing thread, no flush running.
extern "C" fn in_forked_child() {
    THREAD.forget();
    DONE.store(ASKED.load(Relaxed), Relaxed);
}

fn run(mut seen: u32) {
    service::block_signals();
    loop {
        let asked = ASKED.load(Acquire);
        if asked == seen {
            service::futex_wait(&ASKED, seen, 1_000_000_000);
            continue;
        }
        if service::stopping() {
            return;
        }
        // Where the records are taken: progress marks launches complete.
        let _ = std::panic::catch_unwind(|| {
            gpu::flush();
            gpu::settle();
        });
        seen = asked;
        DONE.store(asked, Release);
        service::futex_wake(&DONE);
    }
}
