//! C types of cudart-shim's own API (`cudartShim*`, declared in
//! `include/cudart_shim_ext.h`): subscriber callbacks, counters and pool
//! statistics. They are ours, not NVIDIA's: the names start with
//! `cudartShim` / `CUDART_SHIM_`, and they use only C types and NVIDIA's
//! `cudaError_t`, so the extension header compiles after NVIDIA's
//! `cuda_runtime_api.h` as well as after `cudart_shim.h`.
//!
//! The trace layer fills the subscriber and counter records, the caching
//! allocator the pool statistics; the exports are in `api/shim.rs`.

use super::cudaError_t;
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
    /// another call of the same thread is running (from a stream callback,
    /// say). Calls made by a subscriber callback are never delivered.
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
/// It may call the runtime; those calls are answered, counted and traced,
/// but not delivered to subscribers (no callback re-enters itself).
pub type cudartShimCallback = Option<unsafe extern "C" fn(userdata: *mut c_void, data: *const cudartShimCallbackData)>;

/// Counters of one function, over every thread, since the last reset.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudartShimCounter {
    pub function_id: u32,
    pub function_name: *const c_char,
    pub calls: u64,
    pub failed_calls: u64,
    pub total_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
}

/// Statistics of the opt-in caching allocator (`CUDART_SHIM_POOL=1`) for one
/// device's device memory or pinned host memory. The allocator carves
/// blocks (requests rounded to 512 B) out of segments it takes from the
/// driver (whole 2 MiB pages); held bytes = active + cached bytes. All zero
/// when the allocator is off or unused.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudartShimPoolStats {
    /// Segments taken from the driver and not given back, and their bytes.
    pub held_blocks: u64,
    pub held_bytes: u64,
    /// Blocks in the program's hands.
    pub active_blocks: u64,
    pub active_bytes: u64,
    /// Free blocks in the cache (freed blocks waiting for a synchronize, and
    /// free parts of segments).
    pub cached_blocks: u64,
    pub cached_bytes: u64,
    pub peak_held_bytes: u64,
    /// Allocations served from the cache / that took a new segment from the
    /// driver.
    pub hits: u64,
    pub misses: u64,
    /// Device synchronizations made to reuse freed blocks.
    pub synchronizes: u64,
    /// Segments given back to the driver.
    pub released_blocks: u64,
}

/// One call as every stage of the interception pipeline sees it (hooks,
/// faults, the ledger, observation): the same description for runtime and
/// driver calls. Valid during the call only.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudartShimCall {
    /// One id space over runtime and driver names (`CUDART_SHIM_ID_<name>`
    /// in `cudart_shim_params.h`; driver ids start at
    /// `CUDART_SHIM_DRIVER_BASE`). The same for every process of one build.
    pub function_id: u32,
    /// `CUDART_SHIM_LAYER_RUNTIME` or `CUDART_SHIM_LAYER_DRIVER`.
    pub layer: u32,
    /// 0 for a call from the program; 1 and more for a call made while
    /// another intercepted call of the same thread is running (our runtime's
    /// driver calls, a stream callback's calls).
    pub depth: u32,
    /// The calling thread's kernel thread id.
    pub thread_id: c_int,
    pub function_name: *const c_char,
    /// The call's typed parameter block (`<name>_params` in
    /// `cudart_shim_params.h`; NULL for a function without parameters).
    /// A `before` handler may change the arguments through it.
    pub params: *mut c_void,
    /// The result so far: set before the `after` phase (a `cudaError_t` for
    /// a runtime call, a `CUresult` for a driver call); 0 before the call.
    pub result: c_int,
}

pub const CUDART_SHIM_LAYER_RUNTIME: u32 = 0;
pub const CUDART_SHIM_LAYER_DRIVER: u32 = 1;
