//! Device management, versions and errors over the fake driver, in process.
//! Each test runs in its own process (nextest), so each sees a fresh runtime.

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::error::*;
use cudart_shim::api::version::*;
use cudart_shim::types::*;
use std::ffi::{c_int, c_uint, CStr};

fn two_devices() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
}

#[test]
fn count_and_versions() {
    two_devices();
    let mut n = 0;
    unsafe {
        assert_eq!(cudaGetDeviceCount(&mut n), cudaSuccess);
        assert_eq!(n, 2);
        assert_eq!(cudaGetDeviceCount(std::ptr::null_mut()), cudaErrorInvalidValue);
        let mut v = 0;
        assert_eq!(cudaRuntimeGetVersion(&mut v), cudaSuccess);
        // Never newer than the driver (13000 here): docs/COMPATIBILITY.md.
        assert_eq!(v, 13000);
        assert_eq!(cudaDriverGetVersion(&mut v), cudaSuccess);
        assert_eq!(v, 13000);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaSuccess);
    }
}

#[test]
fn old_driver_is_insufficient() {
    use_fake_driver(&[("FAKE_CUDA_DRIVER_VERSION", "12080")]);
    let mut n = 7;
    unsafe {
        assert_eq!(cudaGetDeviceCount(&mut n), cudaErrorInsufficientDriver);
        assert_eq!(n, 7);
        let mut v = 0;
        assert_eq!(cudaDriverGetVersion(&mut v), cudaSuccess);
        assert_eq!(v, 12080);
        assert_eq!(cudaGetLastError(), cudaErrorInsufficientDriver);
        assert_eq!(cudaGetLastError(), cudaErrorInsufficientDriver);
    }
}

#[test]
fn no_device_from_cuinit() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "0")]);
    let mut n = 7;
    unsafe {
        assert_eq!(cudaGetDeviceCount(&mut n), cudaErrorNoDevice);
        assert_eq!(cudaSetDevice(0), cudaErrorNoDevice);
    }
}

#[test]
fn cuinit_failure_is_reported_by_every_call() {
    use_fake_driver(&[("FAKE_CUDA_INIT_RESULT", "999")]);
    let mut d = 0;
    unsafe {
        assert_eq!(cudaGetDevice(&mut d), cudaErrorUnknown);
        assert_eq!(cudaDeviceSynchronize(), cudaErrorUnknown);
        assert_eq!(cudaPeekAtLastError(), cudaErrorUnknown);
    }
}

#[test]
fn set_get_device_per_thread() {
    two_devices();
    let mut d = -1;
    unsafe {
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        assert_eq!(d, 0);
        assert_eq!(cudaSetDevice(1), cudaSuccess);
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        assert_eq!(d, 1);
        assert_eq!(cudaSetDevice(2), cudaErrorInvalidDevice);
        assert_eq!(cudaSetDevice(-1), cudaErrorInvalidDevice);
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        assert_eq!(d, 1, "a failed cudaSetDevice keeps the device");
        assert_eq!(cudaGetDevice(std::ptr::null_mut()), cudaErrorInvalidValue);
    }
    // Another thread starts on device 0 and its choice does not leak back.
    std::thread::spawn(|| unsafe {
        let mut d = -1;
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        assert_eq!(d, 0);
        assert_eq!(cudaSetDevice(0), cudaSuccess);
    })
    .join()
    .unwrap();
    unsafe {
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        assert_eq!(d, 1);
    }
}

#[test]
fn primary_context_retained_once_and_reset() {
    two_devices();
    unsafe {
        assert_eq!(cudaSetDevice(0), cudaSuccess);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(cudaSetDevice(0), cudaSuccess);
        assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 1);
        assert_eq!(cudaDeviceReset(), cudaSuccess);
        assert_eq!(fake::calls("cuDevicePrimaryCtxReset"), 1);
        // The next call that needs the context retains it again.
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 2);
    }
}

#[test]
fn get_device_creates_no_context() {
    two_devices();
    let mut d = -1;
    unsafe {
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        let mut n = 0;
        assert_eq!(cudaGetDeviceCount(&mut n), cudaSuccess);
        let mut v = 0;
        assert_eq!(cudaDeviceGetAttribute(&mut v, cudaDevAttrWarpSize, 1), cudaSuccess);
        assert_eq!(v, 32);
    }
    assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 0);
}

#[test]
fn user_driver_context_is_honoured() {
    two_devices();
    // The program creates its own context on device 1 with the driver API.
    unsafe {
        let init: unsafe extern "C" fn(c_uint) -> c_int = std::mem::transmute(fake::proc("cuInit"));
        assert_eq!(init(0), 0);
        let create: unsafe extern "C" fn(*mut *mut u8, *mut u8, c_uint, c_int) -> c_int =
            std::mem::transmute(fake::proc("cuCtxCreate"));
        let mut ctx = std::ptr::null_mut();
        assert_eq!(create(&mut ctx, std::ptr::null_mut(), 0, 1), 0);
        let mut d = -1;
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        assert_eq!(d, 1);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
    }
    assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 0, "the user's context is used, no primary context");
}

#[test]
fn properties_are_filled_from_attributes() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2"), ("FAKE_CUDA_ATTR", "16=100,75=8,76=6")]);
    let mut p = cudaDeviceProp::default();
    unsafe {
        assert_eq!(cudaGetDeviceProperties(&mut p, 1), cudaSuccess);
        assert_eq!(CStr::from_ptr(p.name.as_ptr()).to_str().unwrap(), "Fake CUDA Device 1");
        assert_eq!(p.multiProcessorCount, 100);
        assert_eq!((p.major, p.minor), (8, 6));
        assert_eq!(p.warpSize, 32);
        assert_eq!(p.maxThreadsDim, [1024, 1024, 64]);
        assert_eq!(p.totalGlobalMem, 80 << 30);
        assert_eq!(p.pciBusID, 0x11);
        assert_eq!(p.l2CacheSize, 52428800);
        assert_ne!(p.uuid.bytes, [0; 16]);
        assert_eq!(cudaGetDeviceProperties(&mut p, 2), cudaErrorInvalidDevice);
        assert_eq!(cudaGetDeviceProperties(&mut p, -1), cudaErrorInvalidDevice);
        assert_eq!(cudaGetDeviceProperties(std::ptr::null_mut(), 0), cudaErrorInvalidValue);
    }
}

#[test]
fn attributes_and_bad_input() {
    two_devices();
    let mut v = 0;
    unsafe {
        assert_eq!(cudaDeviceGetAttribute(&mut v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
        assert_eq!(v, 132);
        assert_eq!(cudaDeviceGetAttribute(&mut v, cudaDeviceAttr(0), 0), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetAttribute(&mut v, cudaDeviceAttr(100000), 0), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetAttribute(&mut v, cudaDevAttrWarpSize, 99), cudaErrorInvalidDevice);
        assert_eq!(cudaDeviceGetAttribute(&mut v, cudaDevAttrWarpSize, -1), cudaErrorInvalidDevice);
        assert_eq!(cudaDeviceGetAttribute(std::ptr::null_mut(), cudaDevAttrWarpSize, 0), cudaErrorInvalidValue);
    }
}

#[test]
fn attributes_are_asked_of_the_driver_once() {
    two_devices();
    let mut v = 0;
    unsafe {
        for _ in 0..5 {
            assert_eq!(cudaDeviceGetAttribute(&mut v, cudaDevAttrMultiProcessorCount, 1), cudaSuccess);
            assert_eq!(v, 132);
        }
        assert_eq!(cudaDeviceGetAttribute(&mut v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    }
    assert_eq!(fake::calls("cuDeviceGetAttribute"), 2, "once per device");
}

#[test]
fn pci_bus_id_round_trip() {
    two_devices();
    let mut buf = [0 as std::ffi::c_char; 32];
    let mut d = -1;
    unsafe {
        assert_eq!(cudaDeviceGetPCIBusId(buf.as_mut_ptr(), 32, 1), cudaSuccess);
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), "00000000:11:00.0");
        assert_eq!(cudaDeviceGetByPCIBusId(&mut d, buf.as_ptr()), cudaSuccess);
        assert_eq!(d, 1);
        assert_eq!(cudaDeviceGetByPCIBusId(&mut d, c"nonsense".as_ptr()), cudaErrorInvalidDevice);
        assert_eq!(cudaDeviceGetByPCIBusId(&mut d, std::ptr::null()), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetByPCIBusId(std::ptr::null_mut(), buf.as_ptr()), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetPCIBusId(std::ptr::null_mut(), 32, 0), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetPCIBusId(buf.as_mut_ptr(), 32, 5), cudaErrorInvalidDevice);
    }
}

#[test]
fn flags_limits_cache_config_priorities() {
    two_devices();
    let mut f: c_uint = 0;
    unsafe {
        // Measured on CUDA 13.0 / H100: 0x8 before any set, set|0x8 after,
        // 0 after a reset.
        assert_eq!(cudaGetDeviceFlags(&mut f), cudaSuccess);
        assert_eq!(f, cudaDeviceMapHost);
        assert_eq!(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), cudaSuccess);
        assert_eq!(cudaGetDeviceFlags(&mut f), cudaSuccess);
        assert_eq!(f, cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);
        assert_eq!(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
        assert_eq!(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield), cudaErrorInvalidValue);
        assert_eq!(cudaGetDeviceFlags(std::ptr::null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceReset(), cudaSuccess);
        assert_eq!(cudaGetDeviceFlags(&mut f), cudaSuccess);
        assert_eq!(f, 0);

        let mut s = 0usize;
        assert_eq!(cudaDeviceSetLimit(cudaLimitStackSize, 4096), cudaSuccess);
        assert_eq!(cudaDeviceGetLimit(&mut s, cudaLimitStackSize), cudaSuccess);
        assert_eq!(s, 4096);
        assert_eq!(cudaDeviceGetLimit(&mut s, cudaLimit(42)), cudaErrorUnsupportedLimit);
        assert_eq!(cudaDeviceGetLimit(std::ptr::null_mut(), cudaLimitStackSize), cudaErrorInvalidValue);

        let mut c = cudaFuncCachePreferNone;
        assert_eq!(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1), cudaSuccess);
        assert_eq!(cudaDeviceGetCacheConfig(&mut c), cudaSuccess);
        assert_eq!(c, cudaFuncCachePreferL1);
        assert_eq!(cudaDeviceSetCacheConfig(cudaFuncCache(9)), cudaErrorInvalidValue);

        let mut m = cudaSharedMemBankSizeDefault;
        assert_eq!(cudaDeviceGetSharedMemConfig(&mut m), cudaSuccess);
        assert_eq!(m, cudaSharedMemBankSizeFourByte);
        assert_eq!(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte), cudaSuccess);
        assert_eq!(cudaDeviceSetSharedMemConfig(cudaSharedMemConfig(7)), cudaErrorInvalidValue);

        let (mut lo, mut hi) = (9, 9);
        assert_eq!(cudaDeviceGetStreamPriorityRange(&mut lo, &mut hi), cudaSuccess);
        assert_eq!((lo, hi), (0, -5));
        assert_eq!(cudaDeviceGetStreamPriorityRange(std::ptr::null_mut(), &mut hi), cudaSuccess);
    }
}

#[test]
fn init_device_and_valid_devices() {
    two_devices();
    unsafe {
        assert_eq!(cudaInitDevice(1, 0, 0), cudaSuccess);
        assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 1);
        assert_eq!(cudaInitDevice(1, cudaDeviceScheduleYield, cudaInitDeviceFlagsAreValid), cudaSuccess);
        assert_eq!(cudaInitDevice(5, 0, 0), cudaErrorInvalidDevice);
        // Unknown bits of `flags` are ignored (NVIDIA, CUDA 13.0, H100).
        assert_eq!(cudaInitDevice(0, 0, 0x80), cudaSuccess);
        let mut list = [1, 0];
        assert_eq!(cudaSetValidDevices(list.as_mut_ptr(), 2), cudaSuccess);
        // An entry that is no device: invalid device; more entries than
        // devices: invalid value (NVIDIA, H100 and 2x H200, CUDA 13.0).
        let mut bad = [0, 7];
        assert_eq!(cudaSetValidDevices(bad.as_mut_ptr(), 2), cudaErrorInvalidDevice);
        let mut long = [0, 1, 0];
        assert_eq!(cudaSetValidDevices(long.as_mut_ptr(), 3), cudaErrorInvalidValue);
        assert_eq!(cudaSetValidDevices(std::ptr::null_mut(), 1), cudaErrorInvalidValue);
        // A successful call leaves no context current (NVIDIA, H100); the
        // next call that needs one binds it again.
        assert_eq!(cudaSetDevice(1), cudaSuccess);
        assert_eq!(cudaSetValidDevices(list.as_mut_ptr(), 2), cudaSuccess);
        assert_eq!(cudaCtxResetPersistingL2Cache(), cudaErrorDeviceUninitialized);
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        assert_eq!(cudaCtxResetPersistingL2Cache(), cudaSuccess);
    }
}

#[test]
fn choose_device_and_misc() {
    two_devices();
    let want = cudaDeviceProp { major: 9, ..Default::default() };
    let mut d = -1;
    unsafe {
        assert_eq!(cudaChooseDevice(&mut d, &want), cudaSuccess);
        assert_eq!(d, 0);
        assert_eq!(cudaChooseDevice(std::ptr::null_mut(), &want), cudaErrorInvalidValue);
        assert_eq!(cudaChooseDevice(&mut d, std::ptr::null()), cudaErrorInvalidValue);
        let desc = cudaChannelFormatDesc { x: 32, y: 0, z: 0, w: 0, f: cudaChannelFormatKindFloat };
        let mut w = 0usize;
        assert_eq!(cudaDeviceGetTexture1DLinearMaxWidth(&mut w, &desc, 0), cudaSuccess);
        assert!(w > 0);
        let bad = cudaChannelFormatDesc { x: 32, y: 8, z: 0, w: 0, f: cudaChannelFormatKindFloat };
        assert_eq!(cudaDeviceGetTexture1DLinearMaxWidth(&mut w, &bad, 0), cudaErrorInvalidChannelDescriptor);
        // No context is current yet, and this call makes none (NVIDIA,
        // H100): the driver's invalid context.
        assert_eq!(cudaCtxResetPersistingL2Cache(), cudaErrorDeviceUninitialized);
        assert_eq!(cudaSetDevice(0), cudaSuccess);
        assert_eq!(cudaCtxResetPersistingL2Cache(), cudaSuccess);
        assert_eq!(
            cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner),
            cudaSuccess
        );
        let ops = [cudaAtomicOperationIntegerAdd];
        let mut caps = [0u32];
        assert_eq!(cudaDeviceGetHostAtomicCapabilities(caps.as_mut_ptr(), ops.as_ptr(), 1, 0), cudaSuccess);
        let mut list = [0u8; 8];
        assert_eq!(cudaDeviceGetNvSciSyncAttributes(list.as_mut_ptr().cast(), 0, 0), cudaErrorNotSupported);
        let mut h: cudaAsyncCallbackHandle_t = std::ptr::null_mut();
        unsafe extern "C" fn cb(_: *mut cudaAsyncNotificationInfo_t, _: *mut std::ffi::c_void, _: cudaAsyncCallbackHandle_t) {}
        assert_eq!(cudaDeviceRegisterAsyncNotification(0, Some(cb), std::ptr::null_mut(), &mut h), cudaSuccess);
        assert_eq!(cudaDeviceUnregisterAsyncNotification(0, h), cudaSuccess);
        assert_eq!(cudaDeviceRegisterAsyncNotification(0, None, std::ptr::null_mut(), &mut h), cudaErrorInvalidValue);
    }
}

#[test]
fn last_error_is_per_thread_and_not_ready_is_not_recorded() {
    two_devices();
    unsafe {
        assert_eq!(cudaSetDevice(9), cudaErrorInvalidDevice);
        std::thread::spawn(|| {
            assert_eq!(cudaGetLastError(), cudaSuccess, "another thread's error does not leak");
        })
        .join()
        .unwrap();
        assert_eq!(cudaPeekAtLastError(), cudaErrorInvalidDevice);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidDevice);
        assert_eq!(cudaGetLastError(), cudaSuccess);
    }
    cudart_shim::internals::error::record(cudaErrorNotReady);
    unsafe { assert_eq!(cudaGetLastError(), cudaSuccess) };
}

#[test]
fn sticky_errors_stay() {
    two_devices();
    fake::fail("cuCtxSynchronize", 1, 700);
    unsafe {
        assert_eq!(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
        // As NVIDIA's on an H100 (runtime/last_error.rs): once, then cleared.
        assert_eq!(cudaGetLastError(), cudaErrorIllegalAddress);
        assert_eq!(cudaGetLastError(), cudaSuccess);
        assert_eq!(cudaPeekAtLastError(), cudaSuccess);
    }
}

#[test]
fn missing_driver_symbol_fails_only_its_calls() {
    use_fake_driver(&[("FAKE_CUDA_MISSING", "cuCtxResetPersistingL2Cache"), ("FAKE_CUDA_OLD", "cuFlushGPUDirectRDMAWrites")]);
    unsafe {
        assert_eq!(cudaCtxResetPersistingL2Cache(), cudaErrorNotSupported);
        assert_eq!(cudaCtxResetPersistingL2Cache(), cudaErrorNotSupported);
        assert_eq!(
            cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner),
            cudaErrorCallRequiresNewerDriver
        );
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
    }
}

#[test]
fn error_names() {
    unsafe {
        assert_eq!(CStr::from_ptr(cudaGetErrorName(cudaErrorMemoryAllocation)).to_str().unwrap(), "cudaErrorMemoryAllocation");
        assert_eq!(CStr::from_ptr(cudaGetErrorString(cudaErrorMemoryAllocation)).to_str().unwrap(), "out of memory");
        assert_eq!(CStr::from_ptr(cudaGetErrorName(cudaError_t(12345))).to_str().unwrap(), "unrecognized error code");
    }
}

#[test]
fn many_threads_at_once() {
    two_devices();
    let handles: Vec<_> = (0..16)
        .map(|i| {
            std::thread::spawn(move || unsafe {
                for k in 0..200 {
                    let dev = (i + k) % 2;
                    assert_eq!(cudaSetDevice(dev), cudaSuccess);
                    let mut d = -1;
                    assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
                    assert_eq!(d, dev);
                    let mut p = cudaDeviceProp::default();
                    assert_eq!(cudaGetDeviceProperties(&mut p, dev), cudaSuccess);
                    assert_eq!(cudaSetDevice(-3), cudaErrorInvalidDevice);
                    assert_eq!(cudaGetLastError(), cudaErrorInvalidDevice);
                    assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 2, "each primary context retained once");
}

#[test]
fn a_driver_shutting_down_is_not_a_missing_symbol() {
    two_devices();
    unsafe {
        assert_eq!(cudaDeviceSynchronize(), cudaSuccess);
        // The next lookup meets a driver that is being torn down (as at exit).
        fake::fail("cuGetProcAddress", 1, 4);
        assert_eq!(cudaCtxResetPersistingL2Cache(), cudaErrorCudartUnloading);
        // Not remembered as missing: the next call resolves it.
        assert_eq!(cudaCtxResetPersistingL2Cache(), cudaSuccess);
    }
}
