//! C ABI types of the CUDA 13 runtime (as of 13.5), one file per area.
//!
//! Every item here is laid out exactly like NVIDIA's declaration of the same
//! name (tests/abi_layout.rs checks `sizeof`/`offsetof` and enum values
//! against NVIDIA's 13.5 headers). Enumerations are `#[repr(transparent)]`
//! newtypes with constants, never Rust `enum`s: callers and the driver may
//! hand us any integer.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, unused_imports)]

pub(crate) mod error_codes;
pub mod c_enum;
pub mod error;
/// cbindgen:ignore
pub mod error_names;
pub mod handles;
pub mod device_enums;
pub mod device;
pub mod memory;
mod memory_enums;
pub mod stream;
mod stream_enums;
pub mod graph;
mod graph_enums;
pub mod launch;
mod launch_enums;
pub mod texture;
mod texture_enums;
mod texture_sampling_enums;
pub mod interop;
mod interop_enums;
pub mod pool;
mod pool_enums;
pub mod shared;
mod shared_enums;
pub mod shim;
mod header_enums;
pub mod execution;
/// CUDA 12.9 layouts for the CUDA 12 library (not re-exported: one name per ABI).
/// cbindgen:ignore
pub mod abi12;
mod execution_enums;

pub use c_enum::CEnum;
pub(crate) use c_enum::c_enum;
pub use device::*;
pub use device_enums::*;
pub use error::*;
pub use execution::*;
pub use error_codes::*;
pub use graph::*;
pub use handles::*;
pub use interop::*;
pub use launch::*;
pub use memory::*;
pub use shared::*;
pub use shim::*;
pub use header_enums::*;
pub use pool::*;
pub use stream::*;
pub use texture::*;
