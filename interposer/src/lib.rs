//! cudart-shim's driver API interposer: a `libcuda.so.1` that forwards every
//! call to the real CUDA driver and reports it to cudart-shim's trace
//! machinery.
//!
//! Why: most CUDA programs never call our runtime. nvcc links NVIDIA's
//! runtime statically by default; CuPy, cuda-python, Triton, cuBLAS, cuDNN
//! and NCCL call the driver directly. All of them load the driver with
//! `dlopen("libcuda.so.1")`, so a folder holding this library first on
//! `LD_LIBRARY_PATH` (`target/<profile>/driver/`, made by build.rs) puts us
//! in front of every driver call.
//!
//! Design:
//! - **Thin.** The trace machinery (counting, timing, the call log, the
//!   timeline, the summary, the environment variables) lives once, in
//!   `libcudart_shim.so` (and `libcudart_shim12.so`, a second copy with its
//!   own). This library finds them ([`shim`]: already loaded in the process,
//!   else from the file beside this one) and reports through the small C ABI
//!   of `src/trace/driver_abi.rs`, each call to one of them (the rule is at
//!   [`shim::connect`]). One machinery per runtime:
//!   when the program also uses our runtime, driver calls made inside a
//!   runtime call nest under it on the timeline and are not counted as the
//!   program's own (the trace machinery decides that from its call depth).
//!   A second copy of the machinery in this library would have needed a
//!   second summary, a second timeline file and a way to nest across them.
//! - **The real driver by absolute path** ([`real`]): `CUDART_SHIM_DRIVER`,
//!   the folders of `LD_LIBRARY_PATH`, the dynamic loader's cache, then the
//!   usual driver folders; never this library itself nor another copy. None found: every call answers as a driver-less
//!   installation makes NVIDIA's runtime answer, with one warning listing
//!   what was searched.
//! - **Every export of the real driver.** The 634 functions of cuda.h
//!   (every version: `_v2`, `_ptds`, `_ptsz`) and cuProfilerStart/Stop
//!   (cudaProfilerTypedefs.h; traced so that a program on NVIDIA's static
//!   runtime opens capture windows) are typed exports generated from one
//!   list (`src/generated/api.rs`, by `scripts/gen-driver-api.py`); the 46
//!   other exports of driver 580 (OpenGL, EGL, VDPAU, cuProfilerInitialize,
//!   debugger entry points) are untyped jumps to the real function.
//! - **Entry points handed out** by `cuGetProcAddress[_v2]` are mapped to
//!   our export of the same real address ([`proc_address`]); an address we
//!   do not know (a driver newer than the list) goes out untraced and is
//!   counted once under a name that says so. `cuGetExportTable` passes
//!   through: its private tables are not wrapped.
//! - **Cost.** With nothing on (no trace, hook, fault or ledger) an export
//!   is one load of the real pointer, four loads and two compares for the
//!   two switch words (one per cudart-shim runtime the process can hold),
//!   and a tail call.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

#[path = "../../src/trace/driver_abi.rs"]
#[allow(dead_code)]
pub mod desc;
mod generated {
    pub mod api;
}
mod exports;
mod names;
mod proc_address;
mod real;
mod shim;

pub use generated::api;

use desc::RunFn;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering::*};

pub type CUresult = c_int;
pub const CUDA_SUCCESS: CUresult = 0;
pub const CUDA_ERROR_INVALID_VALUE: CUresult = 1;
/// What every call answers when no real driver was found. See
/// [`real::no_driver`].
pub const CUDA_ERROR_NO_DRIVER: CUresult = real::NO_DRIVER;
/// A function the loaded driver does not export (an older driver).
pub const CUDA_ERROR_NOT_FOUND: CUresult = 500;

/// Number of typed functions.
pub const NFNS: usize = api::FNS.len();

/// Real entry point of each typed function, by id. Until the constructor
/// has run, and for good when no driver was found, each holds
/// [`real::no_driver`].
pub static REAL: [AtomicPtr<c_void>; NFNS] = [const { AtomicPtr::new(real::no_driver as *mut c_void) }; NFNS];

/// Real entry point of each untyped export, by index in [`api::UNTYPED`].
pub static REAL_UNTYPED: [AtomicPtr<c_void>; api::UNTYPED.len()] =
    [const { AtomicPtr::new(real::no_driver as *mut c_void) }; api::UNTYPED.len()];

static OFF_WORD: AtomicU32 = AtomicU32::new(desc::OFF);
/// The trace machinery's switch word (ours, always off, until one is found).
static SWITCH: AtomicPtr<AtomicU32> = AtomicPtr::new(&OFF_WORD as *const AtomicU32 as *mut AtomicU32);
/// The primary trace machinery's hooks (NULL: none); see [`shim::connect`].
static HOOKS: AtomicPtr<desc::Hooks> = AtomicPtr::new(std::ptr::null_mut());
/// A second runtime's machinery (a process with both libcudart.so.13 and
/// .12 of ours; NULL: none) and its switch word.
static SECOND: AtomicPtr<desc::Hooks> = AtomicPtr::new(std::ptr::null_mut());
static SWITCH2: AtomicPtr<AtomicU32> = AtomicPtr::new(&OFF_WORD as *const AtomicU32 as *mut AtomicU32);

/// Whether anything wants calls now (trace, hooks, faults, ledger: the
/// pipeline's switch word of each runtime): four relaxed loads and two
/// compares.
#[inline(always)]
pub fn any_on() -> bool {
    // SAFETY: SWITCH and SWITCH2 point at a static of ours or of a
    // cudart-shim runtime, which is never unloaded once we hold it (see `shim`).
    unsafe { (*SWITCH.load(Relaxed)).load(Relaxed) > desc::OFF || (*SWITCH2.load(Relaxed)).load(Relaxed) > desc::OFF }
}

/// The machinery to report a call to: the second one while one of its
/// runtime's calls is in progress on this thread (the call nests there),
/// else the primary (see [`shim::connect`]).
#[inline]
fn machinery() -> *const desc::Hooks {
    let second = SECOND.load(Acquire);
    // SAFETY: hooks of a matching ABI version, pinned (see `shim`).
    if !second.is_null() && unsafe { ((*second).depth)() } > 0 {
        return second;
    }
    HOOKS.load(Acquire)
}

/// An argument as the word the trace machinery receives.
pub trait Word {
    fn word(self) -> u64;
}
macro_rules! word_unsigned { ($($t:ty),*) => { $(impl Word for $t { #[inline(always)] fn word(self) -> u64 { self as u64 } })* } }
macro_rules! word_signed { ($($t:ty),*) => { $(impl Word for $t { #[inline(always)] fn word(self) -> u64 { self as i64 as u64 } })* } }
word_unsigned!(u8, u16, u32, u64, usize);
word_signed!(i8, i16, i32);
impl Word for f32 {
    #[inline(always)]
    fn word(self) -> u64 {
        self.to_bits() as u64
    }
}
impl<T> Word for *mut T {
    #[inline(always)]
    fn word(self) -> u64 {
        self as u64
    }
}
impl<T> Word for *const T {
    #[inline(always)]
    fn word(self) -> u64 {
        self as u64
    }
}

/// `CUmemLocation`, passed by value (8 bytes: an enum and an int).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemLocation {
    pub type_: c_int,
    pub id: c_int,
}
impl Word for CUmemLocation {
    fn word(self) -> u64 {
        (self.type_ as u32 as u64) | ((self.id as u32 as u64) << 32)
    }
}

/// `CUipcMemHandle` / `CUipcEventHandle`, passed by value (64 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUipcHandle {
    pub reserved: [u8; 64],
}
impl Word for CUipcHandle {
    fn word(self) -> u64 {
        0
    }
}

/// Hand one call of function `id` to the pipeline, which runs it.
/// `params`: its typed parameter block; `args`: its arguments as words.
///
/// # Safety
/// `params` points at the call's parameter block (see `exports`), alive
/// until this returns.
#[inline(never)]
pub unsafe fn intercepted<F: FnOnce() -> CUresult>(id: u32, params: *mut c_void, args: &[u64], run: F) -> CUresult {
    let h = machinery();
    if h.is_null() {
        return run();
    }
    let mut run = Some(run);
    // SAFETY: ctx is `run` below, alive for the whole hook call.
    unsafe extern "C" fn trampoline<F: FnOnce() -> CUresult>(ctx: *mut c_void) -> c_int {
        let run = unsafe { &mut *(ctx as *mut Option<F>) };
        // The hook runs the call once; a second run would be its bug, and
        // answers an error instead of calling the driver twice.
        run.take().map_or(999, |f| f())
    }
    let f: RunFn = trampoline::<F>;
    // SAFETY: hooks from a matching ABI version (checked in `shim`).
    // The pipeline runs the call at most once; it may not run it at all (a
    // fault, the memory limit or an `instead` hook stands for it): its
    // answer is what the caller sees either way.
    unsafe { ((*h).call)(id, params, args.as_ptr(), f, &mut run as *mut Option<F> as *mut c_void) }
}

/// NVTX3's injection entry point (`NVTX_INJECTION64_PATH` may name this
/// library): forwarded to the trace machinery the driver calls go to, so a
/// program that never calls our runtime (CuPy) still has its NVTX ranges
/// traced. 0 (NVTX then makes its calls no-ops) when no machinery is
/// connected.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn InitializeInjectionNvtx2(get_export_table: *const c_void) -> c_int {
    let h = HOOKS.load(Acquire);
    if h.is_null() {
        return 0;
    }
    // SAFETY: hooks of a matching ABI version (checked in `shim`), pinned.
    unsafe { ((*h).nvtx_init)(get_export_table) }
}

/// Initialization, when the library is loaded: find the real driver, fill
/// the tables, find the trace machinery.
extern "C" fn init() {
    real::load();
    shim::connect();
}

#[used]
#[unsafe(link_section = ".init_array")]
static INIT: extern "C" fn() = init;
