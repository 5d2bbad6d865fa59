//! Occupancy calculators.

use crate::control::params;
use crate::runtime::{self, occupancy};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks: *mut c_int, func: *const c_void, blockSize: c_int, dynamicSMemSize: usize) -> cudaError_t {
    entry!(cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize, dynamicSMemSize) =>
        occupancy::max_active_blocks(unsafe { runtime::as_out(numBlocks) }, func, blockSize, dynamicSMemSize, cudaOccupancyDefault))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    numBlocks: *mut c_int,
    func: *const c_void,
    blockSize: c_int,
    dynamicSMemSize: usize,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, flags) =>
        occupancy::max_active_blocks(unsafe { runtime::as_out(numBlocks) }, func, blockSize, dynamicSMemSize, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize: *mut usize, func: *const c_void, numBlocks: c_int, blockSize: c_int) -> cudaError_t {
    entry!(cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, func, numBlocks, blockSize) =>
        occupancy::available_dynamic_smem(unsafe { runtime::as_out(dynamicSmemSize) }, func, numBlocks, blockSize))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxPotentialClusterSize(clusterSize: *mut c_int, func: *const c_void, launchConfig: *const cudaLaunchConfig_t) -> cudaError_t {
    entry!(cudaOccupancyMaxPotentialClusterSize(clusterSize, func, launchConfig) => occupancy::clusters(unsafe { runtime::as_out(clusterSize) }, func, unsafe { runtime::as_in(launchConfig) }, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxActiveClusters(numClusters: *mut c_int, func: *const c_void, launchConfig: *const cudaLaunchConfig_t) -> cudaError_t {
    entry!(cudaOccupancyMaxActiveClusters(numClusters, func, launchConfig) => occupancy::clusters(unsafe { runtime::as_out(numClusters) }, func, unsafe { runtime::as_in(launchConfig) }, false))
}
