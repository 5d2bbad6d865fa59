//! Runtime semantics of textures, surfaces and channel formats.
//!
//! Texture and surface objects are the driver's (`cudaTextureObject_t` is
//! a `CUtexObject`); the runtime's resource, texture and view descriptors
//! are converted to the driver's field by field, and back for the getters.

use super::context::enter;
use super::{input, out};
use crate::driver::api::misc_abi::*;
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

/// `cudaCreateChannelDesc`: no checks, as in NVIDIA's runtime.
pub fn create_channel_desc(x: c_int, y: c_int, z: c_int, w: c_int, f: cudaChannelFormatKind) -> cudaChannelFormatDesc {
    cudaChannelFormatDesc { x, y, z, w, f }
}

/// `cudaGetChannelDesc`.
pub fn get_channel_desc(desc: *mut cudaChannelFormatDesc, array: cudaArray_const_t) -> CudaResult {
    enter()?;
    let desc = out(desc)?;
    if array.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    let a = crate::runtime::memory::array::describe(array as cudaArray_t)?;
    *desc = channel_desc(a.Format, a.NumChannels);
    Ok(())
}

/// The driver's resource descriptor for the runtime's.
pub fn driver_resource_desc(r: &cudaResourceDesc) -> CudaResult<CUDA_RESOURCE_DESC> {
    let mut d = CUDA_RESOURCE_DESC { resType: r.resType.0, flags: r.flags, ..Default::default() };
    // SAFETY: each arm reads the union member that resType selects; every
    // member is plain data, so any bit pattern is a valid value.
    unsafe {
        match r.resType {
            // A NULL array is an invalid resource handle, checked before the
            // other arguments (NVIDIA, H100, CUDA 13.0).
            cudaResourceTypeArray if r.res.array.array.is_null() => return Err(cudaErrorInvalidResourceHandle),
            cudaResourceTypeMipmappedArray if r.res.mipmap.mipmap.is_null() => return Err(cudaErrorInvalidResourceHandle),
            cudaResourceTypeArray => d.res.hArray = r.res.array.array,
            cudaResourceTypeMipmappedArray => d.res.hMipmappedArray = r.res.mipmap.mipmap,
            cudaResourceTypeLinear => {
                let l = r.res.linear;
                let (format, numChannels) = array_format(&l.desc)?;
                d.res.linear =
                    CUDA_RESOURCE_DESC_linear { devPtr: l.devPtr as u64, format, numChannels, sizeInBytes: l.sizeInBytes };
            }
            cudaResourceTypePitch2D => {
                let p = r.res.pitch2D;
                let (format, numChannels) = array_format(&p.desc)?;
                d.res.pitch2D = CUDA_RESOURCE_DESC_pitch2D {
                    devPtr: p.devPtr as u64,
                    format,
                    numChannels,
                    width: p.width,
                    height: p.height,
                    pitchInBytes: p.pitchInBytes,
                };
            }
            _ => return Err(cudaErrorInvalidValue),
        }
    }
    Ok(d)
}

/// The runtime's resource descriptor for the driver's.
pub fn runtime_resource_desc(d: &CUDA_RESOURCE_DESC) -> cudaResourceDesc {
    let mut r = cudaResourceDesc { resType: cudaResourceType(d.resType), flags: d.flags, ..Default::default() };
    // SAFETY: as in driver_resource_desc.
    unsafe {
        match d.resType {
            CU_RESOURCE_TYPE_ARRAY => r.res.array = cudaResourceDescArray { array: d.res.hArray },
            CU_RESOURCE_TYPE_MIPMAPPED_ARRAY => r.res.mipmap = cudaResourceDescMipmap { mipmap: d.res.hMipmappedArray },
            CU_RESOURCE_TYPE_LINEAR => {
                let l = d.res.linear;
                r.res.linear = cudaResourceDescLinear {
                    devPtr: l.devPtr as *mut _,
                    desc: channel_desc(l.format, l.numChannels),
                    sizeInBytes: l.sizeInBytes,
                };
            }
            CU_RESOURCE_TYPE_PITCH2D => {
                let p = d.res.pitch2D;
                r.res.pitch2D = cudaResourceDescPitch2D {
                    devPtr: p.devPtr as *mut _,
                    desc: channel_desc(p.format, p.numChannels),
                    width: p.width,
                    height: p.height,
                    pitchInBytes: p.pitchInBytes,
                };
            }
            _ => r.res.reserved.reserved = d.res.reserved,
        }
    }
    r
}

/// The driver's texture descriptor for the runtime's. `readMode` element
/// type maps to `CU_TRSF_READ_AS_INTEGER` (the driver ignores it for float
/// formats), the boolean fields to their flag bits.
pub fn driver_texture_desc(t: &cudaTextureDesc) -> CUDA_TEXTURE_DESC {
    let mut flags = 0;
    if t.readMode == cudaReadModeElementType {
        flags |= CU_TRSF_READ_AS_INTEGER;
    }
    if t.normalizedCoords != 0 {
        flags |= CU_TRSF_NORMALIZED_COORDINATES;
    }
    if t.sRGB != 0 {
        flags |= CU_TRSF_SRGB;
    }
    if t.disableTrilinearOptimization != 0 {
        flags |= CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION;
    }
    if t.seamlessCubemap != 0 {
        flags |= CU_TRSF_SEAMLESS_CUBEMAP;
    }
    CUDA_TEXTURE_DESC {
        addressMode: t.addressMode.map(|m| m.0),
        filterMode: t.filterMode.0,
        flags,
        maxAnisotropy: t.maxAnisotropy,
        mipmapFilterMode: t.mipmapFilterMode.0,
        mipmapLevelBias: t.mipmapLevelBias,
        minMipmapLevelClamp: t.minMipmapLevelClamp,
        maxMipmapLevelClamp: t.maxMipmapLevelClamp,
        borderColor: t.borderColor,
        reserved: [0; 12],
    }
}

/// The runtime's texture descriptor for the driver's.
pub fn runtime_texture_desc(d: &CUDA_TEXTURE_DESC) -> cudaTextureDesc {
    let bit = |b: c_uint| (d.flags & b != 0) as c_int;
    cudaTextureDesc {
        addressMode: d.addressMode.map(cudaTextureAddressMode),
        filterMode: cudaTextureFilterMode(d.filterMode),
        readMode: if d.flags & CU_TRSF_READ_AS_INTEGER != 0 {
            cudaReadModeElementType
        } else {
            cudaReadModeNormalizedFloat
        },
        sRGB: bit(CU_TRSF_SRGB),
        borderColor: d.borderColor,
        normalizedCoords: bit(CU_TRSF_NORMALIZED_COORDINATES),
        maxAnisotropy: d.maxAnisotropy,
        mipmapFilterMode: cudaTextureFilterMode(d.mipmapFilterMode),
        mipmapLevelBias: d.mipmapLevelBias,
        minMipmapLevelClamp: d.minMipmapLevelClamp,
        maxMipmapLevelClamp: d.maxMipmapLevelClamp,
        disableTrilinearOptimization: bit(CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION),
        seamlessCubemap: bit(CU_TRSF_SEAMLESS_CUBEMAP),
    }
}

/// `cudaCreateTextureObject`: the resource and texture descriptors are
/// required, the view is optional.
pub fn create_texture(
    tex: *mut cudaTextureObject_t,
    res: *const cudaResourceDesc,
    desc: *const cudaTextureDesc,
    view: *const cudaResourceViewDesc,
) -> CudaResult {
    enter()?;
    // The resource first (NVIDIA's order, H100, CUDA 13.0).
    let r = driver_resource_desc(input(res)?)?;
    let tex = out(tex)?;
    let t = driver_texture_desc(input(desc)?);
    // The view descriptor has the driver's layout and values: NULL or the
    // caller's struct goes through as is.
    cu!(cuTexObjectCreate(tex, &r, &t, view))
}

/// `cudaDestroyTextureObject`. Object 0 is never valid.
pub fn destroy_texture(tex: cudaTextureObject_t) -> CudaResult {
    enter()?;
    cu!(cuTexObjectDestroy(tex))
}

/// A getter: the driver fills its descriptor `D`, the caller gets it as `R`.
fn get<D: Default, R>(out: *mut R, fill: impl FnOnce(&mut D) -> CudaResult, convert: impl FnOnce(&D) -> R) -> CudaResult {
    enter()?;
    let out = super::out(out)?;
    let mut d = D::default();
    fill(&mut d)?;
    *out = convert(&d);
    Ok(())
}

/// `cudaGetTextureObjectResourceDesc`.
pub fn texture_resource_desc(res: *mut cudaResourceDesc, tex: cudaTextureObject_t) -> CudaResult {
    get(res, |d| cu!(cuTexObjectGetResourceDesc(d, tex)), runtime_resource_desc)
}

/// `cudaGetTextureObjectTextureDesc`.
pub fn texture_texture_desc(desc: *mut cudaTextureDesc, tex: cudaTextureObject_t) -> CudaResult {
    get(desc, |d| cu!(cuTexObjectGetTextureDesc(d, tex)), runtime_texture_desc)
}

/// `cudaGetTextureObjectResourceViewDesc`.
pub fn texture_view_desc(view: *mut cudaResourceViewDesc, tex: cudaTextureObject_t) -> CudaResult {
    get(view, |d| cu!(cuTexObjectGetResourceViewDesc(d, tex)), |v: &cudaResourceViewDesc| *v)
}

/// `cudaCreateSurfaceObject`: surfaces need an array resource.
pub fn create_surface(surf: *mut cudaSurfaceObject_t, res: *const cudaResourceDesc) -> CudaResult {
    enter()?;
    // The resource first (NVIDIA's order, H100, CUDA 13.0): it is converted
    // (and its channel format checked) before its type is: a linear
    // resource with a 3-channel format is cudaErrorInvalidChannelDescriptor.
    let res = input(res)?;
    let r = driver_resource_desc(res)?;
    if res.resType != cudaResourceTypeArray {
        return Err(cudaErrorInvalidValue);
    }
    let surf = out(surf)?;
    cu!(cuSurfObjectCreate(surf, &r))
}

/// `cudaDestroySurfaceObject`.
pub fn destroy_surface(surf: cudaSurfaceObject_t) -> CudaResult {
    enter()?;
    cu!(cuSurfObjectDestroy(surf))
}

/// `cudaGetSurfaceObjectResourceDesc`.
pub fn surface_resource_desc(res: *mut cudaResourceDesc, surf: cudaSurfaceObject_t) -> CudaResult {
    get(res, |d| cu!(cuSurfObjectGetResourceDesc(d, surf)), runtime_resource_desc)
}
