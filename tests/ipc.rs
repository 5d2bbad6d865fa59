//! IPC memory and event handles over the fake driver (in one process; the
//! two-process case is tests/gpu/ipc_two_processes.cu, GPU only).

mod common;
use common::*;
use cudart_shim::api::ipc::*;
use cudart_shim::api::pool::*;
use cudart_shim::types::*;
use std::ptr::null_mut;

fn zero_handle() -> cudaIpcMemHandle_t {
    cudaIpcMemHandle_st { reserved: [0; 64] }
}

#[test]
fn memory_handle_opens_to_the_same_bytes_and_closes() {
    use_fake_driver(&[]);
    unsafe {
        let mut p = null_mut();
        assert_eq!(cudaMallocAsync(&mut p, 256, null_mut()), cudaSuccess);
        for i in 0..256 {
            *p.cast::<u8>().add(i) = i as u8;
        }
        let mut h = zero_handle();
        assert_eq!(cudaIpcGetMemHandle(&mut h, p), cudaSuccess);
        assert_ne!(h, zero_handle(), "the handle carries the allocation");
        let mut q = null_mut();
        assert_eq!(cudaIpcOpenMemHandle(&mut q, h, cudaIpcMemLazyEnablePeerAccess as u32), cudaSuccess);
        let bytes = std::slice::from_raw_parts(q.cast::<u8>(), 256);
        assert!(bytes.iter().enumerate().all(|(i, &b)| b == i as u8));
        assert_eq!(cudaIpcCloseMemHandle(q), cudaSuccess);
        assert_eq!(cudaIpcCloseMemHandle(q), cudaErrorInvalidValue, "closed twice");
        assert_eq!(fake::calls("cuIpcCloseMemHandle"), 2);
        assert_eq!(cudaFreeAsync(p, null_mut()), cudaSuccess);
    }
}

#[test]
fn memory_handle_bad_input() {
    use_fake_driver(&[]);
    unsafe {
        let mut buf = [0u8; 16];
        let p = buf.as_mut_ptr().cast();
        assert_eq!(cudaIpcGetMemHandle(null_mut(), p), cudaErrorInvalidValue);
        let mut h = zero_handle();
        assert_eq!(cudaIpcGetMemHandle(&mut h, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaIpcGetMemHandle(&mut h, p), cudaSuccess);
        let mut q = null_mut();
        assert_eq!(cudaIpcOpenMemHandle(null_mut(), h, 0), cudaErrorInvalidValue);
        assert_eq!(cudaIpcOpenMemHandle(&mut q, h, 2), cudaErrorInvalidValue, "unknown flag");
        assert_eq!(fake::calls("cuIpcOpenMemHandle"), 0, "rejected before the driver");
        let junk = cudaIpcMemHandle_st { reserved: [0x11; 64] };
        assert_eq!(cudaIpcOpenMemHandle(&mut q, junk, 0), cudaErrorInvalidValue);
        assert_eq!(cudaIpcCloseMemHandle(null_mut()), cudaErrorInvalidValue);
    }
}

#[test]
fn event_handles_round_trip() {
    use_fake_driver(&[]);
    unsafe {
        // The fake's events live in another area; any non-NULL handle stands in.
        let ev = 0x5eed0 as cudaEvent_t;
        let mut h = cudaIpcEventHandle_st { reserved: [0; 64] };
        assert_eq!(cudaIpcGetEventHandle(&mut h, ev), cudaSuccess);
        let mut opened = null_mut();
        assert_eq!(cudaIpcOpenEventHandle(&mut opened, h), cudaSuccess);
        assert_eq!(opened, ev);

        // NULL is an invalid value here (NVIDIA, H100, CUDA 13.0).
        assert_eq!(cudaIpcGetEventHandle(&mut h, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaIpcGetEventHandle(null_mut(), ev), cudaErrorInvalidValue);
        assert_eq!(cudaIpcOpenEventHandle(null_mut(), h), cudaErrorInvalidValue);
        let junk = cudaIpcEventHandle_st { reserved: [0x22; 64] };
        assert_eq!(cudaIpcOpenEventHandle(&mut opened, junk), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuIpcGetEventHandle"), 1, "NULL arguments stop before the driver");
    }
}

#[test]
fn driver_failures_pass_through() {
    use_fake_driver(&[("FAKE_CUDA_FAIL", "cuIpcOpenMemHandle:1:201")]);
    unsafe {
        let mut buf = [0u8; 16];
        let mut h = zero_handle();
        assert_eq!(cudaIpcGetMemHandle(&mut h, buf.as_mut_ptr().cast()), cudaSuccess);
        let mut q = null_mut();
        assert_eq!(cudaIpcOpenMemHandle(&mut q, h, 0), cudaErrorDeviceUninitialized);
        assert!(q.is_null(), "no pointer on failure");
    }
}
