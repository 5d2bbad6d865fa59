//! The pipeline's one switch word: "is anything on?", read with one relaxed
//! load on every call at both interception points (`entry!` and, through
//! `trace::driver_abi::Hooks::flags`, the driver interposer).
//!
//! Values: 0 until the one-time setup ran (`crate::intercept`), then
//! [`CONFIGURED`] plus one bit per capability that wants calls. A call pays
//! for the slow path only while the word is above [`CONFIGURED`].
//!
//! It lives here, low in the layers, so that each capability (trace,
//! hooks, faults, ledger, recorder) can set its own bit without importing
//! the pipeline that reads it.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

pub const CONFIGURED: u32 = 1;
/// Observation: any trace output, counters or subscribers.
pub const TRACE: u32 = 2;
/// At least one hook is registered.
pub const HOOKS: u32 = 4;
/// At least one fault spec is active.
pub const FAULTS: u32 = 8;
/// The ledger wants calls (`crate::ledger`).
pub const LEDGER: u32 = 16;
/// Observation is the flight recorder alone (set instead of [`TRACE`]):
/// with nothing else on, a call takes the recorder's short path
/// (`crate::entry`), not the whole pipeline. The recorder's cost target
/// (15 ns a call) leaves no room for the stages it would skip anyway.
pub const RECORDER: u32 = 32;
/// Progress state is kept (`trace::progress`: the watchdog, the metrics):
/// each call is published around its run, each launch counted.
pub const PROGRESS: u32 = 64;

/// The word.
pub static ON: AtomicU32 = AtomicU32::new(0);

/// Set or clear `bit` (does not run the setup).
pub fn mark(bit: u32, on: bool) {
    if on {
        ON.fetch_or(bit, Relaxed);
    } else {
        ON.fetch_and(!bit, Relaxed);
    }
}

/// The bits now.
#[inline(always)]
pub fn bits() -> u32 {
    ON.load(Relaxed)
}
