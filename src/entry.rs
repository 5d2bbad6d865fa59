//! The one place where every export is entered.
//!
//! Each export in `src/api/` is written once with its C signature, and its
//! body is one [`entry!`] around a runtime function. The macro gives each
//! export a static [`CallSite`](crate::trace::CallSite) and routes the call
//! through [`status`] or [`value`], which own:
//!
//! - the panic boundary: a panic never unwinds into C; it becomes
//!   `cudaErrorUnknown` (or the export's `on_panic` value) and an error log;
//! - initialization first: like NVIDIA's runtime, a status export answers
//!   the initialization error (e.g. `cudaErrorInsufficientDriver` with no
//!   driver) before it looks at its arguments; the few exports that work
//!   without a driver use `entry!(@no_init ...)`;
//! - the thread's last error: a failing status is recorded (except
//!   `cudaErrorNotReady`, which NVIDIA's runtime never records);
//! - the interception pipeline (`crate::intercept`: hooks, faults, the
//!   ledger, then counting, timing and tracing) when anything is on. With
//!   everything off the added cost is one relaxed load and a branch.
//! - the typed parameter block: the export's arguments are put in its
//!   `#[repr(C)]` struct (`control::params`), which the pipeline's stages
//!   see and may change, and the body reads them back from it.

use crate::control::RUNTIME;
use crate::intercept;
use crate::runtime::error;
use crate::trace::{self, progress, CallArgs, CallSite};
use crate::types::{cudaError_t, cudaErrorUnknown, CudaResult};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `entry!(cudaName(arg, ...) => runtime_expr)` for exports that return
/// `cudaError_t`: `runtime_expr` is a `CudaResult<()>`.
///
/// `entry!(@no_init cudaName(arg, ...) => runtime_expr)` for the status
/// exports that answer without an initialized runtime (versions, the export
/// table), as NVIDIA's do.
///
/// `entry!(cudaName(arg, ...) -> expr, on_panic = value)` for exports that
/// return anything else (names, handles, `void`): no last-error bookkeeping.
///
/// `entry!(@own cudartShimName(arg, ...) => runtime_expr)` (and the `->`
/// form) for the project's own API: the same panic boundary and last-error
/// rule, no initialization, and neither counted nor traced. These calls
/// observe the trace; counting them would put the observer in its own
/// figures, and a subscriber would see half of its own (un)subscription.
#[macro_export]
macro_rules! entry {
    (@own $name:ident ( $($arg:ident),* $(,)? ) => $body:expr) => {{
        static SITE: $crate::trace::CallSite = $crate::trace::CallSite::new(stringify!($name));
        $crate::entry::own_status(&SITE, #[inline(always)] move || $body)
    }};
    (@own $name:ident ( $($arg:ident),* $(,)? ) -> $body:expr, on_panic = $panic:expr) => {{
        static SITE: $crate::trace::CallSite = $crate::trace::CallSite::new(stringify!($name));
        $crate::entry::own_value(&SITE, #[inline(always)] move || $body, $panic)
    }};
    ($name:ident ( $($arg:ident),* $(,)? ) => $body:expr) => {
        $crate::entry!(@status true, $name($($arg),*) => $body)
    };
    (@no_init $name:ident ( $($arg:ident),* $(,)? ) => $body:expr) => {
        $crate::entry!(@status false, $name($($arg),*) => $body)
    };
    (@status $init:expr, $name:ident ( $($arg:ident),* ) => $body:expr) => {{
        static SITE: $crate::trace::CallSite = $crate::trace::CallSite::new(stringify!($name));
        // The typed parameter block (`params` is the calling file's import:
        // `control::params`, or `control::params::abi12` for the 12 forms).
        let mut __params = params::$name { $($arg),* };
        $crate::entry::status(
            &SITE,
            $init,
            params::$name::ID,
            &mut __params,
            &|_c: &mut $crate::trace::CallArgs, _p: &params::$name| { $( _c.arg(stringify!($arg), const { $crate::trace::args::is_symbol_arg(stringify!($arg)) }, &_p.$arg); )* },
            #[inline(always)] move |__p: &params::$name| {
                // The arguments as the pipeline left them (a `before` hook may change them).
                #[allow(unused_variables)]
                let params::$name { $($arg),* } = *__p;
                $body
            },
        )
    }};
    ($name:ident ( $($arg:ident),* $(,)? ) -> $body:expr, on_panic = $panic:expr) => {{
        static SITE: $crate::trace::CallSite = $crate::trace::CallSite::new(stringify!($name));
        let mut __params = params::$name { $($arg),* };
        $crate::entry::value(
            &SITE,
            params::$name::ID,
            &mut __params,
            &|_c: &mut $crate::trace::CallArgs, _p: &params::$name| { $( _c.arg(stringify!($arg), const { $crate::trace::args::is_symbol_arg(stringify!($arg)) }, &_p.$arg); )* },
            #[inline(always)] move |__p: &params::$name| {
                #[allow(unused_variables)]
                let params::$name { $($arg),* } = *__p;
                $body
            },
            $panic,
        )
    }};
}

/// Arguments of a call, for the trace layer (called only when tracing),
/// read from the call's parameter block `P`.
pub type Args<'a, P> = &'a dyn Fn(&mut CallArgs, &P);

/// Run an export that returns a status; with `init`, the runtime's
/// initialization outcome comes first. `p` is the call's typed parameter
/// block (function `id`); the body reads its arguments from it.
#[inline(always)]
pub fn status<P>(site: &'static CallSite, init: bool, id: u32, p: &mut P, args: Args<'_, P>, body: impl FnOnce(&P) -> CudaResult) -> cudaError_t {
    if !intercept::wants(id) {
        let p: &P = p;
        return finish(guard(site, move || run_status(init, p, body), Err(cudaErrorUnknown)));
    }
    if intercept::progress() {
        return status_progress(site, init, id, p, args, body);
    }
    status_observed(site, init, id, p, args, body)
}

/// A status export on the slow path, as the capabilities other than
/// progress want it.
#[inline(always)]
fn status_observed<P>(site: &'static CallSite, init: bool, id: u32, p: &mut P, args: Args<'_, P>, body: impl FnOnce(&P) -> CudaResult) -> cudaError_t {
    if !intercept::wants_besides_progress(id) {
        let p: &P = p;
        return finish(guard(site, move || run_status(init, p, body), Err(cudaErrorUnknown)));
    }
    if intercept::recorder_alone() {
        return status_recorded(site, init, p, args, body);
    }
    status_slow(site, init, id, p, args, body)
}

/// A status export with progress kept (`trace::progress`): published
/// around the rest of its path.
#[inline(never)]
fn status_progress<P>(site: &'static CallSite, init: bool, id: u32, p: &mut P, args: Args<'_, P>, body: impl FnOnce(&P) -> CudaResult) -> cudaError_t {
    let e = progress::enter_runtime(id, p as *const P, args);
    let r = status_observed(site, init, id, p, args, body);
    progress::exit(e, id, p as *const P as *const u8, r.0);
    r
}

/// A status export with the flight recorder alone on: observed, with no
/// stage around it (`intercept::recorder_alone`). The same order as the
/// pipeline: the last error is recorded inside the observed call.
#[inline(never)]
fn status_recorded<P>(site: &'static CallSite, init: bool, p: &P, args: Args<'_, P>, body: impl FnOnce(&P) -> CudaResult) -> cudaError_t {
    guard(
        site,
        || trace::traced(site, &|c: &mut CallArgs| args(c, p), || finish(guard(site, || run_status(init, p, body), Err(cudaErrorUnknown))), |e| *e),
        cudaErrorUnknown,
    )
}

#[inline(always)]
fn run_status<P>(init: bool, p: &P, body: impl FnOnce(&P) -> CudaResult) -> CudaResult {
    if init {
        crate::runtime::state::runtime()?;
    }
    body(p)
}

/// The parameter block as the C ABI shows it (NULL for no parameters).
fn params_ptr<P>(p: *mut P) -> *mut c_void {
    if std::mem::size_of::<P>() == 0 { std::ptr::null_mut() } else { p.cast() }
}

/// A status export through the pipeline (`crate::intercept`).
#[inline(never)]
fn status_slow<P>(site: &'static CallSite, init: bool, id: u32, p: &mut P, args: Args<'_, P>, body: impl FnOnce(&P) -> CudaResult) -> cudaError_t {
    through_pipeline(site, id, p, args, cudaErrorUnknown, |call, pp| {
        let code = intercept::stages(call, true, || {
            // SAFETY: see `through_pipeline`.
            match guard(site, || run_status(init, unsafe { &*pp }, body), Err(cudaErrorUnknown)) {
                Ok(()) => 0,
                Err(e) => e.0,
            }
        });
        let e = cudaError_t(code);
        record_error(e);
        e
    })
}

/// The part both kinds of exports share on the slow path: the panic
/// boundary around everything, observation around the stages, the call's
/// description. `stages(call, params)` runs the stages.
#[inline(always)]
fn through_pipeline<P, T: trace::TraceArg + Copy + 'static>(
    site: &'static CallSite,
    id: u32,
    p: &mut P,
    args: Args<'_, P>,
    on_panic: T,
    stages: impl FnOnce(&mut intercept::Call, *mut P) -> T,
) -> T {
    let pp: *mut P = p;
    // SAFETY (each `&*pp`): the block lives on the export's stack for the
    // whole call; the stages write it only between these reads.
    let shown = |c: &mut CallArgs| args(c, unsafe { &*pp });
    guard(
        site,
        || {
            intercept::observe(
                site,
                &shown,
                || {
                    let mut call = intercept::describe(id, RUNTIME, params_ptr(pp));
                    stages(&mut call, pp)
                },
                trace::status_of_value,
            )
        },
        on_panic,
    )
}

/// Run an export that returns a value other than a status.
#[inline(always)]
pub fn value<T: trace::TraceArg + Copy + 'static, P>(site: &'static CallSite, id: u32, p: &mut P, args: Args<'_, P>, body: impl FnOnce(&P) -> T, on_panic: T) -> T {
    if !intercept::wants(id) {
        let p: &P = p;
        return guard(site, move || body(p), on_panic);
    }
    if intercept::progress() {
        return value_progress(site, id, p, args, body, on_panic);
    }
    value_observed(site, id, p, args, body, on_panic)
}

/// [`status_observed`] for an export that returns a value.
#[inline(always)]
fn value_observed<T: trace::TraceArg + Copy + 'static, P>(site: &'static CallSite, id: u32, p: &mut P, args: Args<'_, P>, body: impl FnOnce(&P) -> T, on_panic: T) -> T {
    if !intercept::wants_besides_progress(id) {
        let p: &P = p;
        return guard(site, move || body(p), on_panic);
    }
    if intercept::recorder_alone() {
        return value_recorded(site, p, args, body, on_panic);
    }
    value_slow(site, id, p, args, body, on_panic)
}

/// [`status_progress`] for an export that returns a value.
#[inline(never)]
fn value_progress<T: trace::TraceArg + Copy + 'static, P>(site: &'static CallSite, id: u32, p: &mut P, args: Args<'_, P>, body: impl FnOnce(&P) -> T, on_panic: T) -> T {
    let e = progress::enter_runtime(id, p as *const P, args);
    let v = value_observed(site, id, p, args, body, on_panic);
    progress::exit(e, id, p as *const P as *const u8, trace::status_of_value(&v).0);
    v
}

/// [`status_recorded`] for an export that returns a value.
#[inline(never)]
fn value_recorded<T: trace::TraceArg + Copy + 'static, P>(site: &'static CallSite, p: &P, args: Args<'_, P>, body: impl FnOnce(&P) -> T, on_panic: T) -> T {
    guard(site, || trace::traced(site, &|c: &mut CallArgs| args(c, p), || guard(site, || body(p), on_panic), trace::status_of_value), on_panic)
}

/// A value export through the pipeline: hooks see it before and after;
/// nothing stands in for it (faults, the ledger and `instead` apply to
/// status calls), so it always runs.
#[inline(never)]
fn value_slow<T: trace::TraceArg + Copy + 'static, P>(site: &'static CallSite, id: u32, p: &mut P, args: Args<'_, P>, body: impl FnOnce(&P) -> T, on_panic: T) -> T {
    through_pipeline(site, id, p, args, on_panic, |call, pp| {
        let mut v = on_panic;
        intercept::stages(call, false, || {
            // SAFETY: see `through_pipeline`.
            v = guard(site, || body(unsafe { &*pp }), on_panic);
            trace::status_of_value(&v).0
        });
        v
    })
}

/// The project's own status exports (`entry!(@own ...)`): untraced.
pub fn own_status(site: &'static CallSite, body: impl FnOnce() -> CudaResult) -> cudaError_t {
    finish(guard(site, body, Err(cudaErrorUnknown)))
}

/// The project's own value exports (`entry!(@own ... -> ...)`): untraced.
pub fn own_value<T>(site: &'static CallSite, body: impl FnOnce() -> T, on_panic: T) -> T {
    guard(site, body, on_panic)
}

#[inline(always)]
fn finish(r: CudaResult) -> cudaError_t {
    match r {
        Ok(()) => crate::types::cudaSuccess,
        Err(e) => {
            error::record(e);
            e
        }
    }
}

/// The panic boundary.
#[inline(always)]
fn guard<T>(site: &'static CallSite, body: impl FnOnce() -> T, on_panic: T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(v) => v,
        Err(p) => {
            panicked(site, &*p);
            on_panic
        }
    }
}

#[cold]
#[inline(never)]
fn panicked(site: &CallSite, p: &(dyn std::any::Any + Send)) {
    let msg = p
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| p.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    crate::config::init_logging();
    log::error!(
        "internal error in {}: {msg}. The call returns cudaErrorUnknown; please report this with CUDART_SHIM_LOG=debug output.",
        site.name
    );
}

/// Record a status produced outside an export's return value (a launch from
/// an nvcc stub ignores the return, so launch errors must land here).
pub fn record_error(e: cudaError_t) {
    if !e.is_success() {
        error::record(e);
    }
}
