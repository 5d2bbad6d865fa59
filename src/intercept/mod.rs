//! The interception pipeline: one per layer, one order.
//!
//! Runtime exports enter through `entry!` (`crate::entry`), driver exports
//! through the interposer's generated wrapper, which reports here through
//! [`driver`]. Both test one word on every call ([`any`]: one relaxed load
//! and a compare); only when it is above `CONFIGURED` does a call take the
//! slow path, which runs, once per call and in this fixed order:
//!
//! ```text
//! hooks before -> faults -> ledger::before -> the call (or an `instead`
//! hook) -> ledger::after -> hooks after -> observation (trace)
//! ```
//!
//! Every stage sees the same [`Call`]: function id (one id space over
//! runtime and driver names, `control::params`), name, layer, depth, thread,
//! the typed parameter block and, from `after` on, the result.
//!
//! A fault or the ledger that refuses a call skips it, and the `instead`
//! phase and `ledger::after` with it; the `after` hooks and observation
//! still see the call, with the refusing code as its result.
//!
//! Observation wraps the stages ([`observe`]): its clock and nesting span
//! the whole chain, so calls a hook makes nest under the call, and it
//! records the result the caller sees, after every other stage.

pub mod driver;

use crate::control::{self, switch};
use crate::ledger;
use crate::trace::{self, CallArgs, CallSite};
use std::cell::Cell;
use std::sync::atomic::Ordering::Relaxed;

pub use crate::control::switch::{CONFIGURED, FAULTS, HOOKS, LEDGER, PROGRESS, RECORDER, TRACE};
pub use crate::control::Call;

/// Whether any capability wants calls. Runs the one-time setup on first use.
///
/// On the fast path (set up, nothing on) this is one relaxed load, one
/// compare and a branch. A bit set before the setup ran (a hook registered
/// before the first CUDA call) still leads to the setup.
#[inline(always)]
pub fn any() -> bool {
    match switch::ON.load(Relaxed) {
        CONFIGURED => false,
        v if v & CONFIGURED == 0 => configure(),
        _ => true,
    }
}

/// Whether a call of function `id` takes the slow path: [`any`], except
/// that with hooks and faults all that is on, a call no handler and no
/// fault spec wants does not (a few more loads, on the slow branch only).
#[inline(always)]
pub fn wants(id: u32) -> bool {
    wants_with(switch::ON.load(Relaxed), id)
}

/// [`wants`] for the capabilities other than progress (`trace::progress`),
/// which the exports run around the rest.
#[inline(always)]
pub fn wants_besides_progress(id: u32) -> bool {
    wants_with(switch::ON.load(Relaxed) & !PROGRESS, id)
}

/// Whether progress is kept (`trace::progress`): calls are published
/// around their run.
#[inline(always)]
pub fn progress() -> bool {
    switch::bits() & PROGRESS != 0
}

#[inline(always)]
fn wants_with(v: u32, id: u32) -> bool {
    match v {
        CONFIGURED => false,
        v if v & CONFIGURED == 0 => configure(),
        v if v == CONFIGURED | HOOKS => control::hooks::wanted_any(id),
        v if v & !(CONFIGURED | HOOKS | FAULTS) == 0 => (v & HOOKS != 0 && control::hooks::wanted_any(id)) || control::faults::wanted(id),
        _ => true,
    }
}

/// Whether the flight recorder is all that is on: a call that [`wants`]
/// the slow path then goes straight to observation (`trace::traced`),
/// with no stage to run (no hook, fault or ledger is on).
#[inline(always)]
pub fn recorder_alone() -> bool {
    switch::bits() & !PROGRESS == CONFIGURED | RECORDER
}

/// Set or clear a capability's bit, after the one-time setup.
pub fn set(bit: u32, on: bool) {
    configure();
    switch::mark(bit, on);
}

/// The one-time setup: the trace first (it has its own rule for calls made
/// while it sets up, and sets its own bit when done), then the other
/// capabilities read their configuration.
///
/// Invariant: the word gets [`CONFIGURED`] only once the trace's setup is
/// complete, so it never reads "set up, nothing on" while the trace is
/// about to switch on. It did: a thread could find the trace's flags set
/// (they are set before its bit is published), finish this setup, and
/// every thread's calls then skipped observation until the bit came: one
/// call lost from the summary in ~1 of 1,100 runs of 32 threads starting
/// at once, 25 calls from a timeline once in CI (docs/RELIABILITY.md).
/// The thread running the trace's setup gets false here and leaves the
/// word at 0 (its calls are part of that setup), so other threads keep
/// coming here and wait for it.
#[cold]
fn configure() -> bool {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if !trace::setup() {
        return false;
    }
    ONCE.call_once(|| {
        // The memory report carries the trace's process record (ledger and
        // trace are one layer; neither imports the other for it).
        ledger::report::set_process_record(trace::event::process::record);
        trace::set_device_lister(trace::event::process::DeviceSource::Ledger, ledger::book::devices);
        let mut bits = CONFIGURED;
        if control::faults::enabled() {
            bits |= FAULTS;
        }
        if ledger::enabled() {
            bits |= LEDGER;
        }
        switch::ON.fetch_or(bits, Relaxed);
        // The watchdog and the on-demand hang report, when asked for.
        crate::watchdog::configure();
        // The metrics, when a variable asks (after the trace, which counts
        // calls for them, and the ledger they read): armed to start at the
        // first call that is work.
        crate::metrics::arm();
    });
    switch::ON.load(Relaxed) > CONFIGURED
}

thread_local! {
    // No destructor: usable during thread teardown.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// A call description for function `id` of `layer`, at this thread's depth.
#[inline]
pub fn describe(id: u32, layer: u32, params: *mut std::ffi::c_void) -> Call {
    Call {
        function_id: id,
        layer,
        depth: DEPTH.try_with(Cell::get).unwrap_or(0),
        // Filled by the hooks stage when a handler sees the call.
        thread_id: 0,
        function_name: control::c_name(id),
        params,
        result: 0,
    }
}

/// Run the stages around `real` (which makes the call and returns its
/// code). `replaceable`: whether the call's result is a status that a
/// fault, the ledger or an `instead` hook may stand for (false for the
/// runtime exports that return a value: they always run).
#[inline(never)]
pub fn stages(call: &mut Call, replaceable: bool, real: impl FnOnce() -> i32) -> i32 {
    let on = switch::bits();
    let _nested = Nested::enter();
    if on & HOOKS != 0 {
        control::hooks::before(call);
    }
    let mut refused = None;
    let mut fault = control::faults::Decision::default();
    // The ledger's stage runs for the calls it has something to do with
    // (one bit test for the others: it is the metrics' one per-call cost).
    let ledger = on & LEDGER != 0 && ledger::concerns(call.function_id);
    if replaceable {
        if on & FAULTS != 0 {
            fault = control::faults::before(call);
            refused = fault.fail;
        }
        if refused.is_none() && ledger {
            refused = ledger::before(call);
        }
    }
    let mut r = match refused {
        Some(code) => code,
        None => {
            let instead = if replaceable && on & HOOKS != 0 { control::hooks::instead(call) } else { None };
            let r = match instead {
                Some(code) => code,
                None => real(),
            };
            if ledger { ledger::after(call, r) } else { r }
        }
    };
    call.result = r;
    if on & HOOKS != 0 {
        let after = control::hooks::after(call, r);
        if replaceable {
            r = after;
        }
    }
    // For observation, which runs next (only it takes the mark).
    if fault.mark != 0 && switch::bits() & TRACE != 0 {
        control::faults::set_mark(fault.mark);
    }
    r
}

/// Observation around the stages: traced when the trace is on.
#[inline]
pub fn observe<R>(site: &'static CallSite, args: &dyn Fn(&mut CallArgs), run: impl FnOnce() -> R, status_of: impl Fn(&R) -> crate::types::cudaError_t) -> R {
    if switch::bits() & (TRACE | RECORDER) != 0 {
        trace::traced(site, args, run, status_of)
    } else {
        run()
    }
}

/// This thread is inside an intercepted call while the guard lives.
struct Nested;

impl Nested {
    fn enter() -> Nested {
        let _ = DEPTH.try_with(|d| d.set(d.get() + 1));
        Nested
    }
}

impl Drop for Nested {
    fn drop(&mut self) {
        let _ = DEPTH.try_with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Observation of a driver call (the interposer's function `id`).
#[inline]
fn observe_driver(id: u32, words: &[u64], run: impl FnOnce() -> std::ffi::c_int) -> std::ffi::c_int {
    if switch::bits() & (TRACE | RECORDER) != 0 { trace::driver::observe(id, words, run) } else { run() }
}
