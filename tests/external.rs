//! External memory and semaphores over the fake driver: an opaque fd
//! (a memfd the test writes) is imported, mapped and read back.

mod common;
use common::*;
use cudart_shim::api::external::*;
use cudart_shim::types::*;
use std::ffi::c_int;
use std::ptr::{null, null_mut};

/// A memfd of `len` bytes holding 0, 1, 2, ... (mod 251).
fn memfd(len: usize) -> c_int {
    let fd = unsafe { libc::memfd_create(c"external-test".as_ptr(), 0) };
    assert!(fd >= 0);
    let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    assert_eq!(unsafe { libc::write(fd, data.as_ptr().cast(), len) }, len as isize);
    fd
}

fn mem_desc(fd: c_int, size: u64) -> cudaExternalMemoryHandleDesc {
    cudaExternalMemoryHandleDesc {
        r#type: cudaExternalMemoryHandleTypeOpaqueFd,
        handle: cudaExternalMemoryHandleUnion { fd },
        size,
        flags: 0,
        reserved: [0; 16],
    }
}

fn import(size: usize) -> (cudaExternalMemory_t, c_int) {
    let fd = memfd(size);
    // The driver owns (and closes) the fd it is given: hand it a duplicate.
    let dup = unsafe { libc::dup(fd) };
    let mut m = null_mut();
    assert_eq!(unsafe { cudaImportExternalMemory(&mut m, &mem_desc(dup, size as u64)) }, cudaSuccess);
    (m, fd)
}

#[test]
fn imported_memory_maps_as_a_buffer() {
    use_fake_driver(&[]);
    let (m, fd) = import(8192);
    unsafe {
        let desc = cudaExternalMemoryBufferDesc { offset: 1024, size: 2048, ..Default::default() };
        let mut p = null_mut();
        assert_eq!(cudaExternalMemoryGetMappedBuffer(&mut p, m, &desc), cudaSuccess);
        let bytes = std::slice::from_raw_parts(p.cast::<u8>(), 2048);
        assert!(bytes.iter().enumerate().all(|(i, &b)| b == ((i + 1024) % 251) as u8));
        // Writes through the mapping reach the memory behind the fd.
        *p.cast::<u8>() = 0xee;
        let mut back = 0u8;
        assert_eq!(libc::pread(fd, (&mut back as *mut u8).cast(), 1, 1024), 1);
        assert_eq!(back, 0xee);
        assert_eq!(cudaDestroyExternalMemory(m), cudaSuccess);
        assert_eq!(cudaDestroyExternalMemory(m), cudaErrorInvalidResourceHandle, "destroyed twice");
        libc::close(fd);
    }
}

#[test]
fn external_memory_bad_input() {
    use_fake_driver(&[]);
    let (m, fd) = import(4096);
    unsafe {
        let mut out = null_mut();
        assert_eq!(cudaImportExternalMemory(&mut out, null()), cudaErrorInvalidValue);
        assert_eq!(cudaImportExternalMemory(null_mut(), &mem_desc(fd, 4096)), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuImportExternalMemory"), 1, "NULL arguments stop before the driver");
        let mut d = mem_desc(-1, 4096);
        assert_eq!(cudaImportExternalMemory(&mut out, &d), cudaErrorInvalidValue);
        d = mem_desc(fd, 4096);
        d.r#type = cudaExternalMemoryHandleType(42);
        assert_eq!(cudaImportExternalMemory(&mut out, &d), cudaErrorInvalidValue);
        d.r#type = cudaExternalMemoryHandleTypeOpaqueWin32;
        assert_eq!(cudaImportExternalMemory(&mut out, &d), cudaErrorNotSupported);

        let mut p = null_mut();
        let too_far = cudaExternalMemoryBufferDesc { offset: 4000, size: 200, ..Default::default() };
        assert_eq!(cudaExternalMemoryGetMappedBuffer(&mut p, m, &too_far), cudaErrorInvalidValue);
        let flagged = cudaExternalMemoryBufferDesc { offset: 0, size: 16, flags: 1, ..Default::default() };
        assert_eq!(cudaExternalMemoryGetMappedBuffer(&mut p, m, &flagged), cudaErrorInvalidValue);
        let ok = cudaExternalMemoryBufferDesc { offset: 0, size: 16, ..Default::default() };
        assert_eq!(cudaExternalMemoryGetMappedBuffer(&mut p, m, null()), cudaErrorInvalidValue);
        assert_eq!(cudaExternalMemoryGetMappedBuffer(null_mut(), m, &ok), cudaErrorInvalidValue);
        // NULL handles are invalid values here (NVIDIA, H100, CUDA 13.0).
        assert_eq!(cudaExternalMemoryGetMappedBuffer(&mut p, null_mut(), &ok), cudaErrorInvalidValue);
        assert_eq!(cudaDestroyExternalMemory(null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaDestroyExternalMemory(m), cudaSuccess);
        assert_eq!(cudaExternalMemoryGetMappedBuffer(&mut p, m, &ok), cudaErrorInvalidResourceHandle, "destroyed");
        libc::close(fd);
    }
}

#[test]
fn mipmapped_array_descriptor_is_converted_field_by_field() {
    use_fake_driver(&[]);
    let (m, fd) = import(1 << 16);
    unsafe {
        let desc = cudaExternalMemoryMipmappedArrayDesc {
            offset: 4096,
            formatDesc: cudaChannelFormatDesc { x: 32, y: 32, z: 32, w: 32, f: cudaChannelFormatKindFloat },
            extent: cudaExtent { width: 64, height: 32, depth: 0 },
            flags: 0x02, // cudaArraySurfaceLoadStore
            numLevels: 3,
            reserved: [0; 16],
        };
        let mut mip = null_mut();
        assert_eq!(cudaExternalMemoryGetMappedMipmappedArray(&mut mip, m, &desc), cudaSuccess);
        let get: unsafe extern "C" fn(usize, *mut [u8; 120]) -> c_int = fake::control("fake_cuda_mipmap_desc");
        let mut raw = [0u8; 120];
        assert_eq!(get(mip as usize, &mut raw), 0);
        let u64_at = |o: usize| u64::from_ne_bytes(raw[o..o + 8].try_into().unwrap());
        let u32_at = |o: usize| u32::from_ne_bytes(raw[o..o + 4].try_into().unwrap());
        assert_eq!(u64_at(0), 4096, "offset");
        assert_eq!((u64_at(8), u64_at(16), u64_at(24)), (64, 32, 0), "Width, Height, Depth");
        assert_eq!(u32_at(32), 0x20, "Format = CU_AD_FORMAT_FLOAT");
        assert_eq!(u32_at(36), 4, "NumChannels");
        assert_eq!(u32_at(40), 0x02, "Flags = CUDA_ARRAY3D_SURFACE_LDST");
        assert_eq!(u32_at(48), 3, "numLevels");

        // Half2 and a normalized kind.
        let mut d2 = desc;
        d2.formatDesc = cudaChannelFormatDesc { x: 16, y: 16, z: 0, w: 0, f: cudaChannelFormatKindFloat };
        assert_eq!(cudaExternalMemoryGetMappedMipmappedArray(&mut mip, m, &d2), cudaSuccess);
        assert_eq!(get(mip as usize, &mut raw), 0);
        assert_eq!((u32::from_ne_bytes(raw[32..36].try_into().unwrap()), u32::from_ne_bytes(raw[36..40].try_into().unwrap())), (0x10, 2));

        // Bad input: three channels are not an array format.
        let mut bad = desc;
        bad.formatDesc = cudaChannelFormatDesc { x: 8, y: 8, z: 8, w: 0, f: cudaChannelFormatKindUnsigned };
        assert_eq!(cudaExternalMemoryGetMappedMipmappedArray(&mut mip, m, &bad), cudaErrorInvalidChannelDescriptor);
        assert_eq!(cudaExternalMemoryGetMappedMipmappedArray(&mut mip, m, null()), cudaErrorInvalidValue);
        assert_eq!(cudaExternalMemoryGetMappedMipmappedArray(null_mut(), m, &desc), cudaErrorInvalidValue);
        assert_eq!(cudaExternalMemoryGetMappedMipmappedArray(&mut mip, null_mut(), &desc), cudaErrorInvalidResourceHandle);
        assert_eq!(fake::calls("cuExternalMemoryGetMappedMipmappedArray"), 2);
        libc::close(fd);
    }
}

fn sem_desc(ty: cudaExternalSemaphoreHandleType, fd: c_int) -> cudaExternalSemaphoreHandleDesc {
    cudaExternalSemaphoreHandleDesc { r#type: ty, handle: cudaExternalSemaphoreHandleUnion { fd }, flags: 0, reserved: [0; 16] }
}

fn signal_params(value: u64) -> cudaExternalSemaphoreSignalParams {
    cudaExternalSemaphoreSignalParams {
        params: cudaExternalSemaphoreSignalParamsParams {
            fence: cudaExternalSemaphoreFence { value },
            nvSciSync: cudaExternalSemaphoreNvSciSync { reserved: 0 },
            keyedMutex: Default::default(),
            reserved: [0; 12],
        },
        flags: 0,
        reserved: [0; 16],
    }
}

fn wait_params(value: u64) -> cudaExternalSemaphoreWaitParams {
    cudaExternalSemaphoreWaitParams {
        params: cudaExternalSemaphoreWaitParamsParams {
            fence: cudaExternalSemaphoreFence { value },
            nvSciSync: cudaExternalSemaphoreNvSciSync { reserved: 0 },
            keyedMutex: Default::default(),
            reserved: [0; 10],
        },
        flags: 0,
        reserved: [0; 16],
    }
}

#[test]
fn semaphores_signal_and_wait_in_stream_order() {
    use_fake_driver(&[]);
    let value: unsafe extern "C" fn(usize) -> u64 = fake::control("fake_cuda_semaphore_value");
    unsafe {
        let (mut bin, mut tl) = (null_mut(), null_mut());
        assert_eq!(cudaImportExternalSemaphore(&mut bin, &sem_desc(cudaExternalSemaphoreHandleTypeOpaqueFd, memfd(1))), cudaSuccess);
        assert_eq!(
            cudaImportExternalSemaphore(&mut tl, &sem_desc(cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd, memfd(1))),
            cudaSuccess
        );
        let sems = [bin, tl];
        let sig = [signal_params(0), signal_params(42)];
        assert_eq!(cudaSignalExternalSemaphoresAsync(sems.as_ptr(), sig.as_ptr(), 2, null_mut()), cudaSuccess);
        assert_eq!(value(bin as usize), 1);
        assert_eq!(value(tl as usize), 42, "the timeline takes the fence value");
        let wait = [wait_params(0), wait_params(42)];
        assert_eq!(cudaWaitExternalSemaphoresAsync_ptsz(sems.as_ptr(), wait.as_ptr(), 2, cudaStreamPerThread), cudaSuccess);
        assert_eq!(value(bin as usize), 0, "a binary semaphore's wait consumes the signal");
        assert_eq!(cudaSignalExternalSemaphoresAsync_ptsz(&tl, &signal_params(43), 1, null_mut()), cudaSuccess);
        assert_eq!(value(tl as usize), 43);
        assert_eq!(cudaWaitExternalSemaphoresAsync(&tl, &wait_params(43), 1, cudaStreamLegacy), cudaSuccess);
        assert_eq!(fake::calls("cuSignalExternalSemaphoresAsync"), 2);
        assert_eq!(fake::calls("cuWaitExternalSemaphoresAsync"), 2);
        assert_eq!(cudaDestroyExternalSemaphore(bin), cudaSuccess);
        assert_eq!(cudaSignalExternalSemaphoresAsync(&bin, &signal_params(0), 1, null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaDestroyExternalSemaphore(bin), cudaErrorInvalidResourceHandle, "destroyed twice");
        assert_eq!(cudaDestroyExternalSemaphore(tl), cudaSuccess);
    }
}

#[test]
fn semaphores_bad_input() {
    use_fake_driver(&[]);
    unsafe {
        let mut s = null_mut();
        assert_eq!(cudaImportExternalSemaphore(&mut s, null()), cudaErrorInvalidValue);
        assert_eq!(cudaImportExternalSemaphore(null_mut(), &sem_desc(cudaExternalSemaphoreHandleTypeOpaqueFd, 0)), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuImportExternalSemaphore"), 0);
        assert_eq!(cudaImportExternalSemaphore(&mut s, &sem_desc(cudaExternalSemaphoreHandleType(77), memfd(1))), cudaErrorInvalidValue);
        assert_eq!(cudaImportExternalSemaphore(&mut s, &sem_desc(cudaExternalSemaphoreHandleTypeOpaqueFd, -1)), cudaErrorInvalidValue);
        assert_eq!(cudaImportExternalSemaphore(&mut s, &sem_desc(cudaExternalSemaphoreHandleTypeD3D12Fence, 3)), cudaErrorNotSupported);
        assert_eq!(cudaImportExternalSemaphore(&mut s, &sem_desc(cudaExternalSemaphoreHandleTypeOpaqueFd, memfd(1))), cudaSuccess);

        assert_eq!(cudaSignalExternalSemaphoresAsync(null(), &signal_params(0), 1, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaWaitExternalSemaphoresAsync(&s, null(), 1, null_mut()), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuSignalExternalSemaphoresAsync") + fake::calls("cuWaitExternalSemaphoresAsync"), 0);
        assert_eq!(cudaSignalExternalSemaphoresAsync(null(), null(), 0, null_mut()), cudaSuccess, "nothing to signal");
        let mut p = signal_params(0);
        p.flags = 1;
        assert_eq!(cudaSignalExternalSemaphoresAsync(&s, &p, 1, null_mut()), cudaErrorInvalidValue);
        // NULL is an invalid value here (NVIDIA, H100, CUDA 13.0).
        assert_eq!(cudaDestroyExternalSemaphore(null_mut()), cudaErrorInvalidValue);
    }
}
