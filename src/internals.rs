//! Not part of the API: the few runtime internals the integration tests
//! check directly (conversion tables, registry lookups, cache statistics,
//! the thread's last error), re-exported here because `runtime` is
//! crate-private.
//!
//! `runtime` is private because its functions take raw C pointers in safe
//! signatures: they are sound only behind the `unsafe extern "C"` exports
//! of [`api`](crate::api), which carry the C contract. Everything re-exported
//! here is sound to call from safe Rust: no item dereferences a pointer it
//! is given (`registry` uses pointers as lookup keys only).

pub mod texture {
    pub use crate::runtime::channel_format::{array_format, channel_desc};
}

pub mod registry {
    pub use crate::runtime::registry::{function_of_kernel, resolve, stub_for_kernel, Function};
}

pub mod cache {
    pub use crate::runtime::memory::cache::{host_stats, stats, CacheStats};
}

pub mod interop {
    pub use crate::runtime::interop::{driver_egl_frame, runtime_egl_frame};
}

pub mod error {
    pub use crate::runtime::error::record;
}
