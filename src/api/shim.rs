//! cudart-shim's own C API (trace control, counters, subscribers), declared
//! in `include/cudart_shim.h` next to the CUDA runtime API. Every name
//! starts with `cudartShim`. The logic lives in `trace::subscribe`.

use crate::trace::subscribe;
use crate::types::{cudaError_t, cudartShimPoolStats};
use std::ffi::{c_char, c_int, c_void};

/// One decoded argument of a call: its name and its value as the call log
/// writes it (enums by name, pointers in hex, out-parameters `0x...->value`
/// on exit of a successful call). Valid during the callback only.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudartShimArg {
    pub name: *const c_char,
    pub value: *const c_char,
}

/// What a subscriber callback receives. Valid during the callback only.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudartShimCallbackData {
    /// Stable for the life of the process; see `cudartShimGetFunctionName`.
    pub function_id: u32,
    pub function_name: *const c_char,
    /// `CUDART_SHIM_PHASE_ENTER` or `CUDART_SHIM_PHASE_EXIT`.
    pub phase: c_int,
    /// 0 for a call from the program; 1 and more for calls made while
    /// another call of the same thread is running (from a callback).
    pub depth: u32,
    /// The calling thread's kernel thread id.
    pub thread_id: c_int,
    pub num_args: u32,
    pub args: *const cudartShimArg,
    /// On exit: what the call returned (cudaSuccess on entry).
    pub result: cudaError_t,
    /// On exit: how long the call took.
    pub duration_ns: u64,
}

pub const CUDART_SHIM_PHASE_ENTER: c_int = 0;
pub const CUDART_SHIM_PHASE_EXIT: c_int = 1;

/// A subscriber callback: `userdata` as given to `cudartShimSubscribe`.
pub type cudartShimCallback = Option<unsafe extern "C" fn(userdata: *mut c_void, data: *const cudartShimCallbackData)>;

/// Counters of one function, over every thread, since the last reset.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudartShimCounter {
    pub function_id: u32,
    pub function_name: *const c_char,
    pub calls: u64,
    pub failed_calls: u64,
    pub total_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
}

/// Count calls (for the counters API) even without `CUDART_SHIM_TRACE`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimEnableCounters(enable: c_int) -> cudaError_t {
    subscribe::boundary(|| subscribe::enable_counters(enable))
}

/// Counters of every function called so far: up to `capacity` records in
/// `counters` (may be NULL when `capacity` is 0); `*count` = how many exist.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimGetCounters(counters: *mut cudartShimCounter, capacity: usize, count: *mut usize) -> cudaError_t {
    subscribe::boundary(|| unsafe { subscribe::get_counters(counters, capacity, count) })
}

/// Counters of one function by name (zeros when it was never called).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimGetCounter(name: *const c_char, counter: *mut cudartShimCounter) -> cudaError_t {
    subscribe::boundary(|| unsafe { subscribe::get_counter(name, counter) })
}

/// Start every counter (and the summary) from zero.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimResetCounters() -> cudaError_t {
    subscribe::boundary(subscribe::reset_counters)
}

/// Write the summary and every pending timeline event now.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimFlush() -> cudaError_t {
    subscribe::boundary(subscribe::flush)
}

/// Call `on_enter` before and `on_exit` after every runtime call (either
/// may be NULL, not both), from the calling thread. `*handle` receives the
/// subscription for `cudartShimUnsubscribe`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimSubscribe(
    on_enter: cudartShimCallback,
    on_exit: cudartShimCallback,
    userdata: *mut c_void,
    handle: *mut u64,
) -> cudaError_t {
    subscribe::boundary(|| unsafe { subscribe::subscribe(on_enter, on_exit, userdata, handle) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimUnsubscribe(handle: u64) -> cudaError_t {
    subscribe::boundary(|| subscribe::unsubscribe(handle))
}

/// The name of function `function_id`, or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimGetFunctionName(function_id: u32) -> *const c_char {
    crate::trace::site_c_name(function_id)
}

/// The caching allocator's statistics of `device`: device memory when
/// `host` is 0, pinned host memory when 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudartShimGetPoolStats(device: c_int, host: c_int, stats: *mut cudartShimPoolStats) -> cudaError_t {
    entry!(@no_init cudartShimGetPoolStats(device, host, stats) => {
        *unsafe { crate::runtime::out(stats) }? = crate::runtime::memory::cache::stats_of(device, host != 0);
        Ok(())
    })
}
