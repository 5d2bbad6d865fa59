//! The opt-in caching allocator (`CUDART_SHIM_POOL=1`), in the spirit of
//! PyCUDA's `DeviceMemoryPool` and CuPy's `MemoryPool`: `cudaMalloc`/
//! `cudaFree` and `cudaMallocHost`/`cudaFreeHost` keep freed blocks and hand
//! them out again, so frequent allocation stops paying the driver's cost.
//!
//! Shape:
//! - One [`Pool`] per device and [`Kind`] (device memory, pinned host
//!   memory). A pool has one free list per size class, each behind its own
//!   short `parking_lot` mutex: threads allocating different sizes never
//!   meet, threads allocating the same size meet for a push or a pop. No
//!   lock is held across a driver call. (Per-thread magazines would avoid
//!   even that, but a block freed on one thread and wanted on another, the
//!   common producer/consumer case, would then sit in the wrong magazine.)
//! - Every block the cache owns is in one map, sharded by address (64
//!   mutexes), with its device, kind, class and whether the program holds
//!   it. `cudaFree` of an address not in the map goes to the driver, which
//!   answers as it does without the cache; a second `cudaFree` of a cached
//!   block is the driver's answer for a freed pointer
//!   (`cudaErrorInvalidValue`), without reaching the driver (which would
//!   really free a block we still list).
//! - Sizes round up to classes: 512 B steps up to 1 MiB, then 8 steps per
//!   power of two (at most 12.5% rounding). Sizes above 64 TiB go straight
//!   to the driver (its error for impossible sizes). A request may take a
//!   ready block of a larger class that wastes at most a quarter of it.
//!
//! Reuse waits for the work that may still use a block. A freed block is
//! stamped with the pool's sync epoch; it is *ready* once a
//! `cuCtxSynchronize` of the device's primary context (pinned memory: of
//! every device's) has started after the free (one synchronize covers
//! every block freed before it). NVIDIA's `cudaFree` synchronizes anyway,
//! so this is never weaker. The synchronize
//! is lazy: an allocation that finds no ready block of its class, while
//! blocks of that class wait, synchronizes only when the cache holds free
//! at least a quarter of the bytes the program holds (and at least 1 MiB);
//! below that it takes a new block from the driver. So a free/malloc loop
//! pays one synchronize per many calls instead of one per call, and the
//! memory held stays near 1.25x what the program holds (plus rounding).
//!
//! Out of memory: the pool synchronizes, gives every cached block of that
//! device and kind back to the driver, and retries once. A miss that finds
//! the cache holding free more than twice that quarter (sizes the program
//! no longer asks for) gives ready blocks back, largest first, down to it.
//!
//! `cudaDeviceReset` destroys every allocation of the primary context: a
//! reset hook forgets the device's blocks (no driver call needed). At
//! process exit nothing is released: the driver may already be unloading,
//! and it frees the context's memory itself; the cache simply leaks.
//!
//! Blocks are cached only for the device's primary context; allocations
//! made while the program's own driver context is current go straight to
//! the driver.
//!
//! Not yet measured on a GPU: a synchronize needed while another stream
//! captures a graph may fail (the allocation then comes from the driver)
//! or invalidate that capture (`tests/gpu/cache_capture.cu` shows which).

use crate::driver::CUcontext;
use crate::runtime::state::runtime;
use crate::types::*;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::ffi::{c_int, c_void};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// What a pool hands out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `cudaMalloc` (`cuMemAlloc`).
    Device = 0,
    /// `cudaMallocHost` (`cuMemAllocHost`: portable, mapped).
    Host = 1,
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

// ---------------------------------------------------------------- classes

const SMALL_STEP: usize = 512;
const SMALL_MAX: usize = 1 << 20;
const SMALL_CLASSES: usize = SMALL_MAX / SMALL_STEP;
/// Large sizes: 8 classes per power of two, from 1 MiB to 64 TiB.
const LARGE_STEPS_LOG2: u32 = 3;
const MAX_LOG2: u32 = 46;
const CLASSES: usize = SMALL_CLASSES + ((MAX_LOG2 - 20) << LARGE_STEPS_LOG2) as usize;

/// The class of a request of `size` (> 0) bytes and the size it rounds to;
/// None for sizes the cache leaves to the driver.
fn class_of(size: usize) -> Option<(usize, usize)> {
    if size == 0 {
        return None;
    }
    if size <= SMALL_MAX {
        let n = size.div_ceil(SMALL_STEP);
        return Some((n - 1, n * SMALL_STEP));
    }
    if size > 1 << MAX_LOG2 {
        return None;
    }
    // size is in (2^k, 2^(k+1)], k >= 20; steps of 2^(k-3): n in 9..=16.
    let k = usize::BITS - 1 - (size - 1).leading_zeros();
    let step = 1usize << (k - LARGE_STEPS_LOG2);
    let n = size.div_ceil(step);
    let index = SMALL_CLASSES + (((k - 20) as usize) << LARGE_STEPS_LOG2) + (n - 9);
    Some((index, n * step))
}

/// The size blocks of class `c` have (the inverse of [`class_of`]).
fn class_size(c: usize) -> usize {
    if c < SMALL_CLASSES {
        return (c + 1) * SMALL_STEP;
    }
    let j = c - SMALL_CLASSES;
    let k = 20 + (j >> LARGE_STEPS_LOG2);
    let n = 9 + (j & ((1 << LARGE_STEPS_LOG2) - 1));
    n << (k - LARGE_STEPS_LOG2 as usize)
}

// ---------------------------------------------------------------- pools

/// A free block and the sync epoch it was freed in.
#[derive(Clone, Copy)]
struct FreeBlock {
    ptr: usize,
    epoch: u64,
}

/// While the cache holds fewer free bytes than this, a miss takes a new
/// block from the driver rather than synchronizing.
const SYNC_FLOOR: usize = 1 << 20;

/// The cache of one device and kind.
struct Pool {
    /// Free blocks by class, oldest first (so the front is ready first).
    classes: Box<[Mutex<VecDeque<FreeBlock>>]>,
    /// Synchronizes started; a block freed while this was `e` ...
    epoch: AtomicU64,
    /// ... is ready once `safe > e` (a synchronize started after it ended).
    safe: AtomicU64,
    cached_blocks: AtomicUsize,
    cached_bytes: AtomicUsize,
    active_blocks: AtomicUsize,
    active_bytes: AtomicUsize,
    peak_held_bytes: AtomicUsize,
    hits: AtomicU64,
    misses: AtomicU64,
    synchronizes: AtomicU64,
    released_blocks: AtomicU64,
}

enum Take {
    Ready(usize),
    /// Blocks of the class wait for a synchronize.
    Pending,
    Empty,
}

impl Pool {
    fn new() -> Self {
        Pool {
            classes: (0..CLASSES).map(|_| Mutex::new(VecDeque::new())).collect(),
            epoch: AtomicU64::new(0),
            safe: AtomicU64::new(0),
            cached_blocks: AtomicUsize::new(0),
            cached_bytes: AtomicUsize::new(0),
            active_blocks: AtomicUsize::new(0),
            active_bytes: AtomicUsize::new(0),
            peak_held_bytes: AtomicUsize::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            synchronizes: AtomicU64::new(0),
            released_blocks: AtomicU64::new(0),
        }
    }

    fn take(&self, class: usize) -> Take {
        let mut list = self.classes[class].lock();
        match list.front() {
            None => Take::Empty,
            Some(b) if b.epoch < self.safe.load(Ordering::SeqCst) => {
                let p = b.ptr;
                list.pop_front();
                Take::Ready(p)
            }
            Some(_) => Take::Pending,
        }
    }

    /// A ready block of `class`, or else of a larger class that wastes at
    /// most a quarter of `size` (so a request just at a class boundary,
    /// e.g. exactly 3 MiB, can use a 3.25 MiB block rather than grow the
    /// cache). `Pending` when one of those classes has blocks waiting.
    fn take_fitting(&self, class: usize, size: usize) -> Take {
        let limit = size.saturating_add(size / 4);
        let mut found = Take::Empty;
        for c in (class..CLASSES).take_while(|&c| c == class || class_size(c) <= limit) {
            match self.take(c) {
                Take::Ready(p) => return Take::Ready(p),
                Take::Pending => found = Take::Pending,
                Take::Empty => {}
            }
        }
        found
    }

    /// A block of `size` bytes left the program's hands.
    fn put(&self, class: usize, ptr: usize, size: usize) {
        // SeqCst with `synchronize`'s increment: if this load sees epoch e,
        // it came before the increment to e + 1, so the program's work on
        // the block (queued before this free) was queued before that
        // synchronize began.
        let epoch = self.epoch.load(Ordering::SeqCst);
        self.classes[class].lock().push_back(FreeBlock { ptr, epoch });
        self.active_blocks.fetch_sub(1, Ordering::Relaxed);
        self.active_bytes.fetch_sub(size, Ordering::Relaxed);
        self.cached_blocks.fetch_add(1, Ordering::Relaxed);
        self.cached_bytes.fetch_add(size, Ordering::Relaxed);
    }

    /// A cached block went back into the program's hands.
    fn handed_out(&self, size: usize) {
        self.cached_blocks.fetch_sub(1, Ordering::Relaxed);
        self.cached_bytes.fetch_sub(size, Ordering::Relaxed);
        self.active_blocks.fetch_add(1, Ordering::Relaxed);
        self.active_bytes.fetch_add(size, Ordering::Relaxed);
    }

    /// Whether a miss with blocks of its class pending should synchronize
    /// rather than grow the cache: once the cache holds free a quarter of
    /// what the program holds (at least [`SYNC_FLOOR`]). This bounds what
    /// is held near 1.25x the live bytes while syncing once per many frees.
    fn sync_worthwhile(&self) -> bool {
        // Never while a stream captures: the synchronize would invalidate
        // the capture (measured with cache_capture.cu on an H100); a new
        // block from the driver is always correct.
        self.cached_bytes.load(Ordering::Relaxed) >= self.budget() && !crate::runtime::capture::any_active()
    }

    /// Free bytes the cache may hold without synchronizing: a quarter of
    /// what the program holds, at least [`SYNC_FLOOR`]. A miss that finds
    /// twice this much free gives ready blocks back down to it.
    fn budget(&self) -> usize {
        (self.active_bytes.load(Ordering::Relaxed) / 4).max(SYNC_FLOOR)
    }

    /// Wait for all work of `ctx` (device memory) or of every device's
    /// primary context (pinned memory, which copies on any device may use);
    /// every block freed before this call is ready afterwards. Concurrent
    /// callers each synchronize (no lock is held across the driver call);
    /// the epochs keep that correct.
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

    fn held_bytes(&self) -> usize {
        self.active_bytes.load(Ordering::Relaxed) + self.cached_bytes.load(Ordering::Relaxed)
    }

    fn stats(&self) -> CacheStats {
        let cached_blocks = self.cached_blocks.load(Ordering::Relaxed) as u64;
        let cached_bytes = self.cached_bytes.load(Ordering::Relaxed) as u64;
        let active_blocks = self.active_blocks.load(Ordering::Relaxed) as u64;
        let active_bytes = self.active_bytes.load(Ordering::Relaxed) as u64;
        CacheStats {
            held_blocks: active_blocks + cached_blocks,
            held_bytes: active_bytes + cached_bytes,
            active_blocks,
            active_bytes,
            cached_blocks,
            cached_bytes,
            peak_held_bytes: self.peak_held_bytes.load(Ordering::Relaxed) as u64,
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            synchronizes: self.synchronizes.load(Ordering::Relaxed),
            released_blocks: self.released_blocks.load(Ordering::Relaxed),
        }
    }
}

// ---------------------------------------------------------------- owned blocks

/// A block the cache owns (handed out or cached).
#[derive(Clone, Copy)]
struct Owned {
    device: c_int,
    kind: Kind,
    class: u32,
    size: usize,
    /// In the program's hands (else in a free list).
    live: bool,
}

/// Addresses are at least 256-byte aligned: mix them, no SipHash needed.
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

type OwnedMap = HashMap<usize, Owned, BuildHasherDefault<AddrHasher>>;

const SHARDS: usize = 64;

struct Cache {
    /// Indexed by device ordinal, then kind.
    pools: Box<[[Pool; 2]]>,
    owned: Box<[Mutex<OwnedMap>]>,
}

static CACHE: OnceLock<Cache> = OnceLock::new();

fn cache() -> CudaResult<&'static Cache> {
    if let Some(c) = CACHE.get() {
        return Ok(c);
    }
    let devices = runtime()?.devices.len();
    Ok(CACHE.get_or_init(|| Cache {
        pools: (0..devices).map(|_| [Pool::new(), Pool::new()]).collect(),
        owned: (0..SHARDS).map(|_| Mutex::new(OwnedMap::default())).collect(),
    }))
}

impl Cache {
    fn pool(&self, device: c_int, kind: Kind) -> &Pool {
        &self.pools[device as usize][kind as usize]
    }

    fn shard(&self, ptr: usize) -> &Mutex<OwnedMap> {
        &self.owned[((ptr as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % SHARDS]
    }

    /// Synchronize and give every cached block of `pool` back to the driver.
    fn release(&self, pool: &Pool, ctx: CUcontext, kind: Kind) {
        let _ = pool.synchronize(kind, ctx);
        self.give_back(pool, kind, 0);
    }

    /// Give ready blocks back to the driver, largest classes first, until
    /// the pool holds at most `keep` bytes free (blocks still waiting for a
    /// synchronize stay).
    fn give_back(&self, pool: &Pool, kind: Kind, keep: usize) {
        let safe = pool.safe.load(Ordering::SeqCst);
        let mut freed = Vec::new();
        let mut cached = pool.cached_bytes.load(Ordering::Relaxed);
        for (c, list) in pool.classes.iter().enumerate().rev() {
            if cached <= keep {
                break;
            }
            let mut l = list.lock();
            while cached > keep && l.front().is_some_and(|b| b.epoch < safe) {
                freed.push(l.pop_front().unwrap().ptr);
                cached = cached.saturating_sub(class_size(c));
            }
        }
        for ptr in freed {
            // Out of the map before the driver can hand the address out again.
            let Some(o) = self.shard(ptr).lock().remove(&ptr) else { continue };
            pool.cached_blocks.fetch_sub(1, Ordering::Relaxed);
            pool.cached_bytes.fetch_sub(o.size, Ordering::Relaxed);
            pool.released_blocks.fetch_add(1, Ordering::Relaxed);
            if let Err(e) = super::alloc::driver_free(kind, ptr as *mut c_void) {
                log::debug!("caching allocator: releasing a cached block failed with {}", crate::runtime::error::name(e));
            }
        }
    }
}

// ---------------------------------------------------------------- entry points

/// `cudaMalloc`/`cudaMallocHost` with the cache on, in context `ctx` of
/// `device` (from `enter`); `size` > 0.
pub fn malloc(kind: Kind, ctx: CUcontext, device: c_int, size: usize) -> CudaResult<*mut c_void> {
    let Some((class, rounded)) = class_of(size) else {
        return super::alloc::driver_alloc(kind, size);
    };
    if !runtime()?.device(device)?.is_primary(ctx) {
        return super::alloc::driver_alloc(kind, size);
    }
    let cache = cache()?;
    let pool = cache.pool(device, kind);
    let ptr = match pool.take_fitting(class, size) {
        Take::Ready(p) => Some(p),
        Take::Pending if pool.sync_worthwhile() && pool.synchronize(kind, ctx).is_ok() => match pool.take_fitting(class, size) {
            Take::Ready(p) => Some(p),
            _ => None,
        },
        _ => None,
    };
    if let Some(p) = ptr {
        let block_size = cache.shard(p).lock().get_mut(&p).map_or(rounded, |o| {
            o.live = true;
            o.size
        });
        pool.handed_out(block_size);
        pool.hits.fetch_add(1, Ordering::Relaxed);
        return Ok(p as *mut c_void);
    }
    pool.misses.fetch_add(1, Ordering::Relaxed);
    // Growing while free blocks of other sizes pile up: give ready ones
    // back first (largest first), so what is held stays bounded when the
    // sizes a program asks for change.
    let budget = pool.budget();
    if pool.cached_bytes.load(Ordering::Relaxed) >= 2 * budget {
        cache.give_back(pool, kind, budget);
    }
    let p = match super::alloc::driver_alloc(kind, rounded) {
        Err(cudaErrorMemoryAllocation) => {
            cache.release(pool, ctx, kind);
            super::alloc::driver_alloc(kind, rounded)?
        }
        r => r?,
    };
    let owned = Owned { device, kind, class: class as u32, size: rounded, live: true };
    cache.shard(p as usize).lock().insert(p as usize, owned);
    pool.active_blocks.fetch_add(1, Ordering::Relaxed);
    pool.active_bytes.fetch_add(rounded, Ordering::Relaxed);
    pool.peak_held_bytes.fetch_max(pool.held_bytes(), Ordering::Relaxed);
    Ok(p)
}

/// `cudaFree`/`cudaFreeHost` of non-NULL `p` with the cache on: None when
/// the cache does not own `p` as `kind` (the driver answers then).
pub fn free(kind: Kind, p: *mut c_void) -> Option<CudaResult> {
    let cache = CACHE.get()?;
    let ptr = p as usize;
    let o = {
        let mut shard = cache.shard(ptr).lock();
        let o = shard.get_mut(&ptr).filter(|o| o.kind == kind)?;
        if !o.live {
            // Freed twice: what the driver answers for a freed pointer.
            return Some(Err(cudaErrorInvalidValue));
        }
        o.live = false;
        *o
    };
    cache.pool(o.device, kind).put(o.class as usize, ptr, o.size);
    Some(Ok(()))
}

/// The size of the cache's block at `p`, None when the cache does not own
/// it (for the trace's memory track).
pub fn block_size(p: *mut c_void) -> Option<usize> {
    let cache = CACHE.get()?;
    cache.shard(p as usize).lock().get(&(p as usize)).map(|o| o.size)
}

/// Bytes of device memory the cache holds free on `device` (added to
/// `cudaMemGetInfo`'s free bytes: the program could get them).
pub fn cached_device_bytes(device: c_int) -> usize {
    CACHE
        .get()
        .and_then(|c| c.pools.get(usize::try_from(device).ok()?))
        .map_or(0, |p| p[Kind::Device as usize].cached_bytes.load(Ordering::Relaxed))
}

/// Reset hook: the primary context's reset frees every block of the
/// device, so forget them all (no driver call).
fn forget_device(device: c_int) {
    let Some(cache) = CACHE.get() else { return };
    let Some(pools) = usize::try_from(device).ok().and_then(|d| cache.pools.get(d)) else { return };
    for shard in cache.owned.iter() {
        shard.lock().retain(|_, o| o.device != device);
    }
    for pool in pools {
        for list in pool.classes.iter() {
            list.lock().clear();
        }
        for n in [&pool.cached_blocks, &pool.cached_bytes, &pool.active_blocks, &pool.active_bytes] {
            n.store(0, Ordering::Relaxed);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_up_and_are_distinct() {
        assert_eq!(class_of(1), Some((0, 512)));
        assert_eq!(class_of(512), Some((0, 512)));
        assert_eq!(class_of(513), Some((1, 1024)));
        assert_eq!(class_of(1 << 20), Some((SMALL_CLASSES - 1, 1 << 20)));
        assert_eq!(class_of((1 << 20) + 1), Some((SMALL_CLASSES, (1 << 20) + (1 << 17))));
        assert_eq!(class_of(2 << 20), Some((SMALL_CLASSES + 7, 2 << 20)));
        assert_eq!(class_of((2 << 20) + 1), Some((SMALL_CLASSES + 8, (2 << 20) + (1 << 18))));
        assert_eq!(class_of(1 << MAX_LOG2).map(|c| c.0), Some(CLASSES - 1));
        assert_eq!(class_of((1 << MAX_LOG2) + 1), None);
        assert_eq!(class_of(0), None);
        assert_eq!(class_of(usize::MAX), None);
        for c in 0..CLASSES {
            assert_eq!(class_of(class_size(c)), Some((c, class_size(c))));
        }
        let mut last = (0, SMALL_STEP);
        for size in (1..(64usize << 20)).step_by(4099) {
            let (c, r) = class_of(size).unwrap();
            assert!(r >= size && r - size <= (size / 8).max(511), "{size} -> {r}");
            assert!(c >= last.0 && (c > last.0 || r == last.1), "classes grow with size");
            last = (c, r);
        }
    }
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
                "caching allocator, device {d}, {what} memory: {} hits, {} misses, {} synchronizes; held {} blocks / {} bytes (peak {} bytes), active {} / {} bytes, cached {} / {} bytes, released {} blocks",
                st.hits, st.misses, st.synchronizes, st.held_blocks, st.held_bytes, st.peak_held_bytes,
                st.active_blocks, st.active_bytes, st.cached_blocks, st.cached_bytes, st.released_blocks
            );
        }
    }
    out
}
