//! Driver entry points of the kernels area: libraries, kernels, functions,
//! launches, occupancy, export tables. CUDA 13.0 signatures of the plain
//! names (`cudaTypedefs.h`).

use super::table::driver_table;
use super::types::*;
use std::ffi::{c_char, c_int, c_uint, c_void};

/// C: `CUlaunchAttribute`: the same 72 bytes as `cudaLaunchAttribute`.
pub type CUlaunchAttribute = crate::types::cudaLaunchAttribute;

/// C: `CUlaunchConfig`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUlaunchConfig {
    pub gridDimX: c_uint,
    pub gridDimY: c_uint,
    pub gridDimZ: c_uint,
    pub blockDimX: c_uint,
    pub blockDimY: c_uint,
    pub blockDimZ: c_uint,
    pub sharedMemBytes: c_uint,
    pub hStream: CUstream,
    pub attrs: *mut CUlaunchAttribute,
    pub numAttrs: c_uint,
}

/// `CU_LIBRARY_BINARY_IS_PRESERVED`: the image outlives the library, so the
/// driver need not copy it (true of an nvcc fatbin in `.nv_fatbin`).
pub const CU_LIBRARY_BINARY_IS_PRESERVED: c_int = 1;

driver_table! {
    fn cuLibraryLoadData(library: *mut CUlibrary, code: *const c_void, jit_options: *mut c_int, jit_values: *mut *mut c_void, num_jit: c_uint, lib_options: *mut c_int, lib_values: *mut *mut c_void, num_lib: c_uint);
    fn cuLibraryLoadFromFile(library: *mut CUlibrary, file: *const c_char, jit_options: *mut c_int, jit_values: *mut *mut c_void, num_jit: c_uint, lib_options: *mut c_int, lib_values: *mut *mut c_void, num_lib: c_uint);
    fn cuLibraryUnload(library: CUlibrary);
    fn cuLibraryGetKernel(kernel: *mut CUkernel, library: CUlibrary, name: *const c_char);
    fn cuLibraryGetKernelCount(count: *mut c_uint, library: CUlibrary);
    fn cuLibraryEnumerateKernels(kernels: *mut CUkernel, num: c_uint, library: CUlibrary);
    fn cuLibraryGetGlobal(dptr: *mut CUdeviceptr, bytes: *mut usize, library: CUlibrary, name: *const c_char);
    fn cuLibraryGetManaged(dptr: *mut CUdeviceptr, bytes: *mut usize, library: CUlibrary, name: *const c_char);
    fn cuLibraryGetUnifiedFunction(fptr: *mut *mut c_void, library: CUlibrary, symbol: *const c_char);
    fn cuKernelGetFunction(func: *mut CUfunction, kernel: CUkernel);
    fn cuKernelGetAttribute(value: *mut c_int, attrib: c_int, kernel: CUkernel, dev: CUdevice);
    fn cuKernelSetAttribute(attrib: c_int, value: c_int, kernel: CUkernel, dev: CUdevice);
    fn cuKernelSetCacheConfig(kernel: CUkernel, config: c_int, dev: CUdevice);
    fn cuKernelGetName(name: *mut *const c_char, kernel: CUkernel);
    fn cuFuncGetName(name: *mut *const c_char, func: CUfunction);
    fn cuKernelGetParamInfo(kernel: CUkernel, index: usize, offset: *mut usize, size: *mut usize);
    fn cuFuncSetSharedMemConfig(func: CUfunction, config: c_int);
    fn cuLaunchKernel(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void);
    fn cuLaunchKernelEx(config: *const CUlaunchConfig, f: CUfunction, params: *mut *mut c_void, extra: *mut *mut c_void);
    fn cuLaunchCooperativeKernel(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void);
    fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks: *mut c_int, f: CUfunction, block_size: c_int, dynamic_smem: usize, flags: c_uint);
    fn cuOccupancyAvailableDynamicSMemPerBlock(smem: *mut usize, f: CUfunction, blocks: c_int, block_size: c_int);
    fn cuOccupancyMaxPotentialClusterSize(size: *mut c_int, f: CUfunction, config: *const CUlaunchConfig);
    fn cuOccupancyMaxActiveClusters(clusters: *mut c_int, f: CUfunction, config: *const CUlaunchConfig);
    fn cuGetExportTable(table: *mut *const c_void, id: *const CUuuid);
}

