//! Graphics interop (OpenGL, EGL, VDPAU) on the driver's entry points.
//!
//! `cudaGraphicsResource_t` is the driver's `CUgraphicsResource`. Every
//! call forwards to the driver's counterpart; a driver without one (for
//! instance the deprecated `cuGLRegisterBufferObject` family on a driver
//! that dropped it) makes the call return `cudaErrorNotSupported`, logged
//! once, through the driver table. When the program has no graphics
//! context the driver's error comes back unchanged.

use crate::runtime::required;
use super::context::{enter, set_device};
use super::state::runtime;
use crate::driver::api::misc_abi::{CUeglFrame, CUeglFrame_frame};
use crate::driver::{CUdevice, CUdeviceptr, CUstream};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

// ---- Common ----------------------------------------------------------------

fn resource(res: cudaGraphicsResource_t) -> CudaResult<cudaGraphicsResource_t> {
    if res.is_null() { Err(cudaErrorInvalidResourceHandle) } else { Ok(res) }
}

/// `cudaGraphicsUnregisterResource`.
pub fn unregister(res: cudaGraphicsResource_t) -> CudaResult {
    enter()?;
    let res = resource(res)?;
    cu!(cuGraphicsUnregisterResource(res))
}

/// `cudaGraphicsResourceSetMapFlags`: runtime and driver map flags agree.
pub fn set_map_flags(res: cudaGraphicsResource_t, flags: c_uint) -> CudaResult {
    enter()?;
    let res = resource(res)?;
    cu!(cuGraphicsResourceSetMapFlags(res, flags))
}

/// `cudaGraphicsMapResources` / `cudaGraphicsUnmapResources`.
pub fn map(count: c_int, res: *mut cudaGraphicsResource_t, stream: cudaStream_t, unmap: bool) -> CudaResult {
    enter()?;
    if count <= 0 || res.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    if unmap {
        cu!(cuGraphicsUnmapResources(count as c_uint, res, stream))
    } else {
        cu!(cuGraphicsMapResources(count as c_uint, res, stream))
    }
}

/// `cudaGraphicsResourceGetMappedPointer`: `size` may be NULL.
pub fn mapped_pointer(ptr: Option<&mut *mut c_void>, size: Option<&mut usize>, res: cudaGraphicsResource_t) -> CudaResult {
    enter()?;
    let ptr = required(ptr)?;
    let mut d: CUdeviceptr = 0;
    let mut n = 0usize;
    let res = resource(res)?;
    cu!(cuGraphicsResourceGetMappedPointer(&mut d, &mut n, res))?;
    *ptr = d as *mut c_void;
    // The size is optional.
    if let Some(s) = size {
        *s = n;
    }
    Ok(())
}

/// `cudaGraphicsSubResourceGetMappedArray`.
pub fn mapped_array(array: Option<&mut cudaArray_t>, res: cudaGraphicsResource_t, index: c_uint, level: c_uint) -> CudaResult {
    enter()?;
    let array = required(array)?;
    let res = resource(res)?;
    cu!(cuGraphicsSubResourceGetMappedArray(array, res, index, level))
}

/// `cudaGraphicsResourceGetMappedMipmappedArray`.
pub fn mapped_mipmapped_array(mipmap: Option<&mut cudaMipmappedArray_t>, res: cudaGraphicsResource_t) -> CudaResult {
    enter()?;
    let mipmap = required(mipmap)?;
    let res = resource(res)?;
    cu!(cuGraphicsResourceGetMappedMipmappedArray(mipmap, res))
}

/// Registration calls all have this shape: out-resource first.
fn register(res: Option<&mut cudaGraphicsResource_t>, f: impl FnOnce(*mut cudaGraphicsResource_t) -> CudaResult) -> CudaResult {
    enter()?;
    let res = required(res)?;
    f(res)
}

// ---- OpenGL ----------------------------------------------------------------

/// `cudaGraphicsGLRegisterBuffer`.
pub fn gl_register_buffer(res: Option<&mut cudaGraphicsResource_t>, buffer: GLuint, flags: c_uint) -> CudaResult {
    register(res, |r| cu!(cuGraphicsGLRegisterBuffer(r, buffer, flags)))
}

/// `cudaGraphicsGLRegisterImage`.
pub fn gl_register_image(res: Option<&mut cudaGraphicsResource_t>, image: GLuint, target: GLenum, flags: c_uint) -> CudaResult {
    register(res, |r| cu!(cuGraphicsGLRegisterImage(r, image, target, flags)))
}

/// `cudaGLGetDevices`: the driver's devices, as runtime ordinals.
pub fn gl_get_devices(count: Option<&mut c_uint>, devices: *mut c_int, max: c_uint, list: cudaGLDeviceList) -> CudaResult {
    // No context: programs call this to choose the device they then set.
    let rt = runtime()?;
    let count = required(count)?;
    if max > 0 && devices.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    let mut cu_devs: Vec<CUdevice> = vec![0; max as usize];
    cu!(cuGLGetDevices(count, cu_devs.as_mut_ptr(), max, list.0))?;
    for (i, &d) in cu_devs.iter().take((*count).min(max) as usize).enumerate() {
        // SAFETY: non-NULL when max > 0 (checked); the caller gives `max` slots.
        unsafe { *devices.add(i) = rt.ordinal_of(d)? };
    }
    Ok(())
}

/// `cudaGLSetGLDevice` (deprecated since CUDA 5.0, when associating a
/// device with the GL context stopped being necessary): selects the device
/// as `cudaSetDevice` does.
pub fn gl_set_gl_device(device: c_int) -> CudaResult {
    set_device(device)
}

/// `cudaGLUnregisterBufferObject`: the driver's legacy GL initialization
/// first, as NVIDIA's runtime does: on a host where GL interop cannot start
/// its answer (`cudaErrorOperatingSystem` on an H100 without GL libraries)
/// is the call's, where `cuGLUnregisterBufferObject` alone would call an
/// unknown buffer invalid value (measured with tests/gpu/interop_egl.cu and
/// a driver probe, 2026-11-25).
pub fn gl_unregister_buffer_object(buffer: GLuint) -> CudaResult {
    enter()?;
    cu!(cuGLInit())?;
    cu!(cuGLUnregisterBufferObject(buffer))
}

/// `cudaGLMapBufferObject` / `cudaGLMapBufferObjectAsync` (`stream` given).
pub fn gl_map_buffer_object(ptr: Option<&mut *mut c_void>, buffer: GLuint, stream: Option<cudaStream_t>) -> CudaResult {
    enter()?;
    let ptr = required(ptr)?;
    let (mut d, mut size): (CUdeviceptr, usize) = (0, 0);
    match stream {
        Some(s) => cu!(cuGLMapBufferObjectAsync(&mut d, &mut size, buffer, s))?,
        None => cu!(cuGLMapBufferObject(&mut d, &mut size, buffer))?,
    }
    *ptr = d as *mut c_void;
    Ok(())
}

/// `cudaGLUnmapBufferObject` / `cudaGLUnmapBufferObjectAsync`.
pub fn gl_unmap_buffer_object(buffer: GLuint, stream: Option<cudaStream_t>) -> CudaResult {
    enter()?;
    match stream {
        Some(s) => cu!(cuGLUnmapBufferObjectAsync(buffer, s)),
        None => cu!(cuGLUnmapBufferObject(buffer)),
    }
}

// ---- EGL -------------------------------------------------------------------

/// `cudaGraphicsEGLRegisterImage`.
pub fn egl_register_image(res: Option<&mut cudaGraphicsResource_t>, image: EGLImageKHR, flags: c_uint) -> CudaResult {
    register(res, |r| cu!(cuGraphicsEGLRegisterImage(r, image, flags)))
}

/// `cudaEventCreateFromEGLSync`.
pub fn event_from_egl_sync(event: Option<&mut cudaEvent_t>, sync: EGLSyncKHR, flags: c_uint) -> CudaResult {
    enter()?;
    let event = required(event)?;
    cu!(cuEventCreateFromEGLSync(event, sync, flags))
}

fn conn(c: *mut cudaEglStreamConnection) -> CudaResult<*mut cudaEglStreamConnection> {
    if c.is_null() { Err(cudaErrorInvalidValue) } else { Ok(c) }
}

/// `cudaEGLStreamConsumerConnect` / `...WithFlags`.
pub fn egl_consumer_connect(c: *mut cudaEglStreamConnection, stream: EGLStreamKHR, flags: Option<c_uint>) -> CudaResult {
    enter()?;
    let c = conn(c)?;
    match flags {
        Some(f) => cu!(cuEGLStreamConsumerConnectWithFlags(c, stream, f)),
        None => cu!(cuEGLStreamConsumerConnect(c, stream)),
    }
}

/// `cudaEGLStreamConsumerDisconnect` / `cudaEGLStreamProducerDisconnect`.
pub fn egl_disconnect(c: *mut cudaEglStreamConnection, producer: bool) -> CudaResult {
    enter()?;
    let c = conn(c)?;
    if producer { cu!(cuEGLStreamProducerDisconnect(c)) } else { cu!(cuEGLStreamConsumerDisconnect(c)) }
}

/// `cudaEGLStreamConsumerAcquireFrame`.
pub fn egl_acquire_frame(
    c: *mut cudaEglStreamConnection,
    res: Option<&mut cudaGraphicsResource_t>,
    stream: *mut cudaStream_t,
    timeout: c_uint,
) -> CudaResult {
    enter()?;
    let c = conn(c)?;
    let res = required(res)?;
    cu!(cuEGLStreamConsumerAcquireFrame(c, res, stream as *mut CUstream, timeout))
}

/// `cudaEGLStreamConsumerReleaseFrame`.
pub fn egl_release_frame(c: *mut cudaEglStreamConnection, res: cudaGraphicsResource_t, stream: *mut cudaStream_t) -> CudaResult {
    enter()?;
    let c = conn(c)?;
    let res = resource(res)?;
    cu!(cuEGLStreamConsumerReleaseFrame(c, res, stream as *mut CUstream))
}

/// `cudaEGLStreamProducerConnect`.
pub fn egl_producer_connect(c: *mut cudaEglStreamConnection, stream: EGLStreamKHR, width: EGLint, height: EGLint) -> CudaResult {
    enter()?;
    let c = conn(c)?;
    cu!(cuEGLStreamProducerConnect(c, stream, width, height))
}

/// `cudaEGLStreamProducerPresentFrame`.
pub fn egl_present_frame(c: *mut cudaEglStreamConnection, frame: &cudaEglFrame, stream: *mut cudaStream_t) -> CudaResult {
    enter()?;
    let f = driver_egl_frame(frame)?;
    let c = conn(c)?;
    cu!(cuEGLStreamProducerPresentFrame(c, f, stream as *mut CUstream))
}

/// `cudaEGLStreamProducerReturnFrame`. A NULL frame is an invalid resource
/// handle, checked before the connection (NVIDIA's runtime on an H100,
/// tests/gpu/interop_egl.cu).
pub fn egl_return_frame(c: *mut cudaEglStreamConnection, frame: Option<&mut cudaEglFrame>, stream: *mut cudaStream_t) -> CudaResult {
    enter()?;
    let Some(frame) = frame else {
        return Err(cudaErrorInvalidResourceHandle);
    };
    let c = conn(c)?;
    let mut f = empty_driver_frame();
    cu!(cuEGLStreamProducerReturnFrame(c, &mut f, stream as *mut CUstream))?;
    *frame = runtime_egl_frame(&f)?;
    Ok(())
}

/// `cudaGraphicsResourceGetMappedEglFrame`.
pub fn mapped_egl_frame(frame: Option<&mut cudaEglFrame>, res: cudaGraphicsResource_t, index: c_uint, level: c_uint) -> CudaResult {
    enter()?;
    // The resource is checked first (NVIDIA's order, measured on an H100).
    let res = resource(res)?;
    let frame = required(frame)?;
    let mut f = empty_driver_frame();
    cu!(cuGraphicsResourceGetMappedEglFrame(&mut f, res, index, level))?;
    *frame = runtime_egl_frame(&f)?;
    Ok(())
}

// ---- EGL frames ------------------------------------------------------------
//
// The runtime's `cudaEglFrame` describes every plane; the driver's
// `CUeglFrame` describes plane 0 and leaves the others to the color format.
// The conversions follow NVIDIA's runtime as cuda-python reimplements it
// (cuda_bindings/.../cyruntime.pxi: getDriverEglFrame, getRuntimeEglFrame),
// chroma pitch halving included; tests/gpu/interop_egl.cu prints every
// field of NV12, ARGB and YUV420 frames under both runtimes to confirm it.

const EGL_FRAME_TYPE_ARRAY: c_int = 0;
const EGL_FRAME_TYPE_PITCH: c_int = 1;
/// `CUDA_EGL_MAX_PLANES` (`cuda_egl_interop.h`).
const CUDA_EGL_PLANES: usize = 3;

/// Color formats (`cudaEglColorFormat` = `CUeglColorFormat` values) by the
/// layout of their planes after the first: planar (one chroma channel per
/// plane) or semi-planar (U and V interleaved in plane 1), subsampled 4:2:0,
/// 4:2:2 or not (4:4:4).
const PLANAR_420: &[c_int] = &[0, 35, 41, 67, 85, 86, 89, 90];
const SEMIPLANAR_420: &[c_int] = &[1, 21, 23, 25, 38, 44, 83, 84, 87, 88, 91, 92, 106, 107, 110, 111];
const PLANAR_422: &[c_int] = &[2, 34, 40, 66];
const SEMIPLANAR_422: &[c_int] = &[3, 20, 37, 43, 93, 94, 95];
const PLANAR_444: &[c_int] = &[10, 33, 39, 65];
const SEMIPLANAR_444: &[c_int] = &[11, 19, 22, 24, 36, 42, 108, 109, 112, 113];
/// The 10- and 12-bit semi-planar formats: their interleaved chroma has
/// 16-bit channels.
const SEMIPLANAR_16: &[c_int] = &[22, 23, 24, 25, 91, 92, 93, 94, 95, 106, 107, 108, 109, 110, 111, 112, 113];

/// The values `cudaEglColorFormat` names; the driver has a few more
/// (RGB, BGR, YUV, YUV_ER) that the runtime refuses.
fn runtime_color_format(f: c_int) -> bool {
    matches!(f, 0..=3 | 6..=29 | 31..=102 | 104..=116)
}

/// Planes after the first, relative to plane 0: width divisor, height
/// divisor, semi-planar. None for formats that have no such plane.
fn chroma_layout(format: c_int) -> Option<(u32, u32, bool)> {
    let is = |l: &[c_int]| l.contains(&format);
    Some(match () {
        _ if is(PLANAR_420) => (2, 2, false),
        _ if is(SEMIPLANAR_420) => (2, 2, true),
        _ if is(PLANAR_422) => (2, 1, false),
        _ if is(SEMIPLANAR_422) => (2, 1, true),
        _ if is(PLANAR_444) => (1, 1, false),
        _ if is(SEMIPLANAR_444) => (1, 1, true),
        _ => return None,
    })
}

fn empty_driver_frame() -> CUeglFrame {
    CUeglFrame {
        frame: CUeglFrame_frame { pPitch: [std::ptr::null_mut(); 3] },
        width: 0,
        height: 0,
        depth: 0,
        pitch: 0,
        planeCount: 0,
        numChannels: 0,
        frameType: 0,
        eglColorFormat: 0,
        cuFormat: Default::default(),
    }
}

/// The driver's frame for the runtime's: plane 0's descriptor, its format
/// and channel count from its channel descriptor
/// (`cudaErrorInvalidChannelDescriptor`), the planes' pointers or arrays,
/// a color format and frame type the runtime names (else
/// `cudaErrorInvalidValue`).
pub fn driver_egl_frame(f: &cudaEglFrame) -> CudaResult<CUeglFrame> {
    let p0 = &f.planeDesc[0];
    let (cuFormat, numChannels) = super::channel_format::array_format(&p0.channelDesc)?;
    if !runtime_color_format(f.eglColorFormat.0) || !matches!(f.frameType.0, EGL_FRAME_TYPE_ARRAY | EGL_FRAME_TYPE_PITCH) {
        return Err(cudaErrorInvalidValue);
    }
    let n = (f.planeCount as usize).min(CUDA_EGL_PLANES);
    let mut frame = CUeglFrame_frame { pPitch: [std::ptr::null_mut(); 3] };
    for i in 0..n {
        // SAFETY: the frame type says which member the caller filled; both
        // hold plain data, and `frame` is written through the same member.
        unsafe {
            if f.frameType.0 == EGL_FRAME_TYPE_PITCH {
                frame.pPitch[i] = f.frame.pPitch[i].ptr;
            } else {
                frame.pArray[i] = f.frame.pArray[i];
            }
        }
    }
    Ok(CUeglFrame {
        frame,
        width: p0.width,
        height: p0.height,
        depth: p0.depth,
        pitch: p0.pitch,
        planeCount: f.planeCount,
        numChannels,
        frameType: f.frameType.0,
        eglColorFormat: f.eglColorFormat.0,
        cuFormat,
    })
}

/// The runtime's frame for the driver's. Every plane takes plane 0's depth,
/// channel count and channel descriptor; plane 0 the frame's size and
/// pitch; the others the size and pitch divided by the format's
/// subsampling (integer division), the semi-planar ones a second 8- or
/// 16-bit channel in the descriptor (their channel count stays plane 0's),
/// and planes a format does not have a zero size. Errors: a driver format
/// or channel count the runtime has no descriptor for
/// (`cudaErrorInvalidChannelDescriptor`), a color format or frame type the
/// runtime does not name (`cudaErrorInvalidValue`).
pub fn runtime_egl_frame(f: &CUeglFrame) -> CudaResult<cudaEglFrame> {
    let fmt = f.eglColorFormat;
    let n = (f.planeCount as usize).min(CUDA_EGL_PLANES);
    let mut planes = [cudaEglPlaneDesc::default(); CUDA_EGL_PLANES];
    if n > 0 {
        let desc = super::channel_format::channel_desc(f.cuFormat, f.numChannels);
        if desc.f == cudaChannelFormatKindNone || !(1..=4).contains(&f.numChannels) {
            return Err(cudaErrorInvalidChannelDescriptor);
        }
        for (i, p) in planes.iter_mut().enumerate().take(n) {
            p.depth = f.depth;
            p.numChannels = f.numChannels;
            p.channelDesc = desc;
            (p.width, p.height, p.pitch) = match (i, chroma_layout(fmt)) {
                (0, _) => (f.width, f.height, f.pitch),
                (_, Some((dw, dh, semi))) => {
                    if semi {
                        p.channelDesc.y = if SEMIPLANAR_16.contains(&fmt) { 16 } else { 8 };
                    }
                    (f.width / dw, f.height / dh, f.pitch / dw)
                }
                (_, None) => (0, 0, 0),
            };
        }
    }
    if !runtime_color_format(fmt) || !matches!(f.frameType, EGL_FRAME_TYPE_ARRAY | EGL_FRAME_TYPE_PITCH) {
        return Err(cudaErrorInvalidValue);
    }
    let frame = if f.frameType == EGL_FRAME_TYPE_PITCH {
        // SAFETY: a pitch frame holds pointers (plain data).
        let ptrs = unsafe { f.frame.pPitch };
        let mut pp = [cudaPitchedPtr { ptr: std::ptr::null_mut(), pitch: 0, xsize: 0, ysize: 0 }; CUDA_EGL_PLANES];
        for (i, (pp, p)) in pp.iter_mut().zip(&planes).enumerate().take(n) {
            *pp = cudaPitchedPtr { ptr: ptrs[i], pitch: p.pitch as usize, xsize: p.width as usize, ysize: p.height as usize };
        }
        cudaEglFrameUnion { pPitch: pp }
    } else {
        // SAFETY: an array frame holds array handles (plain data).
        let arrays = unsafe { f.frame.pArray };
        let mut a = [std::ptr::null_mut(); CUDA_EGL_PLANES];
        a[..n].copy_from_slice(&arrays[..n]);
        cudaEglFrameUnion { pArray: a }
    };
    Ok(cudaEglFrame {
        frame,
        planeDesc: planes,
        planeCount: f.planeCount,
        frameType: cudaEglFrameType(f.frameType),
        eglColorFormat: cudaEglColorFormat(fmt),
    })
}

// ---- VDPAU -----------------------------------------------------------------

/// `cudaVDPAUGetDevice`: the driver's device, as a runtime ordinal.
pub fn vdpau_get_device(device: Option<&mut c_int>, vdp: VdpDevice, gpa: VdpGetProcAddress) -> CudaResult {
    let rt = runtime()?;
    let device = required(device)?;
    let mut d: CUdevice = 0;
    cu!(cuVDPAUGetDevice(&mut d, vdp, gpa))?;
    *device = rt.ordinal_of(d)?;
    Ok(())
}

/// `cudaVDPAUSetVDPAUDevice`: checks that the VDPAU device is this CUDA
/// device and selects it. (The driver's `cuVDPAUCtxCreate` would make a
/// separate context; the runtime works in primary contexts, and surfaces
/// register against whichever context is current.) Too late once the
/// device is initialized: `cudaErrorSetOnActiveProcess`, before the VDPAU
/// arguments are looked at (documented, and measured on an H100).
pub fn vdpau_set_device(device: c_int, vdp: VdpDevice, gpa: VdpGetProcAddress) -> CudaResult {
    let rt = runtime()?;
    let d = rt.device(device)?;
    if d.is_active() {
        return Err(cudaErrorSetOnActiveProcess);
    }
    let mut got: CUdevice = 0;
    cu!(cuVDPAUGetDevice(&mut got, vdp, gpa))?;
    if got != d.cu {
        return Err(cudaErrorInvalidDevice);
    }
    set_device(device)
}

/// `cudaGraphicsVDPAURegisterVideoSurface`.
pub fn vdpau_register_video_surface(res: Option<&mut cudaGraphicsResource_t>, surface: VdpVideoSurface, flags: c_uint) -> CudaResult {
    register(res, |r| cu!(cuGraphicsVDPAURegisterVideoSurface(r, surface, flags)))
}

/// `cudaGraphicsVDPAURegisterOutputSurface`.
pub fn vdpau_register_output_surface(res: Option<&mut cudaGraphicsResource_t>, surface: VdpOutputSurface, flags: c_uint) -> CudaResult {
    register(res, |r| cu!(cuGraphicsVDPAURegisterOutputSurface(r, surface, flags)))
}
