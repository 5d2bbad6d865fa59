//! Exports of CUDA 13.5's execution contexts: green contexts, the device's
//! own context, device resources and SM splits, and the subgrid calls.
//! Raw pointers become references and slices here (NULL: `None`); the
//! runtime decides which NULLs are errors.

use crate::control::params;
use crate::driver::StreamMode::{Legacy, PerThread};
use crate::runtime::green_context::{self as green, Subgrid};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_ulonglong};

/// `n` elements at `p`, or `None` for NULL.
///
/// # Safety
/// A non-NULL `p` must point to `n` valid elements, unaliased for `'a`.
unsafe fn slice_mut<'a, T>(p: *mut T, n: c_uint) -> Option<&'a mut [T]> {
    // SAFETY: the caller's contract.
    (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts_mut(p, n as usize) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetDevResource(device: c_int, resource: *mut cudaDevResource, r#type: cudaDevResourceType) -> cudaError_t {
    entry!(cudaDeviceGetDevResource(device, resource, r#type) => green::device_resource(unsafe { resource.as_mut() }, device, r#type))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDevSmResourceSplitByCount(
    result: *mut cudaDevResource,
    nbGroups: *mut c_uint,
    input: *const cudaDevResource,
    remaining: *mut cudaDevResource,
    flags: c_uint,
    minCount: c_uint,
) -> cudaError_t {
    entry!(cudaDevSmResourceSplitByCount(result, nbGroups, input, remaining, flags, minCount) => {
        // SAFETY: the caller passes `*nbGroups` elements at `result`.
        let groups = unsafe { nbGroups.as_ref() }.copied().unwrap_or(0);
        green::split_by_count(
            unsafe { slice_mut(result, groups) },
            unsafe { nbGroups.as_mut() },
            unsafe { input.as_ref() },
            unsafe { remaining.as_mut() },
            flags,
            minCount,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDevSmResourceSplit(
    result: *mut cudaDevResource,
    nbGroups: c_uint,
    input: *const cudaDevResource,
    remainder: *mut cudaDevResource,
    flags: c_uint,
    groupParams: *mut cudaDevSmResourceGroupParams,
) -> cudaError_t {
    entry!(cudaDevSmResourceSplit(result, nbGroups, input, remainder, flags, groupParams) => green::split(
        unsafe { slice_mut(result, nbGroups) },
        nbGroups,
        unsafe { input.as_ref() },
        unsafe { remainder.as_mut() },
        flags,
        unsafe { slice_mut(groupParams, nbGroups) },
    ))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDevResourceGenerateDesc(phDesc: *mut cudaDevResourceDesc_t, resources: *mut cudaDevResource, nbResources: c_uint) -> cudaError_t {
    entry!(cudaDevResourceGenerateDesc(phDesc, resources, nbResources) => green::generate_desc(unsafe { phDesc.as_mut() }, unsafe { slice_mut(resources, nbResources) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGreenCtxCreate(phCtx: *mut cudaExecutionContext_t, desc: cudaDevResourceDesc_t, device: c_int, flags: c_uint) -> cudaError_t {
    entry!(cudaGreenCtxCreate(phCtx, desc, device, flags) => green::green_create(unsafe { phCtx.as_mut() }, desc, device, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetExecutionCtx(ctx: *mut cudaExecutionContext_t, device: c_int) -> cudaError_t {
    entry!(cudaDeviceGetExecutionCtx(ctx, device) => green::device_context(unsafe { ctx.as_mut() }, device))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExecutionCtxDestroy(ctx: cudaExecutionContext_t) -> cudaError_t {
    entry!(cudaExecutionCtxDestroy(ctx) => green::destroy(ctx))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExecutionCtxGetDevResource(ctx: cudaExecutionContext_t, resource: *mut cudaDevResource, r#type: cudaDevResourceType) -> cudaError_t {
    entry!(cudaExecutionCtxGetDevResource(ctx, resource, r#type) => green::resource(ctx, unsafe { resource.as_mut() }, r#type))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExecutionCtxGetDevice(device: *mut c_int, ctx: cudaExecutionContext_t) -> cudaError_t {
    entry!(cudaExecutionCtxGetDevice(device, ctx) => green::device(unsafe { device.as_mut() }, ctx))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExecutionCtxGetId(ctx: cudaExecutionContext_t, ctxId: *mut c_ulonglong) -> cudaError_t {
    entry!(cudaExecutionCtxGetId(ctx, ctxId) => green::id(ctx, unsafe { ctxId.as_mut() }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExecutionCtxStreamCreate(phStream: *mut cudaStream_t, ctx: cudaExecutionContext_t, flags: c_uint, priority: c_int) -> cudaError_t {
    entry!(cudaExecutionCtxStreamCreate(phStream, ctx, flags, priority) => green::stream_create(unsafe { phStream.as_mut() }, ctx, flags, priority))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExecutionCtxRecordEvent(ctx: cudaExecutionContext_t, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaExecutionCtxRecordEvent(ctx, event) => green::record_event(ctx, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExecutionCtxWaitEvent(ctx: cudaExecutionContext_t, event: cudaEvent_t) -> cudaError_t {
    entry!(cudaExecutionCtxWaitEvent(ctx, event) => green::wait_event(ctx, event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExecutionCtxSynchronize(ctx: cudaExecutionContext_t) -> cudaError_t {
    entry!(cudaExecutionCtxSynchronize(ctx) => green::synchronize(ctx))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetDevResource(hStream: cudaStream_t, resource: *mut cudaDevResource, r#type: cudaDevResourceType) -> cudaError_t {
    entry!(cudaStreamGetDevResource(hStream, resource, r#type) => green::stream_resource(hStream, unsafe { resource.as_mut() }, r#type, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetDevResource_ptsz(hStream: cudaStream_t, resource: *mut cudaDevResource, r#type: cudaDevResourceType) -> cudaError_t {
    entry!(cudaStreamGetDevResource_ptsz(hStream, resource, r#type) => green::stream_resource(hStream, unsafe { resource.as_mut() }, r#type, PerThread))
}

// The subgrid calls: exported by NVIDIA's 13.5 runtime, declared in none of
// its headers; their arguments are not read (see green::subgrid).

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSubgridCreate() -> cudaError_t {
    entry!(cudaSubgridCreate() => green::subgrid(Subgrid::Create))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSubgridWorkerGridCreate() -> cudaError_t {
    entry!(cudaSubgridWorkerGridCreate() => green::subgrid(Subgrid::WorkerGridCreate))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSubgridWorksetCreate() -> cudaError_t {
    entry!(cudaSubgridWorksetCreate() => green::subgrid(Subgrid::WorksetCreate))
}
