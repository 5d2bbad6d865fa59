//! INTERIM: types owned by other areas that the kernels exports need in
//! their signatures (`cudaMemcpyKind`: memory; `cudaLaunchAttributeID` and
//! `cudaLaunchAttributeValue`: streams; the trace format of `dim3`:
//! tracing). Defined here, identically, only so this branch builds alone:
//! delete this file (and its `mod` line in `types/mod.rs` and `pub use` in
//! `types/launch.rs`) when those areas merge.

use super::handles::cudaGraphDeviceNode_t;
use std::ffi::{c_char, c_int};

/// C: `cudaMemcpyKind`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct cudaMemcpyKind(pub c_int);

pub const cudaMemcpyHostToHost: cudaMemcpyKind = cudaMemcpyKind(0);
pub const cudaMemcpyHostToDevice: cudaMemcpyKind = cudaMemcpyKind(1);
pub const cudaMemcpyDeviceToHost: cudaMemcpyKind = cudaMemcpyKind(2);
pub const cudaMemcpyDeviceToDevice: cudaMemcpyKind = cudaMemcpyKind(3);
pub const cudaMemcpyDefault: cudaMemcpyKind = cudaMemcpyKind(4);

crate::trace_enum!(cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault });

/// C: `cudaLaunchAttributeID`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct cudaLaunchAttributeID(pub c_int);

pub const cudaLaunchAttributeIgnore: cudaLaunchAttributeID = cudaLaunchAttributeID(0);
pub const cudaLaunchAttributeAccessPolicyWindow: cudaLaunchAttributeID = cudaLaunchAttributeID(1);
pub const cudaLaunchAttributeCooperative: cudaLaunchAttributeID = cudaLaunchAttributeID(2);
pub const cudaLaunchAttributeSynchronizationPolicy: cudaLaunchAttributeID = cudaLaunchAttributeID(3);
pub const cudaLaunchAttributeClusterDimension: cudaLaunchAttributeID = cudaLaunchAttributeID(4);
pub const cudaLaunchAttributeClusterSchedulingPolicyPreference: cudaLaunchAttributeID = cudaLaunchAttributeID(5);
pub const cudaLaunchAttributeProgrammaticStreamSerialization: cudaLaunchAttributeID = cudaLaunchAttributeID(6);
pub const cudaLaunchAttributeProgrammaticEvent: cudaLaunchAttributeID = cudaLaunchAttributeID(7);
pub const cudaLaunchAttributePriority: cudaLaunchAttributeID = cudaLaunchAttributeID(8);
pub const cudaLaunchAttributeMemSyncDomainMap: cudaLaunchAttributeID = cudaLaunchAttributeID(9);
pub const cudaLaunchAttributeMemSyncDomain: cudaLaunchAttributeID = cudaLaunchAttributeID(10);
pub const cudaLaunchAttributePreferredClusterDimension: cudaLaunchAttributeID = cudaLaunchAttributeID(11);
pub const cudaLaunchAttributeLaunchCompletionEvent: cudaLaunchAttributeID = cudaLaunchAttributeID(12);
pub const cudaLaunchAttributeDeviceUpdatableKernelNode: cudaLaunchAttributeID = cudaLaunchAttributeID(13);
pub const cudaLaunchAttributePreferredSharedMemoryCarveout: cudaLaunchAttributeID = cudaLaunchAttributeID(14);
pub const cudaLaunchAttributeNvlinkUtilCentricScheduling: cudaLaunchAttributeID = cudaLaunchAttributeID(16);

crate::trace_enum!(cudaLaunchAttributeID { cudaLaunchAttributeIgnore, cudaLaunchAttributeAccessPolicyWindow, cudaLaunchAttributeCooperative, cudaLaunchAttributeSynchronizationPolicy, cudaLaunchAttributeClusterDimension, cudaLaunchAttributeClusterSchedulingPolicyPreference, cudaLaunchAttributeProgrammaticStreamSerialization, cudaLaunchAttributeProgrammaticEvent, cudaLaunchAttributePriority, cudaLaunchAttributeMemSyncDomainMap, cudaLaunchAttributeMemSyncDomain, cudaLaunchAttributePreferredClusterDimension, cudaLaunchAttributeLaunchCompletionEvent, cudaLaunchAttributeDeviceUpdatableKernelNode, cudaLaunchAttributePreferredSharedMemoryCarveout, cudaLaunchAttributeNvlinkUtilCentricScheduling });

/// C: `union cudaLaunchAttributeValue` (64 bytes); the members NVIDIA
/// declares with anonymous struct types are reached through `pad`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaLaunchAttributeValue {
    pub pad: [c_char; 64],
    pub cooperative: c_int,
    pub priority: c_int,
    /// Keeps the 8-byte alignment of NVIDIA's pointer members.
    pub _devNode: cudaGraphDeviceNode_t,
}

// `dim3` is passed by value by the launch exports.
crate::trace_debug!(super::handles::dim3);
