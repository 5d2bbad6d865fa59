//! cudart-shim's own C API (trace control, counters, subscribers, pool
//! statistics), declared in `include/cudart_shim_ext.h`. Every name starts
//! with `cudartShim`; the C types are in `types::shim`, the logic in
//! `trace::subscribe` and the caching allocator. Each export goes through
//! `entry!(@own ...)`: the panic boundary every export has, but neither
//! counted nor traced.

use crate::trace::subscribe;
use crate::types::{cudaError_t, cudartShimCallback, cudartShimCounter, cudartShimPoolStats};
use std::ffi::{c_char, c_int, c_void, CStr};

/// Count calls (for the counters API) even without `CUDART_SHIM_TRACE`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimEnableCounters(enable: c_int) -> cudaError_t {
    entry!(@own cudartShimEnableCounters(enable) => subscribe::enable_counters(enable != 0))
}

/// Counters of every function called so far: up to `capacity` records in
/// `counters` (may be NULL when `capacity` is 0); `*count` = how many exist.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimGetCounters(counters: *mut cudartShimCounter, capacity: usize, count: *mut usize) -> cudaError_t {
    entry!(@own cudartShimGetCounters(counters, capacity, count) => {
        // SAFETY: the caller gives room for `capacity` records, or NULL.
        let slots = (!counters.is_null()).then(|| unsafe { std::slice::from_raw_parts_mut(counters.cast(), capacity) });
        subscribe::get_counters(slots, capacity, unsafe { count.as_mut() })
    })
}

/// Counters of one function by name (zeros when it was never called).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimGetCounter(name: *const c_char, counter: *mut cudartShimCounter) -> cudaError_t {
    entry!(@own cudartShimGetCounter(name, counter) => {
        // SAFETY: a C string or NULL; a writable record or NULL.
        let name = (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) });
        subscribe::get_counter(name, unsafe { counter.as_mut() })
    })
}

/// Start every counter (and the summary) from zero.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimResetCounters() -> cudaError_t {
    entry!(@own cudartShimResetCounters() => subscribe::reset_counters())
}

/// Write the summary, the memory report and every pending timeline event now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimFlush() -> cudaError_t {
    entry!(@own cudartShimFlush() => {
        crate::ledger::report::write(false);
        subscribe::flush()
    })
}

/// Call `on_enter` before and `on_exit` after every runtime call (either
/// may be NULL, not both), from the calling thread. `*handle` receives the
/// subscription for `cudartShimUnsubscribe`. A callback may call the
/// runtime: those calls are answered, counted and traced, but not delivered
/// to subscribers, so a callback never re-enters itself.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimSubscribe(
    on_enter: cudartShimCallback,
    on_exit: cudartShimCallback,
    userdata: *mut c_void,
    handle: *mut u64,
) -> cudaError_t {
    // SAFETY: a writable handle or NULL.
    entry!(@own cudartShimSubscribe(on_enter, on_exit, userdata, handle) => subscribe::subscribe(on_enter, on_exit, userdata, unsafe { handle.as_mut() }))
}

/// End a subscription made by `cudartShimSubscribe`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimUnsubscribe(handle: u64) -> cudaError_t {
    entry!(@own cudartShimUnsubscribe(handle) => subscribe::unsubscribe(handle))
}

/// The name of function `function_id`, or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimGetFunctionName(function_id: u32) -> *const c_char {
    entry!(@own cudartShimGetFunctionName(function_id) -> subscribe::function_name(function_id), on_panic = std::ptr::null())
}

/// The caching allocator's statistics of `device`: device memory when
/// `host` is 0, pinned host memory when 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimGetPoolStats(device: c_int, host: c_int, stats: *mut cudartShimPoolStats) -> cudaError_t {
    entry!(@own cudartShimGetPoolStats(device, host, stats) => {
        *unsafe { crate::runtime::out(stats) }? = crate::runtime::memory::cache::stats_of(device, host != 0);
        Ok(())
    })
}
