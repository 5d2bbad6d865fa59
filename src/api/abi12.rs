//! The CUDA 12.9 forms: every export of NVIDIA's `libcudart.so.12` whose C
//! signature or struct layout differs from the 13 export of the same name,
//! or that 13 no longer has. Written once, here; everything else the 12
//! library exports is the common surface of the other files in `src/api/`.
//!
//! Each one is linked as `NAME__abi12`. tools/linker exports it as `NAME`
//! from the 12 library (where it takes precedence over a 13 form of that
//! name) and keeps it out of the 13 library (docs/DESIGN.md, "Several
//! ABIs"). The bodies only convert, as everywhere in `src/api/`:
//!
//! - a 12 form that is a 13 export under another name (`_v2`/`_v3`, the
//!   `cudaThread*` calls) calls the runtime function that 13 export calls;
//! - a 12 form with fewer arguments (no edge data, a device number instead
//!   of a location) calls it with the arguments converted;
//! - a 12 form whose struct differs calls `runtime::abi12`, which answers in
//!   12.9's layout (`types::abi12`), or converts the struct here first
//!   (12.9's `cudaGraphNodeParams` members, the `_v1` semaphore params);
//! - a 12 form that takes an enum 13.x extended refuses 13.x's values
//!   first (`types::abi12::known`): a CUDA 12 program cannot mean them;
//! - a 12 form whose driver call changed meaning in 13.0 (plain
//!   `cudaEventElapsedTime`, the batched copies' `failIdx`, the
//!   multi-device launch) calls `runtime::abi12`, which calls the driver
//!   entry point at its 12.x version (`driver/cuda12.rs`).
//!
//! Never call a C export from here: in the 12 library's link, a call to the
//! symbol `NAME` reaches `NAME__abi12` (the `--defsym` rebinds every
//! reference), so a 12 form delegating to the 13 export of its own name
//! would call itself.
//!
//! cbindgen skips this module: the C header is the 13 surface.

use crate::control::params::abi12 as params;
use crate::driver::StreamMode;
use crate::runtime::{self, abi12, as_in, as_out, capture, external, graph, launch, memory, texture};
use crate::types::abi12::{
    DEVICE_PROP_PLAIN_BYTES, DEVICE_PROP_V2_BYTES, cudaExternalSemaphoreSignalParams_v1, cudaExternalSemaphoreWaitParams_v1, cudaLaunchParams,
    cudaPointerAttributes12, location_of_device, cudaDeviceProp12, Zeroed, RESOURCE_DESC_BYTES, RESOURCE_VIEW_DESC_BYTES,
    EXTERNAL_MEMORY_HANDLE_DESC_BYTES, EXTERNAL_MEMORY_BUFFER_DESC_BYTES, EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_BYTES,
    EXTERNAL_SEMAPHORE_HANDLE_DESC_BYTES, known, node_params_from_12_9, node_params_back_to_12_9,
};
use std::mem::MaybeUninit;
use crate::types::*;
use std::ffi::{c_char, c_double, c_int, c_uint, c_ulonglong, c_void};
use std::ptr::{null, null_mut};

// ---- version -------------------------------------------------------------

#[unsafe(export_name = "cudaRuntimeGetVersion__abi12")]
pub unsafe extern "C" fn cudaRuntimeGetVersion(runtimeVersion: *mut c_int) -> cudaError_t {
    entry!(@no_init cudaRuntimeGetVersion(runtimeVersion) => abi12::runtime_version(unsafe { as_out(runtimeVersion) }))
}

// ---- errors: 12.9 does not know the codes 13.x added ------------------------

#[unsafe(export_name = "cudaGetErrorName__abi12")]
pub unsafe extern "C" fn cudaGetErrorName(error: cudaError_t) -> *const c_char {
    entry!(cudaGetErrorName(error) -> crate::types::abi12::error_name_c(error).as_ptr(), on_panic = c"cudaErrorUnknown".as_ptr())
}

#[unsafe(export_name = "cudaGetErrorString__abi12")]
pub unsafe extern "C" fn cudaGetErrorString(error: cudaError_t) -> *const c_char {
    entry!(cudaGetErrorString(error) -> crate::types::abi12::error_string_c(error).as_ptr(), on_panic = c"unknown error".as_ptr())
}

// ---- device: 12.9's cudaDeviceProp, the cudaThread* calls ------------------

/// `prop` as the bytes a form of `cudaGetDeviceProperties` writes.
///
/// # Safety
/// `prop` is NULL or points to at least `len` writable bytes (the C API's
/// contract: the caller's `cudaDeviceProp`, of the size its form writes).
unsafe fn device_prop_bytes<'a>(prop: *mut c_void, len: usize) -> Option<&'a mut [u8]> {
    // SAFETY: the caller's contract.
    (!prop.is_null()).then(|| unsafe { std::slice::from_raw_parts_mut(prop.cast::<u8>(), len) })
}

/// The plain form: CUDA 11's extent of the struct (see `DEVICE_PROP_PLAIN_BYTES`).
#[unsafe(export_name = "cudaGetDeviceProperties__abi12")]
pub unsafe extern "C" fn cudaGetDeviceProperties(prop: *mut c_void, device: c_int) -> cudaError_t {
    entry!(cudaGetDeviceProperties(prop, device) => abi12::device_properties(unsafe { device_prop_bytes(prop, DEVICE_PROP_PLAIN_BYTES) }, device))
}

/// What a CUDA 12 program's `cudaGetDeviceProperties` calls.
#[unsafe(export_name = "cudaGetDeviceProperties_v2__abi12")]
pub unsafe extern "C" fn cudaGetDeviceProperties_v2(prop: *mut c_void, device: c_int) -> cudaError_t {
    entry!(cudaGetDeviceProperties_v2(prop, device) => abi12::device_properties(unsafe { device_prop_bytes(prop, DEVICE_PROP_V2_BYTES) }, device))
}

#[unsafe(export_name = "cudaThreadExit__abi12")]
pub unsafe extern "C" fn cudaThreadExit() -> cudaError_t {
    entry!(cudaThreadExit() => runtime::context::reset_current())
}

#[unsafe(export_name = "cudaThreadSynchronize__abi12")]
pub unsafe extern "C" fn cudaThreadSynchronize() -> cudaError_t {
    entry!(cudaThreadSynchronize() => runtime::pass!(cuCtxSynchronize(null_mut())))
}

#[unsafe(export_name = "cudaThreadSetLimit__abi12")]
pub unsafe extern "C" fn cudaThreadSetLimit(limit: cudaLimit, value: usize) -> cudaError_t {
    entry!(cudaThreadSetLimit(limit, value) => {
        known_in_12_9(known::limit(limit))?;
        runtime::pass!(cuCtxSetLimit(limit.0, value))
    })
}

#[unsafe(export_name = "cudaThreadGetLimit__abi12")]
pub unsafe extern "C" fn cudaThreadGetLimit(pValue: *mut usize, limit: cudaLimit) -> cudaError_t {
    entry!(cudaThreadGetLimit(pValue, limit) => {
        known_in_12_9(known::limit(limit))?;
        runtime::device::limit(unsafe { as_out(pValue) }, limit)
    })
}

#[unsafe(export_name = "cudaThreadSetCacheConfig__abi12")]
pub unsafe extern "C" fn cudaThreadSetCacheConfig(cacheConfig: cudaFuncCache) -> cudaError_t {
    entry!(cudaThreadSetCacheConfig(cacheConfig) => runtime::pass!(cuCtxSetCacheConfig(cacheConfig.0)))
}

#[unsafe(export_name = "cudaThreadGetCacheConfig__abi12")]
pub unsafe extern "C" fn cudaThreadGetCacheConfig(pCacheConfig: *mut cudaFuncCache) -> cudaError_t {
    entry!(cudaThreadGetCacheConfig(pCacheConfig) => runtime::device::cache_config(unsafe { as_out(pCacheConfig) }))
}

/// Deprecated since CUDA 7.5, where it stopped doing anything: succeeds
/// once the runtime is up and reads nothing.
#[unsafe(export_name = "cudaSetDoubleForDevice__abi12")]
pub unsafe extern "C" fn cudaSetDoubleForDevice(d: *mut c_double) -> cudaError_t {
    entry!(cudaSetDoubleForDevice(d) => Ok(()))
}

/// As `cudaSetDoubleForDevice`.
#[unsafe(export_name = "cudaSetDoubleForHost__abi12")]
pub unsafe extern "C" fn cudaSetDoubleForHost(d: *mut c_double) -> cudaError_t {
    entry!(cudaSetDoubleForHost(d) => Ok(()))
}

// ---- memory: device numbers for locations, 12.9's pointer attributes -----

#[unsafe(export_name = "cudaPointerGetAttributes__abi12")]
pub unsafe extern "C" fn cudaPointerGetAttributes(attributes: *mut cudaPointerAttributes12, ptr: *const c_void) -> cudaError_t {
    entry!(cudaPointerGetAttributes(attributes, ptr) => abi12::pointer_attributes(unsafe { as_out(attributes) }, ptr))
}

#[unsafe(export_name = "cudaMemPrefetchAsync__abi12")]
pub unsafe extern "C" fn cudaMemPrefetchAsync(devPtr: *const c_void, count: usize, dstDevice: c_int, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemPrefetchAsync(devPtr, count, dstDevice, stream) => memory::prefetch(devPtr, count, location_of_device(dstDevice), 0, stream, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaMemPrefetchAsync_ptsz__abi12")]
pub unsafe extern "C" fn cudaMemPrefetchAsync_ptsz(devPtr: *const c_void, count: usize, dstDevice: c_int, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemPrefetchAsync_ptsz(devPtr, count, dstDevice, stream) => memory::prefetch(devPtr, count, location_of_device(dstDevice), 0, stream, StreamMode::PerThread))
}

#[unsafe(export_name = "cudaMemPrefetchAsync_v2__abi12")]
pub unsafe extern "C" fn cudaMemPrefetchAsync_v2(devPtr: *const c_void, count: usize, location: cudaMemLocation, flags: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemPrefetchAsync_v2(devPtr, count, location, flags, stream) => {
        known_in_12_9(known::location_type(location.r#type))?;
        memory::prefetch(devPtr, count, location, flags, stream, StreamMode::Legacy)
    })
}

#[unsafe(export_name = "cudaMemPrefetchAsync_v2_ptsz__abi12")]
pub unsafe extern "C" fn cudaMemPrefetchAsync_v2_ptsz(devPtr: *const c_void, count: usize, location: cudaMemLocation, flags: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemPrefetchAsync_v2_ptsz(devPtr, count, location, flags, stream) => {
        known_in_12_9(known::location_type(location.r#type))?;
        memory::prefetch(devPtr, count, location, flags, stream, StreamMode::PerThread)
    })
}

#[unsafe(export_name = "cudaMemAdvise__abi12")]
pub unsafe extern "C" fn cudaMemAdvise(devPtr: *const c_void, count: usize, advice: cudaMemoryAdvise, device: c_int) -> cudaError_t {
    entry!(cudaMemAdvise(devPtr, count, advice, device) => abi12::advise_device(devPtr, count, advice, device))
}

#[unsafe(export_name = "cudaMemAdvise_v2__abi12")]
pub unsafe extern "C" fn cudaMemAdvise_v2(devPtr: *const c_void, count: usize, advice: cudaMemoryAdvise, location: cudaMemLocation) -> cudaError_t {
    entry!(cudaMemAdvise_v2(devPtr, count, advice, location) => {
        known_in_12_9(known::location_type(location.r#type))?;
        memory::advise(devPtr, count, advice, location)
    })
}

// ---- events ----------------------------------------------------------------

/// The plain form: the driver's pre-12.8 `cuEventElapsedTime` (see
/// `runtime::abi12::elapsed_plain`).
#[unsafe(export_name = "cudaEventElapsedTime__abi12")]
pub unsafe extern "C" fn cudaEventElapsedTime(ms: *mut f32, start: cudaEvent_t, end: cudaEvent_t) -> cudaError_t {
    entry!(cudaEventElapsedTime(ms, start, end) => abi12::elapsed_plain(unsafe { as_out(ms) }, start, end))
}

#[unsafe(export_name = "cudaEventElapsedTime_v2__abi12")]
pub unsafe extern "C" fn cudaEventElapsedTime_v2(ms: *mut f32, start: cudaEvent_t, end: cudaEvent_t) -> cudaError_t {
    entry!(cudaEventElapsedTime_v2(ms, start, end) => runtime::event::elapsed(unsafe { as_out(ms) }, start, end))
}

// ---- stream capture: 3-, 6- and 7-argument info, edge-less updates --------

#[unsafe(export_name = "cudaStreamGetCaptureInfo__abi12")]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo(stream: cudaStream_t, captureStatus_out: *mut cudaStreamCaptureStatus, id_out: *mut c_ulonglong) -> cudaError_t {
    entry!(cudaStreamGetCaptureInfo(stream, captureStatus_out, id_out) => capture::info(stream, unsafe { as_out(captureStatus_out) }, id_out, null_mut(), null_mut(), null_mut(), null_mut(), StreamMode::Legacy))
}

#[unsafe(export_name = "cudaStreamGetCaptureInfo_ptsz__abi12")]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo_ptsz(stream: cudaStream_t, captureStatus_out: *mut cudaStreamCaptureStatus, id_out: *mut c_ulonglong) -> cudaError_t {
    entry!(cudaStreamGetCaptureInfo_ptsz(stream, captureStatus_out, id_out) => capture::info(stream, unsafe { as_out(captureStatus_out) }, id_out, null_mut(), null_mut(), null_mut(), null_mut(), StreamMode::PerThread))
}

/// What a CUDA 12 program's `cudaStreamGetCaptureInfo` calls.
#[unsafe(export_name = "cudaStreamGetCaptureInfo_v2__abi12")]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo_v2(stream: cudaStream_t, captureStatus_out: *mut cudaStreamCaptureStatus, id_out: *mut c_ulonglong, graph_out: *mut cudaGraph_t, dependencies_out: *mut *const cudaGraphNode_t, numDependencies_out: *mut usize) -> cudaError_t {
    entry!(cudaStreamGetCaptureInfo_v2(stream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out) => capture::info(stream, unsafe { as_out(captureStatus_out) }, id_out, graph_out, dependencies_out, null_mut(), numDependencies_out, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaStreamGetCaptureInfo_v2_ptsz__abi12")]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo_v2_ptsz(stream: cudaStream_t, captureStatus_out: *mut cudaStreamCaptureStatus, id_out: *mut c_ulonglong, graph_out: *mut cudaGraph_t, dependencies_out: *mut *const cudaGraphNode_t, numDependencies_out: *mut usize) -> cudaError_t {
    entry!(cudaStreamGetCaptureInfo_v2_ptsz(stream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out) => capture::info(stream, unsafe { as_out(captureStatus_out) }, id_out, graph_out, dependencies_out, null_mut(), numDependencies_out, StreamMode::PerThread))
}

#[unsafe(export_name = "cudaStreamGetCaptureInfo_v3__abi12")]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo_v3(stream: cudaStream_t, captureStatus_out: *mut cudaStreamCaptureStatus, id_out: *mut c_ulonglong, graph_out: *mut cudaGraph_t, dependencies_out: *mut *const cudaGraphNode_t, edgeData_out: *mut *const cudaGraphEdgeData, numDependencies_out: *mut usize) -> cudaError_t {
    entry!(cudaStreamGetCaptureInfo_v3(stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out) => capture::info(stream, unsafe { as_out(captureStatus_out) }, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaStreamGetCaptureInfo_v3_ptsz__abi12")]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo_v3_ptsz(stream: cudaStream_t, captureStatus_out: *mut cudaStreamCaptureStatus, id_out: *mut c_ulonglong, graph_out: *mut cudaGraph_t, dependencies_out: *mut *const cudaGraphNode_t, edgeData_out: *mut *const cudaGraphEdgeData, numDependencies_out: *mut usize) -> cudaError_t {
    entry!(cudaStreamGetCaptureInfo_v3_ptsz(stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out) => capture::info(stream, unsafe { as_out(captureStatus_out) }, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out, StreamMode::PerThread))
}

#[unsafe(export_name = "cudaStreamUpdateCaptureDependencies__abi12")]
pub unsafe extern "C" fn cudaStreamUpdateCaptureDependencies(stream: cudaStream_t, dependencies: *mut cudaGraphNode_t, numDependencies: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamUpdateCaptureDependencies(stream, dependencies, numDependencies, flags) => capture::update_dependencies(stream, dependencies, null(), numDependencies, flags, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaStreamUpdateCaptureDependencies_ptsz__abi12")]
pub unsafe extern "C" fn cudaStreamUpdateCaptureDependencies_ptsz(stream: cudaStream_t, dependencies: *mut cudaGraphNode_t, numDependencies: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamUpdateCaptureDependencies_ptsz(stream, dependencies, numDependencies, flags) => capture::update_dependencies(stream, dependencies, null(), numDependencies, flags, StreamMode::PerThread))
}

#[unsafe(export_name = "cudaStreamUpdateCaptureDependencies_v2__abi12")]
pub unsafe extern "C" fn cudaStreamUpdateCaptureDependencies_v2(stream: cudaStream_t, dependencies: *mut cudaGraphNode_t, dependencyData: *const cudaGraphEdgeData, numDependencies: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamUpdateCaptureDependencies_v2(stream, dependencies, dependencyData, numDependencies, flags) => capture::update_dependencies(stream, dependencies, dependencyData, numDependencies, flags, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaStreamUpdateCaptureDependencies_v2_ptsz__abi12")]
pub unsafe extern "C" fn cudaStreamUpdateCaptureDependencies_v2_ptsz(stream: cudaStream_t, dependencies: *mut cudaGraphNode_t, dependencyData: *const cudaGraphEdgeData, numDependencies: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamUpdateCaptureDependencies_v2_ptsz(stream, dependencies, dependencyData, numDependencies, flags) => capture::update_dependencies(stream, dependencies, dependencyData, numDependencies, flags, StreamMode::PerThread))
}

// ---- graph edges: the plain forms carry no edge data ------------------------

/// A CUDA 12 program's `cudaGraphNodeParams` for `call`, and what it writes
/// back (`types::abi12::node_params_from_12_9`). NULL stays `None`.
///
/// # Safety
/// `p` is NULL or points to a writable 12.9 `cudaGraphNodeParams` (256
/// bytes, as 13's).
unsafe fn with_node_params_12_9(p: *mut cudaGraphNodeParams, call: impl FnOnce(Option<&mut cudaGraphNodeParams>) -> CudaResult) -> CudaResult {
    // SAFETY: the caller's contract.
    let Some(theirs) = (unsafe { as_out(p) }) else { return call(None) };
    let mut ours = node_params_from_12_9(theirs)?;
    let r = call(Some(&mut ours));
    node_params_back_to_12_9(&ours, theirs);
    r
}

#[unsafe(export_name = "cudaGraphAddNode__abi12")]
pub unsafe extern "C" fn cudaGraphAddNode(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, numDependencies: usize, nodeParams: *mut cudaGraphNodeParams) -> cudaError_t {
    entry!(cudaGraphAddNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams) =>
        unsafe { with_node_params_12_9(nodeParams, |p| graph::add_node(as_out(pGraphNode), graph, pDependencies, null(), numDependencies, p)) })
}

#[unsafe(export_name = "cudaGraphAddNode_v2__abi12")]
pub unsafe extern "C" fn cudaGraphAddNode_v2(pGraphNode: *mut cudaGraphNode_t, graph: cudaGraph_t, pDependencies: *const cudaGraphNode_t, dependencyData: *const cudaGraphEdgeData, numDependencies: usize, nodeParams: *mut cudaGraphNodeParams) -> cudaError_t {
    entry!(cudaGraphAddNode_v2(pGraphNode, graph, pDependencies, dependencyData, numDependencies, nodeParams) =>
        unsafe { with_node_params_12_9(nodeParams, |p| graph::add_node(as_out(pGraphNode), graph, pDependencies, dependencyData, numDependencies, p)) })
}

#[unsafe(export_name = "cudaGraphNodeSetParams__abi12")]
pub unsafe extern "C" fn cudaGraphNodeSetParams(node: cudaGraphNode_t, nodeParams: *mut cudaGraphNodeParams) -> cudaError_t {
    entry!(cudaGraphNodeSetParams(node, nodeParams) => unsafe { with_node_params_12_9(nodeParams, |p| graph::node_set_params(node, p)) })
}

#[unsafe(export_name = "cudaGraphExecNodeSetParams__abi12")]
pub unsafe extern "C" fn cudaGraphExecNodeSetParams(graphExec: cudaGraphExec_t, node: cudaGraphNode_t, nodeParams: *mut cudaGraphNodeParams) -> cudaError_t {
    entry!(cudaGraphExecNodeSetParams(graphExec, node, nodeParams) => unsafe { with_node_params_12_9(nodeParams, |p| graph::exec_node_set_params(graphExec, node, p)) })
}

#[unsafe(export_name = "cudaGraphAddDependencies__abi12")]
pub unsafe extern "C" fn cudaGraphAddDependencies(graph: cudaGraph_t, from: *const cudaGraphNode_t, to: *const cudaGraphNode_t, numDependencies: usize) -> cudaError_t {
    entry!(cudaGraphAddDependencies(graph, from, to, numDependencies) => runtime::pass!(cuGraphAddDependencies(graph, from, to, null(), numDependencies)))
}

#[unsafe(export_name = "cudaGraphAddDependencies_v2__abi12")]
pub unsafe extern "C" fn cudaGraphAddDependencies_v2(graph: cudaGraph_t, from: *const cudaGraphNode_t, to: *const cudaGraphNode_t, edgeData: *const cudaGraphEdgeData, numDependencies: usize) -> cudaError_t {
    entry!(cudaGraphAddDependencies_v2(graph, from, to, edgeData, numDependencies) => runtime::pass!(cuGraphAddDependencies(graph, from, to, edgeData, numDependencies)))
}

#[unsafe(export_name = "cudaGraphRemoveDependencies__abi12")]
pub unsafe extern "C" fn cudaGraphRemoveDependencies(graph: cudaGraph_t, from: *const cudaGraphNode_t, to: *const cudaGraphNode_t, numDependencies: usize) -> cudaError_t {
    entry!(cudaGraphRemoveDependencies(graph, from, to, numDependencies) => runtime::pass!(cuGraphRemoveDependencies(graph, from, to, null(), numDependencies)))
}

#[unsafe(export_name = "cudaGraphRemoveDependencies_v2__abi12")]
pub unsafe extern "C" fn cudaGraphRemoveDependencies_v2(graph: cudaGraph_t, from: *const cudaGraphNode_t, to: *const cudaGraphNode_t, edgeData: *const cudaGraphEdgeData, numDependencies: usize) -> cudaError_t {
    entry!(cudaGraphRemoveDependencies_v2(graph, from, to, edgeData, numDependencies) => runtime::pass!(cuGraphRemoveDependencies(graph, from, to, edgeData, numDependencies)))
}

#[unsafe(export_name = "cudaGraphGetEdges__abi12")]
pub unsafe extern "C" fn cudaGraphGetEdges(graph: cudaGraph_t, from: *mut cudaGraphNode_t, to: *mut cudaGraphNode_t, numEdges: *mut usize) -> cudaError_t {
    entry!(cudaGraphGetEdges(graph, from, to, numEdges) => graph::get_edges(graph, from, to, null_mut(), unsafe { as_out(numEdges) }))
}

#[unsafe(export_name = "cudaGraphGetEdges_v2__abi12")]
pub unsafe extern "C" fn cudaGraphGetEdges_v2(graph: cudaGraph_t, from: *mut cudaGraphNode_t, to: *mut cudaGraphNode_t, edgeData: *mut cudaGraphEdgeData, numEdges: *mut usize) -> cudaError_t {
    entry!(cudaGraphGetEdges_v2(graph, from, to, edgeData, numEdges) => graph::get_edges(graph, from, to, edgeData, unsafe { as_out(numEdges) }))
}

#[unsafe(export_name = "cudaGraphNodeGetDependencies__abi12")]
pub unsafe extern "C" fn cudaGraphNodeGetDependencies(node: cudaGraphNode_t, pDependencies: *mut cudaGraphNode_t, pNumDependencies: *mut usize) -> cudaError_t {
    entry!(cudaGraphNodeGetDependencies(node, pDependencies, pNumDependencies) => graph::node_dependencies(node, pDependencies, null_mut(), unsafe { as_out(pNumDependencies) }))
}

#[unsafe(export_name = "cudaGraphNodeGetDependencies_v2__abi12")]
pub unsafe extern "C" fn cudaGraphNodeGetDependencies_v2(node: cudaGraphNode_t, pDependencies: *mut cudaGraphNode_t, edgeData: *mut cudaGraphEdgeData, pNumDependencies: *mut usize) -> cudaError_t {
    entry!(cudaGraphNodeGetDependencies_v2(node, pDependencies, edgeData, pNumDependencies) => graph::node_dependencies(node, pDependencies, edgeData, unsafe { as_out(pNumDependencies) }))
}

#[unsafe(export_name = "cudaGraphNodeGetDependentNodes__abi12")]
pub unsafe extern "C" fn cudaGraphNodeGetDependentNodes(node: cudaGraphNode_t, pDependentNodes: *mut cudaGraphNode_t, pNumDependentNodes: *mut usize) -> cudaError_t {
    entry!(cudaGraphNodeGetDependentNodes(node, pDependentNodes, pNumDependentNodes) => graph::node_dependents(node, pDependentNodes, null_mut(), unsafe { as_out(pNumDependentNodes) }))
}

#[unsafe(export_name = "cudaGraphNodeGetDependentNodes_v2__abi12")]
pub unsafe extern "C" fn cudaGraphNodeGetDependentNodes_v2(node: cudaGraphNode_t, pDependentNodes: *mut cudaGraphNode_t, edgeData: *mut cudaGraphEdgeData, pNumDependentNodes: *mut usize) -> cudaError_t {
    entry!(cudaGraphNodeGetDependentNodes_v2(node, pDependentNodes, edgeData, pNumDependentNodes) => graph::node_dependents(node, pDependentNodes, edgeData, unsafe { as_out(pNumDependentNodes) }))
}

// ---- external semaphores: the plain forms take the _v1 structs -------------

/// A `_v1` parameter array as 13's structs; NULL (or none) stays NULL, for
/// the runtime to judge.
///
/// # Safety
/// `params` is NULL or points to `n` valid structs (the C API's contract).
unsafe fn widened<V1, V13: for<'a> From<&'a V1>>(params: *const V1, n: c_uint) -> Vec<V13> {
    if params.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(params, n as usize) }.iter().map(V13::from).collect()
}

fn ptr_or_null<T>(v: &[T]) -> *const T {
    if v.is_empty() { null() } else { v.as_ptr() }
}

#[unsafe(export_name = "cudaSignalExternalSemaphoresAsync__abi12")]
pub unsafe extern "C" fn cudaSignalExternalSemaphoresAsync(extSemArray: *const cudaExternalSemaphore_t, paramsArray: *const cudaExternalSemaphoreSignalParams_v1, numExtSems: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaSignalExternalSemaphoresAsync(extSemArray, paramsArray, numExtSems, stream) => {
        let p: Vec<cudaExternalSemaphoreSignalParams> = unsafe { widened(paramsArray, numExtSems) };
        external::signal(extSemArray, ptr_or_null(&p), numExtSems, stream, StreamMode::Legacy)
    })
}

#[unsafe(export_name = "cudaSignalExternalSemaphoresAsync_ptsz__abi12")]
pub unsafe extern "C" fn cudaSignalExternalSemaphoresAsync_ptsz(extSemArray: *const cudaExternalSemaphore_t, paramsArray: *const cudaExternalSemaphoreSignalParams_v1, numExtSems: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaSignalExternalSemaphoresAsync_ptsz(extSemArray, paramsArray, numExtSems, stream) => {
        let p: Vec<cudaExternalSemaphoreSignalParams> = unsafe { widened(paramsArray, numExtSems) };
        external::signal(extSemArray, ptr_or_null(&p), numExtSems, stream, StreamMode::PerThread)
    })
}

#[unsafe(export_name = "cudaWaitExternalSemaphoresAsync__abi12")]
pub unsafe extern "C" fn cudaWaitExternalSemaphoresAsync(extSemArray: *const cudaExternalSemaphore_t, paramsArray: *const cudaExternalSemaphoreWaitParams_v1, numExtSems: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaWaitExternalSemaphoresAsync(extSemArray, paramsArray, numExtSems, stream) => {
        let p: Vec<cudaExternalSemaphoreWaitParams> = unsafe { widened(paramsArray, numExtSems) };
        external::wait(extSemArray, ptr_or_null(&p), numExtSems, stream, StreamMode::Legacy)
    })
}

#[unsafe(export_name = "cudaWaitExternalSemaphoresAsync_ptsz__abi12")]
pub unsafe extern "C" fn cudaWaitExternalSemaphoresAsync_ptsz(extSemArray: *const cudaExternalSemaphore_t, paramsArray: *const cudaExternalSemaphoreWaitParams_v1, numExtSems: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaWaitExternalSemaphoresAsync_ptsz(extSemArray, paramsArray, numExtSems, stream) => {
        let p: Vec<cudaExternalSemaphoreWaitParams> = unsafe { widened(paramsArray, numExtSems) };
        external::wait(extSemArray, ptr_or_null(&p), numExtSems, stream, StreamMode::PerThread)
    })
}

// ---- the _v2 forms are 13's ---------------------------------------------------

#[unsafe(export_name = "cudaSignalExternalSemaphoresAsync_v2__abi12")]
pub unsafe extern "C" fn cudaSignalExternalSemaphoresAsync_v2(extSemArray: *const cudaExternalSemaphore_t, paramsArray: *const cudaExternalSemaphoreSignalParams, numExtSems: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaSignalExternalSemaphoresAsync_v2(extSemArray, paramsArray, numExtSems, stream) => external::signal(extSemArray, paramsArray, numExtSems, stream, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaSignalExternalSemaphoresAsync_v2_ptsz__abi12")]
pub unsafe extern "C" fn cudaSignalExternalSemaphoresAsync_v2_ptsz(extSemArray: *const cudaExternalSemaphore_t, paramsArray: *const cudaExternalSemaphoreSignalParams, numExtSems: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaSignalExternalSemaphoresAsync_v2_ptsz(extSemArray, paramsArray, numExtSems, stream) => external::signal(extSemArray, paramsArray, numExtSems, stream, StreamMode::PerThread))
}

#[unsafe(export_name = "cudaWaitExternalSemaphoresAsync_v2__abi12")]
pub unsafe extern "C" fn cudaWaitExternalSemaphoresAsync_v2(extSemArray: *const cudaExternalSemaphore_t, paramsArray: *const cudaExternalSemaphoreWaitParams, numExtSems: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaWaitExternalSemaphoresAsync_v2(extSemArray, paramsArray, numExtSems, stream) => external::wait(extSemArray, paramsArray, numExtSems, stream, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaWaitExternalSemaphoresAsync_v2_ptsz__abi12")]
pub unsafe extern "C" fn cudaWaitExternalSemaphoresAsync_v2_ptsz(extSemArray: *const cudaExternalSemaphore_t, paramsArray: *const cudaExternalSemaphoreWaitParams, numExtSems: c_uint, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaWaitExternalSemaphoresAsync_v2_ptsz(extSemArray, paramsArray, numExtSems, stream) => external::wait(extSemArray, paramsArray, numExtSems, stream, StreamMode::PerThread))
}

// ---- launch ---------------------------------------------------------------------

/// 12.9's list of `cudaLaunchParams`, one per device. The count is checked
/// against the device count before the list is read (`multi_device_count`).
#[unsafe(export_name = "cudaLaunchCooperativeKernelMultiDevice__abi12")]
pub unsafe extern "C" fn cudaLaunchCooperativeKernelMultiDevice(launchParamsList: *mut cudaLaunchParams, numDevices: c_uint, flags: c_uint) -> cudaError_t {
    entry!(cudaLaunchCooperativeKernelMultiDevice(launchParamsList, numDevices, flags) => {
        if launchParamsList.is_null() {
            return abi12::launch_cooperative_multi_device(None, flags);
        }
        let n = abi12::multi_device_count(numDevices)?;
        // SAFETY: the C API's contract: the list holds numDevices entries
        // (at most the device count, checked above).
        let list = unsafe { std::slice::from_raw_parts(launchParamsList.cast_const(), n) };
        abi12::launch_cooperative_multi_device(Some(list), flags)
    })
}

// ---- structs 13.0 lengthened: 12.9's prefix in, 12.9's prefix out ---------------

/// A 12.9 input struct as the runtime's: its `len` bytes over a zeroed one
/// (13.0 only appended fields). NULL stays `None`, for the runtime to judge.
///
/// # Safety
/// `p` is NULL or points to `len` readable bytes (12.9's struct), and
/// `len <= size_of::<T>()`.
unsafe fn widened_in<T: Zeroed>(p: *const c_void, len: usize) -> Option<T> {
    if p.is_null() {
        return None;
    }
    let mut t = T::zeroed();
    debug_assert!(len <= size_of::<T>());
    // SAFETY: the caller's contract; T is plain data (Zeroed).
    unsafe { std::ptr::copy_nonoverlapping(p.cast::<u8>(), (&raw mut t).cast::<u8>(), len) };
    Some(t)
}

/// A 12.9 output struct as the bytes it has.
///
/// # Safety
/// `p` is NULL or points to `len` writable bytes.
unsafe fn narrow_out<'a>(p: *mut c_void, len: usize) -> Option<&'a mut [MaybeUninit<u8>]> {
    // SAFETY: the caller's contract.
    (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts_mut(p.cast::<MaybeUninit<u8>>(), len) })
}

#[unsafe(export_name = "cudaCreateTextureObject__abi12")]
pub unsafe extern "C" fn cudaCreateTextureObject(pTexObject: *mut cudaTextureObject_t, pResDesc: *const c_void, pTexDesc: *const cudaTextureDesc, pResViewDesc: *const c_void) -> cudaError_t {
    entry!(cudaCreateTextureObject(pTexObject, pResDesc, pTexDesc, pResViewDesc) => {
        let res: Option<cudaResourceDesc> = unsafe { widened_in(pResDesc, RESOURCE_DESC_BYTES) };
        let view: Option<cudaResourceViewDesc> = unsafe { widened_in(pResViewDesc, RESOURCE_VIEW_DESC_BYTES) };
        texture::create_texture(unsafe { as_out(pTexObject) }, res.as_ref(), unsafe { as_in(pTexDesc) }, view.as_ref().map_or(null(), |v| v as *const _))
    })
}

#[unsafe(export_name = "cudaCreateSurfaceObject__abi12")]
pub unsafe extern "C" fn cudaCreateSurfaceObject(pSurfObject: *mut cudaSurfaceObject_t, pResDesc: *const c_void) -> cudaError_t {
    entry!(cudaCreateSurfaceObject(pSurfObject, pResDesc) => {
        let res: Option<cudaResourceDesc> = unsafe { widened_in(pResDesc, RESOURCE_DESC_BYTES) };
        texture::create_surface(unsafe { as_out(pSurfObject) }, res.as_ref())
    })
}

#[unsafe(export_name = "cudaGetTextureObjectResourceDesc__abi12")]
pub unsafe extern "C" fn cudaGetTextureObjectResourceDesc(pResDesc: *mut c_void, texObject: cudaTextureObject_t) -> cudaError_t {
    entry!(cudaGetTextureObjectResourceDesc(pResDesc, texObject) =>
        abi12::narrowed(unsafe { narrow_out(pResDesc, RESOURCE_DESC_BYTES) }, |d| texture::texture_resource_desc(d, texObject)))
}

#[unsafe(export_name = "cudaGetTextureObjectResourceViewDesc__abi12")]
pub unsafe extern "C" fn cudaGetTextureObjectResourceViewDesc(pResViewDesc: *mut c_void, texObject: cudaTextureObject_t) -> cudaError_t {
    entry!(cudaGetTextureObjectResourceViewDesc(pResViewDesc, texObject) =>
        abi12::narrowed(unsafe { narrow_out(pResViewDesc, RESOURCE_VIEW_DESC_BYTES) }, |d| texture::texture_view_desc(d, texObject)))
}

#[unsafe(export_name = "cudaGetSurfaceObjectResourceDesc__abi12")]
pub unsafe extern "C" fn cudaGetSurfaceObjectResourceDesc(pResDesc: *mut c_void, surfObject: cudaSurfaceObject_t) -> cudaError_t {
    entry!(cudaGetSurfaceObjectResourceDesc(pResDesc, surfObject) =>
        abi12::narrowed(unsafe { narrow_out(pResDesc, RESOURCE_DESC_BYTES) }, |d| texture::surface_resource_desc(d, surfObject)))
}

#[unsafe(export_name = "cudaImportExternalMemory__abi12")]
pub unsafe extern "C" fn cudaImportExternalMemory(extMem_out: *mut cudaExternalMemory_t, memHandleDesc: *const c_void) -> cudaError_t {
    entry!(cudaImportExternalMemory(extMem_out, memHandleDesc) => {
        let d: Option<cudaExternalMemoryHandleDesc> = unsafe { widened_in(memHandleDesc, EXTERNAL_MEMORY_HANDLE_DESC_BYTES) };
        external::import_memory(unsafe { as_out(extMem_out) }, d.as_ref())
    })
}

#[unsafe(export_name = "cudaExternalMemoryGetMappedBuffer__abi12")]
pub unsafe extern "C" fn cudaExternalMemoryGetMappedBuffer(devPtr: *mut *mut c_void, extMem: cudaExternalMemory_t, bufferDesc: *const c_void) -> cudaError_t {
    entry!(cudaExternalMemoryGetMappedBuffer(devPtr, extMem, bufferDesc) => {
        let d: Option<cudaExternalMemoryBufferDesc> = unsafe { widened_in(bufferDesc, EXTERNAL_MEMORY_BUFFER_DESC_BYTES) };
        external::mapped_buffer(unsafe { as_out(devPtr) }, extMem, d.as_ref())
    })
}

#[unsafe(export_name = "cudaExternalMemoryGetMappedMipmappedArray__abi12")]
pub unsafe extern "C" fn cudaExternalMemoryGetMappedMipmappedArray(mipmap: *mut cudaMipmappedArray_t, extMem: cudaExternalMemory_t, mipmapDesc: *const c_void) -> cudaError_t {
    entry!(cudaExternalMemoryGetMappedMipmappedArray(mipmap, extMem, mipmapDesc) => {
        let d: Option<cudaExternalMemoryMipmappedArrayDesc> = unsafe { widened_in(mipmapDesc, EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_BYTES) };
        external::mapped_mipmapped_array(unsafe { as_out(mipmap) }, extMem, d.as_ref())
    })
}

#[unsafe(export_name = "cudaImportExternalSemaphore__abi12")]
pub unsafe extern "C" fn cudaImportExternalSemaphore(extSem_out: *mut cudaExternalSemaphore_t, semHandleDesc: *const c_void) -> cudaError_t {
    entry!(cudaImportExternalSemaphore(extSem_out, semHandleDesc) => {
        let d: Option<cudaExternalSemaphoreHandleDesc> = unsafe { widened_in(semHandleDesc, EXTERNAL_SEMAPHORE_HANDLE_DESC_BYTES) };
        external::import_semaphore(unsafe { as_out(extSem_out) }, d.as_ref())
    })
}

#[unsafe(export_name = "cudaChooseDevice__abi12")]
pub unsafe extern "C" fn cudaChooseDevice(device: *mut c_int, prop: *const cudaDeviceProp12) -> cudaError_t {
    entry!(cudaChooseDevice(device, prop) => abi12::choose_device(unsafe { as_out(device) }, unsafe { as_in(prop) }))
}

// ---- batched copies: 12.9 reports the failing copy (the driver's 12.8 calls) -------

#[unsafe(export_name = "cudaMemcpyBatchAsync__abi12")]
pub unsafe extern "C" fn cudaMemcpyBatchAsync(dsts: *const *mut c_void, srcs: *const *const c_void, sizes: *const usize, count: usize, attrs: *mut cudaMemcpyAttributes, attrsIdxs: *mut usize, numAttrs: usize, failIdx: *mut usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, stream) =>
        abi12::memcpy_batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, unsafe { as_out(failIdx) }, stream, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaMemcpyBatchAsync_ptsz__abi12")]
pub unsafe extern "C" fn cudaMemcpyBatchAsync_ptsz(dsts: *const *mut c_void, srcs: *const *const c_void, sizes: *const usize, count: usize, attrs: *mut cudaMemcpyAttributes, attrsIdxs: *mut usize, numAttrs: usize, failIdx: *mut usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyBatchAsync_ptsz(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, stream) =>
        abi12::memcpy_batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, unsafe { as_out(failIdx) }, stream, StreamMode::PerThread))
}

#[unsafe(export_name = "cudaMemcpy3DBatchAsync__abi12")]
pub unsafe extern "C" fn cudaMemcpy3DBatchAsync(numOps: usize, opList: *mut cudaMemcpy3DBatchOp, failIdx: *mut usize, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DBatchAsync(numOps, opList, failIdx, flags, stream) =>
        abi12::memcpy_3d_batch(numOps, opList, unsafe { as_out(failIdx) }, flags, stream, StreamMode::Legacy))
}

#[unsafe(export_name = "cudaMemcpy3DBatchAsync_ptsz__abi12")]
pub unsafe extern "C" fn cudaMemcpy3DBatchAsync_ptsz(numOps: usize, opList: *mut cudaMemcpy3DBatchOp, failIdx: *mut usize, flags: c_ulonglong, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpy3DBatchAsync_ptsz(numOps, opList, failIdx, flags, stream) =>
        abi12::memcpy_3d_batch(numOps, opList, unsafe { as_out(failIdx) }, flags, stream, StreamMode::PerThread))
}

// ---- enumerators 13.x added: 12.9 does not know them ---------------------------

/// `cudaErrorInvalidValue` unless 12.9 has the value (`types::abi12::known`).
fn known_in_12_9(known: bool) -> CudaResult {
    if known { Ok(()) } else { Err(cudaErrorInvalidValue) }
}

#[unsafe(export_name = "cudaDeviceGetLimit__abi12")]
pub unsafe extern "C" fn cudaDeviceGetLimit(pValue: *mut usize, limit: cudaLimit) -> cudaError_t {
    entry!(cudaDeviceGetLimit(pValue, limit) => {
        known_in_12_9(known::limit(limit))?;
        runtime::device::limit(unsafe { as_out(pValue) }, limit)
    })
}

#[unsafe(export_name = "cudaDeviceSetLimit__abi12")]
pub unsafe extern "C" fn cudaDeviceSetLimit(limit: cudaLimit, value: usize) -> cudaError_t {
    entry!(cudaDeviceSetLimit(limit, value) => {
        known_in_12_9(known::limit(limit))?;
        runtime::pass!(cuCtxSetLimit(limit.0, value))
    })
}

#[unsafe(export_name = "cudaMemPoolGetAttribute__abi12")]
pub unsafe extern "C" fn cudaMemPoolGetAttribute(memPool: cudaMemPool_t, attr: cudaMemPoolAttr, value: *mut c_void) -> cudaError_t {
    entry!(cudaMemPoolGetAttribute(memPool, attr, value) => {
        known_in_12_9(known::pool_attr(attr))?;
        runtime::pool::attribute(memPool, attr, value, false)
    })
}

#[unsafe(export_name = "cudaMemPoolSetAttribute__abi12")]
pub unsafe extern "C" fn cudaMemPoolSetAttribute(memPool: cudaMemPool_t, attr: cudaMemPoolAttr, value: *mut c_void) -> cudaError_t {
    entry!(cudaMemPoolSetAttribute(memPool, attr, value) => {
        known_in_12_9(known::pool_attr(attr))?;
        runtime::pool::attribute(memPool, attr, value, true)
    })
}

#[unsafe(export_name = "cudaStreamGetAttribute__abi12")]
pub unsafe extern "C" fn cudaStreamGetAttribute(hStream: cudaStream_t, attr: cudaStreamAttrID, value_out: *mut cudaStreamAttrValue) -> cudaError_t {
    entry!(cudaStreamGetAttribute(hStream, attr, value_out) => {
        known_in_12_9(known::launch_attr(attr))?;
        runtime::stream::attribute(hStream, attr, unsafe { as_out(value_out) }, StreamMode::Legacy)
    })
}

#[unsafe(export_name = "cudaStreamGetAttribute_ptsz__abi12")]
pub unsafe extern "C" fn cudaStreamGetAttribute_ptsz(hStream: cudaStream_t, attr: cudaStreamAttrID, value_out: *mut cudaStreamAttrValue) -> cudaError_t {
    entry!(cudaStreamGetAttribute_ptsz(hStream, attr, value_out) => {
        known_in_12_9(known::launch_attr(attr))?;
        runtime::stream::attribute(hStream, attr, unsafe { as_out(value_out) }, StreamMode::PerThread)
    })
}

#[unsafe(export_name = "cudaStreamSetAttribute__abi12")]
pub unsafe extern "C" fn cudaStreamSetAttribute(hStream: cudaStream_t, attr: cudaStreamAttrID, value: *const cudaStreamAttrValue) -> cudaError_t {
    entry!(cudaStreamSetAttribute(hStream, attr, value) => {
        known_in_12_9(known::launch_attr(attr))?;
        runtime::stream::set_attribute(hStream, attr, unsafe { as_in(value) }, StreamMode::Legacy)
    })
}

#[unsafe(export_name = "cudaStreamSetAttribute_ptsz__abi12")]
pub unsafe extern "C" fn cudaStreamSetAttribute_ptsz(hStream: cudaStream_t, attr: cudaStreamAttrID, value: *const cudaStreamAttrValue) -> cudaError_t {
    entry!(cudaStreamSetAttribute_ptsz(hStream, attr, value) => {
        known_in_12_9(known::launch_attr(attr))?;
        runtime::stream::set_attribute(hStream, attr, unsafe { as_in(value) }, StreamMode::PerThread)
    })
}

#[unsafe(export_name = "cudaGraphKernelNodeGetAttribute__abi12")]
pub unsafe extern "C" fn cudaGraphKernelNodeGetAttribute(hNode: cudaGraphNode_t, attr: cudaLaunchAttributeID, value_out: *mut cudaLaunchAttributeValue) -> cudaError_t {
    entry!(cudaGraphKernelNodeGetAttribute(hNode, attr, value_out) => {
        known_in_12_9(known::launch_attr(attr))?;
        graph::kernel_attr_get(hNode, attr, unsafe { as_out(value_out) })
    })
}

#[unsafe(export_name = "cudaGraphKernelNodeSetAttribute__abi12")]
pub unsafe extern "C" fn cudaGraphKernelNodeSetAttribute(hNode: cudaGraphNode_t, attr: cudaLaunchAttributeID, value: *const cudaLaunchAttributeValue) -> cudaError_t {
    entry!(cudaGraphKernelNodeSetAttribute(hNode, attr, value) => {
        known_in_12_9(known::launch_attr(attr))?;
        graph::kernel_attr_set(hNode, attr, unsafe { as_in(value) })
    })
}

#[unsafe(export_name = "cudaMemPoolCreate__abi12")]
pub unsafe extern "C" fn cudaMemPoolCreate(memPool: *mut cudaMemPool_t, poolProps: *const cudaMemPoolProps) -> cudaError_t {
    entry!(cudaMemPoolCreate(memPool, poolProps) => {
        let props = unsafe { as_in(poolProps) };
        known_in_12_9(props.is_none_or(known::pool_props))?;
        runtime::pool::create(unsafe { as_out(memPool) }, props)
    })
}

#[unsafe(export_name = "cudaMemPoolGetAccess__abi12")]
pub unsafe extern "C" fn cudaMemPoolGetAccess(flags: *mut cudaMemAccessFlags, memPool: cudaMemPool_t, location: *mut cudaMemLocation) -> cudaError_t {
    entry!(cudaMemPoolGetAccess(flags, memPool, location) => {
        let location = unsafe { as_in(location.cast_const()) };
        known_in_12_9(location.is_none_or(|l| known::location_type(l.r#type)))?;
        runtime::pool::get_access(unsafe { as_out(flags) }, memPool, location)
    })
}

// Launches: 12.9 answers a shape the device cannot run with
// `cudaErrorInvalidConfiguration` (runtime::abi12::launch_shape_answer);
// otherwise these are the 13 exports.

#[unsafe(export_name = "__cudaLaunchKernel__abi12")]
pub unsafe extern "C" fn __cudaLaunchKernel(kernel: cudaKernel_t, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(__cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream) => abi12::launch_shape_answer(
        launch::launch_from_stub(kernel, gridDim, blockDim, args, sharedMem, stream, StreamMode::Legacy), gridDim, blockDim))
}

#[unsafe(export_name = "__cudaLaunchKernel_ptsz__abi12")]
pub unsafe extern "C" fn __cudaLaunchKernel_ptsz(kernel: cudaKernel_t, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(__cudaLaunchKernel_ptsz(kernel, gridDim, blockDim, args, sharedMem, stream) => abi12::launch_shape_answer(
        launch::launch_from_stub(kernel, gridDim, blockDim, args, sharedMem, stream, StreamMode::PerThread), gridDim, blockDim))
}

#[unsafe(export_name = "cudaLaunchKernel__abi12")]
pub unsafe extern "C" fn cudaLaunchKernel(func: *const c_void, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream) => abi12::launch_shape_answer(
        launch::launch(func, gridDim, blockDim, args, sharedMem, stream, StreamMode::Legacy), gridDim, blockDim))
}

#[unsafe(export_name = "cudaLaunchKernel_ptsz__abi12")]
pub unsafe extern "C" fn cudaLaunchKernel_ptsz(func: *const c_void, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaLaunchKernel_ptsz(func, gridDim, blockDim, args, sharedMem, stream) => abi12::launch_shape_answer(
        launch::launch(func, gridDim, blockDim, args, sharedMem, stream, StreamMode::PerThread), gridDim, blockDim))
}

#[unsafe(export_name = "cudaLaunchCooperativeKernel__abi12")]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel(func: *const c_void, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem, stream) => abi12::launch_shape_answer(
        launch::launch_cooperative(func, gridDim, blockDim, args, sharedMem, stream, StreamMode::Legacy), gridDim, blockDim))
}

#[unsafe(export_name = "cudaLaunchCooperativeKernel_ptsz__abi12")]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel_ptsz(func: *const c_void, gridDim: dim3, blockDim: dim3, args: *mut *mut c_void, sharedMem: usize, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaLaunchCooperativeKernel_ptsz(func, gridDim, blockDim, args, sharedMem, stream) => abi12::launch_shape_answer(
        launch::launch_cooperative(func, gridDim, blockDim, args, sharedMem, stream, StreamMode::PerThread), gridDim, blockDim))
}

#[unsafe(export_name = "cudaLaunchKernelExC__abi12")]
pub unsafe extern "C" fn cudaLaunchKernelExC(config: *const cudaLaunchConfig_t, func: *const c_void, args: *mut *mut c_void) -> cudaError_t {
    entry!(cudaLaunchKernelExC(config, func, args) => {
        let config = unsafe { as_in(config) };
        let r = launch::launch_ex(config, func, args, StreamMode::Legacy);
        config.map_or(r, |c| abi12::launch_shape_answer(r, c.gridDim, c.blockDim))
    })
}

#[unsafe(export_name = "cudaLaunchKernelExC_ptsz__abi12")]
pub unsafe extern "C" fn cudaLaunchKernelExC_ptsz(config: *const cudaLaunchConfig_t, func: *const c_void, args: *mut *mut c_void) -> cudaError_t {
    entry!(cudaLaunchKernelExC_ptsz(config, func, args) => {
        let config = unsafe { as_in(config) };
        let r = launch::launch_ex(config, func, args, StreamMode::PerThread);
        config.map_or(r, |c| abi12::launch_shape_answer(r, c.gridDim, c.blockDim))
    })
}
