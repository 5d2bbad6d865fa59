//! `cudaError_t`: a newtype over the C enum's `int`, never a Rust `enum`,
//! because any value may come back from the driver or a caller.

use std::ffi::c_int;

/// Return code of every runtime call (C: `enum cudaError`).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct cudaError_t(pub c_int);

impl cudaError_t {
    #[inline]
    pub const fn is_success(self) -> bool {
        self.0 == 0
    }

    /// Errors that corrupt the context: once seen, NVIDIA's runtime keeps
    /// returning them until the process ends (the 700 family of launch faults).
    pub const fn is_sticky(self) -> bool {
        matches!(self.0, 700 | 702 | 710 | 714..=719)
    }
}

/// Result type of the runtime layer.
pub type CudaResult<T = ()> = Result<T, cudaError_t>;
