//! Progress state: what the program has asked of the GPU and how far it
//! got, readable from another thread at any time without a lock.
//!
//! Kept only while something asks for it ([`enable`]: the watchdog, the
//! metrics); with it off, a call pays one relaxed load of the pipeline's
//! switch word (the bit `switch::PROGRESS`), as for every other capability.
//!
//! What it holds:
//! - **per thread** ([`Slot`]): the outermost CUDA call the thread is in
//!   (function id and the means to decode its arguments), with a
//!   generation number (odd: in a call) that a reader checks before and
//!   after it copies the rest (a sequence lock; the writer never waits),
//!   and its open NVTX push/pop ranges (copied text, same rule);
//! - **per stream** ([`StreamRec`]): kernels launched (a sequence number
//!   per stream, one relaxed increment per launch) and completed (moved by
//!   whoever knows: the watchdog's probe, CUPTI's records), the last [`RING`] launches
//!   (function, grid, block, time, thread, sequence number), and the last
//!   `cudaStreamWaitEvent`/`cuStreamWaitEvent` edges into the stream;
//!   with exact completion on ([`link_launches`]: the watchdog with `gpu`),
//!   the id each launch pushed for CUPTI (the last [`LINK_RING`]), which
//!   CUPTI's kernel records carry back ([`finished`]);
//! - **per NCCL operation** (from `ncclDevKernel_<Op>_...` names): kernels
//!   launched, and completed as the probe learns it;
//! - the **last progress time**: the last time a call returned or a
//!   stream's completed count moved.
//!
//! Both layers feed it through one place each: `crate::entry` (runtime
//! exports) and `crate::intercept::driver` (driver calls reported by the
//! interposer) call [`enter`] and [`exit`] around the call. A launch is
//! recorded when its call returns success: at the runtime layer for the
//! runtime's launches (the driver launch our runtime makes inside it is
//! not counted again), at the driver layer for a program's own driver
//! launches (NCCL's `cuLaunchKernelEx`).
//!
//! Switching it on: `crate::watchdog::keep_progress()` (it also gives this
//! module the kernel namer and the context reader, which live above it).
//!
//! Read API (for the watchdog, the metrics, tests), all snapshots made of
//! relaxed/acquire loads; none takes a lock, so a program thread stuck
//! anywhere (our code included) never blocks a reader:
//! - [`last_completion_ns`]: the last time a probe saw GPU work complete
//!   (CLOCK_MONOTONIC ns, [`now_ns`]); the last progress as a whole is
//!   the watchdog's judgement (`crate::watchdog::last_progress_wall_ns`);
//! - [`nccl_ops`]: per NCCL operation `(name, launched, completed)`;
//! - [`streams`]: per stream launched/completed and the pending launches;
//! - [`threads`]: per thread the call it is in and its open NVTX ranges.
//!
//! Our own threads (the service thread) call the driver through
//! [`internal`]: their calls are neither traced nor counted here.

use crate::control::switch;
use std::cell::Cell;
use std::sync::atomic::{fence, AtomicBool, AtomicI32, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};

/// Launches kept per stream (the pending list is read from them).
pub const RING: usize = 64;
/// Streams tracked (more are counted in one overflow record).
pub const MAX_STREAMS: usize = 512;
/// Wait-event edges kept per stream (the last ones).
pub const WAITS: usize = 8;
/// Distinct kernel functions named (more are shown by address).
const MAX_FUNCS: usize = 8192;
/// NCCL operations told apart.
pub const MAX_NCCL_OPS: usize = 16;
/// NVTX levels and bytes of text kept per level, per thread.
pub const NVTX_LEVELS: usize = 8;
const NVTX_WORDS: usize = 8;

static ON: AtomicBool = AtomicBool::new(false);

/// Keep progress state from now on (idempotent). Sets the pipeline bit so
/// calls come through [`enter`]/[`exit`].
pub fn enable() {
    if !ON.swap(true, AcqRel) {
        tables();
        touch_progress();
        // SAFETY: registering a plain extern "C" function.
        unsafe { libc::pthread_atfork(None, None, Some(forked_child)) };
    }
    switch::mark(switch::PROGRESS, true);
}

/// Stop publishing calls (benchmarks: the same process measured with
/// progress kept and not; [`enable`] sets it again).
#[doc(hidden)]
pub fn pause() {
    switch::mark(switch::PROGRESS, false);
}

/// Whether progress is kept.
#[inline(always)]
pub fn on() -> bool {
    ON.load(Relaxed)
}

/// CLOCK_MONOTONIC in ns (the vDSO: no system call).
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is writable.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_REALTIME in ns (for reports read by people and other ranks).
pub fn wall_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is writable.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

// ---- last progress --------------------------------------------------------

/// The last time the probe saw a stream complete work, or progress began.
static LAST_DONE_NS: AtomicU64 = AtomicU64::new(0);

fn touch_progress() {
    LAST_DONE_NS.fetch_max(now_ns(), Relaxed);
}

/// The last time (CLOCK_MONOTONIC ns) a probe saw GPU work complete (or
/// progress state began).
pub fn last_completion_ns() -> u64 {
    LAST_DONE_NS.load(Relaxed)
}

// ---- threads ----------------------------------------------------------------

/// How the watchdog decodes a call's arguments from a copy of its bytes:
/// `decode(id, copy, ctx, out)` writes `name(args)`.
pub type Decode = unsafe fn(u32, *const u8, [usize; 2], &mut String);

/// Most bytes of a call's parameters copied for a report.
pub const MAX_PARAM_BYTES: usize = 256;

/// One thread's published state. Written only by its thread; read by
/// anyone through the generation numbers (`seq_gen`, `nvtx_seq`: odd while the
/// thread writes, or, for `seq_gen`, while it is in a call).
pub struct Slot {
    /// The owning thread's id (0: free for the next new thread).
    pub owner: AtomicI32,
    next: AtomicPtr<Slot>,
    /// 2 * calls begun + 1 while in a call, 2 * calls ended after.
    seq_gen: AtomicU64,
    id: AtomicU32,
    decode: AtomicUsize,
    ctx: [AtomicUsize; 2],
    src: AtomicUsize,
    len: AtomicUsize,
    nvtx_seq: AtomicU64,
    nvtx_depth: AtomicU32,
    nvtx: [[AtomicU64; NVTX_WORDS]; NVTX_LEVELS],
    nvtx_len: [AtomicU32; NVTX_LEVELS],
}

static SLOTS: AtomicPtr<Slot> = AtomicPtr::new(std::ptr::null_mut());

impl Slot {
    fn new() -> Slot {
        Slot {
            owner: AtomicI32::new(0),
            next: AtomicPtr::new(std::ptr::null_mut()),
            seq_gen: AtomicU64::new(0),
            id: AtomicU32::new(0),
            decode: AtomicUsize::new(0),
            ctx: [AtomicUsize::new(0), AtomicUsize::new(0)],
            src: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            nvtx_seq: AtomicU64::new(0),
            nvtx_depth: AtomicU32::new(0),
            nvtx: [const { [const { AtomicU64::new(0) }; NVTX_WORDS] }; NVTX_LEVELS],
            nvtx_len: [const { AtomicU32::new(0) }; NVTX_LEVELS],
        }
    }
}

/// Gives the thread's slot back when the thread ends.
struct GiveBack(Cell<*const Slot>);

impl Drop for GiveBack {
    fn drop(&mut self) {
        let p = self.0.get();
        if !p.is_null() {
            let _ = SLOT.try_with(|s| s.set(DEAD));
            // SAFETY: slots are leaked, never freed.
            let s = unsafe { &*p };
            s.nvtx_depth.store(0, Relaxed);
            s.seq_gen.store(0, Release);
            s.owner.store(0, Release);
        }
    }
}

const DEAD: *const Slot = std::ptr::dangling();

thread_local! {
    static SLOT: Cell<*const Slot> = const { Cell::new(std::ptr::null()) };
    /// Calls in progress on this thread (ours to count: no other reader).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The outermost call's function id (launch de-duplication).
    static OUTER: Cell<u32> = const { Cell::new(u32::MAX) };
    /// A thread of ours (the service thread) calling the driver.
    static INTERNAL: Cell<bool> = const { Cell::new(false) };
    static RELEASE: GiveBack = const { GiveBack(Cell::new(std::ptr::null())) };
}

#[inline(always)]
fn slot() -> Option<&'static Slot> {
    match SLOT.try_with(Cell::get) {
        Ok(p) if p.is_null() => claim(),
        // SAFETY: slots are leaked, never freed.
        Ok(p) if p != DEAD => Some(unsafe { &*p }),
        _ => None,
    }
}

/// Take a free slot (a thread that ended left it) or make one.
#[cold]
fn claim() -> Option<&'static Slot> {
    let tid = super::gettid();
    let mut p = SLOTS.load(Acquire);
    while !p.is_null() {
        // SAFETY: leaked.
        let s = unsafe { &*p };
        if s.owner.load(Relaxed) == 0 && s.owner.compare_exchange(0, tid, AcqRel, Relaxed).is_ok() {
            return adopt(s);
        }
        p = s.next.load(Acquire);
    }
    let s: &'static Slot = Box::leak(Box::new(Slot::new()));
    s.owner.store(tid, Relaxed);
    let mut head = SLOTS.load(Acquire);
    loop {
        s.next.store(head, Relaxed);
        match SLOTS.compare_exchange_weak(head, s as *const Slot as *mut Slot, AcqRel, Acquire) {
            Ok(_) => break,
            Err(h) => head = h,
        }
    }
    adopt(s)
}

fn adopt(s: &'static Slot) -> Option<&'static Slot> {
    s.seq_gen.store(0, Relaxed);
    s.nvtx_depth.store(0, Relaxed);
    SLOT.try_with(|c| c.set(s)).ok()?;
    if RELEASE.try_with(|r| r.0.set(s)).is_err() {
        s.owner.store(0, Release);
        let _ = SLOT.try_with(|c| c.set(DEAD));
        return None;
    }
    Some(s)
}

/// The calling thread's id, without a system call after the first (its
/// slot's owner).
fn my_tid() -> i32 {
    match slot() {
        Some(s) => s.owner.load(Relaxed),
        None => super::gettid(),
    }
}

/// Whether the calling thread is one of ours calling the driver.
#[inline]
pub fn is_internal() -> bool {
    INTERNAL.try_with(Cell::get).unwrap_or(false)
}

/// Run `f` as our own work: driver calls it makes through the interposer
/// are neither observed nor counted ([`is_internal`]).
pub fn internal<R>(f: impl FnOnce() -> R) -> R {
    let was = INTERNAL.try_with(|c| c.replace(true)).unwrap_or(false);
    struct Back(bool);
    impl Drop for Back {
        fn drop(&mut self) {
            let _ = INTERNAL.try_with(|c| c.set(self.0));
        }
    }
    let _b = Back(was);
    f()
}

/// A call entered ([`enter`]); hand it back to [`exit`].
pub struct Entered {
    slot: Option<&'static Slot>,
    outer: bool,
    /// The launch id pushed for this call (exact completion, [`link_launches`]; 0: none).
    ext: u64,
}

/// A runtime export's arguments, decoded from a copy of its parameter
/// block: `ctx` is the export's argument closure (`crate::entry`'s `Args`,
/// which captures nothing) as its two raw words.
///
/// # Safety
/// `copy` holds a `P`; `ctx` is a `&dyn Fn(&mut CallArgs, &P)` as raw parts.
pub unsafe fn decode_runtime<P>(id: u32, copy: *const u8, ctx: [usize; 2], out: &mut String) {
    // SAFETY: per the contract; the closure captures nothing, so calling it
    // reads only the block we pass (our copy).
    let f: &dyn Fn(&mut super::CallArgs, &P) = unsafe { std::mem::transmute::<[usize; 2], &dyn Fn(&mut super::CallArgs, &P)>(ctx) };
    let mut a = super::CallArgs::new(false);
    f(&mut a, unsafe { &*(copy as *const P) });
    out.push_str(function_name(id));
    out.push('(');
    a.write_line(out);
    out.push(')');
}

/// A runtime call begins: publish it (outermost only).
#[inline(always)]
pub fn enter_runtime<P>(id: u32, p: *const P, args: &dyn Fn(&mut super::CallArgs, &P)) -> Entered {
    // SAFETY: a fat reference as its two words (read back by `decode_runtime`).
    let ctx: [usize; 2] = unsafe { std::mem::transmute::<&dyn Fn(&mut super::CallArgs, &P), [usize; 2]>(args) };
    enter(id, p as *const u8, std::mem::size_of::<P>(), decode_runtime::<P>, ctx)
}

/// A call begins on this thread: `id` in the pipeline's id space,
/// `src`/`len` its parameter block (copied by a reader), `decode` the
/// means to write it.
#[inline(always)]
pub fn enter(id: u32, src: *const u8, len: usize, decode: Decode, ctx: [usize; 2]) -> Entered {
    if is_in(&ENDINGS, id) {
        ending(id, src, len);
    }
    let depth = DEPTH.try_with(|d| d.replace(d.get() + 1)).unwrap_or(1);
    if depth > 0 {
        return Entered { slot: None, outer: false, ext: 0 };
    }
    let _ = OUTER.try_with(|o| o.set(id));
    // The outermost launch call carries an id CUPTI ties to its kernel's record.
    let ext = if is_in(&LAUNCHES, id) && EXACT.load(Relaxed) { push_launch_id() } else { 0 };
    let Some(s) = slot() else { return Entered { slot: None, outer: true, ext } };
    let g = s.seq_gen.load(Relaxed);
    // The last call's end (`seq_gen` even) is ordered before these fields
    // change: a reader that saw the call in progress after its copy never
    // holds the next call's fields (the sequence lock's writer side).
    fence(Release);
    s.id.store(id, Relaxed);
    s.decode.store(decode as usize, Relaxed);
    s.ctx[0].store(ctx[0], Relaxed);
    s.ctx[1].store(ctx[1], Relaxed);
    s.src.store(src as usize, Relaxed);
    s.len.store(len, Relaxed);
    // Odd: in a call. Release: the fields above are visible with it.
    s.seq_gen.store((g | 1) + if g & 1 == 0 { 0 } else { 2 }, Release);
    Entered { slot: Some(s), outer: true, ext }
}

/// The call entered as `e` returned `result` (0: success): a launch is
/// recorded now (`params` is its block), then the thread leaves the call.
#[inline(always)]
pub fn exit(e: Entered, id: u32, params: *const u8, result: i32) {
    let _ = DEPTH.try_with(|d| d.set(d.get().saturating_sub(1)));
    let ext = if e.ext != 0 { pop_launch_id(e.ext) } else { 0 };
    if result == 0 && is_watched(id) {
        watched_call(id, params, e.outer, ext);
    }
    if let Some(s) = e.slot {
        let g = s.seq_gen.load(Relaxed);
        s.seq_gen.store(g + 1, Release);
    }
}

/// The name of function `id` of the pipeline's id space.
pub fn function_name(id: u32) -> &'static str {
    crate::control::params::NAMES.get(id as usize).copied().unwrap_or("?")
}

// ---- the calls progress watches ---------------------------------------------

mod ids {
    use crate::control::params::{self as rt, driver as drv};
    pub const RT_LAUNCH: [u32; 10] = [
        rt::cudaLaunchKernel::ID,
        rt::cudaLaunchKernel_ptsz::ID,
        rt::__cudaLaunchKernel::ID,
        rt::__cudaLaunchKernel_ptsz::ID,
        rt::cudaLaunchCooperativeKernel::ID,
        rt::cudaLaunchCooperativeKernel_ptsz::ID,
        rt::cudaLaunchKernelExC::ID,
        rt::cudaLaunchKernelExC_ptsz::ID,
        rt::cudaGraphLaunch::ID,
        rt::cudaGraphLaunch_ptsz::ID,
    ];
    pub const DRV_LAUNCH: [u32; 7] = [
        drv::cuLaunchKernel::ID,
        drv::cuLaunchKernel_ptsz::ID,
        drv::cuLaunchKernelEx::ID,
        drv::cuLaunchKernelEx_ptsz::ID,
        drv::cuLaunchCooperativeKernel::ID,
        drv::cuGraphLaunch::ID,
        drv::cuGraphLaunch_ptsz::ID,
    ];
    pub const OTHER: [u32; 12] = [
        rt::cudaStreamWaitEvent::ID,
        rt::cudaStreamWaitEvent_ptsz::ID,
        drv::cuStreamWaitEvent::ID,
        drv::cuStreamWaitEvent_ptsz::ID,
        rt::cudaEventRecord::ID,
        rt::cudaEventRecord_ptsz::ID,
        rt::cudaEventRecordWithFlags::ID,
        rt::cudaEventRecordWithFlags_ptsz::ID,
        drv::cuEventRecord::ID,
        drv::cuEventRecord_ptsz::ID,
        drv::cuEventRecordWithFlags::ID,
        drv::cuEventRecordWithFlags_ptsz::ID,
    ];
}

/// Calls that end streams: forgotten before the call runs, so that no
/// probe uses a handle being destroyed.
const ENDS_ONE: [u32; 3] = {
    use crate::control::params::{self as rt, driver as drv};
    [rt::cudaStreamDestroy::ID, drv::cuStreamDestroy::ID, drv::cuStreamDestroy_v2::ID]
};
const ENDS_ALL: [u32; 8] = {
    use crate::control::params::{self as rt, driver as drv};
    [
        rt::cudaDeviceReset::ID,
        rt::abi12::cudaThreadExit::ID,
        drv::cuDevicePrimaryCtxReset::ID,
        drv::cuDevicePrimaryCtxReset_v2::ID,
        drv::cuDevicePrimaryCtxRelease::ID,
        drv::cuDevicePrimaryCtxRelease_v2::ID,
        drv::cuCtxDestroy::ID,
        drv::cuCtxDestroy_v2::ID,
    ]
};
static ENDINGS: [u64; 32] = with_bits(with_bits([0; 32], &ENDS_ONE), &ENDS_ALL);

/// A call that ends streams is about to run (`src`: its parameter block,
/// or its argument words at the driver layer: the stream is first in both).
#[cold]
#[inline(never)]
fn ending(id: u32, src: *const u8, len: usize) {
    if !on() {
        return;
    }
    if ENDS_ONE.contains(&id) {
        if src.is_null() || len < 8 {
            return;
        }
        // SAFETY: the call's block or words, at least one word long.
        let handle = unsafe { std::ptr::read_unaligned(src as *const u64) };
        if handle > 2 {
            forget_stream(handle);
        }
    } else {
        forget_all_streams();
    }
}

/// Kernel and graph launches (each carries a launch id in exact mode).
static LAUNCHES: [u64; 32] = with_bits(with_bits([0; 32], &ids::RT_LAUNCH), &ids::DRV_LAUNCH);

/// One bit per function id that progress looks at after the call.
static WATCHED: [u64; 32] = with_bits(with_bits(with_bits([0; 32], &ids::RT_LAUNCH), &ids::DRV_LAUNCH), &ids::OTHER);

const fn with_bits(mut w: [u64; 32], ids: &[u32]) -> [u64; 32] {
    let mut i = 0;
    while i < ids.len() {
        let id = ids[i] as usize;
        w[id / 64] |= 1 << (id % 64);
        i += 1;
    }
    w
}

#[inline(always)]
fn is_watched(id: u32) -> bool {
    is_in(&WATCHED, id)
}

#[inline(always)]
fn is_in(bits: &[u64; 32], id: u32) -> bool {
    let i = id as usize;
    i < 64 * bits.len() && bits[i / 64] & (1 << (i % 64)) != 0
}

fn is_runtime_launch(id: u32) -> bool {
    ids::RT_LAUNCH.contains(&id)
}

/// A launch (or event edge) call returned success.
#[inline(never)]
fn watched_call(id: u32, params: *const u8, outer: bool, ext: u64) {
    let _ = std::panic::catch_unwind(|| watched_call_inner(id, params, outer, ext));
}

/// `ext`: the launch's id in CUPTI's records (0: none).
fn watched_call_inner(id: u32, params: *const u8, outer: bool, ext: u64) {
    use crate::control::params::{self as rt, driver as drv};
    if !on() || params.is_null() {
        return;
    }
    // The driver launch our runtime makes inside a runtime launch is that
    // launch (counted by it).
    let nested_in_runtime_launch = !outer && OUTER.try_with(Cell::get).is_ok_and(is_runtime_launch);
    let tid = my_tid();
    // SAFETY (each block read): `params` is the call's own block of the
    // type its id names, alive for the whole call.
    unsafe {
        macro_rules! grid_launch {
            ($t:ty, $func:ident, $stream:ident, $ptsz:expr) => {{
                let p = &*(params as *const $t);
                launched(stream_key(p.$stream as u64, $ptsz, tid), p.$func as u64, [p.gridDim.x, p.gridDim.y, p.gridDim.z], [p.blockDim.x, p.blockDim.y, p.blockDim.z], tid, true, ext)
            }};
        }
        macro_rules! drv_launch {
            ($t:ty, $ptsz:expr) => {{
                let p = &*(params as *const $t);
                launched(stream_key(p.hStream as u64, $ptsz, tid), p.f as u64, [p.gridDimX, p.gridDimY, p.gridDimZ], [p.blockDimX, p.blockDimY, p.blockDimZ], tid, false, ext)
            }};
        }
        macro_rules! drv_launch_ex {
            ($t:ty, $ptsz:expr) => {{
                let p = &*(params as *const $t);
                if let Some(c) = (p.config as *const crate::driver::api::CUlaunchConfig).as_ref() {
                    launched(stream_key(c.hStream as u64, $ptsz, tid), p.f as u64, [c.gridDimX, c.gridDimY, c.gridDimZ], [c.blockDimX, c.blockDimY, c.blockDimZ], tid, false, ext)
                }
            }};
        }
        macro_rules! rt_launch_ex {
            ($t:ty, $ptsz:expr) => {{
                let p = &*(params as *const $t);
                if let Some(c) = p.config.as_ref() {
                    launched(stream_key(c.stream as u64, $ptsz, tid), p.func as u64, [c.gridDim.x, c.gridDim.y, c.gridDim.z], [c.blockDim.x, c.blockDim.y, c.blockDim.z], tid, true, ext)
                }
            }};
        }
        macro_rules! event {
            ($t:ty, $event:ident, $stream:ident, $ptsz:expr) => {{
                let p = &*(params as *const $t);
                event_recorded(p.$event as u64, stream_key(p.$stream as u64, $ptsz, tid))
            }};
        }
        macro_rules! wait {
            ($t:ty, $event:ident, $stream:ident, $ptsz:expr) => {{
                let p = &*(params as *const $t);
                waited(stream_key(p.$stream as u64, $ptsz, tid), p.$event as u64, tid)
            }};
        }
        macro_rules! graph {
            ($t:ty, $exec:ident, $stream:ident, $ptsz:expr, $runtime:expr) => {{
                let p = &*(params as *const $t);
                launched(stream_key(p.$stream as u64, $ptsz, tid), p.$exec as u64 | GRAPH_BIT, [0; 3], [0; 3], tid, $runtime, ext)
            }};
        }
        match id {
            _ if id == rt::cudaLaunchKernel::ID => grid_launch!(rt::cudaLaunchKernel, func, stream, false),
            _ if id == rt::cudaLaunchKernel_ptsz::ID => grid_launch!(rt::cudaLaunchKernel_ptsz, func, stream, true),
            _ if id == rt::__cudaLaunchKernel::ID => grid_launch!(rt::__cudaLaunchKernel, kernel, stream, false),
            _ if id == rt::__cudaLaunchKernel_ptsz::ID => grid_launch!(rt::__cudaLaunchKernel_ptsz, kernel, stream, true),
            _ if id == rt::cudaLaunchCooperativeKernel::ID => grid_launch!(rt::cudaLaunchCooperativeKernel, func, stream, false),
            _ if id == rt::cudaLaunchCooperativeKernel_ptsz::ID => grid_launch!(rt::cudaLaunchCooperativeKernel_ptsz, func, stream, true),
            _ if id == rt::cudaLaunchKernelExC::ID => rt_launch_ex!(rt::cudaLaunchKernelExC, false),
            _ if id == rt::cudaLaunchKernelExC_ptsz::ID => rt_launch_ex!(rt::cudaLaunchKernelExC_ptsz, true),
            _ if id == rt::cudaGraphLaunch::ID => graph!(rt::cudaGraphLaunch, graphExec, stream, false, true),
            _ if id == rt::cudaGraphLaunch_ptsz::ID => graph!(rt::cudaGraphLaunch_ptsz, graphExec, stream, true, true),
            _ if nested_in_runtime_launch => {}
            _ if id == drv::cuLaunchKernel::ID => drv_launch!(drv::cuLaunchKernel, false),
            _ if id == drv::cuLaunchKernel_ptsz::ID => drv_launch!(drv::cuLaunchKernel_ptsz, true),
            _ if id == drv::cuLaunchCooperativeKernel::ID => drv_launch!(drv::cuLaunchCooperativeKernel, false),
            _ if id == drv::cuLaunchKernelEx::ID => drv_launch_ex!(drv::cuLaunchKernelEx, false),
            _ if id == drv::cuLaunchKernelEx_ptsz::ID => drv_launch_ex!(drv::cuLaunchKernelEx_ptsz, true),
            _ if id == drv::cuGraphLaunch::ID => graph!(drv::cuGraphLaunch, hGraph, hStream, false, false),
            _ if id == drv::cuGraphLaunch_ptsz::ID => graph!(drv::cuGraphLaunch_ptsz, hGraphExec, hStream, true, false),
            _ if id == rt::cudaEventRecord::ID => event!(rt::cudaEventRecord, event, stream, false),
            _ if id == rt::cudaEventRecord_ptsz::ID => event!(rt::cudaEventRecord_ptsz, event, stream, true),
            _ if id == rt::cudaEventRecordWithFlags::ID => event!(rt::cudaEventRecordWithFlags, event, stream, false),
            _ if id == rt::cudaEventRecordWithFlags_ptsz::ID => event!(rt::cudaEventRecordWithFlags_ptsz, event, stream, true),
            _ if id == drv::cuEventRecord::ID => event!(drv::cuEventRecord, hEvent, hStream, false),
            _ if id == drv::cuEventRecord_ptsz::ID => event!(drv::cuEventRecord_ptsz, hEvent, hStream, true),
            _ if id == drv::cuEventRecordWithFlags::ID => event!(drv::cuEventRecordWithFlags, hEvent, hStream, false),
            _ if id == drv::cuEventRecordWithFlags_ptsz::ID => event!(drv::cuEventRecordWithFlags_ptsz, hEvent, hStream, true),
            _ if id == rt::cudaStreamWaitEvent::ID => wait!(rt::cudaStreamWaitEvent, event, stream, false),
            _ if id == rt::cudaStreamWaitEvent_ptsz::ID => wait!(rt::cudaStreamWaitEvent_ptsz, event, stream, true),
            _ if id == drv::cuStreamWaitEvent::ID => wait!(drv::cuStreamWaitEvent, hEvent, hStream, false),
            _ if id == drv::cuStreamWaitEvent_ptsz::ID => wait!(drv::cuStreamWaitEvent_ptsz, hEvent, hStream, true),
            _ => {}
        }
    }
}

/// Set in a launch's function word: it is a graph launch (the word is the
/// executable graph).
pub const GRAPH_BIT: u64 = 1 << 63;

/// The legacy default stream (NULL and `CU_STREAM_LEGACY`).
pub const LEGACY: u64 = 1;
/// Per-thread default streams: `PER_THREAD | tid << 32`.
pub const PER_THREAD: u64 = 2;

/// The table key of a stream handle as a call named it.
#[inline]
pub fn stream_key(handle: u64, ptsz: bool, tid: i32) -> u64 {
    match handle {
        0 if ptsz => PER_THREAD | (tid as u32 as u64) << 32,
        0 | 1 => LEGACY,
        2 => PER_THREAD | (tid as u32 as u64) << 32,
        h => h,
    }
}

/// The handle our own thread would pass for a stream key (None: a
/// per-thread default stream, which only its thread can name).
pub fn stream_handle(key: u64) -> Option<u64> {
    match key {
        LEGACY => Some(1),
        k if k & 0xffff_ffff == PER_THREAD && k >> 32 != 0 => None,
        k => Some(k),
    }
}

// ---- streams ------------------------------------------------------------------

/// One launch kept in its stream's ring. `seq` is written last (Release)
/// and cleared first: a reader that sees the same `seq` before and after
/// its copy has a whole record.
pub struct Op {
    seq: AtomicU64,
    func: AtomicU64,
    grid: [AtomicU32; 3],
    block: [AtomicU32; 3],
    t_ns: AtomicU64,
    tid: AtomicI32,
}

/// One `cudaStreamWaitEvent` edge: the stream waits for `event`, last
/// recorded on `from` after its launch number `from_seq`.
pub struct Wait {
    seq_gen: AtomicU64,
    event: AtomicU64,
    from: AtomicU64,
    from_seq: AtomicU64,
    /// The waiting stream's launch count when it was enqueued.
    at_seq: AtomicU64,
    t_ns: AtomicU64,
    tid: AtomicI32,
}

pub struct StreamRec {
    key: AtomicU64,
    /// The context current on the thread of its first launch (for a probe
    /// of the legacy stream from another thread); 0: unknown.
    pub ctx: AtomicU64,
    launched: AtomicU64,
    completed: AtomicU64,
    ring: [Op; RING],
    waits: [Wait; WAITS],
    nwaits: AtomicU64,
    /// Set while a prober uses the handle; a destroying thread clears `key`
    /// and waits for it (briefly).
    pub probing: AtomicBool,
    /// Exact completion ([`link_launches`]): per launch, the id CUPTI's
    /// records carry for it; made at the stream's first linked launch.
    links: AtomicPtr<LinkRing>,
}

struct Tables {
    streams: Box<[StreamRec]>,
    funcs: Box<[Func]>,
    events: Box<[EventRec]>,
}

struct Func {
    key: AtomicU64,
    /// 0: being named; 1: named, not NCCL; 2 + i: NCCL operation i.
    class: AtomicU32,
    name: AtomicPtr<String>,
}

struct EventRec {
    key: AtomicU64,
    stream: AtomicU64,
    seq: AtomicU64,
}

static TABLES: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();

fn tables() -> &'static Tables {
    TABLES.get_or_init(|| Tables {
        streams: (0..MAX_STREAMS)
            .map(|_| StreamRec {
                key: AtomicU64::new(0),
                ctx: AtomicU64::new(0),
                launched: AtomicU64::new(0),
                completed: AtomicU64::new(0),
                ring: [const {
                    Op {
                        seq: AtomicU64::new(0),
                        func: AtomicU64::new(0),
                        grid: [const { AtomicU32::new(0) }; 3],
                        block: [const { AtomicU32::new(0) }; 3],
                        t_ns: AtomicU64::new(0),
                        tid: AtomicI32::new(0),
                    }
                }; RING],
                waits: [const {
                    Wait {
                        seq_gen: AtomicU64::new(0),
                        event: AtomicU64::new(0),
                        from: AtomicU64::new(0),
                        from_seq: AtomicU64::new(0),
                        at_seq: AtomicU64::new(0),
                        t_ns: AtomicU64::new(0),
                        tid: AtomicI32::new(0),
                    }
                }; WAITS],
                nwaits: AtomicU64::new(0),
                probing: AtomicBool::new(false),
                links: AtomicPtr::new(std::ptr::null_mut()),
            })
            .collect(),
        funcs: (0..MAX_FUNCS).map(|_| Func { key: AtomicU64::new(0), class: AtomicU32::new(0), name: AtomicPtr::new(std::ptr::null_mut()) }).collect(),
        events: (0..MAX_FUNCS).map(|_| EventRec { key: AtomicU64::new(0), stream: AtomicU64::new(0), seq: AtomicU64::new(0) }).collect(),
    })
}

#[inline]
fn hash(k: u64) -> usize {
    (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize
}

/// The slot of key `k` in an open-addressed table whose entries' keys
/// `key(i)` gives, inserting it when absent (None: the table is full).
/// Keys are never removed (a destroyed stream's key is retired by
/// [`forget_stream`] to an unmatchable value).
fn find_or_insert(n: usize, k: u64, key: impl Fn(usize) -> &'static AtomicU64) -> Option<(usize, bool)> {
    let start = hash(k) % n;
    for j in 0..n {
        let i = (start + j) % n;
        let slot = key(i);
        match slot.load(Acquire) {
            v if v == k => return Some((i, false)),
            0 => match slot.compare_exchange(0, k, AcqRel, Acquire) {
                Ok(_) => return Some((i, true)),
                Err(v) if v == k => return Some((i, false)),
                Err(_) => {}
            },
            _ => {}
        }
    }
    None
}

fn find(n: usize, k: u64, key: impl Fn(usize) -> &'static AtomicU64) -> Option<usize> {
    let start = hash(k) % n;
    for j in 0..n {
        let i = (start + j) % n;
        match key(i).load(Acquire) {
            v if v == k => return Some(i),
            0 => return None,
            _ => {}
        }
    }
    None
}

fn stream(k: u64) -> Option<&'static StreamRec> {
    let t = TABLES.get()?;
    let (i, new) = find_or_insert(MAX_STREAMS, k, |i| &t.streams[i].key)?;
    let s = &t.streams[i];
    if new {
        s.ctx.store(current_ctx(), Relaxed);
    }
    Some(s)
}

/// Who may answer the current context (the watchdog's driver access).
static CTX_OF_THREAD: std::sync::OnceLock<fn() -> u64> = std::sync::OnceLock::new();

/// Register the function that returns the calling thread's current
/// context (set by the layer that owns the driver table).
pub fn set_context_reader(f: fn() -> u64) {
    let _ = CTX_OF_THREAD.set(f);
}

fn current_ctx() -> u64 {
    CTX_OF_THREAD.get().map_or(0, internal)
}

/// Who names a kernel function handle (set by the layer that owns the
/// runtime's registry and the driver table): `namer(handle, runtime, out)`.
static FUNC_NAMER: std::sync::OnceLock<fn(u64, bool, &mut String) -> bool> = std::sync::OnceLock::new();

pub fn set_function_namer(f: fn(u64, bool, &mut String) -> bool) {
    let _ = FUNC_NAMER.set(f);
}

/// The class of function `f` (named at its first launch, on the
/// launching thread: a cold path).
fn func_class(f: u64, runtime: bool) -> u32 {
    let Some(t) = TABLES.get() else { return 1 };
    let Some((i, new)) = find_or_insert(MAX_FUNCS, f, |i| &t.funcs[i].key) else { return 1 };
    let e = &t.funcs[i];
    if !new {
        return e.class.load(Relaxed).max(1);
    }
    let mut name = String::new();
    if f & GRAPH_BIT != 0 {
        name.push_str("(graph launch)");
    } else if let Some(n) = FUNC_NAMER.get() {
        internal(|| n(f, runtime, &mut name));
    }
    let class = nccl_class(&name);
    e.name.store(Box::into_raw(Box::new(name)), Release);
    e.class.store(class, Release);
    class
}

/// The name of kernel function `f` as named at its first launch.
pub fn func_name(f: u64) -> Option<&'static str> {
    let t = TABLES.get()?;
    let i = find(MAX_FUNCS, f, |i| &t.funcs[i].key)?;
    let p = t.funcs[i].name.load(Acquire);
    // SAFETY: leaked, never freed.
    (!p.is_null()).then(|| unsafe { (*p).as_str() })
}

pub use trace_format::hang::nccl_op as nccl_op_of;

struct NcclOp {
    name: AtomicPtr<String>,
    launched: AtomicU64,
    completed: AtomicU64,
}

static NCCL: [NcclOp; MAX_NCCL_OPS] = [const { NcclOp { name: AtomicPtr::new(std::ptr::null_mut()), launched: AtomicU64::new(0), completed: AtomicU64::new(0) } }; MAX_NCCL_OPS];

fn nccl_class(name: &str) -> u32 {
    let Some(op) = nccl_op_of(name) else { return 1 };
    for (i, o) in NCCL.iter().enumerate() {
        let p = o.name.load(Acquire);
        // SAFETY: leaked, never freed.
        if !p.is_null() && unsafe { &*p } == op {
            return 2 + i as u32;
        }
        if p.is_null() {
            let mine = Box::into_raw(Box::new(op.to_owned()));
            match o.name.compare_exchange(std::ptr::null_mut(), mine, AcqRel, Acquire) {
                Ok(_) => return 2 + i as u32,
                Err(q) => {
                    // SAFETY: ours, never published.
                    drop(unsafe { Box::from_raw(mine) });
                    // SAFETY: leaked, never freed.
                    if unsafe { &*q } == op {
                        return 2 + i as u32;
                    }
                }
            }
        }
    }
    1
}

/// A kernel (or graph) launch on stream `key` returned success; `ext`:
/// its id in CUPTI's records (exact completion; 0: none).
fn launched(key: u64, func: u64, grid: [u32; 3], block: [u32; 3], tid: i32, runtime: bool, ext: u64) {
    let Some(s) = stream(key) else { return };
    let seq = s.launched.fetch_add(1, Relaxed) + 1;
    if EXACT.load(Relaxed) {
        link(s, seq, ext, func & GRAPH_BIT != 0);
    }
    let op = &s.ring[seq as usize % RING];
    op.seq.store(0, Relaxed);
    fence(Release);
    op.func.store(func, Relaxed);
    for d in 0..3 {
        op.grid[d].store(grid[d], Relaxed);
        op.block[d].store(block[d], Relaxed);
    }
    op.t_ns.store(wall_ns(), Relaxed);
    op.tid.store(tid, Relaxed);
    op.seq.store(seq, Release);
    let class = func_class(func, runtime);
    if class >= 2 {
        NCCL[(class - 2) as usize].launched.fetch_add(1, Relaxed);
    }
}

fn event_recorded(event: u64, key: u64) {
    let (Some(t), Some(s)) = (TABLES.get(), stream(key)) else { return };
    let Some((i, _)) = find_or_insert(MAX_FUNCS, event, |i| &t.events[i].key) else { return };
    let e = &t.events[i];
    e.stream.store(key, Relaxed);
    e.seq.store(s.launched.load(Relaxed), Relaxed);
}

fn waited(key: u64, event: u64, tid: i32) {
    let (Some(t), Some(s)) = (TABLES.get(), stream(key)) else { return };
    let (from, from_seq) = find(MAX_FUNCS, event, |i| &t.events[i].key).map_or((0, 0), |i| (t.events[i].stream.load(Relaxed), t.events[i].seq.load(Relaxed)));
    let n = s.nwaits.fetch_add(1, Relaxed);
    let w = &s.waits[n as usize % WAITS];
    let g = w.seq_gen.fetch_add(1, Relaxed);
    fence(Release);
    w.event.store(event, Relaxed);
    w.from.store(from, Relaxed);
    w.from_seq.store(from_seq, Relaxed);
    w.at_seq.store(s.launched.load(Relaxed), Relaxed);
    w.t_ns.store(wall_ns(), Relaxed);
    w.tid.store(tid, Relaxed);
    w.seq_gen.store(g + 2, Release);
}

/// A stream is being destroyed: forget it, after any probe of it ends
/// (so no probe uses a destroyed handle). Waits at most 100 ms.
pub fn forget_stream(key: u64) {
    let Some(t) = TABLES.get() else { return };
    let Some(i) = find(MAX_STREAMS, key, |i| &t.streams[i].key) else { return };
    let s = &t.streams[i];
    // An unmatchable key (never 0: probing chains stay intact).
    s.key.store(u64::MAX - i as u64, Release);
    let t0 = now_ns();
    while s.probing.load(Acquire) && now_ns() - t0 < 100_000_000 {
        std::thread::yield_now();
    }
    let l = s.launched.load(Relaxed);
    s.completed.store(l, Relaxed);
}

/// Every stream is gone (device reset, context destroyed).
pub fn forget_all_streams() {
    let Some(t) = TABLES.get() else { return };
    for s in t.streams.iter() {
        let k = s.key.load(Acquire);
        if k != 0 && k < u64::MAX - MAX_STREAMS as u64 {
            forget_stream(k);
        }
    }
}

// ---- the probe's side: completion -----------------------------------------------

/// Launches on stream `key` up to number `seq` are complete (the stream
/// was idle after `seq` was launched): moves its completed count and the
/// NCCL operations' completed counts. Returns how many completed now.
pub fn complete_up_to(s: &StreamRec, seq: u64) -> u64 {
    let before = s.completed.fetch_max(seq, AcqRel);
    if seq <= before {
        return 0;
    }
    // The NCCL kernels among them (those still in the ring).
    for n in before + 1..=seq {
        if let Some(op) = read_op(s, n)
            && let Some(t) = TABLES.get()
            && let Some(i) = find(MAX_FUNCS, op.func, |i| &t.funcs[i].key)
        {
            let c = t.funcs[i].class.load(Relaxed);
            if c >= 2 {
                NCCL[(c - 2) as usize].completed.fetch_add(1, Relaxed);
            }
        }
    }
    touch_progress();
    seq - before
}

/// A copy of one launch record.
#[derive(Clone, Debug)]
pub struct OpView {
    pub seq: u64,
    pub func: u64,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub wall_ns: u64,
    pub tid: i32,
}

fn read_op(s: &StreamRec, seq: u64) -> Option<OpView> {
    let op = &s.ring[seq as usize % RING];
    if op.seq.load(Acquire) != seq {
        return None;
    }
    let v = OpView {
        seq,
        func: op.func.load(Relaxed),
        grid: [0, 1, 2].map(|d| op.grid[d].load(Relaxed)),
        block: [0, 1, 2].map(|d| op.block[d].load(Relaxed)),
        wall_ns: op.t_ns.load(Relaxed),
        tid: op.tid.load(Relaxed),
    };
    fence(Acquire);
    (op.seq.load(Relaxed) == seq).then_some(v)
}

#[derive(Clone, Debug)]
pub struct WaitView {
    pub event: u64,
    /// The stream the event was last recorded on (0: not seen recorded).
    pub from: u64,
    /// That stream's launch count when the event was recorded.
    pub from_seq: u64,
    /// This stream's launch count when the wait was enqueued.
    pub at_seq: u64,
    pub wall_ns: u64,
    pub tid: i32,
}

/// A snapshot of one stream.
#[derive(Clone, Debug)]
pub struct StreamView {
    pub key: u64,
    pub launched: u64,
    pub completed: u64,
    /// The launches after `completed` still in the ring, oldest first.
    pub pending: Vec<OpView>,
    pub waits: Vec<WaitView>,
    pub rec: &'static StreamRec,
}

impl std::fmt::Debug for StreamRec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StreamRec({:#x})", self.key())
    }
}

impl StreamRec {
    pub fn key(&self) -> u64 {
        self.key.load(Acquire)
    }
    pub fn launched(&self) -> u64 {
        self.launched.load(Acquire)
    }
    pub fn completed(&self) -> u64 {
        self.completed.load(Acquire)
    }
}

/// Every stream that has had a launch, as it is now.
pub fn streams() -> Vec<StreamView> {
    let Some(t) = TABLES.get() else { return Vec::new() };
    let mut out = Vec::new();
    for s in t.streams.iter() {
        let key = s.key.load(Acquire);
        if key == 0 || key >= u64::MAX - MAX_STREAMS as u64 {
            continue;
        }
        let launched = s.launched.load(Acquire);
        let completed = s.completed.load(Acquire).min(launched);
        let first = completed.max(launched.saturating_sub(RING as u64)) + 1;
        let pending = (first..=launched).filter_map(|n| read_op(s, n)).collect();
        let nw = s.nwaits.load(Acquire);
        let mut waits = Vec::new();
        for n in nw.saturating_sub(WAITS as u64)..nw {
            let w = &s.waits[n as usize % WAITS];
            let g = w.seq_gen.load(Acquire);
            if g & 1 != 0 {
                continue;
            }
            let v = WaitView {
                event: w.event.load(Relaxed),
                from: w.from.load(Relaxed),
                from_seq: w.from_seq.load(Relaxed),
                at_seq: w.at_seq.load(Relaxed),
                wall_ns: w.t_ns.load(Relaxed),
                tid: w.tid.load(Relaxed),
            };
            fence(Acquire);
            if w.seq_gen.load(Relaxed) == g {
                waits.push(v);
            }
        }
        out.push(StreamView { key, launched, completed, pending, waits, rec: s });
    }
    out
}

/// Per NCCL operation: (name, launched, completed), in first-seen order.
pub fn nccl_ops() -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for o in &NCCL {
        let p = o.name.load(Acquire);
        if p.is_null() {
            break;
        }
        // SAFETY: leaked, never freed.
        out.push((unsafe { &*p }.clone(), o.launched.load(Relaxed), o.completed.load(Relaxed)));
    }
    out
}

// ---- threads: the reader's side --------------------------------------------------

/// A snapshot of one thread.
#[derive(Clone, Debug)]
pub struct ThreadView {
    pub tid: i32,
    /// `2 * calls begun + 1` while in a call: the same value on two looks
    /// means the same call.
    pub seq_gen: u64,
    /// The call it is in: (function id, `name(args)`), None: not in CUDA.
    pub call: Option<(u32, String)>,
    /// Open NVTX push/pop ranges, outermost first.
    pub nvtx: Vec<String>,
}

/// Every thread that has made a call, as it is now (threads of ours left out).
pub fn threads() -> Vec<ThreadView> {
    let mut out = Vec::new();
    let mut p = SLOTS.load(Acquire);
    while !p.is_null() {
        // SAFETY: leaked.
        let s = unsafe { &*p };
        p = s.next.load(Acquire);
        let tid = s.owner.load(Acquire);
        if tid == 0 {
            continue;
        }
        let (seq_gen, call) = read_call(s);
        out.push(ThreadView { tid, seq_gen, call, nvtx: read_nvtx(s) });
    }
    out
}

/// The call a slot shows, decoded from a copy of its parameter block made
/// between two equal reads of its generation.
fn read_call(s: &Slot) -> (u64, Option<(u32, String)>) {
    for _ in 0..4 {
        let g = s.seq_gen.load(Acquire);
        if g & 1 == 0 {
            return (g, None);
        }
        let id = s.id.load(Relaxed);
        let decode = s.decode.load(Relaxed);
        let ctx = [s.ctx[0].load(Relaxed), s.ctx[1].load(Relaxed)];
        let src = s.src.load(Relaxed);
        let len = s.len.load(Relaxed).min(MAX_PARAM_BYTES);
        let mut copy = [0u64; MAX_PARAM_BYTES / 8];
        if src != 0 && len > 0 {
            // SAFETY: the block lives on the calling thread's stack while
            // `seq_gen` holds this value (checked after the copy); volatile
            // reads of plain bytes.
            for (i, w) in copy.iter_mut().enumerate().take(len.div_ceil(8)) {
                let mut b = [0u8; 8];
                let n = (len - i * 8).min(8);
                for (k, byte) in b.iter_mut().enumerate().take(n) {
                    *byte = unsafe { std::ptr::read_volatile((src + i * 8 + k) as *const u8) };
                }
                *w = u64::from_ne_bytes(b);
            }
        }
        fence(Acquire);
        if s.seq_gen.load(Relaxed) != g {
            continue;
        }
        let mut text = String::new();
        if decode != 0 {
            // SAFETY: a `Decode` stored by `enter` with this id and block.
            let f: Decode = unsafe { std::mem::transmute::<usize, Decode>(decode) };
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { f(id, copy.as_ptr().cast(), ctx, &mut text) }));
        } else {
            text = function_name(id).to_owned();
        }
        return (g, Some((id, text)));
    }
    (s.seq_gen.load(Acquire), None)
}

fn read_nvtx(s: &Slot) -> Vec<String> {
    for _ in 0..4 {
        let g = s.nvtx_seq.load(Acquire);
        if g & 1 != 0 {
            std::thread::yield_now();
            continue;
        }
        let n = (s.nvtx_depth.load(Relaxed) as usize).min(NVTX_LEVELS);
        let mut v = Vec::with_capacity(n);
        for l in 0..n {
            let len = (s.nvtx_len[l].load(Relaxed) as usize).min(NVTX_WORDS * 8);
            let mut b = Vec::with_capacity(len);
            for w in 0..len.div_ceil(8) {
                b.extend_from_slice(&s.nvtx[l][w].load(Relaxed).to_ne_bytes());
            }
            b.truncate(len);
            v.push(String::from_utf8_lossy(&b).into_owned());
        }
        fence(Acquire);
        if s.nvtx_seq.load(Relaxed) == g {
            return v;
        }
    }
    Vec::new()
}

// ---- NVTX ------------------------------------------------------------------------

/// The thread opened an NVTX push/pop range (its text, cut to 64 bytes).
pub fn nvtx_push(text: &str) {
    if !on() {
        return;
    }
    let Some(s) = slot() else { return };
    let g = s.nvtx_seq.load(Relaxed);
    s.nvtx_seq.store(g + 1, Relaxed);
    fence(Release);
    let d = s.nvtx_depth.load(Relaxed);
    if (d as usize) < NVTX_LEVELS {
        let mut b = text.as_bytes();
        if b.len() > NVTX_WORDS * 8 {
            let mut cut = NVTX_WORDS * 8;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            b = &b[..cut];
        }
        for (w, chunk) in b.chunks(8).enumerate() {
            let mut x = [0u8; 8];
            x[..chunk.len()].copy_from_slice(chunk);
            s.nvtx[d as usize][w].store(u64::from_ne_bytes(x), Relaxed);
        }
        s.nvtx_len[d as usize].store(b.len() as u32, Relaxed);
    }
    s.nvtx_depth.store(d + 1, Relaxed);
    s.nvtx_seq.store(g + 2, Release);
}

/// The thread closed its innermost NVTX push/pop range.
pub fn nvtx_pop() {
    if !on() {
        return;
    }
    let Some(s) = slot() else { return };
    let g = s.nvtx_seq.load(Relaxed);
    s.nvtx_seq.store(g + 1, Relaxed);
    fence(Release);
    let d = s.nvtx_depth.load(Relaxed);
    s.nvtx_depth.store(d.saturating_sub(1), Relaxed);
    s.nvtx_seq.store(g + 2, Release);
}

// ---- exact completion: CUPTI's kernel records ---------------------------------

/// Launch ids kept per stream for exact completion: more than the launches
/// a stream can hold queued (the driver blocks a launch past about a
/// thousand), so the oldest launch not complete is still matched.
pub const LINK_RING: usize = 4096;
/// How far past a stream's completed count a kernel record's launch is
/// looked for (records come in completion order on a stream, so it is
/// almost always the first; launches that make no record, such as those
/// made into a stream capture, come between).
const LINK_SEARCH: u64 = 1024;
/// Set in a ring entry: the launch is a graph launch (one record per
/// node: a record marks only the launches before it complete).
const LINK_GRAPH: u64 = 1 << 63;

struct LinkRing([AtomicU64; LINK_RING]);

/// How launches are tied to CUPTI's records (given by the layer that owns
/// CUPTI, `crate::trace::gpu`, through the watchdog): `push` pushes a new
/// external correlation id on the calling thread and returns it (0: none),
/// `pop` pops it, `last` returns the thread's innermost id pushed last
/// (the one CUPTI's external correlation record carries when a nested
/// layer pushed its own around the driver's launch).
pub struct LaunchIds {
    pub push: fn() -> u64,
    pub pop: fn(u64),
    pub last: fn() -> u64,
}

static IDS: std::sync::OnceLock<LaunchIds> = std::sync::OnceLock::new();
/// Launches carry ids and CUPTI's kernel records complete them.
static EXACT: AtomicBool = AtomicBool::new(false);

/// Exact completion from now on (the watchdog with `gpu` on): each
/// outermost kernel or graph launch pushes an id ([`LaunchIds`]) that
/// CUPTI ties to the launch's kernel records, and [`finished`] marks a
/// launch complete from them.
pub fn link_launches(ids: LaunchIds) {
    let _ = IDS.set(ids);
    EXACT.store(true, Release);
}

/// Whether launches are linked to CUPTI's records.
pub fn linked() -> bool {
    EXACT.load(Relaxed)
}

#[cold]
#[inline(never)]
fn push_launch_id() -> u64 {
    IDS.get().map_or(0, |i| (i.push)())
}

/// Pop the call's id; the id its kernel's record will carry.
#[cold]
#[inline(never)]
fn pop_launch_id(ext: u64) -> u64 {
    let Some(i) = IDS.get() else { return 0 };
    (i.pop)(ext);
    (i.last)()
}

/// Keep launch `seq`'s id (0 too: it overwrites the id of the launch
/// `LINK_RING` earlier, which must not be matched or shown as linked).
fn link(s: &StreamRec, seq: u64, ext: u64, graph: bool) {
    let mut ring = s.links.load(Acquire);
    if ring.is_null() {
        if ext == 0 {
            return;
        }
        ring = new_link_ring(s);
    }
    // SAFETY: leaked, never freed.
    let r = unsafe { &*ring };
    r.0[seq as usize % LINK_RING].store(if ext == 0 { 0 } else { ext | if graph { LINK_GRAPH } else { 0 } }, Release);
}

/// The stream's ring of launch ids (made once: the first linked launch).
#[cold]
fn new_link_ring(s: &StreamRec) -> *mut LinkRing {
    // Zeroed on the heap (32 KiB: never on the launching thread's stack);
    // zero bytes are a valid `AtomicU64` each.
    let layout = std::alloc::Layout::new::<LinkRing>();
    // SAFETY: a non-zero-sized layout.
    let mine = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<LinkRing>();
    if mine.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    match s.links.compare_exchange(std::ptr::null_mut(), mine, AcqRel, Acquire) {
        Ok(_) => mine,
        Err(theirs) => {
            // SAFETY: ours, never published, of this layout.
            unsafe { std::alloc::dealloc(mine.cast(), layout) };
            theirs
        }
    }
}

impl StreamRec {
    /// The id kept for launch `seq` (0: none, or no longer kept).
    fn link_of(&self, seq: u64) -> u64 {
        let ring = self.links.load(Acquire);
        if ring.is_null() || seq == 0 || self.launched.load(Acquire).saturating_sub(seq) >= LINK_RING as u64 {
            return 0;
        }
        // SAFETY: leaked, never freed.
        unsafe { &*ring }.0[seq as usize % LINK_RING].load(Acquire)
    }

    /// Whether CUPTI's records say when launch `seq` completes: a kernel
    /// launch (not a graph's) that carried an id still kept.
    pub fn linked(&self, seq: u64) -> bool {
        let v = self.link_of(seq);
        v != 0 && v & LINK_GRAPH == 0
    }

    /// Match a finished kernel's id among this stream's launches not
    /// complete: it and every launch before it are complete (a stream runs
    /// its launches in order); for a graph launch's node, those before it.
    fn finish(&self, ext: u64) -> bool {
        let launched = self.launched.load(Acquire);
        let done = self.completed.load(Acquire);
        let first = (done + 1).max(launched.saturating_sub(LINK_RING as u64 - 1));
        for n in first..=launched.min(done + LINK_SEARCH) {
            let v = self.link_of(n);
            if v != 0 && v & !LINK_GRAPH == ext {
                complete_up_to(self, if v & LINK_GRAPH != 0 { n - 1 } else { n });
                return true;
            }
        }
        false
    }
}

/// Kernels CUPTI reported finished, each by the id its launch carried
/// (`crate::trace::gpu`, from its records): each marks its launch and the
/// launches before it on its stream complete. Ids matched are removed
/// from `ids`; those left match no launch not complete (already complete,
/// not one of ours, or, rarely, a launch whose record came before the
/// launching thread kept its id: the caller tries those once more later).
/// Atomics only: runs on whichever thread takes CUPTI's records.
pub fn finished(ids: &mut Vec<u64>) {
    let Some(t) = TABLES.get() else { return };
    let pending: Vec<&StreamRec> = t
        .streams
        .iter()
        .filter(|s| {
            let k = s.key.load(Acquire);
            k != 0 && k < u64::MAX - MAX_STREAMS as u64 && !s.links.load(Acquire).is_null() && s.launched() > s.completed()
        })
        .collect();
    ids.retain(|&ext| !pending.iter().any(|s| s.finish(ext)));
}

// ---- fork ------------------------------------------------------------------------

extern "C" fn forked_child() {
    in_forked_child();
}

/// In a forked child: only the forking thread exists; other threads'
/// slots are freed, the streams' work is the parent's (forgotten).
pub fn in_forked_child() {
    // The child's CUPTI records are not collected (its parent's tracing
    // goes on in the parent): its launches carry no ids.
    EXACT.store(false, Relaxed);
    let me = SLOT.try_with(Cell::get).unwrap_or(std::ptr::null());
    let tid = super::gettid();
    let mut p = SLOTS.load(Acquire);
    while !p.is_null() {
        // SAFETY: leaked.
        let s = unsafe { &*p };
        if std::ptr::eq(s, me) {
            s.owner.store(tid, Relaxed);
        } else {
            s.seq_gen.store(0, Relaxed);
            s.nvtx_depth.store(0, Relaxed);
            s.owner.store(0, Relaxed);
        }
        p = s.next.load(Acquire);
    }
    if let Some(t) = TABLES.get() {
        for s in t.streams.iter() {
            let l = s.launched.load(Relaxed);
            s.completed.store(l, Relaxed);
            s.probing.store(false, Relaxed);
        }
    }
    touch_progress();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nccl_operation_names() {
        assert_eq!(nccl_op_of("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), Some("AllReduce"));
        assert_eq!(nccl_op_of("ncclKernel_Broadcast_RING_LL_Sum_int8_t"), Some("Broadcast"));
        assert_eq!(nccl_op_of("ncclDevKernel_SendRecv"), Some("SendRecv"));
        assert_eq!(nccl_op_of("vectorAdd"), None);
        assert_eq!(nccl_op_of("ncclDevKernel_"), None);
        // Mangled, as the driver names NCCL's kernels (they take an
        // ncclDevKernelArgsStorage<4096>).
        assert_eq!(nccl_op_of("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"), Some("AllReduce"));
        assert_eq!(nccl_op_of("_Z29ncclDevKernel_AllGather_RING_LL24ncclDevKernelArgsStorageILm4096EE"), Some("AllGather"));
        assert_eq!(nccl_op_of("_Z10vectorAddPfS_"), None);
    }

    #[test]
    fn stream_keys() {
        assert_eq!(stream_key(0, false, 7), LEGACY);
        assert_eq!(stream_key(1, true, 7), LEGACY);
        assert_eq!(stream_key(0, true, 7), PER_THREAD | 7 << 32);
        assert_eq!(stream_key(2, false, 7), PER_THREAD | 7 << 32);
        assert_eq!(stream_key(0xdead0, false, 7), 0xdead0);
        assert_eq!(stream_handle(LEGACY), Some(1));
        assert_eq!(stream_handle(PER_THREAD | 7 << 32), None);
        assert_eq!(stream_handle(0xdead0), Some(0xdead0));
    }
}
