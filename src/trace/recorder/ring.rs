//! One thread's ring of its last calls.
//!
//! Single producer (the owning thread), any number of readers (a dump, on
//! any thread or in a signal handler). Each slot is a small seqlock: the
//! owner sets the slot's `seq` to 0, writes the entry, then stores the
//! call's number + 1 (Release). A reader copies the entry between two
//! loads of `seq` and keeps it only when both equal the number it expects,
//! so a slot overwritten during the copy is skipped, never shown torn.
//! Nothing here allocates after [`Ring::new`], takes a lock, or makes a
//! system call: a dump may read a ring from a signal handler.

use crate::trace::args::Kept;
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{fence, AtomicI32, AtomicU64, AtomicUsize, Ordering::*};

/// Arguments kept per recorded call (the runtime's exports have at most
/// 11 parameters, `cuLaunchKernel` 11).
pub const MAX_ARGS: usize = 12;

/// One recorded call: raw argument words with the functions that decode
/// them at dump time.
#[derive(Clone, Copy)]
pub struct Entry {
    pub site: u32,
    pub depth: u16,
    pub nargs: u8,
    pub result: i32,
    /// Start (clock ticks) and duration (ticks).
    pub t0: u64,
    pub dt: u64,
    pub args: [MaybeUninit<Kept>; MAX_ARGS],
}

impl Entry {
    pub fn args(&self) -> &[Kept] {
        // SAFETY: the first `nargs` were written by `Ring::push`.
        unsafe { std::slice::from_raw_parts(self.args.as_ptr().cast::<Kept>(), self.nargs as usize) }
    }
}

struct Slot {
    seq: AtomicU64,
    entry: UnsafeCell<MaybeUninit<Entry>>,
}

pub struct Ring {
    slots: Box<[Slot]>,
    /// Calls recorded since the ring was (re)assigned to its thread.
    head: AtomicU64,
    /// `head % slots.len()`, kept by the owner (no division per call).
    pos: AtomicUsize,
    /// The owning thread (0 before it has one).
    pub tid: AtomicI32,
}

// SAFETY: slots are shared under the seqlock protocol above.
unsafe impl Sync for Ring {}

impl Ring {
    pub fn new(n: usize) -> Ring {
        let slots = (0..n.max(1)).map(|_| Slot { seq: AtomicU64::new(0), entry: UnsafeCell::new(MaybeUninit::uninit()) }).collect();
        Ring { slots, head: AtomicU64::new(0), pos: AtomicUsize::new(0), tid: AtomicI32::new(0) }
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Calls recorded since [`Ring::reset`].
    pub fn recorded(&self) -> u64 {
        self.head.load(Acquire)
    }

    /// A new owner (the state went to another thread): forget the calls.
    pub fn reset(&self, tid: i32) {
        self.head.store(0, Release);
        self.pos.store(0, Relaxed);
        for s in self.slots.iter() {
            s.seq.store(0, Relaxed);
        }
        self.tid.store(tid, Release);
    }

    /// Record one call (owner only). `args` beyond [`MAX_ARGS`] are left
    /// out; an argument kept as text (`fmt` None: its text is the
    /// capture's, gone after the call) is shown `{...}`.
    #[inline]
    pub fn push(&self, site: u32, depth: u32, result: i32, t0: u64, dt: u64, args: &[Kept]) {
        let n = self.head.load(Relaxed);
        let pos = self.pos.load(Relaxed);
        let slot = &self.slots[pos];
        self.pos.store(if pos + 1 == self.slots.len() { 0 } else { pos + 1 }, Relaxed);
        slot.seq.store(0, Relaxed);
        // The zero must be visible before any byte of the new entry.
        fence(Release);
        let k = args.len().min(MAX_ARGS);
        // SAFETY: only the owner writes; readers check `seq` around copies.
        unsafe {
            let e = (*slot.entry.get()).as_mut_ptr();
            (*e).site = site;
            (*e).depth = depth.min(u16::MAX as u32) as u16;
            (*e).nargs = k as u8;
            (*e).result = result;
            (*e).t0 = t0;
            (*e).dt = dt;
            let dst = (*e).args.as_mut_ptr().cast::<Kept>();
            for (i, a) in args[..k].iter().enumerate() {
                let mut a = *a;
                if a.fmt.is_none() {
                    a.fmt = Some(text_gone);
                }
                dst.add(i).write(a);
            }
        }
        slot.seq.store(n + 1, Release);
        self.head.store(n + 1, Release);
    }

    /// The kept calls, oldest first, through `f(number, entry)`; slots
    /// rewritten while being read are skipped.
    pub fn for_each(&self, mut f: impl FnMut(u64, &Entry)) {
        let head = self.head.load(Acquire);
        let start = head.saturating_sub(self.slots.len() as u64);
        for n in start..head {
            if let Some(e) = self.read(n) {
                f(n, &e);
            }
        }
    }

    /// Call number `n` (0-based), if its slot still holds it.
    pub fn read(&self, n: u64) -> Option<Entry> {
        let slot = &self.slots[(n % self.slots.len() as u64) as usize];
        if slot.seq.load(Acquire) != n + 1 {
            return None;
        }
        // SAFETY: a plain copy of an initialized slot (seq says so); a
        // concurrent rewrite is detected below and the copy discarded.
        let e = unsafe { std::ptr::read_volatile(slot.entry.get()) };
        fence(Acquire);
        if slot.seq.load(Relaxed) != n + 1 {
            return None;
        }
        // SAFETY: checked above: the slot held call n before and after.
        Some(unsafe { e.assume_init() })
    }
}

fn text_gone(_: u64, _: u64, out: &mut String) {
    out.push_str("{...}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(v: u64) -> Kept {
        Kept { name: "v", a: v, b: 0, fmt: Some(|a, _, out| crate::trace::args::push_int(out, a)) }
    }

    #[test]
    fn keeps_the_last_n_in_order() {
        let r = Ring::new(4);
        for i in 0..10u64 {
            r.push(i as u32, 0, 0, i, 1, &[kept(i)]);
        }
        let mut seen = Vec::new();
        r.for_each(|n, e| seen.push((n, e.site, e.args()[0].a)));
        assert_eq!(seen, vec![(6, 6, 6), (7, 7, 7), (8, 8, 8), (9, 9, 9)]);
        r.reset(7);
        let mut none = 0;
        r.for_each(|_, _| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn readers_never_see_torn_entries_while_8_owners_write() {
        // 8 threads each fill their own ring (wrapping it many times) while
        // a reader copies every ring repeatedly: every entry it keeps is
        // whole (its fields agree) and in order.
        let rings: Vec<Ring> = (0..8).map(|_| Ring::new(64)).collect();
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            for (t, r) in rings.iter().enumerate() {
                s.spawn(move || {
                    for i in 0..200_000u64 {
                        let args: Vec<Kept> = (0..(i % 5) as usize).map(|_| kept(i)).collect();
                        r.push(t as u32, (i % 3) as u32, i as i32, i, i * 2, &args);
                    }
                });
            }
            s.spawn(|| {
                while !done.load(Relaxed) {
                    for r in &rings {
                        let mut last = None;
                        r.for_each(|n, e| {
                            assert_eq!(e.t0, n);
                            assert_eq!(e.dt, n * 2);
                            assert_eq!(e.result, n as i32);
                            assert_eq!(e.nargs as u64, n % 5);
                            assert!(e.args().iter().all(|a| a.a == n));
                            assert!(last.is_none_or(|l| l < n));
                            last = Some(n);
                        });
                    }
                }
            });
            std::thread::sleep(std::time::Duration::from_millis(1));
            // Writers finish on their own; then stop the reader.
            while rings.iter().any(|r| r.recorded() < 200_000) {
                std::thread::yield_now();
            }
            done.store(true, Relaxed);
        });
        for (t, r) in rings.iter().enumerate() {
            let mut ns = Vec::new();
            r.for_each(|n, e| {
                assert_eq!(e.site, t as u32);
                ns.push(n);
            });
            assert_eq!(ns, (200_000 - 64..200_000).collect::<Vec<_>>());
        }
    }
}
