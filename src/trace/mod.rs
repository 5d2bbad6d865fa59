//! Counting, timing and tracing of calls.
//!
//! Every export owns a static [`CallSite`]. When tracing is off (the
//! default), [`active`] is one relaxed load and the site is never touched.
//! When on, [`traced`] times the call and hands it to the enabled outputs.
//! Configuration is read once from the environment, at the first call.

pub mod args;

pub use args::{ArgSink, TraceArg};

use crate::types::cudaError_t;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Static per-export record: its name and counters. Const-constructed, so
/// the hot path never registers or allocates anything.
pub struct CallSite {
    pub name: &'static str,
    calls: AtomicU64,
    total_ns: AtomicU64,
}

impl CallSite {
    pub const fn new(name: &'static str) -> Self {
        CallSite { name, calls: AtomicU64::new(0), total_ns: AtomicU64::new(0) }
    }
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
    pub fn total_ns(&self) -> u64 {
        self.total_ns.load(Ordering::Relaxed)
    }
}

const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Whether calls are traced. Reads the environment on first use.
#[inline(always)]
pub fn active() -> bool {
    match STATE.load(Ordering::Relaxed) {
        OFF => false,
        ON => true,
        _ => configure(),
    }
}

#[cold]
fn configure() -> bool {
    let on = crate::config::env_var("CUDART_SHIM_TRACE").is_some_and(|v| !v.is_empty() && v != "0");
    STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
    on
}

/// Run a traced call: `run` performs it (panic boundary included) and
/// `status_of` says what it returned.
#[inline(never)]
pub fn traced<R>(
    site: &'static CallSite,
    _args: &dyn Fn(&mut dyn ArgSink),
    run: impl FnOnce() -> R,
    status_of: impl Fn(&R) -> cudaError_t,
) -> R {
    let t0 = std::time::Instant::now();
    let r = run();
    let dt = t0.elapsed().as_nanos() as u64;
    let _ = status_of(&r);
    site.calls.fetch_add(1, Ordering::Relaxed);
    site.total_ns.fetch_add(dt, Ordering::Relaxed);
    r
}
