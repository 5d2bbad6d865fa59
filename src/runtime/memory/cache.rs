//! The opt-in caching allocator (`CUDART_SHIM_POOL=1`), in the spirit of
//! PyCUDA's `DeviceMemoryPool`, CuPy's `MemoryPool` and PyTorch's caching
//! allocator: `cudaMalloc`/`cudaFree` and `cudaMallocHost`/`cudaFreeHost`
//! keep freed memory and hand it out again, so frequent allocation stops
//! paying the driver's cost.
//!
//! Shape:
//! - One [`Pool`] per device and [`Kind`] (device memory, pinned host
//!   memory). A pool takes *segments* from the driver, each a multiple of
//!   2 MiB (the granularity the driver holds device memory in, so the bytes
//!   a pool counts as held are the bytes the driver reports in use), and
//!   carves the program's blocks out of them: requests round up to 512 B
//!   and take the smallest free block that fits (best fit), the rest of it
//!   stays free, and neighbours in a segment merge again when both are
//!   free, so memory freed in one size serves others. (Per-size free lists
//!   would hoard blocks of sizes the program stopped asking for; one driver
//!   allocation per block would pay the driver's 2 MiB rounding on every
//!   block: 3 MiB + 1 B holds 4 MiB.)
//! - A pool's state sits behind one short `parking_lot` mutex (best fit
//!   needs one view of all sizes), held for a few tree operations, never
//!   across a driver call. The blocks the program holds are also in one map
//!   sharded by address (64 mutexes), with their device, kind and size, so
//!   `cudaFree` finds the pool without a scan. `cudaFree` of an address in
//!   no segment goes to the driver, which answers as it does without the
//!   cache; any other address in a segment that is not a block the program
//!   holds (freed twice, interior) gets the driver's answer for a freed
//!   pointer (`cudaErrorInvalidValue`) without reaching the driver (which
//!   would really free a segment still in use).
//! - Sizes above 64 TiB go straight to the driver (its error for
//!   impossible sizes).
//!
//! Reuse waits for the work that may still use a block. A freed block is
//! stamped with the pool's sync epoch; it becomes free for reuse (and
//! merges with free neighbours) once a `cuCtxSynchronize` of the device's
//! primary context (pinned memory: of every device's) has started after
//! the free (one synchronize covers every block freed before it). NVIDIA's
//! `cudaFree` synchronizes anyway, so this is never weaker.
//!
//! How much is held: at most 1.3 times what the program holds plus 4 MiB
//! (the cap; blocks waiting for a synchronize count as held), apart from
//! one-off segments. An allocation that finds no free block that fits
//! grows the pool by a new segment (2 MiB, doubling to 8 MiB, then an
//! eighth of what the pool holds, at most 64 MiB, and at least the
//! request) while that stays under the cap. When it would not, and freed
//! blocks of at least the request's bytes wait, it synchronizes once and
//! retries; below the cap it never synchronizes, so a loop of frees and
//! allocations pays one synchronize each time the blocks it can reuse run
//! out, not one per call. Still no fit: segments with nothing in use go
//! back to the driver (largest first) until the new one fits under the
//! cap; if it still does not, the request gets a one-off segment of its own
//! size (rounded to 2 MiB), which goes back to the driver once its block is
//! freed and a synchronize has passed. So only blocks the program holds (or
//! just freed) push a pool over its cap, and driver calls stay rare. Memory
//! the program stops using stays cached (as in PyTorch) until an allocation
//! needs the room, out of memory, or a reset.
//!
//! Out of memory: the pool synchronizes, gives back every segment with
//! nothing in use, and retries once with the least segment for the request.
//!
//! No synchronize while a stream captures (it would invalidate the
//! capture, measured with `tests/gpu/cache_capture.cu` on an H100): the
//! pool grows instead, and gives nothing back to the driver until the
//! capture ends (`cuMemFree` may be forbidden in the capture's mode), short
//! of running out of memory.
//!
//! `cudaDeviceReset` destroys every allocation of the primary context: a
//! reset hook forgets the device's segments (no driver call needed). At
//! process exit nothing is released: the driver may already be unloading,
//! and it frees the context's memory itself; the cache simply leaks.
//!
//! Blocks are cached only for the device's primary context; allocations
//! made while the program's own driver context is current go straight to
//! the driver.
//!
//! Carving shows where NVIDIA's own sub-allocation of small `cudaMalloc`s
//! does: `cuMemGetAddressRange`/`cudaPointerGetAttributes` report the
//! segment, and an IPC handle (`cudaIpcGetMemHandle`) shares the whole
//! segment, which the other process opens at the segment's base (programs
//! add the offset from `cuMemGetAddressRange`, as NVIDIA's documentation
//! asks for sub-allocated memory).

use crate::driver::CUcontext;
use crate::runtime::state::runtime;
use crate::types::*;
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ffi::{c_int, c_void};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;

/// What a pool hands out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `cudaMalloc` (`cuMemAlloc`).
    Device = 0,
    /// `cudaMallocHost` (`cuMemAllocHost`: portable, mapped).
    Host = 1,
}

/// The driver's allocation behind `cudaMalloc` / `cudaMallocHost`.
#[inline(always)]
pub(super) fn driver_alloc(kind: Kind, size: usize) -> CudaResult<*mut c_void> {
    match kind {
        Kind::Device => {
            let mut d = 0;
            cu!(cuMemAlloc(&mut d, size))?;
            Ok(d as usize as *mut c_void)
        }
        Kind::Host => {
            let mut p = std::ptr::null_mut();
            cu!(cuMemAllocHost(&mut p, size))?;
            Ok(p)
        }
    }
}

/// The driver's release behind `cudaFree` / `cudaFreeHost`.
#[inline(always)]
pub(super) fn driver_free(kind: Kind, p: *mut c_void) -> CudaResult {
    match kind {
        Kind::Device => cu!(cuMemFree(super::dptr(p))),
        Kind::Host => cu!(cuMemFreeHost(p)),
    }
}


// ---------------------------------------------------------------- switch

const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Whether `CUDART_SHIM_POOL=1`. After the first call this is one relaxed
/// load: the whole cost of the cache when it is off.
#[inline(always)]
pub fn enabled() -> bool {
    match STATE.load(Ordering::Relaxed) {
        OFF => false,
        ON => true,
        _ => read_switch(),
    }
}

#[cold]
fn read_switch() -> bool {
    static SWITCH: OnceLock<bool> = OnceLock::new();
    let on = *SWITCH.get_or_init(|| {
        let on = crate::config::pool_switch(crate::config::env_var).unwrap_or_else(|w| {
            log::warn!("{w}");
            false
        });
        if on {
            crate::runtime::context::on_reset(forget_device);
            crate::trace::set_summary_extra(summary_text);
            log::debug!("caching allocator on (CUDART_SHIM_POOL=1)");
        }
        on
    });
    STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
    on
}

// ---------------------------------------------------------------- sizes

/// Requests round up to this (the alignment `cudaMalloc` gives).
const ALIGN: usize = 512;
/// Segments are multiples of this: the driver's own granularity for
/// device memory, so rounding to it costs nothing the driver would not
/// take anyway.
const PAGE: usize = 2 << 20;
/// Larger requests go to the driver.
const MAX_SIZE: usize = 1 << 46;
/// New segments grow from 2 MiB to this, then with what the pool holds.
const SEGMENT_RAMP: usize = 8 << 20;
/// ... as this fraction of it ...
const SEGMENT_SHARE: usize = 8;
/// ... up to this (a larger request gets a segment of its own size).
const SEGMENT_MAX: usize = 64 << 20;
/// The cap on what a pool holds: `CAP_PERCENT` % of what the program
/// holds, plus `CAP_SLACK`.
const CAP_PERCENT: usize = 130;
const CAP_SLACK: usize = 4 << 20;

/// The size of the next segment for a request of `r` bytes when the pool
/// holds `held`: at least `r` rounded to 2 MiB; otherwise 2, 4, 8 MiB as
/// the pool starts, then an eighth of what it holds (so segments stay few,
/// and each wastes at most the tail a request cannot fill), at most 64 MiB.
fn segment_size(r: usize, held: usize) -> usize {
    let least = r.next_multiple_of(PAGE);
    let grow = (held / SEGMENT_SHARE).max(SEGMENT_RAMP.min(held)).next_multiple_of(PAGE);
    least.max(grow.min(SEGMENT_MAX))
}

/// The most a pool may hold (short of one-off segments) while the program
/// holds `live` bytes.
fn cap(live: usize) -> usize {
    live.saturating_mul(CAP_PERCENT) / 100 + CAP_SLACK
}

// ---------------------------------------------------------------- heap

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// In the program's hands.
    Live,
    /// Freed; waits for a synchronize (listed in `Heap::waiting`).
    Waiting,
    /// Free for reuse (listed in `Heap::ready`).
    Ready,
}

/// A piece of a segment. The blocks of a segment tile it, in address order.
#[derive(Clone, Copy, Debug)]
struct Block {
    size: usize,
    state: State,
    /// First / last block of its segment: the neighbour across such an
    /// edge belongs to another driver allocation and never merges.
    first: bool,
    last: bool,
    /// The only block of a one-off segment, which goes back to the driver
    /// once the block is free for reuse.
    one_off: bool,
}

/// The segments and blocks of one pool. Every method is a few tree
/// operations; no driver call happens under the pool's lock.
#[derive(Default)]
struct Heap {
    blocks: BTreeMap<usize, Block>,
    /// Free blocks by (size, address): best fit is the first at or above a
    /// size.
    ready: BTreeSet<(usize, usize)>,
    /// Freed blocks and the epoch they were freed in, in free order (so in
    /// epoch order: the epoch is read under the lock and only grows).
    waiting: VecDeque<(usize, u64)>,
    live_bytes: usize,
    live_blocks: usize,
    ready_bytes: usize,
    waiting_bytes: usize,
    held_bytes: usize,
    segments: usize,
    peak_held_bytes: usize,
}

impl Heap {
    /// Best fit for `r` bytes; the rest of the block stays free.
    fn take(&mut self, r: usize) -> Option<(usize, usize)> {
        let &(size, p) = self.ready.range((r, 0)..).next()?;
        self.take_block(size, p, r)
    }

    /// Hand out the first `r` bytes of the free block (`size`, `p`).
    fn take_block(&mut self, size: usize, p: usize, r: usize) -> Option<(usize, usize)> {
        self.ready.remove(&(size, p));
        self.ready_bytes -= size;
        let b = self.blocks.get_mut(&p)?;
        b.state = State::Live;
        if size > r {
            // Sizes are multiples of ALIGN: the rest is a usable block.
            let rest = Block { size: size - r, state: State::Ready, first: false, last: b.last, one_off: false };
            b.size = r;
            b.last = false;
            self.blocks.insert(p + r, rest);
            self.ready.insert((rest.size, p + r));
            self.ready_bytes += rest.size;
        }
        self.live_bytes += r;
        self.live_blocks += 1;
        Some((p, r))
    }

    /// The program freed the block at `p` during `epoch`; None when `p` is
    /// not a block the program holds.
    fn free(&mut self, p: usize, epoch: u64) -> Option<usize> {
        let b = self.blocks.get_mut(&p).filter(|b| b.state == State::Live)?;
        b.state = State::Waiting;
        let size = b.size;
        self.live_bytes -= size;
        self.live_blocks -= 1;
        self.waiting_bytes += size;
        self.waiting.push_back((p, epoch));
        Some(size)
    }

    /// Blocks freed before epoch `safe` are free for reuse: merge each with
    /// its free neighbours; one-off segments go to `back` for the driver
    /// (unless `keep`: they then stay, as ordinary segments).
    fn promote(&mut self, safe: u64, keep: bool, back: &mut Vec<(usize, usize)>) {
        while let Some(&(p, epoch)) = self.waiting.front() {
            if epoch >= safe {
                break;
            }
            self.waiting.pop_front();
            let Some(b) = self.blocks.get(&p).copied() else { continue };
            self.waiting_bytes -= b.size;
            if b.one_off && !keep {
                self.blocks.remove(&p);
                self.held_bytes -= b.size;
                self.segments -= 1;
                back.push((p, b.size));
                continue;
            }
            // Take in the next block if free, then merge into the previous
            // one if free (in place: fewer tree operations than a remove and
            // an insert).
            let (mut size, mut last) = (b.size, b.last);
            if !b.last
                && let Some(n) = self.blocks.get(&(p + size)).copied().filter(|n| n.state == State::Ready)
            {
                self.blocks.remove(&(p + size));
                self.ready.remove(&(n.size, p + size));
                self.ready_bytes -= n.size;
                size += n.size;
                last = n.last;
            }
            self.ready_bytes += size;
            let into_previous = !b.first
                && match self.blocks.range_mut(..p).next_back() {
                    Some((&q, prev)) if prev.state == State::Ready => {
                        self.ready.remove(&(prev.size, q));
                        prev.size += size;
                        prev.last = last;
                        self.ready.insert((prev.size, q));
                        true
                    }
                    _ => false,
                };
            if into_previous {
                self.blocks.remove(&p);
            } else if let Some(b) = self.blocks.get_mut(&p) {
                *b = Block { size, state: State::Ready, last, one_off: false, ..*b };
                self.ready.insert((size, p));
            }
        }
    }

    /// A new segment at `base` of `size` bytes; returns its first block of
    /// `r` bytes (a one-off segment is one block).
    fn add_segment(&mut self, base: usize, size: usize, r: usize, one_off: bool) -> (usize, usize) {
        self.held_bytes += size;
        self.segments += 1;
        self.peak_held_bytes = self.peak_held_bytes.max(self.held_bytes);
        if one_off {
            self.blocks.insert(base, Block { size, state: State::Live, first: true, last: true, one_off });
            self.live_bytes += size;
            self.live_blocks += 1;
            return (base, size);
        }
        self.blocks.insert(base, Block { size, state: State::Ready, first: true, last: true, one_off });
        self.ready.insert((size, base));
        self.ready_bytes += size;
        self.take_block(size, base, r).unwrap_or((base, size))
    }

    /// Take whole free segments out, largest first, until at least `want`
    /// bytes are out; returns them for the driver.
    fn give_back(&mut self, want: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut freed = 0;
        for &(size, p) in self.ready.iter().rev() {
            if freed >= want {
                break;
            }
            if self.blocks.get(&p).is_some_and(|b| b.first && b.last) {
                out.push((p, size));
                freed += size;
            }
        }
        for &(p, size) in &out {
            self.ready.remove(&(size, p));
            self.blocks.remove(&p);
            self.ready_bytes -= size;
            self.held_bytes -= size;
            self.segments -= 1;
        }
        out
    }

    /// Whether `p` lies in one of this pool's segments.
    fn contains(&self, p: usize) -> bool {
        self.blocks.range(..=p).next_back().is_some_and(|(&q, b)| p - q < b.size)
    }

    fn cached_bytes(&self) -> usize {
        self.ready_bytes + self.waiting_bytes
    }
}

// ---------------------------------------------------------------- pools

/// The cache of one device and kind.
struct Pool {
    heap: Mutex<Heap>,
    /// Synchronizes started; a block freed while this was `e` ...
    epoch: AtomicU64,
    /// ... is free for reuse once `safe > e` (a synchronize started after
    /// the free has ended).
    safe: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    synchronizes: AtomicU64,
    released: AtomicU64,
}

/// What an allocation that found no fitting free block does next.
enum Plan {
    /// Another thread's free made a block fit after all.
    Got((usize, usize)),
    /// A new segment of this size (one-off or not).
    Segment(usize, bool),
}

impl Pool {
    fn new() -> Self {
        Pool {
            heap: Mutex::new(Heap::default()),
            epoch: AtomicU64::new(0),
            safe: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            synchronizes: AtomicU64::new(0),
            released: AtomicU64::new(0),
        }
    }

    /// Run `f` on the heap, after making ready what a synchronize allowed;
    /// segments `f` or that step take out go back to the driver after the
    /// lock is released. While a stream captures, nothing goes back on the
    /// way (`cuMemFree` may be forbidden in the capture's mode): one-off
    /// segments stay as ordinary ones.
    fn with_heap<T>(&self, kind: Kind, f: impl FnOnce(&mut Heap, &mut Vec<(usize, usize)>) -> T) -> T {
        let mut back = Vec::new();
        let t = {
            let mut h = self.heap.lock();
            h.promote(self.safe.load(Ordering::SeqCst), crate::runtime::capture::any_active(), &mut back);
            f(&mut h, &mut back)
        };
        self.release(kind, back);
        t
    }

    /// Give segments back to the driver.
    fn release(&self, kind: Kind, segments: Vec<(usize, usize)>) {
        for (p, _) in segments {
            self.released.fetch_add(1, Ordering::Relaxed);
            if let Err(e) = driver_free(kind, p as *mut c_void) {
                log::debug!("caching allocator: giving a segment back failed with {}", crate::runtime::error::name(e));
            }
        }
    }

    /// A block of `r` bytes (a multiple of ALIGN) and its size.
    fn allocate(&self, kind: Kind, ctx: CUcontext, r: usize) -> CudaResult<(usize, usize)> {
        // No fit: is it worth a synchronize? Yes when growing would pass the
        // cap while at least `r` freed bytes wait: one synchronize makes
        // them (and every block freed before it) reusable. Never during a
        // capture.
        let first = self.with_heap(kind, |h, _| {
            h.take(r).ok_or_else(|| h.waiting_bytes >= r && h.held_bytes + segment_size(r, h.held_bytes) > cap(h.live_bytes + r))
        });
        let worth_it = match first {
            Ok(b) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                return Ok(b);
            }
            Err(w) => w,
        };
        if worth_it
            && !crate::runtime::capture::any_active()
            && self.synchronize(kind, ctx).is_ok()
            && let Some(b) = self.with_heap(kind, |h, _| h.take(r))
        {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(b);
        }
        // Still no fit: grow under the cap (after giving back free segments
        // if needed), else a one-off segment.
        let plan = self.with_heap(kind, |h, back| {
            if let Some(b) = h.take(r) {
                return Plan::Got(b);
            }
            let limit = cap(h.live_bytes + r);
            let size = segment_size(r, h.held_bytes);
            if h.held_bytes + size > limit && !crate::runtime::capture::any_active() {
                // Free segments of sizes no longer asked for make room.
                back.extend(h.give_back(h.held_bytes + size - limit));
            }
            if h.held_bytes + size <= limit { Plan::Segment(size, false) } else { Plan::Segment(r.next_multiple_of(PAGE), true) }
        });
        let (size, one_off) = match plan {
            Plan::Got(b) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                return Ok(b);
            }
            Plan::Segment(size, one_off) => (size, one_off),
        };
        let (base, size) = match driver_alloc(kind, size) {
            Ok(p) => (p as usize, size),
            Err(cudaErrorMemoryAllocation) => {
                self.release_all(kind, ctx);
                let least = r.next_multiple_of(PAGE);
                (driver_alloc(kind, least)? as usize, least)
            }
            Err(e) => return Err(e),
        };
        self.misses.fetch_add(1, Ordering::Relaxed);
        Ok(self.with_heap(kind, |h, _| h.add_segment(base, size, r, one_off)))
    }

    /// The program freed the block at `p`; None when it is not one it holds.
    fn free(&self, p: usize) -> Option<usize> {
        let mut h = self.heap.lock();
        // SeqCst with `synchronize`'s increment: if this load sees epoch e,
        // it came before the increment to e + 1, so the program's work on
        // the block (queued before this free) was queued before that
        // synchronize began.
        let epoch = self.epoch.load(Ordering::SeqCst);
        h.free(p, epoch)
    }

    /// Out of memory: wait for the device (not during a capture) and give
    /// back every segment with nothing in use.
    fn release_all(&self, kind: Kind, ctx: CUcontext) {
        if !crate::runtime::capture::any_active() {
            let _ = self.synchronize(kind, ctx);
        }
        self.with_heap(kind, |h, back| back.extend(h.give_back(usize::MAX)));
    }

    /// Wait for all work of `ctx` (device memory) or of every device's
    /// primary context (pinned memory, which copies on any device may use);
    /// every block freed before this call is reusable afterwards.
    /// Concurrent callers each synchronize (no lock is held across the
    /// driver call); the epochs keep that correct.
    fn synchronize(&self, kind: Kind, ctx: CUcontext) -> CudaResult {
        let e = self.epoch.fetch_add(1, Ordering::SeqCst);
        self.synchronizes.fetch_add(1, Ordering::Relaxed);
        match kind {
            Kind::Device => cu!(cuCtxSynchronize(ctx))?,
            Kind::Host => {
                for d in runtime()?.devices.iter().filter(|d| d.is_active()) {
                    cu!(cuCtxSynchronize(d.primary()?))?;
                }
            }
        }
        self.safe.fetch_max(e + 1, Ordering::SeqCst);
        Ok(())
    }

    fn stats(&self) -> CacheStats {
        let h = self.heap.lock();
        CacheStats {
            held_blocks: h.segments as u64,
            held_bytes: h.held_bytes as u64,
            active_blocks: h.live_blocks as u64,
            active_bytes: h.live_bytes as u64,
            cached_blocks: (h.ready.len() + h.waiting.len()) as u64,
            cached_bytes: h.cached_bytes() as u64,
            peak_held_bytes: h.peak_held_bytes as u64,
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            synchronizes: self.synchronizes.load(Ordering::Relaxed),
            released_blocks: self.released.load(Ordering::Relaxed),
        }
    }
}

// ---------------------------------------------------------------- the program's blocks

/// A block in the program's hands.
#[derive(Clone, Copy)]
struct Live {
    device: c_int,
    kind: Kind,
    size: usize,
}

/// Addresses are at least 512-byte aligned: mix them, no SipHash needed.
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type LiveMap = HashMap<usize, Live, BuildHasherDefault<AddrHasher>>;

const SHARDS: usize = 64;

struct Cache {
    /// Indexed by device ordinal, then kind.
    pools: Box<[[Pool; 2]]>,
    live: Box<[Mutex<LiveMap>]>,
}

static CACHE: OnceLock<Cache> = OnceLock::new();

fn cache() -> CudaResult<&'static Cache> {
    if let Some(c) = CACHE.get() {
        return Ok(c);
    }
    let devices = runtime()?.devices.len();
    Ok(CACHE.get_or_init(|| Cache {
        pools: (0..devices).map(|_| [Pool::new(), Pool::new()]).collect(),
        live: (0..SHARDS).map(|_| Mutex::new(LiveMap::default())).collect(),
    }))
}

impl Cache {
    fn pool(&self, device: c_int, kind: Kind) -> &Pool {
        &self.pools[device as usize][kind as usize]
    }

    fn shard(&self, ptr: usize) -> &Mutex<LiveMap> {
        &self.live[((ptr as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % SHARDS]
    }
}

// ---------------------------------------------------------------- entry points

/// `cudaMalloc`/`cudaMallocHost` with the cache on, in context `ctx` of
/// `device` (from `enter`); `size` > 0.
pub fn malloc(kind: Kind, ctx: CUcontext, device: c_int, size: usize) -> CudaResult<*mut c_void> {
    if size == 0 || size > MAX_SIZE || !runtime()?.device(device)?.is_primary(ctx) {
        return driver_alloc(kind, size);
    }
    let cache = cache()?;
    let (p, size) = cache.pool(device, kind).allocate(kind, ctx, size.next_multiple_of(ALIGN))?;
    cache.shard(p).lock().insert(p, Live { device, kind, size });
    Ok(p as *mut c_void)
}

/// `cudaFree`/`cudaFreeHost` of non-NULL `p` with the cache on: None when
/// `p` is in no segment of `kind` (the driver answers then).
pub fn free(kind: Kind, p: *mut c_void) -> Option<CudaResult> {
    let cache = CACHE.get()?;
    let ptr = p as usize;
    let live = {
        let mut shard = cache.shard(ptr).lock();
        match shard.get(&ptr) {
            // The other kind's block: the driver's error, nothing freed.
            Some(o) if o.kind != kind => return None,
            Some(_) => shard.remove(&ptr),
            None => None,
        }
    };
    if let Some(o) = live {
        let freed = cache.pool(o.device, kind).free(ptr);
        debug_assert_eq!(freed, Some(o.size));
        return Some(Ok(()));
    }
    // Freed twice, or inside a block: what the driver answers for a freed
    // pointer, without letting the driver free one of our segments.
    let ours = cache.pools.iter().any(|p| p[kind as usize].heap.lock().contains(ptr));
    ours.then_some(Err(cudaErrorInvalidValue))
}

/// Bytes of device memory the cache holds free on `device` (added to
/// `cudaMemGetInfo`'s free bytes: the program could get them).
pub fn cached_device_bytes(device: c_int) -> usize {
    CACHE
        .get()
        .and_then(|c| c.pools.get(usize::try_from(device).ok()?))
        .map_or(0, |p| p[Kind::Device as usize].heap.lock().cached_bytes())
}

/// Reset hook: the primary context's reset frees every segment of the
/// device, so forget them all (no driver call).
fn forget_device(device: c_int) {
    let Some(cache) = CACHE.get() else { return };
    let Some(pools) = usize::try_from(device).ok().and_then(|d| cache.pools.get(d)) else { return };
    for shard in cache.live.iter() {
        shard.lock().retain(|_, o| o.device != device);
    }
    for pool in pools {
        let mut h = pool.heap.lock();
        let peak = h.peak_held_bytes;
        *h = Heap { peak_held_bytes: peak, ..Heap::default() };
    }
}

// ---------------------------------------------------------------- statistics

/// Statistics of one pool (one device, device or pinned host memory);
/// the C API hands the same struct out.
pub type CacheStats = crate::types::cudartShimPoolStats;

/// Device-memory statistics of `device` (all zero when the cache is off
/// or unused, or `device` does not exist).
pub fn stats(device: c_int) -> CacheStats {
    pool_stats(device, Kind::Device)
}

/// `cudartShimGetPoolStats`: device (`host` false) or pinned host memory.
pub fn stats_of(device: c_int, host: bool) -> CacheStats {
    if host { host_stats(device) } else { stats(device) }
}

/// Pinned host memory allocated while `device` was current.
pub fn host_stats(device: c_int) -> CacheStats {
    pool_stats(device, Kind::Host)
}

fn pool_stats(device: c_int, kind: Kind) -> CacheStats {
    CACHE
        .get()
        .and_then(|c| c.pools.get(usize::try_from(device).ok()?))
        .map_or_else(CacheStats::default, |p| p[kind as usize].stats())
}

/// The caching allocator's lines under the trace summary (text form).
fn summary_text() -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let devices = CACHE.get().map_or(0, |c| c.pools.len());
    for d in 0..devices as c_int {
        for (what, st) in [("device", stats(d)), ("pinned host", host_stats(d))] {
            if st.hits + st.misses == 0 {
                continue;
            }
            let _ = writeln!(
                out,
                "caching allocator, device {d}, {what} memory: {} hits, {} misses, {} synchronizes; held {} segments / {} bytes (peak {} bytes), active {} blocks / {} bytes, cached {} blocks / {} bytes, {} segments given back",
                st.hits, st.misses, st.synchronizes, st.held_blocks, st.held_bytes, st.peak_held_bytes,
                st.active_blocks, st.active_bytes, st.cached_blocks, st.cached_bytes, st.released_blocks
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn segments_ramp_then_follow_what_is_held() {
        assert_eq!(segment_size(512, 0), 2 * MIB);
        assert_eq!(segment_size(512, 2 * MIB), 2 * MIB);
        assert_eq!(segment_size(512, 4 * MIB), 4 * MIB);
        assert_eq!(segment_size(512, 6 * MIB), 6 * MIB);
        assert_eq!(segment_size(512, 40 * MIB), 8 * MIB);
        assert_eq!(segment_size(512, 100 * MIB), 14 * MIB);
        assert_eq!(segment_size(512, 10 << 30), 64 * MIB);
        assert_eq!(segment_size(3 * MIB + 512, 0), 4 * MIB);
        assert_eq!(segment_size(100 * MIB + 1, 1 << 30), 102 * MIB);
        assert_eq!(cap(10 * MIB), 17 * MIB);
    }

    /// Invariants after every step: blocks tile the segments, the lists
    /// agree with the blocks, the byte counts add up, and free neighbours
    /// that were both made ready have merged.
    fn check(h: &Heap) {
        let (mut live, mut ready, mut waiting, mut held) = (0, 0, 0, 0);
        let mut prev: Option<(usize, Block)> = None;
        for (&p, &b) in &h.blocks {
            assert_eq!(p % ALIGN, 0);
            match b.state {
                State::Live => live += b.size,
                State::Ready => {
                    ready += b.size;
                    assert!(h.ready.contains(&(b.size, p)));
                }
                State::Waiting => waiting += b.size,
            }
            if let Some((q, a)) = prev {
                if !b.first {
                    assert_eq!(q + a.size, p, "blocks of a segment are contiguous");
                    assert!(!a.last);
                    assert!(!(a.state == State::Ready && b.state == State::Ready), "free neighbours merged");
                } else {
                    assert!(a.last);
                }
            }
            if b.first {
                held += h.blocks.range(p..).take_while(|&(&q, c)| q == p || !c.first).map(|(_, c)| c.size).sum::<usize>();
            }
            prev = Some((p, b));
        }
        assert_eq!(h.ready.len(), h.blocks.values().filter(|b| b.state == State::Ready).count());
        assert_eq!((live, ready, waiting, held), (h.live_bytes, h.ready_bytes, h.waiting_bytes, h.held_bytes));
        assert_eq!(h.waiting.len(), h.blocks.values().filter(|b| b.state == State::Waiting).count());
    }

    #[test]
    fn blocks_split_merge_and_wait_for_their_epoch() {
        let mut h = Heap::default();
        let base = 1 << 30;
        let (a, sa) = h.add_segment(base, 8 * MIB, MIB, false);
        assert_eq!((a, sa), (base, MIB));
        let (b, _) = h.take(2 * MIB).unwrap();
        let (c, _) = h.take(MIB).unwrap();
        assert_eq!((b, c), (base + MIB, base + 3 * MIB));
        check(&h);
        assert_eq!(h.free(b, 0), Some(2 * MIB));
        assert_eq!(h.free(b, 0), None, "freed twice");
        assert_eq!(h.free(b + 512, 0), None, "not a block");
        assert!(h.take(5 * MIB).is_none(), "4 MiB free at the end, the freed 2 MiB still waits");
        let mut back = Vec::new();
        h.promote(0, false, &mut back);
        assert!(!h.ready.contains(&(2 * MIB, b)), "epoch 0 is not safe before a synchronize");
        h.promote(1, false, &mut back);
        assert!(h.ready.contains(&(2 * MIB, b)));
        check(&h);
        assert_eq!(h.take(2 * MIB), Some((b, 2 * MIB)), "best fit: the freed hole, not the 4 MiB tail");
        h.free(a, 1);
        h.free(b, 1);
        h.free(c, 1);
        h.promote(2, false, &mut back);
        check(&h);
        assert_eq!(h.ready.iter().copied().collect::<Vec<_>>(), vec![(8 * MIB, base)], "all merged back");
        assert_eq!(h.give_back(1), vec![(base, 8 * MIB)]);
        assert_eq!((h.held_bytes, h.segments), (0, 0));
        assert!(back.is_empty());
        check(&h);
    }

    #[test]
    fn neighbouring_segments_never_merge_and_one_offs_go_back() {
        let mut h = Heap::default();
        let base = 1 << 30;
        // Two segments back to back in the address space.
        let (a, _) = h.add_segment(base, 2 * MIB, 2 * MIB, false);
        let (b, _) = h.add_segment(base + 2 * MIB, 2 * MIB, 2 * MIB, false);
        let (c, sc) = h.add_segment(base + 4 * MIB, 4 * MIB, 3 * MIB, true);
        assert_eq!(sc, 4 * MIB, "a one-off segment is one block");
        assert!(h.contains(c + 4 * MIB - 1) && !h.contains(c + 4 * MIB) && !h.contains(base - 1));
        for p in [a, b, c] {
            h.free(p, 0);
        }
        let mut back = Vec::new();
        h.promote(1, false, &mut back);
        check(&h);
        assert_eq!(back, vec![(c, 4 * MIB)]);
        assert_eq!(h.ready.len(), 2, "one block per segment");
        assert_eq!((h.held_bytes, h.segments), (4 * MIB, 2));
        assert!(h.take(3 * MIB).is_none());
    }

    /// A random mix of sizes, frees and synchronizes keeps every invariant.
    #[test]
    fn random_mix_keeps_the_invariants() {
        let mut h = Heap::default();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut live = Vec::new();
        let (mut epoch, mut base) = (0u64, 1usize << 40);
        let mut back = Vec::new();
        for i in 0..4000 {
            let r = ((next() % (5 * MIB as u64)) as usize + 1).next_multiple_of(ALIGN);
            let got = h.take(r).unwrap_or_else(|| {
                let s = segment_size(r, h.held_bytes);
                base += s + PAGE;
                h.add_segment(base, s, r, next() % 7 == 0)
            });
            live.push(got.0);
            if live.len() > 20 || next() % 3 == 0 {
                let p = live.swap_remove((next() % live.len() as u64) as usize);
                assert!(h.free(p, epoch).is_some());
            }
            if next() % 5 == 0 {
                epoch += 1;
                h.promote(epoch, epoch % 2 == 0, &mut back);
            }
            if i % 500 == 499 {
                h.give_back(usize::MAX);
            }
            check(&h);
        }
    }
}
