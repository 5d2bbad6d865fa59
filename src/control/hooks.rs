//! Hooks: handlers on glob lists over function names, phases `before`,
//! `instead` and `after`. (Registration API: phase 2 of #24.)

use super::Call;

/// The `before` phase.
#[inline]
pub fn before(_call: &mut Call) {}

/// The `instead` phase: `Some(result)` when a handler replaced the call.
#[inline]
pub fn instead(_call: &mut Call) -> Option<i32> {
    None
}

/// The `after` phase: the result the caller sees.
#[inline]
pub fn after(_call: &mut Call, result: i32) -> i32 {
    result
}
