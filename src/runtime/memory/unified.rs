//! Unified addressing and managed memory: pointer attributes, prefetch,
//! advice and range attributes. `cudaMemLocation` and the advice and
//! range-attribute values equal the driver's and pass through.

use crate::runtime::required;
use super::dptr;
use crate::driver::api::*;
use crate::driver::{CUstream, StreamMode};
use crate::runtime::context::enter;
use crate::runtime::state::runtime;
use crate::types::*;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::ptr::null_mut;

/// `cudaPointerGetAttributes` (CUDA 11+ rules): memory the driver does not
/// know (plain host memory, NULL) is `cudaMemoryTypeUnregistered` with
/// device `cudaInvalidDeviceId` and NULL pointers, and succeeds.
pub fn pointer_attributes(out: Option<&mut cudaPointerAttributes>, p: *const c_void) -> CudaResult {
    let out = required(out)?;
    let rt = runtime()?;
    enter()?;
    let mut ty: c_uint = 0;
    let mut ordinal: c_int = -2;
    let mut dev_ptr: u64 = 0;
    let mut host_ptr: *mut c_void = null_mut();
    let mut managed: c_uint = 0;
    let mut attrs = [
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
        CU_POINTER_ATTRIBUTE_HOST_POINTER,
        CU_POINTER_ATTRIBUTE_IS_MANAGED,
    ];
    let mut data: [*mut c_void; 5] = [
        (&raw mut ty).cast(),
        (&raw mut ordinal).cast(),
        (&raw mut dev_ptr).cast(),
        (&raw mut host_ptr).cast(),
        (&raw mut managed).cast(),
    ];
    cu!(cuPointerGetAttributes(attrs.len() as c_uint, attrs.as_mut_ptr(), data.as_mut_ptr(), dptr(p)))?;
    let kind = match CUmemorytype(ty) {
        _ if managed != 0 => cudaMemoryTypeManaged,
        CU_MEMORYTYPE_DEVICE => cudaMemoryTypeDevice,
        CU_MEMORYTYPE_HOST => cudaMemoryTypeHost,
        _ => cudaMemoryTypeUnregistered,
    };
    let mut a = cudaPointerAttributes {
        r#type: kind,
        device: cudaInvalidDeviceId,
        devicePointer: null_mut(),
        // Unregistered host memory: NVIDIA's runtime reports the pointer
        // itself as the host pointer (H100, CUDA 13.0).
        hostPointer: p.cast_mut(),
        // CUDA 13.5: no allocation of ours is localized to a domain.
        localityDomainOrdinal: -1,
        _localityDomainOrdinalPad: 0,
        reserved: [0; 7],
    };
    if kind != cudaMemoryTypeUnregistered {
        a.device = rt.ordinal_of(ordinal).unwrap_or(ordinal);
        a.devicePointer = dev_ptr as usize as *mut c_void;
        a.hostPointer = host_ptr;
    }
    *out = a;
    Ok(())
}

/// `cudaMemPrefetchAsync` (CUDA 13: a location and flags).
pub fn prefetch(p: *const c_void, count: usize, loc: cudaMemLocation, flags: c_uint, stream: CUstream, m: StreamMode) -> CudaResult {
    enter()?;
    cu!(mode m; cuMemPrefetchAsync(dptr(p), count, loc, flags, stream))
}

/// `cudaMemAdvise` (CUDA 13: a location).
pub fn advise(p: *const c_void, count: usize, advice: cudaMemoryAdvise, loc: cudaMemLocation) -> CudaResult {
    enter()?;
    cu!(cuMemAdvise(dptr(p), count, advice.0, loc))
}

/// `cudaMemPrefetchBatchAsync`.
#[allow(clippy::too_many_arguments)]
pub fn prefetch_batch(
    ptrs: *mut *mut c_void,
    sizes: *mut usize,
    count: usize,
    locs: *mut cudaMemLocation,
    loc_idxs: *mut usize,
    num_locs: usize,
    flags: c_ulonglong,
    stream: CUstream,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    cu!(mode m; cuMemPrefetchBatchAsync(ptrs.cast(), sizes, count, locs, loc_idxs, num_locs, flags, stream))
}

/// `cudaMemDiscardBatchAsync`.
pub fn discard_batch(
    ptrs: *mut *mut c_void,
    sizes: *mut usize,
    count: usize,
    flags: c_ulonglong,
    stream: CUstream,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    cu!(mode m; cuMemDiscardBatchAsync(ptrs.cast(), sizes, count, flags, stream))
}

/// `cudaMemDiscardAndPrefetchBatchAsync`.
#[allow(clippy::too_many_arguments)]
pub fn discard_and_prefetch_batch(
    ptrs: *mut *mut c_void,
    sizes: *mut usize,
    count: usize,
    locs: *mut cudaMemLocation,
    loc_idxs: *mut usize,
    num_locs: usize,
    flags: c_ulonglong,
    stream: CUstream,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    cu!(mode m; cuMemDiscardAndPrefetchBatchAsync(ptrs.cast(), sizes, count, locs, loc_idxs, num_locs, flags, stream))
}

/// `cudaMemRangeGetAttribute`.
pub fn range_attribute(data: *mut c_void, size: usize, attr: cudaMemRangeAttribute, p: *const c_void, count: usize) -> CudaResult {
    enter()?;
    cu!(cuMemRangeGetAttribute(data, size, attr.0, dptr(p), count))
}

/// `cudaMemRangeGetAttributes`.
pub fn range_attributes(
    data: *mut *mut c_void,
    sizes: *mut usize,
    attrs: *mut cudaMemRangeAttribute,
    n: usize,
    p: *const c_void,
    count: usize,
) -> CudaResult {
    enter()?;
    cu!(cuMemRangeGetAttributes(data, sizes, attrs.cast(), n, dptr(p), count))
}

