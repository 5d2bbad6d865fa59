//! Memory management, unified addressing and managed memory (the runtime
//! API's "Memory Management" and "Unified Addressing" sections).
//!
//! - `alloc`: device, pitched, host (pinned), registered and managed
//!   allocations. `cudaMalloc`/`cudaFree`/`cudaMallocHost`/`cudaFreeHost`
//!   each go through one small function ([`alloc::malloc`], [`alloc::free`],
//!   [`alloc::malloc_host`], [`alloc::free_host`]) so an opt-in caching
//!   allocator can wrap exactly those four.
//! - `cache`: that caching allocator, opt-in with `CUDART_SHIM_POOL=1`.
//! - `array`: CUDA arrays and mipmapped arrays.
//! - `copy`: every `cudaMemcpy*` form, with the conversions of runtime
//!   copy descriptions to the driver's `CUDA_MEMCPY2D`/`CUDA_MEMCPY3D`.
//! - `set`: `cudaMemset*`.
//! - `unified`: pointer attributes, prefetch, advice, range attributes.
//!
//! No lock is taken anywhere here (except the opt-in cache's short,
//! sharded ones): every call is a context lookup
//! ([`enter`](super::context::enter)) and driver calls.

pub mod alloc;
pub mod array;
pub mod cache;
pub mod copy;
pub mod set;
pub mod unified;

pub use alloc::*;
pub use array::*;
pub use copy::*;
pub use set::*;
pub use unified::*;

use crate::driver::CUdeviceptr;
use std::ffi::c_void;

/// A runtime pointer as a driver device pointer (same 64-bit address).
#[inline(always)]
pub(crate) fn dptr(p: *const c_void) -> CUdeviceptr {
    p as usize as CUdeviceptr
}
