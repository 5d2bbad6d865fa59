//! Subscribers (the shim's C API): callbacks on entry and exit of every
//! call, and the counters API behind `cudartShim*`.
//!
//! The subscriber list is an immutable snapshot behind an atomic pointer:
//! the hot path reads it without a lock; (un)subscribing builds a new one
//! under a lock and leaks the old (a reader may still hold it; the leak is
//! bounded by the number of subscribe calls).

use super::args::CallArgs;
use super::clock;
use crate::api::shim::{cudartShimArg, cudartShimCallback, cudartShimCallbackData, cudartShimCounter};
use crate::types::{cudaError_t, cudaErrorInvalidValue, cudaErrorUnknown, cudaSuccess};
use parking_lot::Mutex;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
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
        phase: if exit.is_some() { 1 } else { 0 },
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

/// The shim API's panic boundary: never unwind into C.
pub fn boundary(f: impl FnOnce() -> cudaError_t) -> cudaError_t {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(cudaErrorUnknown)
}

/// # Safety
/// Pointers as the C API documents them (valid or NULL).
pub unsafe fn subscribe(enter: cudartShimCallback, exit: cudartShimCallback, user: *mut c_void, handle: *mut u64) -> cudaError_t {
    if handle.is_null() || (enter.is_none() && exit.is_none()) {
        return cudaErrorInvalidValue;
    }
    let mut next = EDIT.lock();
    *next += 1;
    let mut v = snapshot().to_vec();
    v.push(Sub { handle: *next, enter, exit, user: user as usize });
    // SAFETY: checked non-null.
    unsafe { *handle = *next };
    publish(v);
    cudaSuccess
}

pub fn unsubscribe(handle: u64) -> cudaError_t {
    let _g = EDIT.lock();
    let mut v = snapshot().to_vec();
    let before = v.len();
    v.retain(|s| s.handle != handle);
    if v.len() == before {
        return cudaErrorInvalidValue;
    }
    publish(v);
    cudaSuccess
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

/// # Safety
/// Pointers as the C API documents them (valid or NULL).
pub unsafe fn get_counters(out: *mut cudartShimCounter, capacity: usize, count: *mut usize) -> cudaError_t {
    if count.is_null() || (out.is_null() && capacity > 0) {
        return cudaErrorInvalidValue;
    }
    let all: Vec<cudartShimCounter> = (0..super::site_count()).map(counter).filter(|c| c.calls > 0).collect();
    for (i, c) in all.iter().take(capacity).enumerate() {
        // SAFETY: the caller gave room for `capacity` records.
        unsafe { out.add(i).write(*c) };
    }
    // SAFETY: checked non-null.
    unsafe { *count = all.len() };
    cudaSuccess
}

/// # Safety
/// Pointers as the C API documents them (valid or NULL).
pub unsafe fn get_counter(name: *const c_char, out: *mut cudartShimCounter) -> cudaError_t {
    if name.is_null() || out.is_null() {
        return cudaErrorInvalidValue;
    }
    // SAFETY: a C string from the caller.
    let n = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    let c = match super::site_id(&n) {
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
    // SAFETY: checked non-null.
    unsafe { out.write(c) };
    cudaSuccess
}

pub fn enable_counters(on: c_int) -> cudaError_t {
    super::set_flag(super::COUNT, on != 0);
    cudaSuccess
}

pub fn reset_counters() -> cudaError_t {
    super::stats::EPOCH.fetch_add(1, Relaxed);
    cudaSuccess
}

pub fn flush() -> cudaError_t {
    super::flush();
    cudaSuccess
}
