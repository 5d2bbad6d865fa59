//! CUDA arrays and mipmapped arrays over the fake driver: creation and
//! queries, copies to, from and between arrays (2D, 3D, and the deprecated
//! linear forms that wrap across rows), and NVIDIA's codes for bad input.

mod common;
use common::*;
use cudart_shim::api::device::cudaDeviceSynchronize;
use cudart_shim::api::memory::*;
use cudart_shim::types::*;
use std::ffi::{c_uint, c_void};
use std::ptr::{null, null_mut};

fn desc(bits: i32, n: usize, f: cudaChannelFormatKind) -> cudaChannelFormatDesc {
    let c = |i: usize| if i < n { bits } else { 0 };
    cudaChannelFormatDesc { x: c(0), y: c(1), z: c(2), w: c(3), f }
}

fn uchar() -> cudaChannelFormatDesc {
    desc(8, 1, cudaChannelFormatKindUnsigned)
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(13).wrapping_add(seed)).collect()
}

fn array(d: &cudaChannelFormatDesc, w: usize, h: usize) -> cudaArray_t {
    let mut a = null_mut();
    assert_eq!(unsafe { cudaMallocArray(&mut a, d, w, h, 0) }, cudaSuccess);
    a
}

/// The whole of a 2D array of `row` bytes x `h` rows, read with cudaMemcpy2DFromArray.
fn dump(a: cudaArray_t, row: usize, h: usize) -> Vec<u8> {
    let mut v = vec![0u8; row * h];
    assert_eq!(
        unsafe { cudaMemcpy2DFromArray(v.as_mut_ptr().cast(), row, a, 0, 0, row, h, cudaMemcpyDeviceToHost) },
        cudaSuccess
    );
    v
}

#[test]
fn create_query_and_free() {
    use_fake_driver(&[]);
    unsafe {
        let f4 = desc(32, 4, cudaChannelFormatKindFloat);
        let a = array(&f4, 16, 8);
        let (mut d, mut e, mut fl) = (cudaChannelFormatDesc::default(), cudaExtent::default(), 99 as c_uint);
        assert_eq!(cudaArrayGetInfo(&mut d, &mut e, &mut fl, a), cudaSuccess);
        assert_eq!(d, f4);
        assert_eq!(e, cudaExtent { width: 16, height: 8, depth: 0 });
        assert_eq!(fl, 0);
        // Every out-parameter is optional.
        assert_eq!(cudaArrayGetInfo(null_mut(), &mut e, null_mut(), a), cudaSuccess);
        assert_eq!(cudaFreeArray(a), cudaSuccess);
        assert_eq!(cudaFreeArray(a), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaFreeArray(null_mut()), cudaSuccess);
        assert_eq!(cudaArrayGetInfo(&mut d, &mut e, &mut fl, null_mut()), cudaErrorInvalidResourceHandle);

        // 1D, 3D and layered arrays.
        let a1 = array(&desc(16, 2, cudaChannelFormatKindSigned), 100, 0);
        assert_eq!(cudaArrayGetInfo(&mut d, &mut e, &mut fl, a1), cudaSuccess);
        assert_eq!((e.width, e.height, e.depth, d.x, d.y, d.z), (100, 0, 0, 16, 16, 0));
        let mut a3 = null_mut();
        let ext = cudaExtent { width: 4, height: 4, depth: 6 };
        assert_eq!(cudaMalloc3DArray(&mut a3, &uchar(), ext, cudaArrayLayered | cudaArraySurfaceLoadStore), cudaSuccess);
        assert_eq!(cudaArrayGetInfo(&mut d, &mut e, &mut fl, a3), cudaSuccess);
        assert_eq!((e, fl), (ext, cudaArrayLayered | cudaArraySurfaceLoadStore));
        assert_eq!(fake::calls("cuArray3DCreate"), 3);

        // Bad channel descriptors, NULL arguments, zero width.
        let mut x = null_mut();
        assert_eq!(cudaMallocArray(&mut x, &desc(8, 3, cudaChannelFormatKindUnsigned), 4, 4, 0), cudaErrorInvalidChannelDescriptor);
        assert_eq!(cudaMallocArray(&mut x, &desc(12, 1, cudaChannelFormatKindUnsigned), 4, 4, 0), cudaErrorInvalidChannelDescriptor);
        assert_eq!(cudaMallocArray(&mut x, &desc(8, 1, cudaChannelFormatKind(99)), 4, 4, 0), cudaErrorInvalidChannelDescriptor);
        assert_eq!(cudaMallocArray(&mut x, null(), 4, 4, 0), cudaErrorInvalidValue);
        assert_eq!(cudaMallocArray(null_mut(), &uchar(), 4, 4, 0), cudaErrorInvalidValue);
        assert_eq!(cudaMallocArray(&mut x, &uchar(), 0, 4, 0), cudaErrorInvalidValue);
        assert_eq!(cudaMalloc3DArray(&mut x, &uchar(), cudaExtent { width: 4, height: 0, depth: 2 }, 0), cudaErrorInvalidValue);
        // No planes in a plain array.
        assert_eq!(cudaArrayGetPlane(&mut x, a3, 0), cudaErrorInvalidValue);
        assert_eq!(cudaArrayGetPlane(&mut x, null_mut(), 0), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaFreeArray(a3), cudaSuccess);
    }
}

#[test]
fn memory_requirements_and_sparse_properties() {
    use_fake_driver(&[]);
    unsafe {
        let mut deferred = null_mut();
        let ext = cudaExtent { width: 64, height: 64, depth: 0 };
        assert_eq!(cudaMalloc3DArray(&mut deferred, &uchar(), ext, cudaArrayDeferredMapping), cudaSuccess);
        let mut r = cudaArrayMemoryRequirements::default();
        assert_eq!(cudaArrayGetMemoryRequirements(&mut r, deferred, 0), cudaSuccess);
        assert!(r.size >= 64 * 64 && r.alignment > 0);
        // A bad device number is an invalid value here (NVIDIA, H100, CUDA 13.0).
        assert_eq!(cudaArrayGetMemoryRequirements(&mut r, deferred, 5), cudaErrorInvalidValue);
        assert_eq!(cudaArrayGetMemoryRequirements(null_mut(), deferred, 0), cudaErrorInvalidValue);
        let plain = array(&uchar(), 8, 8);
        assert_eq!(cudaArrayGetMemoryRequirements(&mut r, plain, 0), cudaErrorInvalidValue);

        let mut sp = null_mut();
        assert_eq!(cudaMalloc3DArray(&mut sp, &uchar(), ext, cudaArraySparse), cudaSuccess);
        let mut props = cudaArraySparseProperties::default();
        assert_eq!(cudaArrayGetSparseProperties(&mut props, sp), cudaSuccess);
        assert!(props.tileExtent.width > 0);
        assert_eq!(cudaArrayGetSparseProperties(&mut props, plain), cudaErrorInvalidValue);

        let mut m = null_mut();
        assert_eq!(cudaMallocMipmappedArray(&mut m, &uchar(), ext, 3, cudaArraySparse | cudaArrayDeferredMapping), cudaSuccess);
        assert_eq!(cudaMipmappedArrayGetSparseProperties(&mut props, m), cudaSuccess);
        assert_eq!(cudaMipmappedArrayGetMemoryRequirements(&mut r, m, 0), cudaSuccess);
        // NULL handles are invalid values here (NVIDIA, H100, CUDA 13.0).
        assert_eq!(cudaMipmappedArrayGetMemoryRequirements(&mut r, null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaMipmappedArrayGetSparseProperties(&mut props, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaFreeMipmappedArray(m), cudaSuccess);
    }
}

#[test]
fn mipmapped_arrays_and_levels() {
    use_fake_driver(&[]);
    unsafe {
        let mut m = null_mut();
        let ext = cudaExtent { width: 32, height: 16, depth: 0 };
        assert_eq!(cudaMallocMipmappedArray(&mut m, &uchar(), ext, 4, 0), cudaSuccess);
        let mut e = cudaExtent::default();
        for (level, w, h) in [(0, 32, 16), (1, 16, 8), (3, 4, 2)] {
            let mut a = null_mut();
            assert_eq!(cudaGetMipmappedArrayLevel(&mut a, m, level), cudaSuccess);
            assert_eq!(cudaArrayGetInfo(null_mut(), &mut e, null_mut(), a), cudaSuccess);
            assert_eq!((e.width, e.height), (w, h), "level {level}");
        }
        let mut a = null_mut();
        assert_eq!(cudaGetMipmappedArrayLevel(&mut a, m, 4), cudaErrorInvalidValue);
        assert_eq!(cudaGetMipmappedArrayLevel(&mut a, null(), 0), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaGetMipmappedArrayLevel(null_mut(), m, 0), cudaErrorInvalidValue);
        // Level 1 holds bytes.
        assert_eq!(cudaGetMipmappedArrayLevel(&mut a, m, 1), cudaSuccess);
        let src = pattern(16 * 8, 4);
        assert_eq!(cudaMemcpy2DToArray(a, 0, 0, src.as_ptr().cast(), 16, 16, 8, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(dump(a, 16, 8), src);
        assert_eq!(cudaFreeMipmappedArray(m), cudaSuccess);
        assert_eq!(cudaFreeMipmappedArray(m), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaFreeMipmappedArray(null_mut()), cudaSuccess);
        assert_eq!(cudaMallocMipmappedArray(&mut m, &desc(8, 3, cudaChannelFormatKindSigned), ext, 2, 0), cudaErrorInvalidChannelDescriptor);
    }
}

#[test]
fn copies_2d_to_from_and_between_arrays() {
    use_fake_driver(&[]);
    unsafe {
        // uchar2 array 8 x 5: rows of 16 bytes.
        let a = array(&desc(8, 2, cudaChannelFormatKindUnsigned), 8, 5);
        let src = pattern(20 * 5, 9);
        // A 6-byte x 3-row box at byte offset 4, row 1, from a pitch-20 host matrix.
        assert_eq!(cudaMemcpy2DToArray(a, 4, 1, src.as_ptr().cast(), 20, 6, 3, cudaMemcpyHostToDevice), cudaSuccess);
        let all = dump(a, 16, 5);
        for y in 0..5 {
            for x in 0..16 {
                let want = if (1..4).contains(&y) && (4..10).contains(&x) { src[(y - 1) * 20 + x - 4] } else { 0 };
                assert_eq!(all[y * 16 + x], want, "({x},{y})");
            }
        }
        // From the array into device memory and back, async.
        let mut d = null_mut();
        assert_eq!(cudaMalloc(&mut d, 64), cudaSuccess);
        assert_eq!(cudaMemcpy2DFromArrayAsync(d, 8, a, 4, 1, 6, 3, cudaMemcpyDeviceToDevice, null_mut()), cudaSuccess);
        let mut back = vec![0u8; 24];
        assert_eq!(cudaMemcpy(back.as_mut_ptr().cast(), d, 24, cudaMemcpyDeviceToHost), cudaSuccess);
        for y in 0..3 {
            assert_eq!(&back[y * 8..y * 8 + 6], &src[y * 20..y * 20 + 6]);
        }
        assert_eq!(cudaMemcpy2DToArrayAsync(a, 0, 0, d, 8, 8, 3, cudaMemcpyDefault, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpy2DToArray_ptds(a, 0, 0, d, 8, 8, 3, cudaMemcpyDeviceToDevice), cudaSuccess);
        assert_eq!(cudaMemcpy2DToArrayAsync_ptsz(a, 0, 0, d, 8, 8, 3, cudaMemcpyDeviceToDevice, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpy2DFromArray_ptds(d, 8, a, 0, 0, 8, 3, cudaMemcpyDeviceToDevice), cudaSuccess);
        assert_eq!(cudaMemcpy2DFromArrayAsync_ptsz(d, 8, a, 0, 0, 8, 3, cudaMemcpyDeviceToDevice, null_mut()), cudaSuccess);

        // Array to array.
        let b = array(&desc(8, 2, cudaChannelFormatKindUnsigned), 8, 5);
        assert_eq!(cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, 16, 5, cudaMemcpyDeviceToDevice), cudaSuccess);
        assert_eq!(dump(b, 16, 5), dump(a, 16, 5));
        assert_eq!(cudaMemcpy2DArrayToArray_ptds(b, 2, 0, a, 0, 0, 14, 5, cudaMemcpyDefault), cudaSuccess);

        // Bad input: the box leaves the array, the array as a host end,
        // NULL array, pitch narrower than the width.
        assert_eq!(cudaMemcpy2DToArray(a, 12, 0, src.as_ptr().cast(), 20, 6, 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpy2DToArray(a, 0, 3, src.as_ptr().cast(), 20, 6, 3, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpy2DToArray(a, 0, 0, src.as_ptr().cast(), 20, 6, 3, cudaMemcpyDeviceToHost), cudaErrorInvalidMemcpyDirection);
        assert_eq!(cudaMemcpy2DFromArray(back.as_mut_ptr().cast(), 8, a, 0, 0, 6, 3, cudaMemcpyHostToDevice), cudaErrorInvalidMemcpyDirection);
        assert_eq!(cudaMemcpy2DToArray(null_mut(), 0, 0, src.as_ptr().cast(), 20, 6, 3, cudaMemcpyHostToDevice), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaMemcpy2DToArray(a, 0, 0, src.as_ptr().cast(), 4, 6, 3, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
        assert_eq!(cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, 16, 5, cudaMemcpyHostToHost), cudaErrorInvalidMemcpyDirection);
    }
}

#[test]
fn deprecated_linear_array_copies_wrap_across_rows() {
    use_fake_driver(&[]);
    unsafe {
        // 10-byte rows x 4.
        let a = array(&uchar(), 10, 4);
        let src = pattern(40, 2);
        // 23 bytes from (3, 1): 7 finish row 1, 10 fill row 2, 6 start row 3.
        assert_eq!(cudaMemcpyToArray(a, 3, 1, src.as_ptr().cast(), 23, cudaMemcpyHostToDevice), cudaSuccess);
        let all = dump(a, 10, 4);
        assert!(all[..13].iter().all(|&b| b == 0));
        assert_eq!(&all[13..36], &src[..23]);
        assert!(all[36..].iter().all(|&b| b == 0));
        let mut back = vec![0u8; 23];
        assert_eq!(cudaMemcpyFromArray(back.as_mut_ptr().cast(), a, 3, 1, 23, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_eq!(back, src[..23]);
        // Whole rows from the row start go in one 2D copy.
        let calls = fake::calls("cuMemcpy2D");
        assert_eq!(cudaMemcpyToArray(a, 0, 0, src.as_ptr().cast(), 40, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpy2D") - calls, 1);
        assert_eq!(dump(a, 10, 4), src);

        // Array to array with different row lengths (10 and 16 bytes).
        let b = array(&uchar(), 16, 3);
        assert_eq!(cudaMemcpyArrayToArray(b, 0, 0, a, 0, 0, 40, cudaMemcpyDeviceToDevice), cudaSuccess);
        assert_eq!(&dump(b, 16, 3)[..40], &src[..]);
        assert_eq!(cudaMemcpyArrayToArray_ptds(b, 4, 1, a, 0, 0, 12, cudaMemcpyDefault), cudaSuccess);
        assert_eq!(&dump(b, 16, 3)[20..32], &src[..12]);

        // Async and per-thread forms.
        assert_eq!(cudaMemcpyToArrayAsync(a, 0, 2, src.as_ptr().cast(), 5, cudaMemcpyHostToDevice, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpyToArrayAsync_ptsz(a, 0, 2, src.as_ptr().cast(), 5, cudaMemcpyHostToDevice, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpyToArray_ptds(a, 0, 2, src.as_ptr().cast(), 5, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(cudaMemcpyFromArrayAsync(back.as_mut_ptr().cast(), a, 0, 2, 5, cudaMemcpyDeviceToHost, null_mut()), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(&back[..5], &src[..5]);
        assert_eq!(cudaMemcpyFromArrayAsync_ptsz(back.as_mut_ptr().cast(), a, 0, 2, 5, cudaMemcpyDeviceToHost, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpyFromArray_ptds(back.as_mut_ptr().cast(), a, 0, 2, 5, cudaMemcpyDeviceToHost), cudaSuccess);

        // Past the end of the array; an offset beyond the row; wrong kind.
        assert_eq!(cudaMemcpyToArray(a, 0, 3, src.as_ptr().cast(), 11, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpyToArray(a, 10, 0, src.as_ptr().cast(), 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpyFromArray(back.as_mut_ptr().cast(), a, 0, 0, 5, cudaMemcpyHostToHost), cudaErrorInvalidMemcpyDirection);
        assert_eq!(cudaMemcpyToArray(null_mut(), 0, 0, src.as_ptr().cast(), 5, cudaMemcpyHostToDevice), cudaErrorInvalidResourceHandle);
        // Zero bytes is a no-op.
        assert_eq!(cudaMemcpyToArray(a, 0, 0, src.as_ptr().cast(), 0, cudaMemcpyHostToDevice), cudaSuccess);
    }
}

fn parms() -> cudaMemcpy3DParms {
    cudaMemcpy3DParms {
        srcArray: null_mut(),
        srcPos: cudaPos::default(),
        srcPtr: cudaPitchedPtr::default(),
        dstArray: null_mut(),
        dstPos: cudaPos::default(),
        dstPtr: cudaPitchedPtr::default(),
        extent: cudaExtent::default(),
        kind: cudaMemcpyHostToDevice,
    }
}

#[test]
fn copies_3d_with_arrays_count_elements() {
    use_fake_driver(&[]);
    unsafe {
        // float2 (8-byte elements) 5 x 4 x 3 array.
        let mut a = null_mut();
        let ext = cudaExtent { width: 5, height: 4, depth: 3 };
        assert_eq!(cudaMalloc3DArray(&mut a, &desc(32, 2, cudaChannelFormatKindFloat), ext, 0), cudaSuccess);
        let host = pattern(40 * 4 * 3, 6);
        let mut p = parms();
        p.srcPtr = cudaPitchedPtr { ptr: host.as_ptr() as *mut c_void, pitch: 40, xsize: 40, ysize: 4 };
        p.dstArray = a;
        p.extent = ext;
        assert_eq!(cudaMemcpy3D(&p), cudaSuccess);
        // Read back a 2 x 2 x 2 element box at element (3, 2, 1).
        let mut back = vec![0u8; 16 * 2 * 2];
        let mut q = parms();
        q.kind = cudaMemcpyDeviceToHost;
        q.srcArray = a;
        q.srcPos = cudaPos { x: 3, y: 2, z: 1 };
        q.dstPtr = cudaPitchedPtr { ptr: back.as_mut_ptr().cast(), pitch: 16, xsize: 16, ysize: 2 };
        q.extent = cudaExtent { width: 2, height: 2, depth: 2 };
        assert_eq!(cudaMemcpy3D(&q), cudaSuccess);
        for z in 0..2 {
            for y in 0..2 {
                let s = (1 + z) * 160 + (2 + y) * 40 + 3 * 8;
                assert_eq!(&back[(z * 2 + y) * 16..(z * 2 + y) * 16 + 16], &host[s..s + 16], "row {y} slice {z}");
            }
        }
        // Array to array.
        let mut b = null_mut();
        assert_eq!(cudaMalloc3DArray(&mut b, &desc(32, 2, cudaChannelFormatKindFloat), ext, 0), cudaSuccess);
        let mut r = parms();
        r.kind = cudaMemcpyDeviceToDevice;
        r.srcArray = a;
        r.dstArray = b;
        r.extent = ext;
        assert_eq!(cudaMemcpy3D(&r), cudaSuccess);
        q.srcArray = b;
        let mut again = vec![0u8; back.len()];
        q.dstPtr.ptr = again.as_mut_ptr().cast();
        assert_eq!(cudaMemcpy3D(&q), cudaSuccess);
        assert_eq!(again, back);
        // One element too far; host-to-host into an array.
        q.srcPos.x = 4;
        assert_eq!(cudaMemcpy3D(&q), cudaErrorInvalidValue);
        p.kind = cudaMemcpyHostToHost;
        // An array on the host side of the kind: invalid value in 3D copies (NVIDIA, H100, CUDA 13.0).
        assert_eq!(cudaMemcpy3D(&p), cudaErrorInvalidValue);
        // The 3D batch with an array operand (offset in elements).
        let mut d = null_mut();
        assert_eq!(cudaMalloc(&mut d, 16), cudaSuccess);
        let op = cudaMemcpy3DBatchOp {
            src: cudaMemcpy3DOperand {
                r#type: cudaMemcpyOperandTypeArray,
                op: cudaMemcpy3DOperandOp { array: cudaMemcpy3DOperandArray { array: a, offset: cudaOffset3D { x: 3, y: 2, z: 1 } } },
            },
            dst: cudaMemcpy3DOperand {
                r#type: cudaMemcpyOperandTypePointer,
                op: cudaMemcpy3DOperandOp {
                    ptr: cudaMemcpy3DOperandPtr { ptr: d, rowLength: 0, layerHeight: 0, locHint: cudaMemLocation::default() },
                },
            },
            extent: cudaExtent { width: 2, height: 1, depth: 1 },
            srcAccessOrder: cudaMemcpySrcAccessOrderStream,
            flags: 0,
        };
        let mut ops = [op];
        assert_eq!(cudaMemcpy3DBatchAsync(1, ops.as_mut_ptr(), 0, 2 as cudaStream_t), cudaSuccess);
        let mut got = [0u8; 16];
        assert_eq!(cudaMemcpy(got.as_mut_ptr().cast(), d, 16, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_eq!(&got[..], &back[..16]);
    }
}
