//! The opt-in caching allocator (`CUDART_SHIM_POOL=1`) over the fake
//! driver, in process (one process per test: the switch is read once).

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::memory::*;
use cudart_shim::internals::cache::{host_stats, stats, CacheStats};
use cudart_shim::types::*;
use std::ffi::c_void;
use std::ptr::null_mut;

const MIB: usize = 1 << 20;

fn pool_on() {
    use_fake_driver(&[("CUDART_SHIM_POOL", "1")]);
}

fn malloc(n: usize) -> *mut c_void {
    let mut p = null_mut();
    assert_eq!(unsafe { cudaMalloc(&mut p, n) }, cudaSuccess, "cudaMalloc({n})");
    assert!(!p.is_null());
    p
}

fn free(p: *mut c_void) {
    assert_eq!(unsafe { cudaFree(p) }, cudaSuccess);
}

fn mem_free_bytes() -> usize {
    let (mut f, mut t) = (0, 0);
    assert_eq!(unsafe { cudaMemGetInfo(&mut f, &mut t) }, cudaSuccess);
    assert!(f <= t);
    f
}

#[test]
fn reuse_keeps_driver_allocations_flat_over_a_loop() {
    pool_on();
    let sizes = [100, 4096, 70_000, 3 * MIB + 5];
    for _ in 0..50 {
        let ps: Vec<_> = sizes.iter().map(|&n| malloc(n)).collect();
        ps.into_iter().for_each(free);
    }
    let after_warmup = fake::calls("cuMemAlloc");
    for _ in 0..1000 {
        let ps: Vec<_> = sizes.iter().map(|&n| malloc(n)).collect();
        ps.into_iter().for_each(free);
    }
    assert_eq!(fake::calls("cuMemAlloc"), after_warmup, "no driver allocation once warm");
    // A 2 MiB segment for the small blocks, 4 MiB for the 3 MiB one.
    assert_eq!(after_warmup, 2, "warm-up took {after_warmup} driver allocations");
    assert_eq!(fake::calls("cuMemFree"), 0, "segments are never given back while memory lasts");
    let s = stats(0);
    assert_eq!(s.hits + s.misses, 4 * 1050);
    assert_eq!(s.misses, after_warmup);
    assert_eq!((s.held_blocks, s.held_bytes), (2, 6 * MIB as u64));
    // At the cap (1.3 x 3 MiB + 4 MiB), each round waits once for the
    // frees of the round before; never more than once per round.
    assert!(s.synchronizes >= 1 && s.synchronizes <= 1050, "{s:?}");
}

#[test]
fn a_freed_block_is_reused_only_after_a_synchronize_that_follows_its_free() {
    pool_on();
    // 64 MiB: a second segment would take the pool past its cap (1.3 x
    // 64 MiB + 4 MiB), so the pool waits for the free instead.
    let a = malloc(64 * MIB);
    // Work that may still use the block: an async memset on the legacy stream.
    assert_eq!(unsafe { cudaMemsetAsync(a, 0x5a, 2 * MIB, null_mut()) }, cudaSuccess);
    let syncs = fake::calls("cuCtxSynchronize");
    free(a);
    assert_eq!(fake::calls("cuCtxSynchronize"), syncs, "cudaFree itself does not wait");
    assert_eq!((stats(0).cached_blocks, stats(0).cached_bytes), (1, 64 * MIB as u64));
    let b = malloc(64 * MIB);
    assert_eq!(b, a, "the same block comes back");
    assert_eq!(fake::calls("cuCtxSynchronize"), syncs + 1, "after one synchronize");
    assert_eq!(fake::calls("cuMemAlloc"), 1);
    // The memset ran before the block was handed out again.
    let mut byte = 0u8;
    assert_eq!(unsafe { cudaMemcpy((&mut byte as *mut u8).cast(), b.cast_const().cast::<u8>().add(MIB).cast(), 1, cudaMemcpyDeviceToHost) }, cudaSuccess);
    assert_eq!(byte, 0x5a);
    free(b);
}

#[test]
fn one_synchronize_covers_every_block_freed_before_it() {
    pool_on();
    let sizes = [MIB, 2 * MIB, 512, 5 * MIB];
    let ps: Vec<_> = sizes.iter().map(|&n| malloc(n)).collect();
    ps.iter().for_each(|&p| free(p));
    let allocs = fake::calls("cuMemAlloc");
    let syncs = fake::calls("cuCtxSynchronize");
    let again: Vec<_> = sizes.iter().map(|&n| malloc(n)).collect();
    assert_eq!(fake::calls("cuCtxSynchronize"), syncs + 1, "one synchronize for the four");
    assert_eq!(fake::calls("cuMemAlloc"), allocs, "all four come from the freed memory");
    let s = stats(0);
    assert_eq!((s.hits + s.misses, s.misses, s.synchronizes), (8, allocs, 1));
    again.into_iter().for_each(free);
}

#[test]
fn under_the_cap_the_pool_grows_rather_than_synchronize() {
    pool_on();
    // 4 KiB blocks freed at once: the first 2 MiB segment serves 512 of
    // them, a second one (4 MiB held, under the cap of 1.3 x 4 KiB + 4 MiB)
    // 512 more; only then does growing pass the cap, and one synchronize
    // makes all 1024 freed blocks (merged back into two free segments)
    // reusable.
    for _ in 0..1024 {
        free(malloc(4096));
    }
    assert_eq!(fake::calls("cuCtxSynchronize"), 0);
    assert_eq!(fake::calls("cuMemAlloc"), 2);
    for _ in 0..1024 {
        free(malloc(4096));
    }
    assert_eq!(fake::calls("cuCtxSynchronize"), 1);
    assert_eq!(fake::calls("cuMemAlloc"), 2);
    let s = stats(0);
    assert_eq!((s.held_bytes, s.active_bytes, s.misses, s.hits), (4 * MIB as u64, 0, 2, 2046));
}

#[test]
fn out_of_memory_releases_the_cache_and_retries_once() {
    pool_on();
    let a = malloc(MIB);
    let b = malloc(3 * MIB);
    free(a);
    free(b);
    // Two segments (2 and 4 MiB), all of it free.
    assert_eq!((stats(0).held_blocks, stats(0).cached_bytes), (2, 6 * MIB as u64));
    // The next driver allocation (no segment fits 8 MiB) fails: release,
    // then retry.
    fake::fail("cuMemAlloc", 1, 2);
    let c = malloc(8 * MIB);
    let s = stats(0);
    assert_eq!(fake::calls("cuMemFree"), 2, "both free segments went back to the driver");
    assert_eq!((s.released_blocks, s.cached_blocks, s.held_blocks, s.active_bytes), (2, 0, 1, 8 * MIB as u64));
    assert_eq!(fake::calls("cuMemAlloc"), 4);
    free(c);

    // Failing for good: one retry, then cudaErrorMemoryAllocation.
    fake::fail("cuMemAlloc", 0, 2);
    let before = fake::calls("cuMemAlloc");
    let mut p = null_mut();
    assert_eq!(unsafe { cudaMalloc(&mut p, 16 * MIB) }, cudaErrorMemoryAllocation);
    assert_eq!(fake::calls("cuMemAlloc"), before + 2);
    assert_eq!(stats(0).held_blocks, 0, "the 8 MiB segment was released too");
    fake::fail("cuMemAlloc", 0, 0);
    free(malloc(16 * MIB));
}

#[test]
fn unknown_pointers_and_double_frees_get_nvidias_error() {
    pool_on();
    let mut local = 0u64;
    let frees = fake::calls("cuMemFree");
    assert_eq!(unsafe { cudaFree((&mut local as *mut u64).cast()) }, cudaErrorInvalidValue);
    assert_eq!(fake::calls("cuMemFree"), frees + 1, "an unknown pointer is the driver's to judge");
    let p = malloc(1000);
    // An interior pointer is not an allocation; neither is the free rest
    // of the segment.
    assert_eq!(unsafe { cudaFree(p.cast::<u8>().add(8).cast()) }, cudaErrorInvalidValue);
    assert_eq!(unsafe { cudaFree(p.cast::<u8>().add(1024).cast()) }, cudaErrorInvalidValue);
    free(p);
    assert_eq!(unsafe { cudaFree(p) }, cudaErrorInvalidValue, "freed twice");
    assert_eq!(fake::calls("cuMemFree"), frees + 1, "an address in a segment never reaches cuMemFree");
    assert_eq!(stats(0).held_blocks, 1, "the segment is still there");
    // Wrong kind: the driver answers and frees nothing.
    let q = malloc(1000);
    assert_eq!(unsafe { cudaFreeHost(q) }, cudaErrorInvalidValue);
    free(q);
    assert_eq!(unsafe { cudaFree(null_mut()) }, cudaSuccess);
    // Size 0 is NULL and touches nothing.
    let mut z = std::ptr::dangling_mut::<c_void>();
    assert_eq!(unsafe { cudaMalloc(&mut z, 0) }, cudaSuccess);
    assert!(z.is_null());
    // Impossible sizes get the driver's answer.
    assert_eq!(unsafe { cudaMalloc(&mut z, usize::MAX) }, cudaErrorMemoryAllocation);
    assert_eq!(unsafe { cudaMalloc(null_mut(), 16) }, cudaErrorInvalidValue);
}

#[test]
fn pinned_host_memory_is_cached_too() {
    pool_on();
    for i in 0..500 {
        let mut p = null_mut();
        assert_eq!(unsafe { cudaMallocHost(&mut p, 2 * MIB + i) }, cudaSuccess);
        unsafe { *p.cast::<u8>() = 1 };
        assert_eq!(unsafe { cudaFreeHost(p) }, cudaSuccess);
    }
    assert!(fake::calls("cuMemAllocHost") <= 2, "{}", fake::calls("cuMemAllocHost"));
    assert_eq!(fake::calls("cuMemFreeHost"), 0);
    let h = host_stats(0);
    assert_eq!(h.hits + h.misses, 500);
    assert_eq!(stats(0), CacheStats::default(), "device pool untouched");
    let mut p = null_mut();
    assert_eq!(unsafe { cudaMallocHost(&mut p, 100) }, cudaSuccess);
    assert_eq!(unsafe { cudaFree(p) }, cudaErrorInvalidValue, "cudaFree of pinned memory is the driver's error");
    assert_eq!(unsafe { cudaFreeHost(p) }, cudaSuccess);
    assert_eq!(unsafe { cudaFreeHost(p) }, cudaErrorInvalidValue);
}

#[test]
fn mem_get_info_counts_cached_bytes_as_free() {
    pool_on();
    let before = mem_free_bytes();
    let p = malloc(4 * MIB);
    assert_eq!(mem_free_bytes(), before - 4 * MIB);
    free(p);
    assert_eq!(mem_free_bytes(), before, "the cached block is reported free");
    assert_eq!(stats(0).held_bytes, 4 * MIB as u64, "though the cache still holds it");
    // 3 MiB in a fresh 4 MiB segment: the free rest counts as free too.
    let q = malloc(64 * MIB);
    let r = malloc(3 * MIB);
    assert_eq!(mem_free_bytes(), before - 67 * MIB);
    free(q);
    free(r);
}

#[test]
fn stats_add_up() {
    pool_on();
    let mut live = Vec::new();
    for i in 0..300usize {
        live.push(malloc(1 + (i * 7919) % (3 * MIB)));
        if i % 3 == 2 {
            free(live.remove(i % live.len()));
        }
    }
    let s = stats(0);
    assert_eq!(s.active_blocks, live.len() as u64);
    assert_eq!(s.held_bytes, s.active_bytes + s.cached_bytes);
    assert_eq!(s.held_bytes % (2 * MIB as u64), 0, "segments are whole 2 MiB pages");
    assert_eq!(s.hits + s.misses, 300);
    assert_eq!(s.misses, fake::calls("cuMemAlloc"));
    assert_eq!(s.held_blocks + s.released_blocks, s.misses, "segments held and given back");
    assert!(s.peak_held_bytes >= s.held_bytes);
    live.into_iter().for_each(free);
    let s = stats(0);
    assert_eq!((s.active_blocks, s.active_bytes), (0, 0));
    assert_eq!(s.cached_bytes, s.held_bytes);
}

#[test]
fn device_reset_forgets_every_block() {
    pool_on();
    let a = malloc(MIB);
    let b = malloc(2 * MIB);
    free(a);
    assert_eq!(stats(0).held_blocks, 2);
    assert_eq!(unsafe { cudaDeviceReset() }, cudaSuccess);
    assert_eq!(stats(0).held_blocks, 0);
    // The reset freed b (on a GPU; the fake driver keeps its bytes):
    // freeing it now is the driver's business, not the cache's.
    let frees = fake::calls("cuMemFree");
    let _ = unsafe { cudaFree(b) };
    assert_eq!(fake::calls("cuMemFree"), frees + 1);
    // After the reset the cache fills again from the driver.
    let allocs = fake::calls("cuMemAlloc");
    let c = malloc(MIB);
    assert_eq!(fake::calls("cuMemAlloc"), allocs + 1);
    free(c);
    assert_eq!((stats(0).held_blocks, stats(0).cached_bytes), (1, 2 * MIB as u64));
}

#[test]
fn two_devices_have_their_own_pools_and_free_works_from_either() {
    use_fake_driver(&[("CUDART_SHIM_POOL", "1"), ("FAKE_CUDA_DEVICES", "2")]);
    assert_eq!(unsafe { cudaSetDevice(1) }, cudaSuccess);
    let p = malloc(MIB);
    assert_eq!(unsafe { cudaSetDevice(0) }, cudaSuccess);
    free(p);
    assert_eq!((stats(1).active_blocks, stats(1).cached_bytes, stats(0).held_blocks), (0, 2 * MIB as u64, 0));
    assert_eq!(unsafe { cudaSetDevice(1) }, cudaSuccess);
    // Device 1's segment serves it (its free second half), no driver call.
    let allocs = fake::calls("cuMemAlloc");
    let q = malloc(MIB);
    assert_eq!(q as usize, p as usize + MIB);
    assert_eq!(fake::calls("cuMemAlloc"), allocs);
    free(q);
    assert_eq!(stats(99), CacheStats::default());
    assert_eq!(stats(-1), CacheStats::default());
}

#[test]
fn eight_threads_never_share_a_block() {
    pool_on();
    free(malloc(1)); // initialize before the threads race
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            std::thread::spawn(move || {
                let mut live: Vec<(*mut u64, usize, u64)> = Vec::new();
                let mut x = t.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                for i in 0..2000u64 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let size = [64, 600, 4096, 40_000, MIB + 3][(x % 5) as usize];
                    let p = malloc(size).cast::<u64>();
                    let words = size / 8;
                    let tag = t << 32 | i;
                    unsafe {
                        *p = tag;
                        *p.add(words - 1) = tag;
                    }
                    live.push((p, words, tag));
                    if live.len() > 6 || x % 3 == 0 {
                        let (q, w, tag) = live.swap_remove((x as usize / 3) % live.len());
                        // Nobody else wrote into a block while we held it.
                        unsafe { assert_eq!((*q, *q.add(w - 1)), (tag, tag)) };
                        free(q.cast());
                    }
                }
                for (q, w, tag) in live {
                    unsafe { assert_eq!((*q, *q.add(w - 1)), (tag, tag)) };
                    free(q.cast());
                }
                2000u64
            })
        })
        .collect();
    let total: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    let s = stats(0);
    assert_eq!(s.hits + s.misses, total + 1);
    assert_eq!((s.active_blocks, s.active_bytes), (0, 0));
    assert_eq!(s.cached_bytes, s.held_bytes);
    assert_eq!(s.held_blocks + s.released_blocks, fake::calls("cuMemAlloc"), "no segment lost");
    assert_eq!(s.released_blocks, fake::calls("cuMemFree"));
    assert!(s.hits > total / 2, "{s:?}");
}

#[test]
fn off_by_default() {
    use_fake_driver(&[]);
    for _ in 0..10 {
        free(malloc(4096));
    }
    assert_eq!(fake::calls("cuMemAlloc"), 10);
    assert_eq!(fake::calls("cuMemFree"), 10);
    assert_eq!(stats(0), CacheStats::default());
}

#[test]
fn zero_is_off() {
    use_fake_driver(&[("CUDART_SHIM_POOL", "0")]);
    for _ in 0..10 {
        free(malloc(4096));
    }
    assert_eq!(fake::calls("cuMemAlloc"), 10);
}

/// A bad value warns, naming the variable and the accepted values, and
/// leaves the cache off. Runs itself again as a child to read its stderr.
#[test]
fn bad_value_warns_and_stays_off() {
    if std::env::var_os("CACHE_TEST_CHILD").is_some() {
        use_fake_driver(&[]);
        for _ in 0..3 {
            free(malloc(4096));
        }
        assert_eq!(fake::calls("cuMemAlloc"), 3);
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "bad_value_warns_and_stays_off", "--nocapture"])
        .env("CACHE_TEST_CHILD", "1")
        .env("CUDART_SHIM_POOL", "yes")
        .env("CUDART_SHIM_DRIVER", fake_driver())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("CUDART_SHIM_POOL=\"yes\"") && err.contains("0 or 1"), "{err}");
}

/// While a stream captures a graph the pool neither synchronizes (that
/// would invalidate the capture) nor gives memory back to the driver
/// (`cuMemFree` may be forbidden in the capture's mode): it grows, and
/// catches up once the capture ends.
#[test]
fn during_a_capture_the_pool_grows_and_gives_nothing_back() {
    use cudart_shim::api::capture::*;
    use cudart_shim::api::stream::*;
    pool_on();
    let mut s = null_mut();
    assert_eq!(unsafe { cudaStreamCreateWithFlags(&mut s, cudaStreamNonBlocking) }, cudaSuccess);
    let flag = malloc(512);
    let x = malloc(64 * MIB);
    let y = malloc(32 * MIB);
    free(x);
    free(y);
    // Synchronizes: x and y are free again; x serves.
    let z = malloc(64 * MIB);
    assert_eq!(z, x);
    free(z);
    let (syncs, allocs) = (fake::calls("cuCtxSynchronize"), fake::calls("cuMemAlloc"));
    assert_eq!(fake::calls("cuMemFree"), 0);
    assert_eq!(unsafe { cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) }, cudaSuccess);
    assert_eq!(unsafe { cudaMemsetAsync(flag, 1, 512, s) }, cudaSuccess);
    // Fits nowhere (y is 32 MiB, x waits), and a new segment passes the
    // cap: outside a capture y would go back to the driver and the pool
    // would synchronize to reuse x. Here: a one-off segment.
    let w = malloc(48 * MIB);
    free(w);
    let v = malloc(64 * MIB);
    assert!(v != x && v != w);
    free(v);
    assert_eq!(fake::calls("cuCtxSynchronize"), syncs, "no synchronize during the capture");
    assert_eq!(fake::calls("cuMemAlloc"), allocs + 2);
    assert_eq!(fake::calls("cuMemFree"), 0, "nothing given back during the capture");
    let mut g = null_mut();
    assert_eq!(unsafe { cudaStreamEndCapture(s, &mut g) }, cudaSuccess, "the capture is still valid");
    assert!(!g.is_null());
    // After it: one synchronize, the two one-off segments go back, x serves.
    let d = malloc(64 * MIB);
    assert_eq!(d, x);
    assert_eq!(fake::calls("cuCtxSynchronize"), syncs + 1);
    assert_eq!(fake::calls("cuMemFree"), 2);
    assert_eq!(stats(0).held_bytes, 98 * MIB as u64, "x, y and the 2 MiB segment of the flag");
    free(d);
    free(flag);
    assert_eq!(unsafe { cudaStreamDestroy(s) }, cudaSuccess);
}

// ---------------------------------------------------------------- the benchmark's workload

/// The device memory the real driver would hold now, and at most so far,
/// for device 0's `cuMemAlloc`s (the fake driver's count at the driver's
/// 2 MiB granularity).
fn driver_held() -> (usize, usize) {
    let f: unsafe extern "C" fn(i32, *mut usize) -> usize = fake::control("fake_cuda_device_memory_held");
    let mut peak = 0;
    let now = unsafe { f(0, &mut peak) };
    (now, peak)
}

/// The loop of benches/gpu/cache.cu and tests/gpu/cache_loop.cu: 64 slots,
/// each keeping its size class (256 B, 1000 B, 4 KiB, 64 KiB, 1 MiB, 3 MiB,
/// plus up to 511 B), the same xorshift sequence.
struct Workload {
    rng: u64,
}

impl Workload {
    const SLOTS: usize = 64;
    const MENU: [usize; 6] = [256, 1000, 4096, 65536, 1 << 20, 3 << 20];

    fn new() -> Self {
        Workload { rng: 88172645463325252 }
    }

    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// The next operation: (slot to free and refill, size of its new block).
    fn op(&mut self) -> (usize, usize) {
        let slot = (self.next() % Self::SLOTS as u64) as usize;
        (slot, Self::MENU[slot % 6] + (self.next() % 512) as usize)
    }
}

/// A check queued behind a block's writer on the checking stream: the
/// block's first bytes still hold the value written into it when it was
/// allocated. A block handed out again before this ran would have been
/// overwritten by its next writer.
struct Check {
    p: *const u8,
    len: usize,
    tag: u8,
    freed_after: u64,
}

static OPS_DONE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static CHECKED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static LATE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static WRONG: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

unsafe extern "C" fn check_block(data: *mut c_void) {
    use std::sync::atomic::Ordering::SeqCst;
    let c = unsafe { Box::from_raw(data.cast::<Check>()) };
    let bytes = unsafe { std::slice::from_raw_parts(c.p, c.len) };
    if bytes.iter().any(|&b| b != c.tag) {
        WRONG.fetch_add(1, SeqCst);
    }
    // The program had gone on (freed and allocated more) before this ran:
    // the block sat in the cache while work that used it was pending.
    if OPS_DONE.load(SeqCst) > c.freed_after {
        LATE.fetch_add(1, SeqCst);
    }
    CHECKED.fetch_add(1, SeqCst);
}

/// Keeps the checking stream behind, as the benchmark's kernels keep the
/// GPU busy.
unsafe extern "C" fn stall(_: *mut c_void) {
    std::thread::sleep(std::time::Duration::from_micros(100));
}

/// The benchmark's workload for 50,000 operations over the fake driver
/// (`CACHE_WORKLOAD_OPS` sets another count; what is held stops changing
/// after the first thousand or so, see the figures in docs/PERFORMANCE.md),
/// with stream work between them as on the GPU: each new block is written
/// (`cudaMemsetAsync` of its first 4 KiB on a writer stream) and, when its
/// slot is freed, checked by a host function on a second stream that waits
/// for the writer (an event) and falls behind (a 100 us stall every 16
/// operations).
///
/// - Memory: the peak device memory the driver holds at its 2 MiB
///   granularity (the fake driver's count, which is what
///   benches/gpu/cache.cu reads through `cuMemGetInfo` on a GPU) stays
///   <= 1.5x the program's peak live bytes (the target); the
///   policy's cap is 1.3x + 4 MiB.
/// - Driver calls: segments are few and one-off segments rare: at most one
///   `cuMemAlloc` + `cuMemFree` per 500 operations (NVIDIA's runtime makes
///   one of each per operation).
/// - Synchronizes: at most one per 4 operations (NVIDIA's `cudaFree`
///   synchronizes once per operation; the allocator needs one each time the
///   blocks it can reuse run out under the cap, about one per 6 here).
/// - Results: every check saw its block's own bytes (no block was handed
///   out again before a synchronize that followed its free), and many
///   checks ran after the program had moved on, so the window in which an
///   early reuse would show was there.
#[test]
fn benchmark_workload_holds_under_one_and_a_half_times_its_live_bytes_as_the_driver_counts() {
    use cudart_shim::api::event::*;
    use cudart_shim::api::stream::*;
    use std::sync::atomic::Ordering::SeqCst;
    pool_on();
    let (mut writer, mut checker, mut written) = (null_mut(), null_mut(), null_mut());
    unsafe {
        assert_eq!(cudaStreamCreateWithFlags(&mut writer, cudaStreamNonBlocking), cudaSuccess);
        assert_eq!(cudaStreamCreateWithFlags(&mut checker, cudaStreamNonBlocking), cudaSuccess);
        assert_eq!(cudaEventCreateWithFlags(&mut written, cudaEventDisableTiming), cudaSuccess);
    }
    // CACHE_WORKLOAD_OPS=1000000 runs it longer (about a minute in debug).
    let ops: u64 = std::env::var("CACHE_WORKLOAD_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(50_000);
    let mut w = Workload::new();
    let mut live = [(null_mut::<c_void>(), 0usize, 0u8); Workload::SLOTS];
    let (mut live_bytes, mut live_peak) = (0usize, 0usize);
    let (allocs0, frees0, syncs0) = (fake::calls("cuMemAlloc"), fake::calls("cuMemFree"), fake::calls("cuCtxSynchronize"));
    let start = std::time::Instant::now();
    for i in 0..ops {
        let (slot, n) = w.op();
        let (old, old_n, tag) = live[slot];
        if !old.is_null() {
            let c = Box::new(Check { p: old.cast(), len: old_n.min(4096), tag, freed_after: i });
            assert_eq!(unsafe { cudaLaunchHostFunc(checker, Some(check_block), Box::into_raw(c).cast()) }, cudaSuccess);
            free(old);
            live_bytes -= old_n;
        }
        let p = malloc(n);
        let tag = (i % 251 + 1) as u8;
        unsafe {
            assert_eq!(cudaMemsetAsync(p, tag.into(), n.min(4096), writer), cudaSuccess);
            assert_eq!(cudaEventRecord(written, writer), cudaSuccess);
            assert_eq!(cudaStreamWaitEvent(checker, written, 0), cudaSuccess);
            if i % 16 == 0 {
                assert_eq!(cudaLaunchHostFunc(checker, Some(stall), null_mut()), cudaSuccess);
            }
        }
        live[slot] = (p, n, tag);
        live_bytes += n;
        live_peak = live_peak.max(live_bytes);
        OPS_DONE.store(i + 1, SeqCst);
    }
    let elapsed = start.elapsed();
    let (allocs, frees, syncs) = (
        fake::calls("cuMemAlloc") - allocs0,
        fake::calls("cuMemFree") - frees0,
        fake::calls("cuCtxSynchronize") - syncs0,
    );
    assert_eq!(unsafe { cudaDeviceSynchronize() }, cudaSuccess);
    let (_, held_peak) = driver_held();
    let s = stats(0);
    let ratio = held_peak as f64 / live_peak as f64;
    eprintln!(
        "cache_benchmark_workload memory: live peak {live_peak} B, driver-reported in use peak {held_peak} B, ratio {ratio:.3} ({ops} ops); \
         {:.4} synchronizes/op, {allocs} cuMemAlloc + {frees} cuMemFree, {} checks ({} late), {elapsed:?}; {s:?}",
        syncs as f64 / ops as f64,
        CHECKED.load(SeqCst),
        LATE.load(SeqCst),
    );
    assert_eq!(WRONG.load(SeqCst), 0, "a block was handed out again while work that used it was pending");
    let checks = CHECKED.load(SeqCst);
    assert_eq!(checks, ops - Workload::SLOTS as u64);
    assert!(LATE.load(SeqCst) > checks / 10, "the checks must lag behind for the test to mean something");
    // Segments are whole 2 MiB pages: what the pool counts is what the driver holds.
    assert_eq!(held_peak as u64, s.peak_held_bytes);
    assert!(ratio <= 1.5, "held {held_peak} B at peak for {live_peak} B live: {ratio:.3}");
    assert!(syncs * 4 <= ops, "{syncs} synchronizes for {ops} operations");
    assert!((allocs + frees) * 500 <= ops, "{allocs} driver allocations and {frees} frees for {ops} operations");
    assert_eq!(s.synchronizes, syncs);
    for (p, _, _) in live {
        free(p);
    }
    unsafe {
        assert_eq!(cudaEventDestroy(written), cudaSuccess);
        assert_eq!(cudaStreamDestroy(writer), cudaSuccess);
        assert_eq!(cudaStreamDestroy(checker), cudaSuccess);
    }
}

/// The same workload without the cache, the way NVIDIA's runtime runs it
/// (one driver allocation per block): the driver's 2 MiB granularity alone
/// costs half again the live bytes, because the 1 MiB + x and 3 MiB + x
/// blocks take 2 and 4 MiB. 5,000 operations: the count depends only on
/// which blocks are live.
#[test]
fn without_the_cache_the_drivers_granularity_costs_this_workload_half_again() {
    use_fake_driver(&[]);
    let mut w = Workload::new();
    let mut live = [(null_mut::<c_void>(), 0usize); Workload::SLOTS];
    let (mut live_bytes, mut live_peak) = (0usize, 0usize);
    for _ in 0..5000 {
        let (slot, n) = w.op();
        if !live[slot].0.is_null() {
            free(live[slot].0);
            live_bytes -= live[slot].1;
        }
        live[slot] = (malloc(n), n);
        live_bytes += n;
        live_peak = live_peak.max(live_bytes);
    }
    let (now, peak) = driver_held();
    let ratio = peak as f64 / live_peak as f64;
    eprintln!("no cache memory: live peak {live_peak} B, driver-reported in use peak {peak} B, ratio {ratio:.3} (5000 ops)");
    // 10 blocks of 3 MiB + x (4 MiB each), 10 of 1 MiB + x (2 MiB each),
    // and one page for the 44 small ones (0.75 MiB).
    assert_eq!(now, 62 * MIB);
    assert!(ratio > 1.5 && ratio < 1.55, "{ratio}");
    for (p, _) in live {
        free(p);
    }
    assert_eq!(driver_held().0, 0);
}

/// The fake driver's count of what the driver holds: small allocations
/// share 2 MiB pages (a page is held while anything lives in it), larger
/// ones take whole pages.
#[test]
fn the_fake_driver_counts_held_memory_in_2_mib_pages() {
    use_fake_driver(&[]);
    assert_eq!(driver_held(), (0, 0));
    let a = malloc(1);
    assert_eq!(driver_held().0, 2 * MIB, "the first small allocation holds a page");
    let small: Vec<_> = (0..3).map(|_| malloc(512 * 1024)).collect();
    assert_eq!(driver_held().0, 2 * MIB, "three 512 KiB allocations fit in the same page");
    let b = malloc(512 * 1024);
    assert_eq!(driver_held().0, 4 * MIB, "a fourth does not (512 B already used)");
    let c = malloc(3 * MIB + 1);
    assert_eq!(driver_held().0, 8 * MIB, "3 MiB + 1 B takes two pages of its own");
    free(a);
    small.into_iter().for_each(free);
    assert_eq!(driver_held().0, 6 * MIB, "the emptied page is given back");
    free(b);
    free(c);
    assert_eq!(driver_held(), (0, 8 * MIB));
    // cuMemGetInfo itself still counts exact bytes.
    let before = mem_free_bytes();
    let d = malloc(1000);
    assert_eq!(before - mem_free_bytes(), 1000);
    free(d);
}

#[test]
fn pinned_blocks_wait_for_every_device() {
    use_fake_driver(&[("CUDART_SHIM_POOL", "1"), ("FAKE_CUDA_DEVICES", "2")]);
    assert_eq!(unsafe { cudaSetDevice(1) }, cudaSuccess);
    free(malloc(16)); // device 1's context is in use
    assert_eq!(unsafe { cudaSetDevice(0) }, cudaSuccess);
    // 64 MiB: a second segment would pass the cap, so the pool waits.
    let mut p = null_mut();
    assert_eq!(unsafe { cudaMallocHost(&mut p, 64 * MIB) }, cudaSuccess);
    assert_eq!(unsafe { cudaFreeHost(p) }, cudaSuccess);
    let syncs = fake::calls("cuCtxSynchronize");
    let mut q = null_mut();
    assert_eq!(unsafe { cudaMallocHost(&mut q, 64 * MIB) }, cudaSuccess);
    assert_eq!(q, p);
    assert_eq!(fake::calls("cuCtxSynchronize"), syncs + 2, "both devices' contexts");
    assert_eq!(host_stats(0).synchronizes, 1);
}

#[test]
fn memory_freed_in_one_size_serves_another() {
    pool_on();
    // 32 blocks of 1 MiB, all freed: their segments (2, 2, 4, 8, 8 and
    // 8 MiB, and a one-off 2 MiB one) merge back whole after one
    // synchronize and serve seven 3 MiB blocks (one in the 4 MiB segment,
    // two in each 8 MiB one) with no driver call.
    let ps: Vec<_> = (0..32).map(|_| malloc(MIB)).collect();
    ps.into_iter().for_each(free);
    let allocs = fake::calls("cuMemAlloc");
    let qs: Vec<_> = (0..7).map(|_| malloc(3 * MIB)).collect();
    assert_eq!(fake::calls("cuMemAlloc"), allocs);
    let s = stats(0);
    assert_eq!((s.held_bytes, s.active_bytes, s.synchronizes), (32 * MIB as u64, 21 * MIB as u64, 1));
    qs.into_iter().for_each(free);
}

#[test]
fn free_segments_are_given_back_to_make_room_under_the_cap() {
    pool_on();
    // 64 MiB held in segments of 1 MiB blocks (none larger than 8 MiB), all
    // freed, then made reusable by the synchronize of the next allocation
    // (8 MiB: no free rest of a segment is that large).
    let ps: Vec<_> = (0..64).map(|_| malloc(MIB)).collect();
    ps.into_iter().for_each(free);
    free(malloc(8 * MIB));
    let before = stats(0);
    assert_eq!((before.active_bytes, before.synchronizes), (0, 1));
    // 48 MiB fits in no segment, and a 48 MiB segment on top would pass the
    // cap (1.3 x 48 MiB + 4 MiB): free segments go back, largest first,
    // until it fits.
    let q = malloc(48 * MIB);
    let s = stats(0);
    assert!(s.released_blocks > before.released_blocks, "{before:?} {s:?}");
    assert_eq!(fake::calls("cuMemFree"), s.released_blocks);
    assert!(s.held_bytes <= 48 * MIB as u64 * 13 / 10 + 4 * MIB as u64, "{s:?}");
    assert!(s.held_bytes > 48 * MIB as u64 * 13 / 10 - 8 * MIB as u64, "no more than needed went back: {s:?}");
    assert_eq!(s.synchronizes, 1, "the 1 MiB blocks were free already");
    free(q);
}

/// Over the cap with nothing free that fits, a request gets a one-off
/// segment, which goes back to the driver once its block is freed and a
/// synchronize has passed.
#[test]
fn a_one_off_segment_goes_back_once_its_block_is_free() {
    pool_on();
    let a = malloc(32 * MIB);
    free(a); // waits for a synchronize
    // 40 MiB: no free block fits, 32 MiB waiting would not fit either, and
    // a 40 MiB segment next to the 32 MiB one passes the cap (56 MiB).
    let b = malloc(40 * MIB);
    let s = stats(0);
    assert_eq!((s.held_blocks, s.held_bytes, s.synchronizes), (2, 72 * MIB as u64, 0));
    free(b);
    assert_eq!(fake::calls("cuMemFree"), 0);
    // The next allocation synchronizes (growing would pass the cap); the
    // one-off segment goes back, the 32 MiB one serves the request.
    let c = malloc(32 * MIB);
    assert_eq!(c, a);
    let s = stats(0);
    assert_eq!((s.held_blocks, s.held_bytes, s.released_blocks, s.synchronizes), (1, 32 * MIB as u64, 1, 1));
    assert_eq!(fake::calls("cuMemFree"), 1);
    free(c);
}

/// With the cache on, the ledger (which the timeline's memory track
/// reads) counts each `cudaMalloc` once, at the size asked, however the
/// cache serves it; a failed free counts nothing.
#[test]
fn ledger_counts_cached_blocks_once() {
    let f = scratch("cache_trace").join("tl.json");
    use_fake_driver(&[("CUDART_SHIM_POOL", "1"), ("CUDART_SHIM_TRACE", "timeline"), ("CUDART_SHIM_TRACE_FILE", f.to_str().unwrap())]);
    use cudart_shim::ledger::book::used;
    let p = malloc(1000);
    assert_eq!(used(0), 1000);
    free(p);
    assert_eq!(used(0), 0);
    for _ in 0..10 {
        let q = malloc(3 * MIB + 1);
        assert_eq!(used(0), 3 * MIB as u64 + 1, "the request, not the segment");
        free(q);
    }
    assert_eq!(used(0), 0);
    assert_eq!(unsafe { cudaFree(p) }, cudaErrorInvalidValue);
    assert_eq!(used(0), 0, "a failed free counts nothing");
}

/// Work still queued on a stream (a host function on the fake driver's
/// stream worker, which really runs later) holds its block: the cache hands
/// the block out again only after a synchronize has waited for it.
#[test]
fn reuse_waits_for_work_still_queued_on_a_stream() {
    use cudart_shim::api::stream::*;
    use std::sync::atomic::{AtomicU32, Ordering};
    static STATE: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn slow_user(block: *mut c_void) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        // Still "using" the block: write into it, then say it is done.
        unsafe { *block.cast::<u32>() = 0xdead };
        STATE.store(1, Ordering::SeqCst);
    }
    pool_on();
    let mut s = null_mut();
    assert_eq!(unsafe { cudaStreamCreateWithFlags(&mut s, cudaStreamNonBlocking) }, cudaSuccess);
    // 64 MiB: the pool cannot grow under its cap, so it reuses the block.
    let a = malloc(64 * MIB);
    assert_eq!(unsafe { cudaLaunchHostFunc(s, Some(slow_user), a) }, cudaSuccess);
    free(a);
    assert_eq!(STATE.load(Ordering::SeqCst), 0, "cudaFree did not wait");
    let b = malloc(64 * MIB);
    assert_eq!(b, a);
    assert_eq!(STATE.load(Ordering::SeqCst), 1, "the block came back only after its user finished");
    assert_eq!(unsafe { *b.cast::<u32>() }, 0xdead);
    free(b);
    assert_eq!(unsafe { cudaStreamDestroy(s) }, cudaSuccess);
}

#[test]
fn statistics_through_the_c_api_and_the_trace_summary() {
    pool_on();
    if std::env::var_os("CACHE_SUMMARY_CHILD").is_some() {
        // The re-run below: allocate, free, exit with the summary on.
        let p = malloc(1 << 20);
        free(p);
        return;
    }
    let p = malloc(4096);
    free(p);
    let q = malloc(4096);
    let mut s = cudartShimPoolStats::default();
    unsafe {
        assert_eq!(cudart_shim::api::shim::cudartShimGetPoolStats(0, 0, &mut s), cudaSuccess);
        assert_eq!(cudart_shim::api::shim::cudartShimGetPoolStats(0, 0, null_mut()), cudaErrorInvalidValue);
    }
    assert_eq!(s, stats(0));
    assert_eq!(s.active_blocks, 1);
    assert_eq!(s.hits + s.misses, 2);
    free(q);
    // The summary's text form gets one line per pool in use.
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args(["--exact", "statistics_through_the_c_api_and_the_trace_summary", "--nocapture"])
        .env("CUDART_SHIM_POOL", "1")
        .env("CUDART_SHIM_TRACE", "summary")
        .env("CACHE_SUMMARY_CHILD", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("caching allocator, device 0, device memory: "), "{err}");
    assert!(err.contains("Num Calls"), "{err}");
}
