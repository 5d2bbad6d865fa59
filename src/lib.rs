//! cudart-shim: a CUDA runtime (`libcudart.so.13`) in Rust.
//!
//! Data flows one way: [`api`] (the C exports) -> `runtime` (cudart
//! semantics) -> [`driver`] (the CUDA driver API, loaded at run time).
//! Everything cross-cutting (counting, timing, tracing, the panic boundary,
//! the thread's last error) happens in exactly one place, [`entry`].
//!
//! `scripts/gen-header` writes `include/cudart_shim.h` from [`types`] and
//! [`api`] (cbindgen, then the steps in tests/header.rs), and
//! `include/cudart_shim_ext.h` from `types::shim` and `api::shim`; the
//! modules marked `cbindgen:ignore` are internal.
#![allow(clippy::missing_safety_doc, non_upper_case_globals, non_camel_case_types, non_snake_case)]

pub mod types;
/// cbindgen:ignore
pub mod config;
/// cbindgen:ignore
#[macro_use]
pub mod driver;
/// cbindgen:ignore
pub mod trace;
/// cbindgen:ignore
pub mod control;
/// cbindgen:ignore
pub mod ledger;
/// cbindgen:ignore
pub mod intercept;
/// cbindgen:ignore
#[macro_use]
pub mod entry;
/// cbindgen:ignore
pub mod service;
/// cbindgen:ignore
pub mod watchdog;
/// cbindgen:ignore
/// Crate-private: safe functions over raw C pointers, sound only behind the
/// `unsafe extern "C"` exports in [`api`]. Tests reach the few items they
/// check through [`internals`].
pub(crate) mod runtime;
/// cbindgen:ignore
#[doc(hidden)]
pub mod internals;
/// cbindgen:ignore
pub mod fatbin;
pub mod api;

pub use types::*;
