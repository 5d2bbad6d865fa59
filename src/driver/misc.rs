//! Driver entry points and ABI types of the stream-ordered allocator, IPC,
//! external resources, textures and surfaces, logs and graphics interop.
//!
//! Where the driver's struct has exactly the runtime struct's layout and
//! values (pool properties, access descriptors, external memory/semaphore
//! descriptors, signal/wait parameters), the signature takes the runtime
//! type: NVIDIA documents them as "compatible with the driver type", and
//! `tests/abi_layout.rs` checks the runtime side against the headers. The
//! texture descriptors and the EGL frame differ and are declared in
//! [`misc_abi`], converted in `runtime::texture` / `runtime::interop`.

use super::table::driver_table;
use super::types::*;
use crate::types::{
    cudaArray_t, cudaExternalMemoryBufferDesc, cudaExternalMemoryHandleDesc, cudaExternalMemory_t,
    cudaExternalSemaphoreHandleDesc, cudaExternalSemaphoreSignalParams, cudaExternalSemaphoreWaitParams,
    cudaExternalSemaphore_t, cudaGraphicsResource_t, cudaIpcEventHandle_t, cudaIpcMemHandle_t, cudaLogsCallback_t,
    cudaLogsCallbackHandle, cudaMemAccessDesc, cudaMemLocation, cudaMemPoolProps, cudaMemPoolPtrExportData,
    cudaMipmappedArray_t, cudaEglStreamConnection, EGLImageKHR, EGLStreamKHR, EGLSyncKHR, EGLint, GLenum, GLuint,
    VdpDevice, VdpGetProcAddress, VdpOutputSurface, VdpVideoSurface,
};
use misc_abi::*;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

/// Driver structs of these areas whose layout differs from the runtime's.
/// (A sub-module, so their names cannot collide with other areas' tables.)
pub mod misc_abi {
    use crate::driver::CUarray_format;
    use crate::types::{cudaArray_t, cudaMipmappedArray_t};
    use std::ffi::{c_float, c_int, c_uint, c_ulonglong, c_void};

    /// C: `CUtexObject` / `CUsurfObject`.
    pub type CUtexObject = c_ulonglong;
    pub type CUsurfObject = c_ulonglong;
    /// C: `CUlogIterator`.
    pub type CUlogIterator = c_uint;

    /// C: `CUresourcetype`.
    pub const CU_RESOURCE_TYPE_ARRAY: c_int = 0;
    pub const CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: c_int = 1;
    pub const CU_RESOURCE_TYPE_LINEAR: c_int = 2;
    pub const CU_RESOURCE_TYPE_PITCH2D: c_int = 3;

    /// `CUDA_TEXTURE_DESC::flags` bits.
    pub const CU_TRSF_READ_AS_INTEGER: c_uint = 0x01;
    pub const CU_TRSF_NORMALIZED_COORDINATES: c_uint = 0x02;
    pub const CU_TRSF_SRGB: c_uint = 0x10;
    pub const CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION: c_uint = 0x20;
    pub const CU_TRSF_SEAMLESS_CUBEMAP: c_uint = 0x40;

    /// `CUDA_RESOURCE_DESC::res.linear` / `res.pitch2D` (the two share a
    /// prefix; `width..pitchInBytes` are `sizeInBytes` plus padding for linear).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct CUDA_RESOURCE_DESC_pitch2D {
        pub devPtr: u64,
        pub format: CUarray_format,
        pub numChannels: c_uint,
        pub width: usize,
        pub height: usize,
        pub pitchInBytes: usize,
    }

    /// `CUDA_RESOURCE_DESC::res.linear`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct CUDA_RESOURCE_DESC_linear {
        pub devPtr: u64,
        pub format: CUarray_format,
        pub numChannels: c_uint,
        pub sizeInBytes: usize,
    }

    /// `CUDA_RESOURCE_DESC::res`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub union CUDA_RESOURCE_DESC_res {
        pub hArray: cudaArray_t,
        pub hMipmappedArray: cudaMipmappedArray_t,
        pub linear: CUDA_RESOURCE_DESC_linear,
        pub pitch2D: CUDA_RESOURCE_DESC_pitch2D,
        pub reserved: [c_int; 32],
    }

    /// C: `CUDA_RESOURCE_DESC` (144 bytes).
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct CUDA_RESOURCE_DESC {
        pub resType: c_int,
        pub res: CUDA_RESOURCE_DESC_res,
        pub flags: c_uint,
    }

    impl Default for CUDA_RESOURCE_DESC {
        fn default() -> Self {
            CUDA_RESOURCE_DESC { resType: 0, res: CUDA_RESOURCE_DESC_res { reserved: [0; 32] }, flags: 0 }
        }
    }

    /// C: `CUDA_TEXTURE_DESC` (104 bytes).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct CUDA_TEXTURE_DESC {
        pub addressMode: [c_int; 3],
        pub filterMode: c_int,
        pub flags: c_uint,
        pub maxAnisotropy: c_uint,
        pub mipmapFilterMode: c_int,
        pub mipmapLevelBias: c_float,
        pub minMipmapLevelClamp: c_float,
        pub maxMipmapLevelClamp: c_float,
        pub borderColor: [c_float; 4],
        pub reserved: [c_int; 12],
    }

    /// C: `CUDA_RESOURCE_VIEW_DESC` (112 bytes): the runtime's
    /// `cudaResourceViewDesc` has its layout and format values.
    pub type CUDA_RESOURCE_VIEW_DESC = crate::types::cudaResourceViewDesc;

    pub use crate::driver::api::CUDA_ARRAY3D_DESCRIPTOR;

    /// C: `CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC` (120 bytes).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC {
        pub offset: c_ulonglong,
        pub arrayDesc: CUDA_ARRAY3D_DESCRIPTOR,
        pub numLevels: c_uint,
        pub reserved: [c_uint; 16],
    }

    /// `CUeglFrame::frame`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub union CUeglFrame_frame {
        pub pArray: [cudaArray_t; 3],
        pub pPitch: [*mut c_void; 3],
    }

    /// C: `CUeglFrame` (`cudaEGL.h`, 64 bytes).
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct CUeglFrame {
        pub frame: CUeglFrame_frame,
        pub width: c_uint,
        pub height: c_uint,
        pub depth: c_uint,
        pub pitch: c_uint,
        pub planeCount: c_uint,
        pub numChannels: c_uint,
        pub frameType: c_int,
        pub eglColorFormat: c_int,
        pub cuFormat: CUarray_format,
    }

    const _: () = assert!(std::mem::size_of::<CUDA_RESOURCE_DESC>() == 144);
    const _: () = assert!(std::mem::size_of::<CUDA_TEXTURE_DESC>() == 104);
    const _: () = assert!(std::mem::size_of::<CUDA_RESOURCE_VIEW_DESC>() == 112);
    const _: () = assert!(std::mem::size_of::<CUDA_ARRAY3D_DESCRIPTOR>() == 40);
    const _: () = assert!(std::mem::size_of::<CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC>() == 120);
    const _: () = assert!(std::mem::size_of::<CUeglFrame>() == 64);
}


driver_table! {
    // Stream-ordered allocator and pools.
    fn cuDeviceGetDefaultMemPool(pool: *mut CUmemoryPool, dev: CUdevice);
    fn cuDeviceGetMemPool(pool: *mut CUmemoryPool, dev: CUdevice);
    fn cuDeviceSetMemPool(dev: CUdevice, pool: CUmemoryPool);
    fn cuMemGetDefaultMemPool(pool: *mut CUmemoryPool, location: *mut cudaMemLocation, ty: c_int);
    fn cuMemGetMemPool(pool: *mut CUmemoryPool, location: *mut cudaMemLocation, ty: c_int);
    fn cuMemSetMemPool(location: *mut cudaMemLocation, ty: c_int, pool: CUmemoryPool);
    fn cuMemAllocAsync(dptr: *mut CUdeviceptr, size: usize, stream: CUstream);
    fn cuMemFreeAsync(dptr: CUdeviceptr, stream: CUstream);
    fn cuMemAllocFromPoolAsync(dptr: *mut CUdeviceptr, size: usize, pool: CUmemoryPool, stream: CUstream);
    fn cuMemPoolCreate(pool: *mut CUmemoryPool, props: *const cudaMemPoolProps);
    fn cuMemPoolDestroy(pool: CUmemoryPool);
    fn cuMemPoolTrimTo(pool: CUmemoryPool, min_bytes_to_keep: usize);
    fn cuMemPoolGetAttribute(pool: CUmemoryPool, attr: c_int, value: *mut c_void);
    fn cuMemPoolSetAttribute(pool: CUmemoryPool, attr: c_int, value: *mut c_void);
    fn cuMemPoolSetAccess(pool: CUmemoryPool, map: *const cudaMemAccessDesc, count: usize);
    fn cuMemPoolGetAccess(flags: *mut c_int, pool: CUmemoryPool, location: *mut cudaMemLocation);
    fn cuMemPoolExportToShareableHandle(handle: *mut c_void, pool: CUmemoryPool, ty: c_int, flags: c_ulonglong);
    fn cuMemPoolImportFromShareableHandle(pool: *mut CUmemoryPool, handle: *mut c_void, ty: c_int, flags: c_ulonglong);
    fn cuMemPoolExportPointer(data: *mut cudaMemPoolPtrExportData, ptr: CUdeviceptr);
    fn cuMemPoolImportPointer(ptr: *mut CUdeviceptr, pool: CUmemoryPool, data: *mut cudaMemPoolPtrExportData);

    // IPC.
    fn cuIpcGetMemHandle(handle: *mut cudaIpcMemHandle_t, dptr: CUdeviceptr);
    fn cuIpcOpenMemHandle(dptr: *mut CUdeviceptr, handle: cudaIpcMemHandle_t, flags: c_uint);
    fn cuIpcCloseMemHandle(dptr: CUdeviceptr);
    fn cuIpcGetEventHandle(handle: *mut cudaIpcEventHandle_t, event: CUevent);
    fn cuIpcOpenEventHandle(event: *mut CUevent, handle: cudaIpcEventHandle_t);

    // External memory and semaphores.
    fn cuImportExternalMemory(mem: *mut cudaExternalMemory_t, desc: *const cudaExternalMemoryHandleDesc);
    fn cuExternalMemoryGetMappedBuffer(dptr: *mut CUdeviceptr, mem: cudaExternalMemory_t, desc: *const cudaExternalMemoryBufferDesc);
    fn cuExternalMemoryGetMappedMipmappedArray(mipmap: *mut cudaMipmappedArray_t, mem: cudaExternalMemory_t, desc: *const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC);
    fn cuDestroyExternalMemory(mem: cudaExternalMemory_t);
    fn cuImportExternalSemaphore(sem: *mut cudaExternalSemaphore_t, desc: *const cudaExternalSemaphoreHandleDesc);
    fn cuSignalExternalSemaphoresAsync(sems: *const cudaExternalSemaphore_t, params: *const cudaExternalSemaphoreSignalParams, n: c_uint, stream: CUstream);
    fn cuWaitExternalSemaphoresAsync(sems: *const cudaExternalSemaphore_t, params: *const cudaExternalSemaphoreWaitParams, n: c_uint, stream: CUstream);
    fn cuDestroyExternalSemaphore(sem: cudaExternalSemaphore_t);

    // Texture and surface objects.
    fn cuTexObjectCreate(tex: *mut CUtexObject, res: *const CUDA_RESOURCE_DESC, tex_desc: *const CUDA_TEXTURE_DESC, view: *const CUDA_RESOURCE_VIEW_DESC);
    fn cuTexObjectDestroy(tex: CUtexObject);
    fn cuTexObjectGetResourceDesc(res: *mut CUDA_RESOURCE_DESC, tex: CUtexObject);
    fn cuTexObjectGetTextureDesc(desc: *mut CUDA_TEXTURE_DESC, tex: CUtexObject);
    fn cuTexObjectGetResourceViewDesc(view: *mut CUDA_RESOURCE_VIEW_DESC, tex: CUtexObject);
    fn cuSurfObjectCreate(surf: *mut CUsurfObject, res: *const CUDA_RESOURCE_DESC);
    fn cuSurfObjectDestroy(surf: CUsurfObject);
    fn cuSurfObjectGetResourceDesc(res: *mut CUDA_RESOURCE_DESC, surf: CUsurfObject);

    // Logs.
    fn cuLogsRegisterCallback(cb: cudaLogsCallback_t, user: *mut c_void, handle: *mut cudaLogsCallbackHandle);
    fn cuLogsUnregisterCallback(handle: cudaLogsCallbackHandle);
    fn cuLogsCurrent(iterator: *mut CUlogIterator, flags: c_uint);
    fn cuLogsDumpToFile(iterator: *mut CUlogIterator, path: *const c_char, flags: c_uint);
    fn cuLogsDumpToMemory(iterator: *mut CUlogIterator, buffer: *mut c_char, size: *mut usize, flags: c_uint);

    // Graphics interop: common.
    fn cuGraphicsUnregisterResource(res: cudaGraphicsResource_t);
    fn cuGraphicsResourceSetMapFlags(res: cudaGraphicsResource_t, flags: c_uint);
    fn cuGraphicsMapResources(count: c_uint, res: *mut cudaGraphicsResource_t, stream: CUstream);
    fn cuGraphicsUnmapResources(count: c_uint, res: *mut cudaGraphicsResource_t, stream: CUstream);
    fn cuGraphicsResourceGetMappedPointer(dptr: *mut CUdeviceptr, size: *mut usize, res: cudaGraphicsResource_t);
    fn cuGraphicsSubResourceGetMappedArray(array: *mut cudaArray_t, res: cudaGraphicsResource_t, index: c_uint, level: c_uint);
    fn cuGraphicsResourceGetMappedMipmappedArray(mipmap: *mut cudaMipmappedArray_t, res: cudaGraphicsResource_t);

    // OpenGL.
    fn cuGraphicsGLRegisterBuffer(res: *mut cudaGraphicsResource_t, buffer: GLuint, flags: c_uint);
    fn cuGraphicsGLRegisterImage(res: *mut cudaGraphicsResource_t, image: GLuint, target: GLenum, flags: c_uint);
    fn cuGLGetDevices(count: *mut c_uint, devices: *mut CUdevice, max: c_uint, list: c_int);
    fn cuGLInit();
    fn cuGLRegisterBufferObject(buffer: GLuint);
    fn cuGLUnregisterBufferObject(buffer: GLuint);
    fn cuGLMapBufferObject(dptr: *mut CUdeviceptr, size: *mut usize, buffer: GLuint);
    fn cuGLMapBufferObjectAsync(dptr: *mut CUdeviceptr, size: *mut usize, buffer: GLuint, stream: CUstream);
    fn cuGLUnmapBufferObject(buffer: GLuint);
    fn cuGLUnmapBufferObjectAsync(buffer: GLuint, stream: CUstream);
    fn cuGLSetBufferObjectMapFlags(buffer: GLuint, flags: c_uint);

    // EGL.
    fn cuGraphicsEGLRegisterImage(res: *mut cudaGraphicsResource_t, image: EGLImageKHR, flags: c_uint);
    fn cuGraphicsResourceGetMappedEglFrame(frame: *mut CUeglFrame, res: cudaGraphicsResource_t, index: c_uint, level: c_uint);
    fn cuEGLStreamConsumerConnect(conn: *mut cudaEglStreamConnection, stream: EGLStreamKHR);
    fn cuEGLStreamConsumerConnectWithFlags(conn: *mut cudaEglStreamConnection, stream: EGLStreamKHR, flags: c_uint);
    fn cuEGLStreamConsumerDisconnect(conn: *mut cudaEglStreamConnection);
    fn cuEGLStreamConsumerAcquireFrame(conn: *mut cudaEglStreamConnection, res: *mut cudaGraphicsResource_t, stream: *mut CUstream, timeout: c_uint);
    fn cuEGLStreamConsumerReleaseFrame(conn: *mut cudaEglStreamConnection, res: cudaGraphicsResource_t, stream: *mut CUstream);
    fn cuEGLStreamProducerConnect(conn: *mut cudaEglStreamConnection, stream: EGLStreamKHR, width: EGLint, height: EGLint);
    fn cuEGLStreamProducerDisconnect(conn: *mut cudaEglStreamConnection);
    fn cuEGLStreamProducerPresentFrame(conn: *mut cudaEglStreamConnection, frame: CUeglFrame, stream: *mut CUstream);
    fn cuEGLStreamProducerReturnFrame(conn: *mut cudaEglStreamConnection, frame: *mut CUeglFrame, stream: *mut CUstream);
    fn cuEventCreateFromEGLSync(event: *mut CUevent, sync: EGLSyncKHR, flags: c_uint);

    // VDPAU.
    fn cuVDPAUGetDevice(dev: *mut CUdevice, vdp: VdpDevice, gpa: VdpGetProcAddress);
    fn cuGraphicsVDPAURegisterVideoSurface(res: *mut cudaGraphicsResource_t, surface: VdpVideoSurface, flags: c_uint);
    fn cuGraphicsVDPAURegisterOutputSurface(res: *mut cudaGraphicsResource_t, surface: VdpOutputSurface, flags: c_uint);
}
