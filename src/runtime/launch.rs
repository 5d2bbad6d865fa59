//! Kernel launches and function attributes.
//!
//! Every launch path ends in the driver's `cuLaunchKernel` (or `...Ex`,
//! `...CooperativeKernel`) on a `CUkernel` passed as a `CUfunction`: the
//! driver accepts a kernel there and uses the current context's module,
//! loading it into that context at first use.
//!
//! `<<<>>>` from nvcc 13: `__cudaPushCallConfiguration` (per-thread stack),
//! the stub's `__cudaPopCallConfiguration`, `__cudaGetKernel` once per stub,
//! then `__cudaLaunchKernel[_ptsz]`: one context check and one driver call.

use crate::runtime::required;
use super::{out_first, registry};
use crate::driver::api::CUlaunchConfig;
use crate::driver::{CUfunction, CUkernel, StreamMode};
use crate::types::*;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_uint, c_void};

/// One `<<<grid, block, shared, stream>>>` configuration.
#[derive(Clone, Copy)]
struct CallConfig {
    grid: dim3,
    block: dim3,
    shared: usize,
    stream: cudaStream_t,
}

thread_local! {
    /// Pushed by `__cudaPushCallConfiguration`, popped by the stub. A stack:
    /// a kernel argument expression may itself launch a kernel.
    static CONFIGS: RefCell<Vec<CallConfig>> = const { RefCell::new(Vec::new()) };
}

/// `__cudaPushCallConfiguration`: 0 on success.
pub fn push_config(grid: dim3, block: dim3, shared: usize, stream: cudaStream_t) -> c_uint {
    let c = CallConfig { grid, block, shared, stream };
    match CONFIGS.try_with(|s| s.borrow_mut().push(c)) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

/// `__cudaPopCallConfiguration`: `cudaErrorMissingConfiguration` when the
/// stack is empty (a stub called without `<<<>>>`).
pub fn pop_config(grid: *mut dim3, block: *mut dim3, shared: *mut usize, stream: *mut c_void) -> CudaResult {
    let c = CONFIGS
        .try_with(|s| s.borrow_mut().pop())
        .ok()
        .flatten()
        .ok_or(cudaErrorMissingConfiguration)?;
    // SAFETY: the stub passes addresses of its locals; NULL is skipped.
    unsafe {
        if let Some(g) = grid.as_mut() {
            *g = c.grid;
        }
        if let Some(b) = block.as_mut() {
            *b = c.block;
        }
        if let Some(s) = shared.as_mut() {
            *s = c.shared;
        }
        if let Some(s) = stream.cast::<cudaStream_t>().as_mut() {
            *s = c.stream;
        }
    }
    Ok(())
}

/// The one check made before the driver sees a launch: dynamic shared
/// memory must fit the driver's 32-bit field. Dimensions go to the driver
/// unchecked, and its answer comes back unchanged: NVIDIA's runtime reports
/// the driver's `cudaErrorInvalidValue` for empty or oversized grids and
/// blocks (measured on H100, CUDA 13.0).
#[inline(always)]
pub(super) fn shared_bytes(shared: usize) -> CudaResult<c_uint> {
    c_uint::try_from(shared).map_err(|_| cudaErrorInvalidValue)
}

/// Launch `kernel` in the current context.
#[inline(always)]
pub fn launch_kernel(
    kernel: CUkernel,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: cudaStream_t,
    mode: StreamMode,
) -> CudaResult {
    let shared = shared_bytes(shared)?;
    super::context::enter()?;
    cu!(mode mode; cuLaunchKernel(
        kernel as CUfunction,
        grid.x, grid.y, grid.z,
        block.x, block.y, block.z,
        shared, stream, args, std::ptr::null_mut()
    ))
}

/// `__cudaLaunchKernel[_ptsz]`: the handle comes from `__cudaGetKernel`.
#[inline(always)]
pub fn launch_from_stub(
    kernel: CUkernel,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: cudaStream_t,
    mode: StreamMode,
) -> CudaResult {
    let k = registry::stub_kernel(kernel)?;
    launch_kernel(k, grid, block, args, shared, stream, mode)
}

/// `cudaLaunchKernel[_ptsz]`: `func` is a host stub or a `cudaKernel_t`.
pub fn launch(func: *const c_void, grid: dim3, block: dim3, args: *mut *mut c_void, shared: usize, stream: cudaStream_t, mode: StreamMode) -> CudaResult {
    let k = registry::resolve(func)?;
    launch_kernel(k, grid, block, args, shared, stream, mode)
}

/// `cudaLaunchCooperativeKernel[_ptsz]`.
pub fn launch_cooperative(func: *const c_void, grid: dim3, block: dim3, args: *mut *mut c_void, shared: usize, stream: cudaStream_t, mode: StreamMode) -> CudaResult {
    let k = registry::resolve(func)?;
    let shared = shared_bytes(shared)?;
    super::context::enter()?;
    cu!(mode mode; cuLaunchCooperativeKernel(
        k as CUfunction, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, stream, args
    ))
}

/// A runtime launch configuration as the driver's. The attribute arrays
/// share one layout and numbering, so the pointer passes through.
pub fn driver_config(c: &cudaLaunchConfig_t) -> CudaResult<CUlaunchConfig> {
    if c.numAttrs > 0 && c.attrs.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    let shared = shared_bytes(c.dynamicSmemBytes)?;
    Ok(CUlaunchConfig {
        gridDimX: c.gridDim.x,
        gridDimY: c.gridDim.y,
        gridDimZ: c.gridDim.z,
        blockDimX: c.blockDim.x,
        blockDimY: c.blockDim.y,
        blockDimZ: c.blockDim.z,
        sharedMemBytes: shared,
        hStream: c.stream,
        attrs: c.attrs,
        numAttrs: c.numAttrs,
    })
}

/// `cudaLaunchKernelExC[_ptsz]`.
pub fn launch_ex(config: Option<&cudaLaunchConfig_t>, func: *const c_void, args: *mut *mut c_void, mode: StreamMode) -> CudaResult {
    let c = required(config)?;
    let k = registry::resolve(func)?;
    let dc = driver_config(c)?;
    super::context::enter()?;
    cu!(mode mode; cuLaunchKernelEx(&dc, k as CUfunction, args, std::ptr::null_mut()))
}

/// `CU_FUNC_ATTRIBUTE_*` numbers (the runtime's `cudaFuncAttribute` values
/// from 8 on are the same numbers).
mod attr {
    pub const MAX_THREADS_PER_BLOCK: i32 = 0;
    pub const SHARED_SIZE_BYTES: i32 = 1;
    pub const CONST_SIZE_BYTES: i32 = 2;
    pub const LOCAL_SIZE_BYTES: i32 = 3;
    pub const NUM_REGS: i32 = 4;
    pub const PTX_VERSION: i32 = 5;
    pub const BINARY_VERSION: i32 = 6;
    pub const CACHE_MODE_CA: i32 = 7;
    pub const MAX_DYNAMIC_SHARED_SIZE_BYTES: i32 = 8;
    pub const PREFERRED_SHARED_MEMORY_CARVEOUT: i32 = 9;
    pub const CLUSTER_SIZE_MUST_BE_SET: i32 = 10;
    pub const REQUIRED_CLUSTER_WIDTH: i32 = 11;
    pub const REQUIRED_CLUSTER_HEIGHT: i32 = 12;
    pub const REQUIRED_CLUSTER_DEPTH: i32 = 13;
    pub const NON_PORTABLE_CLUSTER_SIZE_ALLOWED: i32 = 14;
    pub const CLUSTER_SCHEDULING_POLICY_PREFERENCE: i32 = 15;
    // CUDA 13.5.
    pub const DEVICE_NODE_UPDATE_SUPPORTED: i32 = 16;
    pub const SHARED_MEMORY_MODE: i32 = 17;
}

/// The kernel of `func` and the driver handle of the current device.
fn kernel_and_device(func: *const c_void) -> CudaResult<(CUkernel, crate::driver::CUdevice)> {
    let k = registry::resolve(func)?;
    let (_, dev) = super::context::enter()?;
    Ok((k, registry::cu_device(dev)?))
}

/// `cudaFuncGetAttributes`.
pub fn func_attributes(out: Option<&mut cudaFuncAttributes>, func: *const c_void) -> CudaResult {
    let out = super::required(out)?;
    let (k, dev) = kernel_and_device(func)?;
    let get = |a: c_int| -> CudaResult<c_int> {
        let mut v = 0;
        cu!(cuKernelGetAttribute(&mut v, a, k, dev))?;
        Ok(v)
    };
    let mut r = cudaFuncAttributes {
        sharedSizeBytes: get(attr::SHARED_SIZE_BYTES)? as usize,
        constSizeBytes: get(attr::CONST_SIZE_BYTES)? as usize,
        localSizeBytes: get(attr::LOCAL_SIZE_BYTES)? as usize,
        maxThreadsPerBlock: get(attr::MAX_THREADS_PER_BLOCK)?,
        numRegs: get(attr::NUM_REGS)?,
        ptxVersion: get(attr::PTX_VERSION)?,
        binaryVersion: get(attr::BINARY_VERSION)?,
        cacheModeCA: get(attr::CACHE_MODE_CA)?,
        maxDynamicSharedSizeBytes: get(attr::MAX_DYNAMIC_SHARED_SIZE_BYTES)?,
        preferredShmemCarveout: get(attr::PREFERRED_SHARED_MEMORY_CARVEOUT)?,
        ..Default::default()
    };
    // Cluster attributes exist from sm_90; older devices answer
    // "not supported" and keep 0, as NVIDIA's runtime reports them.
    r.clusterDimMustBeSet = get(attr::CLUSTER_SIZE_MUST_BE_SET).unwrap_or(0);
    r.requiredClusterWidth = get(attr::REQUIRED_CLUSTER_WIDTH).unwrap_or(0);
    r.requiredClusterHeight = get(attr::REQUIRED_CLUSTER_HEIGHT).unwrap_or(0);
    r.requiredClusterDepth = get(attr::REQUIRED_CLUSTER_DEPTH).unwrap_or(0);
    r.clusterSchedulingPolicyPreference = get(attr::CLUSTER_SCHEDULING_POLICY_PREFERENCE).unwrap_or(0);
    r.nonPortableClusterSizeAllowed = get(attr::NON_PORTABLE_CLUSTER_SIZE_ALLOWED).unwrap_or(0);
    // CUDA 13.5's fields: the driver's answers as NVIDIA's 13.5 runtime
    // passes them on (driver 580 answers 0 and, for the mode, 49152:
    // measured on H100), 0 when the driver refuses.
    r.deviceNodeUpdateStatus = get(attr::DEVICE_NODE_UPDATE_SUPPORTED).unwrap_or(0);
    r.sharedMemoryMode = cudaSharedMemoryMode(get(attr::SHARED_MEMORY_MODE).unwrap_or(0));
    *out = r;
    Ok(())
}

/// Attributes a program may set (`cudaFuncSetAttribute`): the runtime
/// rejects the others with `cudaErrorInvalidValue` before the driver.
fn settable(a: cudaFuncAttribute) -> CudaResult<c_int> {
    match a.0 {
        attr::MAX_DYNAMIC_SHARED_SIZE_BYTES
        | attr::PREFERRED_SHARED_MEMORY_CARVEOUT
        | attr::CLUSTER_SIZE_MUST_BE_SET
        | attr::REQUIRED_CLUSTER_WIDTH
        | attr::REQUIRED_CLUSTER_HEIGHT
        | attr::REQUIRED_CLUSTER_DEPTH
        | attr::NON_PORTABLE_CLUSTER_SIZE_ALLOWED
        | attr::CLUSTER_SCHEDULING_POLICY_PREFERENCE => Ok(a.0),
        _ => Err(cudaErrorInvalidValue),
    }
}

/// `cudaFuncSetAttribute`: for the current device.
pub fn set_func_attribute(func: *const c_void, a: cudaFuncAttribute, value: c_int) -> CudaResult {
    let a = settable(a)?;
    let (k, dev) = kernel_and_device(func)?;
    cu!(cuKernelSetAttribute(a, value, k, dev))
}

/// `cudaKernelSetAttributeForDevice`.
pub fn kernel_set_attribute_for_device(kernel: cudaKernel_t, a: cudaFuncAttribute, value: c_int, device: c_int) -> CudaResult {
    let a = settable(a)?;
    let k = registry::resolve(kernel as *const c_void)?;
    let dev = registry::cu_device(device)?;
    cu!(cuKernelSetAttribute(a, value, k, dev))
}

/// `cudaFuncSetCacheConfig`.
pub fn set_cache_config(func: *const c_void, config: cudaFuncCache) -> CudaResult {
    if !(0..=3).contains(&config.0) {
        return Err(cudaErrorInvalidValue);
    }
    let (k, dev) = kernel_and_device(func)?;
    cu!(cuKernelSetCacheConfig(k, config.0, dev))
}

/// The kernel's function in the current context (loads the module there).
pub fn function_in_context(func: *const c_void) -> CudaResult<CUfunction> {
    let k = registry::resolve(func)?;
    super::context::enter()?;
    let mut f = std::ptr::null_mut();
    cu!(cuKernelGetFunction(&mut f, k))?;
    Ok(f)
}

/// `cudaFuncSetSharedMemConfig` (deprecated; a no-op on current GPUs, the
/// driver still validates it).
pub fn set_shared_mem_config(func: *const c_void, config: cudaSharedMemConfig) -> CudaResult {
    if !(0..=2).contains(&config.0) {
        return Err(cudaErrorInvalidValue);
    }
    let f = function_in_context(func)?;
    cu!(cuFuncSetSharedMemConfig(f, config.0))
}

/// `cudaGetKernel`.
pub fn get_kernel(out: Option<&mut CUkernel>, func: *const c_void) -> CudaResult {
    out_first(out, || registry::resolve(func))
}

/// `cudaGetFuncBySymbol`.
pub fn func_by_symbol(out: Option<&mut CUfunction>, func: *const c_void) -> CudaResult {
    out_first(out, || function_in_context(func))
}

/// `cudaFuncGetName`.
pub fn func_name(out: Option<&mut *const c_char>, func: *const c_void) -> CudaResult {
    out_first(out, || registry::func_name(func))
}

/// `cudaFuncGetParamInfo`.
pub fn param_info(func: *const c_void, index: usize, offset: Option<&mut usize>, size: Option<&mut usize>) -> CudaResult {
    let k = registry::resolve(func)?;
    let (mut o, mut s) = (0, 0);
    cu!(cuKernelGetParamInfo(k, index, &mut o, &mut s))?;
    *required(offset)? = o;
    if let Some(sz) = size {
        *sz = s;
    }
    Ok(())
}
