//! Hooks: C handlers registered on glob lists over runtime and driver
//! names (`cudartShimHookRegister`), one phase each:
//!
//! - `before`: runs before the faults and the call; may change the
//!   arguments through `call->params`; its return value is ignored;
//! - `instead`: the first one that does not return
//!   `CUDART_SHIM_HOOK_CONTINUE` stands for the call: the call does not
//!   run, and its return value is what the caller sees;
//! - `after`: sees the result in `call->result` and returns the result the
//!   caller sees (the next `after` handler sees that one).
//!
//! Handlers of one phase run in the order they were registered. A
//! handler's own CUDA calls (on its thread) are answered, and traced, but
//! not delivered to hooks: a handler never re-enters itself.
//!
//! # Publication and unregistering (no lock on the call path)
//!
//! The registrations are an immutable snapshot published through one
//! atomic pointer. A call first tests a bit per (phase, function id)
//! ([`MATCH`], never freed): a call no handler wants costs that one load.
//! A call that some handler wants reads the snapshot under a hazard
//! pointer: its thread's slot announces the snapshot before using it, and
//! re-reads the pointer to make sure it was not retired meanwhile.
//! (Un)registering builds a new snapshot under a mutex, publishes it, then
//! waits until no other thread's slot holds the old one and frees it: once
//! `cudartShimHookUnregister` returns, the handler is not running and will
//! not run. From inside a handler it cannot wait for its own thread (nor
//! for another handler that might be waiting for it): the old snapshot is
//! then retired, and freed by a later edit once no slot holds it.

use super::{params, Call};
use crate::config::{glob_item, globs_include};
use crate::types::{cudaErrorInvalidValue, CudaResult};
use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::*};
use std::sync::Mutex;

pub use crate::types::{
    cudartShimHookFn as HookFn, CUDART_SHIM_HOOK_AFTER as AFTER, CUDART_SHIM_HOOK_BEFORE as BEFORE,
    CUDART_SHIM_HOOK_CONTINUE as CONTINUE, CUDART_SHIM_HOOK_INSTEAD as INSTEAD,
};
const PHASES: usize = 3;

const WORDS: usize = params::COUNT.div_ceil(64) as usize;

#[derive(Clone)]
struct Hook {
    handle: u64,
    phase: usize,
    f: unsafe extern "C" fn(*mut c_void, *mut Call) -> c_int,
    user: usize,
    matches: Box<[u64]>,
}

impl Hook {
    fn wants(&self, id: u32) -> bool {
        self.matches.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
}

/// Registrations in order.
struct Snapshot {
    hooks: Vec<Hook>,
}

static SNAP: AtomicPtr<Snapshot> = AtomicPtr::new(std::ptr::null_mut());
/// A bit per (phase, function id): some handler wants it. Never freed.
static MATCH: [[AtomicU64; WORDS]; PHASES] = [const { [const { AtomicU64::new(0) }; WORDS] }; PHASES];

/// Edits: the next handle, snapshots retired from inside a handler.
struct Edits {
    next: u64,
    retired: Vec<*mut Snapshot>,
}
// SAFETY: the retired pointers are owned by the edits (freed under the mutex).
unsafe impl Send for Edits {}

static EDIT: Mutex<Edits> = Mutex::new(Edits { next: 1, retired: Vec::new() });

/// A thread's hazard slot: the snapshot it is reading (NULL: none).
struct Slot {
    held: AtomicPtr<Snapshot>,
}

/// Every thread's slot (leaked: 8 bytes per thread that ever ran a hooked call).
static SLOTS: Mutex<Vec<&'static Slot>> = Mutex::new(Vec::new());

thread_local! {
    // No destructors: usable during thread teardown.
    static SLOT: Cell<*const Slot> = const { Cell::new(std::ptr::null()) };
    /// Set while this thread runs a handler: its calls are not delivered.
    static IN_HANDLER: Cell<bool> = const { Cell::new(false) };
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn my_slot() -> Option<&'static Slot> {
    let p = SLOT.try_with(Cell::get).ok()?;
    if !p.is_null() {
        // SAFETY: slots are leaked, never freed.
        return Some(unsafe { &*p });
    }
    let s: &'static Slot = Box::leak(Box::new(Slot { held: AtomicPtr::new(std::ptr::null_mut()) }));
    lock(&SLOTS).push(s);
    SLOT.try_with(|c| c.set(s)).ok()?;
    Some(s)
}

/// Whether some handler of `phase` wants function `id` (one relaxed load).
#[inline(always)]
fn wanted(phase: usize, id: u32) -> bool {
    MATCH[phase].get(id as usize / 64).is_some_and(|w| w.load(Relaxed) & (1 << (id % 64)) != 0)
}

/// A bit per function id: some handler of any phase wants it. Never freed.
static ANY_PHASE: [AtomicU64; WORDS] = [const { AtomicU64::new(0) }; WORDS];

/// Whether some handler of any phase wants function `id`: one relaxed
/// load. The pipeline asks this first when hooks are the only thing on, so
/// a call no handler wants does not take the slow path at all.
#[inline(always)]
pub fn wanted_any(id: u32) -> bool {
    ANY_PHASE.get(id as usize / 64).is_some_and(|w| w.load(Relaxed) & (1 << (id % 64)) != 0)
}

/// Run `f` over the current snapshot's handlers of `phase` that want `id`,
/// unless this thread is already in a handler (or is being torn down).
/// `f` returns false to stop the chain.
fn each(phase: usize, call: &mut Call, mut f: impl FnMut(&Hook, &mut Call) -> bool) {
    if !wanted(phase, call.function_id) {
        return;
    }
    if IN_HANDLER.try_with(Cell::get).unwrap_or(true) {
        return;
    }
    let Some(slot) = my_slot() else { return };
    if call.thread_id == 0 {
        // Filled here, for handlers only: the pipeline does not pay a
        // system call for calls no handler sees.
        // SAFETY: gettid has no arguments and cannot fail.
        call.thread_id = unsafe { libc::syscall(libc::SYS_gettid) } as c_int;
    }
    // The hazard pointer: announce, then check it is still the current one.
    let mut s = SNAP.load(SeqCst);
    loop {
        if s.is_null() {
            // Unannounce what an earlier turn of this loop may have
            // announced: with the match bits cleared this thread may not
            // come back, and an edit waits for every slot that holds a
            // snapshot other than the current one.
            slot.held.store(std::ptr::null_mut(), Release);
            return;
        }
        slot.held.store(s, SeqCst);
        let now = SNAP.load(SeqCst);
        if now == s {
            break;
        }
        s = now;
    }
    struct Leave<'a>(&'a Slot);
    impl Drop for Leave<'_> {
        fn drop(&mut self) {
            let _ = IN_HANDLER.try_with(|c| c.set(false));
            self.0.held.store(std::ptr::null_mut(), Release);
        }
    }
    let _leave = Leave(slot);
    let _ = IN_HANDLER.try_with(|c| c.set(true));
    // SAFETY: announced in our slot and still current after that: no edit
    // frees it while the slot holds it.
    let snap = unsafe { &*s };
    let id = call.function_id;
    for h in snap.hooks.iter().filter(|h| h.phase == phase && h.wants(id)) {
        if !f(h, call) {
            break;
        }
    }
}

/// The `before` phase.
pub fn before(call: &mut Call) {
    each(BEFORE as usize, call, |h, c| {
        // SAFETY: a handler the program registered, with its user data.
        unsafe { (h.f)(h.user as *mut c_void, c) };
        true
    });
}

/// The `instead` phase: `Some(result)` when a handler stood for the call.
pub fn instead(call: &mut Call) -> Option<i32> {
    let mut r = None;
    each(INSTEAD as usize, call, |h, c| {
        // SAFETY: as above.
        let v = unsafe { (h.f)(h.user as *mut c_void, c) };
        if v == CONTINUE {
            return true;
        }
        r = Some(v);
        false
    });
    r
}

/// The `after` phase: the result the caller sees.
pub fn after(call: &mut Call, result: i32) -> i32 {
    let mut r = result;
    each(AFTER as usize, call, |h, c| {
        c.result = r;
        // SAFETY: as above.
        r = unsafe { (h.f)(h.user as *mut c_void, c) };
        true
    });
    r
}

/// Parse a comma-separated glob list (`glob`, `-glob` to exclude) into the
/// ids it lets through. Err: the bad item, or a list that matches nothing.
pub fn matching(list: &str) -> Result<Box<[u64]>, String> {
    let mut globs = Vec::new();
    for g in list.split(',').map(str::trim).filter(|g| !g.is_empty()) {
        globs.push(glob_item(g).ok_or_else(|| format!("{g:?} is not a glob of function names (letters, digits, _, *, ?; - to exclude)"))?);
    }
    let mut m = vec![0u64; WORDS].into_boxed_slice();
    let mut any = false;
    if !globs.is_empty() {
        for (id, name) in params::NAMES.iter().enumerate() {
            if globs_include(&globs, name) {
                m[id / 64] |= 1 << (id % 64);
                any = true;
            }
        }
    }
    if !any {
        return Err(format!("{list:?} matches no runtime or driver function"));
    }
    Ok(m)
}

/// `cudartShimHookRegister`.
pub fn register(functions: Option<&std::ffi::CStr>, phase: c_int, f: HookFn, userdata: *mut c_void, handle: Option<&mut u64>) -> CudaResult {
    let (Some(functions), Some(f), Some(handle)) = (functions, f, handle) else { return Err(cudaErrorInvalidValue) };
    if !(BEFORE..=AFTER).contains(&phase) {
        log::warn!("cudartShimHookRegister: phase {phase} is not CUDART_SHIM_HOOK_BEFORE (0), _INSTEAD (1) or _AFTER (2)");
        return Err(cudaErrorInvalidValue);
    }
    let list = functions.to_str().map_err(|_| cudaErrorInvalidValue)?;
    let matches = matching(list).map_err(|e| {
        log::warn!("cudartShimHookRegister: {e}");
        cudaErrorInvalidValue
    })?;
    let mut ed = lock(&EDIT);
    let h = ed.next;
    ed.next += 1;
    let mut hooks = current().map_or_else(Vec::new, |s| s.hooks.clone());
    hooks.push(Hook { handle: h, phase: phase as usize, f, user: userdata as usize, matches });
    publish(&mut ed, hooks);
    drop(ed);
    settle();
    *handle = h;
    Ok(())
}

/// `cudartShimHookUnregister`: once it returns (outside a handler), the
/// handler is not running and will not run again.
pub fn unregister(handle: u64) -> CudaResult {
    let mut ed = lock(&EDIT);
    let Some(cur) = current() else { return Err(cudaErrorInvalidValue) };
    if !cur.hooks.iter().any(|h| h.handle == handle) {
        return Err(cudaErrorInvalidValue);
    }
    let hooks = cur.hooks.iter().filter(|h| h.handle != handle).cloned().collect();
    publish(&mut ed, hooks);
    drop(ed);
    settle();
    Ok(())
}

/// Number of registered handlers.
pub fn count() -> usize {
    let _ed = lock(&EDIT);
    current().map_or(0, |s| s.hooks.len())
}

/// The current snapshot (only under the edit mutex: no edit frees it then).
fn current() -> Option<&'static Snapshot> {
    // SAFETY: snapshots are freed only under the edit mutex, which the caller holds.
    unsafe { SNAP.load(SeqCst).as_ref() }
}

/// Publish `hooks` (under the edit mutex), update the match bits and the
/// switch word, and retire the old snapshot ([`settle`] frees it).
fn publish(ed: &mut Edits, hooks: Vec<Hook>) {
    let any = !hooks.is_empty();
    let mut bits = [[0u64; WORDS]; PHASES];
    for h in &hooks {
        for (b, m) in bits[h.phase].iter_mut().zip(h.matches.iter()) {
            *b |= m;
        }
    }
    let new = if any { Box::into_raw(Box::new(Snapshot { hooks })) } else { std::ptr::null_mut() };
    let old = SNAP.swap(new, SeqCst);
    for (p, phase) in bits.iter().enumerate() {
        for (w, b) in MATCH[p].iter().zip(phase) {
            w.store(*b, Relaxed);
        }
    }
    for (i, w) in ANY_PHASE.iter().enumerate() {
        w.store(bits.iter().fold(0, |a, phase| a | phase[i]), Relaxed);
    }
    super::switch::mark(super::switch::HOOKS, any);
    if !old.is_null() {
        ed.retired.push(old);
    }
}

/// After an edit, with the edit mutex released (a handler on another
/// thread may be waiting for it): wait until no other thread reads an
/// older snapshot than the current one (not from inside a handler: that
/// thread could be waiting for this one), then free the retired snapshots
/// no thread holds.
fn settle() {
    let inside = IN_HANDLER.try_with(Cell::get).unwrap_or(true);
    let mine = SLOT.try_with(Cell::get).unwrap_or(std::ptr::null());
    if !inside {
        loop {
            let cur = SNAP.load(SeqCst);
            let busy = lock(&SLOTS).iter().any(|s| {
                let h = s.held.load(SeqCst);
                !std::ptr::eq(*s, mine) && !h.is_null() && h != cur
            });
            if !busy {
                break;
            }
            std::thread::yield_now();
        }
    }
    let mut ed = lock(&EDIT);
    let cur = SNAP.load(SeqCst);
    ed.retired.retain(|&p| {
        if p == cur || lock(&SLOTS).iter().any(|s| s.held.load(SeqCst) == p) {
            return true;
        }
        // SAFETY: retired (no longer published, swapped out before this
        // scan) and announced by no slot: a reader that announces it now
        // finds SNAP changed and lets it go unread.
        drop(unsafe { Box::from_raw(p) });
        false
    });
}
