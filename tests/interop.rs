//! Graphics interop over the fake driver. The fake has no GL/EGL/VDPAU
//! registration, so those calls must answer cudaErrorNotSupported; the
//! API-independent calls work on resources the fake makes up.

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::interop::*;
use cudart_shim::driver::api::misc_abi::{CUeglFrame, CUeglFrame_frame};
use cudart_shim::driver::*;
use cudart_shim::runtime::interop::{driver_egl_frame, runtime_egl_frame};
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
        assert_eq!(cudaVDPAUSetVDPAUDevice(0, 1, None), cudaErrorNotSupported);
        // NULL out-pointers are the runtime's own check, before the driver.
        assert_eq!(cudaGraphicsGLRegisterBuffer(null_mut(), 1, 0), cudaErrorInvalidValue);
        assert_eq!(cudaEGLStreamConsumerConnect(null_mut(), null_mut()), cudaErrorInvalidValue);
        assert_eq!(get_last_error_for_test(), cudaErrorInvalidValue);
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
        let mut frame: cudaEglFrame = std::mem::zeroed();
        assert_eq!(cudaGraphicsResourceGetMappedEglFrame(&mut frame, r, 0, 0), cudaErrorNotSupported);
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
    // YUV420 semi-planar, pitch: plane 1 is half size with two channels.
    let f = runtime_egl_frame(&driver_frame(1, true));
    assert_eq!(f.planeCount, 2);
    assert_eq!(f.frameType, cudaEglFrameType(1));
    assert_eq!(f.eglColorFormat, cudaEglColorFormat(1));
    let p = f.planeDesc;
    assert_eq!((p[0].width, p[0].height, p[0].pitch, p[0].numChannels), (64, 32, 128, 1));
    assert_eq!(p[0].channelDesc, cudaChannelFormatDesc { x: 8, y: 0, z: 0, w: 0, f: cudaChannelFormatKindUnsigned });
    assert_eq!((p[1].width, p[1].height, p[1].numChannels), (32, 16, 2));
    assert_eq!(p[1].channelDesc, cudaChannelFormatDesc { x: 8, y: 8, z: 0, w: 0, f: cudaChannelFormatKindUnsigned });
    assert_eq!(p[2], cudaEglPlaneDesc::default(), "planes past the count stay empty");
    let pp = unsafe { f.frame.pPitch };
    assert_eq!((pp[0].ptr as usize, pp[0].pitch, pp[0].xsize, pp[0].ysize), (0x1000, 128, 64, 32));
    assert_eq!((pp[1].ptr as usize, pp[1].xsize, pp[1].ysize), (0x2000, 32, 16));

    // And back: the driver's frame describes plane 0.
    let d = driver_egl_frame(&f).unwrap();
    assert_eq!((d.width, d.height, d.depth, d.pitch, d.planeCount, d.numChannels), (64, 32, 1, 128, 2, 1));
    assert_eq!((d.frameType, d.eglColorFormat, d.cuFormat), (1, 1, CU_AD_FORMAT_UNSIGNED_INT8));
    assert_eq!(unsafe { d.frame.pPitch }[1] as usize, 0x2000);

    // YUV422 planar arrays: chroma planes half width, full height.
    let f = runtime_egl_frame(&driver_frame(2, false));
    assert_eq!(f.planeCount, 3);
    assert_eq!((f.planeDesc[1].width, f.planeDesc[1].height, f.planeDesc[2].numChannels), (32, 32, 1));
    assert_eq!(unsafe { f.frame.pArray }.map(|a| a as usize), [0x10, 0x20, 0x30]);
    let d = driver_egl_frame(&f).unwrap();
    assert_eq!(unsafe { d.frame.pArray }.map(|a| a as usize), [0x10, 0x20, 0x30]);

    // A plane-0 channel descriptor that is no array format is rejected.
    let mut bad = f;
    bad.planeDesc[0].channelDesc = cudaChannelFormatDesc { x: 8, y: 8, z: 8, w: 0, f: cudaChannelFormatKindUnsigned };
    assert_eq!(driver_egl_frame(&bad).err(), Some(cudaErrorInvalidChannelDescriptor));
}
