//! The ledger of device memory: one per process, fed by both layers (the
//! runtime's exports and the driver interposer) through the interception
//! pipeline's ledger stage, [`before`] and [`after`].
//!
//! - **One allocation, one entry.** Only the program's own calls (depth 0)
//!   touch the ledger: a runtime call and the driver call it makes are one
//!   allocation, counted at the outermost layer. A driver call made by
//!   another library (cuBLAS, NCCL, NVIDIA's runtime under CuPy) is depth
//!   0 at the driver layer and counted there.
//! - **Families and kinds** ([`decode::op_of`]): `cudaMalloc`/`cuMemAlloc`
//!   with pitch, 3D, arrays and mipmapped arrays (kind `device`);
//!   stream-ordered allocations (`pool`, by size: what the program asked
//!   of the pool); VMM (`vmm`, counted at `cuMemCreate`, released at
//!   `cuMemRelease`, mapping is not an allocation); managed (`managed`,
//!   counted by size); IPC imports (`imported`: shown, not owned, outside
//!   the limit); pinned and registered host memory (`host`, device -1,
//!   outside the limit).
//! - **Limits** are a policy over the same usage: device, pool, VMM and
//!   managed bytes of a device are reserved atomically *before* the call
//!   ([`book::reserve`]) and returned if it fails, so racing threads never
//!   take a device past its limit; a refused call answers its layer's
//!   out-of-memory code (2 in both enums) without reaching the driver.
//!   `cudaMemGetInfo`/`cuMemGetInfo` answer total = the limit and free =
//!   the limit minus what is used, never more than the driver's free;
//!   `cuDeviceTotalMem` and `cudaDeviceProp::totalGlobalMem` answer the
//!   limit too (the smaller of it and the device's memory), so every place
//!   a program reads the size of the device agrees (docs/MEMORY.md).
//! - **Reports** ([`report`]) read the same tables.
//!
//! Cost: nothing when off (the pipeline reads one bit of its "anything
//! on?" word); when on, calls that are not allocations, frees or
//! memory-size queries cost one cached look-up by function id.

pub mod book;
pub mod caller;
pub mod decode;
pub mod fields;
pub mod report;

use decode::{Alloc, DevFrom as DevSrc, Handle, Op, Size, Space};
use std::cell::RefCell;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicU8, Ordering::*};
use std::sync::OnceLock;
use trace_format::memory::LimitSpec;

/// What kind of memory an allocation is (a column of the memory table and
/// a counter track of the timeline).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Kind {
    Device = 0,
    Pool = 1,
    Vmm = 2,
    Managed = 3,
    Graph = 4,
    Imported = 5,
    Host = 6,
}

impl Kind {
    pub const COUNT: usize = 7;
    pub const ALL: [Kind; Kind::COUNT] = [Kind::Device, Kind::Pool, Kind::Vmm, Kind::Managed, Kind::Graph, Kind::Imported, Kind::Host];

    /// The kind's name, as every output shows it (the event model holds
    /// the names, where the timeline's writers read them).
    pub fn name(self) -> &'static str {
        const _: () = assert!(crate::trace::event::names::MEMORY_KINDS.len() == Kind::COUNT);
        crate::trace::event::names::MEMORY_KINDS[self as usize]
    }

    /// Whether this kind counts against a device's limit: memory the
    /// process owns on the device.
    pub fn limited(self) -> bool {
        !matches!(self, Kind::Imported | Kind::Host)
    }
}

/// The layer a call belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    Runtime,
    Driver,
}

/// What the ledger reads of a call: the pipeline's `Call` description.
pub trait CallView {
    /// The function's id (one id space over runtime and driver names).
    fn id(&self) -> u32;
    fn name(&self) -> &str;
    fn layer(&self) -> Layer;
    /// 0: the program's own call; more: made inside another traced call.
    fn depth(&self) -> u32;
    /// The bytes of parameter `name` in the call's typed parameter block
    /// (fields named exactly like the C parameters).
    fn param(&self, name: &str) -> Option<&[u8]>;
    /// The export's return address (in its caller), when known.
    fn return_address(&self) -> Option<usize> {
        None
    }
    /// Whether the parameters of this function are readable at all.
    fn known(&self) -> bool {
        true
    }
}

/// The out-of-memory status of both layers (`cudaErrorMemoryAllocation`,
/// `CUDA_ERROR_OUT_OF_MEMORY`).
pub const OUT_OF_MEMORY: i32 = 2;

/// What the ledger asks of the driver, outside the call it is looking at.
pub struct Probe {
    /// The device of the calling thread's current context.
    pub current_device: fn() -> Option<i32>,
    /// The driver's free and total memory of the current device.
    pub mem_info: fn() -> Option<(u64, u64)>,
    /// The size of the allocation holding a device pointer.
    pub address_range: fn(u64) -> Option<u64>,
}

fn driver_current_device() -> Option<i32> {
    let mut ctx = crate::driver::CUcontext::default();
    crate::driver::cu!(cuCtxGetCurrent(&mut ctx)).ok()?;
    if ctx.is_null() {
        return None;
    }
    let mut dev = 0;
    crate::driver::cu!(cuCtxGetDevice(&mut dev, ctx)).ok()?;
    Some(dev)
}

fn driver_mem_info() -> Option<(u64, u64)> {
    let (mut f, mut t) = (0usize, 0usize);
    crate::driver::cu!(cuMemGetInfo(&mut f, &mut t)).ok()?;
    Some((f as u64, t as u64))
}

fn driver_address_range(p: u64) -> Option<u64> {
    let (mut base, mut size): (crate::driver::CUdeviceptr, usize) = (0, 0);
    crate::driver::cu!(cuMemGetAddressRange(&mut base, &mut size, p as crate::driver::CUdeviceptr)).ok()?;
    Some(size as u64)
}

static DRIVER_PROBE: Probe = Probe { current_device: driver_current_device, mem_info: driver_mem_info, address_range: driver_address_range };
static PROBE: AtomicPtr<Probe> = AtomicPtr::new(&DRIVER_PROBE as *const Probe as *mut Probe);

/// Replace the driver queries (tests: a scripted driver).
pub fn set_probe(p: &'static Probe) {
    PROBE.store(p as *const Probe as *mut Probe, Release);
}

fn probe() -> &'static Probe {
    // SAFETY: PROBE only ever holds pointers to statics.
    unsafe { &*PROBE.load(Acquire) }
}

/// The ledger's configuration (from the environment: [`configure_from_env`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub limit: LimitSpec,
    /// The memory reports are on (`CUDART_SHIM_TRACE=memory`).
    pub report: bool,
    /// Where the reports go (None: stderr; `.csv`/`.json`: that format).
    pub file: Option<String>,
    /// `CUDART_SHIM_MEMORY_BACKTRACE=N`: frames kept per allocation.
    pub backtrace: u32,
    /// The timeline is on: every allocation and free becomes a timeline
    /// event ([`take_event`]), so the ledger accounts (with attribution)
    /// even with no limit and no report.
    pub timeline: bool,
    /// The metrics are on: the ledger accounts, with attribution, for the
    /// memory gauges (which read its tables), with no report and no event.
    pub metrics: bool,
}

const ON_TRACK: u8 = 1;
const ON_REPORT: u8 = 2;
/// Leave a [`MemEvent`] for the observation stage (the timeline is on).
const ON_EVENTS: u8 = 4;
/// Attribute allocations to their calling library (the metrics are on).
const ON_ATTRIBUTE: u8 = 8;
static ON: AtomicU8 = AtomicU8::new(0);
static BACKTRACE: AtomicU32 = AtomicU32::new(0);
static CONFIG: OnceLock<parking_lot::Mutex<Config>> = OnceLock::new();
static START_NS: AtomicU64 = AtomicU64::new(0);

/// Whether the ledger stage has anything to do (a limit, or the reports):
/// read by the pipeline at its one-time setup, which is when the ledger
/// reads its configuration from the environment.
pub fn enabled() -> bool {
    static FROM_ENV: std::sync::Once = std::sync::Once::new();
    FROM_ENV.call_once(|| {
        if ON.load(Relaxed) == 0 {
            configure_from_env();
        }
    });
    active()
}

#[inline(always)]
fn active() -> bool {
    ON.load(Relaxed) != 0
}

/// Functions the ledger acts on (those of its parameter table, `fields`),
/// one bit per function id, set by [`configure`] before the pipeline's
/// switch says the ledger is on; ids past the table are taken as
/// concerned (the stage then decides, as it always could).
static CONCERNED: [AtomicU64; OPS_CACHED / 64] = [const { AtomicU64::new(0) }; OPS_CACHED / 64];

fn mark_concerned() {
    for id in 0..OPS_CACHED as u32 {
        if fields::known(id) {
            CONCERNED[id as usize / 64].fetch_or(1 << (id % 64), Relaxed);
        }
    }
}

/// Whether the ledger's stage has anything to do for a call of function
/// `id`: the ledger knows the function's parameters (an allocation, a
/// free, a memory-size question), or it leaves memory events for the
/// timeline (then every call clears the one an earlier call left). The
/// pipeline asks before it runs the stage, so every other call pays one
/// bit test: with the ledger on for the metrics, running the stage on
/// every call cost +9 to +13 ns a call over the summary on the fake
/// driver, the whole of the metrics' per-call cost (docs/PERFORMANCE.md).
#[inline(always)]
pub fn concerns(id: u32) -> bool {
    listed(id) || events()
}

/// Whether function `id` is marked in [`CONCERNED`].
#[inline(always)]
fn listed(id: u32) -> bool {
    let i = id as usize;
    CONCERNED.get(i / 64).is_none_or(|w| w.load(Relaxed) >> (i % 64) & 1 != 0)
}

/// The pipeline's ledger stage before the call: `Some(code)` refuses it.
#[inline]
pub fn before(call: &crate::control::Call) -> Option<i32> {
    before_view(&fields::View(call))
}

/// The pipeline's ledger stage after the call: the result the caller sees.
#[inline]
pub fn after(call: &crate::control::Call, result: i32) -> i32 {
    after_view(&fields::View(call), result)
}

fn reporting() -> bool {
    ON.load(Relaxed) & ON_REPORT != 0
}

/// Whether allocations are attributed to their calling library (the
/// reports and the timeline show it; limits alone need none).
fn attributing() -> bool {
    ON.load(Relaxed) & (ON_REPORT | ON_EVENTS | ON_ATTRIBUTE) != 0
}

#[inline(always)]
fn events() -> bool {
    ON.load(Relaxed) & ON_EVENTS != 0
}

/// Switch the ledger on as `c` says (off when it asks for nothing).
pub fn configure(c: Config) {
    for d in 0..book::DEVICES {
        book::set_limit(d, c.limit.of(d as u32));
    }
    BACKTRACE.store(c.backtrace, Relaxed);
    let _ = START_NS.compare_exchange(0, crate::trace::event::clock::mono_ns(), Relaxed, Relaxed);
    let mut on = if c.report { ON_TRACK | ON_REPORT } else if !c.limit.is_empty() { ON_TRACK } else { 0 };
    if c.timeline {
        on |= ON_TRACK | ON_EVENTS;
    }
    if c.metrics {
        on |= ON_TRACK | ON_ATTRIBUTE;
    }
    *CONFIG.get_or_init(Default::default).lock() = c;
    if on != 0 {
        mark_concerned();
    }
    ON.store(on, Release);
    if on != 0 {
        static AT_FORK: std::sync::Once = std::sync::Once::new();
        // SAFETY: registering a plain extern "C" function.
        AT_FORK.call_once(|| unsafe {
            libc::pthread_atfork(None, None, Some(in_forked_child));
        });
    }
}

/// Set in a forked child: it keeps no ledger and writes no memory report.
static FORKED_CHILD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A forked child's CUDA calls fail (the driver does not survive `fork`),
/// so its device memory is its parent's, which the parent reports; and
/// the ledger's locks may be held by a thread that does not exist in the
/// child: booking or reporting there would wait forever (scripts/stress,
/// `fork`: the child's exit hung in the leak report, 2 runs in 1,000,
/// the lock held by a thread freeing as the parent forked).
extern "C" fn in_forked_child() {
    FORKED_CHILD.store(true, Relaxed);
    ON.store(0, Relaxed);
}

/// The configuration in force.
pub fn config() -> Config {
    CONFIG.get().map(|c| c.lock().clone()).unwrap_or_default()
}

/// Configure from `CUDART_SHIM_MEMORY_LIMIT`, `CUDART_SHIM_MEMORY_BACKTRACE`
/// and `memory` in `CUDART_SHIM_TRACE` (read once by `config`).
pub fn configure_from_env() {
    let m = crate::config::memory_config();
    let t = crate::config::trace_config();
    configure(Config { limit: m.limit.clone(), report: t.memory, file: t.memory_file.clone(), backtrace: m.backtrace, timeline: t.timeline, metrics: crate::config::metrics_config().on() });
}

/// Nanoseconds since the ledger started.
pub fn now_ns() -> u64 {
    crate::trace::event::clock::mono_ns().saturating_sub(START_NS.load(Relaxed))
}

/// [`now_ns`] at the kernel's tick resolution (1 to 4 ms), for the time of
/// each allocation (the memory table's peak time, the leak report): the
/// coarse clock is a plain read of the vDSO page, where the precise one
/// was 15% of an allocation's bookkeeping (`cargo bench --bench ledger`).
fn coarse_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid clock id and out-struct; the same clock as mono_ns at
    // a coarser resolution.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut t) };
    (t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64).saturating_sub(START_NS.load(Relaxed))
}

/// What `before` left for `after` on this thread.
enum Pending {
    None,
    /// The call was refused: `after` has nothing to book.
    Refused,
    Alloc { device: i32, charged: u64, requested: u64 },
    Free { space: Space, handle: u64, entry: book::Entry },
}

/// What one call changed in the ledger, for the timeline (the pipeline's
/// observation stage takes it with [`take_event`] after the ledger stage
/// ran; left only while the timeline is on, [`Config::timeline`]): an
/// allocation or a free as an instant carrying its size and library, and
/// the new value of the counter track of its device and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemEvent {
    pub alloc: bool,
    pub device: i32,
    pub kind: Kind,
    pub size: u64,
    pub lib: caller::LibId,
    /// Bytes live on the device of this kind after the call.
    pub track: u64,
}

impl MemEvent {
    /// The timeline event of this change ([`KIND_MEMORY`]), made by a call
    /// that returned at `t` (clock ticks).
    ///
    /// [`KIND_MEMORY`]: crate::trace::event::KIND_MEMORY
    pub fn event(&self, t: u64) -> crate::trace::event::Event {
        use crate::trace::event::{Event, KIND_MEMORY, MEM_ALLOC};
        let depth = self.kind as u32 | if self.alloc { MEM_ALLOC as u32 } else { 0 };
        Event::new(self.lib as u32, depth, KIND_MEMORY, self.device, t, self.track, self.size as i64)
    }
}

/// The memory event of this thread's last call, if it changed the ledger.
/// Each call of the program's own (depth 0) clears what an earlier call
/// left, so the event is always this call's.
#[inline]
pub fn take_event() -> Option<MemEvent> {
    if !events() {
        return None;
    }
    EVENT.try_with(|e| e.take()).ok().flatten()
}

fn set_event(alloc: bool, e: &book::Entry) {
    if events() {
        let ev = MemEvent { alloc, device: e.device, kind: e.kind, size: e.size, lib: e.lib, track: book::track(e.device, e.kind) };
        let _ = EVENT.try_with(|c| c.set(Some(ev)));
    }
}

thread_local! {
    static EVENT: std::cell::Cell<Option<MemEvent>> = const { std::cell::Cell::new(None) };
    static PENDING: RefCell<Pending> = const { RefCell::new(Pending::None) };
    static TID: std::cell::Cell<i32> = const { std::cell::Cell::new(0) };
}

fn set_pending(p: Pending) {
    let _ = PENDING.try_with(|c| *c.borrow_mut() = p);
}

fn take_pending() -> Pending {
    PENDING.try_with(|c| std::mem::replace(&mut *c.borrow_mut(), Pending::None)).unwrap_or(Pending::None)
}

fn tid() -> i32 {
    TID.try_with(|t| {
        if t.get() == 0 {
            // SAFETY: gettid has no arguments and cannot fail.
            t.set(unsafe { libc::syscall(libc::SYS_gettid) } as i32);
        }
        t.get()
    })
    .unwrap_or(0)
}

const OPS_CACHED: usize = 4096;
static OPS: [OnceLock<Option<Op>>; OPS_CACHED] = [const { OnceLock::new() }; OPS_CACHED];

#[inline]
fn op_for<C: CallView>(call: &C) -> Option<Op> {
    if !call.known() {
        return None;
    }
    match OPS.get(call.id() as usize) {
        Some(slot) => *slot.get_or_init(|| decode::op_of(call.name())),
        None => decode::op_of(call.name()),
    }
}

/// A parameter as an unsigned word (zero-extended; 0 when absent).
fn word<C: CallView>(call: &C, name: &str) -> u64 {
    let Some(b) = call.param(name) else { return 0 };
    let mut w = [0u8; 8];
    let n = b.len().min(8);
    w[..n].copy_from_slice(&b[..n]);
    u64::from_ne_bytes(w)
}

/// A `size_t` at byte `off` of a parameter passed by value (a struct).
fn field<C: CallView>(call: &C, name: &str, off: usize) -> u64 {
    call.param(name).and_then(|b| b.get(off..off + 8)).map_or(0, |s| u64::from_ne_bytes(s.try_into().unwrap()))
}

/// Read a `T` the program's pointer parameter points at.
///
/// # Safety
/// Only after the driver accepted the call (so the pointer is valid) or
/// for input structs the call itself will read.
unsafe fn read_at<T: Copy>(p: u64) -> Option<T> {
    if p == 0 {
        return None;
    }
    // SAFETY: per the contract; unaligned reads are allowed.
    Some(unsafe { std::ptr::read_unaligned(p as *const T) })
}

/// `CUDA_ARRAY_DESCRIPTOR` (cuda.h).
#[repr(C)]
#[derive(Clone, Copy)]
struct ArrayDesc {
    width: usize,
    height: usize,
    format: u32,
    channels: u32,
}

/// `CUDA_ARRAY3D_DESCRIPTOR` (cuda.h).
#[repr(C)]
#[derive(Clone, Copy)]
struct Array3DDesc {
    width: usize,
    height: usize,
    depth: usize,
    format: u32,
    channels: u32,
    flags: u32,
}

/// The bytes asked for, before the call.
fn size_before<C: CallView>(call: &C, a: &Alloc) -> u64 {
    match a.size {
        Size::Param(p) => word(call, p),
        Size::Pitch { width, height, .. } => word(call, width).saturating_mul(word(call, height).max(1)),
        Size::Extent3D { extent } => field(call, extent, 0).saturating_mul(field(call, extent, 8).max(1)).saturating_mul(field(call, extent, 16).max(1)),
        Size::RtArray { desc, width, height } => {
            // SAFETY: the call reads this descriptor too (NULL is refused there).
            let bpe = unsafe { read_at::<[i32; 4]>(word(call, desc)) }.map_or(1, |c| c.iter().map(|&b| b.max(0) as u64).sum::<u64>().div_ceil(8).max(1));
            word(call, width).saturating_mul(word(call, height).max(1)).saturating_mul(bpe)
        }
        Size::RtArray3D { desc, extent, levels } => {
            // SAFETY: as above.
            let bpe = unsafe { read_at::<[i32; 4]>(word(call, desc)) }.map_or(1, |c| c.iter().map(|&b| b.max(0) as u64).sum::<u64>().div_ceil(8).max(1));
            let lv = levels.map_or(1, |l| word(call, l) as u32);
            decode::array_elements(field(call, extent, 0), field(call, extent, 8), field(call, extent, 16), lv).saturating_mul(bpe)
        }
        Size::DrvArray { desc } => {
            // SAFETY: the call reads this descriptor too.
            unsafe { read_at::<ArrayDesc>(word(call, desc)) }
                .map_or(0, |a| decode::array_elements(a.width as u64, a.height as u64, 0, 1).saturating_mul(decode::drv_format_bytes(a.format, a.channels)))
        }
        Size::DrvArray3D { desc, levels } => {
            // SAFETY: the call reads this descriptor too.
            let lv = levels.map_or(1, |l| word(call, l) as u32);
            unsafe { read_at::<Array3DDesc>(word(call, desc)) }.map_or(0, |a| {
                let _ = a.flags;
                decode::array_elements(a.width as u64, a.height as u64, a.depth as u64, lv).saturating_mul(decode::drv_format_bytes(a.format, a.channels))
            })
        }
        Size::AddressRange => 0,
    }
}

/// The bytes allocated, after a successful call (the pitch chosen, the
/// size of an imported range).
fn size_after<C: CallView>(call: &C, a: &Alloc, before: u64) -> u64 {
    match a.size {
        Size::Pitch { height, pitch_out, .. } => {
            // SAFETY: the call succeeded, so the pitch out-pointer was written.
            let pitch = unsafe { read_at::<u64>(word(call, pitch_out)) }.unwrap_or(0);
            if pitch == 0 { before } else { pitch.saturating_mul(word(call, height).max(1)) }
        }
        Size::Extent3D { extent } => {
            // SAFETY: cudaPitchedPtr {void* ptr; size_t pitch; ...}, written by the call.
            let pitch = unsafe { read_at::<[u64; 2]>(word(call, "pitchedDevPtr")) }.map_or(0, |p| p[1]);
            if pitch == 0 { before } else { pitch.saturating_mul(field(call, extent, 8).max(1)).saturating_mul(field(call, extent, 16).max(1)) }
        }
        _ => before,
    }
}

fn device_of<C: CallView>(call: &C, a: &Alloc) -> i32 {
    match a.device {
        DevSrc::Host => -1,
        DevSrc::Current => (probe().current_device)().unwrap_or(0),
        // SAFETY: CUmemAllocationProp {type, handleTypes, location {type, id}}: id at byte 12; the call reads it too.
        DevSrc::VmmProp(p) => unsafe { read_at::<[i32; 4]>(word(call, p)) }.map_or(0, |v| v[3]),
    }
}

/// The ledger stage before the call, over any description of it:
/// Some(status) refuses it.
pub fn before_view<C: CallView>(call: &C) -> Option<i32> {
    if call.depth() > 0 || !active() {
        return None;
    }
    match op_for(call)? {
        Op::Alloc(a) => {
            let requested = size_before(call, &a);
            let device = device_of(call, &a);
            let charged = if a.kind.limited() && device >= 0 { requested } else { 0 };
            if charged > 0
                && let Err(used) = book::reserve(device, charged)
            {
                set_pending(Pending::Refused);
                refused(call, &a, device, requested, used);
                return Some(OUT_OF_MEMORY);
            }
            set_pending(Pending::Alloc { device, charged, requested });
        }
        Op::Free { space, handle } => {
            let h = word(call, handle);
            match if h == 0 { None } else { book::take(space, h) } {
                Some(entry) => set_pending(Pending::Free { space, handle: h, entry }),
                None => set_pending(Pending::None),
            }
        }
        _ => {}
    }
    None
}

/// The ledger stage after the call: books it, may rewrite the memory-size
/// answers, and returns the status the caller sees.
pub fn after_view<C: CallView>(call: &C, result: i32) -> i32 {
    if call.depth() > 0 || !active() {
        return result;
    }
    if events() {
        // An event an earlier call left untaken (made outside a capture
        // window) is not this call's.
        let _ = EVENT.try_with(|c| c.set(None));
    }
    let Some(op) = op_for(call) else { return result };
    match (op, take_pending()) {
        (Op::Alloc(a), Pending::Alloc { device, charged, requested }) => {
            if result == 0 {
                allocated(call, &a, device, charged, requested);
            } else {
                book::unreserve(device, charged);
                if result == OUT_OF_MEMORY && book::first_oom(a.kind) {
                    report::oom(call.name(), device, a.kind, requested, "driver", caller_lib(call));
                }
            }
        }
        (Op::Free { .. }, Pending::Free { space, handle, entry }) => {
            if result == 0 {
                book::settle(&entry);
                set_event(false, &entry);
            } else {
                book::restore(space, handle, entry);
            }
        }
        (Op::MemInfo { free, total }, _) if result == 0 => {
            let dev = (probe().current_device)().unwrap_or(0);
            if let Some(lim) = book::limit(dev) {
                let (fp, tp) = (word(call, free), word(call, total));
                // SAFETY: the call succeeded: both pointers were written.
                if let (Some(df), Some(_)) = unsafe { (read_at::<usize>(fp), read_at::<usize>(tp)) } {
                    let f = lim.saturating_sub(book::used(dev)).min(df as u64);
                    unsafe {
                        std::ptr::write_unaligned(fp as *mut usize, f as usize);
                        std::ptr::write_unaligned(tp as *mut usize, lim as usize);
                    }
                }
            }
        }
        (Op::TotalMem { bytes, dev }, _) if result == 0 => {
            let d = word(call, dev) as u32 as i32;
            let p = word(call, bytes);
            // SAFETY: the call succeeded: *bytes was written.
            if let (Some(lim), Some(v)) = (book::limit(d), unsafe { read_at::<usize>(p) }) {
                unsafe { std::ptr::write_unaligned(p as *mut usize, (v as u64).min(lim) as usize) };
            }
        }
        (Op::DeviceProps { prop, dev }, _) if result == 0 => {
            let d = word(call, dev) as u32 as i32;
            // Same offset in the CUDA 12 and 13 layouts (tests/ledger.rs checks both).
            let p = word(call, prop) + std::mem::offset_of!(crate::types::cudaDeviceProp, totalGlobalMem) as u64;
            // SAFETY: the call succeeded: the struct was written.
            if let (Some(lim), Some(v)) = (book::limit(d), unsafe { read_at::<usize>(p) }) {
                unsafe { std::ptr::write_unaligned(p as *mut usize, (v as u64).min(lim) as usize) };
            }
        }
        _ => {}
    }
    result
}

/// The calling library and return address of this call (0 when the
/// reports are off: limits need no attribution).
fn caller_of<C: CallView>(call: &C) -> (caller::LibId, usize, Option<Box<[usize]>>) {
    if !attributing() {
        return (0, 0, None);
    }
    let frames = BACKTRACE.load(Relaxed) as usize;
    if frames == 0
        && let Some(ret) = call.return_address()
        && let Some((lib, false)) = caller::segment(ret.wrapping_sub(1))
    {
        return (lib, ret, None);
    }
    let (ret, bt) = caller::unwind(frames);
    let lib = caller::segment(ret.wrapping_sub(1)).map_or(0, |(l, _)| l);
    (lib, ret, (frames > 0).then(|| bt.into_boxed_slice()))
}

fn caller_lib<C: CallView>(call: &C) -> String {
    caller::name(caller_of(call).0)
}

fn allocated<C: CallView>(call: &C, a: &Alloc, device: i32, mut charged: u64, requested: u64) {
    let handle = match a.handle {
        // SAFETY: the call succeeded: the out-pointer holds the handle.
        Handle::Out(p) => unsafe { read_at::<u64>(word(call, p)) }.unwrap_or(0),
        Handle::In(p) => word(call, p),
    };
    let mut size = size_after(call, a, requested);
    if a.size == Size::AddressRange {
        size = (probe().address_range)(handle).unwrap_or(0);
    }
    // The driver's choice (a pitch) may be larger than what was reserved:
    // the difference is charged too (it is already allocated).
    if charged > 0 && size > charged {
        book::charge(device, size - charged);
        charged = size;
    }
    let (lib, ret, backtrace) = caller_of(call);
    let stream = a.stream.map_or(0, |s| word(call, s));
    let e = book::Entry { size, device, kind: a.kind, lib, caller: ret, stream, time_ns: coarse_ns(), tid: tid(), seq: 0, backtrace, charged };
    let (kind, lib) = (e.kind, e.lib);
    book::insert(a.space, handle, e);
    if events() {
        let ev = MemEvent { alloc: true, device, kind, size, lib, track: book::track(device, kind) };
        let _ = EVENT.try_with(|c| c.set(Some(ev)));
    }
}

#[cold]
fn refused<C: CallView>(call: &C, a: &Alloc, device: i32, requested: u64, used: u64) {
    let lim = book::limit(device).unwrap_or(0);
    if book::first_refusal(device) {
        crate::config::init_logging();
        log::warn!(
            "memory limit: {} of {} bytes on device {device} refused (CUDART_SHIM_MEMORY_LIMIT: limit {} bytes, {} bytes in use); the call returns out-of-memory. Further refusals on this device are not logged.",
            call.name(),
            requested,
            lim,
            used
        );
    }
    if book::first_oom(a.kind) {
        report::oom(call.name(), device, a.kind, requested, "limit", caller_lib(call));
    }
}

/// At exit (this library's `.fini_array`, after the program's `atexit`
/// handlers and destructors): the memory table and the leak report.
extern "C" fn at_exit() {
    if FORKED_CHILD.load(Relaxed) {
        return;
    }
    let _ = std::panic::catch_unwind(|| report::write(true));
}

#[used]
#[unsafe(link_section = ".fini_array")]
static AT_EXIT: extern "C" fn() = at_exit;

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> u32 {
        crate::control::params::NAMES.iter().position(|n| *n == name).unwrap() as u32
    }

    /// The pipeline skips the ledger's stage for a function not marked:
    /// every function the ledger acts on is marked, the others are not.
    #[test]
    fn the_stage_runs_for_the_memory_calls_alone() {
        mark_concerned();
        for f in ["cudaMalloc", "cudaFree", "cudaMemGetInfo", "cudaMallocAsync", "cuMemAlloc_v2", "cuMemFree_v2", "cuMemGetInfo_v2"] {
            assert!(listed(id(f)), "{f}");
        }
        for f in ["cudaGetDevice", "cudaGetLastError", "cudaDeviceGetAttribute", "cudaLaunchKernel", "cuCtxGetCurrent"] {
            assert!(!listed(id(f)), "{f}");
        }
        // The stage acts only on functions whose parameters it knows
        // (`op_for`): exactly those are marked.
        for (i, name) in crate::control::params::NAMES.iter().enumerate() {
            assert_eq!(listed(i as u32), fields::known(i as u32), "{name}");
        }
        // Past the table: the stage decides.
        assert!(listed(OPS_CACHED as u32 + 5));
    }
}
