//! The watchdog (`--watchdog SECONDS`, `CUDART_SHIM_WATCHDOG`): a task on
//! the service thread (`crate::service`) that reads the progress state
//! (`crate::trace::progress`) at each tick and writes a hang report when
//! nothing has progressed for SECONDS.
//!
//! [`keep_progress`] is the one way to switch progress state on (the
//! watchdog and the metrics call it): it gives the progress state the
//! means to name kernels and to read a thread's context, which live in
//! the layers above it.

pub mod probe;

/// Keep progress state from now on (idempotent): launches are counted,
/// calls published, kernels named at their first launch.
pub fn keep_progress() {
    probe::install();
    crate::trace::progress::enable();
}
