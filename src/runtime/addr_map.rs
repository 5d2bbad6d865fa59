//! A map from addresses to leaked (`&'static`) records whose lookups take no
//! lock: the registry's table behind every `cudaLaunchKernel`,
//! `cudaFuncGetAttributes`, symbol copy, ...
//!
//! Registration is rare (nvcc's constructors, the first resolution of a
//! kernel, `cudaLibraryGetKernel`) and serialized by a mutex; lookups are
//! hot and concurrent. The table is open addressing over atomic
//! `(key, value)` slots, at most half full:
//!
//! - a key, once written into a slot, never changes or moves within that
//!   table; removal clears only the value. So a probe chain is never broken
//!   and a reader that finds its key reads that key's current value;
//! - a new slot's value is stored before its key (both with release
//!   ordering, read with acquire), so a reader that sees the key sees a
//!   value (or a later one);
//! - growth builds a table twice the size from the live entries and
//!   publishes it with one pointer store. Readers still probing the old one
//!   finish there: their lookup is ordered before the growth. Old tables are
//!   kept for the life of the process (each is at most half the next, so
//!   all of them together take less than the live one).

use parking_lot::Mutex;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

struct Slot<T: 'static> {
    /// 0: never used. Addresses are never 0 (callers reject NULL).
    key: AtomicUsize,
    /// NULL: removed (or not yet written).
    value: AtomicPtr<T>,
}

struct Table<T: 'static> {
    slots: Box<[Slot<T>]>,
    /// log2 of the slot count.
    bits: u32,
}

impl<T: 'static> Table<T> {
    fn new(bits: u32) -> Self {
        let slots = (0..1usize << bits).map(|_| Slot { key: AtomicUsize::new(0), value: AtomicPtr::new(std::ptr::null_mut()) }).collect();
        Table { slots, bits }
    }

    /// Fibonacci hashing: addresses share their low bits (alignment), so the
    /// high bits of the product pick the slot.
    #[inline(always)]
    fn start(&self, key: usize) -> usize {
        key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS - self.bits)
    }

    #[inline]
    fn find(&self, key: usize) -> Option<&Slot<T>> {
        let mask = self.slots.len() - 1;
        let mut i = self.start(key);
        loop {
            let s = &self.slots[i];
            match s.key.load(Ordering::Acquire) {
                0 => return None,
                k if k == key => return Some(s),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The slot for `key`, claimed if new (writer only: the caller holds the
    /// map's mutex and the table has a free slot).
    fn claim(&self, key: usize) -> (&Slot<T>, bool) {
        let mask = self.slots.len() - 1;
        let mut i = self.start(key);
        loop {
            let s = &self.slots[i];
            match s.key.load(Ordering::Relaxed) {
                0 => return (s, true),
                k if k == key => return (s, false),
                _ => i = (i + 1) & mask,
            }
        }
    }
}

struct Writer<T: 'static> {
    /// Keys in the current table (live or removed): its load.
    used: usize,
    /// Every table ever published, the current one last; never freed (see
    /// the module note).
    tables: Vec<&'static Table<T>>,
}

pub struct AddrMap<T: 'static> {
    current: AtomicPtr<Table<T>>,
    writer: Mutex<Writer<T>>,
}

// SAFETY: values are shared `&'static T`, handed to any thread; tables are
// only mutated through atomics.
unsafe impl<T: Sync + 'static> Sync for AddrMap<T> {}
unsafe impl<T: Sync + 'static> Send for AddrMap<T> {}

impl<T: Sync + 'static> AddrMap<T> {
    pub const fn new() -> Self {
        AddrMap { current: AtomicPtr::new(std::ptr::null_mut()), writer: Mutex::new(Writer { used: 0, tables: Vec::new() }) }
    }

    /// The record of `key`. Lock-free: a few atomic loads.
    #[inline]
    pub fn get(&self, key: usize) -> Option<&'static T> {
        let t = self.current.load(Ordering::Acquire);
        // SAFETY: a published table is never freed (module note).
        let t: &'static Table<T> = unsafe { t.as_ref() }?;
        let v = t.find(key)?.value.load(Ordering::Acquire);
        // SAFETY: values are `&'static T` stored by `insert`.
        unsafe { v.cast_const().as_ref() }
    }

    /// Map `key` to `value`, replacing any record it had.
    pub fn insert(&self, key: usize, value: &'static T) {
        self.insert_with(key, |_| Some(value));
    }

    /// Map `key` to `make(current record)` when that gives `Some`; one
    /// writer at a time, so the decision and the store are atomic together.
    pub fn insert_with(&self, key: usize, make: impl FnOnce(Option<&'static T>) -> Option<&'static T>) {
        debug_assert_ne!(key, 0);
        let mut w = self.writer.lock();
        let t = self.room_for_one(&mut w);
        let (slot, new) = t.claim(key);
        // SAFETY: as in `get`.
        let old = unsafe { slot.value.load(Ordering::Relaxed).cast_const().as_ref() };
        let Some(v) = make(old) else { return };
        slot.value.store(std::ptr::from_ref(v).cast_mut(), Ordering::Release);
        if new {
            slot.key.store(key, Ordering::Release);
            w.used += 1;
        }
    }

    /// Remove every record for which `keep` is false.
    pub fn retain(&self, mut keep: impl FnMut(&'static T) -> bool) {
        let w = self.writer.lock();
        let Some(t) = w.tables.last() else { return };
        for s in t.slots.iter() {
            // SAFETY: as in `get`.
            if let Some(v) = unsafe { s.value.load(Ordering::Relaxed).cast_const().as_ref() }
                && !keep(v)
            {
                s.value.store(std::ptr::null_mut(), Ordering::Release);
            }
        }
    }

    /// The current table, grown first if one more key would fill it past half.
    fn room_for_one(&self, w: &mut Writer<T>) -> &'static Table<T> {
        if let Some(t) = w.tables.last()
            && (w.used + 1) * 2 <= t.slots.len()
        {
            return t;
        }
        let bits = w.tables.last().map_or(6, |t| t.bits + 1);
        let next: &'static Table<T> = Box::leak(Box::new(Table::new(bits)));
        let mut used = 0;
        if let Some(old) = w.tables.last() {
            for s in old.slots.iter() {
                let v = s.value.load(Ordering::Relaxed);
                if !v.is_null() {
                    let (n, _) = next.claim(s.key.load(Ordering::Relaxed));
                    n.value.store(v, Ordering::Relaxed);
                    n.key.store(s.key.load(Ordering::Relaxed), Ordering::Relaxed);
                    used += 1;
                }
            }
        }
        // Release: a reader that loads the new table sees all of it.
        self.current.store(std::ptr::from_ref(next).cast_mut(), Ordering::Release);
        w.tables.push(next);
        w.used = used;
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    fn leak(v: usize) -> &'static usize {
        Box::leak(Box::new(v))
    }

    #[test]
    fn insert_get_replace_remove_across_growth() {
        let m: AddrMap<usize> = AddrMap::new();
        assert_eq!(m.get(8), None);
        for k in 1..5000usize {
            m.insert(k * 16, leak(k));
        }
        for k in 1..5000usize {
            assert_eq!(m.get(k * 16), Some(&k), "key {k}");
        }
        assert_eq!(m.get(16 * 5000), None);
        m.insert(32, leak(99));
        assert_eq!(m.get(32), Some(&99));
        m.retain(|v| v % 2 == 1);
        assert_eq!(m.get(32), Some(&99));
        assert_eq!(m.get(16 * 4), None);
        assert_eq!(m.get(16 * 3), Some(&3));
        // A removed key can come back (a library unloaded and reloaded at
        // the same address).
        m.insert(16 * 4, leak(4));
        assert_eq!(m.get(16 * 4), Some(&4));
        // insert_with sees the current record and may decline.
        m.insert_with(16 * 4, |old| {
            assert_eq!(old, Some(&4));
            None
        });
        assert_eq!(m.get(16 * 4), Some(&4));
    }

    #[test]
    fn readers_see_every_published_key_while_a_writer_grows_the_table() {
        static M: AddrMap<usize> = AddrMap::new();
        static DONE: AtomicBool = AtomicBool::new(false);
        static PUBLISHED: AtomicUsize = AtomicUsize::new(0);
        let readers: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    let mut checked = 0u64;
                    while !DONE.load(Ordering::Acquire) {
                        let n = PUBLISHED.load(Ordering::Acquire);
                        for k in (1..=n).step_by(97) {
                            assert_eq!(M.get(k * 8), Some(&k), "key {k} of {n}");
                            checked += 1;
                        }
                    }
                    checked
                })
            })
            .collect();
        for k in 1..=20_000usize {
            M.insert(k * 8, leak(k));
            PUBLISHED.store(k, Ordering::Release);
        }
        DONE.store(true, Ordering::Release);
        let checked: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
        assert!(checked > 0);
    }
}
