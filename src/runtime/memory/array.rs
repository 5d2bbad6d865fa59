//! CUDA arrays and mipmapped arrays.
//!
//! Runtime array flags (`cudaArrayLayered`, `cudaArraySurfaceLoadStore`,
//! ...) have the values of the driver's `CUDA_ARRAY3D_*` flags, so they
//! pass through.

use crate::driver::api::{CUDA_ARRAY3D_DESCRIPTOR, CUarray};
use crate::driver::*;
use crate::runtime::context::enter;
use crate::runtime::state::runtime;
use crate::runtime::texture::array_format;
use crate::types::*;
use std::ffi::{c_int, c_uint};
use std::ptr::null_mut;

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
pub fn malloc_array(desc: &cudaChannelFormatDesc, width: usize, height: usize, flags: c_uint) -> CudaResult<cudaArray_t> {
    malloc_3d_array(desc, cudaExtent { width, height, depth: 0 }, flags)
}

/// `cudaMalloc3DArray`.
pub fn malloc_3d_array(desc: &cudaChannelFormatDesc, extent: cudaExtent, flags: c_uint) -> CudaResult<cudaArray_t> {
    enter()?;
    let d = descriptor(desc, extent, flags)?;
    let mut a = null_mut();
    cu!(cuArray3DCreate(&mut a, &d))?;
    Ok(a)
}

/// `cudaMallocMipmappedArray`.
pub fn malloc_mipmapped_array(
    desc: &cudaChannelFormatDesc,
    extent: cudaExtent,
    levels: c_uint,
    flags: c_uint,
) -> CudaResult<cudaMipmappedArray_t> {
    enter()?;
    let d = descriptor(desc, extent, flags)?;
    let mut m = null_mut();
    cu!(cuMipmappedArrayCreate(&mut m, &d, levels))?;
    Ok(m)
}

/// `cudaGetMipmappedArrayLevel`.
pub fn mipmapped_array_level(m: cudaMipmappedArray_const_t, level: c_uint) -> CudaResult<cudaArray_t> {
    enter()?;
    if m.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    let mut a = null_mut();
    cu!(cuMipmappedArrayGetLevel(&mut a, m.cast_mut(), level))?;
    Ok(a)
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
        *out = crate::runtime::texture::channel_desc(d.Format, d.NumChannels);
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
pub fn array_plane(a: cudaArray_t, plane: c_uint) -> CudaResult<cudaArray_t> {
    enter()?;
    if a.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    let mut p = null_mut();
    cu!(cuArrayGetPlane(&mut p, a, plane))?;
    Ok(p)
}

/// `cudaArrayGetMemoryRequirements`.
pub fn array_memory_requirements(out: &mut cudaArrayMemoryRequirements, a: cudaArray_t, device: c_int) -> CudaResult {
    let dev = runtime()?.device_arg(device)?.cu;
    if a.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    enter()?;
    cu!(cuArrayGetMemoryRequirements(out, a, dev))
}

/// `cudaMipmappedArrayGetMemoryRequirements`.
pub fn mipmapped_array_memory_requirements(
    out: &mut cudaArrayMemoryRequirements,
    m: cudaMipmappedArray_t,
    device: c_int,
) -> CudaResult {
    let dev = runtime()?.device_arg(device)?.cu;
    if m.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    enter()?;
    cu!(cuMipmappedArrayGetMemoryRequirements(out, m, dev))
}

/// `cudaArrayGetSparseProperties`.
pub fn array_sparse_properties(out: &mut cudaArraySparseProperties, a: cudaArray_t) -> CudaResult {
    enter()?;
    if a.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuArrayGetSparseProperties(out, a))
}

/// `cudaMipmappedArrayGetSparseProperties`.
pub fn mipmapped_array_sparse_properties(out: &mut cudaArraySparseProperties, m: cudaMipmappedArray_t) -> CudaResult {
    enter()?;
    if m.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuMipmappedArrayGetSparseProperties(out, m))
}
