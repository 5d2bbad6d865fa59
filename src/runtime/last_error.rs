//! `cudaGetLastError` / `cudaPeekAtLastError`: the thread's last error
//! (kept in [`error`](super::error)), overridden, as in NVIDIA's runtime, by
//! a failed initialization (e.g. no driver).
//!
//! A sticky error does not override it. Measured on an H100 (driver 580,
//! NVIDIA's 13.0 runtime, a real out-of-bounds kernel, gpu/checks/control/control.py):
//! the failing synchronize returns 700, `cudaGetLastError` then returns 700
//! once and 0 after that, `cudaPeekAtLastError` 0; it is each later failing
//! call (every call that needs the context returns 700 again) that sets it
//! again.

use super::{error, state};
use crate::types::cudaError_t;

/// The error that overrides the thread's own, if any. Asks for the
/// runtime, so a first call of the process initializes it.
fn overriding() -> Option<cudaError_t> {
    state::runtime().err()
}

/// `cudaGetLastError`: return and clear.
pub fn take() -> cudaError_t {
    error::take_last(overriding())
}

/// `cudaPeekAtLastError`: return, keep.
pub fn peek() -> cudaError_t {
    error::peek_last(overriding())
}
