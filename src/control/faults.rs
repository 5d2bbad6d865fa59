//! Faults injected without code. (Grammar and state: phase 2 of #24.)

use super::Call;

/// Whether faults are configured.
pub fn enabled() -> bool {
    false
}

/// Before the call: `Some(code)` fails it with that code.
#[inline]
pub fn before(_call: &Call) -> Option<i32> {
    None
}
