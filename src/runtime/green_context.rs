//! Execution contexts (CUDA 13.5): green contexts built from device
//! resources, and each device's own (primary) context, behind one handle
//! type. The handle is the driver context (`CUcontext`): a green context's
//! is the one `cuCtxFromGreenCtx` gives, so driver calls that take a context
//! take it unchanged, and the few that need the green context itself look
//! it up in [`GREEN`].
//!
//! Answers measured with NVIDIA's 13.5 runtime on H100 / driver 580
//! (tests/cu135/probe_new.cu): a NULL context or out-pointer is
//! `cudaErrorInvalidValue`, a bad device `cudaErrorInvalidDevice`, creation
//! flags other than 0 `cudaErrorInvalidValue`; the device's own context
//! cannot be destroyed (`cudaErrorInvalidValue`).

use super::state::runtime;
use crate::driver::api::{CUgreenCtx, CU_GREEN_CTX_DEFAULT_STREAM};
use crate::driver::{CUcontext, StreamMode};
use crate::types::*;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_ulonglong};
use std::ptr::null_mut;

/// Green contexts alive, by the handle we gave out (their `CUcontext`).
/// Taken only by the green-context calls, never on a hot path.
static GREEN: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

fn green_of(ctx: CUcontext) -> Option<CUgreenCtx> {
    GREEN.lock().as_ref().and_then(|m| m.get(&(ctx as usize)).map(|g| *g as CUgreenCtx))
}

/// The driver context of a non-NULL execution context.
fn context(ctx: cudaExecutionContext_t) -> CudaResult<CUcontext> {
    if ctx.is_null() { Err(cudaErrorInvalidValue) } else { Ok(ctx.cast()) }
}

/// `cudaDeviceGetDevResource`.
pub fn device_resource(out: Option<&mut cudaDevResource>, ordinal: c_int, kind: cudaDevResourceType) -> CudaResult {
    let d = runtime()?.device(ordinal)?;
    let out = out.ok_or(cudaErrorInvalidValue)?;
    cu!(cuDeviceGetDevResource(d.cu, out, kind.0))
}

/// `cudaDevSmResourceSplitByCount`: `result` may be absent (count only);
/// its length is `*nb_groups` on entry.
pub fn split_by_count(
    result: Option<&mut [cudaDevResource]>,
    nb_groups: Option<&mut c_uint>,
    input: Option<&cudaDevResource>,
    remaining: Option<&mut cudaDevResource>,
    flags: c_uint,
    min_count: c_uint,
) -> CudaResult {
    let nb = nb_groups.ok_or(cudaErrorInvalidValue)?;
    let input = input.ok_or(cudaErrorInvalidValue)?;
    let result = result.map_or(null_mut(), |r| r.as_mut_ptr());
    let remaining = remaining.map_or(null_mut(), |r| r as *mut _);
    cu!(cuDevSmResourceSplitByCount(result, nb, input, remaining, flags, min_count))
}

/// `cudaDevSmResourceSplit` (CUDA 13.1 driver): `result` and `params` hold
/// `nb_groups` entries each; `result` may be absent (discovery: the driver
/// fills in the params' SM counts). The driver checks the arguments; an
/// older driver answers `cudaErrorCallRequiresNewerDriver` whatever they
/// are, as NVIDIA's runtime does.
pub fn split(
    result: Option<&mut [cudaDevResource]>,
    nb_groups: c_uint,
    input: Option<&cudaDevResource>,
    remainder: Option<&mut cudaDevResource>,
    flags: c_uint,
    params: Option<&mut [cudaDevSmResourceGroupParams]>,
) -> CudaResult {
    let f = crate::driver::api::cuDevSmResourceSplit.get()?;
    let n = nb_groups;
    let result = result.map_or(null_mut(), |r| r.as_mut_ptr());
    let input = input.map_or(std::ptr::null(), |r| r as *const _);
    let remainder = remainder.map_or(null_mut(), |r| r as *mut _);
    let params = params.map_or(null_mut(), |p| p.as_mut_ptr());
    // SAFETY: every pointer is NULL or comes from a reference or slice of
    // the right type and length.
    crate::driver::check(unsafe { f(result, n, input, remainder, flags, params) })
}

/// `cudaDevResourceGenerateDesc`. An empty list is `cudaErrorInvalidValue`
/// (NVIDIA's 13.5 runtime crashes on it).
pub fn generate_desc(out: Option<&mut cudaDevResourceDesc_t>, resources: Option<&mut [cudaDevResource]>) -> CudaResult {
    let out = out.ok_or(cudaErrorInvalidValue)?;
    let res = resources.filter(|r| !r.is_empty()).ok_or(cudaErrorInvalidValue)?;
    cu!(cuDevResourceGenerateDesc(out, res.as_mut_ptr(), res.len() as c_uint))
}

/// `cudaGreenCtxCreate`.
pub fn green_create(out: Option<&mut cudaExecutionContext_t>, desc: cudaDevResourceDesc_t, ordinal: c_int, flags: c_uint) -> CudaResult {
    let out = out.ok_or(cudaErrorInvalidValue)?;
    if desc.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    let d = runtime()?.device(ordinal)?;
    if flags != 0 {
        return Err(cudaErrorInvalidValue);
    }
    let mut green: CUgreenCtx = null_mut();
    cu!(cuGreenCtxCreate(&mut green, desc, d.cu, CU_GREEN_CTX_DEFAULT_STREAM))?;
    let mut ctx: CUcontext = null_mut();
    if let Err(e) = cu!(cuCtxFromGreenCtx(&mut ctx, green)) {
        let _ = cu!(cuGreenCtxDestroy(green));
        return Err(e);
    }
    GREEN.lock().get_or_insert_with(HashMap::new).insert(ctx as usize, green as usize);
    *out = ctx.cast();
    Ok(())
}

/// `cudaDeviceGetExecutionCtx`: the device's primary context (retained on
/// first use, like any runtime call on the device).
pub fn device_context(out: Option<&mut cudaExecutionContext_t>, ordinal: c_int) -> CudaResult {
    let out = out.ok_or(cudaErrorInvalidValue)?;
    let d = runtime()?.device(ordinal)?;
    *out = d.primary()?.cast();
    Ok(())
}

/// `cudaExecutionCtxDestroy`: green contexts only.
pub fn destroy(ctx: cudaExecutionContext_t) -> CudaResult {
    let ctx = context(ctx)?;
    let green = GREEN.lock().as_mut().and_then(|m| m.remove(&(ctx as usize)));
    match green {
        Some(g) => cu!(cuGreenCtxDestroy(g as CUgreenCtx)),
        None => Err(cudaErrorInvalidValue),
    }
}

/// `cudaExecutionCtxGetDevice`.
pub fn device(out: Option<&mut c_int>, ctx: cudaExecutionContext_t) -> CudaResult {
    let out = out.ok_or(cudaErrorInvalidValue)?;
    let ctx = context(ctx)?;
    let mut dev = 0;
    cu!(cuCtxGetDevice(&mut dev, ctx))?;
    *out = runtime()?.ordinal_of(dev)?;
    Ok(())
}

/// `cudaExecutionCtxGetId`.
pub fn id(ctx: cudaExecutionContext_t, out: Option<&mut c_ulonglong>) -> CudaResult {
    let ctx = context(ctx)?;
    let out = out.ok_or(cudaErrorInvalidValue)?;
    cu!(cuCtxGetId(ctx, out))
}

/// `cudaExecutionCtxGetDevResource`.
pub fn resource(ctx: cudaExecutionContext_t, out: Option<&mut cudaDevResource>, kind: cudaDevResourceType) -> CudaResult {
    let ctx = context(ctx)?;
    let out = out.ok_or(cudaErrorInvalidValue)?;
    match green_of(ctx) {
        Some(g) => cu!(cuGreenCtxGetDevResource(g, out, kind.0)),
        None => cu!(cuCtxGetDevResource(ctx, out, kind.0)),
    }
}

/// `cudaExecutionCtxStreamCreate`. A green context's streams are always
/// non-blocking (the driver requires it); the device context's follow
/// `flags`.
pub fn stream_create(out: Option<&mut cudaStream_t>, ctx: cudaExecutionContext_t, flags: c_uint, priority: c_int) -> CudaResult {
    let out = out.ok_or(cudaErrorInvalidValue)?;
    let ctx = context(ctx)?;
    if flags & !cudaStreamNonBlocking != 0 {
        return Err(cudaErrorInvalidValue);
    }
    let mut s = null_mut();
    match green_of(ctx) {
        Some(g) => cu!(cuGreenCtxStreamCreate(&mut s, g, cudaStreamNonBlocking, priority))?,
        None => {
            cu!(cuCtxPushCurrent(ctx))?;
            let r = cu!(cuStreamCreateWithPriority(&mut s, flags, priority));
            let mut popped = null_mut();
            let _ = cu!(cuCtxPopCurrent(&mut popped));
            r?;
        }
    }
    *out = s;
    Ok(())
}

/// `cudaExecutionCtxRecordEvent`.
pub fn record_event(ctx: cudaExecutionContext_t, event: cudaEvent_t) -> CudaResult {
    let ctx = context(ctx)?;
    match green_of(ctx) {
        Some(g) => cu!(cuGreenCtxRecordEvent(g, event)),
        None => cu!(cuCtxRecordEvent(ctx, event)),
    }
}

/// `cudaExecutionCtxWaitEvent`.
pub fn wait_event(ctx: cudaExecutionContext_t, event: cudaEvent_t) -> CudaResult {
    let ctx = context(ctx)?;
    match green_of(ctx) {
        Some(g) => cu!(cuGreenCtxWaitEvent(g, event)),
        None => cu!(cuCtxWaitEvent(ctx, event)),
    }
}

/// `cudaExecutionCtxSynchronize`.
pub fn synchronize(ctx: cudaExecutionContext_t) -> CudaResult {
    let ctx = context(ctx)?;
    cu!(cuCtxSynchronize(ctx))
}

/// `cudaStreamGetDevResource`: the resources of the stream's context,
/// green or not. NVIDIA's 13.5 runtime answers this on driver 580 too
/// (which lacks `cuStreamGetDevResource`), so we build it from
/// `cuStreamGetCtx` the same way on every driver.
pub fn stream_resource(stream: cudaStream_t, out: Option<&mut cudaDevResource>, kind: cudaDevResourceType, mode: StreamMode) -> CudaResult {
    let out = out.ok_or(cudaErrorInvalidValue)?;
    super::context::enter()?;
    let (mut ctx, mut green) = (null_mut(), null_mut());
    cu!(mode mode; cuStreamGetCtx(stream, &mut ctx, &mut green))?;
    if green.is_null() {
        cu!(cuCtxGetDevResource(ctx, out, kind.0))
    } else {
        cu!(cuGreenCtxGetDevResource(green, out, kind.0))
    }
}

/// Which subgrid export: NVIDIA's 13.5 headers declare none of them.
#[derive(Clone, Copy, Debug)]
pub enum Subgrid {
    Create,
    WorkerGridCreate,
    WorksetCreate,
}

/// `cudaSubgridCreate`, `cudaSubgridWorkerGridCreate`,
/// `cudaSubgridWorksetCreate`: exported by NVIDIA's 13.5 runtime but
/// declared in no header, so their arguments are unknown. Like NVIDIA's, the
/// call answers `cudaErrorCallRequiresNewerDriver` on a driver without the
/// entry point (every driver up to 580); on one that has it, we cannot
/// forward arguments we do not know, and answer `cudaErrorNotSupported`.
pub fn subgrid(which: Subgrid) -> CudaResult {
    use crate::driver::api::{cuSubgridCreate, cuSubgridWorkerGridCreate, cuSubgridWorksetCreate};
    let present = match which {
        Subgrid::Create => cuSubgridCreate.get().map(|_| ()),
        Subgrid::WorkerGridCreate => cuSubgridWorkerGridCreate.get().map(|_| ()),
        Subgrid::WorksetCreate => cuSubgridWorksetCreate.get().map(|_| ()),
    };
    present?;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        log::warn!(
            "cudaSubgrid* ({which:?}): the driver has the entry point but CUDA 13.5 declares no signature for it; cudart-shim returns cudaErrorNotSupported (see docs/COMPATIBILITY.md)"
        )
    });
    Err(cudaErrorNotSupported)
}
