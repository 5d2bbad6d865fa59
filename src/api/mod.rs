//! The C surface: one file per area of NVIDIA's runtime documentation.
//!
//! Every export is written once, with its literal C signature (cbindgen
//! reads these files to write `include/cudart_shim.h`), and its body is one
//! [`entry!`](crate::entry!) around a runtime function. No logic lives here.
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
