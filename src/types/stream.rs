//! C ABI types of the stream, event and stream-capture area (CUDA 13.0
//! layouts).
//!
//! Also here, because stream exports need them and they had no home yet:
//! `cudaHostFn_t` (host functions, shared with graph host nodes and user
//! objects), `cudaGraphEdgeData` (capture dependencies, shared with the
//! graph API), and `cudaLaunchAttributeID`/`cudaLaunchAttributeValue`
//! (stream attributes are launch attributes; shared with
//! `cudaLaunchKernelExC`).

pub use super::stream_enums::*;
use super::error::cudaError_t;
use super::handles::{cudaStream_t, cudaGraphDeviceNode_t};
use std::ffi::{c_char, c_int, c_uint, c_void};

/// C: `cudaStreamDefault`.
pub const cudaStreamDefault: c_uint = 0x00;
/// C: `cudaStreamNonBlocking`: no implicit synchronization with stream 0.
pub const cudaStreamNonBlocking: c_uint = 0x01;

/// C: `cudaEventDefault`.
pub const cudaEventDefault: c_uint = 0x00;
/// C: `cudaEventBlockingSync`.
pub const cudaEventBlockingSync: c_uint = 0x01;
/// C: `cudaEventDisableTiming`.
pub const cudaEventDisableTiming: c_uint = 0x02;
/// C: `cudaEventInterprocess` (requires `cudaEventDisableTiming`).
pub const cudaEventInterprocess: c_uint = 0x04;
/// C: `cudaEventRecordDefault`.
pub const cudaEventRecordDefault: c_uint = 0x00;
/// C: `cudaEventRecordExternal`.
pub const cudaEventRecordExternal: c_uint = 0x01;
/// C: `cudaEventWaitDefault`.
pub const cudaEventWaitDefault: c_uint = 0x00;
/// C: `cudaEventWaitExternal`.
pub const cudaEventWaitExternal: c_uint = 0x01;

/// C: `cudaStreamCallback_t`.
pub type cudaStreamCallback_t =
    Option<unsafe extern "C" fn(stream: cudaStream_t, status: cudaError_t, user_data: *mut c_void)>;

/// C: `cudaHostFn_t`.
pub type cudaHostFn_t = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// C: `struct cudaAccessPolicyWindow`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaAccessPolicyWindow {
    pub base_ptr: *mut c_void,
    pub num_bytes: usize,
    pub hitRatio: f32,
    pub hitProp: cudaAccessProperty,
    pub missProp: cudaAccessProperty,
}

/// C: `cudaLaunchMemSyncDomainMap` (`struct cudaLaunchMemSyncDomainMap_st`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaLaunchMemSyncDomainMap {
    pub default_: u8,
    pub remote: u8,
}

/// C: `union cudaLaunchAttributeValue` (64 bytes). The members NVIDIA
/// declares with anonymous struct types (clusterDim, programmaticEvent, ...)
/// are reached through `pad`; every member starts at offset 0.
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaLaunchAttributeValue {
    pub pad: [c_char; 64],
    pub accessPolicyWindow: cudaAccessPolicyWindow,
    pub cooperative: c_int,
    pub syncPolicy: cudaSynchronizationPolicy,
    pub clusterSchedulingPolicyPreference: c_int,
    pub programmaticStreamSerializationAllowed: c_int,
    pub priority: c_int,
    pub memSyncDomainMap: cudaLaunchMemSyncDomainMap,
    pub memSyncDomain: c_int,
    /// Keeps the 8-byte alignment of NVIDIA's pointer members.
    pub _devNode: cudaGraphDeviceNode_t,
}

/// C: `cudaStreamAttrID` (a macro for `cudaLaunchAttributeID`).
pub type cudaStreamAttrID = cudaLaunchAttributeID;
/// C: `cudaStreamAttrValue` (a macro for `cudaLaunchAttributeValue`).
pub type cudaStreamAttrValue = cudaLaunchAttributeValue;
pub const cudaStreamAttributeAccessPolicyWindow: cudaLaunchAttributeID = cudaLaunchAttributeAccessPolicyWindow;
pub const cudaStreamAttributeSynchronizationPolicy: cudaLaunchAttributeID = cudaLaunchAttributeSynchronizationPolicy;
pub const cudaStreamAttributeMemSyncDomainMap: cudaLaunchAttributeID = cudaLaunchAttributeMemSyncDomainMap;
pub const cudaStreamAttributeMemSyncDomain: cudaLaunchAttributeID = cudaLaunchAttributeMemSyncDomain;
pub const cudaStreamAttributePriority: cudaLaunchAttributeID = cudaLaunchAttributePriority;

/// C: `cudaGraphEdgeData` (`struct cudaGraphEdgeData_st`). All-zero is a
/// plain full dependency.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaGraphEdgeData {
    pub from_port: u8,
    pub to_port: u8,
    pub r#type: u8,
    pub reserved: [u8; 5],
}
