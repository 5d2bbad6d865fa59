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
use crate::driver::CUcontext;
use crate::types::*;
use std::cell::Cell;
use std::ffi::c_int;
use std::ptr::null_mut;
use std::sync::atomic::Ordering;


pub use super::state::on_reset;

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
    // From the first binding on (the runtime is initialized, so asking it
    // cannot wait for its own initialization): the faults stage's `device=`
    // and sticky rules ask the runtime for the calling thread's device.
    crate::control::faults::set_device_query(|| current_device().ok());
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
