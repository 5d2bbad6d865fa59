//! The thread's last error, sticky errors, and error names and strings.

use crate::types::error_codes::ERROR_TABLE;
use crate::types::{cudaError_t, cudaErrorNotReady, cudaSuccess};
use std::cell::Cell;
use std::ffi::CStr;
use std::sync::atomic::{AtomicI32, Ordering};

thread_local! {
    /// Last error recorded on this thread (NVIDIA's runtime keeps it per thread).
    static LAST: Cell<cudaError_t> = const { Cell::new(cudaSuccess) };
}

/// The first sticky error seen in the process (0: none). Once set, the
/// context is unusable and every `cudaGetLastError` reports it.
static STICKY: AtomicI32 = AtomicI32::new(0);

/// Record a failing status as the thread's last error.
#[inline]
pub fn record(e: cudaError_t) {
    if e == cudaErrorNotReady || e.is_success() {
        return;
    }
    if e.is_sticky() {
        let _ = STICKY.compare_exchange(0, e.0, Ordering::Relaxed, Ordering::Relaxed);
    }
    // try_with: during thread teardown the slot may be gone; the error is
    // still returned to the caller, only not remembered.
    let _ = LAST.try_with(|c| c.set(e));
}

/// The process's sticky error, if one was seen.
pub fn sticky() -> Option<cudaError_t> {
    match STICKY.load(Ordering::Relaxed) {
        0 => None,
        s => Some(cudaError_t(s)),
    }
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

const UNRECOGNIZED: &CStr = c"unrecognized error code";

fn lookup(e: cudaError_t) -> Option<&'static (i32, &'static CStr, &'static CStr)> {
    ERROR_TABLE.binary_search_by_key(&e.0, |t| t.0).ok().map(|i| &ERROR_TABLE[i])
}

/// `cudaGetErrorName`: the enumerator's name, as NVIDIA's runtime gives it.
pub fn name_c(e: cudaError_t) -> &'static CStr {
    lookup(e).map_or(UNRECOGNIZED, |t| t.1)
}

/// `cudaGetErrorString`: the description NVIDIA's runtime gives.
pub fn string_c(e: cudaError_t) -> &'static CStr {
    lookup(e).map_or(UNRECOGNIZED, |t| t.2)
}

/// The name as `&str`, for logs and traces.
pub fn name(e: cudaError_t) -> &'static str {
    ascii(name_c(e))
}

/// A name from the table as `&str` without UTF-8 validation (the timeline
/// writer names a result per event).
fn ascii(s: &'static CStr) -> &'static str {
    // SAFETY: the table is generated from enumerator names and messages in
    // ASCII; `table_is_ascii` below checks every entry.
    unsafe { std::str::from_utf8_unchecked(s.to_bytes()) }
}

impl crate::trace::TraceArg for cudaError_t {
    fn trace(&self, out: &mut String) {
        match lookup(*self) {
            Some(t) => out.push_str(ascii(t.1)),
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
    use super::*;

    #[test]
    fn table_is_ascii() {
        for t in ERROR_TABLE.iter() {
            assert!(t.1.to_bytes().is_ascii() && t.2.to_bytes().is_ascii(), "{:?}", t.1);
        }
    }
    use crate::types::*;

    #[test]
    fn table_is_sorted_and_unique() {
        assert!(ERROR_TABLE.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn names_and_strings() {
        assert_eq!(name_c(cudaSuccess), c"cudaSuccess");
        assert_eq!(string_c(cudaErrorInvalidValue), c"invalid argument");
        assert_eq!(name_c(cudaErrorInsufficientDriver), c"cudaErrorInsufficientDriver");
        assert_eq!(name_c(cudaError_t(10)), c"unrecognized error code");
        assert_eq!(string_c(cudaError_t(-1)), c"unrecognized error code");
    }

    #[test]
    fn sticky_family() {
        assert!(cudaErrorIllegalAddress.is_sticky());
        assert!(cudaErrorLaunchFailure.is_sticky());
        assert!(!cudaErrorLaunchOutOfResources.is_sticky());
        assert!(!cudaErrorNotReady.is_sticky());
    }
}
