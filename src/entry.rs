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
//! - counting, timing and tracing, when the trace layer is on. With tracing
//!   off the added cost is one relaxed load and a branch.

use crate::runtime::error;
use crate::trace::{self, CallArgs, CallSite};
use crate::types::{cudaError_t, cudaErrorUnknown, CudaResult};
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
        $crate::entry::status(
            &SITE,
            $init,
            &|_c: &mut $crate::trace::CallArgs| { $( _c.arg(stringify!($arg), const { $crate::trace::args::is_symbol_arg(stringify!($arg)) }, &$arg); )* },
            #[inline(always)] move || $body,
        )
    }};
    ($name:ident ( $($arg:ident),* $(,)? ) -> $body:expr, on_panic = $panic:expr) => {{
        static SITE: $crate::trace::CallSite = $crate::trace::CallSite::new(stringify!($name));
        $crate::entry::value(
            &SITE,
            &|_c: &mut $crate::trace::CallArgs| { $( _c.arg(stringify!($arg), const { $crate::trace::args::is_symbol_arg(stringify!($arg)) }, &$arg); )* },
            #[inline(always)] move || $body,
            $panic,
        )
    }};
}

/// Arguments of a call, for the trace layer (called only when tracing).
pub type Args<'a> = &'a dyn Fn(&mut CallArgs);

/// Run an export that returns a status; with `init`, the runtime's
/// initialization outcome comes first.
#[inline(always)]
pub fn status(site: &'static CallSite, init: bool, args: Args<'_>, body: impl FnOnce() -> CudaResult) -> cudaError_t {
    let run = move || {
        if init {
            crate::runtime::state::runtime()?;
        }
        body()
    };
    if trace::active() {
        return trace::traced(site, args, || finish(guard(site, run, Err(cudaErrorUnknown))), |r: &cudaError_t| *r);
    }
    finish(guard(site, run, Err(cudaErrorUnknown)))
}

/// Run an export that returns a value other than a status.
#[inline(always)]
pub fn value<T: trace::TraceArg + 'static>(site: &'static CallSite, args: Args<'_>, body: impl FnOnce() -> T, on_panic: T) -> T {
    if trace::active() {
        return trace::traced(site, args, || guard(site, body, on_panic), trace::status_of_value);
    }
    guard(site, body, on_panic)
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
