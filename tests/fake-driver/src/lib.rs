//! A fake CUDA driver for cudart-shim's tests.
//!
//! It implements, on host memory, the driver calls the shim uses: devices
//! with configurable attributes, primary and user contexts, and (in the area
//! modules) memory, streams, events, modules and graphs. Every entry point
//! counts its calls and can be told to fail.
//!
//! Knobs (environment, read once):
//! - `FAKE_CUDA_DEVICES=N` (default 1)
//! - `FAKE_CUDA_DRIVER_VERSION=V` (default 13000)
//! - `FAKE_CUDA_INIT_RESULT=code`: what `cuInit` returns (default 0)
//! - `FAKE_CUDA_FAIL=name:nth:code[,...]`: the nth call (1-based; 0 = every
//!   call) of `name` returns `code`
//! - `FAKE_CUDA_MISSING=name[,...]`: `cuGetProcAddress` does not know these
//! - `FAKE_CUDA_OLD=name[,...]`: `cuGetProcAddress` says the version is not
//!   sufficient for these
//! - `FAKE_CUDA_ATTR=attr=value[,...]`: device attribute overrides
//! - `FAKE_CUDA_HANG_KERNEL=name[@nth][:ms]`: the nth launch (1-based;
//!   without `@nth`, every launch) of kernel `name` does not complete: its
//!   stream stays busy for `ms` milliseconds, or for ever without `:ms`
//!   (the watchdog's tests, docs/HANGS.md)
//!
//! Control API for in-process tests (C ABI): `fake_cuda_calls(name)`,
//! `fake_cuda_fail(name, nth, code)`, `fake_cuda_reset_counts()`.
#![allow(non_snake_case, clippy::missing_safety_doc)]

pub mod knobs;
pub mod device;
pub mod memory;
pub mod stream;
pub mod capture;
pub mod graph;
pub mod module;
pub mod misc;
pub mod activity;
pub mod green;

use std::ffi::{c_char, c_int, c_void, CStr};

pub type CUresult = c_int;
pub const SUCCESS: CUresult = 0;
pub const INVALID_VALUE: CUresult = 1;
pub const NOT_INITIALIZED: CUresult = 3;
pub const NO_DEVICE: CUresult = 100;
pub const INVALID_DEVICE: CUresult = 101;
pub const INVALID_CONTEXT: CUresult = 201;
pub const NOT_FOUND: CUresult = 500;
pub const NOT_SUPPORTED: CUresult = 801;

/// Start of every fake entry point: count the call, apply injected
/// failures, and (unless the function is exempt) require `cuInit`.
#[macro_export]
macro_rules! fake_enter {
    ($name:literal) => {
        if let Some(code) = $crate::knobs::on_call($name) {
            return code;
        }
    };
}

/// One entry point: the name `cuGetProcAddress` is asked for (append
/// `@ptds` for a distinct per-thread-stream variant) and the function.
pub struct Sym(pub &'static str, pub *const c_void);
// SAFETY: function pointers only.
unsafe impl Sync for Sym {}

/// A module's symbol table.
pub type Symbols = &'static [Sym];

/// `sym!(cuInit)` is `Sym("cuInit", cuInit as *const c_void)`;
/// `sym!("cuMemAlloc" => cuMemAlloc_v2)` names it explicitly.
#[macro_export]
macro_rules! sym {
    ($f:ident) => { $crate::Sym(stringify!($f), $f as *const std::ffi::c_void) };
    ($n:literal => $f:path) => { $crate::Sym($n, $f as *const std::ffi::c_void) };
}

static TABLES: &[Symbols] = &[
    device::SYMBOLS,
    memory::SYMBOLS,
    stream::SYMBOLS,
    capture::SYMBOLS,
    graph::SYMBOLS,
    module::SYMBOLS,
    misc::SYMBOLS,
    green::SYMBOLS,
];

/// Names `cuGetProcAddress` answers with an older function below a CUDA
/// version (`PFN_<name>_v<N>` in cudaTypedefs.h): (name, version of the
/// newer one).
const VERSIONED: &[(&str, c_int)] = &[("cuEventElapsedTime", 12080), ("cuMemAdvise", 13000), ("cuMemcpyBatchAsync", 13000), ("cuMemcpy3DBatchAsync", 13000)];

fn lookup(name: &str) -> Option<*const c_void> {
    TABLES.iter().flat_map(|t| t.iter()).find(|s| s.0 == name).map(|s| s.1)
}

/// `cuGetProcAddress_v2`. Per-thread (`_ptds`/`_ptsz`) requests get the same
/// function: streams here have no legacy/per-thread distinction unless an
/// area module registers `name@ptds`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
    status: *mut c_int,
) -> CUresult {
    fake_enter!("cuGetProcAddress");
    if symbol.is_null() || pfn.is_null() {
        return INVALID_VALUE;
    }
    // A 13.x version newer than the driver is refused (as driver 580
    // refuses 13050). Older drivers set by tests still answer 13000.
    let have = knobs::get().driver_version;
    if cuda_version > have.max(13000) {
        return INVALID_VALUE;
    }
    let name = unsafe { CStr::from_ptr(symbol) }.to_string_lossy().into_owned();
    let set_status = |s: c_int| {
        if !status.is_null() {
            unsafe { *status = s };
        }
    };
    unsafe { *pfn = std::ptr::null_mut() };
    if knobs::get().missing.contains(&name) {
        set_status(1);
        return NOT_FOUND;
    }
    if knobs::get().old.contains(&name) {
        set_status(2);
        return NOT_FOUND;
    }
    // Entry points newer than the driver are unknown to it; newer than the
    // version asked for, not sufficient.
    if let Some(v) = green::since(&name) {
        if v > have {
            set_status(1);
            return NOT_FOUND;
        }
        if v > cuda_version {
            set_status(2);
            return NOT_FOUND;
        }
    }
    let per_thread = flags & 2 != 0;
    // A name whose newer version is its meaning from some CUDA version on:
    // older requests get the old function, registered as `name@v1`.
    let name = match VERSIONED.iter().find(|(n, _)| *n == name) {
        Some((_, since)) if cuda_version < *since => format!("{name}@v1"),
        _ => name,
    };
    let found = if per_thread { lookup(&format!("{name}@ptds")).or_else(|| lookup(&name)) } else { lookup(&name) };
    match found {
        Some(f) => {
            unsafe { *pfn = f as *mut c_void };
            set_status(0);
            SUCCESS
        }
        None => {
            set_status(1);
            NOT_FOUND
        }
    }
}

/// Number of calls of `name` so far (test control API).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_calls(name: *const c_char) -> u64 {
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    knobs::calls(&name)
}

/// Make the `nth` call from now of `name` (0: every call) return `code`;
/// code 0 removes the rule (test control API).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_fail(name: *const c_char, nth: u64, code: c_int) {
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
    knobs::add_failure(name, nth, code);
}

/// Forget all call counts (test control API).
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_reset_counts() {
    knobs::reset_counts();
}
