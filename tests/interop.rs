//! Graphics interop over the fake driver. The fake has no GL/EGL/VDPAU
//! registration, so those calls must answer cudaErrorNotSupported; the
//! API-independent calls work on resources the fake makes up.

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::interop::*;
use cudart_shim::driver::api::misc_abi::{CUeglFrame, CUeglFrame_frame};
use cudart_shim::driver::*;
use cudart_shim::internals::interop::{driver_egl_frame, runtime_egl_frame};
use cudart_shim::types::*;
use std::ffi::c_void;
use std::ptr::null_mut;

fn resource(ptr: *mut c_void, size: usize) -> cudaGraphicsResource_t {
    let f: unsafe extern "C" fn(u64, usize) -> usize = fake::control("fake_cuda_graphics_resource");
    unsafe { f(ptr as u64, size) as cudaGraphicsResource_t }
}

#[test]
fn registration_without_driver_support_is_not_supported() {
    use_fake_driver(&[]);
    unsafe {
        let mut r = null_mut();
        assert_eq!(cudaGraphicsGLRegisterBuffer(&mut r, 1, 0), cudaErrorNotSupported);
        assert_eq!(cudaGraphicsGLRegisterImage(&mut r, 1, 0x0DE1, 0), cudaErrorNotSupported);
        assert_eq!(cudaGraphicsEGLRegisterImage(&mut r, 0x10 as EGLImageKHR, 0), cudaErrorNotSupported);
        assert_eq!(cudaGraphicsVDPAURegisterVideoSurface(&mut r, 1, 0), cudaErrorNotSupported);
        assert_eq!(cudaGraphicsVDPAURegisterOutputSurface(&mut r, 1, 0), cudaErrorNotSupported);
        assert_eq!(cudaGLRegisterBufferObject(1), cudaErrorNotSupported);
        assert_eq!(cudaGLUnregisterBufferObject(1), cudaErrorNotSupported);
        let mut p = null_mut();
        assert_eq!(cudaGLMapBufferObject(&mut p, 1), cudaErrorNotSupported);
        assert_eq!(cudaGLMapBufferObjectAsync(&mut p, 1, null_mut()), cudaErrorNotSupported);
        assert_eq!(cudaGLUnmapBufferObject(1), cudaErrorNotSupported);
        assert_eq!(cudaGLUnmapBufferObjectAsync(1, null_mut()), cudaErrorNotSupported);
        assert_eq!(cudaGLSetBufferObjectMapFlags(1, 0), cudaErrorNotSupported);
        let mut conn = null_mut();
        assert_eq!(cudaEGLStreamConsumerConnect(&mut conn, null_mut()), cudaErrorNotSupported);
        assert_eq!(cudaEGLStreamConsumerConnectWithFlags(&mut conn, null_mut(), 0), cudaErrorNotSupported);
        assert_eq!(cudaEGLStreamProducerConnect(&mut conn, null_mut(), 64, 64), cudaErrorNotSupported);
        assert_eq!(cudaEGLStreamConsumerDisconnect(&mut conn), cudaErrorNotSupported);
        assert_eq!(cudaEGLStreamProducerDisconnect(&mut conn), cudaErrorNotSupported);
        let mut ev = null_mut();
        assert_eq!(cudaEventCreateFromEGLSync(&mut ev, null_mut(), 0), cudaErrorNotSupported);
        let mut dev = -1;
        assert_eq!(cudaVDPAUGetDevice(&mut dev, 1, None), cudaErrorNotSupported);
        // Registration above initialized device 0 (measured on an H100:
        // NVIDIA's runtime answers this before looking at the VDPAU device).
        assert_eq!(cudaVDPAUSetVDPAUDevice(0, 1, None), cudaErrorSetOnActiveProcess);
        // NULL out-pointers are the runtime's own check, before the driver.
        assert_eq!(cudaGraphicsGLRegisterBuffer(null_mut(), 1, 0), cudaErrorInvalidValue);
        assert_eq!(cudaEGLStreamConsumerConnect(null_mut(), null_mut()), cudaErrorInvalidValue);
        assert_eq!(get_last_error_for_test(), cudaErrorInvalidValue);
    }
}

#[test]
fn vdpau_device_is_set_before_the_device_is_initialized() {
    use_fake_driver(&[]);
    unsafe {
        // Not initialized yet: the driver is asked (the fake has no VDPAU).
        assert_eq!(cudaVDPAUSetVDPAUDevice(0, 1, None), cudaErrorNotSupported);
        assert_eq!(cudaVDPAUSetVDPAUDevice(9, 1, None), cudaErrorInvalidDevice);
        assert_eq!(cudart_shim::api::memory::cudaFree(null_mut()), cudaSuccess);
        assert_eq!(cudaVDPAUSetVDPAUDevice(0, 1, None), cudaErrorSetOnActiveProcess);
    }
}

unsafe fn get_last_error_for_test() -> cudaError_t {
    unsafe { cudart_shim::api::error::cudaGetLastError() }
}

#[test]
fn map_get_pointer_unmap_unregister() {
    use_fake_driver(&[]);
    let mut buf = vec![0u8; 512];
    let r = resource(buf.as_mut_ptr().cast(), 512);
    unsafe {
        let mut list = [r];
        let mut p = null_mut();
        let mut size = 0usize;
        assert_eq!(cudaGraphicsResourceGetMappedPointer(&mut p, &mut size, r), cudaErrorNotMapped);
        assert_eq!(cudaGraphicsResourceSetMapFlags(r, cudaGraphicsMapFlagsReadOnly.0 as u32), cudaSuccess);
        assert_eq!(cudaGraphicsMapResources(1, list.as_mut_ptr(), null_mut()), cudaSuccess);
        assert_eq!(cudaGraphicsMapResources(1, list.as_mut_ptr(), null_mut()), cudaErrorAlreadyMapped);
        assert_eq!(cudaGraphicsResourceGetMappedPointer(&mut p, &mut size, r), cudaSuccess);
        assert_eq!((p, size), (buf.as_mut_ptr().cast(), 512));
        assert_eq!(cudaGraphicsResourceGetMappedPointer(&mut p, null_mut(), r), cudaSuccess, "size is optional");
        assert_eq!(cudaGraphicsResourceSetMapFlags(r, 0), cudaErrorAlreadyMapped);
        assert_eq!(cudaGraphicsUnmapResources(1, list.as_mut_ptr(), cudaStreamPerThread), cudaSuccess);
        assert_eq!(cudaGraphicsUnmapResources(1, list.as_mut_ptr(), null_mut()), cudaErrorNotMapped);
        assert_eq!(cudaGraphicsUnregisterResource(r), cudaSuccess);
        assert_eq!(cudaGraphicsUnregisterResource(r), cudaErrorInvalidResourceHandle, "unregistered twice");
    }
}

#[test]
fn generic_calls_bad_input() {
    use_fake_driver(&[]);
    unsafe {
        let mut list = [null_mut()];
        assert_eq!(cudaGraphicsMapResources(0, list.as_mut_ptr(), null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaGraphicsMapResources(-1, list.as_mut_ptr(), null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaGraphicsUnmapResources(1, null_mut(), null_mut()), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuGraphicsMapResources") + fake::calls("cuGraphicsUnmapResources"), 0);
        assert_eq!(cudaGraphicsUnregisterResource(null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaGraphicsResourceSetMapFlags(null_mut(), 0), cudaErrorInvalidResourceHandle);
        let mut p = null_mut();
        assert_eq!(cudaGraphicsResourceGetMappedPointer(null_mut(), null_mut(), 0x40 as cudaGraphicsResource_t), cudaErrorInvalidValue);
        assert_eq!(cudaGraphicsResourceGetMappedPointer(&mut p, null_mut(), null_mut()), cudaErrorInvalidResourceHandle);
        let mut a = null_mut();
        assert_eq!(cudaGraphicsSubResourceGetMappedArray(&mut a, null_mut(), 0, 0), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaGraphicsSubResourceGetMappedArray(null_mut(), 0x40 as cudaGraphicsResource_t, 0, 0), cudaErrorInvalidValue);
        let mut m = null_mut();
        assert_eq!(cudaGraphicsResourceGetMappedMipmappedArray(&mut m, null_mut()), cudaErrorInvalidResourceHandle);
        // The fake has no array mapping: not supported, via the driver table.
        let r = resource(null_mut(), 0);
        assert_eq!(cudaGraphicsSubResourceGetMappedArray(&mut a, r, 0, 0), cudaErrorNotSupported);
        assert_eq!(cudaGraphicsResourceGetMappedMipmappedArray(&mut m, r), cudaErrorNotSupported);
        // Not an EGL resource: the driver's answer.
        let mut frame: cudaEglFrame = std::mem::zeroed();
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(&mut frame, r, 0, 0), cudaErrorNotMapped);
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(null_mut(), r, 0, 0), cudaErrorInvalidValue);
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(&mut frame, null_mut(), 0, 0), cudaErrorInvalidResourceHandle);
        // Both NULL: the resource is checked first (NVIDIA, H100).
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(null_mut(), null_mut(), 0, 0), cudaErrorInvalidResourceHandle);
        assert_eq!(fake::calls("cuGraphicsResourceGetMappedEglFrame"), 1, "NULL arguments stop in the runtime");
    }
}

fn set_egl_frame(r: cudaGraphicsResource_t, f: &CUeglFrame) {
    let set: unsafe extern "C" fn(usize, *const u8, usize) = fake::control("fake_cuda_graphics_egl_frame");
    unsafe { set(r as usize, (f as *const CUeglFrame).cast(), std::mem::size_of::<CUeglFrame>()) };
}

#[test]
fn mapped_egl_frame_comes_back_converted() {
    use_fake_driver(&[]);
    let r = resource(null_mut(), 0);
    unsafe {
        let mut f: cudaEglFrame = std::mem::zeroed();
        // NV12 pitch frame from the driver: plane 1 derived from the format.
        set_egl_frame(r, &driver_frame(1, true));
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(&mut f, r, 0, 0), cudaSuccess);
        assert_eq!((f.planeCount, f.frameType, f.eglColorFormat), (2, cudaEglFrameType(1), cudaEglColorFormat(1)));
        let p = f.planeDesc[1];
        assert_eq!((p.width, p.height, p.pitch, p.numChannels), (32, 16, 64, 1));
        assert_eq!(f.frame.pPitch[1].ptr as usize, 0x2000);
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(&mut f, r, 1, 0), cudaErrorInvalidValue, "driver: index");

        // Formats the driver has and the runtime does not name (RGB = 4):
        // the call fails after the driver answered, the frame untouched.
        let mut d = driver_frame(1, true);
        d.eglColorFormat = 4;
        d.planeCount = 1;
        set_egl_frame(r, &d);
        f.planeCount = 77;
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(&mut f, r, 0, 0), cudaErrorInvalidValue);
        assert_eq!(f.planeCount, 77);
        d.eglColorFormat = 7;
        d.frameType = 2;
        set_egl_frame(r, &d);
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(&mut f, r, 0, 0), cudaErrorInvalidValue, "frame type 2");
        // A channel count with no runtime descriptor.
        d.frameType = 1;
        d.numChannels = 5;
        set_egl_frame(r, &d);
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(&mut f, r, 0, 0), cudaErrorInvalidChannelDescriptor);
        assert_eq!(get_last_error_for_test(), cudaErrorInvalidChannelDescriptor);
    }
}

#[test]
fn egl_return_frame_null_frame_is_an_invalid_resource_handle() {
    use_fake_driver(&[]);
    unsafe {
        let mut conn = null_mut();
        let mut frame: cudaEglFrame = std::mem::zeroed();
        // Checked first, before the connection (cuda-python's
        // reimplementation of NVIDIA's runtime; the GPU program compares).
        assert_eq!(cudaEGLStreamProducerReturnFrame(&mut conn, null_mut(), null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEGLStreamProducerReturnFrame(null_mut(), null_mut(), null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaEGLStreamProducerReturnFrame(null_mut(), &mut frame, null_mut()), cudaErrorInvalidValue);
        // This fake driver has no EGL streams.
        assert_eq!(cudaEGLStreamProducerReturnFrame(&mut conn, &mut frame, null_mut()), cudaErrorNotSupported);
    }
}

#[test]
fn gl_devices_are_runtime_ordinals() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "3")]);
    unsafe {
        let mut n = 0u32;
        let mut devs = [-1i32; 4];
        assert_eq!(cudaGLGetDevices(&mut n, devs.as_mut_ptr(), 4, cudaGLDeviceList(1)), cudaSuccess);
        assert_eq!(n, 3);
        assert_eq!(&devs[..3], &[2, 1, 0]);
        assert_eq!(devs[3], -1, "nothing past the count");
        // Room for one: the count is still all of them.
        let mut one = [-1i32; 1];
        assert_eq!(cudaGLGetDevices(&mut n, one.as_mut_ptr(), 1, cudaGLDeviceList(1)), cudaSuccess);
        assert_eq!((n, one[0]), (3, 2));
        assert_eq!(fake::calls("cuDevicePrimaryCtxRetain"), 0, "no context is created");
        assert_eq!(cudaGLGetDevices(null_mut(), devs.as_mut_ptr(), 4, cudaGLDeviceList(1)), cudaErrorInvalidValue);
        assert_eq!(cudaGLGetDevices(&mut n, null_mut(), 4, cudaGLDeviceList(1)), cudaErrorInvalidValue);
        assert_eq!(cudaGLGetDevices(&mut n, devs.as_mut_ptr(), 4, cudaGLDeviceList(9)), cudaErrorInvalidValue);
    }
}

#[test]
fn gl_set_gl_device_selects_the_device() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
    unsafe {
        assert_eq!(cudaGLSetGLDevice(1), cudaSuccess);
        let mut d = -1;
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        assert_eq!(d, 1);
        assert_eq!(cudaGLSetGLDevice(2), cudaErrorInvalidDevice);
        assert_eq!(cudaGLSetGLDevice(-1), cudaErrorInvalidDevice);
    }
}

fn driver_frame(format: i32, pitch: bool) -> CUeglFrame {
    CUeglFrame {
        frame: if pitch {
            CUeglFrame_frame { pPitch: [0x1000 as *mut c_void, 0x2000 as *mut c_void, null_mut()] }
        } else {
            CUeglFrame_frame { pArray: [0x10 as cudaArray_t, 0x20 as cudaArray_t, 0x30 as cudaArray_t] }
        },
        width: 64,
        height: 32,
        depth: 1,
        pitch: 128,
        planeCount: if pitch { 2 } else { 3 },
        numChannels: 1,
        frameType: pitch as i32,
        eglColorFormat: format,
        cuFormat: CU_AD_FORMAT_UNSIGNED_INT8,
    }
}

#[test]
fn egl_frames_convert_plane_by_plane() {
    // YUV420 semi-planar (NV12), pitch: plane 1 is half the size and half
    // the pitch, keeps plane 0's channel count, and its descriptor gains an
    // 8-bit second channel (interleaved U and V).
    let f = runtime_egl_frame(&driver_frame(1, true)).unwrap();
    assert_eq!(f.planeCount, 2);
    assert_eq!(f.frameType, cudaEglFrameType(1));
    assert_eq!(f.eglColorFormat, cudaEglColorFormat(1));
    let p = f.planeDesc;
    assert_eq!((p[0].width, p[0].height, p[0].depth, p[0].pitch, p[0].numChannels), (64, 32, 1, 128, 1));
    assert_eq!(p[0].channelDesc, cudaChannelFormatDesc { x: 8, y: 0, z: 0, w: 0, f: cudaChannelFormatKindUnsigned });
    assert_eq!((p[1].width, p[1].height, p[1].depth, p[1].pitch, p[1].numChannels), (32, 16, 1, 64, 1));
    assert_eq!(p[1].channelDesc, cudaChannelFormatDesc { x: 8, y: 8, z: 0, w: 0, f: cudaChannelFormatKindUnsigned });
    assert_eq!(p[2], cudaEglPlaneDesc::default(), "planes past the count stay empty");
    let pp = unsafe { f.frame.pPitch };
    assert_eq!((pp[0].ptr as usize, pp[0].pitch, pp[0].xsize, pp[0].ysize), (0x1000, 128, 64, 32));
    assert_eq!((pp[1].ptr as usize, pp[1].pitch, pp[1].xsize, pp[1].ysize), (0x2000, 64, 32, 16));
    assert_eq!((pp[2].ptr, pp[2].pitch), (null_mut(), 0));

    // And back: the driver's frame describes plane 0, its channel count
    // from the channel descriptor.
    let d = driver_egl_frame(&f).unwrap();
    assert_eq!((d.width, d.height, d.depth, d.pitch, d.planeCount, d.numChannels), (64, 32, 1, 128, 2, 1));
    assert_eq!((d.frameType, d.eglColorFormat, d.cuFormat), (1, 1, CU_AD_FORMAT_UNSIGNED_INT8));
    assert_eq!(unsafe { d.frame.pPitch }.map(|p| p as usize), [0x1000, 0x2000, 0], "only the frame's planes");

    // YUV422 planar arrays: chroma planes half width (rounded down), full
    // height, one channel.
    let mut odd = driver_frame(2, false);
    odd.width = 65;
    let f = runtime_egl_frame(&odd).unwrap();
    assert_eq!(f.planeCount, 3);
    let p = f.planeDesc;
    assert_eq!((p[1].width, p[1].height, p[1].pitch, p[2].width, p[2].numChannels), (32, 32, 64, 32, 1));
    assert_eq!(p[2].channelDesc, cudaChannelFormatDesc { x: 8, y: 0, z: 0, w: 0, f: cudaChannelFormatKindUnsigned });
    assert_eq!(unsafe { f.frame.pArray }.map(|a| a as usize), [0x10, 0x20, 0x30]);
    let d = driver_egl_frame(&f).unwrap();
    assert_eq!(unsafe { d.frame.pArray }.map(|a| a as usize), [0x10, 0x20, 0x30]);

    // 10-bit 4:2:0 semi-planar: 16-bit interleaved chroma.
    let mut p010 = driver_frame(23, true);
    p010.cuFormat = CU_AD_FORMAT_UNSIGNED_INT16;
    let f = runtime_egl_frame(&p010).unwrap();
    assert_eq!(f.planeDesc[1].channelDesc, cudaChannelFormatDesc { x: 16, y: 16, z: 0, w: 0, f: cudaChannelFormatKindUnsigned });
    // YUV444 planar: chroma planes the size and pitch of plane 0.
    let f = runtime_egl_frame(&driver_frame(10, false)).unwrap();
    assert_eq!((f.planeDesc[2].width, f.planeDesc[2].height, f.planeDesc[2].pitch), (64, 32, 128));
    // A format with one plane that claims three: the others have no size.
    let f = runtime_egl_frame(&driver_frame(7, false)).unwrap();
    assert_eq!((f.planeDesc[1].width, f.planeDesc[1].height, f.planeDesc[1].pitch, f.planeDesc[1].depth), (0, 0, 0, 1));

    // Driver values the runtime has no name for.
    assert_eq!(runtime_egl_frame(&driver_frame(5, true)).err(), Some(cudaErrorInvalidValue), "BGR");
    assert_eq!(runtime_egl_frame(&driver_frame(103, true)).err(), Some(cudaErrorInvalidValue));
    assert_eq!(runtime_egl_frame(&driver_frame(117, true)).err(), Some(cudaErrorInvalidValue));
    let mut bad = driver_frame(1, true);
    bad.cuFormat = CUarray_format(0x7777);
    assert_eq!(runtime_egl_frame(&bad).err(), Some(cudaErrorInvalidChannelDescriptor));

    // A plane-0 channel descriptor that is no array format is rejected, so
    // are color formats and frame types the runtime does not name.
    let good = runtime_egl_frame(&driver_frame(2, false)).unwrap();
    let mut bad = good;
    bad.planeDesc[0].channelDesc = cudaChannelFormatDesc { x: 8, y: 8, z: 8, w: 0, f: cudaChannelFormatKindUnsigned };
    assert_eq!(driver_egl_frame(&bad).err(), Some(cudaErrorInvalidChannelDescriptor));
    let mut bad = good;
    bad.eglColorFormat = cudaEglColorFormat(30);
    assert_eq!(driver_egl_frame(&bad).err(), Some(cudaErrorInvalidValue));
    let mut bad = good;
    bad.frameType = cudaEglFrameType(2);
    assert_eq!(driver_egl_frame(&bad).err(), Some(cudaErrorInvalidValue));
}
