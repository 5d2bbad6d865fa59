//! Exports of stream capture (NVIDIA lists them under graph management).
//! `_ptsz` twins call the same runtime function with
//! `StreamMode::PerThread`.

use crate::control::params;
use crate::driver::StreamMode::{Legacy, PerThread};
use crate::runtime::{self, capture};
use crate::types::*;
use std::ffi::{c_uint, c_ulonglong};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamBeginCapture(stream: cudaStream_t, mode: cudaStreamCaptureMode) -> cudaError_t {
    entry!(cudaStreamBeginCapture(stream, mode) => capture::begin(stream, mode, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamBeginCapture_ptsz(stream: cudaStream_t, mode: cudaStreamCaptureMode) -> cudaError_t {
    entry!(cudaStreamBeginCapture_ptsz(stream, mode) => capture::begin(stream, mode, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamBeginCaptureToGraph(stream: cudaStream_t, graph: cudaGraph_t, dependencies: *const cudaGraphNode_t, dependencyData: *const cudaGraphEdgeData, numDependencies: usize, mode: cudaStreamCaptureMode) -> cudaError_t {
    entry!(cudaStreamBeginCaptureToGraph(stream, graph, dependencies, dependencyData, numDependencies, mode) => capture::begin_to_graph(stream, graph, dependencies, dependencyData, numDependencies, mode, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamBeginCaptureToGraph_ptsz(stream: cudaStream_t, graph: cudaGraph_t, dependencies: *const cudaGraphNode_t, dependencyData: *const cudaGraphEdgeData, numDependencies: usize, mode: cudaStreamCaptureMode) -> cudaError_t {
    entry!(cudaStreamBeginCaptureToGraph_ptsz(stream, graph, dependencies, dependencyData, numDependencies, mode) => capture::begin_to_graph(stream, graph, dependencies, dependencyData, numDependencies, mode, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamEndCapture(stream: cudaStream_t, pGraph: *mut cudaGraph_t) -> cudaError_t {
    entry!(cudaStreamEndCapture(stream, pGraph) => capture::end(stream, pGraph, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamEndCapture_ptsz(stream: cudaStream_t, pGraph: *mut cudaGraph_t) -> cudaError_t {
    entry!(cudaStreamEndCapture_ptsz(stream, pGraph) => capture::end(stream, pGraph, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamIsCapturing(stream: cudaStream_t, pCaptureStatus: *mut cudaStreamCaptureStatus) -> cudaError_t {
    entry!(cudaStreamIsCapturing(stream, pCaptureStatus) => capture::is_capturing(stream, unsafe { runtime::as_out(pCaptureStatus) }, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamIsCapturing_ptsz(stream: cudaStream_t, pCaptureStatus: *mut cudaStreamCaptureStatus) -> cudaError_t {
    entry!(cudaStreamIsCapturing_ptsz(stream, pCaptureStatus) => capture::is_capturing(stream, unsafe { runtime::as_out(pCaptureStatus) }, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo(stream: cudaStream_t, captureStatus_out: *mut cudaStreamCaptureStatus, id_out: *mut c_ulonglong, graph_out: *mut cudaGraph_t, dependencies_out: *mut *const cudaGraphNode_t, edgeData_out: *mut *const cudaGraphEdgeData, numDependencies_out: *mut usize) -> cudaError_t {
    entry!(cudaStreamGetCaptureInfo(stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out) => capture::info(stream, unsafe { runtime::as_out(captureStatus_out) }, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo_ptsz(stream: cudaStream_t, captureStatus_out: *mut cudaStreamCaptureStatus, id_out: *mut c_ulonglong, graph_out: *mut cudaGraph_t, dependencies_out: *mut *const cudaGraphNode_t, edgeData_out: *mut *const cudaGraphEdgeData, numDependencies_out: *mut usize) -> cudaError_t {
    entry!(cudaStreamGetCaptureInfo_ptsz(stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out) => capture::info(stream, unsafe { runtime::as_out(captureStatus_out) }, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamUpdateCaptureDependencies(stream: cudaStream_t, dependencies: *mut cudaGraphNode_t, dependencyData: *const cudaGraphEdgeData, numDependencies: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamUpdateCaptureDependencies(stream, dependencies, dependencyData, numDependencies, flags) => capture::update_dependencies(stream, dependencies, dependencyData, numDependencies, flags, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamUpdateCaptureDependencies_ptsz(stream: cudaStream_t, dependencies: *mut cudaGraphNode_t, dependencyData: *const cudaGraphEdgeData, numDependencies: usize, flags: c_uint) -> cudaError_t {
    entry!(cudaStreamUpdateCaptureDependencies_ptsz(stream, dependencies, dependencyData, numDependencies, flags) => capture::update_dependencies(stream, dependencies, dependencyData, numDependencies, flags, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaThreadExchangeStreamCaptureMode(mode: *mut cudaStreamCaptureMode) -> cudaError_t {
    entry!(cudaThreadExchangeStreamCaptureMode(mode) => capture::exchange_mode(unsafe { runtime::as_out(mode) }))
}

// CUDA 13.3: recapture into an existing graph.

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamBeginRecaptureToGraph(stream: cudaStream_t, mode: cudaStreamCaptureMode, graph: cudaGraph_t, callbackData: *mut cudaGraphRecaptureCallbackData) -> cudaError_t {
    entry!(cudaStreamBeginRecaptureToGraph(stream, mode, graph, callbackData) => crate::runtime::stream_v2::begin_recapture(stream, mode, graph, unsafe { callbackData.as_ref() }, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamBeginRecaptureToGraph_ptsz(stream: cudaStream_t, mode: cudaStreamCaptureMode, graph: cudaGraph_t, callbackData: *mut cudaGraphRecaptureCallbackData) -> cudaError_t {
    entry!(cudaStreamBeginRecaptureToGraph_ptsz(stream, mode, graph, callbackData) => crate::runtime::stream_v2::begin_recapture(stream, mode, graph, unsafe { callbackData.as_ref() }, PerThread))
}
