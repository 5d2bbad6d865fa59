//! `cudaGetLastError` / `cudaPeekAtLastError`: the thread's last error
//! (kept in [`error`](super::error)), overridden, as in NVIDIA's runtime, by
//! a failed initialization (e.g. no driver) or a sticky error.

use super::{error, state};
use crate::types::cudaError_t;

/// The error that overrides the thread's own, if any. Asks for the
/// runtime, so a first call of the process initializes it.
fn overriding() -> Option<cudaError_t> {
    state::runtime().err().or_else(error::sticky)
}

/// `cudaGetLastError`: return and clear.
pub fn take() -> cudaError_t {
    error::take_last(overriding())
}

/// `cudaPeekAtLastError`: return, keep.
pub fn peek() -> cudaError_t {
    error::peek_last(overriding())
}
