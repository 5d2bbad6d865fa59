//! Runtime node-parameter structs to the driver's and back.
//!
//! Layouts were compared field by field between driver_types.h and cuda.h
//! (CUDA 13.0):
//! - identical, passed through as is: edge data, exec-update result info,
//!   instantiate params, host, child graph, event record/wait, external
//!   semaphore signal/wait, mem alloc, mem free, launch attribute values;
//! - converted here: kernel (the runtime's `func` is a host stub or
//!   `cudaKernel_t`; the driver's struct adds `kern` and `ctx`), memcpy
//!   (`cudaMemcpy3DParms` is positions/pitched pointers/kind, `CUDA_MEMCPY3D`
//!   is byte offsets and memory types), memset (`void*` vs `CUdeviceptr`, the
//!   driver's v2 adds `ctx`), conditional (the driver's adds `ctx`), and the
//!   generic `cudaGraphNodeParams` union, member by member.

use super::{kernel_for, stub_for};
use crate::driver::api::*;
use crate::driver::{CUcontext, CUdeviceptr};
use crate::types::*;
use std::ffi::c_void;
use std::ptr::null_mut;

/// Bytes per element of a CUDA array (format size times channels).
fn element_size(array: cudaArray_t) -> CudaResult<usize> {
    let mut d = CUDA_ARRAY3D_DESCRIPTOR::default();
    cu!(cuArray3DGetDescriptor(&mut d, array))?;
    let per_channel = match d.Format {
        0x01 | 0x08 => 1,
        0x02 | 0x09 | 0x10 => 2,
        0x03 | 0x0a | 0x20 => 4,
        // Normalized formats carry their channel count in the format.
        0xc0 | 0xc6 => return Ok(1),
        0xc1 | 0xc3 | 0xc7 | 0xc9 => return Ok(2),
        0xc2 | 0xc4 | 0xc8 | 0xca => return Ok(4),
        0xc5 | 0xcb => return Ok(8),
        // Block-compressed and video formats have no per-element byte
        // offset a cudaPos could express.
        _ => return Err(cudaErrorInvalidValue),
    };
    Ok(per_channel * d.NumChannels.max(1) as usize)
}

/// Memory types of (source, destination) for a linear side, by copy kind.
fn memory_types(kind: cudaMemcpyKind) -> CudaResult<(CUmemorytype, CUmemorytype)> {
    Ok(match kind {
        cudaMemcpyHostToHost => (CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST),
        cudaMemcpyHostToDevice => (CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE),
        cudaMemcpyDeviceToHost => (CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST),
        cudaMemcpyDeviceToDevice => (CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE),
        // Unified addressing: the driver finds out where each pointer lives.
        cudaMemcpyDefault => (CU_MEMORYTYPE_UNIFIED, CU_MEMORYTYPE_UNIFIED),
        _ => return Err(cudaErrorInvalidMemcpyDirection),
    })
}

/// `cudaMemcpy3DParms` -> `CUDA_MEMCPY3D`, as cudaMemcpy3D, cudaMemcpy3DAsync
/// and memcpy graph nodes need it. Arrays take positions and the width in
/// elements (converted to bytes with the array's element size); linear
/// memory takes them in bytes. Each side is an array or a pitched pointer,
/// never both (`cudaErrorInvalidValue`).
pub fn memcpy3d_to_driver(p: &cudaMemcpy3DParms) -> CudaResult<CUDA_MEMCPY3D> {
    let (src_type, dst_type) = memory_types(p.kind)?;
    if (!p.srcArray.is_null() && !p.srcPtr.ptr.is_null()) || (!p.dstArray.is_null() && !p.dstPtr.ptr.is_null()) {
        return Err(cudaErrorInvalidValue);
    }
    let src_elem = if p.srcArray.is_null() { None } else { Some(element_size(p.srcArray)?) };
    let dst_elem = if p.dstArray.is_null() { None } else { Some(element_size(p.dstArray)?) };
    let mut c = CUDA_MEMCPY3D::default();
    match src_elem {
        Some(e) => {
            c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
            c.srcArray = p.srcArray;
            c.srcXInBytes = p.srcPos.x * e;
        }
        None => {
            c.srcMemoryType = src_type;
            if src_type == CU_MEMORYTYPE_HOST {
                c.srcHost = p.srcPtr.ptr;
            } else {
                c.srcDevice = p.srcPtr.ptr as CUdeviceptr;
            }
            c.srcXInBytes = p.srcPos.x;
            c.srcPitch = p.srcPtr.pitch;
            c.srcHeight = p.srcPtr.ysize;
        }
    }
    c.srcY = p.srcPos.y;
    c.srcZ = p.srcPos.z;
    match dst_elem {
        Some(e) => {
            c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
            c.dstArray = p.dstArray;
            c.dstXInBytes = p.dstPos.x * e;
        }
        None => {
            c.dstMemoryType = dst_type;
            if dst_type == CU_MEMORYTYPE_HOST {
                c.dstHost = p.dstPtr.ptr;
            } else {
                c.dstDevice = p.dstPtr.ptr as CUdeviceptr;
            }
            c.dstXInBytes = p.dstPos.x;
            c.dstPitch = p.dstPtr.pitch;
            c.dstHeight = p.dstPtr.ysize;
        }
    }
    c.dstY = p.dstPos.y;
    c.dstZ = p.dstPos.z;
    // With an array on either side the width counts elements.
    c.WidthInBytes = p.extent.width * src_elem.or(dst_elem).unwrap_or(1);
    c.Height = p.extent.height;
    c.Depth = p.extent.depth;
    Ok(c)
}

/// `CUDA_MEMCPY3D` -> `cudaMemcpy3DParms` (memcpy node queries). The kind
/// follows from the memory types (an array counts as device memory,
/// unified on either side is `cudaMemcpyDefault`). `xsize` of a pitched
/// pointer has no driver counterpart; we report the pitch (what a 1D copy
/// sets it to).
pub fn memcpy3d_from_driver(c: &CUDA_MEMCPY3D) -> CudaResult<cudaMemcpy3DParms> {
    let side = |t: CUmemorytype| if t == CU_MEMORYTYPE_ARRAY { CU_MEMORYTYPE_DEVICE } else { t };
    let kind = match (side(c.srcMemoryType), side(c.dstMemoryType)) {
        (CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST) => cudaMemcpyHostToHost,
        (CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE) => cudaMemcpyHostToDevice,
        (CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST) => cudaMemcpyDeviceToHost,
        (CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE) => cudaMemcpyDeviceToDevice,
        _ => cudaMemcpyDefault,
    };
    let mut p = cudaMemcpy3DParms { kind, ..Default::default() };
    let mut elem = None;
    if c.srcMemoryType == CU_MEMORYTYPE_ARRAY {
        let e = element_size(c.srcArray)?;
        elem = Some(e);
        p.srcArray = c.srcArray;
        p.srcPos.x = c.srcXInBytes / e;
    } else {
        p.srcPtr.ptr = if c.srcMemoryType == CU_MEMORYTYPE_HOST { c.srcHost as *mut c_void } else { c.srcDevice as *mut c_void };
        p.srcPtr.pitch = c.srcPitch;
        p.srcPtr.xsize = c.srcPitch;
        p.srcPtr.ysize = c.srcHeight;
        p.srcPos.x = c.srcXInBytes;
    }
    p.srcPos.y = c.srcY;
    p.srcPos.z = c.srcZ;
    if c.dstMemoryType == CU_MEMORYTYPE_ARRAY {
        let e = element_size(c.dstArray)?;
        elem = elem.or(Some(e));
        p.dstArray = c.dstArray;
        p.dstPos.x = c.dstXInBytes / e;
    } else {
        p.dstPtr.ptr = if c.dstMemoryType == CU_MEMORYTYPE_HOST { c.dstHost } else { c.dstDevice as *mut c_void };
        p.dstPtr.pitch = c.dstPitch;
        p.dstPtr.xsize = c.dstPitch;
        p.dstPtr.ysize = c.dstHeight;
        p.dstPos.x = c.dstXInBytes;
    }
    p.dstPos.y = c.dstY;
    p.dstPos.z = c.dstZ;
    p.extent = cudaExtent { width: c.WidthInBytes / elem.unwrap_or(1), height: c.Height, depth: c.Depth };
    Ok(p)
}

/// A 1D copy of `count` bytes as 3D parameters (the `...1D` and symbol
/// node calls).
pub fn memcpy_1d(dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind) -> cudaMemcpy3DParms {
    cudaMemcpy3DParms {
        srcPtr: cudaPitchedPtr { ptr: src as *mut c_void, pitch: count, xsize: count, ysize: 1 },
        dstPtr: cudaPitchedPtr { ptr: dst, pitch: count, xsize: count, ysize: 1 },
        extent: cudaExtent { width: count, height: 1, depth: 1 },
        kind,
        ..Default::default()
    }
}

/// Kernel node parameters to the driver's: the function resolved through
/// the kernel registry, the current context implied (`ctx` NULL).
pub fn kernel_to_driver(p: &cudaKernelNodeParams) -> CudaResult<CUDA_KERNEL_NODE_PARAMS> {
    Ok(CUDA_KERNEL_NODE_PARAMS {
        func: kernel_for(p.func)?,
        gridDimX: p.gridDim.x,
        gridDimY: p.gridDim.y,
        gridDimZ: p.gridDim.z,
        blockDimX: p.blockDim.x,
        blockDimY: p.blockDim.y,
        blockDimZ: p.blockDim.z,
        sharedMemBytes: p.sharedMemBytes,
        kernelParams: p.kernelParams,
        extra: p.extra,
        kern: null_mut(),
        ctx: null_mut(),
    })
}

/// The driver's kernel node parameters as the runtime reports them (`func`
/// back to the host stub the program registered).
pub fn kernel_from_driver(k: &CUDA_KERNEL_NODE_PARAMS) -> cudaKernelNodeParams {
    let f = if k.func.is_null() { k.kern as crate::driver::CUfunction } else { k.func };
    cudaKernelNodeParams {
        func: stub_for(f),
        gridDim: dim3 { x: k.gridDimX, y: k.gridDimY, z: k.gridDimZ },
        blockDim: dim3 { x: k.blockDimX, y: k.blockDimY, z: k.blockDimZ },
        sharedMemBytes: k.sharedMemBytes,
        kernelParams: k.kernelParams,
        extra: k.extra,
    }
}

pub fn memset_to_driver(p: &cudaMemsetParams, ctx: CUcontext) -> CUDA_MEMSET_NODE_PARAMS {
    CUDA_MEMSET_NODE_PARAMS {
        dst: p.dst as CUdeviceptr,
        pitch: p.pitch,
        value: p.value,
        elementSize: p.elementSize,
        width: p.width,
        height: p.height,
        ctx,
    }
}

pub fn memset_from_driver(m: &CUDA_MEMSET_NODE_PARAMS) -> cudaMemsetParams {
    cudaMemsetParams {
        dst: m.dst as *mut c_void,
        pitch: m.pitch,
        value: m.value,
        elementSize: m.elementSize,
        width: m.width,
        height: m.height,
    }
}

/// Write `v` into the union words of driver node parameters.
fn put<T: Copy>(d: &mut CUgraphNodeParams, v: T) {
    const { assert!(size_of::<T>() <= size_of::<[i64; 29]>()) };
    // SAFETY: the union is 232 bytes, 8-aligned; T fits (checked above) and
    // is a plain #[repr(C)] struct.
    unsafe { std::ptr::write(d.u.as_mut_ptr().cast::<T>(), v) }
}

/// Generic node parameters to the driver's. `ctx` fills the driver-only
/// context fields (memcpy, memset, conditional) with the runtime's
/// current context, as cudaGraphAddMemcpyNode etc. do.
pub fn node_params_to_driver(p: &cudaGraphNodeParams, ctx: CUcontext) -> CudaResult<CUgraphNodeParams> {
    let mut d = CUgraphNodeParams { r#type: p.r#type.0, reserved0: p.reserved0, u: [0; 29], reserved2: p.reserved2 };
    // SAFETY: each arm reads the member `type` names; the union is plain
    // data whatever the member.
    unsafe {
        match p.r#type {
            cudaGraphNodeTypeKernel => put(&mut d, kernel_to_driver(&p._u.kernel)?),
            cudaGraphNodeTypeMemcpy => {
                let m = &p._u.memcpy;
                put(
                    &mut d,
                    CUDA_MEMCPY_NODE_PARAMS {
                        flags: m.flags,
                        reserved: 0,
                        copyCtx: ctx,
                        copyParams: memcpy3d_to_driver(&m.copyParams)?,
                    },
                )
            }
            cudaGraphNodeTypeMemset => put(&mut d, memset_to_driver(&p._u.memset, ctx)),
            cudaGraphNodeTypeConditional => {
                let c = &p._u.conditional;
                put(
                    &mut d,
                    CUDA_CONDITIONAL_NODE_PARAMS {
                        handle: c.handle,
                        r#type: c.r#type.0,
                        size: c.size,
                        phGraph_out: c.phGraph_out,
                        ctx,
                    },
                )
            }
            // Identical layouts (and unknown types, which the driver rejects).
            _ => d.u = p._u.reserved1,
        }
    }
    Ok(d)
}

/// Copy what the driver wrote into generic node parameters back to the
/// program's struct: the allocation address of a mem-alloc node, the body
/// graphs of a conditional node.
pub fn node_params_writeback(d: &CUgraphNodeParams, p: &mut cudaGraphNodeParams) {
    match p.r#type {
        cudaGraphNodeTypeMemAlloc => p._u.reserved1 = d.u,
        cudaGraphNodeTypeConditional => {
            // SAFETY: the driver's union holds its conditional member.
            let c = unsafe { &*d.u.as_ptr().cast::<CUDA_CONDITIONAL_NODE_PARAMS>() };
            p._u.conditional.phGraph_out = c.phGraph_out;
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_copy_round_trips() {
        let mut a = [0u8; 16];
        let b = [1u8; 16];
        let p = memcpy_1d(a.as_mut_ptr().cast(), b.as_ptr().cast(), 16, cudaMemcpyHostToDevice);
        let c = memcpy3d_to_driver(&p).unwrap();
        assert_eq!(c.srcMemoryType, CU_MEMORYTYPE_HOST);
        assert_eq!(c.srcHost, b.as_ptr().cast());
        assert_eq!(c.dstMemoryType, CU_MEMORYTYPE_DEVICE);
        assert_eq!(c.dstDevice, a.as_ptr() as u64);
        assert_eq!((c.WidthInBytes, c.Height, c.Depth), (16, 1, 1));
        assert_eq!(memcpy3d_from_driver(&c).unwrap(), p);
        let d = memcpy3d_to_driver(&cudaMemcpy3DParms { kind: cudaMemcpyDefault, ..p }).unwrap();
        assert_eq!((d.srcMemoryType, d.dstMemoryType), (CU_MEMORYTYPE_UNIFIED, CU_MEMORYTYPE_UNIFIED));
        assert_eq!(d.srcDevice, b.as_ptr() as u64);
    }

    #[test]
    fn bad_kind_and_both_sides_are_rejected() {
        let p = memcpy_1d(8 as *mut c_void, 16 as *const c_void, 4, cudaMemcpyKind(7));
        assert_eq!(memcpy3d_to_driver(&p).unwrap_err(), cudaErrorInvalidMemcpyDirection);
        let q = cudaMemcpy3DParms { srcArray: 32 as cudaArray_t, ..memcpy_1d(8 as *mut c_void, 16 as *const c_void, 4, cudaMemcpyDefault) };
        assert_eq!(memcpy3d_to_driver(&q).unwrap_err(), cudaErrorInvalidValue);
    }
}
