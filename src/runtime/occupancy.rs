//! Occupancy calculators: the driver's, on the kernel's function in the
//! current context.

use crate::runtime::required;
use super::launch::{driver_config, function_in_context};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor[WithFlags]`.
pub fn max_active_blocks(blocks: Option<&mut c_int>, func: *const c_void, block_size: c_int, smem: usize, flags: c_uint) -> CudaResult {
    let out = required(blocks)?;
    if flags & !(cudaOccupancyDisableCachingOverride) != 0 {
        return Err(cudaErrorInvalidValue);
    }
    let f = function_in_context(func)?;
    cu!(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(out, f, block_size, smem, flags))
}

/// `cudaOccupancyAvailableDynamicSMemPerBlock`.
pub fn available_dynamic_smem(smem: Option<&mut usize>, func: *const c_void, blocks: c_int, block_size: c_int) -> CudaResult {
    let out = required(smem)?;
    let f = function_in_context(func)?;
    cu!(cuOccupancyAvailableDynamicSMemPerBlock(out, f, blocks, block_size))
}

/// `cudaOccupancyMaxPotentialClusterSize` / `cudaOccupancyMaxActiveClusters`.
pub fn clusters(out: Option<&mut c_int>, func: *const c_void, config: Option<&cudaLaunchConfig_t>, potential_size: bool) -> CudaResult {
    let out = required(out)?;
    let c = driver_config(required(config)?)?;
    let f = function_in_context(func)?;
    if potential_size {
        cu!(cuOccupancyMaxPotentialClusterSize(out, f, &c))
    } else {
        cu!(cuOccupancyMaxActiveClusters(out, f, &c))
    }
}
