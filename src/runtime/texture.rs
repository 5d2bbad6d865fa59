//! Runtime semantics of textures, surfaces and channel formats.

use crate::driver::*;
use crate::types::*;
use std::ffi::c_uint;

/// The driver's array format and channel count for a runtime channel
/// descriptor, or `cudaErrorInvalidChannelDescriptor`.
///
/// Plain kinds need 1, 2 or 4 channels of equal width (3 is not a CUDA
/// array format); the width picks the format.
pub fn array_format(d: &cudaChannelFormatDesc) -> CudaResult<(CUarray_format, c_uint)> {
    let bits = [d.x, d.y, d.z, d.w];
    let n = bits.iter().take_while(|&&b| b != 0).count();
    if bits[n..].iter().any(|&b| b != 0) || !matches!(n, 1 | 2 | 4) || bits[..n].iter().any(|&b| b != d.x) {
        return Err(cudaErrorInvalidChannelDescriptor);
    }
    let f = match (d.f, d.x) {
        (cudaChannelFormatKindUnsigned, 8) => CU_AD_FORMAT_UNSIGNED_INT8,
        (cudaChannelFormatKindUnsigned, 16) => CU_AD_FORMAT_UNSIGNED_INT16,
        (cudaChannelFormatKindUnsigned, 32) => CU_AD_FORMAT_UNSIGNED_INT32,
        (cudaChannelFormatKindSigned, 8) => CU_AD_FORMAT_SIGNED_INT8,
        (cudaChannelFormatKindSigned, 16) => CU_AD_FORMAT_SIGNED_INT16,
        (cudaChannelFormatKindSigned, 32) => CU_AD_FORMAT_SIGNED_INT32,
        (cudaChannelFormatKindFloat, 16) => CU_AD_FORMAT_HALF,
        (cudaChannelFormatKindFloat, 32) => CU_AD_FORMAT_FLOAT,
        _ => return Err(cudaErrorInvalidChannelDescriptor),
    };
    Ok((f, n as c_uint))
}
