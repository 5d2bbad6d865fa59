//! The stream-ordered allocator and memory pools over the fake driver.

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::pool::*;
use cudart_shim::types::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn two_devices() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
}

fn attr_u64(pool: cudaMemPool_t, a: cudaMemPoolAttr) -> u64 {
    let mut v = 0u64;
    assert_eq!(unsafe { cudaMemPoolGetAttribute(pool, a, (&mut v as *mut u64).cast()) }, cudaSuccess);
    v
}

fn default_pool(dev: i32) -> cudaMemPool_t {
    let mut p = null_mut();
    assert_eq!(unsafe { cudaDeviceGetDefaultMemPool(&mut p, dev) }, cudaSuccess);
    assert!(!p.is_null());
    p
}

fn device_props(dev: i32) -> cudaMemPoolProps {
    cudaMemPoolProps {
        allocType: cudaMemAllocationTypePinned,
        location: cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: dev },
        ..Default::default()
    }
}

#[test]
fn malloc_async_gives_usable_memory_and_free_returns_it_in_stream_order() {
    two_devices();
    unsafe {
        let pool = default_pool(0);
        let mut p: *mut c_void = null_mut();
        assert_eq!(cudaMallocAsync(&mut p, 4096, cudaStreamLegacy), cudaSuccess);
        assert!(!p.is_null());
        // Device pointers of the fake driver are host memory: write and read.
        std::ptr::write_bytes(p.cast::<u8>(), 0xab, 4096);
        assert_eq!(*p.cast::<u8>().add(4095), 0xab);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrUsedMemCurrent), 4096);
        assert_eq!(fake::calls("cuMemAllocAsync"), 1);

        assert_eq!(cudaFreeAsync(p, cudaStreamLegacy), cudaSuccess);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrUsedMemCurrent), 0);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrUsedMemHigh), 4096);
        // Release threshold 0: the pool gives the memory back at once.
        assert_eq!(attr_u64(pool, cudaMemPoolAttrReservedMemCurrent), 0);
        // Freeing it again is the driver's invalid value.
        assert_eq!(cudaFreeAsync(p, cudaStreamLegacy), cudaErrorInvalidValue);
    }
}

#[test]
fn release_threshold_keeps_memory_for_reuse_until_trimmed() {
    two_devices();
    unsafe {
        let pool = default_pool(0);
        let mut keep = u64::MAX;
        assert_eq!(
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, (&mut keep as *mut u64).cast()),
            cudaSuccess
        );
        assert_eq!(attr_u64(pool, cudaMemPoolAttrReleaseThreshold), u64::MAX);
        let mut a = null_mut();
        assert_eq!(cudaMallocAsync(&mut a, 1 << 20, null_mut()), cudaSuccess);
        assert_eq!(cudaFreeAsync(a, null_mut()), cudaSuccess);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrReservedMemCurrent), 1 << 20);
        let mut b = null_mut();
        assert_eq!(cudaMallocAsync(&mut b, 1 << 20, null_mut()), cudaSuccess);
        assert_eq!(a, b, "a freed block of the same size is reused");
        assert_eq!(cudaFreeAsync(b, null_mut()), cudaSuccess);
        assert_eq!(cudaMemPoolTrimTo(pool, 0), cudaSuccess);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrReservedMemCurrent), 0);
        assert_eq!(cudaMemPoolTrimTo(null_mut(), 0), cudaErrorInvalidValue);
    }
}

#[test]
fn per_thread_twins_allocate_and_free() {
    two_devices();
    unsafe {
        let mut p = null_mut();
        assert_eq!(cudaMallocAsync_ptsz(&mut p, 256, cudaStreamPerThread), cudaSuccess);
        assert_eq!(fake::calls("cuMemAllocAsync"), 1);
        let pool = default_pool(0);
        let mut q = null_mut();
        assert_eq!(cudaMallocFromPoolAsync_ptsz(&mut q, 512, pool, null_mut()), cudaSuccess);
        assert_eq!(fake::calls("cuMemAllocFromPoolAsync"), 1);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrUsedMemCurrent), 768);
        assert_eq!(cudaFreeAsync_ptsz(p, null_mut()), cudaSuccess);
        assert_eq!(cudaFreeAsync_ptsz(q, cudaStreamPerThread), cudaSuccess);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrUsedMemCurrent), 0);
        assert_eq!(fake::calls("cuMemFreeAsync"), 2);
    }
}

#[test]
fn bad_allocation_arguments() {
    two_devices();
    unsafe {
        assert_eq!(cudaMallocAsync(null_mut(), 16, null_mut()), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuMemAllocAsync"), 0, "a NULL out-pointer never reaches the driver");
        let mut p = null_mut();
        assert_eq!(cudaMallocFromPoolAsync(&mut p, 16, null_mut(), null_mut()), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuMemAllocFromPoolAsync"), 0);
        assert_eq!(cudaMallocFromPoolAsync(null_mut(), 16, default_pool(0), null_mut()), cudaErrorInvalidValue);
        // The driver's answers pass through: size 0, an unknown pointer.
        assert_eq!(cudaMallocAsync(&mut p, 0, null_mut()), cudaErrorInvalidValue);
        let mut local = 0u8;
        assert_eq!(cudaFreeAsync((&mut local as *mut u8).cast(), null_mut()), cudaErrorInvalidValue);
        // An allocation failure of the driver comes back unchanged.
        fake::fail("cuMemAllocAsync", 1, 2);
        assert_eq!(cudaMallocAsync(&mut p, 16, null_mut()), cudaErrorMemoryAllocation);
    }
}

#[test]
fn device_pools_default_current_and_set() {
    two_devices();
    unsafe {
        let d0 = default_pool(0);
        let d1 = default_pool(1);
        assert_ne!(d0, d1);
        let mut cur = null_mut();
        assert_eq!(cudaDeviceGetMemPool(&mut cur, 1), cudaSuccess);
        assert_eq!(cur, d1, "the current pool starts as the default pool");

        let mut mine = null_mut();
        assert_eq!(cudaMemPoolCreate(&mut mine, &device_props(1)), cudaSuccess);
        assert_eq!(cudaDeviceSetMemPool(1, mine), cudaSuccess);
        assert_eq!(cudaDeviceGetMemPool(&mut cur, 1), cudaSuccess);
        assert_eq!(cur, mine);
        assert_eq!(cudaDeviceGetDefaultMemPool(&mut cur, 1), cudaSuccess);
        assert_eq!(cur, d1, "the default pool does not change");

        // cudaMallocAsync on device 1 draws from its current pool.
        assert_eq!(cudaSetDevice(1), cudaSuccess);
        let mut p = null_mut();
        assert_eq!(cudaMallocAsync(&mut p, 1000, null_mut()), cudaSuccess);
        assert_eq!(attr_u64(mine, cudaMemPoolAttrUsedMemCurrent), 1000);
        assert_eq!(attr_u64(d1, cudaMemPoolAttrUsedMemCurrent), 0);
        assert_eq!(cudaFreeAsync(p, null_mut()), cudaSuccess);

        // A pool of device 1 cannot be device 0's (the driver says so).
        assert_eq!(cudaDeviceSetMemPool(0, mine), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceSetMemPool(0, null_mut()), cudaErrorInvalidValue);
        // Destroying the current pool makes the default current again.
        assert_eq!(cudaMemPoolDestroy(mine), cudaSuccess);
        assert_eq!(cudaDeviceGetMemPool(&mut cur, 1), cudaSuccess);
        assert_eq!(cur, d1);
    }
}

#[test]
fn device_pool_queries_reject_bad_devices_and_null() {
    two_devices();
    let mut p = null_mut();
    unsafe {
        for dev in [-1, 2, 99] {
            assert_eq!(cudaDeviceGetDefaultMemPool(&mut p, dev), cudaErrorInvalidDevice);
            // These two call a bad device number an invalid value (NVIDIA, H100, CUDA 13.0).
            assert_eq!(cudaDeviceGetMemPool(&mut p, dev), cudaErrorInvalidValue);
            assert_eq!(cudaDeviceSetMemPool(dev, default_pool(0)), cudaErrorInvalidValue);
        }
        assert_eq!(cudaDeviceGetDefaultMemPool(null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetMemPool(null_mut(), 0), cudaErrorInvalidValue);
    }
}

#[test]
fn pools_by_memory_location() {
    two_devices();
    unsafe {
        let mut loc = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 1 };
        let mut p = null_mut();
        assert_eq!(cudaMemGetDefaultMemPool(&mut p, &mut loc, cudaMemAllocationTypePinned), cudaSuccess);
        assert_eq!(p, default_pool(1));
        assert_eq!(cudaMemGetMemPool(&mut p, &mut loc, cudaMemAllocationTypePinned), cudaSuccess);
        assert_eq!(p, default_pool(1));
        let mut mine = null_mut();
        assert_eq!(cudaMemPoolCreate(&mut mine, &device_props(1)), cudaSuccess);
        assert_eq!(cudaMemSetMemPool(&mut loc, cudaMemAllocationTypePinned, mine), cudaSuccess);
        assert_eq!(cudaMemGetMemPool(&mut p, &mut loc, cudaMemAllocationTypePinned), cudaSuccess);
        assert_eq!(p, mine);
        let mut cur = null_mut();
        assert_eq!(cudaDeviceGetMemPool(&mut cur, 1), cudaSuccess);
        assert_eq!(cur, mine, "the location's pool is the device's pool");

        // Host locations have their own pool.
        let mut host = cudaMemLocation { r#type: cudaMemLocationTypeHost, id: 0 };
        assert_eq!(cudaMemGetDefaultMemPool(&mut p, &mut host, cudaMemAllocationTypePinned), cudaSuccess);
        assert!(!p.is_null());
        assert_ne!(p, default_pool(0));

        // Bad input.
        assert_eq!(cudaMemGetDefaultMemPool(&mut p, null_mut(), cudaMemAllocationTypePinned), cudaErrorInvalidValue);
        assert_eq!(cudaMemGetMemPool(null_mut(), &mut loc, cudaMemAllocationTypePinned), cudaErrorInvalidValue);
        assert_eq!(cudaMemSetMemPool(null_mut(), cudaMemAllocationTypePinned, mine), cudaErrorInvalidValue);
        assert_eq!(cudaMemSetMemPool(&mut loc, cudaMemAllocationTypePinned, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemGetDefaultMemPool(&mut p, &mut loc, cudaMemAllocationTypeInvalid), cudaErrorInvalidValue);
        let mut bad = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 7 };
        assert_eq!(cudaMemGetDefaultMemPool(&mut p, &mut bad, cudaMemAllocationTypePinned), cudaErrorInvalidValue);
        assert_eq!(loc, cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 1 }, "the caller's location is not modified");
    }
}

#[test]
fn pool_create_and_destroy_check_their_arguments() {
    two_devices();
    unsafe {
        let mut p = null_mut();
        assert_eq!(cudaMemPoolCreate(&mut p, null()), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolCreate(null_mut(), &device_props(0)), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuMemPoolCreate"), 0);
        let mut props = device_props(0);
        props.allocType = cudaMemAllocationTypeInvalid;
        assert_eq!(cudaMemPoolCreate(&mut p, &props), cudaErrorInvalidValue);
        let mut props = device_props(0);
        props.reserved[3] = 1;
        assert_eq!(cudaMemPoolCreate(&mut p, &props), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolCreate(&mut p, &device_props(5)), cudaErrorInvalidValue);

        assert_eq!(cudaMemPoolCreate(&mut p, &device_props(0)), cudaSuccess);
        assert_eq!(cudaMemPoolDestroy(p), cudaSuccess);
        assert_eq!(cudaMemPoolDestroy(p), cudaErrorInvalidValue, "destroyed twice");
        assert_eq!(cudaMemPoolDestroy(null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolDestroy(default_pool(0)), cudaErrorInvalidValue, "the default pool stays");
        let mut x = null_mut();
        assert_eq!(cudaMallocFromPoolAsync(&mut x, 16, p, null_mut()), cudaErrorInvalidValue, "destroyed pool");
    }
}

#[test]
fn max_size_limits_a_pool() {
    two_devices();
    unsafe {
        let mut props = device_props(0);
        props.maxSize = 4096;
        let mut pool = null_mut();
        assert_eq!(cudaMemPoolCreate(&mut pool, &props), cudaSuccess);
        let (mut a, mut b) = (null_mut(), null_mut());
        assert_eq!(cudaMallocFromPoolAsync(&mut a, 4096, pool, null_mut()), cudaSuccess);
        assert_eq!(cudaMallocFromPoolAsync(&mut b, 1, pool, null_mut()), cudaErrorMemoryAllocation);
        assert_eq!(cudaFreeAsync(a, null_mut()), cudaSuccess);
    }
}

#[test]
fn attributes_round_trip_and_reject_bad_input() {
    two_devices();
    unsafe {
        let pool = default_pool(0);
        let mut off: i32 = 0;
        assert_eq!(
            cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, (&mut off as *mut i32).cast()),
            cudaSuccess
        );
        let mut v: i32 = 7;
        assert_eq!(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, (&mut v as *mut i32).cast()), cudaSuccess);
        assert_eq!(v, 0);
        assert_eq!(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, (&mut v as *mut i32).cast()), cudaSuccess);
        assert_eq!(v, 1);

        // High-water marks reset to the current value when set to 0.
        let mut p = null_mut();
        assert_eq!(cudaMallocAsync(&mut p, 2048, null_mut()), cudaSuccess);
        assert_eq!(cudaFreeAsync(p, null_mut()), cudaSuccess);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrUsedMemHigh), 2048);
        let mut zero = 0u64;
        assert_eq!(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, (&mut zero as *mut u64).cast()), cudaSuccess);
        assert_eq!(attr_u64(pool, cudaMemPoolAttrUsedMemHigh), 0);
        // Current values are read-only.
        assert_eq!(
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, (&mut zero as *mut u64).cast()),
            cudaErrorInvalidValue
        );

        assert_eq!(cudaMemPoolGetAttribute(pool, cudaMemPoolAttr(99), (&mut v as *mut i32).cast()), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolGetAttribute(null_mut(), cudaMemPoolAttrUsedMemCurrent, (&mut v as *mut i32).cast()), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuMemPoolGetAttribute"), 5, "NULL pool and NULL value stop before the driver");
    }
}

#[test]
fn access_for_other_devices() {
    two_devices();
    unsafe {
        let pool = default_pool(0);
        let mut dev1 = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 1 };
        let mut f = cudaMemAccessFlags(-1);
        assert_eq!(cudaMemPoolGetAccess(&mut f, pool, &mut dev1), cudaSuccess);
        assert_eq!(f, cudaMemAccessFlagsProtNone);
        let mut dev0 = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 0 };
        assert_eq!(cudaMemPoolGetAccess(&mut f, pool, &mut dev0), cudaSuccess);
        assert_eq!(f, cudaMemAccessFlagsProtReadWrite, "the owner always has access");

        let grant = [cudaMemAccessDesc { location: dev1, flags: cudaMemAccessFlagsProtReadWrite }];
        assert_eq!(cudaMemPoolSetAccess(pool, grant.as_ptr(), 1), cudaSuccess);
        assert_eq!(cudaMemPoolGetAccess(&mut f, pool, &mut dev1), cudaSuccess);
        assert_eq!(f, cudaMemAccessFlagsProtReadWrite);
        let read = [cudaMemAccessDesc { location: dev1, flags: cudaMemAccessFlagsProtRead }];
        assert_eq!(cudaMemPoolSetAccess(pool, read.as_ptr(), 1), cudaSuccess);
        assert_eq!(cudaMemPoolGetAccess(&mut f, pool, &mut dev1), cudaSuccess);
        assert_eq!(f, cudaMemAccessFlagsProtRead);

        assert_eq!(cudaMemPoolSetAccess(pool, null(), 0), cudaSuccess);
        assert_eq!(cudaMemPoolSetAccess(pool, null(), 1), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolSetAccess(null_mut(), grant.as_ptr(), 1), cudaErrorInvalidValue);
        let bad = [cudaMemAccessDesc { location: cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 9 }, flags: cudaMemAccessFlagsProtRead }];
        assert_eq!(cudaMemPoolSetAccess(pool, bad.as_ptr(), 1), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolGetAccess(null_mut(), pool, &mut dev1), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolGetAccess(&mut f, pool, null_mut()), cudaErrorInvalidValue);
    }
}

#[test]
fn export_and_import_pools_and_pointers() {
    two_devices();
    unsafe {
        let mut props = device_props(0);
        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
        let mut pool = null_mut();
        assert_eq!(cudaMemPoolCreate(&mut pool, &props), cudaSuccess);
        let mut fd: i32 = -1;
        assert_eq!(
            cudaMemPoolExportToShareableHandle((&mut fd as *mut i32).cast(), pool, cudaMemHandleTypePosixFileDescriptor, 0),
            cudaSuccess
        );
        assert!(fd >= 0);
        let mut imported = null_mut();
        assert_eq!(
            cudaMemPoolImportFromShareableHandle(&mut imported, fd as usize as *mut c_void, cudaMemHandleTypePosixFileDescriptor, 0),
            cudaSuccess
        );
        assert_eq!(imported, pool);

        let mut p = null_mut();
        assert_eq!(cudaMallocFromPoolAsync(&mut p, 64, pool, null_mut()), cudaSuccess);
        let mut data = cudaMemPoolPtrExportData { reserved: [0; 64] };
        assert_eq!(cudaMemPoolExportPointer(&mut data, p), cudaSuccess);
        let mut q = null_mut();
        assert_eq!(cudaMemPoolImportPointer(&mut q, imported, &mut data), cudaSuccess);
        assert_eq!(p, q);

        // Bad input.
        assert_eq!(cudaMemPoolExportPointer(null_mut(), p), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolImportPointer(null_mut(), imported, &mut data), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolImportPointer(&mut q, imported, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaMemPoolImportPointer(&mut q, null_mut(), &mut data), cudaErrorInvalidValue);
        let mut junk = cudaMemPoolPtrExportData { reserved: [0x5a; 64] };
        assert_eq!(cudaMemPoolImportPointer(&mut q, imported, &mut junk), cudaErrorInvalidValue);
        assert_eq!(
            cudaMemPoolExportToShareableHandle(null_mut(), pool, cudaMemHandleTypePosixFileDescriptor, 0),
            cudaErrorInvalidValue
        );
        assert_eq!(
            cudaMemPoolExportToShareableHandle((&mut fd as *mut i32).cast(), null_mut(), cudaMemHandleTypePosixFileDescriptor, 0),
            cudaErrorInvalidValue
        );
        // The default pool was made without shareable handle types.
        assert_eq!(
            cudaMemPoolExportToShareableHandle((&mut fd as *mut i32).cast(), default_pool(0), cudaMemHandleTypePosixFileDescriptor, 0),
            cudaErrorInvalidValue
        );
        assert_eq!(cudaMemPoolImportFromShareableHandle(null_mut(), null_mut(), cudaMemHandleTypePosixFileDescriptor, 0), cudaErrorInvalidValue);
        assert_eq!(cudaFreeAsync(p, null_mut()), cudaSuccess);
    }
}

#[test]
fn insufficient_or_missing_driver_entry_points() {
    use_fake_driver(&[("FAKE_CUDA_MISSING", "cuMemAllocAsync"), ("FAKE_CUDA_OLD", "cuMemGetMemPool")]);
    unsafe {
        let mut p = null_mut();
        assert_eq!(cudaMallocAsync(&mut p, 16, null_mut()), cudaErrorNotSupported);
        let mut loc = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 0 };
        let mut pool = null_mut();
        assert_eq!(cudaMemGetMemPool(&mut pool, &mut loc, cudaMemAllocationTypePinned), cudaErrorCallRequiresNewerDriver);
    }
}
