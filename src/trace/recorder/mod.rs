//! The flight recorder (`CUDART_SHIM_TRACE=recorder`, `trace --recorder`):
//! per thread, a ring of its last N calls (runtime and driver), written by
//! nothing while the program runs, dumped when something goes wrong.
//!
//! What a call leaves in its thread's ring ([`ring`]): the function id,
//! the arguments as raw words with the functions that decode them (the
//! capture every output shares, [`CallArgs`]), the result, the start and
//! the duration. Decoding happens only when a dump reads the ring.
//!
//! When it dumps ([`dump`]): the first call that returns a sticky error
//! (the 700 family, the driver's codes being the same numbers), a crash
//! signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT: [`signals`]),
//! `cudartShimFlush()`, and SIGUSR1 when `CUDART_SHIM_RECORDER_SIGUSR1=1`.
//! A dump writes the failing thread's last calls to stderr, and every ring
//! to a call log file and a timeline beside it (in the timeline's format:
//! Perfetto's protobuf by default, `.pftrace`), both named in the stderr
//! lines.
//!
//! Every dump runs the one async-signal-safe path (buffers made at start,
//! `open`/`write` only, no lock, no allocation), whatever triggered it.

pub mod dump;
mod proto;
pub mod ring;
pub mod signals;

use super::args::CallArgs;
use ring::Ring;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicUsize, Ordering::*};

/// Most rings (threads that made a call) a dump can reach; later threads
/// are not recorded (one warning).
pub const MAX_RINGS: usize = 4096;

static RINGS: [AtomicPtr<Ring>; MAX_RINGS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_RINGS];
static NRINGS: AtomicUsize = AtomicUsize::new(0);
/// Calls kept per thread (set once at start).
static SIZE: AtomicU32 = AtomicU32::new(1024);
static STARTED: AtomicBool = AtomicBool::new(false);

/// Start the recorder: the dump's buffers and file names, and the signal
/// handlers. Called once, from the trace's one-time setup.
pub fn start(c: &crate::config::TraceConfig) -> bool {
    SIZE.store(c.recorder_size.max(1), Relaxed);
    let file = c.recorder_file.clone().unwrap_or_else(|| format!("cudart-shim-recorder-{}.log", std::process::id()));
    let protobuf = c.timeline_format == crate::config::TimelineFormat::Perfetto;
    if !dump::prepare(&file, protobuf) {
        return false;
    }
    signals::install(c.recorder_sigusr1);
    STARTED.store(true, Release);
    log::debug!("recorder: {} calls per thread, dumps to {file} and {}", c.recorder_size, dump::timeline_name(&file, protobuf));
    true
}

pub fn started() -> bool {
    STARTED.load(Acquire)
}

/// A thread state's ring: made at its first recorded call, kept (and
/// reset) when the state passes to another thread. While the recorder is
/// on, a state whose thread ended passes to a new thread only after
/// `trace::KEEP_ENDED` others ended since, so dumps keep the last calls
/// of threads that ended too.
pub struct ThreadRing(AtomicPtr<Ring>);

impl ThreadRing {
    pub const fn new() -> ThreadRing {
        ThreadRing(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// The state now belongs to thread `tid`.
    pub fn reassign(&self, tid: i32) {
        let r = self.0.load(Acquire);
        if !r.is_null() {
            // SAFETY: rings are leaked, never freed.
            unsafe { &*r }.reset(tid);
            signals::thread_alt_stack();
        }
    }

    /// The same thread under a new id (a forked child's): its calls stay.
    pub fn set_tid(&self, tid: i32) {
        let r = self.0.load(Acquire);
        if !r.is_null() {
            // SAFETY: rings are leaked, never freed.
            unsafe { &*r }.tid.store(tid, Release);
        }
    }

    #[inline]
    fn get(&self, tid: i32) -> Option<&'static Ring> {
        let r = self.0.load(Acquire);
        if !r.is_null() {
            // SAFETY: rings are leaked, never freed.
            return Some(unsafe { &*r });
        }
        self.make(tid)
    }

    #[cold]
    #[inline(never)]
    fn make(&self, tid: i32) -> Option<&'static Ring> {
        let i = NRINGS.fetch_add(1, AcqRel);
        if i >= MAX_RINGS {
            NRINGS.store(MAX_RINGS, Relaxed);
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| log::warn!("recorder: more than {MAX_RINGS} threads made calls; the later ones are not recorded"));
            return None;
        }
        let r: &'static Ring = Box::leak(Box::new(Ring::new(SIZE.load(Relaxed) as usize)));
        r.tid.store(tid, Release);
        // Owner-only field: no other thread makes this state's ring.
        self.0.store(r as *const Ring as *mut Ring, Release);
        RINGS[i].store(r as *const Ring as *mut Ring, Release);
        signals::thread_alt_stack();
        Some(r)
    }
}

impl Default for ThreadRing {
    fn default() -> Self {
        ThreadRing::new()
    }
}

/// Every ring made so far (in a dump: read without a lock).
pub(crate) fn rings() -> impl Iterator<Item = &'static Ring> {
    let n = NRINGS.load(Acquire).min(MAX_RINGS);
    // SAFETY: published rings are leaked; a slot counted but not yet
    // stored reads null and is skipped.
    RINGS[..n].iter().filter_map(|p| unsafe { p.load(Acquire).as_ref() })
}

/// Record one finished call of function `id` on the calling thread
/// (`t0`, `dt`: its start and duration, clock ticks).
/// `args` captures its arguments (the entry's capture, run once, after
/// the call: out-parameters are read when it succeeded).
#[inline]
pub fn record(ring: &ThreadRing, tid: i32, id: u32, depth: u32, (t0, dt): (u64, u64), result: i32, args: &dyn Fn(&mut CallArgs)) {
    let Some(r) = ring.get(tid) else { return };
    let mut captured = CallArgs::new(result == 0);
    args(&mut captured);
    r.push(id, depth, result, t0, dt, captured.kept());
    if is_sticky(result) || (depth == 0 && PENDING.load(Relaxed) != 0) {
        sticky(id, depth, result);
    }
}

/// A sticky error seen inside a call (a driver call our runtime made):
/// `id << 32 | code`, + 1; 0 when none. The dump waits for the outer call
/// to return, so that it is in the ring too.
static PENDING: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A sticky error: the process can make no more CUDA work (NVIDIA's
/// headers: "leaves the process in an inconsistent state"). The driver's
/// `CUresult` values are the same numbers.
pub const fn is_sticky(code: i32) -> bool {
    matches!(code, 700 | 702 | 710 | 714..=719 | 721)
}

/// The first sticky error of the process dumps the rings; the same error
/// returned again (it is sticky) does not dump again.
#[cold]
#[inline(never)]
fn sticky(id: u32, depth: u32, code: i32) {
    static DUMPED: AtomicBool = AtomicBool::new(false);
    if depth > 0 {
        if is_sticky(code) {
            let _ = PENDING.compare_exchange(0, ((id as u64) << 32 | code as u32 as u64) + 1, AcqRel, Relaxed);
        }
        return;
    }
    let inner = PENDING.swap(0, AcqRel);
    if DUMPED.swap(true, AcqRel) {
        return;
    }
    let mut why = String::with_capacity(256);
    if is_sticky(code) {
        why.push_str(super::site_name(id));
        why.push_str(" returned ");
        super::status_name(id, code, &mut why);
        why.push_str(" (a sticky error)");
    } else {
        let (iid, icode) = (((inner - 1) >> 32) as u32, (inner - 1) as u32 as i32);
        why.push_str(super::site_name(iid));
        why.push_str(" returned ");
        super::status_name(iid, icode, &mut why);
        why.push_str(" (a sticky error) inside ");
        why.push_str(super::site_name(id));
    }
    dump::dump(&why);
}

/// In a forked child (from the trace's fork handler): the forking
/// thread's ring (`ring`) takes the child's thread id, and dumps go to the
/// child's own files. The other threads' rings stay: the parent's history
/// up to the fork.
pub fn in_forked_child(ring: Option<&ThreadRing>) {
    if !started() {
        return;
    }
    dump::rename_for_child();
    if let Some(r) = ring {
        r.set_tid(super::gettid());
    }
}

/// `cudartShimFlush()`: dump now.
pub fn flush() {
    if started() {
        dump::dump("cudartShimFlush()");
    }
}
