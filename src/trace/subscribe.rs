//! Subscribers (the shim's C API): callbacks on entry and exit of every
//! call, and the counters API behind `cudartShim*`. The C types are in
//! `types::shim`, the exports in `api::shim`.
//!
//! A subscriber is a registration in the hook registry
//! (`control::hooks`), its observe-only case: the same snapshot and
//! hazard-pointer publication (no lock on the call path; once
//! `cudartShimUnsubscribe` returns, outside a callback, the callback is
//! not running and will not run, so its user data may be freed), the same
//! match bits (a subscriber wants every function), the same re-entrancy
//! rule. What is left here is observation's side: when to deliver (the
//! trace calls [`notify`] when a call enters and when it has returned)
//! and what a callback receives (`cudartShimCallbackData`, its arguments
//! as the call log writes them, the trace's function ids).
//!
//! Subscribers are delivered by observation: a registered subscriber turns
//! it on ([`super::SUBSCRIBERS`]) whatever `CUDART_SHIM_TRACE` says, and
//! writes nothing; see docs/CONTROL.md for which calls they see.
//!
//! Calls made from inside a callback (or a hook handler) on its thread are
//! not delivered to subscribers or hooks: an exit callback that calls
//! `cudaGetErrorName` would otherwise be called again for that call, and
//! again, until the stack overflows. They are still answered, counted and
//! traced like any other call (nested, one level deeper).

use super::args::CallArgs;
use super::clock;
use crate::control::{self, hooks};
use crate::types::{
    cudaError_t, cudaErrorInvalidValue, cudaSuccess, cudartShimArg, cudartShimCallback, cudartShimCallbackData,
    cudartShimCounter, CudaResult, CUDART_SHIM_PHASE_ENTER, CUDART_SHIM_PHASE_EXIT,
};
use std::ffi::{c_void, CStr};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, Ordering::*};

/// The hook registry's id of each trace function id, plus one (0: not
/// looked up yet). Looked up by name once per function, at its first
/// delivery; `hooks::OTHER` for a name outside the registry's id space.
static REGISTRY_ID: [AtomicU32; super::MAX_SITES] = [const { AtomicU32::new(0) }; super::MAX_SITES];

fn registry_id(id: u32) -> u32 {
    let Some(slot) = REGISTRY_ID.get(id as usize) else { return hooks::OTHER };
    match slot.load(Relaxed) {
        0 => {
            let r = control::id_of(super::site_name(id)).unwrap_or(hooks::OTHER);
            slot.store(r + 1, Relaxed);
            r
        }
        v => v - 1,
    }
}

/// What a callback receives, built at the first subscriber that wants the
/// call: the arguments as text (`name\0value\0` for each, in one buffer),
/// and the C view of them. Kept per thread and reused, so that a delivery
/// allocates nothing once the buffers have grown.
#[derive(Default)]
struct Built {
    text: Vec<u8>,
    /// Each argument's name and value offsets in `text`.
    at: Vec<(usize, usize)>,
    args: Vec<cudartShimArg>,
    /// One value's text, before it is copied into `text`.
    value: String,
}

impl Built {
    fn fill(&mut self, captured: &CallArgs) {
        self.text.clear();
        self.at.clear();
        self.args.clear();
        for k in captured.kept() {
            self.value.clear();
            k.write_value(&captured.text, &mut self.value);
            let name = self.text.len();
            self.text.extend_from_slice(k.name.as_bytes());
            self.text.push(0);
            let v = self.text.len();
            // A value holding a NUL is cut there (C sees it so anyway).
            let value = self.value.as_bytes();
            self.text.extend_from_slice(&value[..value.iter().position(|&b| b == 0).unwrap_or(value.len())]);
            self.text.push(0);
            self.at.push((name, v));
        }
        // The pointers once the text has stopped growing.
        let base = self.text.as_ptr();
        // SAFETY: offsets within `text`, each at a NUL-terminated string.
        self.args.extend(self.at.iter().map(|&(n, v)| unsafe { cudartShimArg { name: base.add(n).cast(), value: base.add(v).cast() } }));
    }
}

thread_local! {
    static BUILT: std::cell::RefCell<Built> = std::cell::RefCell::new(Built::default());
}

/// Deliver a call to the subscribers (trace function `id`, on thread `tid`,
/// at `depth`): `exit` is None on entry, else (result, ticks).
pub fn notify(id: u32, tid: i32, depth: u32, args: &dyn Fn(&mut CallArgs), exit: Option<(cudaError_t, u64)>) {
    let phase = if exit.is_some() { hooks::EXIT } else { hooks::ENTER };
    let deliver = |built: &mut Built| {
        let mut filled = false;
        hooks::observe(phase, registry_id(id), |cb, user| {
            if !filled {
                let mut captured = CallArgs::new(exit.is_some_and(|(r, _)| r.is_success()));
                args(&mut captured);
                built.fill(&captured);
                filled = true;
            }
            let data = cudartShimCallbackData {
                function_id: id,
                function_name: super::site_c_name(id),
                phase: if exit.is_some() { CUDART_SHIM_PHASE_EXIT } else { CUDART_SHIM_PHASE_ENTER },
                depth,
                thread_id: tid,
                num_args: built.args.len() as u32,
                args: built.args.as_ptr(),
                result: exit.map_or(cudaSuccess, |(r, _)| r),
                duration_ns: exit.map_or(0, |(_, t)| clock::to_ns(t)),
            };
            // SAFETY: a callback the program registered, with its user data;
            // `data` and the strings it points to live through the call.
            unsafe { cb(user, &data) };
        });
    };
    // The thread's buffers, held while its callbacks run; fresh ones when
    // they are held already (a callback's own calls are not delivered, so
    // only a signal handler's delivery could find them so) or the thread
    // is being torn down.
    let held = BUILT.try_with(|b| b.try_borrow_mut().map(|mut b| deliver(&mut b)).is_ok()).unwrap_or(false);
    if !held {
        deliver(&mut Built::default());
    }
}

/// Observation on or off for subscribers: called by the registry under its
/// edit mutex, so concurrent edits switch it in the order they publish.
fn switch(any: bool) {
    super::set_flag(super::SUBSCRIBERS, any);
}

/// Register callbacks; `handle` receives the subscription's handle.
pub fn subscribe(enter: cudartShimCallback, exit: cudartShimCallback, user: *mut c_void, handle: Option<&mut u64>) -> CudaResult {
    let handle = handle.ok_or(cudaErrorInvalidValue)?;
    // The trace's one-time setup first, outside the registry's edit mutex
    // (`switch` runs under it; the setup may start CUPTI, which calls the
    // driver).
    let _ = super::active();
    hooks::subscribe(enter, exit, user, handle, switch)
}

/// End a subscription; once it returns (outside a callback) its callbacks
/// are not running and will not run again.
pub fn unsubscribe(handle: u64) -> CudaResult {
    hooks::unsubscribe(handle, switch)
}

fn counter(id: u32) -> cudartShimCounter {
    let a = super::merged(id);
    let ns = |t: u64| if t == 0 { 0 } else { clock::to_ns(t) };
    cudartShimCounter {
        function_id: id,
        function_name: super::site_c_name(id),
        calls: a.calls,
        failed_calls: a.errors_total(),
        total_ns: ns(a.total_estimate()),
        min_ns: if a.calls == 0 { 0 } else { ns(a.min) },
        max_ns: ns(a.max),
    }
}

/// The counters of every function called so far, as many as fit in `out`
/// (None, the C caller's NULL, only with `capacity` 0); `count` receives
/// how many there are.
pub fn get_counters(out: Option<&mut [MaybeUninit<cudartShimCounter>]>, capacity: usize, count: Option<&mut usize>) -> CudaResult {
    let count = count.ok_or(cudaErrorInvalidValue)?;
    if out.is_none() && capacity > 0 {
        return Err(cudaErrorInvalidValue);
    }
    let all: Vec<cudartShimCounter> = (0..super::site_count()).map(counter).filter(|c| c.calls > 0).collect();
    for (slot, c) in out.unwrap_or_default().iter_mut().zip(&all) {
        slot.write(*c);
    }
    *count = all.len();
    Ok(())
}

/// The counters of function `name` (zeros, and id `u32::MAX`, when no such
/// function was ever called).
pub fn get_counter(name: Option<&CStr>, out: Option<&mut cudartShimCounter>) -> CudaResult {
    let (name, out) = (name.ok_or(cudaErrorInvalidValue)?, out.ok_or(cudaErrorInvalidValue)?);
    *out = match super::site_id(&name.to_string_lossy()) {
        Some(id) => counter(id),
        None => cudartShimCounter {
            function_id: u32::MAX,
            function_name: std::ptr::null(),
            calls: 0,
            failed_calls: 0,
            total_ns: 0,
            min_ns: 0,
            max_ns: 0,
        },
    };
    Ok(())
}

pub fn enable_counters(on: bool) -> CudaResult {
    super::set_flag(super::COUNT, on);
    Ok(())
}

pub fn reset_counters() -> CudaResult {
    super::stats::EPOCH.fetch_add(1, Relaxed);
    Ok(())
}

pub fn flush() -> CudaResult {
    super::flush();
    Ok(())
}

/// The name of function `id`, or NULL.
pub fn function_name(id: u32) -> *const std::ffi::c_char {
    super::site_c_name(id)
}
