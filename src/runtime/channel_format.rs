//! Channel formats: the runtime's `cudaChannelFormatDesc` and the driver's
//! array format and channel count, both ways. Arrays, textures, surfaces,
//! external memory and graphics interop all describe elements this way.

use crate::driver::*;
use crate::types::*;
use std::ffi::{c_int, c_uint};

/// Channel kinds that name one driver format outright: (kind, format,
/// channels, bits of x, y, z, w as `cudaCreateChannelDesc<kind>()` gives).
const PACKED: &[(cudaChannelFormatKind, CUarray_format, c_uint, [c_int; 4])] = &[
    (cudaChannelFormatKindNV12, CU_AD_FORMAT_NV12, 3, [8, 8, 8, 0]),
    (cudaChannelFormatKindUnsignedNormalized8X1, CU_AD_FORMAT_UNORM_INT8X1, 1, [8, 0, 0, 0]),
    (cudaChannelFormatKindUnsignedNormalized8X2, CU_AD_FORMAT_UNORM_INT8X2, 2, [8, 8, 0, 0]),
    (cudaChannelFormatKindUnsignedNormalized8X4, CU_AD_FORMAT_UNORM_INT8X4, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedNormalized16X1, CU_AD_FORMAT_UNORM_INT16X1, 1, [16, 0, 0, 0]),
    (cudaChannelFormatKindUnsignedNormalized16X2, CU_AD_FORMAT_UNORM_INT16X2, 2, [16, 16, 0, 0]),
    (cudaChannelFormatKindUnsignedNormalized16X4, CU_AD_FORMAT_UNORM_INT16X4, 4, [16, 16, 16, 16]),
    (cudaChannelFormatKindSignedNormalized8X1, CU_AD_FORMAT_SNORM_INT8X1, 1, [8, 0, 0, 0]),
    (cudaChannelFormatKindSignedNormalized8X2, CU_AD_FORMAT_SNORM_INT8X2, 2, [8, 8, 0, 0]),
    (cudaChannelFormatKindSignedNormalized8X4, CU_AD_FORMAT_SNORM_INT8X4, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindSignedNormalized16X1, CU_AD_FORMAT_SNORM_INT16X1, 1, [16, 0, 0, 0]),
    (cudaChannelFormatKindSignedNormalized16X2, CU_AD_FORMAT_SNORM_INT16X2, 2, [16, 16, 0, 0]),
    (cudaChannelFormatKindSignedNormalized16X4, CU_AD_FORMAT_SNORM_INT16X4, 4, [16, 16, 16, 16]),
    (cudaChannelFormatKindUnsignedBlockCompressed1, CU_AD_FORMAT_BC1_UNORM, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedBlockCompressed1SRGB, CU_AD_FORMAT_BC1_UNORM_SRGB, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedBlockCompressed2, CU_AD_FORMAT_BC2_UNORM, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedBlockCompressed2SRGB, CU_AD_FORMAT_BC2_UNORM_SRGB, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedBlockCompressed3, CU_AD_FORMAT_BC3_UNORM, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedBlockCompressed3SRGB, CU_AD_FORMAT_BC3_UNORM_SRGB, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedBlockCompressed4, CU_AD_FORMAT_BC4_UNORM, 1, [8, 0, 0, 0]),
    (cudaChannelFormatKindSignedBlockCompressed4, CU_AD_FORMAT_BC4_SNORM, 1, [8, 0, 0, 0]),
    (cudaChannelFormatKindUnsignedBlockCompressed5, CU_AD_FORMAT_BC5_UNORM, 2, [8, 8, 0, 0]),
    (cudaChannelFormatKindSignedBlockCompressed5, CU_AD_FORMAT_BC5_SNORM, 2, [8, 8, 0, 0]),
    (cudaChannelFormatKindUnsignedBlockCompressed6H, CU_AD_FORMAT_BC6H_UF16, 3, [16, 16, 16, 0]),
    (cudaChannelFormatKindSignedBlockCompressed6H, CU_AD_FORMAT_BC6H_SF16, 3, [16, 16, 16, 0]),
    (cudaChannelFormatKindUnsignedBlockCompressed7, CU_AD_FORMAT_BC7_UNORM, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedBlockCompressed7SRGB, CU_AD_FORMAT_BC7_UNORM_SRGB, 4, [8, 8, 8, 8]),
    (cudaChannelFormatKindUnsignedNormalized1010102, CU_AD_FORMAT_UNORM_INT_101010_2, 4, [10, 10, 10, 2]),
];

/// Plain kinds: (kind, bits, format).
const PLAIN: &[(cudaChannelFormatKind, c_int, CUarray_format)] = &[
    (cudaChannelFormatKindUnsigned, 8, CU_AD_FORMAT_UNSIGNED_INT8),
    (cudaChannelFormatKindUnsigned, 16, CU_AD_FORMAT_UNSIGNED_INT16),
    (cudaChannelFormatKindUnsigned, 32, CU_AD_FORMAT_UNSIGNED_INT32),
    (cudaChannelFormatKindSigned, 8, CU_AD_FORMAT_SIGNED_INT8),
    (cudaChannelFormatKindSigned, 16, CU_AD_FORMAT_SIGNED_INT16),
    (cudaChannelFormatKindSigned, 32, CU_AD_FORMAT_SIGNED_INT32),
    (cudaChannelFormatKindFloat, 16, CU_AD_FORMAT_HALF),
    (cudaChannelFormatKindFloat, 32, CU_AD_FORMAT_FLOAT),
];

/// The driver's array format and channel count for a runtime channel
/// descriptor, or `cudaErrorInvalidChannelDescriptor`.
///
/// Plain kinds need 1, 2 or 4 channels of equal width (3 is not a CUDA
/// array format); the width picks the format. The normalized, block
/// compressed, NV12 and 10-10-10-2 kinds name their format and must carry
/// the bits `cudaCreateChannelDesc<kind>()` gives.
pub fn array_format(d: &cudaChannelFormatDesc) -> CudaResult<(CUarray_format, c_uint)> {
    let bits = [d.x, d.y, d.z, d.w];
    if let Some(&(_, f, n, want)) = PACKED.iter().find(|p| p.0 == d.f) {
        return if bits == want { Ok((f, n)) } else { Err(cudaErrorInvalidChannelDescriptor) };
    }
    let n = bits.iter().take_while(|&&b| b != 0).count();
    if bits[n..].iter().any(|&b| b != 0) || !matches!(n, 1 | 2 | 4) || bits[..n].iter().any(|&b| b != d.x) {
        return Err(cudaErrorInvalidChannelDescriptor);
    }
    PLAIN
        .iter()
        .find(|p| p.0 == d.f && p.1 == d.x)
        .map(|p| (p.2, n as c_uint))
        .ok_or(cudaErrorInvalidChannelDescriptor)
}

/// The runtime channel descriptor of a driver format and channel count (the
/// inverse of [`array_format`]); formats without a runtime kind (planar YUV
/// beyond NV12) give kind `cudaChannelFormatKindNone`.
pub fn channel_desc(format: CUarray_format, channels: c_uint) -> cudaChannelFormatDesc {
    if let Some(&(kind, _, _, b)) = PACKED.iter().find(|p| p.1 == format) {
        return cudaChannelFormatDesc { x: b[0], y: b[1], z: b[2], w: b[3], f: kind };
    }
    let Some(&(kind, bits, _)) = PLAIN.iter().find(|p| p.2 == format) else {
        return cudaChannelFormatDesc { f: cudaChannelFormatKindNone, ..Default::default() };
    };
    let on = |i: c_uint| if channels > i { bits } else { 0 };
    cudaChannelFormatDesc { x: on(0), y: on(1), z: on(2), w: on(3), f: kind }
}
