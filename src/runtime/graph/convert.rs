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

pub use crate::runtime::memory::copy::params_3d as memcpy3d_to_driver;

/// Bytes per element of a CUDA array.
fn element_size(array: cudaArray_t) -> CudaResult<usize> {
    use crate::runtime::memory::array::{describe, element_size};
    Ok(element_size(&describe(array)?))
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
    kernel_v2_to_driver(&cudaKernelNodeParamsV2::from_v1(p))
}

/// CUDA 13.5's kernel node parameters: `functionType` says whether `func`
/// is a host stub (or unspecified), a `cudaKernel_t` or a `CUfunction`;
/// `ctx` names the context (NULL: the current one).
pub fn kernel_v2_to_driver(p: &cudaKernelNodeParamsV2) -> CudaResult<CUDA_KERNEL_NODE_PARAMS> {
    // A kernel goes in `kern` (context-independent; the driver picks the
    // context's function); a driver function handle in `func`, as is.
    let (func, kern) = match p.functionType {
        cudaKernelFunctionTypeFunction => (p.func.cast(), null_mut()),
        cudaKernelFunctionTypeKernel => (null_mut(), p.func.cast()),
        _ => (null_mut(), kernel_for(p.func)?),
    };
    Ok(CUDA_KERNEL_NODE_PARAMS {
        func,
        gridDimX: p.gridDim.x,
        gridDimY: p.gridDim.y,
        gridDimZ: p.gridDim.z,
        blockDimX: p.blockDim.x,
        blockDimY: p.blockDim.y,
        blockDimZ: p.blockDim.z,
        sharedMemBytes: p.sharedMemBytes,
        kernelParams: p.kernelParams,
        extra: p.extra,
        kern,
        ctx: p.ctx.cast(),
    })
}

/// The driver's kernel node parameters as the runtime reports them (`func`
/// back to the host stub the program registered).
pub fn kernel_from_driver(k: &CUDA_KERNEL_NODE_PARAMS) -> cudaKernelNodeParams {
    let kern = if k.kern.is_null() { k.func as crate::driver::CUkernel } else { k.kern };
    cudaKernelNodeParams {
        func: stub_for(kern),
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
            cudaGraphNodeTypeKernel => put(&mut d, kernel_v2_to_driver(&p._u.kernel)?),
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
                        // CUDA 13.5 names the context in the node (NULL:
                        // the current one, as before).
                        ctx: if c.ctx.is_null() { ctx } else { c.ctx.cast() },
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

/// Read a `T` from the union words of driver node parameters.
fn get<T: Copy>(d: &CUgraphNodeParams) -> T {
    const { assert!(size_of::<T>() <= size_of::<[i64; 29]>()) };
    // SAFETY: as in `put`; every bit pattern of these plain structs is a
    // value (pointers and integers).
    unsafe { std::ptr::read(d.u.as_ptr().cast::<T>()) }
}

/// Driver node parameters in the runtime's form (CUDA 13.5: what a
/// recapture callback receives): kernels back to host stubs, 3D copies back
/// to `cudaMemcpy3DParms`; identical layouts copied.
pub fn node_params_from_driver(d: &CUgraphNodeParams) -> CudaResult<cudaGraphNodeParams> {
    let t = cudaGraphNodeType(d.r#type);
    let mut p = cudaGraphNodeParams::zeroed(t);
    p.reserved0 = d.reserved0;
    p.reserved2 = d.reserved2;
    match t {
        cudaGraphNodeTypeKernel => {
            let k: CUDA_KERNEL_NODE_PARAMS = get(d);
            let mut v = cudaKernelNodeParamsV2::from_v1(&kernel_from_driver(&k));
            v.ctx = k.ctx.cast();
            p._u.kernel = v;
        }
        cudaGraphNodeTypeMemcpy => {
            let m: CUDA_MEMCPY_NODE_PARAMS = get(d);
            p._u.memcpy = cudaMemcpyNodeParams { flags: m.flags, reserved: [0; 3], copyParams: memcpy3d_from_driver(&m.copyParams)? };
        }
        cudaGraphNodeTypeMemset => p._u.memset = memset_from_driver(&get(d)),
        cudaGraphNodeTypeConditional => {
            let c: CUDA_CONDITIONAL_NODE_PARAMS = get(d);
            p._u.conditional = cudaConditionalNodeParams {
                handle: c.handle,
                r#type: cudaGraphConditionalNodeType(c.r#type),
                size: c.size,
                phGraph_out: c.phGraph_out,
                ctx: c.ctx.cast(),
            };
        }
        _ => p._u.reserved1 = d.u,
    }
    Ok(p)
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
