//! The recorder's signal handlers: a crash signal (SIGSEGV, SIGBUS,
//! SIGILL, SIGFPE, SIGABRT) dumps the rings once, then the signal goes on
//! exactly as it would have without us; SIGUSR1 (opt-in) dumps and
//! goes on likewise.
//!
//! Never taking the program's handler away:
//! - a handler the program installed before ours is kept and called after
//!   the dump, with the arguments the signal brought; when it returns, we
//!   return too (what it would have done alone: a fault runs it again);
//! - a handler installed after ours replaces ours (we are not called at
//!   all), or calls ours as its previous one: we then do what the
//!   disposition before ours says, as that program expects of "the
//!   previous handler", except when `sigaction` (read at dump time) shows
//!   that the handler now installed is that same previous one (a program
//!   that installed its handler again over ours): calling it would loop,
//!   so we return to it;
//! - with the default disposition before ours, the default is put back and
//!   the signal raised again: the process ends by that signal, with the
//!   exit status and core dump it would have had;
//! - an ignored signal is ignored again (its disposition put back).
//!
//! Each thread that makes a recorded call gets an alternate signal stack
//! (unless it has one), so a stack overflow's SIGSEGV can still dump.
//!
//! The hang report's dump signal (`--dump-signal`, `crate::watchdog`) is
//! handled here too ([`install_request`]), by the same rules: its handler
//! only notes the request (async-signal-safe) and hands the signal on.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering::*};

const FATAL: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGABRT];
const ALL: [libc::c_int; 6] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGABRT, libc::SIGUSR1];
/// Alternate stack size per thread.
const ALT_STACK: usize = 64 * 1024;

/// The disposition each signal had before ours, written by `sigaction`
/// before our handler can run for it, read only in the handler.
struct Previous(UnsafeCell<[libc::sigaction; 6]>);
// SAFETY: each entry is written once, by `install`, before it is read.
unsafe impl Sync for Previous {}
static PREVIOUS: Previous = Previous(UnsafeCell::new(unsafe { std::mem::zeroed() }));
static INSTALLED: [AtomicBool; 6] = [const { AtomicBool::new(false) }; 6];
/// Set by the first crash signal's dump: a fault that comes back (a
/// handler that returned) does not dump again.
static CRASHED: AtomicBool = AtomicBool::new(false);
static ALT_STACKS: AtomicBool = AtomicBool::new(false);

fn index(sig: libc::c_int) -> Option<usize> {
    ALL.iter().position(|&s| s == sig)
}

fn name(sig: libc::c_int) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGABRT => "SIGABRT",
        libc::SIGUSR1 => "SIGUSR1",
        _ => "a signal",
    }
}

/// Install the handlers (SIGUSR1 only when asked for).
pub fn install(usr1: bool) {
    ALT_STACKS.store(true, Relaxed);
    for (i, &sig) in ALL.iter().enumerate() {
        if sig == libc::SIGUSR1 && !usr1 {
            continue;
        }
        // SAFETY: a zeroed sigaction is valid; we fill the fields we use.
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = handler as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
        // SAFETY: sa_mask is a valid sigset to empty; the old action goes
        // to this signal's own slot, read only by its handler.
        let ok = unsafe {
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, (*PREVIOUS.0.get()).as_mut_ptr().add(i)) == 0
        };
        if ok {
            INSTALLED[i].store(true, Release);
        } else {
            log::warn!("recorder: cannot handle {} ({}); it will not dump the recorder", name(sig), std::io::Error::last_os_error());
        }
    }
}

/// Give the calling thread an alternate signal stack, unless it has one
/// (the program's, or one it was given before). Leaked with the thread's
/// state's ring: one per recorded thread.
pub fn thread_alt_stack() {
    if !ALT_STACKS.load(Relaxed) {
        return;
    }
    // SAFETY: querying the current alternate stack.
    let mut old: libc::stack_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::sigaltstack(std::ptr::null(), &mut old) } != 0 || old.ss_flags & libc::SS_DISABLE == 0 {
        return;
    }
    // SAFETY: an anonymous private mapping; checked below.
    let p = unsafe { libc::mmap(std::ptr::null_mut(), ALT_STACK, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
    if p == libc::MAP_FAILED {
        return;
    }
    let st = libc::stack_t { ss_sp: p, ss_flags: 0, ss_size: ALT_STACK };
    // SAFETY: a valid stack of ALT_STACK bytes, unmapped only once it is
    // no longer installed (`forget_alt_stack`).
    if unsafe { libc::sigaltstack(&st, std::ptr::null_mut()) } != 0 {
        // SAFETY: our mapping, not installed.
        unsafe { libc::munmap(p, ALT_STACK) };
        return;
    }
    let _ = OUR_STACK.try_with(|c| c.set(p));
}

thread_local! {
    /// The alternate stack we gave this thread (no destructor: see
    /// `forget_alt_stack`, called from the thread's retirement).
    static OUR_STACK: std::cell::Cell<*mut libc::c_void> = const { std::cell::Cell::new(std::ptr::null_mut()) };
}

/// An exiting thread gives back the alternate stack we gave it (if it is
/// still the installed one), so threads that come and go do not pile up
/// mappings.
pub fn forget_alt_stack() {
    let Ok(p) = OUR_STACK.try_with(|c| c.replace(std::ptr::null_mut())) else { return };
    if p.is_null() {
        return;
    }
    // SAFETY: querying, then disabling the stack only if it is ours and
    // not in use (we are not in a handler: this runs at thread exit).
    unsafe {
        let mut cur: libc::stack_t = std::mem::zeroed();
        if libc::sigaltstack(std::ptr::null(), &mut cur) == 0 && cur.ss_sp == p && cur.ss_flags & libc::SS_ONSTACK == 0 {
            let off = libc::stack_t { ss_sp: std::ptr::null_mut(), ss_flags: libc::SS_DISABLE, ss_size: 0 };
            if libc::sigaltstack(&off, std::ptr::null_mut()) == 0 {
                libc::munmap(p, ALT_STACK);
            }
        }
    }
}

/// The signal that asks for a hang report (0: none), the function that
/// notes the request, and the disposition the signal had before ours.
static REQUEST_SIG: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
static REQUEST_FN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
struct PreviousOne(UnsafeCell<libc::sigaction>);
// SAFETY: written once, by `install_request`, before the handler can run for it.
unsafe impl Sync for PreviousOne {}
static REQUEST_PREVIOUS: PreviousOne = PreviousOne(UnsafeCell::new(unsafe { std::mem::zeroed() }));

/// Handle `sig` as a request (`notify` runs in the handler: it must be
/// async-signal-safe), then hand it on as the module note says; with the
/// default disposition before ours, the request is all it does (the
/// program does not end by it). Once per process; false when refused.
pub fn install_request(sig: libc::c_int, notify: fn()) -> bool {
    if REQUEST_SIG.load(Acquire) != 0 {
        return false;
    }
    if sig == libc::SIGUSR1 && installed(libc::SIGUSR1) {
        log::warn!("the dump signal SIGUSR1 already dumps the recorder; use another (USR2)");
        return false;
    }
    REQUEST_FN.store(notify as usize, Release);
    // SAFETY: a zeroed sigaction is valid; we fill the fields we use.
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    sa.sa_sigaction = handler as *const () as usize;
    sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
    // SAFETY: sa_mask is a valid sigset; the old action goes to its slot,
    // read only by the handler once REQUEST_SIG names the signal.
    let ok = unsafe {
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, REQUEST_PREVIOUS.0.get()) == 0
    };
    if ok {
        REQUEST_SIG.store(sig, Release);
    } else {
        log::warn!("cannot handle signal {sig} ({}); it will not ask for a hang report", std::io::Error::last_os_error());
    }
    ok
}

extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: errno is the thread's; kept for the interrupted code.
    let errno = unsafe { *libc::__errno_location() };
    if sig == REQUEST_SIG.load(Acquire) {
        let f = REQUEST_FN.load(Acquire);
        if f != 0 {
            // SAFETY: stored from a `fn()` by `install_request`.
            unsafe { std::mem::transmute::<usize, fn()>(f)() };
        }
        // SAFETY: written before REQUEST_SIG was set.
        let prev = unsafe { *REQUEST_PREVIOUS.0.get() };
        chain_with(prev, true, sig, info, ctx);
        // SAFETY: as above.
        unsafe { *libc::__errno_location() = errno };
        return;
    }
    let Some(i) = index(sig) else { return };
    if sig == libc::SIGUSR1 {
        super::dump::dump_in_signal("SIGUSR1");
    } else if !CRASHED.swap(true, AcqRel) {
        let mut why = [0u8; 64];
        let msg = reason(&mut why, sig);
        super::dump::dump_in_signal(msg);
    }
    chain(i, sig, info, ctx);
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
}

/// "SIGSEGV (a crash signal)" in a stack buffer.
fn reason(buf: &mut [u8; 64], sig: libc::c_int) -> &str {
    let parts = [name(sig), " (a crash signal)"];
    let mut n = 0;
    for p in parts {
        let b = p.as_bytes();
        let k = b.len().min(buf.len() - n);
        buf[n..n + k].copy_from_slice(&b[..k]);
        n += k;
    }
    std::str::from_utf8(&buf[..n]).unwrap_or("a crash signal")
}

/// Hand the signal on (see the module note).
fn chain(i: usize, sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: written by `install` before ours could run for this signal.
    let prev = unsafe { (*PREVIOUS.0.get())[i] };
    chain_with(prev, sig == libc::SIGUSR1, sig, info, ctx);
}

/// Hand the signal on to `prev`, the disposition before ours; `request`:
/// a signal asked for as a trigger (its default action is not taken).
fn chain_with(prev: libc::sigaction, request: bool, sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: querying the installed action.
    let mut cur: libc::sigaction = unsafe { std::mem::zeroed() };
    unsafe { libc::sigaction(sig, std::ptr::null(), &mut cur) };
    if cur.sa_sigaction != handler as *const () as usize && cur.sa_sigaction == prev.sa_sigaction {
        // The program's handler, installed both before and after ours,
        // called us as its previous one: calling it again would loop.
        return;
    }
    match prev.sa_sigaction {
        libc::SIG_DFL => {
            if request {
                // Asked for as a dump trigger: not the end of the program.
                return;
            }
            // SAFETY: plain system calls; the signal is blocked while this
            // handler runs, so it is delivered (by default) as we return.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
        }
        libc::SIG_IGN => {
            // SAFETY: the program's own disposition, put back.
            unsafe { libc::sigaction(sig, &prev, std::ptr::null_mut()) };
        }
        f => {
            // SAFETY: the program's handler, called as the kernel would
            // have (three arguments with SA_SIGINFO, else one).
            unsafe {
                if prev.sa_flags & libc::SA_SIGINFO != 0 {
                    let h: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(f);
                    h(sig, info, ctx);
                } else {
                    let h: extern "C" fn(libc::c_int) = std::mem::transmute(f);
                    h(sig);
                }
            }
        }
    }
}

/// Whether our handler is installed for `sig` (tests, diagnostics).
pub fn installed(sig: libc::c_int) -> bool {
    index(sig).is_some_and(|i| INSTALLED[i].load(Acquire))
}

/// The crash signals the recorder handles.
pub fn crash_signals() -> &'static [libc::c_int] {
    &FATAL
}
