//! cudart-shim's own C API (trace control, counters, subscribers, pool
//! statistics), declared in `include/cudart_shim_ext.h`. Every name starts
//! with `cudartShim`; the C types are in `types::shim`, the logic in
//! `trace::subscribe` and the caching allocator. Each export goes through
//! `entry!(@own ...)`: the panic boundary every export has, but neither
//! counted nor traced.

use crate::control::hooks;
use crate::trace::subscribe;
use crate::types::{cudaError_t, cudartShimCallback, cudartShimCounter, cudartShimHookFn, cudartShimPoolStats};
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
/// to subscribers, so a callback never re-enters itself (nor to hooks: a
/// subscriber is a hook that only observes, see `cudartShimHookRegister`).
/// Subscribers see calls whether or not tracing is on.
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

/// End a subscription made by `cudartShimSubscribe`; safe from any thread
/// while calls are in flight. When it returns (called outside a callback)
/// the callbacks are not running on any thread and will not run again, so
/// their user data may be freed. cudaErrorInvalidValue: no such
/// subscription (a hook's handle included).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimUnsubscribe(handle: u64) -> cudaError_t {
    entry!(@own cudartShimUnsubscribe(handle) => subscribe::unsubscribe(handle))
}

/// Call `handler` in `phase` (`CUDART_SHIM_HOOK_BEFORE`, `_INSTEAD` or
/// `_AFTER`) of every call of the functions `functions` names: a
/// comma-separated list of globs (`*`, `?`) over runtime (`cuda*`) and
/// driver (`cu*`) names, `-glob` to leave some out (the last glob that
/// matches decides). Handlers of one phase run in the order they were
/// registered. `*handle` receives the registration for
/// `cudartShimHookUnregister`. cudaErrorInvalidValue: a NULL argument, a
/// phase out of range, or a list that matches no function (with a log
/// line saying why). Driver calls reach hooks through the driver
/// interposer (`cudart-shim run`/`trace`, or its folder first on
/// LD_LIBRARY_PATH).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimHookRegister(
    functions: *const c_char,
    phase: c_int,
    handler: cudartShimHookFn,
    userdata: *mut c_void,
    handle: *mut u64,
) -> cudaError_t {
    entry!(@own cudartShimHookRegister(functions, phase, handler, userdata, handle) => {
        // SAFETY: a C string or NULL; a writable handle or NULL.
        let functions = (!functions.is_null()).then(|| unsafe { CStr::from_ptr(functions) });
        hooks::register(functions, phase, handler, userdata, unsafe { handle.as_mut() })
    })
}

/// Remove a handler registered by `cudartShimHookRegister`; safe from any
/// thread while calls are in flight. When it returns (called outside a
/// handler) the handler is not running on any thread and will not run
/// again, so its user data may be freed. cudaErrorInvalidValue: no such
/// registration.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimHookUnregister(handle: u64) -> cudaError_t {
    entry!(@own cudartShimHookUnregister(handle) => hooks::unregister(handle))
}

/// For `cudart-shim run/trace --fault`: judge the fault specs `specs` (as
/// `CUDART_SHIM_FAULTS` takes them). 0: good; 1: bad, with the message
/// (what is wrong and what is allowed) in `message` (NUL-terminated,
/// truncated to `len`). Internal to the command.
///
/// cbindgen:ignore
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimInternalCheckFaults(specs: *const c_char, message: *mut c_char, len: usize) -> c_int {
    entry!(@own cudartShimInternalCheckFaults(specs, message, len) -> {
        // SAFETY: a C string or NULL.
        let text = if specs.is_null() { Some("") } else { unsafe { CStr::from_ptr(specs) }.to_str().ok() };
        let err = match text.map(crate::control::faults::parse) {
            Some(Ok(_)) => return 0,
            Some(Err(e)) => e,
            None => "the fault specs are not UTF-8".to_owned(),
        };
        if !message.is_null() && len > 0 {
            let n = err.len().min(len - 1);
            // SAFETY: the caller gives `len` writable bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(err.as_ptr(), message.cast(), n);
                *message.add(n) = 0;
            }
        }
        1
    }, on_panic = 1)
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
