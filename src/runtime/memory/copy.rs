//! Copies: `cudaMemcpy*` in every form.
//!
//! Synchronous copies call the driver's synchronous entry points (which
//! carry NVIDIA's host-synchronization rules); `*Async` copies the async
//! ones on the caller's stream. `_ptds`/`_ptsz` exports pass
//! `StreamMode::PerThread`, which picks the driver's per-thread variants.
//!
//! Runtime copy descriptions are converted to the driver's
//! `CUDA_MEMCPY2D`/`CUDA_MEMCPY3D` by one function, [`copy_3d`]; 2D copies
//! are 3D copies of depth 1 narrowed by [`narrow`].

use crate::runtime::required;
use super::array::{describe, element_size};
use super::dptr;
use crate::driver::api::{CUDA_MEMCPY2D, CUDA_MEMCPY3D, CUarray, CUmemorytype};
use crate::driver::api::{CU_MEMORYTYPE_ARRAY, CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_UNIFIED};
use crate::driver::{CUcontext, CUstream, StreamMode};
use crate::runtime::context::enter;
use crate::runtime::state::runtime;
use crate::types::*;
use std::ffi::{c_int, c_ulonglong, c_void};

/// A copy's direction, from a checked `cudaMemcpyKind`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dir {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    /// Inferred from unified addressing.
    Default,
}

impl Dir {
    /// `cudaErrorInvalidMemcpyDirection` for a value outside the enum.
    pub fn of(kind: cudaMemcpyKind) -> CudaResult<Dir> {
        Ok(match kind {
            cudaMemcpyHostToHost => Dir::HostToHost,
            cudaMemcpyHostToDevice => Dir::HostToDevice,
            cudaMemcpyDeviceToHost => Dir::DeviceToHost,
            cudaMemcpyDeviceToDevice => Dir::DeviceToDevice,
            cudaMemcpyDefault => Dir::Default,
            _ => return Err(cudaErrorInvalidMemcpyDirection),
        })
    }

    fn src_type(self) -> CUmemorytype {
        match self {
            Dir::HostToHost | Dir::HostToDevice => CU_MEMORYTYPE_HOST,
            Dir::DeviceToHost | Dir::DeviceToDevice => CU_MEMORYTYPE_DEVICE,
            Dir::Default => CU_MEMORYTYPE_UNIFIED,
        }
    }

    fn dst_type(self) -> CUmemorytype {
        match self {
            Dir::HostToHost | Dir::DeviceToHost => CU_MEMORYTYPE_HOST,
            Dir::HostToDevice | Dir::DeviceToDevice => CU_MEMORYTYPE_DEVICE,
            Dir::Default => CU_MEMORYTYPE_UNIFIED,
        }
    }

    /// A CUDA array lives on the device: a kind that puts it on the host is
    /// the wrong direction.
    fn array_src(self) -> CudaResult<Dir> {
        match self {
            Dir::DeviceToHost | Dir::DeviceToDevice | Dir::Default => Ok(self),
            _ => Err(cudaErrorInvalidMemcpyDirection),
        }
    }

    fn array_dst(self) -> CudaResult<Dir> {
        match self {
            Dir::HostToDevice | Dir::DeviceToDevice | Dir::Default => Ok(self),
            _ => Err(cudaErrorInvalidMemcpyDirection),
        }
    }
}

/// Synchronous (`None`) or on a stream.
pub type On = Option<CUstream>;

/// `cudaMemcpy` / `cudaMemcpyAsync`: the kind picks the driver call
/// (HtoD, DtoH, DtoD; the unified `cuMemcpy` for host-to-host and
/// `cudaMemcpyDefault`).
#[inline]
pub fn memcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: cudaMemcpyKind, on: On, m: StreamMode) -> CudaResult {
    enter()?;
    // A zero-byte copy succeeds before the kind is looked at (NVIDIA's
    // runtime returns success for kind 7 with count 0; H100, CUDA 13.0).
    if count == 0 {
        return Ok(());
    }
    let dir = Dir::of(kind)?;
    let (d, s) = (dptr(dst), dptr(src));
    match (dir, on) {
        (Dir::HostToDevice, None) => cu!(mode m; cuMemcpyHtoD(d, src, count)),
        (Dir::DeviceToHost, None) => cu!(mode m; cuMemcpyDtoH(dst, s, count)),
        (Dir::DeviceToDevice, None) => cu!(mode m; cuMemcpyDtoD(d, s, count)),
        (_, None) => cu!(mode m; cuMemcpy(d, s, count)),
        (Dir::HostToDevice, Some(st)) => cu!(mode m; cuMemcpyHtoDAsync(d, src, count, st)),
        (Dir::DeviceToHost, Some(st)) => cu!(mode m; cuMemcpyDtoHAsync(dst, s, count, st)),
        (Dir::DeviceToDevice, Some(st)) => cu!(mode m; cuMemcpyDtoDAsync(d, s, count, st)),
        (_, Some(st)) => cu!(mode m; cuMemcpyAsync(d, s, count, st)),
    }
}

/// One end of a copy.
#[derive(Clone, Copy, Debug)]
pub enum End {
    /// Linear memory: pointer, row pitch, rows per slice (3D only), type.
    Ptr { p: *const c_void, pitch: usize, height: usize, ty: CUmemorytype },
    Array(CUarray),
}

/// Where a copy starts in an [`End`]: x in bytes, row, slice.
#[derive(Clone, Copy, Debug, Default)]
pub struct At {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

/// The driver's 3D copy of `width` bytes x `height` rows x `depth` slices.
pub fn copy_3d(src: End, s: At, dst: End, d: At, width: usize, height: usize, depth: usize) -> CUDA_MEMCPY3D {
    let mut c = CUDA_MEMCPY3D::default();
    (c.srcXInBytes, c.srcY, c.srcZ) = (s.x, s.y, s.z);
    match src {
        End::Ptr { p, pitch, height, ty } => {
            (c.srcMemoryType, c.srcPitch, c.srcHeight) = (ty, pitch, height);
            if ty == CU_MEMORYTYPE_HOST { c.srcHost = p } else { c.srcDevice = dptr(p) }
        }
        End::Array(a) => (c.srcMemoryType, c.srcArray) = (CU_MEMORYTYPE_ARRAY, a),
    }
    (c.dstXInBytes, c.dstY, c.dstZ) = (d.x, d.y, d.z);
    match dst {
        End::Ptr { p, pitch, height, ty } => {
            (c.dstMemoryType, c.dstPitch, c.dstHeight) = (ty, pitch, height);
            if ty == CU_MEMORYTYPE_HOST { c.dstHost = p.cast_mut() } else { c.dstDevice = dptr(p) }
        }
        End::Array(a) => (c.dstMemoryType, c.dstArray) = (CU_MEMORYTYPE_ARRAY, a),
    }
    (c.WidthInBytes, c.Height, c.Depth) = (width, height, depth);
    c
}

/// The 2D form of a copy of depth 1 (z offsets are 0).
pub fn narrow(c: &CUDA_MEMCPY3D) -> CUDA_MEMCPY2D {
    CUDA_MEMCPY2D {
        srcXInBytes: c.srcXInBytes,
        srcY: c.srcY,
        srcMemoryType: c.srcMemoryType,
        srcHost: c.srcHost,
        srcDevice: c.srcDevice,
        srcArray: c.srcArray,
        srcPitch: c.srcPitch,
        dstXInBytes: c.dstXInBytes,
        dstY: c.dstY,
        dstMemoryType: c.dstMemoryType,
        dstHost: c.dstHost,
        dstDevice: c.dstDevice,
        dstArray: c.dstArray,
        dstPitch: c.dstPitch,
        WidthInBytes: c.WidthInBytes,
        Height: c.Height,
    }
}

/// Synchronous 2D copies use `cuMemcpy2D`, the fast path; the driver may
/// refuse pitches it did not compute itself, and then the copy is retried
/// with `cuMemcpy2DUnaligned`, which takes any pitch. Bad input fails both
/// the same way, so the code the caller sees is unchanged.
fn run_2d(c: &CUDA_MEMCPY3D, on: On, m: StreamMode) -> CudaResult {
    let c = narrow(c);
    match on {
        None => match cu!(mode m; cuMemcpy2D(&c)) {
            Err(cudaErrorInvalidValue) => cu!(mode m; cuMemcpy2DUnaligned(&c)),
            r => r,
        },
        Some(st) => cu!(mode m; cuMemcpy2DAsync(&c, st)),
    }
}

fn run_3d(c: &CUDA_MEMCPY3D, on: On, m: StreamMode) -> CudaResult {
    match on {
        None => cu!(mode m; cuMemcpy3D(c)),
        Some(st) => cu!(mode m; cuMemcpy3DAsync(c, st)),
    }
}

/// A pitch narrower than the row is `cudaErrorInvalidPitchValue`.
fn check_pitch(width: usize, pitches: &[usize]) -> CudaResult {
    if pitches.iter().any(|&p| width > p) { Err(cudaErrorInvalidPitchValue) } else { Ok(()) }
}

/// `cudaMemcpy2D` / `cudaMemcpy2DAsync`.
#[allow(clippy::too_many_arguments)]
pub fn memcpy_2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: cudaMemcpyKind,
    on: On,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    let dir = Dir::of(kind)?;
    check_pitch(width, &[dpitch, spitch])?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    let s = End::Ptr { p: src, pitch: spitch, height: 0, ty: dir.src_type() };
    let d = End::Ptr { p: dst, pitch: dpitch, height: 0, ty: dir.dst_type() };
    run_2d(&copy_3d(s, At::default(), d, At::default(), width, height, 1), on, m)
}

/// Array copies of nothing succeed before any other check, as NVIDIA's
/// runtime does (H100, CUDA 13.0: kind, handles and pitches unexamined).
#[inline]
fn nothing_to_copy(dims: &[usize]) -> bool {
    dims.contains(&0)
}

/// `cudaMemcpy2DToArray` / `...Async`: offsets and width in bytes.
#[allow(clippy::too_many_arguments)]
pub fn memcpy_2d_to_array(
    dst: cudaArray_t,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: cudaMemcpyKind,
    on: On,
    m: StreamMode,
) -> CudaResult {
    let at = At { x: w_offset, y: h_offset, z: 0 };
    memcpy_2d_array_linear(ArraySide::Dst, dst, at, src, spitch, width, height, kind, on, m)
}

/// `cudaMemcpy2DFromArray` / `...Async`: offsets and width in bytes.
#[allow(clippy::too_many_arguments)]
pub fn memcpy_2d_from_array(
    dst: *mut c_void,
    dpitch: usize,
    src: cudaArray_const_t,
    w_offset: usize,
    h_offset: usize,
    width: usize,
    height: usize,
    kind: cudaMemcpyKind,
    on: On,
    m: StreamMode,
) -> CudaResult {
    let at = At { x: w_offset, y: h_offset, z: 0 };
    memcpy_2d_array_linear(ArraySide::Src, src.cast_mut(), at, dst, dpitch, width, height, kind, on, m)
}

/// Which end of a copy between an array and linear memory is the array.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ArraySide {
    Src,
    Dst,
}

/// A 2D copy between an array (at `at`) and linear memory (`linear`, rows
/// `pitch` apart), in NVIDIA's check order: nothing to copy, direction,
/// pitch, then the array handle.
#[allow(clippy::too_many_arguments)]
fn memcpy_2d_array_linear(
    side: ArraySide,
    array: cudaArray_t,
    at: At,
    linear: *const c_void,
    pitch: usize,
    width: usize,
    height: usize,
    kind: cudaMemcpyKind,
    on: On,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    if nothing_to_copy(&[width, height]) {
        return Ok(());
    }
    let dir = Dir::of(kind)?;
    // The linear end's memory type, from the direction as seen by the array.
    let ty = match side {
        ArraySide::Dst => dir.array_dst()?.src_type(),
        ArraySide::Src => dir.array_src()?.dst_type(),
    };
    check_pitch(width, &[pitch])?;
    if array.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    let linear = End::Ptr { p: linear, pitch, height: 0, ty };
    let c = match side {
        ArraySide::Dst => copy_3d(linear, At::default(), End::Array(array), at, width, height, 1),
        ArraySide::Src => copy_3d(End::Array(array), at, linear, At::default(), width, height, 1),
    };
    run_2d(&c, on, m)
}

/// `cudaMemcpy2DArrayToArray`: offsets and width in bytes.
#[allow(clippy::too_many_arguments)]
pub fn memcpy_2d_array_to_array(
    dst: cudaArray_t,
    w_dst: usize,
    h_dst: usize,
    src: cudaArray_const_t,
    w_src: usize,
    h_src: usize,
    width: usize,
    height: usize,
    kind: cudaMemcpyKind,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    if nothing_to_copy(&[width, height]) {
        return Ok(());
    }
    Dir::of(kind)?.array_src()?.array_dst()?;
    if dst.is_null() || src.is_null() {
        return Err(cudaErrorInvalidResourceHandle);
    }
    let (s, d) = (At { x: w_src, y: h_src, z: 0 }, At { x: w_dst, y: h_dst, z: 0 });
    run_2d(&copy_3d(End::Array(src.cast_mut()), s, End::Array(dst), d, width, height, 1), None, m)
}

/// One end of a linear (deprecated 1D) array copy.
#[derive(Clone, Copy)]
enum Lin {
    Ptr(*const c_void, CUmemorytype),
    /// An array and its row length in bytes.
    Array(CUarray, usize),
}

fn lin_array(a: CUarray) -> CudaResult<Lin> {
    let d = describe(a)?;
    Ok(Lin::Array(a, d.Width * element_size(&d)))
}

/// Bytes left in the current row of an end (unbounded for linear memory).
fn room(e: Lin, at: &At) -> CudaResult<usize> {
    match e {
        Lin::Ptr(..) => Ok(usize::MAX),
        Lin::Array(_, row) if at.x < row => Ok(row - at.x),
        Lin::Array(..) => Err(cudaErrorInvalidValue),
    }
}

fn advance(e: Lin, at: &mut At, n: usize, rows: usize) {
    match e {
        Lin::Ptr(..) => at.x += n * rows,
        Lin::Array(_, row) => {
            at.x += n;
            at.y += rows - 1;
            if at.x == row {
                (at.x, at.y) = (0, at.y + 1);
            }
        }
    }
}

fn lin_end(e: Lin, at: &At, pitch: usize) -> (End, At) {
    match e {
        Lin::Ptr(p, ty) => {
            // SAFETY: pointer arithmetic only; the driver validates access.
            let p = unsafe { p.cast::<u8>().add(at.x) }.cast();
            (End::Ptr { p, pitch, height: 0, ty }, At::default())
        }
        Lin::Array(a, _) => (End::Array(a), *at),
    }
}

/// `count` bytes from `src` at `s` to `dst` at `d`, where array ends are
/// walked row by row (the deprecated `cudaMemcpy{To,From}Array*` and
/// `cudaMemcpyArrayToArray`). Whole rows between an array and linear
/// memory go in one 2D copy.
fn copy_linear(dst: Lin, mut d: At, src: Lin, mut s: At, mut count: usize, on: On, m: StreamMode) -> CudaResult {
    while count > 0 {
        let (rs, rd) = (room(src, &s)?, room(dst, &d)?);
        let n = count.min(rs).min(rd);
        // Whole rows of the array side, when the other side is linear.
        let full_row = match (src, dst) {
            (Lin::Array(_, row), Lin::Ptr(..)) if s.x == 0 && n == row => Some(row),
            (Lin::Ptr(..), Lin::Array(_, row)) if d.x == 0 && n == row => Some(row),
            _ => None,
        };
        let rows = full_row.map_or(1, |row| count / row);
        let (se, sa) = lin_end(src, &s, n);
        let (de, da) = lin_end(dst, &d, n);
        run_2d(&copy_3d(se, sa, de, da, n, rows, 1), on, m)?;
        advance(src, &mut s, n, rows);
        advance(dst, &mut d, n, rows);
        count -= n * rows;
    }
    Ok(())
}

/// `cudaMemcpyToArray` / `...Async` (deprecated): `count` bytes from
/// (`w_offset` bytes, `h_offset` rows), continuing on the next rows.
#[allow(clippy::too_many_arguments)]
pub fn memcpy_to_array(
    dst: cudaArray_t,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    count: usize,
    kind: cudaMemcpyKind,
    on: On,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    if nothing_to_copy(&[count]) {
        return Ok(());
    }
    let dir = Dir::of(kind)?.array_dst()?;
    let a = lin_array(dst)?;
    copy_linear(a, At { x: w_offset, y: h_offset, z: 0 }, Lin::Ptr(src, dir.src_type()), At::default(), count, on, m)
}

/// `cudaMemcpyFromArray` / `...Async` (deprecated).
#[allow(clippy::too_many_arguments)]
pub fn memcpy_from_array(
    dst: *mut c_void,
    src: cudaArray_const_t,
    w_offset: usize,
    h_offset: usize,
    count: usize,
    kind: cudaMemcpyKind,
    on: On,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    if nothing_to_copy(&[count]) {
        return Ok(());
    }
    let dir = Dir::of(kind)?.array_src()?;
    let a = lin_array(src.cast_mut())?;
    copy_linear(Lin::Ptr(dst, dir.dst_type()), At::default(), a, At { x: w_offset, y: h_offset, z: 0 }, count, on, m)
}

/// `cudaMemcpyArrayToArray` (deprecated).
#[allow(clippy::too_many_arguments)]
pub fn memcpy_array_to_array(
    dst: cudaArray_t,
    w_dst: usize,
    h_dst: usize,
    src: cudaArray_const_t,
    w_src: usize,
    h_src: usize,
    count: usize,
    kind: cudaMemcpyKind,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    if nothing_to_copy(&[count]) {
        return Ok(());
    }
    Dir::of(kind)?.array_src()?.array_dst()?;
    let (d, s) = (lin_array(dst)?, lin_array(src.cast_mut())?);
    copy_linear(d, At { x: w_dst, y: h_dst, z: 0 }, s, At { x: w_src, y: h_src, z: 0 }, count, None, m)
}

/// One end of a runtime 3D copy: exactly one of array and pointer is set.
fn end_3d(array: cudaArray_t, ptr: &cudaPitchedPtr, ty: CUmemorytype) -> CudaResult<End> {
    match (array.is_null(), ptr.ptr.is_null()) {
        (false, true) => Ok(End::Array(array)),
        (true, false) => Ok(End::Ptr { p: ptr.ptr, pitch: ptr.pitch, height: ptr.ysize, ty }),
        _ => Err(cudaErrorInvalidValue),
    }
}

/// A runtime 3D copy as the driver's: array positions and the width count
/// elements of the array taking part (bytes when none does).
#[allow(clippy::too_many_arguments)]
fn convert_3d(
    src_array: cudaArray_t,
    src_pos: cudaPos,
    src_ptr: &cudaPitchedPtr,
    dst_array: cudaArray_t,
    dst_pos: cudaPos,
    dst_ptr: &cudaPitchedPtr,
    extent: cudaExtent,
    src_ty: CUmemorytype,
    dst_ty: CUmemorytype,
) -> CudaResult<CUDA_MEMCPY3D> {
    let s = end_3d(src_array, src_ptr, src_ty)?;
    let d = end_3d(dst_array, dst_ptr, dst_ty)?;
    let elem = |e: End| -> CudaResult<Option<usize>> {
        match e {
            End::Array(a) => Ok(Some(element_size(&describe(a)?))),
            End::Ptr { .. } => Ok(None),
        }
    };
    let (se, de) = (elem(s)?, elem(d)?);
    let unit = se.or(de).unwrap_or(1);
    let width = extent.width.checked_mul(unit).ok_or(cudaErrorInvalidValue)?;
    let x = |pos: usize, e: Option<usize>| pos.checked_mul(e.unwrap_or(1)).ok_or(cudaErrorInvalidValue);
    let sa = At { x: x(src_pos.x, se)?, y: src_pos.y, z: src_pos.z };
    let da = At { x: x(dst_pos.x, de)?, y: dst_pos.y, z: dst_pos.z };
    Ok(copy_3d(s, sa, d, da, width, extent.height, extent.depth))
}

fn empty(e: &cudaExtent) -> bool {
    e.width == 0 || e.height == 0 || e.depth == 0
}

/// `cudaMemcpy3DParms` as the driver's `CUDA_MEMCPY3D`: the one conversion
/// behind `cudaMemcpy3D*` and memcpy graph nodes.
pub fn params_3d(p: &cudaMemcpy3DParms) -> CudaResult<CUDA_MEMCPY3D> {
    // Shape before direction: an array and a pointer on one side (or
    // neither) is cudaErrorInvalidValue whatever the kind (NVIDIA, H100,
    // CUDA 13.0).
    end_3d(p.srcArray, &p.srcPtr, CU_MEMORYTYPE_UNIFIED)?;
    end_3d(p.dstArray, &p.dstPtr, CU_MEMORYTYPE_UNIFIED)?;
    let dir = Dir::of(p.kind)?;
    // An array on a host side of the kind is an invalid value in 3D copies
    // (NVIDIA, H100, CUDA 13.0: cudaMemcpyHostToHost with an array).
    let on_device = |r: CudaResult<Dir>| r.map_err(|_| cudaErrorInvalidValue);
    let dir = match (p.srcArray.is_null(), p.dstArray.is_null()) {
        (false, false) => on_device(on_device(dir.array_src())?.array_dst())?,
        (false, true) => on_device(dir.array_src())?,
        (true, false) => on_device(dir.array_dst())?,
        (true, true) => dir,
    };
    convert_3d(p.srcArray, p.srcPos, &p.srcPtr, p.dstArray, p.dstPos, &p.dstPtr, p.extent, dir.src_type(), dir.dst_type())
}

/// `cudaMemcpy3D` / `cudaMemcpy3DAsync`.
pub fn memcpy_3d(p: Option<&cudaMemcpy3DParms>, on: On, m: StreamMode) -> CudaResult {
    let p = required(p)?;
    enter()?;
    let c = params_3d(p)?;
    if empty(&p.extent) {
        return Ok(());
    }
    run_3d(&c, on, m)
}

/// The primary context of runtime device `ordinal` (retained if needed).
fn device_context(ordinal: c_int) -> CudaResult<CUcontext> {
    runtime()?.device(ordinal)?.primary()
}

/// `cudaMemcpyPeer` / `cudaMemcpyPeerAsync`.
pub fn memcpy_peer(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    count: usize,
    on: On,
) -> CudaResult {
    let (dctx, sctx) = (device_context(dst_device)?, device_context(src_device)?);
    enter()?;
    if count == 0 {
        return Ok(());
    }
    match on {
        None => cu!(cuMemcpyPeer(dptr(dst), dctx, dptr(src), sctx, count)),
        Some(st) => cu!(cuMemcpyPeerAsync(dptr(dst), dctx, dptr(src), sctx, count, st)),
    }
}

/// `cudaMemcpy3DPeer` / `cudaMemcpy3DPeerAsync`: the driver's peer struct
/// is `CUDA_MEMCPY3D` with the contexts in the two reserved slots.
pub fn memcpy_3d_peer(p: Option<&cudaMemcpy3DPeerParms>, on: On, m: StreamMode) -> CudaResult {
    let p = required(p)?;
    let (sctx, dctx) = (device_context(p.srcDevice)?, device_context(p.dstDevice)?);
    enter()?;
    let mut c = convert_3d(
        p.srcArray,
        p.srcPos,
        &p.srcPtr,
        p.dstArray,
        p.dstPos,
        &p.dstPtr,
        p.extent,
        CU_MEMORYTYPE_DEVICE,
        CU_MEMORYTYPE_DEVICE,
    )?;
    if empty(&p.extent) {
        return Ok(());
    }
    (c.reserved0, c.reserved1) = (sctx.cast(), dctx.cast());
    match on {
        None => cu!(mode m; cuMemcpy3DPeer(&c)),
        Some(st) => cu!(mode m; cuMemcpy3DPeerAsync(&c, st)),
    }
}

/// `cudaMemcpyBatchAsync`: the runtime's arrays and attributes have the
/// driver's layout and values and pass through.
#[allow(clippy::too_many_arguments)]
pub fn memcpy_batch(
    dsts: *const *mut c_void,
    srcs: *const *const c_void,
    sizes: *const usize,
    count: usize,
    attrs: *mut cudaMemcpyAttributes,
    attr_idxs: *mut usize,
    num_attrs: usize,
    stream: CUstream,
    m: StreamMode,
) -> CudaResult {
    enter()?;
    cu!(mode m; cuMemcpyBatchAsync(
        dsts.cast_mut().cast(),
        srcs.cast_mut().cast(),
        sizes.cast_mut(),
        count,
        attrs,
        attr_idxs,
        num_attrs,
        stream
    ))
}

/// `cudaMemcpy3DBatchAsync`: `cudaMemcpy3DBatchOp` is laid out like the
/// driver's `CUDA_MEMCPY3D_BATCH_OP` and passes through.
pub fn memcpy_3d_batch(n: usize, ops: *mut cudaMemcpy3DBatchOp, flags: c_ulonglong, stream: CUstream, m: StreamMode) -> CudaResult {
    enter()?;
    cu!(mode m; cuMemcpy3DBatchAsync(n, ops, flags, stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_to_memory_types() {
        assert_eq!(Dir::of(cudaMemcpyHostToDevice), Ok(Dir::HostToDevice));
        assert_eq!(Dir::of(cudaMemcpyKind(5)), Err(cudaErrorInvalidMemcpyDirection));
        assert_eq!(Dir::of(cudaMemcpyKind(-1)), Err(cudaErrorInvalidMemcpyDirection));
        assert_eq!((Dir::HostToDevice.src_type(), Dir::HostToDevice.dst_type()), (CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE));
        assert_eq!((Dir::DeviceToHost.src_type(), Dir::DeviceToHost.dst_type()), (CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST));
        assert_eq!(Dir::Default.src_type(), CU_MEMORYTYPE_UNIFIED);
        assert_eq!(Dir::HostToHost.array_dst(), Err(cudaErrorInvalidMemcpyDirection));
        assert_eq!(Dir::DeviceToHost.array_dst(), Err(cudaErrorInvalidMemcpyDirection));
        assert_eq!(Dir::HostToDevice.array_src(), Err(cudaErrorInvalidMemcpyDirection));
        assert_eq!(Dir::Default.array_src().and_then(Dir::array_dst), Ok(Dir::Default));
    }

    #[test]
    fn a_3d_copy_fills_the_driver_struct_and_narrows_to_2d() {
        let h = 0x1000 as *const c_void;
        let d = 0x2000 as *const c_void;
        let a = 0x3000 as CUarray;
        let src = End::Ptr { p: h, pitch: 64, height: 8, ty: CU_MEMORYTYPE_HOST };
        let dst = End::Ptr { p: d, pitch: 128, height: 4, ty: CU_MEMORYTYPE_DEVICE };
        let c = copy_3d(src, At { x: 1, y: 2, z: 3 }, dst, At { x: 4, y: 5, z: 6 }, 10, 3, 2);
        assert_eq!((c.srcMemoryType, c.srcHost, c.srcDevice), (CU_MEMORYTYPE_HOST, h, 0));
        assert_eq!((c.srcXInBytes, c.srcY, c.srcZ, c.srcPitch, c.srcHeight), (1, 2, 3, 64, 8));
        assert_eq!((c.dstMemoryType, c.dstDevice, c.dstHost), (CU_MEMORYTYPE_DEVICE, 0x2000, std::ptr::null_mut()));
        assert_eq!((c.dstXInBytes, c.dstY, c.dstZ, c.dstPitch, c.dstHeight), (4, 5, 6, 128, 4));
        assert_eq!((c.WidthInBytes, c.Height, c.Depth), (10, 3, 2));
        assert!(c.reserved0.is_null() && c.reserved1.is_null() && c.srcArray.is_null());

        let c = copy_3d(End::Array(a), At { x: 8, y: 1, z: 0 }, dst, At::default(), 16, 2, 1);
        let n = narrow(&c);
        assert_eq!((n.srcMemoryType, n.srcArray, n.srcXInBytes, n.srcY), (CU_MEMORYTYPE_ARRAY, a, 8, 1));
        assert_eq!((n.dstMemoryType, n.dstDevice, n.dstPitch), (CU_MEMORYTYPE_DEVICE, 0x2000, 128));
        assert_eq!((n.WidthInBytes, n.Height), (16, 2));
    }

    #[test]
    fn driver_structs_have_cuda_13_sizes() {
        assert_eq!(std::mem::size_of::<CUDA_MEMCPY2D>(), 128);
        assert_eq!(std::mem::size_of::<CUDA_MEMCPY3D>(), 200);
        assert_eq!(std::mem::size_of::<crate::driver::api::CUDA_ARRAY3D_DESCRIPTOR>(), 40);
        assert_eq!(std::mem::size_of::<cudaMemcpy3DBatchOp>(), 112, "sizeof(CUDA_MEMCPY3D_BATCH_OP)");
        assert_eq!(std::mem::size_of::<cudaMemcpyAttributes>(), 24);
    }
}
