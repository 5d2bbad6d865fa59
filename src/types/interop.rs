//! C ABI types of IPC, external resources, logs and graphics interop
//! (GL, EGL, VDPAU), CUDA 13.0 layouts.
//!
//! The graphics types (`GLuint`, `EGLImageKHR`, `VdpDevice`, ...) are the
//! plain integers and pointers the system headers define them as, so a
//! program needs no GL/EGL/VDPAU headers to use ours.

pub use super::interop_enums::*;
use super::handles::cudaArray_t;
use super::shared::{cudaExtent, cudaPitchedPtr};
use super::texture::cudaChannelFormatDesc;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

// ---- IPC -------------------------------------------------------------------

/// C: `CUDA_IPC_HANDLE_SIZE`.
pub const CUDA_IPC_HANDLE_SIZE: c_int = 64;
/// C: `cudaIpcMemLazyEnablePeerAccess`.
pub const cudaIpcMemLazyEnablePeerAccess: c_int = 0x01;

/// C: `cudaIpcMemHandle_t` (64 opaque bytes, passed by value).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaIpcMemHandle_st {
    pub reserved: [c_char; 64],
}
pub type cudaIpcMemHandle_t = cudaIpcMemHandle_st;

/// C: `cudaIpcEventHandle_t` (64 opaque bytes, passed by value).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cudaIpcEventHandle_st {
    pub reserved: [c_char; 64],
}
pub type cudaIpcEventHandle_t = cudaIpcEventHandle_st;

// ---- External memory and semaphores ----------------------------------------

/// C: `cudaExternalMemoryDedicated`.
pub const cudaExternalMemoryDedicated: c_int = 0x1;
/// C: `cudaExternalSemaphoreSignalSkipNvSciBufMemSync`.
pub const cudaExternalSemaphoreSignalSkipNvSciBufMemSync: c_int = 0x01;
/// C: `cudaExternalSemaphoreWaitSkipNvSciBufMemSync`.
pub const cudaExternalSemaphoreWaitSkipNvSciBufMemSync: c_int = 0x02;
/// C: `cudaNvSciSyncAttrSignal`.
pub const cudaNvSciSyncAttrSignal: c_int = 0x1;
/// C: `cudaNvSciSyncAttrWait`.
pub const cudaNvSciSyncAttrWait: c_int = 0x2;

/// The Win32 member of the handle unions (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudaExternalWin32Handle {
    pub handle: *mut c_void,
    pub name: *const c_void,
}

/// `cudaExternalMemoryHandleDesc::handle` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaExternalMemoryHandleUnion {
    pub fd: c_int,
    pub win32: cudaExternalWin32Handle,
    pub nvSciBufObject: *const c_void,
}

/// C: `struct cudaExternalMemoryHandleDesc` (104 bytes; the driver's
/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC` has the same layout and values).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaExternalMemoryHandleDesc {
    pub r#type: cudaExternalMemoryHandleType,
    pub handle: cudaExternalMemoryHandleUnion,
    pub size: c_ulonglong,
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

/// C: `struct cudaExternalMemoryBufferDesc` (88 bytes; same layout as the
/// driver's `CUDA_EXTERNAL_MEMORY_BUFFER_DESC`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaExternalMemoryBufferDesc {
    pub offset: c_ulonglong,
    pub size: c_ulonglong,
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

/// C: `struct cudaExternalMemoryMipmappedArrayDesc` (128 bytes; converted
/// to the driver's descriptor, which holds a `CUDA_ARRAY3D_DESCRIPTOR`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaExternalMemoryMipmappedArrayDesc {
    pub offset: c_ulonglong,
    pub formatDesc: cudaChannelFormatDesc,
    pub extent: cudaExtent,
    pub flags: c_uint,
    pub numLevels: c_uint,
    pub reserved: [c_uint; 16],
}

/// `cudaExternalSemaphoreHandleDesc::handle` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaExternalSemaphoreHandleUnion {
    pub fd: c_int,
    pub win32: cudaExternalWin32Handle,
    pub nvSciSyncObj: *const c_void,
}

/// C: `struct cudaExternalSemaphoreHandleDesc` (96 bytes; same layout and
/// values as the driver's `CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaExternalSemaphoreHandleDesc {
    pub r#type: cudaExternalSemaphoreHandleType,
    pub handle: cudaExternalSemaphoreHandleUnion,
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

/// `params.fence` of the signal/wait parameters (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaExternalSemaphoreFence {
    pub value: c_ulonglong,
}

/// `params.nvSciSync` of the signal/wait parameters (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaExternalSemaphoreNvSciSync {
    pub fence: *mut c_void,
    pub reserved: c_ulonglong,
}

/// `params.keyedMutex` of the signal parameters (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaExternalSemaphoreSignalKeyedMutex {
    pub key: c_ulonglong,
}

/// `cudaExternalSemaphoreSignalParams::params` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaExternalSemaphoreSignalParamsParams {
    pub fence: cudaExternalSemaphoreFence,
    pub nvSciSync: cudaExternalSemaphoreNvSciSync,
    pub keyedMutex: cudaExternalSemaphoreSignalKeyedMutex,
    pub reserved: [c_uint; 12],
}

/// C: `struct cudaExternalSemaphoreSignalParams` (144 bytes; same layout
/// as the driver's `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaExternalSemaphoreSignalParams {
    pub params: cudaExternalSemaphoreSignalParamsParams,
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

/// `params.keyedMutex` of the wait parameters (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cudaExternalSemaphoreWaitKeyedMutex {
    pub key: c_ulonglong,
    pub timeoutMs: c_uint,
}

/// `cudaExternalSemaphoreWaitParams::params` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaExternalSemaphoreWaitParamsParams {
    pub fence: cudaExternalSemaphoreFence,
    pub nvSciSync: cudaExternalSemaphoreNvSciSync,
    pub keyedMutex: cudaExternalSemaphoreWaitKeyedMutex,
    pub reserved: [c_uint; 10],
}

/// C: `struct cudaExternalSemaphoreWaitParams` (144 bytes; same layout as
/// the driver's `CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaExternalSemaphoreWaitParams {
    pub params: cudaExternalSemaphoreWaitParamsParams,
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

// ---- Logs ------------------------------------------------------------------

/// C: `cudaLogsCallback_t`: `(data, level, message, length)`.
pub type cudaLogsCallback_t =
    Option<unsafe extern "C" fn(data: *mut c_void, logLevel: cudaLogLevel, message: *mut c_char, length: usize)>;

// ---- Graphics interop ------------------------------------------------------

/// C: `GLuint` (OpenGL).
pub type GLuint = c_uint;
/// C: `GLenum` (OpenGL).
pub type GLenum = c_uint;
/// C: `EGLint` (EGL, a 32-bit integer).
pub type EGLint = i32;
/// C: `EGLImageKHR` (EGL, an opaque pointer).
pub type EGLImageKHR = *mut c_void;
/// C: `EGLStreamKHR` (EGL, an opaque pointer).
pub type EGLStreamKHR = *mut c_void;
/// C: `EGLSyncKHR` (EGL, an opaque pointer).
pub type EGLSyncKHR = *mut c_void;
/// C: `VdpDevice` (VDPAU handle).
pub type VdpDevice = u32;
/// C: `VdpVideoSurface` (VDPAU handle).
pub type VdpVideoSurface = u32;
/// C: `VdpOutputSurface` (VDPAU handle).
pub type VdpOutputSurface = u32;
/// C: `VdpFuncId` (VDPAU).
pub type VdpFuncId = u32;
/// C: `VdpStatus` (VDPAU).
pub type VdpStatus = c_int;
/// C: `VdpGetProcAddress`. VDPAU declares it as a function type and the
/// runtime takes `VdpGetProcAddress *`; a Rust fn pointer is that pointer.
pub type VdpGetProcAddress =
    Option<unsafe extern "C" fn(device: VdpDevice, function_id: VdpFuncId, function_pointer: *mut *mut c_void) -> VdpStatus>;

/// C: `enum cudaGLDeviceList` (`cuda_gl_interop.h`; its constants are
/// `cudaGLDeviceListAll` = 1, `CurrentFrame` = 2, `NextFrame` = 3, not
/// repeated here because `cuda_runtime_api.h` does not declare them).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct cudaGLDeviceList(pub c_int);

/// C: `cudaEglFrameType` (`cuda_egl_interop.h`: 0 array, 1 pitch).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct cudaEglFrameType(pub c_int);

/// C: `cudaEglColorFormat` (`cuda_egl_interop.h`); values equal the
/// driver's `CUeglColorFormat`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct cudaEglColorFormat(pub c_int);

/// C: `cudaEglPlaneDesc` (`cuda_egl_interop.h`, 56 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudaEglPlaneDesc {
    pub width: c_uint,
    pub height: c_uint,
    pub depth: c_uint,
    pub pitch: c_uint,
    pub numChannels: c_uint,
    pub channelDesc: cudaChannelFormatDesc,
    pub reserved: [c_uint; 4],
}

/// `cudaEglFrame::frame` (anonymous in NVIDIA's header).
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudaEglFrameUnion {
    pub pArray: [cudaArray_t; 3],
    pub pPitch: [cudaPitchedPtr; 3],
}

/// C: `cudaEglFrame` (`cuda_egl_interop.h`, 280 bytes, passed by value to
/// `cudaEGLStreamProducerPresentFrame`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaEglFrame {
    pub frame: cudaEglFrameUnion,
    pub planeDesc: [cudaEglPlaneDesc; 3],
    pub planeCount: c_uint,
    pub frameType: cudaEglFrameType,
    pub eglColorFormat: cudaEglColorFormat,
}

impl std::fmt::Debug for cudaEglFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("cudaEglFrame")
            .field("planeCount", &self.planeCount)
            .field("frameType", &self.frameType.0)
            .field("eglColorFormat", &self.eglColorFormat.0)
            .finish_non_exhaustive()
    }
}

/// Opaque; only ever used behind a pointer.
pub struct CUeglStreamConnection_st {
    _private: [u8; 0],
}
/// C: `cudaEglStreamConnection` (the driver's `CUeglStreamConnection`).
pub type cudaEglStreamConnection = *mut CUeglStreamConnection_st;
