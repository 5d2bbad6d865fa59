//! The thread's last error, sticky errors, and error names and strings.

use crate::types::{cudaError_t, cudaErrorNotReady, cudaSuccess};
use std::cell::Cell;

thread_local! {
    /// Last error recorded on this thread (NVIDIA's runtime keeps it per thread).
    static LAST: Cell<cudaError_t> = const { Cell::new(cudaSuccess) };
}


/// Record a failing status as the thread's last error.
#[inline]
pub fn record(e: cudaError_t) {
    if e == cudaErrorNotReady || e.is_success() {
        return;
    }
    // try_with: during thread teardown the slot may be gone; the error is
    // still returned to the caller, only not remembered.
    let _ = LAST.try_with(|c| c.set(e));
}

/// `cudaGetLastError`: return and clear the thread's last error, or
/// `overriding` (clearing the thread's own).
pub fn take_last(overriding: Option<cudaError_t>) -> cudaError_t {
    if let Some(e) = overriding {
        let _ = LAST.try_with(|c| c.set(cudaSuccess));
        return e;
    }
    LAST.try_with(|c| c.replace(cudaSuccess)).unwrap_or(cudaSuccess)
}

/// `cudaPeekAtLastError`: return and keep the thread's last error, or
/// `overriding`.
pub fn peek_last(overriding: Option<cudaError_t>) -> cudaError_t {
    overriding.unwrap_or_else(|| LAST.try_with(Cell::get).unwrap_or(cudaSuccess))
}

pub use crate::types::error_names::{name, name_c, string_c};

impl crate::trace::TraceArg for cudaError_t {
    fn trace(&self, out: &mut String) {
        match crate::types::error_names::known_name(*self) {
            Some(n) => out.push_str(n),
            None => crate::trace::args::push_int(out, self.0),
        }
    }
    #[inline]
    fn raw(&self, _: bool) -> Option<crate::trace::args::Raw> {
        Some(crate::trace::args::Raw { a: self.0 as u32 as u64, b: 0, fmt: |a, _, out| crate::trace::args::result_name(a as u32 as i32, out) })
    }
}

#[cfg(test)]
mod tests {
    use crate::types::*;

    #[test]
    fn sticky_family() {
        assert!(cudaErrorIllegalAddress.is_sticky());
        assert!(cudaErrorLaunchFailure.is_sticky());
        assert!(!cudaErrorLaunchOutOfResources.is_sticky());
        assert!(!cudaErrorNotReady.is_sticky());
    }
}
