//! The driver layer's interception point, as the driver interposer
//! (`interposer/`, built as `libcuda.so.1`) reaches it through the C ABI of
//! `trace::driver_abi`: each driver call comes here with its typed
//! parameter block and runs the same stages as a runtime call.

use super::{describe, observe_driver, stages};
use crate::control::{params::DRIVER_BASE, DRIVER};
use crate::trace::progress;
use crate::trace::driver_abi::{Api, Hooks, RunFn, ABI_VERSION};
use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

static HOOKS: Hooks = Hooks {
    abi: ABI_VERSION,
    flags: &crate::control::switch::ON,
    call,
    untraced: crate::trace::driver::untraced,
    activate,
    depth,
    nvtx_init,
};

/// The interposer's `InitializeInjectionNvtx2` forwards here (trace/nvtx).
unsafe extern "C" fn nvtx_init(get_export_table: *const c_void) -> c_int {
    // SAFETY: NULL or NVTX's nvtxGetExportTable, per the interposer's caller.
    unsafe { crate::trace::nvtx::initialize(std::mem::transmute::<*const c_void, Option<unsafe extern "C" fn(u32) -> *const c_void>>(get_export_table)) }
}

unsafe extern "C" fn activate() {
    let _ = catch_unwind(super::any);
}

unsafe extern "C" fn depth() -> u32 {
    crate::trace::current_depth()
}

/// Called by the driver interposer when it loads: the hooks it reports
/// through, or NULL when driver calls are not to be reported
/// (`CUDART_SHIM_TRACE_DRIVER=0`, another ABI version, or another copy of
/// the interposer registered first). Does not switch anything on
/// (`Hooks::activate` does): a runtime the program does not use stays
/// inert, with no output, thread or driver.
///
/// # Safety
/// `api` is NULL or follows `trace::driver_abi`.
///
/// cbindgen:ignore
#[unsafe(no_mangle)]
#[allow(non_snake_case)]
pub unsafe extern "C" fn cudartShimInternalDriverHooks(api: *const Api) -> *const Hooks {
    // SAFETY: per the contract.
    let ok = catch_unwind(|| unsafe { crate::trace::driver::register_api(api) }).unwrap_or(false);
    if ok { &HOOKS } else { std::ptr::null() }
}

/// One driver call through the pipeline; the call runs at most once
/// whatever happens here (a stage that panics: the call runs untouched).
unsafe extern "C" fn call(id: u32, params: *mut c_void, args: *const u64, run: RunFn, ctx: *mut c_void) -> c_int {
    let done: Cell<Option<c_int>> = Cell::new(None);
    let go = || {
        // SAFETY: the interposer's call, run once (`done` records it).
        let r = unsafe { run(ctx) };
        done.set(Some(r));
        r
    };
    // Hooks alone, and none wants this call: straight to it.
    if !super::wants(DRIVER_BASE + id) {
        return go();
    }
    if super::progress() {
        // Our own threads' driver calls (the watchdog's probe) are not the program's.
        if progress::is_internal() {
            return go();
        }
        let n = if args.is_null() { 0 } else { crate::trace::driver::nargs(id) };
        let e = progress::enter(DRIVER_BASE + id, args.cast(), n * 8, crate::trace::driver::decode_words, [0, 0]);
        let r = observed(id, params, args, &go, &done);
        progress::exit(e, DRIVER_BASE + id, params.cast_const().cast(), r);
        return r;
    }
    observed(id, params, args, &go, &done)
}

/// A driver call as the capabilities other than progress want it.
fn observed(id: u32, params: *mut c_void, args: *const u64, go: &dyn Fn() -> c_int, done: &Cell<Option<c_int>>) -> c_int {
    if !super::wants_besides_progress(DRIVER_BASE + id) {
        return go();
    }
    let n = crate::control::params::COUNT - DRIVER_BASE;
    let words: &[u64] = if args.is_null() || id >= n {
        &[]
    } else {
        // SAFETY: one word per parameter (the interposer's contract); the
        // registry's function knows how many (observe trims to it).
        unsafe { std::slice::from_raw_parts(args, crate::trace::driver::nargs(id)) }
    };
    let r = catch_unwind(AssertUnwindSafe(|| {
        // The flight recorder alone: no stage to run (as `entry`).
        if super::recorder_alone() {
            return observe_driver(id, words, go);
        }
        observe_driver(id, words, || {
            let mut c = describe(DRIVER_BASE + id, DRIVER, params);
            stages(&mut c, true, go)
        })
    }));
    match (r, done.get()) {
        (Ok(r), _) => r,
        (Err(_), Some(r)) => r,
        (Err(_), None) => go(),
    }
}
