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
//! Subscribers (`cudartShimSubscribe`, built in `trace::subscribe`) are
//! the observe-only case: registrations in this same registry, in the
//! phases [`ENTER`] and [`EXIT`], wanting every function, delivered by
//! observation (the trace) when a call enters and when it has returned.
//! They cannot change the call.
//!
//! Handlers of one phase run in the order they were registered. A
//! handler's or subscriber's own CUDA calls (on its thread) are answered,
//! and traced, but delivered to no hook and no subscriber: a handler never
//! re-enters itself or another.
//!
//! # Publication and unregistering (no lock on the call path)
//!
//! The registrations are an immutable snapshot published through one
//! atomic pointer. A call first tests a bit per (phase, function id)
//! ([`MATCH`], never freed): a call no handler wants costs that one load.
//! A call that some handler wants reads the snapshot under a hazard
//! pointer: its thread's slot announces the snapshot before using it, and
//! re-reads the pointer to make sure it was not retired meanwhile.
//! An edit builds a new snapshot under a mutex and publishes it; removing
//! a registration then waits until no other thread's slot holds an older
//! snapshot, and frees it: once `cudartShimHookUnregister` (or
//! `cudartShimUnsubscribe`) returns, the handler is not running and will
//! not run. Registering does not wait (a reader of the old snapshot just
//! misses the new handler). A forked child forgets the slots of the
//! threads it does not have. From inside a
//! handler an edit cannot wait for its own thread (nor for another handler
//! that might be waiting for it): the old snapshot is then retired, and
//! freed by a later edit once no slot holds it.

use super::{params, Call};
use crate::config::{glob_item, globs_include};
use crate::types::{cudaErrorInvalidValue, cudartShimCallback, cudartShimCallbackData, CudaResult};
use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::*};
use std::sync::Mutex;

pub use crate::types::{
    cudartShimHookFn as HookFn, CUDART_SHIM_HOOK_AFTER as AFTER, CUDART_SHIM_HOOK_BEFORE as BEFORE,
    CUDART_SHIM_HOOK_CONTINUE as CONTINUE, CUDART_SHIM_HOOK_INSTEAD as INSTEAD,
};

/// The observe-only phases (subscribers): a call enters, a call has
/// returned. Internal: `cudartShimHookRegister` takes only the acting
/// phases `BEFORE`..=`AFTER`.
pub const ENTER: usize = 3;
pub const EXIT: usize = 4;
/// The acting phases are `0..ACTING`.
const ACTING: usize = 3;
const PHASES: usize = 5;

/// A function outside the id space (a driver entry point the interposer
/// hands out untyped, reported to observation by name only): only
/// registrations that want every function (subscribers) get it.
pub const OTHER: u32 = params::COUNT;

const WORDS: usize = (params::COUNT + 1).div_ceil(64) as usize;

/// A subscriber's callback: `userdata` and what the call looked like.
pub type ObserveFn = unsafe extern "C" fn(*mut c_void, *const cudartShimCallbackData);

#[derive(Clone, Copy)]
enum Handler {
    /// A hook of one acting phase.
    Act { phase: usize, f: unsafe extern "C" fn(*mut c_void, *mut Call) -> c_int },
    /// A subscriber: either callback may be absent, not both.
    Observe { enter: cudartShimCallback, exit: cudartShimCallback },
}

#[derive(Clone)]
struct Hook {
    handle: u64,
    handler: Handler,
    user: usize,
    matches: Box<[u64]>,
}

impl Hook {
    fn wants(&self, id: u32) -> bool {
        self.matches.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    fn observer(&self) -> bool {
        matches!(self.handler, Handler::Observe { .. })
    }

    /// Whether it runs in `phase` (for the functions it wants).
    fn serves(&self, phase: usize) -> bool {
        match self.handler {
            Handler::Act { phase: p, .. } => p == phase,
            Handler::Observe { enter, exit } => (phase == ENTER && enter.is_some()) || (phase == EXIT && exit.is_some()),
        }
    }
}

/// Registrations in order.
struct Snapshot {
    hooks: Vec<Hook>,
}

static SNAP: AtomicPtr<Snapshot> = AtomicPtr::new(std::ptr::null_mut());
/// A bit per (phase, function id): some handler wants it. Never freed.
static MATCH: [[AtomicU64; WORDS]; PHASES] = [const { [const { AtomicU64::new(0) }; WORDS] }; PHASES];

/// Edits: the next handle, snapshots retired but maybe still read.
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
    /// Set while this thread runs a handler or a subscriber: its calls are
    /// not delivered.
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

/// A bit per function id: some handler of an acting phase wants it (the
/// observe-only phases are not counted: subscribers are delivered by
/// observation, which has its own switch bit). Never freed.
static ANY_PHASE: [AtomicU64; WORDS] = [const { AtomicU64::new(0) }; WORDS];

/// Whether some handler of an acting phase wants function `id`: one
/// relaxed load. The pipeline asks this first when hooks are the only
/// thing on, so a call no handler wants does not take the slow path at all.
#[inline(always)]
pub fn wanted_any(id: u32) -> bool {
    ANY_PHASE.get(id as usize / 64).is_some_and(|w| w.load(Relaxed) & (1 << (id % 64)) != 0)
}

/// Run `f` over the current snapshot's handlers of `phase` that want `id`,
/// unless this thread is already in a handler (or is being torn down).
/// `f` returns false to stop the chain.
fn each(phase: usize, id: u32, mut f: impl FnMut(&Hook) -> bool) {
    if !wanted(phase, id) {
        return;
    }
    if IN_HANDLER.try_with(Cell::get).unwrap_or(true) {
        return;
    }
    let Some(slot) = my_slot() else { return };
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
    for h in snap.hooks.iter().filter(|h| h.serves(phase) && h.wants(id)) {
        if !f(h) {
            break;
        }
    }
}

/// [`each`] for an acting phase: `f` gets the handler and its user data.
fn act(phase: usize, call: &mut Call, mut f: impl FnMut(unsafe extern "C" fn(*mut c_void, *mut Call) -> c_int, *mut c_void, &mut Call) -> bool) {
    each(phase, call.function_id, |h| {
        let Handler::Act { f: handler, .. } = h.handler else { return true };
        if call.thread_id == 0 {
            // Filled here, for handlers only: the pipeline does not pay a
            // system call for calls no handler sees.
            // SAFETY: gettid has no arguments and cannot fail.
            call.thread_id = unsafe { libc::syscall(libc::SYS_gettid) } as c_int;
        }
        f(handler, h.user as *mut c_void, call)
    });
}

/// The `before` phase.
pub fn before(call: &mut Call) {
    act(BEFORE as usize, call, |f, user, c| {
        // SAFETY: a handler the program registered, with its user data.
        unsafe { f(user, c) };
        true
    });
}

/// The `instead` phase: `Some(result)` when a handler stood for the call.
pub fn instead(call: &mut Call) -> Option<i32> {
    let mut r = None;
    act(INSTEAD as usize, call, |f, user, c| {
        // SAFETY: as above.
        let v = unsafe { f(user, c) };
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
    act(AFTER as usize, call, |f, user, c| {
        c.result = r;
        // SAFETY: as above.
        r = unsafe { f(user, c) };
        true
    });
    r
}

/// An observe-only phase ([`ENTER`] or [`EXIT`]) of function `id` (this
/// registry's id space; [`OTHER`] for a function outside it): `deliver`
/// gets each subscriber's callback of that phase, with its user data, in
/// registration order. Nothing when this thread is in a handler or a
/// subscriber already. Observation builds what the callback receives
/// (inside `deliver`, at the first subscriber, so a call no subscriber
/// wants costs the one load of its match bit).
pub fn observe(phase: usize, id: u32, mut deliver: impl FnMut(ObserveFn, *mut c_void)) {
    if phase != ENTER && phase != EXIT {
        return;
    }
    each(phase, id.min(OTHER), |h| {
        if let Handler::Observe { enter, exit } = h.handler
            && let Some(cb) = if phase == ENTER { enter } else { exit }
        {
            deliver(cb, h.user as *mut c_void);
        }
        true
    });
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

/// Every function, [`OTHER`] included (a subscriber's match bits).
fn every() -> Box<[u64]> {
    let mut m = vec![0u64; WORDS].into_boxed_slice();
    for id in 0..=OTHER as usize {
        m[id / 64] |= 1 << (id % 64);
    }
    m
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
    add(Handler::Act { phase: phase as usize, f }, userdata, matches, handle, |_| {});
    Ok(())
}

/// `cudartShimHookUnregister`: once it returns (outside a handler), the
/// handler is not running and will not run again. Err for a handle that
/// is no hook's (a subscriber's included).
pub fn unregister(handle: u64) -> CudaResult {
    remove(handle, false, |_| {})
}

/// `cudartShimSubscribe`'s registration: callbacks on entry and exit of
/// every function. `switch(any)` runs under the edit mutex right after the
/// new snapshot is published, `any` telling whether a subscriber is
/// registered now: edits switch observation in the order they publish.
/// `handle` receives the handle.
pub fn subscribe(enter: cudartShimCallback, exit: cudartShimCallback, userdata: *mut c_void, handle: &mut u64, switch: fn(bool)) -> CudaResult {
    if enter.is_none() && exit.is_none() {
        return Err(cudaErrorInvalidValue);
    }
    add(Handler::Observe { enter, exit }, userdata, every(), handle, switch);
    Ok(())
}

/// `cudartShimUnsubscribe`: as [`unregister`], for a subscriber's handle
/// (`switch` as for [`subscribe`]).
pub fn unsubscribe(handle: u64, switch: fn(bool)) -> CudaResult {
    remove(handle, true, switch)
}

/// Register; `handle` is written before the handler can run (a handler on
/// another thread may read it, to unregister itself).
fn add(handler: Handler, userdata: *mut c_void, matches: Box<[u64]>, handle: &mut u64, switch: fn(bool)) {
    static AT_FORK: std::sync::Once = std::sync::Once::new();
    // SAFETY: registering a plain extern "C" function.
    AT_FORK.call_once(|| unsafe {
        libc::pthread_atfork(None, None, Some(in_forked_child));
    });
    let mut ed = lock(&EDIT);
    let h = ed.next;
    ed.next += 1;
    *handle = h;
    let mut hooks = current().map_or_else(Vec::new, |s| s.hooks.clone());
    hooks.push(Hook { handle: h, handler, user: userdata as usize, matches });
    publish(&mut ed, hooks, switch);
    drop(ed);
    // Nothing to wait for: a thread still reading the old snapshot only
    // misses the new handler.
    settle(false);
}

fn remove(handle: u64, observer: bool, switch: fn(bool)) -> CudaResult {
    let mut ed = lock(&EDIT);
    let Some(cur) = current() else { return Err(cudaErrorInvalidValue) };
    if !cur.hooks.iter().any(|h| h.handle == handle && h.observer() == observer) {
        return Err(cudaErrorInvalidValue);
    }
    let hooks = cur.hooks.iter().filter(|h| h.handle != handle).cloned().collect();
    publish(&mut ed, hooks, switch);
    drop(ed);
    settle(true);
    Ok(())
}

/// In a forked child only the forking thread lives on: the slots of the
/// others are cleared, so that a removal does not wait forever for a
/// handler that was running in a thread the child does not have. (A slots
/// mutex held at the fork by one of those threads stays held: left alone.)
extern "C" fn in_forked_child() {
    let mine = SLOT.try_with(Cell::get).unwrap_or(std::ptr::null());
    let slots = match SLOTS.try_lock() {
        Ok(g) => g,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return,
    };
    for s in slots.iter().filter(|s| !std::ptr::eq(**s, mine)) {
        s.held.store(std::ptr::null_mut(), SeqCst);
    }
}

/// Number of registrations (hooks and subscribers).
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
/// switch word (hooks) or observation (`switch`, subscribers), and retire
/// the old snapshot ([`settle`] frees it).
fn publish(ed: &mut Edits, hooks: Vec<Hook>, switch: fn(bool)) {
    let acting = hooks.iter().any(|h| !h.observer());
    let observing = hooks.iter().any(Hook::observer);
    let mut bits = [[0u64; WORDS]; PHASES];
    for h in &hooks {
        for (p, phase) in bits.iter_mut().enumerate() {
            if h.serves(p) {
                for (b, m) in phase.iter_mut().zip(h.matches.iter()) {
                    *b |= m;
                }
            }
        }
    }
    let new = if hooks.is_empty() { std::ptr::null_mut() } else { Box::into_raw(Box::new(Snapshot { hooks })) };
    let old = SNAP.swap(new, SeqCst);
    for (p, phase) in bits.iter().enumerate() {
        for (w, b) in MATCH[p].iter().zip(phase) {
            w.store(*b, Relaxed);
        }
    }
    for (i, w) in ANY_PHASE.iter().enumerate() {
        w.store(bits[..ACTING].iter().fold(0, |a, phase| a | phase[i]), Relaxed);
    }
    super::switch::mark(super::switch::HOOKS, acting);
    switch(observing);
    if !old.is_null() {
        ed.retired.push(old);
    }
}

/// After an edit, with the edit mutex released (a handler on another
/// thread may be waiting for it): with `wait` (a removal), wait until no
/// other thread reads an older snapshot than the current one (not from
/// inside a handler: that thread could be waiting for this one); then free
/// the retired snapshots no thread holds.
fn settle(wait: bool) {
    let inside = IN_HANDLER.try_with(Cell::get).unwrap_or(true);
    let mine = SLOT.try_with(Cell::get).unwrap_or(std::ptr::null());
    if wait && !inside {
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
