//! Process-wide runtime state, created by the first call that needs it.
//!
//! Initialization (as NVIDIA's runtime): load the driver, check its version,
//! `cuInit(0)`, read the device table. No context is created here; that
//! happens per device on first use (see [`super::context`]). The outcome,
//! success or failure, is computed once: with no driver, every call answers
//! `cudaErrorInsufficientDriver` for the life of the process.

use super::context::Device;
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
    crate::trace::set_symbol_namer(super::registry::trace_name);
    crate::trace::set_device_lister(used_devices);
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
