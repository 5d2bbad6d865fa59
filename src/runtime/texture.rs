//! Runtime semantics of textures, surfaces and channel formats.
//!
//! Texture and surface objects are the driver's (`cudaTextureObject_t` is
//! a `CUtexObject`); the runtime's resource, texture and view descriptors
//! are converted to the driver's field by field, and back for the getters.

use crate::runtime::required;
use super::context::enter;
use super::channel_format::{array_format, channel_desc};
use crate::driver::api::misc_abi::*;
use crate::types::*;
use std::ffi::{c_int, c_uint};

/// `cudaCreateChannelDesc`: no checks, as in NVIDIA's runtime.
pub fn create_channel_desc(x: c_int, y: c_int, z: c_int, w: c_int, f: cudaChannelFormatKind) -> cudaChannelFormatDesc {
    cudaChannelFormatDesc { x, y, z, w, f }
}

/// `cudaGetChannelDesc`.
pub fn get_channel_desc(desc: Option<&mut cudaChannelFormatDesc>, array: cudaArray_const_t) -> CudaResult {
    enter()?;
    let desc = required(desc)?;
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
    tex: Option<&mut cudaTextureObject_t>,
    res: Option<&cudaResourceDesc>,
    desc: Option<&cudaTextureDesc>,
    view: *const cudaResourceViewDesc,
) -> CudaResult {
    enter()?;
    // The resource first (NVIDIA's order, H100, CUDA 13.0).
    let r = driver_resource_desc(required(res)?)?;
    let tex = required(tex)?;
    let t = driver_texture_desc(required(desc)?);
    // The view descriptor has the driver's layout and values: NULL or the
    // caller's struct goes through as is.
    cu!(cuTexObjectCreate(tex, &r, &t, view))
}

/// A getter: the driver fills its descriptor `D`, the caller gets it as `R`.
fn get<D: Default, R>(out: Option<&mut R>, fill: impl FnOnce(&mut D) -> CudaResult, convert: impl FnOnce(&D) -> R) -> CudaResult {
    enter()?;
    let out = required(out)?;
    let mut d = D::default();
    fill(&mut d)?;
    *out = convert(&d);
    Ok(())
}

/// `cudaGetTextureObjectResourceDesc`.
pub fn texture_resource_desc(res: Option<&mut cudaResourceDesc>, tex: cudaTextureObject_t) -> CudaResult {
    get(res, |d| cu!(cuTexObjectGetResourceDesc(d, tex)), runtime_resource_desc)
}

/// `cudaGetTextureObjectTextureDesc`.
pub fn texture_texture_desc(desc: Option<&mut cudaTextureDesc>, tex: cudaTextureObject_t) -> CudaResult {
    get(desc, |d| cu!(cuTexObjectGetTextureDesc(d, tex)), runtime_texture_desc)
}

/// `cudaGetTextureObjectResourceViewDesc`.
pub fn texture_view_desc(view: Option<&mut cudaResourceViewDesc>, tex: cudaTextureObject_t) -> CudaResult {
    get(view, |d| cu!(cuTexObjectGetResourceViewDesc(d, tex)), |v: &cudaResourceViewDesc| *v)
}

/// `cudaCreateSurfaceObject`: surfaces need an array resource.
pub fn create_surface(surf: Option<&mut cudaSurfaceObject_t>, res: Option<&cudaResourceDesc>) -> CudaResult {
    enter()?;
    // The resource first (NVIDIA's order, H100, CUDA 13.0): it is converted
    // (and its channel format checked) before its type is: a linear
    // resource with a 3-channel format is cudaErrorInvalidChannelDescriptor.
    let res = required(res)?;
    let r = driver_resource_desc(res)?;
    if res.resType != cudaResourceTypeArray {
        return Err(cudaErrorInvalidValue);
    }
    let surf = required(surf)?;
    cu!(cuSurfObjectCreate(surf, &r))
}

/// `cudaGetSurfaceObjectResourceDesc`.
pub fn surface_resource_desc(res: Option<&mut cudaResourceDesc>, surf: cudaSurfaceObject_t) -> CudaResult {
    get(res, |d| cu!(cuSurfObjectGetResourceDesc(d, surf)), runtime_resource_desc)
}
