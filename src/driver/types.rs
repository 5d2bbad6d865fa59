//! Driver ABI types shared by every area. Handles are the same opaque types
//! as the runtime's (`CUstream` == `cudaStream_t`, ...): we hand the driver's
//! handles to the program unchanged.

use std::ffi::c_int;

pub use crate::types::handles::{
    CUevent_st, CUfunc_st, CUgraphExec_st, CUgraphNode_st, CUgraph_st, CUkern_st, CUlib_st,
    CUmemPoolHandle_st, CUstream_st, CUuserObject_st,
};

/// C: `CUresult`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CUresult(pub c_int);

pub const CUDA_SUCCESS: CUresult = CUresult(0);
pub const CUDA_ERROR_INVALID_VALUE: CUresult = CUresult(1);
pub const CUDA_ERROR_NOT_INITIALIZED: CUresult = CUresult(3);
pub const CUDA_ERROR_INVALID_CONTEXT: CUresult = CUresult(201);
pub const CUDA_ERROR_NOT_FOUND: CUresult = CUresult(500);

pub type CUdevice = c_int;
pub type CUdeviceptr = u64;

/// Opaque driver context.
pub struct CUctx_st {
    _private: [u8; 0],
}
pub type CUcontext = *mut CUctx_st;
pub type CUstream = *mut CUstream_st;
pub type CUevent = *mut CUevent_st;
pub type CUfunction = *mut CUfunc_st;
pub type CUkernel = *mut CUkern_st;
pub type CUlibrary = *mut CUlib_st;
pub type CUgraph = *mut CUgraph_st;
pub type CUgraphNode = *mut CUgraphNode_st;
pub type CUgraphExec = *mut CUgraphExec_st;
pub type CUmemoryPool = *mut CUmemPoolHandle_st;
pub type CUuserObject = *mut CUuserObject_st;

/// Opaque driver module.
pub struct CUmod_st {
    _private: [u8; 0],
}
pub type CUmodule = *mut CUmod_st;

/// C: `CUdriverProcAddressQueryResult`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CUdriverProcAddressQueryResult(pub c_int);
pub const CU_GET_PROC_ADDRESS_SUCCESS: CUdriverProcAddressQueryResult = CUdriverProcAddressQueryResult(0);
pub const CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: CUdriverProcAddressQueryResult = CUdriverProcAddressQueryResult(1);
pub const CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: CUdriverProcAddressQueryResult = CUdriverProcAddressQueryResult(2);

/// `cuGetProcAddress` flags.
pub const CU_GET_PROC_ADDRESS_DEFAULT: u64 = 0;
pub const CU_GET_PROC_ADDRESS_LEGACY_STREAM: u64 = 1;
pub const CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: u64 = 2;

/// C: `CUuuid`.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct CUuuid {
    pub bytes: [std::ffi::c_char; 16],
}
