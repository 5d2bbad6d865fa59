//! C ABI types of the launch area (CUDA 13.0 layouts): launch configurations
//! and attributes, function attributes, library and JIT options, driver
//! entry point queries.

pub use super::launch_enums::*;
use super::handles::{cudaStream_t, dim3};
use std::ffi::{c_char, c_int, c_uint};

/// C: `cudaLaunchAttribute` (`struct cudaLaunchAttribute_st`), 72 bytes.
/// Same layout and attribute numbers as the driver's `CUlaunchAttribute`,
/// so an attribute array is handed to the driver as is.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaLaunchAttribute {
    pub id: cudaLaunchAttributeID,
    pub _pad: [c_char; 4],
    pub val: cudaLaunchAttributeValue,
}

/// C: `cudaLaunchConfig_t` (`struct cudaLaunchConfig_st`). Not laid out like
/// the driver's `CUlaunchConfig` (dim3 members, `size_t` shared memory):
/// converted by `runtime::launch`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaLaunchConfig_t {
    pub gridDim: dim3,
    pub blockDim: dim3,
    pub dynamicSmemBytes: usize,
    pub stream: cudaStream_t,
    pub attrs: *mut cudaLaunchAttribute,
    pub numAttrs: c_uint,
}

/// C: `struct cudaFuncAttributes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaFuncAttributes {
    pub sharedSizeBytes: usize,
    pub constSizeBytes: usize,
    pub localSizeBytes: usize,
    pub maxThreadsPerBlock: c_int,
    pub numRegs: c_int,
    pub ptxVersion: c_int,
    pub binaryVersion: c_int,
    pub cacheModeCA: c_int,
    pub maxDynamicSharedSizeBytes: c_int,
    pub preferredShmemCarveout: c_int,
    pub clusterDimMustBeSet: c_int,
    pub requiredClusterWidth: c_int,
    pub requiredClusterHeight: c_int,
    pub requiredClusterDepth: c_int,
    pub clusterSchedulingPolicyPreference: c_int,
    pub nonPortableClusterSizeAllowed: c_int,
    /// CUDA 13.5: whether the kernel supports device-side node updates (0:
    /// no, or a driver too old to say).
    pub deviceNodeUpdateStatus: c_int,
    /// CUDA 13.5: the kernel's shared memory mode (0: default).
    pub sharedMemoryMode: super::execution::cudaSharedMemoryMode,
    pub reserved: [c_int; 14],
}

/// C: `cudaOccupancyDefault`.
pub const cudaOccupancyDefault: c_uint = 0x00;
/// C: `cudaOccupancyDisableCachingOverride`.
pub const cudaOccupancyDisableCachingOverride: c_uint = 0x01;

/// C: `cudaEnableDefault` (flags of `cudaGetDriverEntryPoint*`).
pub const cudaEnableDefault: u64 = 0x0;
/// C: `cudaEnableLegacyStream`.
pub const cudaEnableLegacyStream: u64 = 0x1;
/// C: `cudaEnablePerThreadDefaultStream`.
pub const cudaEnablePerThreadDefaultStream: u64 = 0x2;

pub use super::shared::*;
