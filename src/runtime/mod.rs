//! cudart semantics on top of the driver: lazy initialization, devices and
//! primary contexts, the per-thread last error, and (in the area modules)
//! the conversions of runtime structs to driver structs.
//!
//! Functions here take checked Rust values where they can and return
//! [`CudaResult`](crate::types::CudaResult); raw pointers from C are checked
//! once, at the top of the function that receives them (see [`out`]).

pub mod error;
pub mod state;
pub mod context;
pub mod device;
pub mod version;

pub mod memory;
pub mod peer;
pub mod stream;
pub mod capture;
pub mod event;
pub mod graph;
pub mod launch;
pub mod registry;
mod addr_map;
pub mod library;
pub mod occupancy;
pub mod entry_point;
pub mod pool;
pub mod ipc;
pub mod external;
pub mod texture;
pub mod logs;
pub mod interop;
pub mod symbol;

use crate::types::{cudaErrorInvalidValue, CudaResult};

/// A C out-parameter: NULL is `cudaErrorInvalidValue`.
#[inline(always)]
pub fn out<'a, T>(p: *mut T) -> CudaResult<&'a mut T> {
    // SAFETY: the caller promises (by the C API contract) that a non-NULL
    // out-pointer points to writable storage for a T.
    unsafe { p.as_mut() }.ok_or(cudaErrorInvalidValue)
}

/// A C in-parameter passed by pointer: NULL is `cudaErrorInvalidValue`.
#[inline(always)]
pub fn input<'a, T>(p: *const T) -> CudaResult<&'a T> {
    // SAFETY: as for `out`.
    unsafe { p.as_ref() }.ok_or(cudaErrorInvalidValue)
}
