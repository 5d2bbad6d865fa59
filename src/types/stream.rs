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
use super::handles::cudaStream_t;
use super::shared::*;
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

/// C: `cudaStreamAttrID` (a macro for `cudaLaunchAttributeID`).
pub type cudaStreamAttrID = cudaLaunchAttributeID;
/// C: `cudaStreamAttrValue` (a macro for `cudaLaunchAttributeValue`).
pub type cudaStreamAttrValue = cudaLaunchAttributeValue;
pub const cudaStreamAttributeAccessPolicyWindow: cudaLaunchAttributeID = cudaLaunchAttributeAccessPolicyWindow;
pub const cudaStreamAttributeSynchronizationPolicy: cudaLaunchAttributeID = cudaLaunchAttributeSynchronizationPolicy;
pub const cudaStreamAttributeMemSyncDomainMap: cudaLaunchAttributeID = cudaLaunchAttributeMemSyncDomainMap;
pub const cudaStreamAttributeMemSyncDomain: cudaLaunchAttributeID = cudaLaunchAttributeMemSyncDomain;
pub const cudaStreamAttributePriority: cudaLaunchAttributeID = cudaLaunchAttributePriority;

