//! Runtime semantics of stream capture. Capture happens in the driver:
//! every stream-ordered driver call our other exports make on a capturing
//! stream becomes a graph node there, so these functions only check their
//! arguments and pass the runtime's values through (capture modes and
//! statuses, edge data and update flags have the driver's numbers and
//! layouts).

use crate::runtime::required;
use super::context;
use crate::driver::StreamMode;
use crate::types::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::ffi::c_uint;

fn check_mode(mode: cudaStreamCaptureMode) -> CudaResult {
    match mode {
        cudaStreamCaptureModeGlobal | cudaStreamCaptureModeThreadLocal | cudaStreamCaptureModeRelaxed => Ok(()),
        _ => Err(cudaErrorInvalidValue),
    }
}

pub fn begin(s: cudaStream_t, mode: cudaStreamCaptureMode, m: StreamMode) -> CudaResult {
    check_mode(mode)?;
    context::enter()?;
    cu!(mode m; cuStreamBeginCapture(s, mode.0))?;
    ACTIVE.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// Captures begun through this runtime and not yet ended. Work that must
/// not synchronize while any stream captures (the caching allocator's
/// deferred reuse) checks it: a device synchronize invalidates a capture.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// Whether a capture begun through this runtime may be in progress.
pub fn any_active() -> bool {
    ACTIVE.load(Ordering::Relaxed) > 0
}

/// `cudaStreamBeginCaptureToGraph`: `edges` may be NULL (all default).
pub fn begin_to_graph(
    s: cudaStream_t,
    graph: cudaGraph_t,
    deps: *const cudaGraphNode_t,
    edges: *const cudaGraphEdgeData,
    count: usize,
    mode: cudaStreamCaptureMode,
    m: StreamMode,
) -> CudaResult {
    check_mode(mode)?;
    if graph.is_null() || (count > 0 && deps.is_null()) {
        return Err(cudaErrorInvalidValue);
    }
    context::enter()?;
    cu!(mode m; cuStreamBeginCaptureToGraph(s, graph, deps, edges, count, mode.0))?;
    ACTIVE.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

pub fn end(s: cudaStream_t, graph: *mut cudaGraph_t, m: StreamMode) -> CudaResult {
    // The driver checks the capture state before the out-pointer: a NULL
    // graph on a stream that is not capturing is cudaErrorIllegalState
    // (NVIDIA, H100, CUDA 13.0), so the pointer goes through unchecked.
    context::enter()?;
    let r = cu!(mode m; cuStreamEndCapture(s, graph));
    // Ended (successfully or invalidated) unless the stream was not capturing.
    if r != Err(cudaErrorIllegalState) {
        let _ = ACTIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
    r
}

pub fn is_capturing(s: cudaStream_t, status: Option<&mut cudaStreamCaptureStatus>, m: StreamMode) -> CudaResult {
    let status = required(status)?;
    context::enter()?;
    cu!(mode m; cuStreamIsCapturing(s, &mut status.0))
}

/// `cudaStreamGetCaptureInfo` (CUDA 13: with edge data). Every output but
/// the status may be NULL; the arrays stay valid until the next call that
/// changes the stream's dependencies.
#[allow(clippy::too_many_arguments)]
pub fn info(
    s: cudaStream_t,
    status: Option<&mut cudaStreamCaptureStatus>,
    id: *mut u64,
    graph: *mut cudaGraph_t,
    deps: *mut *const cudaGraphNode_t,
    edges: *mut *const cudaGraphEdgeData,
    count: *mut usize,
    m: StreamMode,
) -> CudaResult {
    let status = required(status)?;
    context::enter()?;
    cu!(mode m; cuStreamGetCaptureInfo(s, &mut status.0, id, graph, deps, edges, count))
}

/// `cudaStreamUpdateCaptureDependencies`: flags
/// `cudaStreamAddCaptureDependencies` or `cudaStreamSetCaptureDependencies`.
pub fn update_dependencies(
    s: cudaStream_t,
    deps: *mut cudaGraphNode_t,
    edges: *const cudaGraphEdgeData,
    count: usize,
    flags: c_uint,
    m: StreamMode,
) -> CudaResult {
    if flags > cudaStreamSetCaptureDependencies.0 as c_uint || (count > 0 && deps.is_null()) {
        return Err(cudaErrorInvalidValue);
    }
    context::enter()?;
    cu!(mode m; cuStreamUpdateCaptureDependencies(s, deps, edges, count, flags))
}

/// `cudaThreadExchangeStreamCaptureMode`: the mode is per thread in the
/// driver; no context is needed.
pub fn exchange_mode(mode: Option<&mut cudaStreamCaptureMode>) -> CudaResult {
    let mode = required(mode)?;
    // The mode goes to the driver unchecked: NVIDIA's runtime returned
    // success for the value the GPU test passes (H100, CUDA 13.0).
    super::state::runtime()?;
    cu!(cuThreadExchangeStreamCaptureMode(&mut mode.0))
}

/// Count a capture begun outside this file (CUDA 13.3's recapture, in
/// `stream_v2.rs`), so [`any_active`] sees it; `end` uncounts it.
pub(crate) fn note_begun() {
    ACTIVE.fetch_add(1, Ordering::Relaxed);
}
