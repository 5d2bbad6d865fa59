//! Process-wide runtime state, created by the first call that needs it.
//!
//! Initialization (as NVIDIA's runtime): load the driver, check its version,
//! `cuInit(0)`, read the device table. No context is created here; that
//! happens per device on first use (see [`super::context`]). The outcome,
//! success or failure, is computed once: with no driver, every call answers
//! `cudaErrorInsufficientDriver` for the life of the process.

use crate::driver::{CUcontext, CUdevice};
use std::ptr::null_mut;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU32};
use crate::types::*;
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

pub struct Runtime {
    /// Indexed by runtime device ordinal.
    pub devices: Box<[Device]>,
}

static RUNTIME: OnceLock<CudaResult<Runtime>> = OnceLock::new();

/// The initialized runtime, or the error initialization ended with.
#[inline(always)]
pub fn runtime() -> CudaResult<&'static Runtime> {
    if FORKED.load(Ordering::Relaxed) {
        return Err(cudaErrorInitializationError);
    }
    match RUNTIME.get() {
        Some(r) => r.as_ref().map_err(|e| *e),
        None => init_slow(),
    }
}

#[cold]
fn init_slow() -> CudaResult<&'static Runtime> {
    RUNTIME.get_or_init(init).as_ref().map_err(|e| *e)
}

/// The oldest driver that implements the CUDA 13.0 API.
const MIN_DRIVER_VERSION: c_int = 13000;

fn init() -> CudaResult<Runtime> {
    crate::config::init_logging();
    crate::trace::set_device_lister(crate::trace::event::process::DeviceSource::Runtime, used_devices);
    if crate::driver::driver().is_err() {
        return Err(cudaErrorInsufficientDriver);
    }
    let mut version = 0;
    cu!(cuDriverGetVersion(&mut version)).map_err(|_| cudaErrorInsufficientDriver)?;
    if version < MIN_DRIVER_VERSION {
        log::warn!(
            "the CUDA driver supports CUDA {}.{}, this runtime needs 13.0: every call returns cudaErrorInsufficientDriver. Update the NVIDIA driver (580 or newer).",
            version / 1000,
            version % 1000 / 10
        );
        return Err(cudaErrorInsufficientDriver);
    }
    if let Err(e) = cu!(cuInit(0)) {
        log::warn!("cuInit failed with {}: no CUDA call can succeed in this process", super::error::name(e));
        return Err(e);
    }
    let mut count = 0;
    cu!(cuDeviceGetCount(&mut count))?;
    let mut devices = Vec::with_capacity(count.max(0) as usize);
    for ordinal in 0..count {
        let mut cu_dev = 0;
        cu!(cuDeviceGet(&mut cu_dev, ordinal))?;
        devices.push(Device::new(ordinal, cu_dev));
    }
    log::debug!("runtime initialized: driver {version}, {count} device(s)");
    install_fork_guard();
    Ok(Runtime { devices: devices.into_boxed_slice() })
}

impl Runtime {
    /// The device with runtime ordinal `ordinal`, or `cudaErrorInvalidDevice`.
    #[inline]
    pub fn device(&self, ordinal: c_int) -> CudaResult<&Device> {
        usize::try_from(ordinal).ok().and_then(|i| self.devices.get(i)).ok_or(cudaErrorInvalidDevice)
    }

    /// The device `ordinal` for the calls whose bad device number NVIDIA's
    /// runtime reports as `cudaErrorInvalidValue`, not `cudaErrorInvalidDevice`
    /// (measured on H100 / CUDA 13.0: memory-pool, atomic-capability,
    /// async-notification and array-requirement queries).
    #[inline]
    pub fn device_arg(&self, ordinal: c_int) -> CudaResult<&Device> {
        self.device(ordinal).map_err(|_| cudaErrorInvalidValue)
    }

    /// Runtime ordinal of a driver device handle.
    pub fn ordinal_of(&self, cu_dev: crate::driver::CUdevice) -> CudaResult<c_int> {
        self.devices.iter().find(|d| d.cu == cu_dev).map(|d| d.ordinal).ok_or(cudaErrorInvalidDevice)
    }

    pub fn count(&self) -> c_int {
        self.devices.len() as c_int
    }
}

/// Ordinals of the devices whose primary context this process retained
/// (for the record in trace files).
fn used_devices() -> Vec<c_int> {
    RUNTIME.get().and_then(|r| r.as_ref().ok()).map_or_else(Vec::new, |r| r.devices.iter().filter(|d| d.was_used()).map(|d| d.ordinal).collect())
}

/// Set in a child process forked after initialization. The driver state does
/// not survive fork: like NVIDIA's runtime, every call in the child returns
/// `cudaErrorInitializationError`, and the child can still exit cleanly.
static FORKED: AtomicBool = AtomicBool::new(false);

extern "C" fn in_forked_child() {
    FORKED.store(true, Ordering::Relaxed);
}

fn install_fork_guard() {
    // SAFETY: registering a handler that only stores to an atomic.
    let r = unsafe { libc::pthread_atfork(None, None, Some(in_forked_child)) };
    if r != 0 {
        log::debug!("pthread_atfork failed ({r}): a forked child will see driver errors instead of cudaErrorInitializationError");
    }
}

/// One device of the runtime's table.
pub struct Device {
    pub ordinal: c_int,
    pub cu: CUdevice,
    /// The primary context while retained by us; null before first use and
    /// after a reset.
    primary: AtomicPtr<crate::driver::CUctx_st>,
    /// The primary context's handle as last retained (kept after a reset, so
    /// a thread that still has it current can be recognized).
    pub(super) primary_handle: AtomicPtr<crate::driver::CUctx_st>,
    /// Bumped by every reset; thread bindings with an older value are stale.
    pub(super) generation: AtomicU32,
    /// Serializes retain and reset of this device (never on the hot path).
    lock: Mutex<()>,
    /// What `cudaGetDeviceFlags` reports (see `runtime::device::flags`).
    runtime_flags: AtomicU32,
    /// `cudaDeviceGetAttribute` values by attribute number; `UNCACHED` until
    /// first asked.
    attributes: [AtomicI32; ATTRIBUTE_SLOTS],
}

const ATTRIBUTE_SLOTS: usize = 160;
const UNCACHED: i32 = i32::MIN;

impl Device {
    /// Whether this process ever retained the device's primary context.
    pub fn was_used(&self) -> bool {
        !self.primary_handle.load(Ordering::Relaxed).is_null()
    }

    pub fn new(ordinal: c_int, cu: CUdevice) -> Self {
        Device {
            ordinal,
            cu,
            primary: AtomicPtr::new(null_mut()),
            primary_handle: AtomicPtr::new(null_mut()),
            generation: AtomicU32::new(0),
            lock: Mutex::new(()),
            runtime_flags: AtomicU32::new(crate::types::cudaDeviceMapHost),
            attributes: [const { AtomicI32::new(UNCACHED) }; ATTRIBUTE_SLOTS],
        }
    }

    pub fn runtime_flags(&self) -> u32 {
        self.runtime_flags.load(Ordering::Relaxed)
    }

    pub fn set_runtime_flags(&self, flags: u32) {
        self.runtime_flags.store(flags, Ordering::Relaxed);
    }

    /// A device attribute asked before (attributes never change).
    #[inline]
    pub fn cached_attribute(&self, attr: c_int) -> Option<c_int> {
        let v = self.attributes.get(usize::try_from(attr).ok()?)?.load(Ordering::Relaxed);
        (v != UNCACHED).then_some(v)
    }

    pub fn cache_attribute(&self, attr: c_int, value: c_int) {
        if let Some(slot) = usize::try_from(attr).ok().and_then(|i| self.attributes.get(i)) {
            slot.store(value, Ordering::Relaxed);
        }
    }

    /// The primary context, retained now if it is not.
    pub fn primary(&self) -> CudaResult<CUcontext> {
        let p = self.primary.load(Ordering::Acquire);
        if !p.is_null() {
            return Ok(p);
        }
        let _g = self.lock.lock();
        let p = self.primary.load(Ordering::Acquire);
        if !p.is_null() {
            return Ok(p);
        }
        let mut ctx = null_mut();
        cu!(cuDevicePrimaryCtxRetain(&mut ctx, self.cu))?;
        self.primary_handle.store(ctx, Ordering::Relaxed);
        self.primary.store(ctx, Ordering::Release);
        Ok(ctx)
    }

    /// Whether `ctx` is this device's primary context as retained now
    /// (one atomic load; the caching allocator keeps only such blocks,
    /// since a reset of the primary context frees them).
    #[inline]
    pub fn is_primary(&self, ctx: CUcontext) -> bool {
        !ctx.is_null() && self.primary.load(Ordering::Acquire) == ctx
    }

    /// Whether the primary context is retained (initialized) now.
    pub fn is_active(&self) -> bool {
        !self.primary.load(Ordering::Acquire).is_null()
    }

    /// Reset the primary context: all its allocations, streams and events
    /// are destroyed. Hooks registered with [`on_reset`] run first.
    pub fn reset(&self) -> CudaResult {
        let _g = self.lock.lock();
        for hook in RESET_HOOKS.lock().iter() {
            hook(self.ordinal);
        }
        cu!(cuDevicePrimaryCtxReset(self.cu))?;
        self.primary.store(null_mut(), Ordering::Release);
        // NVIDIA's runtime reports 0 from cudaGetDeviceFlags after a reset.
        self.runtime_flags.store(0, Ordering::Relaxed);
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}

static RESET_HOOKS: Mutex<Vec<fn(c_int)>> = Mutex::new(Vec::new());

/// Run `hook(device)` before every `cudaDeviceReset` of a device (state
/// that lives in the primary context: caches, pools, loaded modules).
pub fn on_reset(hook: fn(c_int)) {
    RESET_HOOKS.lock().push(hook);
}
