//! CUDA 13.5 types of execution contexts (green contexts and the device's
//! own), device resources and SM splits, recapture and host-task modes.
//! Laid out like NVIDIA's 13.5 `driver_types.h` / `cuda_runtime_api.h`
//! (tests/v135.rs checks sizes and offsets against a probe built on them).
//! `cudaDevResource` and `cudaDevSmResourceGroupParams` are also laid out
//! like the driver's `CUdevResource` and `CU_DEV_SM_RESOURCE_GROUP_PARAMS`,
//! so they pass to the driver unconverted.

use std::ffi::{c_int, c_uint, c_void};

pub use super::execution_enums::*;

/// Opaque; only ever used behind a pointer. An execution context is a driver
/// context (`CUcontext`): the device's primary context, or the context of a
/// green context (`cuCtxFromGreenCtx`).
pub struct cudaExecutionContext_st {
    _private: [u8; 0],
}
pub type cudaExecutionContext_t = *mut cudaExecutionContext_st;

/// Opaque; the driver's `CUdevResourceDesc`.
pub struct CUdevResourceDesc_st {
    _private: [u8; 0],
}
pub type cudaDevResourceDesc_t = *mut CUdevResourceDesc_st;

/// Bytes of the resource union (NVIDIA's `RESOURCE_ABI_BYTES`).
const RESOURCE_ABI_BYTES: usize = 40;

/// C: `struct cudaDevSmResource`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaDevSmResource {
    pub smCount: c_uint,
    pub minSmPartitionSize: c_uint,
    pub smCoscheduledAlignment: c_uint,
    pub flags: c_uint,
    pub localityDomainId: c_uint,
}

/// C: `struct cudaDevWorkqueueConfigResource`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaDevWorkqueueConfigResource {
    pub device: c_int,
    pub wqConcurrencyLimit: c_uint,
    pub sharingScope: cudaDevWorkqueueConfigScope,
}

/// C: `struct cudaDevWorkqueueResource`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaDevWorkqueueResource {
    pub reserved: [u8; RESOURCE_ABI_BYTES],
}

/// C: `cudaDevResource` (`struct cudaDevResource_st`), 144 bytes.
///
/// NVIDIA's has an anonymous union at offset 96 (`sm`, `wqConfig`, `wq`,
/// 40 bytes). C has no anonymous members from cbindgen, so ours names the
/// member every program reads, `sm`, and keeps the union's other 20 bytes
/// as padding: `res.sm.smCount` compiles and reads the same bytes with both
/// headers. The workqueue views of those bytes are
/// [`cudaDevResource::wq_config`] and [`cudaDevResource::wq`] in Rust.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaDevResource {
    pub r#type: cudaDevResourceType,
    pub _internal_padding: [u8; 92],
    pub sm: cudaDevSmResource,
    pub _union_rest: [u8; RESOURCE_ABI_BYTES - std::mem::size_of::<cudaDevSmResource>()],
    pub nextResource: *mut cudaDevResource,
}

impl cudaDevResource {
    /// The union's bytes.
    fn union_bytes(&self) -> [u8; RESOURCE_ABI_BYTES] {
        // SAFETY: `sm` and `_union_rest` are the union's 40 contiguous bytes
        // (repr(C), no padding between a 4-aligned struct and a byte array).
        unsafe { std::ptr::read_unaligned((&raw const self.sm).cast()) }
    }

    /// The union read as `wqConfig` (`type` is `cudaDevResourceTypeWorkqueueConfig`).
    pub fn wq_config(&self) -> cudaDevWorkqueueConfigResource {
        let b = self.union_bytes();
        // SAFETY: any 12 bytes are a valid cudaDevWorkqueueConfigResource.
        unsafe { std::ptr::read_unaligned(b.as_ptr().cast()) }
    }

    /// The union read as `wq` (`type` is `cudaDevResourceTypeWorkqueue`).
    pub fn wq(&self) -> cudaDevWorkqueueResource {
        cudaDevWorkqueueResource { reserved: self.union_bytes() }
    }
}

/// `localityDomainId` of a [`cudaDevSmResourceGroupParams`]: any domain.
pub const cudaDevSmResourceGroupLocalityDomainIdAny: c_uint = 0xFFFF_FFFF;

/// C: `cudaDevSmResourceGroupParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaDevSmResourceGroupParams {
    pub smCount: c_uint,
    pub coscheduledSmCount: c_uint,
    pub preferredCoscheduledSmCount: c_uint,
    pub flags: c_uint,
    pub localityDomainId: c_uint,
    pub reserved: [c_uint; 11],
}
