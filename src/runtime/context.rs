//! Devices, primary contexts and the thread's current device.
//!
//! Rules (NVIDIA's, measured on CUDA 13.0):
//! - Each thread has a current device, 0 until `cudaSetDevice`.
//! - A call that needs a context uses the thread's current driver context if
//!   the program made one current itself (driver API interop); otherwise the
//!   primary context of the thread's device, retained on first use (once per
//!   device and process) and made current.
//! - `cudaDeviceReset` resets the primary context; the next call that needs
//!   it retains it again. Threads notice through the device's generation.
//!
//! The hot path (context already bound on this thread) is one driver call
//! (`cuCtxGetCurrent`, a thread-local read in the driver), one thread-local
//! read and one atomic load. No lock is taken.

use super::state::{runtime, Runtime};
use crate::driver::{CUcontext, CUdevice};
use crate::types::*;
use parking_lot::Mutex;
use std::cell::Cell;
use std::ffi::c_int;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU32, Ordering};

/// One device of the runtime's table.
pub struct Device {
    pub ordinal: c_int,
    pub cu: CUdevice,
    /// The primary context while retained by us; null before first use and
    /// after a reset.
    primary: AtomicPtr<crate::driver::CUctx_st>,
    /// The primary context's handle as last retained (kept after a reset, so
    /// a thread that still has it current can be recognized).
    primary_handle: AtomicPtr<crate::driver::CUctx_st>,
    /// Bumped by every reset; thread bindings with an older value are stale.
    generation: AtomicU32,
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

/// What this thread last made current through us.
#[derive(Clone, Copy)]
struct Binding {
    ctx: CUcontext,
    device: c_int,
    generation: u32,
}

const UNBOUND: Binding = Binding { ctx: null_mut(), device: -1, generation: 0 };

thread_local! {
    /// Device chosen with cudaSetDevice on this thread (-1: none yet, so 0).
    static CHOSEN: Cell<c_int> = const { Cell::new(-1) };
    static BOUND: Cell<Binding> = const { Cell::new(UNBOUND) };
}

fn chosen_device() -> c_int {
    CHOSEN.try_with(Cell::get).unwrap_or(-1).max(0)
}

fn current_driver_context() -> CudaResult<CUcontext> {
    let mut ctx = null_mut();
    cu!(cuCtxGetCurrent(&mut ctx))?;
    Ok(ctx)
}

/// The context a call runs in, made current if needed, and its device.
///
/// Most exports that touch the device call this first.
#[inline]
pub fn enter() -> CudaResult<(CUcontext, c_int)> {
    let rt = runtime()?;
    let cur = current_driver_context()?;
    if !cur.is_null()
        && let Ok(b) = BOUND.try_with(Cell::get)
        && b.ctx == cur
        && rt.devices[b.device as usize].generation.load(Ordering::Acquire) == b.generation
    {
        return Ok((cur, b.device));
    }
    enter_slow(rt, cur)
}

#[cold]
fn enter_slow(rt: &'static Runtime, cur: CUcontext) -> CudaResult<(CUcontext, c_int)> {
    if !cur.is_null() {
        match rt.devices.iter().find(|d| d.primary_handle.load(Ordering::Relaxed) == cur) {
            // A primary context that is still retained: adopt it.
            Some(d) if d.is_active() => return bind(rt, d.ordinal, cur),
            // A primary context we reset since: retain it again below.
            Some(d) => return make_current(rt, d.ordinal),
            // The program's own context (driver API): use it as is.
            None => {
                let mut dev = 0;
                cu!(cuCtxGetDevice(&mut dev, cur))?;
                return Ok((cur, rt.ordinal_of(dev)?));
            }
        }
    }
    make_current(rt, chosen_device())
}

/// Retain `ordinal`'s primary context and make it current on this thread.
fn make_current(rt: &'static Runtime, ordinal: c_int) -> CudaResult<(CUcontext, c_int)> {
    let d = rt.device(ordinal)?;
    let ctx = d.primary()?;
    cu!(cuCtxSetCurrent(ctx))?;
    bind(rt, ordinal, ctx)
}

fn bind(rt: &'static Runtime, ordinal: c_int, ctx: CUcontext) -> CudaResult<(CUcontext, c_int)> {
    let generation = rt.devices[ordinal as usize].generation.load(Ordering::Acquire);
    let _ = BOUND.try_with(|b| b.set(Binding { ctx, device: ordinal, generation }));
    Ok((ctx, ordinal))
}

/// `cudaGetDevice`: the device of the current context if there is one,
/// else the thread's chosen device (0 by default). Creates no context.
pub fn current_device() -> CudaResult<c_int> {
    let rt = runtime()?;
    let cur = current_driver_context()?;
    if cur.is_null() {
        return Ok(chosen_device());
    }
    if let Ok(b) = BOUND.try_with(Cell::get)
        && b.ctx == cur
    {
        return Ok(b.device);
    }
    if let Some(d) = rt.devices.iter().find(|d| d.primary_handle.load(Ordering::Relaxed) == cur) {
        return Ok(d.ordinal);
    }
    let mut dev = 0;
    cu!(cuCtxGetDevice(&mut dev, cur))?;
    rt.ordinal_of(dev)
}

/// `cudaSetDevice`: choose `ordinal` for this thread and make its primary
/// context current (initializing it, as NVIDIA's runtime does since 12.0).
pub fn set_device(ordinal: c_int) -> CudaResult {
    let rt = runtime()?;
    rt.device(ordinal)?;
    make_current(rt, ordinal)?;
    let _ = CHOSEN.try_with(|c| c.set(ordinal));
    Ok(())
}

/// Unbind the runtime from this thread: its primary context (if current)
/// stops being current and the thread's device choice is forgotten. A
/// context the program made current itself is left alone.
pub fn unbind_thread() -> CudaResult {
    let rt = runtime()?;
    let cur = current_driver_context()?;
    if !cur.is_null() && rt.devices.iter().any(|d| d.primary_handle.load(Ordering::Relaxed) == cur) {
        cu!(cuCtxSetCurrent(null_mut()))?;
    }
    let _ = CHOSEN.try_with(|c| c.set(-1));
    let _ = BOUND.try_with(|b| b.set(UNBOUND));
    Ok(())
}

/// `cudaDeviceReset` of the thread's current device.
pub fn reset_current() -> CudaResult {
    let rt = runtime()?;
    let ordinal = current_device()?;
    rt.device(ordinal)?.reset()
}
