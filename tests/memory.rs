//! Memory management over the fake driver, in process: allocation, copies
//! in every form (bytes really move, the right driver call for each kind),
//! sets, and NVIDIA's codes for bad input. One process per test (nextest).

mod common;
use common::*;
use cudart_shim::api::device::cudaDeviceSynchronize;
use cudart_shim::api::error::*;
use cudart_shim::api::memory::*;
use cudart_shim::types::*;
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::{null, null_mut};

fn fake_kind(p: *const c_void) -> c_int {
    let lib = unsafe { libloading::Library::new(fake_driver()) }.unwrap();
    let f: libloading::Symbol<unsafe extern "C" fn(*const c_void) -> c_int> =
        unsafe { lib.get(b"fake_cuda_mem_kind\0") }.unwrap();
    let k = unsafe { f(p) };
    std::mem::forget(lib);
    k
}

fn dev_alloc(n: usize) -> *mut c_void {
    let mut p = null_mut();
    assert_eq!(unsafe { cudaMalloc(&mut p, n) }, cudaSuccess);
    assert!(!p.is_null());
    p
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

/// Copy `n` device bytes back to the host (through the shim).
fn read(p: *const c_void, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    assert_eq!(unsafe { cudaMemcpy(v.as_mut_ptr().cast(), p, n, cudaMemcpyDeviceToHost) }, cudaSuccess);
    v
}

fn write(p: *mut c_void, bytes: &[u8]) {
    assert_eq!(unsafe { cudaMemcpy(p, bytes.as_ptr().cast(), bytes.len(), cudaMemcpyHostToDevice) }, cudaSuccess);
}

#[test]
fn malloc_and_free() {
    use_fake_driver(&[]);
    unsafe {
        let p = dev_alloc(64);
        assert_eq!(fake_kind(p), 1);
        assert_eq!(fake::calls("cuMemAlloc"), 1);
        assert_eq!(cudaFree(p), cudaSuccess);
        assert_eq!(fake_kind(p), 0);
        // Double free and unknown pointers: the driver's invalid value.
        assert_eq!(cudaFree(p), cudaErrorInvalidValue);
        let mut local = 0u64;
        assert_eq!(cudaFree((&raw mut local).cast()), cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidValue);
        // NULL is fine and reaches no driver free.
        let frees = fake::calls("cuMemFree");
        assert_eq!(cudaFree(null_mut()), cudaSuccess);
        assert_eq!(fake::calls("cuMemFree"), frees);
        // NULL out-pointer, size 0 (NULL, no driver call), huge size.
        assert_eq!(cudaMalloc(null_mut(), 16), cudaErrorInvalidValue);
        let mut q = std::ptr::dangling_mut::<c_void>();
        assert_eq!(cudaMalloc(&mut q, 0), cudaSuccess);
        assert!(q.is_null());
        assert_eq!(fake::calls("cuMemAlloc"), 1);
        assert_eq!(cudaMalloc(&mut q, 1 << 50), cudaErrorMemoryAllocation);
        assert_eq!(cudaGetLastError(), cudaErrorMemoryAllocation);
    }
}

#[test]
fn free_null_initializes_the_context() {
    use_fake_driver(&[]);
    assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 0);
    assert_eq!(unsafe { cudaFree(null_mut()) }, cudaSuccess);
    assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 1);
}

#[test]
fn injected_out_of_memory_is_reported_and_recorded() {
    use_fake_driver(&[]);
    fake::fail("cuMemAlloc", 0, 2);
    let mut p = null_mut();
    unsafe {
        assert_eq!(cudaMalloc(&mut p, 128), cudaErrorMemoryAllocation);
        assert_eq!(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
    }
}

#[test]
fn mem_get_info_tracks_allocations() {
    use_fake_driver(&[]);
    let (mut f0, mut t) = (0, 0);
    unsafe {
        assert_eq!(cudaMemGetInfo(&mut f0, &mut t), cudaSuccess);
        assert!(t > 0 && f0 <= t);
        let p = dev_alloc(1 << 20);
        let mut f1 = 0;
        assert_eq!(cudaMemGetInfo(&mut f1, &mut t), cudaSuccess);
        assert_eq!(f0 - f1, 1 << 20);
        cudaFree(p);
        // Either out-parameter may be NULL: NVIDIA's runtime answers
        // cudaSuccess and writes the other (H100, driver 580:
        // tests/data/bad_input_gpu.tsv, cudaMemGetInfo#free=NULL / #total=NULL).
        let (mut f2, mut t2) = (0usize, 0usize);
        assert_eq!(cudaMemGetInfo(null_mut(), &mut t2), cudaSuccess);
        assert_eq!(t2, t);
        assert_eq!(cudaMemGetInfo(&mut f2, null_mut()), cudaSuccess);
        assert_eq!(f2, f0);
        assert_eq!(cudaMemGetInfo(null_mut(), null_mut()), cudaSuccess);
    }
}

#[test]
fn memcpy_every_kind_moves_bytes_through_the_matching_driver_call() {
    use_fake_driver(&[]);
    let n = 300;
    let src = pattern(n, 7);
    let (a, b) = (dev_alloc(n), dev_alloc(n));
    let mut back = vec![0u8; n];
    let mut host2 = vec![0u8; n];
    unsafe {
        assert_eq!(cudaMemcpy(a, src.as_ptr().cast(), n, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice), cudaSuccess);
        assert_eq!(cudaMemcpy(back.as_mut_ptr().cast(), b, n, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_eq!(back, src);
        assert_eq!(cudaMemcpy(host2.as_mut_ptr().cast(), back.as_ptr().cast(), n, cudaMemcpyHostToHost), cudaSuccess);
        assert_eq!(host2, src);
        // Default infers from unified addressing: host->device, device->host.
        let other = pattern(n, 99);
        assert_eq!(cudaMemcpy(a, other.as_ptr().cast(), n, cudaMemcpyDefault), cudaSuccess);
        assert_eq!(cudaMemcpy(back.as_mut_ptr().cast(), a, n, cudaMemcpyDefault), cudaSuccess);
        assert_eq!(back, other);
    }
    assert_eq!(fake::calls("cuMemcpyHtoD"), 1);
    assert_eq!(fake::calls("cuMemcpyDtoD"), 1);
    assert_eq!(fake::calls("cuMemcpyDtoH"), 1);
    assert_eq!(fake::calls("cuMemcpy"), 3, "host-to-host and both default copies use the unified copy");
}

#[test]
fn memcpy_bad_kind_direction_and_pointers() {
    use_fake_driver(&[]);
    let n = 32;
    let d = dev_alloc(n);
    let mut h = vec![0u8; n];
    unsafe {
        // Not a cudaMemcpyKind: no driver call at all.
        let before = fake::calls("cuMemcpy");
        assert_eq!(cudaMemcpy(d, h.as_ptr().cast(), n, cudaMemcpyKind(7)), cudaErrorInvalidMemcpyDirection);
        assert_eq!(cudaMemcpy(d, h.as_ptr().cast(), n, cudaMemcpyKind(-1)), cudaErrorInvalidMemcpyDirection);
        assert_eq!(fake::calls("cuMemcpy"), before);
        // The wrong direction: the device destination named as the host source.
        assert_eq!(cudaMemcpy(h.as_mut_ptr().cast(), d, n, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        // Out of range of the allocation.
        assert_eq!(cudaMemcpy(d, h.as_ptr().cast(), n + 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpy(null_mut(), h.as_ptr().cast(), n, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        // Zero bytes: success without a driver call.
        let htod = fake::calls("cuMemcpyHtoD");
        assert_eq!(cudaMemcpy(null_mut(), null(), 0, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpyHtoD"), htod);
        assert_eq!(cudaMemcpyAsync(d, h.as_ptr().cast(), n, cudaMemcpyKind(5), null_mut()), cudaErrorInvalidMemcpyDirection);
    }
}

#[test]
fn memcpy_async_and_per_thread_twins() {
    use_fake_driver(&[]);
    let n = 100;
    let src = pattern(n, 3);
    let d = dev_alloc(n);
    let mut back = vec![0u8; n];
    unsafe {
        assert_eq!(cudaMemcpyAsync(d, src.as_ptr().cast(), n, cudaMemcpyHostToDevice, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpyAsync_ptsz(back.as_mut_ptr().cast(), d, n, cudaMemcpyDeviceToHost, null_mut()), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(back, src);
        assert_eq!(cudaMemcpyAsync(d, d, n, cudaMemcpyDeviceToDevice, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpyAsync(back.as_mut_ptr().cast(), d, n, cudaMemcpyDefault, null_mut()), cudaSuccess);
        back.fill(0);
        assert_eq!(cudaMemcpy_ptds(back.as_mut_ptr().cast(), d, n, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_eq!(back, src);
    }
    assert_eq!(fake::calls("cuMemcpyHtoDAsync"), 1);
    assert_eq!(fake::calls("cuMemcpyDtoHAsync"), 1);
    assert_eq!(fake::calls("cuMemcpyDtoDAsync"), 1);
    assert_eq!(fake::calls("cuMemcpyAsync"), 1);
    assert_eq!(fake::calls("cuMemcpyDtoH"), 1);
    assert_eq!(fake::calls("cuMemcpyHtoD"), 0);
}

#[test]
fn malloc_pitch_and_3d() {
    use_fake_driver(&[]);
    let (mut p, mut pitch) = (null_mut(), 0usize);
    unsafe {
        assert_eq!(cudaMallocPitch(&mut p, &mut pitch, 100, 7), cudaSuccess);
        assert!(pitch >= 100 && fake_kind(p) == 1);
        assert_eq!(cudaMallocPitch(&mut p, null_mut(), 100, 7), cudaErrorInvalidValue);
        let mut pp = cudaPitchedPtr::default();
        let e = cudaExtent { width: 40, height: 5, depth: 3 };
        assert_eq!(cudaMalloc3D(&mut pp, e), cudaSuccess);
        assert!(pp.pitch >= 40);
        assert_eq!((pp.xsize, pp.ysize), (40, 5));
        // The whole volume is addressable.
        write(pp.ptr, &vec![1u8; pp.pitch * 5 * 3]);
        assert_eq!(cudaMalloc3D(null_mut(), e), cudaErrorInvalidValue);
    }
}

#[test]
fn memcpy_2d_honours_pitches() {
    use_fake_driver(&[]);
    let (w, h, spitch) = (10usize, 4usize, 16usize);
    let src = pattern(spitch * h, 1);
    let (mut d, mut dpitch) = (null_mut(), 0usize);
    unsafe {
        assert_eq!(cudaMallocPitch(&mut d, &mut dpitch, w, h), cudaSuccess);
        assert_eq!(cudaMemset(d, 0xEE, dpitch * h), cudaSuccess);
        assert_eq!(cudaMemcpy2D(d, dpitch, src.as_ptr().cast(), spitch, w, h, cudaMemcpyHostToDevice), cudaSuccess);
        let all = read(d, dpitch * h);
        for y in 0..h {
            assert_eq!(&all[y * dpitch..y * dpitch + w], &src[y * spitch..y * spitch + w], "row {y}");
            assert!(all[y * dpitch + w..(y + 1) * dpitch].iter().all(|&b| b == 0xEE), "padding of row {y} untouched");
        }
        // Back with another pitch, async and through the per-thread twin.
        let mut back = vec![0u8; 12 * h];
        assert_eq!(cudaMemcpy2DAsync(back.as_mut_ptr().cast(), 12, d, dpitch, w, h, cudaMemcpyDeviceToHost, null_mut()), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        for y in 0..h {
            assert_eq!(&back[y * 12..y * 12 + w], &src[y * spitch..y * spitch + w]);
        }
        assert_eq!(cudaMemcpy2D_ptds(back.as_mut_ptr().cast(), 12, d, dpitch, w, h, cudaMemcpyDefault), cudaSuccess);
        assert_eq!(cudaMemcpy2DAsync_ptsz(back.as_mut_ptr().cast(), 12, d, dpitch, w, h, cudaMemcpyDefault, null_mut()), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpy2D"), 2);
        assert_eq!(fake::calls("cuMemcpy2DAsync"), 2);
        // Width wider than a pitch; rows beyond the allocation; bad kind.
        assert_eq!(cudaMemcpy2D(d, dpitch, src.as_ptr().cast(), 8, w, h, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
        assert_eq!(cudaMemcpy2D(d, dpitch, src.as_ptr().cast(), spitch, w, h + 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpy2D(d, dpitch, src.as_ptr().cast(), spitch, w, h, cudaMemcpyKind(9)), cudaErrorInvalidMemcpyDirection);
        // Empty copies succeed without a driver call.
        assert_eq!(cudaMemcpy2D(d, dpitch, src.as_ptr().cast(), spitch, 0, h, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpy2D"), 3);
        assert_eq!(fake::calls("cuMemcpy2DUnaligned"), 1, "the out-of-range copy was retried unaligned, and failed");
        // A pitch the driver's aligned path refuses: retried unaligned.
        fake::fail("cuMemcpy2D", 1, 1);
        back.fill(0);
        assert_eq!(cudaMemcpy2D(back.as_mut_ptr().cast(), 12, d, dpitch, w, h, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpy2DUnaligned"), 2);
        for y in 0..h {
            assert_eq!(&back[y * 12..y * 12 + w], &src[y * spitch..y * spitch + w]);
        }
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
fn memcpy_3d_with_offsets_and_slice_heights() {
    use_fake_driver(&[]);
    // Host volume 8 x 6 rows x 4 slices; copy a 5 x 3 x 2 box from (1,2,1)
    // to (2,1,1) of a device volume.
    let (hw, hh, hd) = (8usize, 6usize, 4usize);
    let host = pattern(hw * hh * hd, 11);
    let mut dev = cudaPitchedPtr::default();
    unsafe {
        assert_eq!(cudaMalloc3D(&mut dev, cudaExtent { width: 16, height: 5, depth: 4 }), cudaSuccess);
        assert_eq!(cudaMemset(dev.ptr, 0, dev.pitch * 5 * 4), cudaSuccess);
        let mut p = parms();
        p.srcPtr = cudaPitchedPtr { ptr: host.as_ptr() as *mut c_void, pitch: hw, xsize: hw, ysize: hh };
        p.srcPos = cudaPos { x: 1, y: 2, z: 1 };
        p.dstPtr = dev;
        p.dstPos = cudaPos { x: 2, y: 1, z: 1 };
        p.extent = cudaExtent { width: 5, height: 3, depth: 2 };
        assert_eq!(cudaMemcpy3D(&p), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpy3D"), 1);
        let all = read(dev.ptr, dev.pitch * 5 * 4);
        for z in 0..2 {
            for y in 0..3 {
                for x in 0..5 {
                    let d = all[(1 + z) * dev.pitch * 5 + (1 + y) * dev.pitch + 2 + x];
                    let s = host[(1 + z) * hw * hh + (2 + y) * hw + 1 + x];
                    assert_eq!(d, s, "({x},{y},{z})");
                }
            }
        }
        // Bytes outside the box stay zero.
        assert_eq!(all[0], 0);
        assert!(all.iter().filter(|&&b| b != 0).count() <= 30);

        // Back to the host, async (with the per-thread twin too).
        let mut back = vec![0u8; 5 * 3 * 2];
        let mut q = parms();
        q.kind = cudaMemcpyDeviceToHost;
        q.srcPtr = dev;
        q.srcPos = cudaPos { x: 2, y: 1, z: 1 };
        q.dstPtr = cudaPitchedPtr { ptr: back.as_mut_ptr().cast(), pitch: 5, xsize: 5, ysize: 3 };
        q.extent = p.extent;
        assert_eq!(cudaMemcpy3DAsync(&q, null_mut()), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(back[0], host[hw * hh + 2 * hw + 1]);
        assert_eq!(cudaMemcpy3DAsync_ptsz(&q, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpy3D_ptds(&q), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpy3DAsync"), 2);

        // Both a pointer and an array, or neither, is invalid.
        let mut bad = q;
        bad.srcArray = 8 as cudaArray_t;
        assert_eq!(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
        let mut bad = q;
        bad.srcPtr.ptr = null_mut();
        assert_eq!(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
        // A box that leaves the source slice (y + height > ysize).
        let mut bad = p;
        bad.srcPos.y = 4;
        assert_eq!(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
        // Extent wider than the pitch.
        let mut bad = p;
        bad.extent.width = 9;
        bad.srcPos.x = 0;
        assert_eq!(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
        let mut bad = p;
        bad.kind = cudaMemcpyKind(42);
        assert_eq!(cudaMemcpy3D(&bad), cudaErrorInvalidMemcpyDirection);
        assert_eq!(cudaMemcpy3D(null()), cudaErrorInvalidValue);
        // An empty extent is a no-op.
        let mut empty = p;
        empty.extent.depth = 0;
        assert_eq!(cudaMemcpy3D(&empty), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpy3D"), 4, "first, _ptds and the two out-of-range copies; not the empty one");
    }
}

#[test]
fn memset_forms() {
    use_fake_driver(&[]);
    unsafe {
        let d = dev_alloc(64);
        assert_eq!(cudaMemset(d, 0x1AB, 64), cudaSuccess);
        assert!(read(d, 64).iter().all(|&b| b == 0xAB), "low byte of the int");
        assert_eq!(cudaMemsetAsync(d.cast::<u8>().add(8).cast(), 3, 8, null_mut()), cudaSuccess);
        let v = read(d, 64);
        assert!(v[8..16].iter().all(|&b| b == 3) && v[16] == 0xAB && v[7] == 0xAB);
        assert_eq!(cudaMemset_ptds(d, 0, 64), cudaSuccess);
        assert_eq!(cudaMemsetAsync_ptsz(d, 0, 0, null_mut()), cudaSuccess);
        assert_eq!(fake::calls("cuMemsetD8"), 2);
        assert_eq!(fake::calls("cuMemsetD8Async"), 1);
        // Out of range, unknown pointer.
        assert_eq!(cudaMemset(d, 0, 65), cudaErrorInvalidValue);
        let mut local = [0u8; 8];
        assert_eq!(cudaMemset(local.as_mut_ptr().cast(), 0, 8), cudaErrorInvalidValue);

        // 2D: 5 bytes of 3 rows with pitch 16.
        assert_eq!(cudaMemset2D(d, 16, 7, 5, 3), cudaSuccess);
        let v = read(d, 64);
        for y in 0..4 {
            for x in 0..16 {
                let want = if y < 3 && x < 5 { 7 } else { 0 };
                assert_eq!(v[y * 16 + x], want, "({x},{y})");
            }
        }
        assert_eq!(cudaMemset2DAsync(d, 16, 1, 17, 2, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemset2D_ptds(d, 16, 0, 16, 4), cudaSuccess);
        assert_eq!(cudaMemset2DAsync_ptsz(d, 16, 0, 16, 4, null_mut()), cudaSuccess);

        // 3D with slices of 4 rows of which 2 are set (one 2D set per slice).
        let mut pp = cudaPitchedPtr::default();
        assert_eq!(cudaMalloc3D(&mut pp, cudaExtent { width: 8, height: 4, depth: 3 }), cudaSuccess);
        assert_eq!(cudaMemset(pp.ptr, 0, pp.pitch * 12), cudaSuccess);
        let sets = fake::calls("cuMemsetD2D8");
        assert_eq!(cudaMemset3D(pp, 9, cudaExtent { width: 6, height: 2, depth: 3 }), cudaSuccess);
        assert_eq!(fake::calls("cuMemsetD2D8") - sets, 3);
        let v = read(pp.ptr, pp.pitch * 12);
        for z in 0..3 {
            for y in 0..4 {
                for x in 0..8 {
                    let want = if y < 2 && x < 6 { 9 } else { 0 };
                    assert_eq!(v[(z * 4 + y) * pp.pitch + x], want, "({x},{y},{z})");
                }
            }
        }
        // Full-height slices are contiguous: one 2D set.
        let sets = fake::calls("cuMemsetD2D8Async");
        assert_eq!(cudaMemset3DAsync(pp, 1, cudaExtent { width: 8, height: 4, depth: 3 }, null_mut()), cudaSuccess);
        assert_eq!(fake::calls("cuMemsetD2D8Async") - sets, 1);
        assert!(read(pp.ptr, pp.pitch * 12).chunks(pp.pitch).all(|r| r[..8].iter().all(|&b| b == 1)));
        assert_eq!(cudaMemset3D_ptds(pp, 0, cudaExtent { width: 8, height: 4, depth: 0 }), cudaSuccess);
        assert_eq!(cudaMemset3DAsync_ptsz(pp, 0, cudaExtent { width: 8, height: 5, depth: 2 }, null_mut()), cudaErrorInvalidValue);
    }
}

#[test]
fn pinned_host_memory() {
    use_fake_driver(&[]);
    let mut p = null_mut();
    let mut f: c_uint = 99;
    unsafe {
        assert_eq!(cudaMallocHost(&mut p, 256), cudaSuccess);
        assert_eq!(fake_kind(p), 2);
        assert_eq!(cudaHostGetFlags(&mut f, p), cudaSuccess);
        let mut d = null_mut();
        assert_eq!(cudaHostGetDevicePointer(&mut d, p, 0), cudaSuccess);
        assert_eq!(d, p, "unified addressing: the device alias is the host address");
        assert_eq!(cudaHostGetDevicePointer(&mut d, p, 1), cudaErrorInvalidValue);
        // Pinned memory is host memory: a device copy from it works.
        std::ptr::write_bytes(p.cast::<u8>(), 5, 256);
        let dv = dev_alloc(256);
        assert_eq!(cudaMemcpy(dv, p, 256, cudaMemcpyHostToDevice), cudaSuccess);
        assert!(read(dv, 256).iter().all(|&b| b == 5));
        // cudaFree of pinned memory and cudaFreeHost of device memory fail.
        assert_eq!(cudaFree(p), cudaErrorInvalidValue);
        assert_eq!(cudaFreeHost(dv), cudaErrorInvalidValue);
        assert_eq!(cudaFreeHost(p), cudaSuccess);
        assert_eq!(fake_kind(p), 0);
        assert_eq!(cudaFreeHost(null_mut()), cudaSuccess);
        assert_eq!(cudaMallocHost(null_mut(), 8), cudaErrorInvalidValue);

        // cudaHostAlloc flags.
        for flags in [cudaHostAllocDefault, cudaHostAllocPortable, cudaHostAllocMapped, cudaHostAllocWriteCombined, 7] {
            let mut q = null_mut();
            assert_eq!(cudaHostAlloc(&mut q, 64, flags), cudaSuccess, "flags {flags}");
            assert_eq!(cudaHostGetFlags(&mut f, q), cudaSuccess);
            assert_eq!(f, flags);
            assert_eq!(cudaFreeHost(q), cudaSuccess);
        }
        let mut q = null_mut();
        assert_eq!(cudaHostAlloc(&mut q, 64, 8), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuMemHostAlloc"), 5);
        // Flags of memory the runtime did not pin.
        let mut local = 0u32;
        assert_eq!(cudaHostGetFlags(&mut f, (&raw mut local).cast()), cudaErrorInvalidValue);
    }
}

#[test]
fn host_register_and_unregister() {
    use_fake_driver(&[]);
    let mut buf = vec![0u8; 4096];
    let p: *mut c_void = buf.as_mut_ptr().cast();
    unsafe {
        assert_eq!(cudaHostRegister(p, 4096, cudaHostRegisterMapped), cudaSuccess);
        assert_eq!(fake_kind(p), 3);
        assert_eq!(cudaHostRegister(p, 4096, 0), cudaErrorHostMemoryAlreadyRegistered);
        assert_eq!(cudaHostRegister(p.cast::<u8>().add(100).cast(), 16, 0), cudaErrorHostMemoryAlreadyRegistered);
        let mut f = 0;
        assert_eq!(cudaHostGetFlags(&mut f, p), cudaSuccess);
        assert_eq!(f, cudaHostRegisterMapped);
        let mut d = null_mut();
        assert_eq!(cudaHostGetDevicePointer(&mut d, p, 0), cudaSuccess);
        assert!(!d.is_null());
        let mut a: cudaPointerAttributes = std::mem::zeroed();
        assert_eq!(cudaPointerGetAttributes(&mut a, p), cudaSuccess);
        assert_eq!(a.r#type, cudaMemoryTypeHost);
        assert_eq!(a.hostPointer, p);
        assert_eq!(cudaHostUnregister(p), cudaSuccess);
        assert_eq!(cudaHostUnregister(p), cudaErrorHostMemoryNotRegistered);
        assert_eq!(cudaHostRegister(null_mut(), 16, 0), cudaErrorInvalidValue);
        assert_eq!(cudaHostRegister(p, 0, 0), cudaErrorInvalidValue);
        assert_eq!(cudaHostRegister(p, 16, 0x10), cudaErrorInvalidValue);
        assert_eq!(cudaHostUnregister(null_mut()), cudaErrorInvalidValue);
    }
    drop(buf);
}

#[test]
fn pointer_attributes_of_every_kind() {
    use_fake_driver(&[]);
    unsafe {
        let mut a: cudaPointerAttributes = std::mem::zeroed();
        assert_eq!(std::mem::size_of::<cudaPointerAttributes>(), 88);
        let d = dev_alloc(64);
        assert_eq!(cudaPointerGetAttributes(&mut a, d.cast::<u8>().add(10).cast()), cudaSuccess);
        assert_eq!(a.r#type, cudaMemoryTypeDevice);
        assert_eq!(a.device, 0);
        assert_eq!(a.devicePointer, d.cast::<u8>().add(10).cast());
        assert!(a.hostPointer.is_null());

        let mut m = null_mut();
        assert_eq!(cudaMallocManaged(&mut m, 64, cudaMemAttachGlobal), cudaSuccess);
        assert_eq!(cudaPointerGetAttributes(&mut a, m), cudaSuccess);
        assert_eq!(a.r#type, cudaMemoryTypeManaged);
        assert_eq!((a.devicePointer, a.hostPointer), (m, m));

        let mut h = null_mut();
        assert_eq!(cudaMallocHost(&mut h, 64), cudaSuccess);
        assert_eq!(cudaPointerGetAttributes(&mut a, h), cudaSuccess);
        assert_eq!(a.r#type, cudaMemoryTypeHost);
        assert_eq!(a.hostPointer, h);

        // Plain host memory: unregistered, and success (CUDA 11+).
        let local = [0u8; 4];
        a.device = 77;
        assert_eq!(cudaPointerGetAttributes(&mut a, local.as_ptr().cast()), cudaSuccess);
        assert_eq!(a.r#type, cudaMemoryTypeUnregistered);
        assert_eq!(a.device, cudaInvalidDeviceId);
        // NVIDIA reports the pointer itself as the host pointer (H100, CUDA 13.0).
        assert!(a.devicePointer.is_null());
        assert_eq!(a.hostPointer, local.as_ptr() as *mut c_void);
        assert_eq!(cudaPointerGetAttributes(null_mut(), d), cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidValue);
    }
}

#[test]
fn pointer_attributes_name_the_allocating_device() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
    unsafe {
        assert_eq!(cudart_shim::api::device::cudaSetDevice(1), cudaSuccess);
        let d = dev_alloc(16);
        assert_eq!(cudart_shim::api::device::cudaSetDevice(0), cudaSuccess);
        let mut a: cudaPointerAttributes = std::mem::zeroed();
        assert_eq!(cudaPointerGetAttributes(&mut a, d), cudaSuccess);
        assert_eq!((a.r#type, a.device), (cudaMemoryTypeDevice, 1));
    }
}

#[test]
fn managed_memory_prefetch_advise_and_range_attributes() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
    let mut m = null_mut();
    let dev0 = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 0 };
    let dev1 = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 1 };
    let host = cudaMemLocation { r#type: cudaMemLocationTypeHost, id: 0 };
    unsafe {
        assert_eq!(cudaMallocManaged(&mut m, 4096, cudaMemAttachGlobal), cudaSuccess);
        assert_eq!(fake_kind(m), 4);
        // Touched from the host, read back through a device copy.
        std::ptr::write_bytes(m.cast::<u8>(), 0x42, 4096);
        let d = dev_alloc(4096);
        assert_eq!(cudaMemcpy(d, m, 4096, cudaMemcpyDefault), cudaSuccess);
        assert!(read(d, 4096).iter().all(|&b| b == 0x42));

        assert_eq!(cudaMemPrefetchAsync(m, 4096, dev1, 0, null_mut()), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        let mut v: c_int = 99;
        assert_eq!(cudaMemRangeGetAttribute((&raw mut v).cast(), 4, cudaMemRangeAttributeLastPrefetchLocation, m, 4096), cudaSuccess);
        assert_eq!(v, 1);
        assert_eq!(cudaMemPrefetchAsync_ptsz(m, 4096, host, 0, null_mut()), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(cudaMemRangeGetAttribute((&raw mut v).cast(), 4, cudaMemRangeAttributeLastPrefetchLocation, m, 4096), cudaSuccess);
        assert_eq!(v, cudaCpuDeviceId);

        assert_eq!(cudaMemAdvise(m, 4096, cudaMemAdviseSetPreferredLocation, dev0), cudaSuccess);
        assert_eq!(cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, dev0), cudaSuccess);
        let (mut pref, mut rm): (c_int, c_int) = (9, 9);
        let mut data: [*mut c_void; 2] = [(&raw mut pref).cast(), (&raw mut rm).cast()];
        let mut sizes = [4usize, 4];
        let mut attrs = [cudaMemRangeAttributePreferredLocation, cudaMemRangeAttributeReadMostly];
        assert_eq!(cudaMemRangeGetAttributes(data.as_mut_ptr(), sizes.as_mut_ptr(), attrs.as_mut_ptr(), 2, m, 4096), cudaSuccess);
        assert_eq!((pref, rm), (0, 1));

        // Bad input: device memory is not managed, bad advice, bad location,
        // wrong data size, size 0, bad flags.
        assert_eq!(cudaMemPrefetchAsync(d, 4096, dev0, 0, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemAdvise(m, 4096, cudaMemoryAdvise(77), dev0), cudaErrorInvalidValue);
        let bad = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 9 };
        assert_eq!(cudaMemPrefetchAsync(m, 4096, bad, 0, null_mut()), cudaErrorInvalidDevice);
        assert_eq!(cudaMemRangeGetAttribute((&raw mut v).cast(), 8, cudaMemRangeAttributeReadMostly, m, 4096), cudaErrorInvalidValue);
        // Size 0: success and NULL (NVIDIA, H100, CUDA 13.0).
        assert_eq!(cudaMallocManaged(&mut m, 0, cudaMemAttachGlobal), cudaSuccess);
        assert!(m.is_null());
        assert_eq!(cudaMallocManaged(&mut m, 64, cudaMemAttachSingle), cudaErrorInvalidValue);
        assert_eq!(cudaMallocManaged(&mut m, 64, 0), cudaErrorInvalidValue);
        let mut h = null_mut();
        assert_eq!(cudaMallocManaged(&mut h, 64, cudaMemAttachHost), cudaSuccess);
        assert_eq!(cudaFree(h), cudaSuccess);
    }
}

#[test]
fn prefetch_and_discard_batches() {
    use_fake_driver(&[]);
    let (mut a, mut b) = (null_mut(), null_mut());
    unsafe {
        assert_eq!(cudaMallocManaged(&mut a, 256, cudaMemAttachGlobal), cudaSuccess);
        assert_eq!(cudaMallocManaged(&mut b, 256, cudaMemAttachGlobal), cudaSuccess);
        std::ptr::write_bytes(a.cast::<u8>(), 1, 256);
        std::ptr::write_bytes(b.cast::<u8>(), 1, 256);
        let mut ptrs = [a, b];
        let mut sizes = [256usize, 256];
        let mut locs = [cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 0 }];
        let mut idx = [0usize];
        let s = per_thread_stream();
        assert_eq!(cudaMemPrefetchBatchAsync(ptrs.as_mut_ptr(), sizes.as_mut_ptr(), 2, locs.as_mut_ptr(), idx.as_mut_ptr(), 1, 0, s), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        let mut v: c_int = 9;
        assert_eq!(cudaMemRangeGetAttribute((&raw mut v).cast(), 4, cudaMemRangeAttributeLastPrefetchLocation, b, 256), cudaSuccess);
        assert_eq!(v, 0);
        assert_eq!(cudaMemPrefetchBatchAsync_ptsz(ptrs.as_mut_ptr(), sizes.as_mut_ptr(), 2, locs.as_mut_ptr(), idx.as_mut_ptr(), 1, 0, s), cudaSuccess);
        // The legacy stream is refused for batches.
        assert_eq!(cudaMemPrefetchBatchAsync(ptrs.as_mut_ptr(), sizes.as_mut_ptr(), 2, locs.as_mut_ptr(), idx.as_mut_ptr(), 1, 0, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemDiscardBatchAsync(ptrs.as_mut_ptr(), sizes.as_mut_ptr(), 1, 0, s), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(*a.cast::<u8>(), 0, "the fake zeroes discarded memory");
        assert_eq!(*b.cast::<u8>(), 1);
        assert_eq!(cudaMemDiscardBatchAsync_ptsz(ptrs.as_mut_ptr(), sizes.as_mut_ptr(), 0, 0, s), cudaErrorInvalidValue);
        let mut host = [cudaMemLocation { r#type: cudaMemLocationTypeHost, id: 0 }];
        assert_eq!(
            cudaMemDiscardAndPrefetchBatchAsync(ptrs.as_mut_ptr().add(1), sizes.as_mut_ptr(), 1, host.as_mut_ptr(), idx.as_mut_ptr(), 1, 0, s),
            cudaSuccess
        );
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(*b.cast::<u8>(), 0);
        assert_eq!(cudaMemRangeGetAttribute((&raw mut v).cast(), 4, cudaMemRangeAttributeLastPrefetchLocation, b, 256), cudaSuccess);
        assert_eq!(v, cudaCpuDeviceId);
        assert_eq!(
            cudaMemDiscardAndPrefetchBatchAsync_ptsz(ptrs.as_mut_ptr(), sizes.as_mut_ptr(), 2, host.as_mut_ptr(), idx.as_mut_ptr(), 1, 1, s),
            cudaErrorInvalidValue
        );
    }
}

/// `cudaStreamPerThread` (the handle 0x2).
fn per_thread_stream() -> cudaStream_t {
    2 as cudaStream_t
}

#[test]
fn batch_copies() {
    use_fake_driver(&[]);
    let s = per_thread_stream();
    let src = [pattern(40, 1), pattern(24, 2)];
    let (d0, d1) = (dev_alloc(40), dev_alloc(24));
    unsafe {
        let dsts = [d0, d1];
        let srcs = [src[0].as_ptr().cast::<c_void>(), src[1].as_ptr().cast()];
        let sizes = [40usize, 24];
        let mut attrs = [cudaMemcpyAttributes { srcAccessOrder: cudaMemcpySrcAccessOrderStream, ..Default::default() }];
        let mut idx = [0usize];
        assert_eq!(cudaMemcpyBatchAsync(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 2, attrs.as_mut_ptr(), idx.as_mut_ptr(), 1, s), cudaSuccess);
        assert_eq!(read(d0, 40), src[0]);
        assert_eq!(read(d1, 24), src[1]);
        assert_eq!(cudaMemcpyBatchAsync_ptsz(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 2, attrs.as_mut_ptr(), idx.as_mut_ptr(), 1, s), cudaSuccess);
        // Legacy stream, zero count, bad access order.
        assert_eq!(cudaMemcpyBatchAsync(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 2, attrs.as_mut_ptr(), idx.as_mut_ptr(), 1, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpyBatchAsync(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 0, attrs.as_mut_ptr(), idx.as_mut_ptr(), 1, s), cudaErrorInvalidValue);
        attrs[0].srcAccessOrder = cudaMemcpySrcAccessOrder(0);
        assert_eq!(cudaMemcpyBatchAsync(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 2, attrs.as_mut_ptr(), idx.as_mut_ptr(), 1, s), cudaErrorInvalidValue);

        // 3D batch: a 4x3 box of a packed host matrix (row length 6) into a
        // packed device matrix.
        let host = pattern(6 * 3, 5);
        let dd = dev_alloc(4 * 3);
        let op = cudaMemcpy3DBatchOp {
            src: cudaMemcpy3DOperand {
                r#type: cudaMemcpyOperandTypePointer,
                op: cudaMemcpy3DOperandOp {
                    ptr: cudaMemcpy3DOperandPtr {
                        ptr: host.as_ptr() as *mut c_void,
                        rowLength: 6,
                        layerHeight: 3,
                        locHint: cudaMemLocation::default(),
                    },
                },
            },
            dst: cudaMemcpy3DOperand {
                r#type: cudaMemcpyOperandTypePointer,
                op: cudaMemcpy3DOperandOp {
                    ptr: cudaMemcpy3DOperandPtr { ptr: dd, rowLength: 4, layerHeight: 3, locHint: cudaMemLocation::default() },
                },
            },
            extent: cudaExtent { width: 4, height: 3, depth: 1 },
            srcAccessOrder: cudaMemcpySrcAccessOrderStream,
            flags: 0,
        };
        let mut ops = [op];
        assert_eq!(cudaMemcpy3DBatchAsync(1, ops.as_mut_ptr(), 0, s), cudaSuccess);
        let got = read(dd, 12);
        for y in 0..3 {
            assert_eq!(&got[y * 4..y * 4 + 4], &host[y * 6..y * 6 + 4]);
        }
        assert_eq!(cudaMemcpy3DBatchAsync_ptsz(1, ops.as_mut_ptr(), 0, s), cudaSuccess);
        assert_eq!(cudaMemcpy3DBatchAsync(0, ops.as_mut_ptr(), 0, s), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpy3DBatchAsync(1, ops.as_mut_ptr(), 0, null_mut()), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuMemcpy3DBatchAsync"), 4);
    }
}
