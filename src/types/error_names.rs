//! The name and the description of every `cudaError_t`, from the generated
//! table beside it ([`ERROR_TABLE`](super::error_codes::ERROR_TABLE)), in
//! the lowest layer so that every layer (the driver loader's logs included)
//! can name a code without reaching up into the runtime.

use super::error::cudaError_t;
use std::ffi::CStr;

const UNRECOGNIZED: &CStr = c"unrecognized error code";

fn lookup(e: cudaError_t) -> Option<&'static (i32, &'static CStr, &'static CStr)> {
    let t = super::error_codes::ERROR_TABLE;
    t.binary_search_by_key(&e.0, |r| r.0).ok().map(|i| &t[i])
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

/// The name of a code the table knows, else `None` (the trace layer prints
/// the number then).
pub fn known_name(e: cudaError_t) -> Option<&'static str> {
    lookup(e).map(|t| ascii(t.1))
}

/// A name from the table as `&str` without UTF-8 validation (the timeline
/// writer names a result per event).
fn ascii(s: &'static CStr) -> &'static str {
    // SAFETY: the table is generated from enumerator names and messages in
    // ASCII; `table_is_ascii` below checks every entry.
    unsafe { std::str::from_utf8_unchecked(s.to_bytes()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::*;

    #[test]
    fn table_is_ascii() {
        for t in super::super::error_codes::ERROR_TABLE.iter() {
            assert!(t.1.to_bytes().is_ascii() && t.2.to_bytes().is_ascii(), "{:?}", t.1);
        }
    }

    #[test]
    fn table_is_sorted_and_unique() {
        assert!(super::super::error_codes::ERROR_TABLE.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn names_and_strings() {
        assert_eq!(name_c(cudaSuccess), c"cudaSuccess");
        assert_eq!(string_c(cudaErrorInvalidValue), c"invalid argument");
        assert_eq!(name_c(cudaErrorInsufficientDriver), c"cudaErrorInsufficientDriver");
        // Codes CUDA 13.5 added (13.0 called them unrecognized).
        assert_eq!(name_c(cudaError_t(10)), c"cudaErrorVersionTranslation");
        assert_eq!(name_c(cudaError_t(227)), c"cudaErrorInsufficientLoaderVersion");
        assert_eq!(name_c(cudaError_t(919)), c"cudaErrorFabricNotReady");
        assert_eq!(name_c(cudaError_t(916)), c"unrecognized error code");
        assert_eq!(name_c(cudaError_t(920)), c"unrecognized error code");
        assert_eq!(string_c(cudaError_t(-1)), c"unrecognized error code");
        assert_eq!(name(cudaErrorStreamDetached), "cudaErrorStreamDetached");
    }
}
