//! Fake driver: streams and events.
//!
//! Contract for every module that queues work (copies, sets, launches,
//! callbacks): call [`enqueue`] with the stream handle the shim passed. Work
//! on one stream runs in order; today it runs at enqueue time on the
//! caller's thread.

use std::ffi::c_void;

/// Queue `work` on `stream` (NULL, 0x1 legacy, 0x2 per-thread, or a handle
/// from cuStreamCreate).
pub fn enqueue(_stream: *mut c_void, work: Box<dyn FnOnce() + Send>) {
    work();
}

/// Wait for all work queued on every stream (cuCtxSynchronize).
pub fn synchronize_all() {}

/// Entry points this module provides, by the name cuGetProcAddress is asked.
pub static SYMBOLS: crate::Symbols = &[];
