//! Peer device memory access over a 2-device fake driver: capability
//! queries, enabling and disabling with NVIDIA's codes, and peer copies.

mod common;
use common::*;
use cudart_shim::api::device::cudaSetDevice;
use cudart_shim::api::error::cudaGetLastError;
use cudart_shim::api::memory::*;
use cudart_shim::api::peer::*;
use cudart_shim::types::*;
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

fn two_devices() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
}

fn alloc_on(dev: c_int, n: usize) -> *mut c_void {
    let mut p = null_mut();
    unsafe {
        assert_eq!(cudaSetDevice(dev), cudaSuccess);
        assert_eq!(cudaMalloc(&mut p, n), cudaSuccess);
    }
    p
}

#[test]
fn can_access_peer() {
    two_devices();
    let mut v = 7;
    unsafe {
        assert_eq!(cudaDeviceCanAccessPeer(&mut v, 0, 1), cudaSuccess);
        assert_eq!(v, 1);
        assert_eq!(cudaDeviceCanAccessPeer(&mut v, 1, 1), cudaSuccess);
        assert_eq!(v, 0, "a device is not its own peer");
        assert_eq!(cudaDeviceCanAccessPeer(&mut v, 0, 2), cudaErrorInvalidDevice);
        assert_eq!(cudaDeviceCanAccessPeer(&mut v, -1, 0), cudaErrorInvalidDevice);
        assert_eq!(cudaDeviceCanAccessPeer(null_mut(), 0, 1), cudaErrorInvalidValue);
    }
}

#[test]
fn enable_and_disable_with_nvidias_codes() {
    two_devices();
    unsafe {
        assert_eq!(cudaSetDevice(0), cudaSuccess);
        assert_eq!(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
        assert_eq!(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
        assert_eq!(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
        assert_eq!(cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue);
        // The current device as its own peer: the driver's answer, which
        // NVIDIA's runtime reports unchanged (H100, CUDA 13.0).
        assert_eq!(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported);
        assert_eq!(cudaDeviceEnablePeerAccess(2, 0), cudaErrorInvalidDevice);
        assert_eq!(fake::calls("cuCtxEnablePeerAccess"), 3);
        assert_eq!(cudaDeviceDisablePeerAccess(1), cudaSuccess);
        assert_eq!(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
        assert_eq!(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
        assert_eq!(cudaDeviceDisablePeerAccess(9), cudaErrorInvalidDevice);
        // From device 1 to 0 is a separate pair.
        assert_eq!(cudaSetDevice(1), cudaSuccess);
        assert_eq!(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
        assert_eq!(cudaDeviceDisablePeerAccess(0), cudaSuccess);
    }
}

#[test]
fn unsupported_pairs() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2"), ("FAKE_CUDA_NO_PEER", "1")]);
    let mut v = 7;
    unsafe {
        assert_eq!(cudaDeviceCanAccessPeer(&mut v, 0, 1), cudaSuccess);
        assert_eq!(v, 0);
        assert_eq!(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessUnsupported);
        assert_eq!(cudaDeviceGetP2PAttribute(&mut v, cudaDevP2PAttrAccessSupported, 0, 1), cudaSuccess);
        assert_eq!(v, 0);
    }
}

#[test]
fn p2p_attributes_and_atomic_capabilities() {
    two_devices();
    let mut v = 7;
    unsafe {
        assert_eq!(cudaDeviceGetP2PAttribute(&mut v, cudaDevP2PAttrAccessSupported, 0, 1), cudaSuccess);
        assert_eq!(v, 1);
        assert_eq!(cudaDeviceGetP2PAttribute(&mut v, cudaDevP2PAttrPerformanceRank, 1, 0), cudaSuccess);
        assert_eq!(cudaDeviceGetP2PAttribute(&mut v, cudaDeviceP2PAttr(99), 0, 1), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetP2PAttribute(&mut v, cudaDevP2PAttrAccessSupported, 0, 0), cudaErrorInvalidDevice);
        assert_eq!(cudaDeviceGetP2PAttribute(&mut v, cudaDevP2PAttrAccessSupported, 0, 3), cudaErrorInvalidDevice);
        assert_eq!(cudaDeviceGetP2PAttribute(null_mut(), cudaDevP2PAttrAccessSupported, 0, 1), cudaErrorInvalidValue);

        let ops = [cudaAtomicOperationIntegerAdd, cudaAtomicOperationIntegerMax];
        let mut caps: [c_uint; 2] = [99, 99];
        assert_eq!(cudaDeviceGetP2PAtomicCapabilities(caps.as_mut_ptr(), ops.as_ptr(), 2, 0, 1), cudaSuccess);
        assert!(caps.iter().all(|&c| c != 99));
        assert_eq!(cudaDeviceGetP2PAtomicCapabilities(caps.as_mut_ptr(), ops.as_ptr(), 0, 0, 1), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetP2PAtomicCapabilities(null_mut(), ops.as_ptr(), 2, 0, 1), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetP2PAtomicCapabilities(caps.as_mut_ptr(), ops.as_ptr(), 2, 0, 5), cudaErrorInvalidDevice);
    }
}

#[test]
fn peer_copies_move_bytes() {
    two_devices();
    let n = 200;
    let src: Vec<u8> = (0..n).map(|i| i as u8 ^ 0x5a).collect();
    let a = alloc_on(0, n);
    let b = alloc_on(1, n);
    let mut back = vec![0u8; n];
    unsafe {
        assert_eq!(cudaMemcpy(a, src.as_ptr().cast(), n, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(cudaMemcpyPeer(b, 1, a, 0, n), cudaSuccess);
        assert_eq!(cudaMemcpy(back.as_mut_ptr().cast(), b, n, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_eq!(back, src);
        assert_eq!(cudaMemset(a, 0, n), cudaSuccess);
        assert_eq!(cudaMemcpyPeerAsync(a, 0, b, 1, n, null_mut()), cudaSuccess);
        back.fill(0);
        assert_eq!(cudaMemcpy(back.as_mut_ptr().cast(), a, n, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_eq!(back, src);
        assert_eq!(fake::calls("cuMemcpyPeer"), 1);
        assert_eq!(fake::calls("cuMemcpyPeerAsync"), 1);
        // Devices that do not own the memory, bad ordinals, zero bytes.
        assert_eq!(cudaMemcpyPeer(b, 0, a, 0, n), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpyPeer(b, 2, a, 0, n), cudaErrorInvalidDevice);
        assert_eq!(cudaMemcpyPeer(b, 1, a, -1, n), cudaErrorInvalidDevice);
        assert_eq!(cudaMemcpyPeer(b, 1, a, 0, 0), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpyPeer"), 2);

        // 3D peer: a 4 x 2 x 2 box between pitched volumes.
        let mut pa = cudaPitchedPtr::default();
        let mut pb = cudaPitchedPtr::default();
        let ext = cudaExtent { width: 8, height: 3, depth: 2 };
        assert_eq!(cudaSetDevice(0), cudaSuccess);
        assert_eq!(cudaMalloc3D(&mut pa, ext), cudaSuccess);
        let fill: Vec<u8> = (0..pa.pitch * 6).map(|i| i as u8).collect();
        assert_eq!(cudaMemcpy(pa.ptr, fill.as_ptr().cast(), fill.len(), cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(cudaSetDevice(1), cudaSuccess);
        assert_eq!(cudaMalloc3D(&mut pb, ext), cudaSuccess);
        assert_eq!(cudaMemset(pb.ptr, 0, pb.pitch * 6), cudaSuccess);
        let p = cudaMemcpy3DPeerParms {
            srcArray: null_mut(),
            srcPos: cudaPos { x: 1, y: 1, z: 0 },
            srcPtr: pa,
            srcDevice: 0,
            dstArray: null_mut(),
            dstPos: cudaPos { x: 0, y: 0, z: 0 },
            dstPtr: pb,
            dstDevice: 1,
            extent: cudaExtent { width: 4, height: 2, depth: 2 },
        };
        assert_eq!(cudaMemcpy3DPeer(&p), cudaSuccess);
        let mut got = vec![0u8; pb.pitch * 6];
        assert_eq!(cudaMemcpy(got.as_mut_ptr().cast(), pb.ptr, got.len(), cudaMemcpyDeviceToHost), cudaSuccess);
        for z in 0..2 {
            for y in 0..2 {
                let d = (z * 3 + y) * pb.pitch;
                let s = (z * 3 + y + 1) * pa.pitch + 1;
                assert_eq!(&got[d..d + 4], &fill[s..s + 4], "row {y} slice {z}");
            }
        }
        assert_eq!(cudaMemcpy3DPeerAsync(&p, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpy3DPeer_ptds(&p), cudaSuccess);
        assert_eq!(cudaMemcpy3DPeerAsync_ptsz(&p, null_mut()), cudaSuccess);
        assert_eq!(fake::calls("cuMemcpy3DPeer"), 2);
        assert_eq!(fake::calls("cuMemcpy3DPeerAsync"), 2);
        let mut bad = p;
        bad.dstDevice = 5;
        assert_eq!(cudaMemcpy3DPeer(&bad), cudaErrorInvalidDevice);
        let mut bad = p;
        bad.srcPtr.ptr = null_mut();
        assert_eq!(cudaMemcpy3DPeer(&bad), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpy3DPeer(std::ptr::null()), cudaErrorInvalidValue);
    }
}
