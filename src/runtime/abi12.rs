//! The runtime's answers that exist only for CUDA 12.9's ABI: the calls
//! whose 12 result is a different struct (built here from the runtime's own
//! answer), the 12 library's runtime version, and the calls on driver entry
//! points 13.0 changed or dropped, asked for at their 12.x version
//! (driver/cuda12.rs): the multi-device cooperative launch, the plain
//! elapsed time, the batched copies with a failure index. The 12 exports
//! (src/api/abi12.rs) call these; everything else they call is the runtime
//! the 13 library uses.

use super::{device, out_first, registry, required};
use crate::driver::api::CUDA_LAUNCH_PARAMS;
use crate::driver::{CUfunction, CUkernel};
use crate::types::abi12::{DroppedProps, RUNTIME_VERSION, Zeroed, cudaDeviceProp12, cudaLaunchParams, cudaPointerAttributes12};
use crate::types::*;
use crate::driver::StreamMode;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::ptr::null_mut;
use std::mem::MaybeUninit;

/// `cudaRuntimeGetVersion` of the 12 library: the rule of the 13 one
/// (`version::reported`) over 12.9's version.
pub fn runtime_version(out: Option<&mut c_int>) -> CudaResult {
    out_first(out, || Ok(super::version::reported(RUNTIME_VERSION)))
}

/// `cudaGetDeviceProperties` (plain and `_v2`) with 12.9's struct: the
/// runtime's properties, plus the fields 13.0 dropped from their device
/// attributes, written as the first `out.len()` bytes of 12.9's struct (the
/// export sizes `out` to what that form writes).
pub fn device_properties(out: Option<&mut [u8]>, ordinal: c_int) -> CudaResult {
    let out = required(out)?;
    let mut p = cudaDeviceProp::default();
    device::properties(Some(&mut p), ordinal)?;
    let a = |attr: cudaDeviceAttr| {
        let mut v = 0;
        device::attribute(Some(&mut v), attr, ordinal).map(|()| v)
    };
    let dropped = DroppedProps {
        clockRate: a(cudaDevAttrClockRate)?,
        deviceOverlap: a(cudaDevAttrGpuOverlap)?,
        kernelExecTimeoutEnabled: a(cudaDevAttrKernelExecTimeout)?,
        computeMode: a(cudaDevAttrComputeMode)?,
        maxTexture1DLinear: a(cudaDevAttrMaxTexture1DLinearWidth)?,
        memoryClockRate: a(cudaDevAttrMemoryClockRate)?,
        singleToDoublePrecisionPerfRatio: a(cudaDevAttrSingleToDoublePrecisionPerfRatio)?,
        // 12.9's cudaDevAttrCooperativeMultiDeviceLaunch; 13.x calls 96 Reserved96.
        cooperativeMultiDeviceLaunch: a(cudaDevAttrReserved96)?,
    };
    let p12 = cudaDeviceProp12::from_runtime(&p, dropped);
    let bytes = p12.prefix(out.len());
    out[..bytes.len()].copy_from_slice(bytes);
    Ok(())
}

/// `cudaPointerGetAttributes` with 12.9's 24-byte struct.
pub fn pointer_attributes(out: Option<&mut cudaPointerAttributes12>, ptr: *const c_void) -> CudaResult {
    let out = required(out)?;
    // SAFETY: all-zero is a valid cudaPointerAttributes (integers, pointers).
    let mut a: cudaPointerAttributes = unsafe { std::mem::zeroed() };
    super::memory::pointer_attributes(Some(&mut a), ptr)?;
    *out = cudaPointerAttributes12::from(&a);
    Ok(())
}

/// How many entries of `cudaLaunchCooperativeKernelMultiDevice`'s list the
/// export may read: one per device at most (12.9 launches on distinct
/// devices), and at least one. Checked before the list is read, so a
/// count beyond the caller's array is refused rather than read.
/// `cudaErrorInvalidValue` otherwise (12.9 documents no code for it; the
/// GPU probe, tests/cu12/abi12_probe.c, records NVIDIA's).
pub fn multi_device_count(n: c_uint) -> CudaResult<usize> {
    let devices = super::state::runtime()?.devices.len();
    let n = n as usize;
    if n == 0 || n > devices {
        return Err(cudaErrorInvalidValue);
    }
    Ok(n)
}

/// `cudaLaunchCooperativeKernelMultiDevice` (12.9 only; deprecated since
/// 11.3): each entry's kernel, which must be a registered host stub, becomes
/// the `CUfunction` of its stream's context, and the driver's
/// `cuLaunchCooperativeKernelMultiDevice` launches them all, with `flags`
/// (`cudaCooperativeLaunchMultiDeviceNoPreSync`/`NoPostSync`, the driver's
/// numbers) passed through. The driver judges what 12.9 leaves to it: the
/// streams (no NULL or special stream), distinct and identical devices,
/// matching shapes, the flags. A NULL list is `cudaErrorInvalidValue`.
pub fn launch_cooperative_multi_device(list: Option<&[cudaLaunchParams]>, flags: c_uint) -> CudaResult {
    let list = required(list)?;
    super::context::enter()?;
    // Every entry's function is judged before its stream or the flags: 12.9
    // answers a NULL function or a `cudaKernel_t` (no host stub) with
    // `cudaErrorInvalidDeviceFunction` whatever the rest of the list holds
    // (H100, tests/cu12/abi12_probe.c).
    let kernels = list
        .iter()
        .map(|p| registry::function(p.func).ok_or(cudaErrorInvalidDeviceFunction)?.kernel())
        .collect::<CudaResult<Vec<CUkernel>>>()?;
    let mut params = Vec::with_capacity(list.len());
    for (p, &k) in list.iter().zip(&kernels) {
        let f = function_in_stream_context(k, p.stream)?;
        params.push(CUDA_LAUNCH_PARAMS {
            function: f,
            gridDimX: p.gridDim.x,
            gridDimY: p.gridDim.y,
            gridDimZ: p.gridDim.z,
            blockDimX: p.blockDim.x,
            blockDimY: p.blockDim.y,
            blockDimZ: p.blockDim.z,
            sharedMemBytes: super::launch::shared_bytes(p.sharedMem)?,
            hStream: p.stream,
            kernelParams: p.args,
        });
    }
    cu!(cuLaunchCooperativeKernelMultiDevice(params.as_mut_ptr(), params.len() as c_uint, flags))
}

/// `k`'s function in the context `stream` belongs to (the current one for
/// the NULL and special streams, which the driver then refuses): made
/// current for the lookup only, so the thread's context is unchanged.
fn function_in_stream_context(k: CUkernel, stream: cudaStream_t) -> CudaResult<CUfunction> {
    let (mut ctx, mut green) = (null_mut(), null_mut());
    cu!(cuStreamGetCtx(stream, &mut ctx, &mut green))?;
    if ctx.is_null() && !green.is_null() {
        cu!(cuCtxFromGreenCtx(&mut ctx, green))?;
    }
    cu!(cuCtxPushCurrent(ctx))?;
    let mut f = null_mut();
    let r = cu!(cuKernelGetFunction(&mut f, k));
    let mut popped = null_mut();
    let popped_ok = cu!(cuCtxPopCurrent(&mut popped));
    r?;
    popped_ok?;
    Ok(f)
}

/// 12.9's plain `cudaEventElapsedTime`: the driver's plain
/// `cuEventElapsedTime` as CUDA 12.0 to 12.7 define it (`_v2000`), which
/// 12.9's library keeps for this form; its `_v2` form, like 13's
/// `cudaEventElapsedTime`, calls `cuEventElapsedTime_v2` (12.8), which
/// no longer promises to report the latest errors of pending work. The
/// arguments are judged as for every form (`event::elapsed_by`).
pub fn elapsed_plain(ms: Option<&mut f32>, start: cudaEvent_t, end: cudaEvent_t) -> CudaResult {
    super::event::elapsed_by(&crate::driver::api::cuEventElapsedTime_v1, ms, start, end)
}

/// A getter whose struct 13.0 lengthened (resource and view descriptors):
/// `get` answers in the runtime's struct, and the caller's `out` (12.9's
/// size: the export sizes it) receives its first bytes, which are 12.9's
/// fields. 13's extra fields (`cudaResourceDesc::flags`, reserved words)
/// have nowhere to go.
pub fn narrowed<T: Zeroed>(out: Option<&mut [MaybeUninit<u8>]>, get: impl FnOnce(Option<&mut T>) -> CudaResult) -> CudaResult {
    let Some(out) = out else { return get(None) };
    let mut full = T::zeroed();
    get(Some(&mut full))?;
    let n = out.len().min(size_of::<T>());
    // SAFETY: `full` is a live T of at least `n` bytes; `out` holds `n`
    // bytes; MaybeUninit<u8> takes any byte, padding included.
    unsafe { std::ptr::copy_nonoverlapping((&raw const full).cast::<MaybeUninit<u8>>(), out.as_mut_ptr(), n) };
    Ok(())
}

/// `cudaChooseDevice` with 12.9's `cudaDeviceProp`.
pub fn choose_device(out: Option<&mut c_int>, want: Option<&cudaDeviceProp12>) -> CudaResult {
    let want = want.map(cudaDeviceProp::from);
    device::choose(out, want.as_ref())
}

/// 12.9's `cudaMemcpyBatchAsync[_ptsz]`: the driver's 12.8 entry point,
/// which reports the failing copy's index in `fail` as 12.9 documents it
/// (`SIZE_MAX` when the failure is not one copy's); NULL goes to the
/// driver as NULL, for it to judge. The arrays are the 13 form's.
#[allow(clippy::too_many_arguments)]
pub fn memcpy_batch(
    dsts: *const *mut c_void,
    srcs: *const *const c_void,
    sizes: *const usize,
    count: usize,
    attrs: *mut cudaMemcpyAttributes,
    attr_idxs: *mut usize,
    num_attrs: usize,
    fail: Option<&mut usize>,
    stream: cudaStream_t,
    m: StreamMode,
) -> CudaResult {
    super::context::enter()?;
    let fail = fail.map_or(null_mut(), |f| f as *mut usize);
    cu!(mode m; cuMemcpyBatchAsync_v12080(dsts.cast_mut().cast(), srcs.cast_mut().cast(), sizes.cast_mut(), count, attrs, attr_idxs, num_attrs, fail, stream))
}

/// 12.9's `cudaMemcpy3DBatchAsync[_ptsz]`, with the failure index as
/// `memcpy_batch`.
pub fn memcpy_3d_batch(n: usize, ops: *mut cudaMemcpy3DBatchOp, fail: Option<&mut usize>, flags: c_ulonglong, stream: cudaStream_t, m: StreamMode) -> CudaResult {
    super::context::enter()?;
    let fail = fail.map_or(null_mut(), |f| f as *mut usize);
    cu!(mode m; cuMemcpy3DBatchAsync_v12080(n, ops, fail, flags, stream))
}

/// 12.9's plain `cudaMemAdvise`: the device number goes to the driver's
/// device form (`cuMemAdvise_v1`), as a runtime ordinal's `CUdevice`, the
/// host (`cudaCpuDeviceId`, which is `CU_DEVICE_CPU`), or any other number
/// as it is, for the driver to judge: advice that names no device ignores
/// it, the others answer `cudaErrorInvalidDevice` (the location form of
/// 13 says invalid value there).
pub fn advise_device(p: *const c_void, count: usize, advice: cudaMemoryAdvise, device: c_int) -> CudaResult {
    super::context::enter()?;
    let dev = if device == cudaCpuDeviceId { device } else { registry::cu_device(device).unwrap_or(device) };
    cu!(cuMemAdvise_v1(super::memory::dptr(p), count, advice.0, dev))
}

/// A launch's answer in 12.9's terms. 12.9's runtime judges a launch's
/// shape itself and calls a grid or block the device cannot run (an empty
/// dimension, a dimension or a block's thread count past the device's
/// limit) `cudaErrorInvalidConfiguration`; 13.x leaves the shape to the
/// driver, whose answer is invalid value (both measured on an H100,
/// tests/gpu/kernels_launch.cu built for each ABI). Only a launch that
/// failed with invalid value is looked at, so a good launch costs nothing.
pub fn launch_shape_answer(r: CudaResult, grid: dim3, block: dim3) -> CudaResult {
    match r {
        Err(cudaErrorInvalidValue) if !shape_fits(grid, block) => Err(cudaErrorInvalidConfiguration),
        r => r,
    }
}

/// Whether the current device can run a grid `grid` of blocks `block`;
/// `true` when its limits cannot be read (the driver's answer then stands).
fn shape_fits(grid: dim3, block: dim3) -> bool {
    if [grid.x, grid.y, grid.z, block.x, block.y, block.z].contains(&0) {
        return false;
    }
    let Ok((_, dev)) = super::context::enter() else { return true };
    let limit = |a: cudaDeviceAttr| {
        let mut v = 0;
        device::attribute(Some(&mut v), a, dev).map_or(u64::MAX, |()| v as u32 as u64)
    };
    let threads = u64::from(block.x) * u64::from(block.y) * u64::from(block.z);
    u64::from(block.x) <= limit(cudaDevAttrMaxBlockDimX)
        && u64::from(block.y) <= limit(cudaDevAttrMaxBlockDimY)
        && u64::from(block.z) <= limit(cudaDevAttrMaxBlockDimZ)
        && threads <= limit(cudaDevAttrMaxThreadsPerBlock)
        && u64::from(grid.x) <= limit(cudaDevAttrMaxGridDimX)
        && u64::from(grid.y) <= limit(cudaDevAttrMaxGridDimY)
        && u64::from(grid.z) <= limit(cudaDevAttrMaxGridDimZ)
}
