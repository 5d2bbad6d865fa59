//! `libcudart_shim_cupti.so`: the program's side of CUPTI sharing
//! (docs/GPU-ACTIVITY.md, "Sharing CUPTI with the program's profiler").
//!
//! CUPTI 13's Activity API is process-wide: one pair of buffer callbacks,
//! one set of enabled kinds, one timestamp callback, one `cuptiFinalize`.
//! When cudart-shim traces GPU activity and the program starts its own
//! CUPTI user (PyTorch's profiler), the two would take each other's
//! buffers. So cudart-shim keeps the one real registration (its
//! multiplexer, src/trace/gpu/mux.rs) and this small library, preloaded
//! beside it, interposes on the Activity API entry points the program
//! calls and hands each to the multiplexer, which keeps the program's
//! callbacks, kinds and buffers apart from cudart-shim's and copies every
//! record to each owner that asked for it.
//!
//! Until the multiplexer is installed (cudart-shim's GPU tracing starts at
//! the program's first CUDA call; a profiler can start before that) every
//! call goes straight to the real CUPTI, and what the program set up is
//! remembered ([`AppState`]) so the multiplexer can take it over.
//!
//! Exports have CUPTI's names and C signatures and no version node: the
//! loader binds a program's `cuptiX@libcupti.so.13` reference to an
//! unversioned definition found first in the search order, which a
//! preloaded library is. Entry points not exported here (subscribers,
//! attributes, external correlation ids, timestamps...) are the real
//! CUPTI's, untouched. Nothing here panics: no allocation, no Rust error.
//!
//! The structs handed across (the multiplexer's table, the program's
//! state) are one file compiled into both crates,
//! src/trace/gpu/front_abi.rs, with its version and layout checks.
#![allow(clippy::missing_safety_doc)]

#[path = "../../src/trace/gpu/front_abi.rs"]
#[allow(dead_code)]
pub mod abi;

use abi::{AppState, Completed, MuxTable, Requested, Timestamp, ABI_VERSION, INVALID_PARAMETER, NOT_COMPATIBLE};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::*};
use std::sync::Mutex;

const SUCCESS: c_int = 0;
/// `CUPTI_ERROR_NOT_INITIALIZED`: no CUPTI could be found to forward to.
const NOT_INITIALIZED: c_int = 15;

/// The layout this front was built with (`abi::LAYOUT_SYMBOL`): the
/// multiplexer compares it with its own before it calls the install.
#[unsafe(no_mangle)]
pub static cudart_shim_cupti_layout: abi::Layout = abi::LAYOUT;

static MUX: AtomicPtr<MuxTable> = AtomicPtr::new(std::ptr::null_mut());
static STATE: Mutex<AppState> = Mutex::new(AppState::EMPTY);

fn state() -> std::sync::MutexGuard<'static, AppState> {
    STATE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn mux() -> Option<&'static MuxTable> {
    // SAFETY: set once by `cudart_shim_cupti_install` to a static table.
    unsafe { MUX.load(Acquire).as_ref() }
}

/// Called by cudart-shim when its GPU tracing starts: from now on the
/// program's calls go to `table`; `out` receives what the program set up
/// so far. An [`abi::InstallFn`]: a NULL pointer or a table of another
/// ABI version is refused with nothing changed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudart_shim_cupti_install(table: *const MuxTable, out: *mut AppState) -> c_int {
    if table.is_null() || out.is_null() {
        return INVALID_PARAMETER;
    }
    // SAFETY: non-null; every version's table starts with its `abi` (a
    // table of version 1, which had none, starts with a function address,
    // which is no small version number).
    if unsafe { table.cast::<u32>().read() } != ABI_VERSION {
        return NOT_COMPATIBLE;
    }
    // The snapshot and the switch under one lock: a program call that
    // records state holds it too, so none falls between the two.
    let st = state();
    // SAFETY: out is writable (checked above).
    unsafe { *out = *st };
    MUX.store(table.cast_mut(), Release);
    SUCCESS
}

/// The real CUPTI's `name`, looked up once per entry point: the copy the
/// process already has (the program's `libcupti.so.13`), else loaded by
/// that name.
fn real<F: Copy>(cache: &AtomicU64, name: &std::ffi::CStr) -> Option<F> {
    let mut p = cache.load(Relaxed) as *mut c_void;
    if p.is_null() {
        // SAFETY: dlopen/dlsym with C strings; the handle is kept.
        unsafe {
            let mut h = libc::dlopen(c"libcupti.so.13".as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
            if h.is_null() {
                h = libc::dlopen(c"libcupti.so.13".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            }
            if h.is_null() {
                return None;
            }
            p = libc::dlsym(h, name.as_ptr());
        }
        if p.is_null() {
            return None;
        }
        cache.store(p as u64, Relaxed);
    }
    // SAFETY: F is the C signature of `name` (each caller below names its own).
    Some(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

macro_rules! forward {
    ($name:literal, $ty:ty, |$f:ident| $call:expr) => {{
        static CACHE: AtomicU64 = AtomicU64::new(0);
        match real::<$ty>(&CACHE, $name) {
            // SAFETY: the real CUPTI's function with the caller's arguments.
            Some($f) => unsafe { $call },
            None => NOT_INITIALIZED,
        }
    }};
}

fn set_bit(bits: &mut [u64], i: u32, on: bool) {
    if let Some(w) = bits.get_mut((i / 64) as usize) {
        if on {
            *w |= 1 << (i % 64);
        } else {
            *w &= !(1 << (i % 64));
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityRegisterCallbacks(req: Option<Requested>, done: Option<Completed>) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.register_callbacks)(req, done) };
    }
    let mut st = state();
    let r = forward!(c"cuptiActivityRegisterCallbacks", unsafe extern "C" fn(Option<Requested>, Option<Completed>) -> c_int, |f| f(req, done));
    if r == SUCCESS {
        st.requested = req;
        st.completed = done;
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityRegisterTimestampCallback(ts: Option<Timestamp>) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.register_timestamp)(ts) };
    }
    let mut st = state();
    let r = forward!(c"cuptiActivityRegisterTimestampCallback", unsafe extern "C" fn(Option<Timestamp>) -> c_int, |f| f(ts));
    if r == SUCCESS {
        st.timestamp = ts;
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityEnable(kind: u32) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.enable)(kind) };
    }
    let mut st = state();
    let r = forward!(c"cuptiActivityEnable", unsafe extern "C" fn(u32) -> c_int, |f| f(kind));
    if r == SUCCESS {
        set_bit(&mut st.kinds, kind, true);
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityDisable(kind: u32) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.disable)(kind) };
    }
    let mut st = state();
    let r = forward!(c"cuptiActivityDisable", unsafe extern "C" fn(u32) -> c_int, |f| f(kind));
    if r == SUCCESS {
        set_bit(&mut st.kinds, kind, false);
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityEnableDriverApi(cbid: u32, enable: u8) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.enable_driver_api)(cbid, enable) };
    }
    let mut st = state();
    let r = forward!(c"cuptiActivityEnableDriverApi", unsafe extern "C" fn(u32, u8) -> c_int, |f| f(cbid, enable));
    if r == SUCCESS {
        set_bit(&mut st.driver_cbids, cbid, enable != 0);
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityEnableRuntimeApi(cbid: u32, enable: u8) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.enable_runtime_api)(cbid, enable) };
    }
    let mut st = state();
    let r = forward!(c"cuptiActivityEnableRuntimeApi", unsafe extern "C" fn(u32, u8) -> c_int, |f| f(cbid, enable));
    if r == SUCCESS {
        set_bit(&mut st.runtime_cbids, cbid, enable != 0);
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityFlushAll(flag: u32) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.flush_all)(flag) };
    }
    forward!(c"cuptiActivityFlushAll", unsafe extern "C" fn(u32) -> c_int, |f| f(flag))
}

/// Deprecated since CUDA 6 to a flush of everything (context and stream
/// ignored), as CUPTI 13 does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityFlush(ctx: *mut c_void, stream: u32, flag: u32) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.flush_all)(flag) };
    }
    forward!(c"cuptiActivityFlush", unsafe extern "C" fn(*mut c_void, u32, u32) -> c_int, |f| f(ctx, stream, flag))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityGetNextRecord(buf: *mut u8, valid: usize, rec: *mut *mut u8) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.next_record)(buf, valid, rec) };
    }
    forward!(c"cuptiActivityGetNextRecord", unsafe extern "C" fn(*mut u8, usize, *mut *mut u8) -> c_int, |f| f(buf, valid, rec))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityGetNumDroppedRecords(ctx: *mut c_void, stream: u32, n: *mut usize) -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.dropped)(ctx, stream, n) };
    }
    forward!(c"cuptiActivityGetNumDroppedRecords", unsafe extern "C" fn(*mut c_void, u32, *mut usize) -> c_int, |f| f(ctx, stream, n))
}

/// The program's `cuptiFinalize` (PyTorch's profiler calls it when it
/// tears down): with the multiplexer in, it ends the program's use of
/// CUPTI only (cudart-shim's session goes on).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiFinalize() -> c_int {
    if let Some(m) = mux() {
        return unsafe { (m.finalize)() };
    }
    let mut st = state();
    let r = forward!(c"cuptiFinalize", unsafe extern "C" fn() -> c_int, |f| f());
    if r == SUCCESS {
        *st = AppState::EMPTY;
    }
    r
}
