//! NVIDIA's CUPTI (`libcupti.so.13`), found and opened at run time.
//!
//! Where it is looked for, in order:
//! 1. `CUDART_SHIM_CUPTI` (a path): that file only;
//! 2. a `libcupti.so.13` already in the process (PyTorch's profiler loads
//!    it): the same copy, never a second one;
//! 3. the library path (`LD_LIBRARY_PATH`, the system's cache);
//! 4. next to the NVIDIA libraries already loaded from a folder of
//!    PyTorch's `nvidia-*` wheels (`site-packages/nvidia/cu13/lib`, where
//!    the `nvidia-cuda-cupti` wheel installs it), then in the toolkit
//!    (`$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda`: `extras/CUPTI/lib64`
//!    and `lib64`).
//!
//! Once a copy is loaded its soname is taken: a later load of
//! `libcupti.so.13` by the program gets this same copy.

use std::ffi::{c_char, c_int, c_void, CStr};

pub type CuptiResult = c_int;
pub const SUCCESS: CuptiResult = 0;
/// `CUPTI_ERROR_MAX_LIMIT_REACHED`: no more records in a buffer.
pub const MAX_LIMIT_REACHED: CuptiResult = 12;
/// `CUPTI_ERROR_NOT_INITIALIZED`.
pub const NOT_INITIALIZED: CuptiResult = 15;
/// `CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED`: another profiler holds CUPTI.
pub const MULTIPLE_SUBSCRIBERS: CuptiResult = 39;
/// `CUPTI_ERROR_UNKNOWN`.
pub const UNKNOWN: CuptiResult = 999;
/// `CUPTI_ACTIVITY_FLAG_FLUSH_FORCED`: flush buffers not yet full too.
pub const FLUSH_FORCED: u32 = 1;

pub type BufferRequested = unsafe extern "C" fn(*mut *mut u8, *mut usize, *mut usize);
pub type BufferCompleted = unsafe extern "C" fn(*mut c_void, u32, *mut u8, usize, usize);
pub type Timestamp = unsafe extern "C" fn() -> u64;
type Callback = unsafe extern "C" fn(*mut c_void, c_int, u32, *const c_void);

/// The CUPTI functions cudart-shim calls.
pub struct Cupti {
    pub path: String,
    pub register_callbacks: unsafe extern "C" fn(BufferRequested, BufferCompleted) -> CuptiResult,
    /// Absent before CUPTI 12.x; the clock offset is measured instead.
    pub register_timestamp: Option<unsafe extern "C" fn(Timestamp) -> CuptiResult>,
    pub get_timestamp: unsafe extern "C" fn(*mut u64) -> CuptiResult,
    pub enable: unsafe extern "C" fn(u32) -> CuptiResult,
    pub disable: unsafe extern "C" fn(u32) -> CuptiResult,
    /// `cuptiActivityEnableDriverApi` (CUPTI 12.x on).
    pub enable_driver_api: Option<unsafe extern "C" fn(u32, u8) -> CuptiResult>,
    /// `cuptiActivityEnableRuntimeApi` (CUPTI 12.x on).
    pub enable_runtime_api: Option<unsafe extern "C" fn(u32, u8) -> CuptiResult>,
    pub next_record: unsafe extern "C" fn(*mut u8, usize, *mut *mut u8) -> CuptiResult,
    pub flush_all: unsafe extern "C" fn(u32) -> CuptiResult,
    pub dropped: unsafe extern "C" fn(*mut c_void, u32, *mut usize) -> CuptiResult,
    pub push_external: unsafe extern "C" fn(u32, u64) -> CuptiResult,
    pub pop_external: unsafe extern "C" fn(u32, *mut u64) -> CuptiResult,
    /// `cuptiGetStreamIdEx(context, stream, perThreadStream, *id)`: the id
    /// CUPTI's records give a stream (names given through NVTX, trace/nvtx).
    pub stream_id: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, u8, *mut u32) -> CuptiResult>,
    subscribe: unsafe extern "C" fn(*mut *mut c_void, Callback, *mut c_void) -> CuptiResult,
    unsubscribe: unsafe extern "C" fn(*mut c_void) -> CuptiResult,
    result_string: unsafe extern "C" fn(CuptiResult, *mut *const c_char) -> CuptiResult,
    /// Kept open for the life of the process.
    _lib: libloading::Library,
}

const SONAME: &str = "libcupti.so.13";

/// Open CUPTI. Err: why not (every place tried), for the one line the
/// user sees.
pub fn load() -> Result<Cupti, String> {
    let mut tried = Vec::new();
    for path in candidates() {
        // SAFETY: loading CUPTI runs its initializers, which only set up
        // the library; RTLD_NOW finds a missing symbol here, not mid-run.
        let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL;
        match unsafe { libloading::os::unix::Library::open(Some(&path), flags) } {
            Ok(lib) => return bind(lib.into(), path),
            Err(e) => tried.push(if path.contains('/') { format!("{path} ({})", short(&e.to_string())) } else { path }),
        }
    }
    Err(format!("{SONAME} not found (tried {}); set CUDART_SHIM_CUPTI to its path", tried.join(", ")))
}

fn short(e: &str) -> &str {
    e.rsplit(": ").next().unwrap_or(e)
}

fn candidates() -> Vec<String> {
    if let Some(p) = crate::config::env_var("CUDART_SHIM_CUPTI").filter(|p| !p.is_empty()) {
        return vec![p];
    }
    let mut c = Vec::new();
    if already_loaded() {
        return vec![SONAME.to_owned()];
    }
    c.push(SONAME.to_owned());
    for dir in wheel_dirs() {
        c.push(format!("{dir}/{SONAME}"));
    }
    let homes = ["CUDA_HOME", "CUDA_PATH"].iter().filter_map(|v| crate::config::env_var(v)).chain(["/usr/local/cuda".to_owned()]);
    for h in homes {
        for sub in ["extras/CUPTI/lib64", "lib64", "targets/x86_64-linux/lib"] {
            c.push(format!("{h}/{sub}/{SONAME}"));
        }
    }
    c.dedup();
    c
}

/// Whether a `libcupti.so.13` is in the process already.
fn already_loaded() -> bool {
    let Ok(name) = std::ffi::CString::new(SONAME) else { return false };
    // SAFETY: RTLD_NOLOAD opens nothing new; the handle is released at once.
    unsafe {
        let h = libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
        if h.is_null() {
            return false;
        }
        libc::dlclose(h);
    }
    true
}

/// Folders of NVIDIA's pip wheels that the process loaded libraries from
/// (`.../nvidia/cu13/lib`, `.../nvidia/cuda_cupti/lib`...), from
/// `/proc/self/maps`.
fn wheel_dirs() -> Vec<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let mut dirs: Vec<String> = Vec::new();
    for path in maps.lines().filter_map(|l| l.split_whitespace().nth(5)) {
        if let Some(i) = path.find("/nvidia/") {
            let Some((dir, _)) = path.rsplit_once('/') else { continue };
            let root = &path[..i + "/nvidia/".len()];
            for d in [dir.to_owned(), format!("{root}cu13/lib"), format!("{root}cuda_cupti/lib")] {
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
    }
    dirs
}

fn bind(lib: libloading::Library, path: String) -> Result<Cupti, String> {
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the type is the function's C signature in CUDA 13.0's
            // cupti_activity.h / cupti_callbacks.h.
            match unsafe { lib.get($name.as_bytes()) } {
                Ok(s) => *s,
                Err(_) => return Err(format!("{path} has no {} (not a CUPTI 13 library?)", $name)),
            }
        };
    }
    // SAFETY: as above.
    let register_timestamp = unsafe { lib.get(b"cuptiActivityRegisterTimestampCallback") }.ok().map(|s| *s);
    // SAFETY: as above.
    let enable_driver_api = unsafe { lib.get(b"cuptiActivityEnableDriverApi") }.ok().map(|s| *s);
    // SAFETY: as above.
    let stream_id = unsafe { lib.get(b"cuptiGetStreamIdEx") }.ok().map(|s| *s);
    let enable_runtime_api = unsafe { lib.get(b"cuptiActivityEnableRuntimeApi") }.ok().map(|s| *s);
    Ok(Cupti {
        register_callbacks: sym!("cuptiActivityRegisterCallbacks"),
        register_timestamp,
        get_timestamp: sym!("cuptiGetTimestamp"),
        enable: sym!("cuptiActivityEnable"),
        disable: sym!("cuptiActivityDisable"),
        enable_driver_api,
        enable_runtime_api,
        next_record: sym!("cuptiActivityGetNextRecord"),
        flush_all: sym!("cuptiActivityFlushAll"),
        dropped: sym!("cuptiActivityGetNumDroppedRecords"),
        push_external: sym!("cuptiActivityPushExternalCorrelationId"),
        pop_external: sym!("cuptiActivityPopExternalCorrelationId"),
        stream_id,
        subscribe: sym!("cuptiSubscribe"),
        unsubscribe: sym!("cuptiUnsubscribe"),
        result_string: sym!("cuptiGetResultString"),
        path,
        _lib: lib,
    })
}

unsafe extern "C" fn ignore(_: *mut c_void, _: c_int, _: u32, _: *const c_void) {}

impl Cupti {
    /// CUPTI's name for `r` (`CUPTI_ERROR_...`).
    pub fn error(&self, r: CuptiResult) -> String {
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: p is writable; CUPTI returns a static string.
        if unsafe { (self.result_string)(r, &mut p) } == SUCCESS && !p.is_null() {
            return unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        }
        format!("CUPTI error {r}")
    }

    /// Whether another profiler holds CUPTI: Nsight's injection is set up,
    /// or (`subscribers`) a CUPTI subscriber exists (PyTorch's profiler:
    /// asked only when the program's CUPTI calls are not multiplexed).
    /// Subscribes and unsubscribes at once: cudart-shim keeps no
    /// subscription, so a profiler started later still gets one.
    pub fn held_by(&self, subscribers: bool) -> Option<String> {
        if crate::config::env_var("CUDA_INJECTION64_PATH").is_some_and(|v| !v.is_empty()) {
            return Some("a profiler is injected (CUDA_INJECTION64_PATH is set: Nsight Systems or Nsight Compute)".to_owned());
        }
        if !subscribers {
            return None;
        }
        let mut h: *mut c_void = std::ptr::null_mut();
        // SAFETY: h is writable; `ignore` does nothing with what it gets.
        match unsafe { (self.subscribe)(&mut h, ignore, std::ptr::null_mut()) } {
            SUCCESS => {
                // SAFETY: the handle just returned.
                unsafe { (self.unsubscribe)(h) };
                None
            }
            MULTIPLE_SUBSCRIBERS => Some("another profiler holds CUPTI (PyTorch's profiler, Nsight Systems?)".to_owned()),
            r => Some(format!("CUPTI cannot be used ({})", self.error(r))),
        }
    }
}
