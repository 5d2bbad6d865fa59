//! The ledger's tables: the live allocations, the per-device usage the
//! limits read, and the statistics the memory table shows.
//!
//! No global lock on the allocation path:
//! - usage per device is one atomic, reserved with a compare-and-swap loop
//!   before the driver call and returned if the call fails, so racing
//!   threads never take it past the limit;
//! - live allocations sit in [`SHARDS`] maps picked by the handle's hash,
//!   each under its own lock, held for one insert or remove;
//! - statistics are atomics per (library, device, kind), allocated once
//!   per library the first time it allocates.

use super::caller::LibId;
use super::decode::Space;
use super::Kind;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::OnceLock;

/// Device ordinals the ledger keeps apart (0..); more are counted on the last.
pub const DEVICES: usize = trace_format::memory::MAX_DEVICES;
/// Row index of host memory (device -1).
const HOST_ROW: usize = DEVICES;
const ROWS_PER_LIB: usize = (DEVICES + 1) * Kind::COUNT;
const MAX_LIBS: usize = 1024;

/// One live allocation.
#[derive(Clone, Debug)]
pub struct Entry {
    pub size: u64,
    pub device: i32,
    pub kind: Kind,
    pub lib: LibId,
    /// The first return address outside our libraries (0: not resolved).
    pub caller: usize,
    pub stream: u64,
    pub time_ns: u64,
    pub tid: i32,
    /// Order of allocation (leak reports list sizes in it).
    pub seq: u64,
    /// `CUDART_SHIM_MEMORY_BACKTRACE=N`: return addresses.
    pub backtrace: Option<Box<[usize]>>,
    /// Bytes taken from the device's usage (0 for kinds outside the limit).
    pub charged: u64,
}

/// A fixed, non-random hasher: handles are addresses, spread enough.
#[derive(Default)]
pub struct AddrHasher(u64);

impl std::hash::Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ *b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
}

type Map = HashMap<(Space, u64), Entry, BuildHasherDefault<AddrHasher>>;
const SHARD_COUNT: usize = 64;
static SHARDS: [Mutex<Map>; SHARD_COUNT] = [const { Mutex::new(HashMap::with_hasher(BuildHasherDefault::new())) }; SHARD_COUNT];

fn shard(space: Space, h: u64) -> &'static Mutex<Map> {
    // Allocations are aligned: drop the low bits before mixing.
    let x = ((h >> 8) ^ space as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    &SHARDS[(x >> 58) as usize % SHARD_COUNT]
}

/// Device memory in use under the limit, per device.
static USED: [AtomicU64; DEVICES] = [const { AtomicU64::new(0) }; DEVICES];
/// The limit per device; u64::MAX = none.
static LIMIT: [AtomicU64; DEVICES] = [const { AtomicU64::new(u64::MAX) }; DEVICES];
static SEQ: AtomicU64 = AtomicU64::new(0);

pub fn dev_index(device: i32) -> usize {
    (device.max(0) as usize).min(DEVICES - 1)
}

pub fn set_limit(device: usize, bytes: Option<u64>) {
    LIMIT[device.min(DEVICES - 1)].store(bytes.unwrap_or(u64::MAX), Relaxed);
}

pub fn limit(device: i32) -> Option<u64> {
    let l = LIMIT[dev_index(device)].load(Relaxed);
    (l != u64::MAX).then_some(l)
}

pub fn used(device: i32) -> u64 {
    USED[dev_index(device)].load(Relaxed)
}

/// Take `bytes` of device `device`'s usage; Err(used) when that would pass
/// the limit (nothing taken).
#[inline]
pub fn reserve(device: i32, bytes: u64) -> Result<(), u64> {
    let i = dev_index(device);
    let lim = LIMIT[i].load(Relaxed);
    if lim == u64::MAX {
        USED[i].fetch_add(bytes, Relaxed);
        return Ok(());
    }
    let mut cur = USED[i].load(Relaxed);
    loop {
        match cur.checked_add(bytes) {
            Some(n) if n <= lim => match USED[i].compare_exchange_weak(cur, n, AcqRel, Relaxed) {
                Ok(_) => return Ok(()),
                Err(now) => cur = now,
            },
            _ => return Err(cur),
        }
    }
}

/// Add bytes the driver already allocated beyond a reservation (a pitch
/// larger than the width): they are in use whatever the limit says.
pub fn charge(device: i32, bytes: u64) {
    USED[dev_index(device)].fetch_add(bytes, Relaxed);
}

/// Return bytes taken by [`reserve`].
#[inline]
pub fn unreserve(device: i32, bytes: u64) {
    if bytes != 0 {
        let _ = USED[dev_index(device)].fetch_update(AcqRel, Relaxed, |u| Some(u.saturating_sub(bytes)));
    }
}

/// Bytes live per (device row, kind) over every library: the value of
/// the timeline's counter track of that device and kind.
static TRACK: [AtomicU64; (DEVICES + 1) * Kind::COUNT] = [const { AtomicU64::new(0) }; (DEVICES + 1) * Kind::COUNT];

/// Bytes live on `device` (-1: host) of `kind`, over every library.
pub fn track(device: i32, kind: Kind) -> u64 {
    TRACK[row(device) * Kind::COUNT + kind as usize].load(Relaxed)
}

/// Statistics of one (library, device, kind).
#[derive(Default)]
pub struct Stat {
    pub allocs: AtomicU64,
    pub frees: AtomicU64,
    pub live: AtomicU64,
    pub live_count: AtomicU64,
    pub peak: AtomicU64,
    pub peak_ns: AtomicU64,
}

static STATS: [OnceLock<Box<[Stat]>>; MAX_LIBS] = [const { OnceLock::new() }; MAX_LIBS];

fn row(device: i32) -> usize {
    if device < 0 { HOST_ROW } else { dev_index(device) }
}

fn stat(lib: LibId, device: i32, kind: Kind) -> &'static Stat {
    let rows = STATS[lib as usize % MAX_LIBS].get_or_init(|| (0..ROWS_PER_LIB).map(|_| Stat::default()).collect());
    &rows[row(device) * Kind::COUNT + kind as usize]
}

/// Record a new allocation under `key`.
pub fn insert(space: Space, handle: u64, mut e: Entry) {
    e.seq = SEQ.fetch_add(1, Relaxed);
    let s = stat(e.lib, e.device, e.kind);
    s.allocs.fetch_add(1, Relaxed);
    s.live_count.fetch_add(1, Relaxed);
    TRACK[row(e.device) * Kind::COUNT + e.kind as usize].fetch_add(e.size, Relaxed);
    let live = s.live.fetch_add(e.size, Relaxed) + e.size;
    if live > s.peak.fetch_max(live, Relaxed) {
        s.peak_ns.store(e.time_ns, Relaxed);
    }
    // A handle the driver hands out again while we still hold it means a
    // free we did not see (made before the ledger started): the old entry
    // is gone.
    if let Some(old) = shard(space, handle).lock().insert((space, handle), e) {
        forget(&old);
    }
}

fn forget(e: &Entry) {
    let s = stat(e.lib, e.device, e.kind);
    s.frees.fetch_add(1, Relaxed);
    s.live_count.fetch_sub(1, Relaxed);
    s.live.fetch_sub(e.size, Relaxed);
    TRACK[row(e.device) * Kind::COUNT + e.kind as usize].fetch_sub(e.size, Relaxed);
    unreserve(e.device, e.charged);
}

/// Take the entry of a handle being freed out of the table (before the
/// free runs, so that a handle the driver reuses at once is not lost);
/// [`restore`] puts it back when the free fails, [`settle`] books it.
pub fn take(space: Space, handle: u64) -> Option<Entry> {
    shard(space, handle).lock().remove(&(space, handle))
}

pub fn restore(space: Space, handle: u64, e: Entry) {
    shard(space, handle).lock().insert((space, handle), e);
}

/// A free that succeeded: its statistics and the device's usage.
pub fn settle(e: &Entry) {
    forget(e);
}

/// Every live allocation (for the leak report and the OOM report).
pub fn live() -> Vec<Entry> {
    SHARDS.iter().flat_map(|s| s.lock().values().cloned().collect::<Vec<_>>()).collect()
}

/// Every statistics row with activity: (lib, device, kind, allocs, frees,
/// peak, peak_ns, live, live_count).
pub fn rows() -> Vec<(LibId, i32, Kind, [u64; 6])> {
    let mut out = Vec::new();
    for (lib, rows) in STATS.iter().enumerate() {
        let Some(rows) = rows.get() else { continue };
        for (i, s) in rows.iter().enumerate() {
            let v = consistent(s);
            if v[0] == 0 {
                continue;
            }
            let r = i / Kind::COUNT;
            let device = if r == HOST_ROW { -1 } else { r as i32 };
            let kind = Kind::ALL[i % Kind::COUNT];
            out.push((lib as LibId, device, kind, v));
        }
    }
    out
}

/// A row's counters as of one moment: other threads may allocate and free
/// while a report reads (the memory report written at exit while calls go
/// on), and six loads one after another are not one instant: a reader
/// preempted between them once showed Allocs 10 beside Frees 90 and Live
/// Allocs 2 (the stress long run of 2026-11-28, `exit-busy`). Taken when
/// two reads in a row agree (the counts only grow or move together, so
/// agreeing reads hold no allocation or free between them), at most 64
/// tries, then the last read.
fn consistent(s: &Stat) -> [u64; 6] {
    let read = || [s.allocs.load(Relaxed), s.frees.load(Relaxed), s.peak.load(Relaxed), s.peak_ns.load(Relaxed), s.live.load(Relaxed), s.live_count.load(Relaxed)];
    let mut v = read();
    for _ in 0..64 {
        let w = read();
        if w == v {
            break;
        }
        v = w;
    }
    v
}

/// Device ordinals with any allocation booked (the process record's
/// `devices`: a program that allocates only through the driver never
/// retains our runtime's primary context, issue #33).
pub fn devices() -> Vec<i32> {
    let mut d: Vec<i32> = rows().into_iter().map(|r| r.1).filter(|&d| d >= 0).collect();
    d.sort_unstable();
    d.dedup();
    d
}

/// Each kind's first failed allocation is reported (once).
static OOM_SEEN: [AtomicBool; Kind::COUNT] = [const { AtomicBool::new(false) }; Kind::COUNT];
/// Each device's first refusal by the limit is logged (once).
static REFUSAL_LOGGED: [AtomicBool; DEVICES] = [const { AtomicBool::new(false) }; DEVICES];

pub fn first_oom(kind: Kind) -> bool {
    !OOM_SEEN[kind as usize].swap(true, Relaxed)
}

pub fn first_refusal(device: i32) -> bool {
    !REFUSAL_LOGGED[dev_index(device)].swap(true, Relaxed)
}

/// Forget everything (tests: each starts from an empty ledger).
#[doc(hidden)]
pub fn reset() {
    for s in &SHARDS {
        s.lock().clear();
    }
    for u in USED.iter().chain(TRACK.iter()) {
        u.store(0, Relaxed);
    }
    for l in &LIMIT {
        l.store(u64::MAX, Relaxed);
    }
    for rows in STATS.iter().filter_map(OnceLock::get) {
        for s in rows.iter() {
            for a in [&s.allocs, &s.frees, &s.live, &s.live_count, &s.peak, &s.peak_ns] {
                a.store(0, Relaxed);
            }
        }
    }
    for b in OOM_SEEN.iter().chain(REFUSAL_LOGGED.iter()) {
        b.store(false, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_stop_exactly_at_the_limit() {
        // Device 63 is used by no other unit test.
        let d = 63;
        set_limit(d as usize, Some(1000));
        assert_eq!(reserve(d, 1000), Ok(()));
        assert_eq!(reserve(d, 1), Err(1000));
        unreserve(d, 1000);
        assert_eq!(reserve(d, 1001), Err(0));
        assert_eq!(used(d), 0);
        set_limit(d as usize, None);
    }
}
