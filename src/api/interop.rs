//! Graphics interoperability exports: OpenGL, EGL, VDPAU and the
//! API-independent `cudaGraphics*` calls.

use crate::control::params;
use crate::runtime::{self, interop};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

// ---- API-independent -------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsUnregisterResource(resource: cudaGraphicsResource_t) -> cudaError_t {
    entry!(cudaGraphicsUnregisterResource(resource) => interop::unregister(resource))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsResourceSetMapFlags(resource: cudaGraphicsResource_t, flags: c_uint) -> cudaError_t {
    entry!(cudaGraphicsResourceSetMapFlags(resource, flags) => interop::set_map_flags(resource, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsMapResources(count: c_int, resources: *mut cudaGraphicsResource_t, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaGraphicsMapResources(count, resources, stream) => interop::map(count, resources, stream, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsUnmapResources(count: c_int, resources: *mut cudaGraphicsResource_t, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaGraphicsUnmapResources(count, resources, stream) => interop::map(count, resources, stream, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsResourceGetMappedPointer(
    devPtr: *mut *mut c_void,
    size: *mut usize,
    resource: cudaGraphicsResource_t,
) -> cudaError_t {
    entry!(cudaGraphicsResourceGetMappedPointer(devPtr, size, resource) => interop::mapped_pointer(unsafe { runtime::as_out(devPtr) }, unsafe { runtime::as_out(size) }, resource))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsSubResourceGetMappedArray(
    array: *mut cudaArray_t,
    resource: cudaGraphicsResource_t,
    arrayIndex: c_uint,
    mipLevel: c_uint,
) -> cudaError_t {
    entry!(cudaGraphicsSubResourceGetMappedArray(array, resource, arrayIndex, mipLevel) =>
        interop::mapped_array(unsafe { runtime::as_out(array) }, resource, arrayIndex, mipLevel))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsResourceGetMappedMipmappedArray(
    mipmappedArray: *mut cudaMipmappedArray_t,
    resource: cudaGraphicsResource_t,
) -> cudaError_t {
    entry!(cudaGraphicsResourceGetMappedMipmappedArray(mipmappedArray, resource) =>
        interop::mapped_mipmapped_array(unsafe { runtime::as_out(mipmappedArray) }, resource))
}

// ---- OpenGL ----------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLGetDevices(
    pCudaDeviceCount: *mut c_uint,
    pCudaDevices: *mut c_int,
    cudaDeviceCount: c_uint,
    deviceList: cudaGLDeviceList,
) -> cudaError_t {
    entry!(cudaGLGetDevices(pCudaDeviceCount, pCudaDevices, cudaDeviceCount, deviceList) =>
        interop::gl_get_devices(unsafe { runtime::as_out(pCudaDeviceCount) }, pCudaDevices, cudaDeviceCount, deviceList))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsGLRegisterBuffer(resource: *mut cudaGraphicsResource_t, buffer: GLuint, flags: c_uint) -> cudaError_t {
    entry!(cudaGraphicsGLRegisterBuffer(resource, buffer, flags) => interop::gl_register_buffer(unsafe { runtime::as_out(resource) }, buffer, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsGLRegisterImage(
    resource: *mut cudaGraphicsResource_t,
    image: GLuint,
    target: GLenum,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaGraphicsGLRegisterImage(resource, image, target, flags) => interop::gl_register_image(unsafe { runtime::as_out(resource) }, image, target, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLSetGLDevice(device: c_int) -> cudaError_t {
    entry!(cudaGLSetGLDevice(device) => interop::gl_set_gl_device(device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLRegisterBufferObject(bufObj: GLuint) -> cudaError_t {
    // The deprecated buffer-object calls are the driver's
    // `cuGL*BufferObject*` counterparts.
    entry!(cudaGLRegisterBufferObject(bufObj) => runtime::pass!(cuGLRegisterBufferObject(bufObj)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLUnregisterBufferObject(bufObj: GLuint) -> cudaError_t {
    entry!(cudaGLUnregisterBufferObject(bufObj) => interop::gl_unregister_buffer_object(bufObj))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLMapBufferObject(devPtr: *mut *mut c_void, bufObj: GLuint) -> cudaError_t {
    entry!(cudaGLMapBufferObject(devPtr, bufObj) => interop::gl_map_buffer_object(unsafe { runtime::as_out(devPtr) }, bufObj, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLMapBufferObjectAsync(devPtr: *mut *mut c_void, bufObj: GLuint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaGLMapBufferObjectAsync(devPtr, bufObj, stream) => interop::gl_map_buffer_object(unsafe { runtime::as_out(devPtr) }, bufObj, Some(stream)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLUnmapBufferObject(bufObj: GLuint) -> cudaError_t {
    entry!(cudaGLUnmapBufferObject(bufObj) => interop::gl_unmap_buffer_object(bufObj, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLUnmapBufferObjectAsync(bufObj: GLuint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaGLUnmapBufferObjectAsync(bufObj, stream) => interop::gl_unmap_buffer_object(bufObj, Some(stream)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGLSetBufferObjectMapFlags(bufObj: GLuint, flags: c_uint) -> cudaError_t {
    entry!(cudaGLSetBufferObjectMapFlags(bufObj, flags) => runtime::pass!(cuGLSetBufferObjectMapFlags(bufObj, flags)))
}

// ---- EGL -------------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsEGLRegisterImage(
    pCudaResource: *mut cudaGraphicsResource_t,
    image: EGLImageKHR,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaGraphicsEGLRegisterImage(pCudaResource, image, flags) => interop::egl_register_image(unsafe { runtime::as_out(pCudaResource) }, image, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsResourceGetMappedEglFrame(
    eglFrame: *mut cudaEglFrame,
    resource: cudaGraphicsResource_t,
    index: c_uint,
    mipLevel: c_uint,
) -> cudaError_t {
    entry!(cudaGraphicsResourceGetMappedEglFrame(eglFrame, resource, index, mipLevel) =>
        interop::mapped_egl_frame(unsafe { runtime::as_out(eglFrame) }, resource, index, mipLevel))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventCreateFromEGLSync(phEvent: *mut cudaEvent_t, eglSync: EGLSyncKHR, flags: c_uint) -> cudaError_t {
    entry!(cudaEventCreateFromEGLSync(phEvent, eglSync, flags) => interop::event_from_egl_sync(unsafe { runtime::as_out(phEvent) }, eglSync, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamConsumerConnect(conn: *mut cudaEglStreamConnection, eglStream: EGLStreamKHR) -> cudaError_t {
    entry!(cudaEGLStreamConsumerConnect(conn, eglStream) => interop::egl_consumer_connect(conn, eglStream, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamConsumerConnectWithFlags(
    conn: *mut cudaEglStreamConnection,
    eglStream: EGLStreamKHR,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaEGLStreamConsumerConnectWithFlags(conn, eglStream, flags) => interop::egl_consumer_connect(conn, eglStream, Some(flags)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamConsumerDisconnect(conn: *mut cudaEglStreamConnection) -> cudaError_t {
    entry!(cudaEGLStreamConsumerDisconnect(conn) => interop::egl_disconnect(conn, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamConsumerAcquireFrame(
    conn: *mut cudaEglStreamConnection,
    pCudaResource: *mut cudaGraphicsResource_t,
    pStream: *mut cudaStream_t,
    timeout: c_uint,
) -> cudaError_t {
    entry!(cudaEGLStreamConsumerAcquireFrame(conn, pCudaResource, pStream, timeout) =>
        interop::egl_acquire_frame(conn, unsafe { runtime::as_out(pCudaResource) }, pStream, timeout))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamConsumerReleaseFrame(
    conn: *mut cudaEglStreamConnection,
    pCudaResource: cudaGraphicsResource_t,
    pStream: *mut cudaStream_t,
) -> cudaError_t {
    entry!(cudaEGLStreamConsumerReleaseFrame(conn, pCudaResource, pStream) => interop::egl_release_frame(conn, pCudaResource, pStream))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamProducerConnect(
    conn: *mut cudaEglStreamConnection,
    eglStream: EGLStreamKHR,
    width: EGLint,
    height: EGLint,
) -> cudaError_t {
    entry!(cudaEGLStreamProducerConnect(conn, eglStream, width, height) => interop::egl_producer_connect(conn, eglStream, width, height))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamProducerDisconnect(conn: *mut cudaEglStreamConnection) -> cudaError_t {
    entry!(cudaEGLStreamProducerDisconnect(conn) => interop::egl_disconnect(conn, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamProducerPresentFrame(
    conn: *mut cudaEglStreamConnection,
    eglframe: cudaEglFrame,
    pStream: *mut cudaStream_t,
) -> cudaError_t {
    entry!(cudaEGLStreamProducerPresentFrame(conn, eglframe, pStream) => interop::egl_present_frame(conn, &eglframe, pStream))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEGLStreamProducerReturnFrame(
    conn: *mut cudaEglStreamConnection,
    eglframe: *mut cudaEglFrame,
    pStream: *mut cudaStream_t,
) -> cudaError_t {
    entry!(cudaEGLStreamProducerReturnFrame(conn, eglframe, pStream) => interop::egl_return_frame(conn, unsafe { runtime::as_out(eglframe) }, pStream))
}

// ---- VDPAU -----------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaVDPAUGetDevice(device: *mut c_int, vdpDevice: VdpDevice, vdpGetProcAddress: VdpGetProcAddress) -> cudaError_t {
    entry!(cudaVDPAUGetDevice(device, vdpDevice, vdpGetProcAddress) => interop::vdpau_get_device(unsafe { runtime::as_out(device) }, vdpDevice, vdpGetProcAddress))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaVDPAUSetVDPAUDevice(device: c_int, vdpDevice: VdpDevice, vdpGetProcAddress: VdpGetProcAddress) -> cudaError_t {
    entry!(cudaVDPAUSetVDPAUDevice(device, vdpDevice, vdpGetProcAddress) =>
        interop::vdpau_set_device(device, vdpDevice, vdpGetProcAddress))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsVDPAURegisterVideoSurface(
    resource: *mut cudaGraphicsResource_t,
    vdpSurface: VdpVideoSurface,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaGraphicsVDPAURegisterVideoSurface(resource, vdpSurface, flags) =>
        interop::vdpau_register_video_surface(unsafe { runtime::as_out(resource) }, vdpSurface, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGraphicsVDPAURegisterOutputSurface(
    resource: *mut cudaGraphicsResource_t,
    vdpSurface: VdpOutputSurface,
    flags: c_uint,
) -> cudaError_t {
    entry!(cudaGraphicsVDPAURegisterOutputSurface(resource, vdpSurface, flags) =>
        interop::vdpau_register_output_surface(unsafe { runtime::as_out(resource) }, vdpSurface, flags))
}
