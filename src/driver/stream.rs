//! Driver entry points of the stream, event and stream-capture area, with
//! the CUDA 13.0 signature of each plain name (`cuStreamDestroy` is
//! `cuStreamDestroy_v2`, `cuEventElapsedTime` is `cuEventElapsedTime_v2`,
//! `cuStreamGetCaptureInfo` is `_v3` with edge data, ...).
//!
//! Capture enums, attribute ids and values, and edge data have the same
//! numbers and layouts in the driver and the runtime, so they pass through
//! as the runtime's types.

use super::table::driver_table;
use super::types::*;
use crate::types::{cudaGraphEdgeData, cudaHostFn_t, cudaLaunchAttributeValue};
use std::ffi::{c_int, c_uint, c_void};

/// C: `CUstreamCallback`.
pub type CUstreamCallback = Option<unsafe extern "C" fn(stream: CUstream, status: CUresult, user_data: *mut c_void)>;

driver_table! {
    fn cuStreamCreate(stream: *mut CUstream, flags: c_uint);
    fn cuStreamCreateWithPriority(stream: *mut CUstream, flags: c_uint, priority: c_int);
    fn cuStreamDestroy(stream: CUstream);
    fn cuStreamQuery(stream: CUstream);
    fn cuStreamSynchronize(stream: CUstream);
    fn cuStreamWaitEvent(stream: CUstream, event: CUevent, flags: c_uint);
    fn cuStreamGetFlags(stream: CUstream, flags: *mut c_uint);
    fn cuStreamGetPriority(stream: CUstream, priority: *mut c_int);
    fn cuStreamGetId(stream: CUstream, id: *mut u64);
    fn cuStreamGetDevice(stream: CUstream, device: *mut CUdevice);
    fn cuStreamGetAttribute(stream: CUstream, attr: c_int, value: *mut cudaLaunchAttributeValue);
    fn cuStreamSetAttribute(stream: CUstream, attr: c_int, value: *const cudaLaunchAttributeValue);
    fn cuStreamCopyAttributes(dst: CUstream, src: CUstream);
    fn cuStreamAttachMemAsync(stream: CUstream, dptr: CUdeviceptr, length: usize, flags: c_uint);
    fn cuStreamAddCallback(stream: CUstream, callback: CUstreamCallback, user_data: *mut c_void, flags: c_uint);
    fn cuLaunchHostFunc(stream: CUstream, f: cudaHostFn_t, user_data: *mut c_void);

    fn cuEventCreate(event: *mut CUevent, flags: c_uint);
    fn cuEventRecord(event: CUevent, stream: CUstream);
    fn cuEventRecordWithFlags(event: CUevent, stream: CUstream, flags: c_uint);
    fn cuEventQuery(event: CUevent);
    fn cuEventSynchronize(event: CUevent);
    fn cuEventDestroy(event: CUevent);
    fn cuEventElapsedTime(ms: *mut f32, start: CUevent, end: CUevent);

    fn cuStreamBeginCapture(stream: CUstream, mode: c_int);
    fn cuStreamBeginCaptureToGraph(
        stream: CUstream,
        graph: CUgraph,
        deps: *const CUgraphNode,
        edges: *const cudaGraphEdgeData,
        count: usize,
        mode: c_int,
    );
    fn cuStreamEndCapture(stream: CUstream, graph: *mut CUgraph);
    fn cuStreamIsCapturing(stream: CUstream, status: *mut c_int);
    fn cuStreamGetCaptureInfo(
        stream: CUstream,
        status: *mut c_int,
        id: *mut u64,
        graph: *mut CUgraph,
        deps: *mut *const CUgraphNode,
        edges: *mut *const cudaGraphEdgeData,
        count: *mut usize,
    );
    fn cuStreamUpdateCaptureDependencies(
        stream: CUstream,
        deps: *mut CUgraphNode,
        edges: *const cudaGraphEdgeData,
        count: usize,
        flags: c_uint,
    );
    fn cuThreadExchangeStreamCaptureMode(mode: *mut c_int);
}
