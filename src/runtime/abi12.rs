//! The runtime's answers that exist only for CUDA 12.9's ABI: the calls
//! whose 12 result is a different struct (built here from the runtime's own
//! answer) and the 12 library's runtime version. The 12 exports
//! (src/api/abi12.rs) call these; everything else they call is the runtime
//! the 13 library uses.

use super::{device, out_first, required};
use crate::types::abi12::{DroppedProps, RUNTIME_VERSION, Zeroed, cudaDeviceProp12, cudaPointerAttributes12};
use crate::types::*;
use std::ffi::{c_int, c_void};
use std::mem::MaybeUninit;

/// `cudaRuntimeGetVersion` of the 12 library.
pub fn runtime_version(out: Option<&mut c_int>) -> CudaResult {
    out_first(out, || Ok(RUNTIME_VERSION))
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

/// `cudaLaunchCooperativeKernelMultiDevice` (deprecated since CUDA 11.3,
/// removed in 13.0): not implemented. It answers `cudaErrorNotSupported`
/// (after initialization, as every call) and logs once what to use instead.
pub fn launch_cooperative_multi_device() -> CudaResult {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        log::warn!(
            "cudaLaunchCooperativeKernelMultiDevice is not implemented by cudart-shim; it returns cudaErrorNotSupported. Launch with cudaLaunchCooperativeKernel on each device instead (docs/CUDA12.md)"
        )
    });
    Err(cudaErrorNotSupported)
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

/// 12.9's `cudaMemcpyBatchAsync` and `cudaMemcpy3DBatchAsync` report which
/// copy failed in `failIdx`. The driver's 13 calls do not say, so a failure
/// reports `SIZE_MAX`, the documented "not one copy" answer.
pub fn with_fail_index(fail: Option<&mut usize>, r: CudaResult) -> CudaResult {
    if let (Err(_), Some(f)) = (r, fail) {
        *f = usize::MAX;
    }
    r
}
