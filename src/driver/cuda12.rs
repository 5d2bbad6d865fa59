//! Driver entry points only the CUDA 12 library's forms use, each resolved
//! at the CUDA 12 version whose signature and semantics 12.9's runtime
//! gives that form (docs/CUDA12.md, "Design", point 2). Never switched on a
//! global ABI flag: a 12 form calls these by their own names.

use super::types::*;
use super::loader::DriverFn;
use crate::types::{cudaMemcpy3DBatchOp, cudaMemcpyAttributes};
use std::ffi::{c_uint, c_ulonglong, c_void};

/// C: `CUDA_LAUNCH_PARAMS` (`CUDA_LAUNCH_PARAMS_v1`, 12.9's cuda.h; 13.0's
/// cuda.h no longer declares it): one device's part of
/// `cuLaunchCooperativeKernelMultiDevice`, 56 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_LAUNCH_PARAMS {
    pub function: CUfunction,
    pub gridDimX: c_uint,
    pub gridDimY: c_uint,
    pub gridDimZ: c_uint,
    pub blockDimX: c_uint,
    pub blockDimY: c_uint,
    pub blockDimZ: c_uint,
    pub sharedMemBytes: c_uint,
    pub hStream: CUstream,
    pub kernelParams: *mut *mut c_void,
}

/// `cuLaunchCooperativeKernelMultiDevice` (`PFN_..._v9000`; deprecated in
/// 11.3, gone from 13.0's headers, still exported by driver 580). Asked
/// for at 12.9, the version NVIDIA's 12.9 runtime is.
pub static cuLaunchCooperativeKernelMultiDevice: DriverFn<unsafe extern "C" fn(*mut CUDA_LAUNCH_PARAMS, c_uint, c_uint) -> CUresult> =
    DriverFn::since("cuLaunchCooperativeKernelMultiDevice\0", 12090);

/// The plain `cuEventElapsedTime` (`PFN_cuEventElapsedTime_v2000`), which
/// a request below 12.8 gets. 12.8 added `_v2` (`_v12080`, what the plain
/// name means at 13.0 and what `cuEventElapsedTime` in this table is); its
/// documentation no longer promises to report the latest errors of pending
/// work. 12.9's plain `cudaEventElapsedTime` keeps the old entry point.
pub static cuEventElapsedTime_v1: DriverFn<unsafe extern "C" fn(*mut f32, CUevent, CUevent) -> CUresult> =
    DriverFn::since("cuEventElapsedTime\0", 12000);

/// `cuMemcpyBatchAsync` and `cuMemcpy3DBatchAsync` as CUDA 12.8 and 12.9
/// define them (`_v12080`): with `failIdx`, the index of the copy that
/// failed (`SIZE_MAX` when the failure is not one copy's). 13.0 dropped the
/// argument (`_v13000`, what the 13 library's table holds); 12.9's runtime
/// forms keep it, so they are asked for at 12.8.
pub static cuMemcpyBatchAsync_v12080: DriverFn<
    unsafe extern "C" fn(*mut CUdeviceptr, *mut CUdeviceptr, *mut usize, usize, *mut cudaMemcpyAttributes, *mut usize, usize, *mut usize, CUstream) -> CUresult,
> = DriverFn::since("cuMemcpyBatchAsync\0", 12080);

pub static cuMemcpy3DBatchAsync_v12080: DriverFn<unsafe extern "C" fn(usize, *mut cudaMemcpy3DBatchOp, *mut usize, c_ulonglong, CUstream) -> CUresult> =
    DriverFn::since("cuMemcpy3DBatchAsync\0", 12080);

/// The plain `cuMemAdvise` of CUDA 8 to 12 (`PFN_cuMemAdvise_v8000`): the
/// advice's device as a `CUdevice` (`CU_DEVICE_CPU` for the host), which a
/// request below 13.0 gets; 13.0 gave the name the location form that
/// 12.2 called `cuMemAdvise_v2`. 12.9's plain `cudaMemAdvise` takes a
/// device number and answers a bad one as this entry point does
/// (`cudaErrorInvalidDevice`, where the location form says invalid value:
/// measured on an H100, tests/gpu12/managed12.cu).
pub static cuMemAdvise_v1: DriverFn<unsafe extern "C" fn(CUdeviceptr, usize, std::ffi::c_int, CUdevice) -> CUresult> =
    DriverFn::since("cuMemAdvise\0", 12000);
