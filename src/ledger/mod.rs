//! The ledger stage of the interception pipeline (owner: the ledger work,
//! issue #25). This file is the placeholder the pipeline compiles against:
//! the two stage functions with their final signatures, doing nothing.
//!
//! Contract (see `crate::intercept`): [`before`] runs after the hooks'
//! `before` phase and the faults, once per call; `Some(code)` refuses the
//! call with that status of the call's layer (the call does not run).
//! [`after`] runs after the call (not after a refused one) and returns the
//! result the caller sees; it may rewrite out-parameters through the call's
//! typed parameter block. Both run only while the ledger's bit
//! (`intercept::LEDGER`) is set in the pipeline's switch word; the ledger
//! sets it with `crate::intercept::set(crate::intercept::LEDGER, true)`.

use crate::control::Call;

/// Whether the ledger wants to see calls (read once, at the pipeline's
/// one-time setup).
pub fn enabled() -> bool {
    false
}

/// Before the call: `Some(code)` refuses it.
#[inline]
pub fn before(_call: &Call) -> Option<i32> {
    None
}

/// After the call: the result the caller sees.
#[inline]
pub fn after(_call: &Call, result: i32) -> i32 {
    result
}
