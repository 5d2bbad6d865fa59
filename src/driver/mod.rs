//! The CUDA driver API as cudart-shim uses it.
//!
//! `libcuda.so.1` (or `$CUDART_SHIM_DRIVER`) is opened at first need with
//! libloading; every other entry point is resolved lazily, one symbol at a
//! time, through `cuGetProcAddress_v2` with CUDA version 13000, so the
//! pointer we get has the CUDA 13.0 signature of the plain name (e.g.
//! `cuMemAlloc` yields `cuMemAlloc_v2`). A symbol the installed driver lacks
//! fails only the calls that need it (see [`DriverFn`]), never the load.
//!
//! The tables are split by area (`device.rs`, `memory.rs`, ...) but form one
//! namespace, [`api`]; the [`cu!`] macro calls through it.

#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

pub mod loader;
pub mod types;
pub mod enums;
mod table;

mod device;
mod memory;
mod stream;
mod graph;
mod module;
mod misc;
mod cuda13x;
mod cuda12;

pub use loader::{driver, DriverFn, StreamMode};
pub use enums::*;
pub use types::*;

/// Every driver entry point we know, by its plain (unversioned) name.
#[allow(unused_imports)]
pub mod api {
    pub use super::device::*;
    pub use super::graph::*;
    pub use super::memory::*;
    pub use super::misc::*;
    pub use super::module::*;
    pub use super::stream::*;
    pub use super::cuda13x::*;
    pub use super::cuda12::*;
}

use crate::types::{cudaError_t, CudaResult};

/// A driver result as a runtime result. Every code both enums share has the
/// same number, so the value passes through unchanged.
#[inline(always)]
pub fn check(r: CUresult) -> CudaResult {
    if r.0 == 0 { Ok(()) } else { Err(cudaError_t(r.0)) }
}

/// Call a driver entry point by name and turn its `CUresult` into a
/// `CudaResult`: `cu!(cuCtxGetCurrent(&mut ctx))?`. A symbol the driver lacks
/// yields the error [`DriverFn::get`] documents. `cu!(ptds cuMemcpy(..))`
/// calls the per-thread-default-stream variant (for `_ptds`/`_ptsz` exports).
///
/// Crate-private on purpose: the arguments are evaluated inside the `unsafe`
/// block that calls the driver, so the macro is only sound where the caller
/// has checked every pointer it passes, which is the contract of
/// [`runtime`](crate::runtime) (also crate-private). Exported, it would let
/// safe code outside the crate hand the driver any pointer.
macro_rules! cu {
    (ptds $f:ident ( $($a:expr),* $(,)? )) => {
        $crate::driver::cu!(mode $crate::driver::StreamMode::PerThread; $f($($a),*))
    };
    (mode $m:expr; $f:ident ( $($a:expr),* $(,)? )) => {
        match $crate::driver::api::$f.get_mode($m) {
            // SAFETY: the table declares the driver's CUDA 13.0 signature;
            // pointer arguments are the caller's responsibility.
            Ok(f) => $crate::driver::check(unsafe { f($($a),*) }),
            Err(e) => Err(e),
        }
    };
    ($f:ident ( $($a:expr),* $(,)? )) => {
        $crate::driver::cu!(mode $crate::driver::StreamMode::Legacy; $f($($a),*))
    };
}
pub(crate) use cu;
