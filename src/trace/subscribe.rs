//! Subscribers (the shim's C API): callbacks on entry and exit of every
//! call, and the counters API behind `cudartShim*`. The C types are in
//! `types::shim`, the exports in `api::shim`.
//!
//! The subscriber list is an immutable snapshot behind an atomic pointer:
//! the hot path reads it without a lock; (un)subscribing builds a new one
//! under a lock and leaks the old (a reader may still hold it; the leak is
//! bounded by the number of subscribe calls).
//!
//! Calls made from inside a subscriber callback (on its thread) are not
//! delivered to subscribers: an exit callback that calls
//! `cudaGetErrorName` would otherwise be called again for that call, and
//! again, until the stack overflows. They are still answered, counted and
//! traced like any other call (nested, one level deeper).

use super::args::CallArgs;
use super::clock;
use crate::types::{
    cudaError_t, cudaErrorInvalidValue, cudaSuccess, cudartShimArg, cudartShimCallback, cudartShimCallbackData,
    cudartShimCounter, CudaResult, CUDART_SHIM_PHASE_ENTER, CUDART_SHIM_PHASE_EXIT,
};
use parking_lot::Mutex;
use std::cell::Cell;
use std::ffi::{c_void, CStr, CString};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicPtr, Ordering::*};

#[derive(Clone, Copy)]
struct Sub {
    handle: u64,
    enter: cudartShimCallback,
    exit: cudartShimCallback,
    user: usize,
}

static SUBS: AtomicPtr<Vec<Sub>> = AtomicPtr::new(std::ptr::null_mut());
static EDIT: Mutex<u64> = Mutex::new(0);

fn snapshot() -> &'static [Sub] {
    let p = SUBS.load(Acquire);
    // SAFETY: snapshots are leaked, never freed.
    if p.is_null() { &[] } else { unsafe { &*p } }
}

fn publish(v: Vec<Sub>) {
    let any = !v.is_empty();
    SUBS.store(Box::into_raw(Box::new(v)), Release);
    super::set_flag(super::SUBSCRIBERS, any);
}

/// Call the subscribers: `exit` is None on entry, else (result, ticks).
pub fn notify(id: u32, depth: u32, args: &dyn Fn(&mut CallArgs), exit: Option<(cudaError_t, u64)>) {
    let subs = snapshot();
    let pick = |s: &Sub| if exit.is_some() { s.exit } else { s.enter };
    if !subs.iter().any(|s| pick(s).is_some()) {
        return;
    }
    // A call from inside a callback of this thread is not delivered (see
    // the module doc). During thread teardown the flag cannot be read:
    // deliver nothing rather than risk the recursion.
    let Some(_in_callback) = InCallback::enter() else { return };
    let mut captured = CallArgs::new(exit.is_some_and(|(r, _)| r.is_success()));
    args(&mut captured);
    let strings: Vec<(CString, CString)> = captured
        .strings()
        .into_iter()
        .map(|(n, v)| (CString::new(n).unwrap_or_default(), CString::new(v).unwrap_or_default()))
        .collect();
    let cargs: Vec<cudartShimArg> =
        strings.iter().map(|(n, v)| cudartShimArg { name: n.as_ptr(), value: v.as_ptr() }).collect();
    let data = cudartShimCallbackData {
        function_id: id,
        function_name: super::site_c_name(id),
        phase: if exit.is_some() { CUDART_SHIM_PHASE_EXIT } else { CUDART_SHIM_PHASE_ENTER },
        depth,
        thread_id: super::gettid(),
        num_args: cargs.len() as u32,
        args: cargs.as_ptr(),
        result: exit.map_or(cudaSuccess, |(r, _)| r),
        duration_ns: exit.map_or(0, |(_, t)| clock::to_ns(t)),
    };
    for s in subs {
        if let Some(cb) = pick(s) {
            // SAFETY: a callback the program registered, with its user data.
            unsafe { cb(s.user as *mut c_void, &data) };
        }
    }
}

thread_local! {
    // No destructor: readable at any point of the thread's teardown.
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// This thread is running subscriber callbacks while this guard lives.
struct InCallback;

impl InCallback {
    /// None when the thread is already in a callback, or is being torn down.
    /// (`then`, not `then_some`: an eagerly built guard would be dropped,
    /// clearing the flag, exactly when it must stay set.)
    fn enter() -> Option<InCallback> {
        IN_CALLBACK.try_with(|f| !f.replace(true)).ok()?.then(|| InCallback)
    }
}

impl Drop for InCallback {
    fn drop(&mut self) {
        let _ = IN_CALLBACK.try_with(|f| f.set(false));
    }
}

/// Register callbacks; `handle` receives the subscription's handle.
pub fn subscribe(enter: cudartShimCallback, exit: cudartShimCallback, user: *mut c_void, handle: Option<&mut u64>) -> CudaResult {
    let handle = handle.ok_or(cudaErrorInvalidValue)?;
    if enter.is_none() && exit.is_none() {
        return Err(cudaErrorInvalidValue);
    }
    let mut next = EDIT.lock();
    *next += 1;
    let mut v = snapshot().to_vec();
    v.push(Sub { handle: *next, enter, exit, user: user as usize });
    *handle = *next;
    publish(v);
    Ok(())
}

pub fn unsubscribe(handle: u64) -> CudaResult {
    let _g = EDIT.lock();
    let mut v = snapshot().to_vec();
    let before = v.len();
    v.retain(|s| s.handle != handle);
    if v.len() == before {
        return Err(cudaErrorInvalidValue);
    }
    publish(v);
    Ok(())
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
