//! cudart semantics on top of the driver: lazy initialization, devices and
//! primary contexts, the per-thread last error, and (in the area modules)
//! the conversions of runtime structs to driver structs.
//!
//! Functions here take references, `Option`s (NULL is `None`) and plain
//! values and return [`CudaResult`](crate::types::CudaResult); raw C
//! pointers become references only in the `unsafe` [`as_out`] / [`as_in`]
//! (and [`out`]), which the exports call on their arguments.
//! Raw pointers left in signatures are mostly addresses handed on to the
//! driver (device pointers, arrays of handles, user data) or checked for
//! NULL with [`non_null`]; no runtime function calls the conversions
//! (tests/raw_pointers.rs). A few still read C arrays or optional
//! out-pointers through the raw pointer in an `unsafe` block (counted by
//! the same test).

pub mod error;
pub mod last_error;
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
pub mod channel_format;
pub mod texture;
pub mod logs;
pub mod interop;
pub mod symbol;
pub mod green_context;
pub mod graph_ids;
pub mod copy_attributes;
pub mod stream_v2;
/// What only the CUDA 12 library answers (see src/api/abi12.rs).
pub mod abi12;

use crate::types::{cudaErrorInvalidValue, CudaResult};

/// An export whose semantics are exactly the driver's call says so in its
/// body, the one place the pass-through is stated:
/// `entry!(cudaGraphDestroy(graph) => runtime::pass!(cuGraphDestroy(graph)))`.
/// It makes the thread's context current ([`context::enter`]), calls the
/// driver function (its signature is declared once, in the driver table)
/// with the export's C arguments, and returns the `CUresult` as the
/// `cudaError_t` of the same number. The driver checks the arguments and
/// answers as NVIDIA's runtime does for these calls; anything the runtime
/// must check or convert first is a runtime function instead.
macro_rules! pass {
    ($f:ident ( $($a:expr),* $(,)? )) => {{
        $crate::runtime::context::enter()?;
        $crate::driver::cu!($f($($a),*))
    }};
}
pub(crate) use pass;

// C pointers become references in exactly two functions, both `unsafe`:
// `as_out` and `as_in` (and `out`, built on `as_out`). Exports call them
// on their arguments; runtime functions take the `Option`s (NULL is `None`)
// and decide, at the point of NVIDIA's check order, when `None` is
// `cudaErrorInvalidValue` (`required`).

/// A C out-parameter as a reference; NULL is `None`.
///
/// # Safety
/// `p` is NULL or points to storage for a `T`, writable and not otherwise
/// referenced for `'a` (the C API's contract for out-parameters: `'a` is
/// the call).
#[inline(always)]
pub unsafe fn as_out<'a, T>(p: *mut T) -> Option<&'a mut T> {
    // SAFETY: the caller's contract.
    unsafe { p.as_mut() }
}

/// A C in-parameter passed by pointer, as a reference; NULL is `None`.
///
/// # Safety
/// `p` is NULL or points to a valid `T`, not written for `'a` (the call).
#[inline(always)]
pub unsafe fn as_in<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: the caller's contract.
    unsafe { p.as_ref() }
}

/// A pointer argument the call cannot do without: NULL (`None`) is
/// `cudaErrorInvalidValue`.
#[inline(always)]
pub fn required<T>(p: Option<T>) -> CudaResult<T> {
    p.ok_or(cudaErrorInvalidValue)
}

/// The check order of most getters in NVIDIA's runtime: the out-parameter
/// first (NULL is `cudaErrorInvalidValue` before any other check), then the
/// work, whose value is written only when it succeeds. Getters that check
/// their handles before the out-parameter call [`required`] where they do.
#[inline(always)]
pub fn out_first<T>(out: Option<&mut T>, work: impl FnOnce() -> CudaResult<T>) -> CudaResult {
    let out = required(out)?;
    *out = work()?;
    Ok(())
}

/// The other order: the value first (its error wins), then the
/// out-parameter.
#[inline(always)]
pub fn value_first<T>(out: Option<&mut T>, value: CudaResult<T>) -> CudaResult {
    let value = value?;
    *required(out)? = value;
    Ok(())
}

/// A pointer handed on to the driver without being read here, which must
/// not be NULL (`cudaErrorInvalidValue`).
#[inline(always)]
pub fn non_null<T>(p: *const T) -> CudaResult<*const T> {
    if p.is_null() { Err(cudaErrorInvalidValue) } else { Ok(p) }
}

/// [`as_out`], NULL being `cudaErrorInvalidValue` at once.
///
/// # Safety
/// As for [`as_out`].
#[inline(always)]
pub unsafe fn out<'a, T>(p: *mut T) -> CudaResult<&'a mut T> {
    // SAFETY: the caller's contract.
    required(unsafe { as_out(p) })
}
