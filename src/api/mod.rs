//! The C surface: one file per area of NVIDIA's runtime documentation.
//!
//! Every export is written once, with its literal C signature (cbindgen
//! reads these files to write `include/cudart_shim.h`), and its body is one
//! [`entry!`](crate::entry!) around either
//!
//! - a runtime function, given the C arguments converted: a pointer the
//!   runtime reads or writes becomes `Option<&T>` / `Option<&mut T>`
//!   through the `unsafe` `runtime::as_in` / `runtime::as_out` (NULL is
//!   `None`; the runtime decides, in NVIDIA's check order, when that is
//!   `cudaErrorInvalidValue`); addresses handed on to the driver stay raw;
//! - or `runtime::pass!(cuName(args))`, for a call that is the driver's own.
//!
//! No logic lives here: no initialization check (`entry!` does it), no
//! argument check, no check order.
#![allow(non_snake_case, clippy::missing_safety_doc)]

pub mod device;
pub mod error;
pub mod version;
pub mod profiler;

pub mod memory;
pub mod peer;
pub mod stream;
pub mod capture;
pub mod event;
pub mod graph;
pub mod launch;
pub mod hidden;
pub mod library;
pub mod occupancy;
pub mod entry_point;
pub mod pool;
pub mod ipc;
pub mod external;
pub mod texture;
pub mod logs;
pub mod interop;
pub mod symbol;
pub mod shim;
pub mod green_context;
/// The CUDA 12.9 forms, exported by the 12 library only.
/// cbindgen:ignore
pub mod abi12;
