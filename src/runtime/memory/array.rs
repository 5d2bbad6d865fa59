//! CUDA arrays and mipmapped arrays.
//!
//! Runtime array flags (`cudaArrayLayered`, `cudaArraySurfaceLoadStore`,
//! ...) have the values of the driver's `CUDA_ARRAY3D_*` flags, so they
//! pass through.

use crate::driver::api::{CUDA_ARRAY3D_DESCRIPTOR, CUarray};
use crate::driver::*;
use crate::runtime::context::enter;
use crate::runtime::required;
use crate::runtime::state::runtime;
use crate::runtime::channel_format::{array_format, channel_desc};
use crate::types::*;
use std::ffi::{c_int, c_uint};

fn descriptor(desc: &cudaChannelFormatDesc, extent: cudaExtent, flags: c_uint) -> CudaResult<CUDA_ARRAY3D_DESCRIPTOR> {
    let (format, channels) = array_format(desc)?;
    Ok(CUDA_ARRAY3D_DESCRIPTOR {
        Width: extent.width,
        Height: extent.height,
        Depth: extent.depth,
        Format: format,
        NumChannels: channels,
        Flags: flags,
    })
}

/// `cudaMallocArray`: a 1D (height 0) or 2D array.
pub fn malloc_array(out: Option<&mut cudaArray_t>, desc: Option<&cudaChannelFormatDesc>, width: usize, height: usize, flags: c_uint) -> CudaResult {
    malloc_3d_array(out, desc, cudaExtent { width, height, depth: 0 }, flags)
}

/// `cudaMalloc3DArray`.
pub fn malloc_3d_array(out: Option<&mut cudaArray_t>, desc: Option<&cudaChannelFormatDesc>, extent: cudaExtent, flags: c_uint) -> CudaResult {
    let out = required(out)?;
    let desc = required(desc)?;
    enter()?;
    let d = descriptor(desc, extent, flags)?;
    cu!(cuArray3DCreate(out, &d))
}

/// `cudaMallocMipmappedArray`.
pub fn malloc_mipmapped_array(
    out: Option<&mut cudaMipmappedArray_t>,
    desc: Option<&cudaChannelFormatDesc>,
    extent: cudaExtent,
    levels: c_uint,
    flags: c_uint,
) -> CudaResult {
    let out = required(out)?;
    let desc = required(desc)?;
    enter()?;
    let d = descriptor(desc, extent, flags)?;
    cu!(cuMipmappedArrayCreate(out, &d, levels))
}

/// `cudaGetMipmappedArrayLevel`: the handle is checked before the
/// out-parameter, as NVIDIA's runtime does (H100: a NULL handle with a NULL
/// out-parameter is `cudaErrorInvalidResourceHandle`).
pub fn mipmapped_array_level(out: Option<&mut cudaArray_t>, m: cudaMipmappedArray_const_t, level: c_uint) -> CudaResult {
    enter()?;
    if m.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    cu!(cuMipmappedArrayGetLevel(required(out)?, m.cast_mut(), level))
}

/// `cudaFreeArray`: NULL is a no-op.
pub fn free_array(a: cudaArray_t) -> CudaResult {
    enter()?;
    if a.is_null() {
        return Ok(());
    }
    cu!(cuArrayDestroy(a))
}

/// `cudaFreeMipmappedArray`: NULL is a no-op.
pub fn free_mipmapped_array(m: cudaMipmappedArray_t) -> CudaResult {
    enter()?;
    if m.is_null() {
        return Ok(());
    }
    cu!(cuMipmappedArrayDestroy(m))
}

/// The driver's description of an array (`cudaErrorInvalidResourceHandle`
/// for NULL).
pub(crate) fn describe(a: CUarray) -> CudaResult<CUDA_ARRAY3D_DESCRIPTOR> {
    if a.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    let mut d = CUDA_ARRAY3D_DESCRIPTOR::default();
    cu!(cuArray3DGetDescriptor(&mut d, a))?;
    Ok(d)
}

/// Bytes of one channel of a driver array format, and the runtime kind.
/// Block-compressed formats count one 4x4 block as an element.
fn format_info(f: CUarray_format) -> Option<(usize, cudaChannelFormatKind)> {
    Some(match f {
        CU_AD_FORMAT_UNSIGNED_INT8 => (1, cudaChannelFormatKindUnsigned),
        CU_AD_FORMAT_UNSIGNED_INT16 => (2, cudaChannelFormatKindUnsigned),
        CU_AD_FORMAT_UNSIGNED_INT32 => (4, cudaChannelFormatKindUnsigned),
        CU_AD_FORMAT_SIGNED_INT8 => (1, cudaChannelFormatKindSigned),
        CU_AD_FORMAT_SIGNED_INT16 => (2, cudaChannelFormatKindSigned),
        CU_AD_FORMAT_SIGNED_INT32 => (4, cudaChannelFormatKindSigned),
        CU_AD_FORMAT_HALF => (2, cudaChannelFormatKindFloat),
        CU_AD_FORMAT_FLOAT => (4, cudaChannelFormatKindFloat),
        CU_AD_FORMAT_UNORM_INT8X1 => (1, cudaChannelFormatKindUnsignedNormalized8X1),
        CU_AD_FORMAT_UNORM_INT8X2 => (2, cudaChannelFormatKindUnsignedNormalized8X2),
        CU_AD_FORMAT_UNORM_INT8X4 => (4, cudaChannelFormatKindUnsignedNormalized8X4),
        CU_AD_FORMAT_UNORM_INT16X1 => (2, cudaChannelFormatKindUnsignedNormalized16X1),
        CU_AD_FORMAT_UNORM_INT16X2 => (4, cudaChannelFormatKindUnsignedNormalized16X2),
        CU_AD_FORMAT_UNORM_INT16X4 => (8, cudaChannelFormatKindUnsignedNormalized16X4),
        CU_AD_FORMAT_SNORM_INT8X1 => (1, cudaChannelFormatKindSignedNormalized8X1),
        CU_AD_FORMAT_SNORM_INT8X2 => (2, cudaChannelFormatKindSignedNormalized8X2),
        CU_AD_FORMAT_SNORM_INT8X4 => (4, cudaChannelFormatKindSignedNormalized8X4),
        CU_AD_FORMAT_SNORM_INT16X1 => (2, cudaChannelFormatKindSignedNormalized16X1),
        CU_AD_FORMAT_SNORM_INT16X2 => (4, cudaChannelFormatKindSignedNormalized16X2),
        CU_AD_FORMAT_SNORM_INT16X4 => (8, cudaChannelFormatKindSignedNormalized16X4),
        CU_AD_FORMAT_BC1_UNORM => (8, cudaChannelFormatKindUnsignedBlockCompressed1),
        CU_AD_FORMAT_BC1_UNORM_SRGB => (8, cudaChannelFormatKindUnsignedBlockCompressed1SRGB),
        CU_AD_FORMAT_BC2_UNORM => (16, cudaChannelFormatKindUnsignedBlockCompressed2),
        CU_AD_FORMAT_BC2_UNORM_SRGB => (16, cudaChannelFormatKindUnsignedBlockCompressed2SRGB),
        CU_AD_FORMAT_BC3_UNORM => (16, cudaChannelFormatKindUnsignedBlockCompressed3),
        CU_AD_FORMAT_BC3_UNORM_SRGB => (16, cudaChannelFormatKindUnsignedBlockCompressed3SRGB),
        CU_AD_FORMAT_BC4_UNORM => (8, cudaChannelFormatKindUnsignedBlockCompressed4),
        CU_AD_FORMAT_BC4_SNORM => (8, cudaChannelFormatKindSignedBlockCompressed4),
        CU_AD_FORMAT_BC5_UNORM => (16, cudaChannelFormatKindUnsignedBlockCompressed5),
        CU_AD_FORMAT_BC5_SNORM => (16, cudaChannelFormatKindSignedBlockCompressed5),
        CU_AD_FORMAT_BC6H_UF16 => (16, cudaChannelFormatKindUnsignedBlockCompressed6H),
        CU_AD_FORMAT_BC6H_SF16 => (16, cudaChannelFormatKindSignedBlockCompressed6H),
        CU_AD_FORMAT_BC7_UNORM => (16, cudaChannelFormatKindUnsignedBlockCompressed7),
        CU_AD_FORMAT_BC7_UNORM_SRGB => (16, cudaChannelFormatKindUnsignedBlockCompressed7SRGB),
        CU_AD_FORMAT_NV12 => (1, cudaChannelFormatKindNV12),
        _ => return None,
    })
}

/// Bytes of one element of an array (what runtime offsets and widths of
/// arrays count in 3D copies).
pub(crate) fn element_size(d: &CUDA_ARRAY3D_DESCRIPTOR) -> usize {
    let (bytes, kind) = format_info(d.Format).unwrap_or((1, cudaChannelFormatKindNone));
    // Plain kinds multiply by the channel count; packed kinds already did.
    if kind.0 <= cudaChannelFormatKindFloat.0 { bytes * d.NumChannels as usize } else { bytes }
}

/// `cudaArrayGetInfo`: each out-parameter may be NULL.
pub fn array_info(
    desc: Option<&mut cudaChannelFormatDesc>,
    extent: Option<&mut cudaExtent>,
    flags: Option<&mut c_uint>,
    a: cudaArray_t,
) -> CudaResult {
    enter()?;
    let d = describe(a)?;
    if let Some(out) = desc {
        // The same descriptor cudaGetChannelDesc reports for this array.
        *out = channel_desc(d.Format, d.NumChannels);
    }
    if let Some(out) = extent {
        *out = cudaExtent { width: d.Width, height: d.Height, depth: d.Depth };
    }
    if let Some(out) = flags {
        *out = d.Flags;
    }
    Ok(())
}

/// `cudaArrayGetPlane`.
pub fn array_plane(out: Option<&mut cudaArray_t>, a: cudaArray_t, plane: c_uint) -> CudaResult {
    // The handle before the out-parameter, as NVIDIA's runtime (H100).
    enter()?;
    if a.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    cu!(cuArrayGetPlane(required(out)?, a, plane))
}

/// `cudaArrayGetMemoryRequirements`.
pub fn array_memory_requirements(out: Option<&mut cudaArrayMemoryRequirements>, a: cudaArray_t, device: c_int) -> CudaResult {
    let out = required(out)?;
    let dev = runtime()?.device_arg(device)?.cu;
    if a.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    enter()?;
    cu!(cuArrayGetMemoryRequirements(out, a, dev))
}

/// `cudaMipmappedArrayGetMemoryRequirements`.
pub fn mipmapped_array_memory_requirements(
    out: Option<&mut cudaArrayMemoryRequirements>,
    m: cudaMipmappedArray_t,
    device: c_int,
) -> CudaResult {
    let out = required(out)?;
    let dev = runtime()?.device_arg(device)?.cu;
    if m.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    enter()?;
    cu!(cuMipmappedArrayGetMemoryRequirements(out, m, dev))
}

/// `cudaArrayGetSparseProperties`.
pub fn array_sparse_properties(out: Option<&mut cudaArraySparseProperties>, a: cudaArray_t) -> CudaResult {
    let out = required(out)?;
    enter()?;
    if a.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuArrayGetSparseProperties(out, a))
}

/// `cudaMipmappedArrayGetSparseProperties`.
pub fn mipmapped_array_sparse_properties(out: Option<&mut cudaArraySparseProperties>, m: cudaMipmappedArray_t) -> CudaResult {
    let out = required(out)?;
    enter()?;
    if m.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuMipmappedArrayGetSparseProperties(out, m))
}
