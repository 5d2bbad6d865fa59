//! The service thread: one thread of ours that ticks, for the work that
//! must happen while the program runs (the watchdog; the metrics textfile
//! and the CUPTI flush register here too).
//!
//! - **Nothing starts unless asked**: the thread is started by the first
//!   [`register`], never otherwise.
//! - **Tasks**: up to [`MAX_TASKS`] functions, each with its period; a
//!   task runs on this thread only, never on a program thread, inside a
//!   panic boundary. A task may be run early by [`wake`] (async-signal-safe:
//!   one atomic and a futex wake), e.g. from a signal handler that asks for
//!   a report; it then learns it was woken ([`Tick::woken`]).
//! - **No lock**: registration and the thread's loop use atomics only, so a
//!   program thread stuck anywhere never holds up a tick, and a tick never
//!   holds up a program thread.
//! - **fork**: a forked child has no service thread (only the forking
//!   thread survives a fork) and forgets the parent's tasks; it starts its
//!   own thread only if something in it registers a task.
//! - **exit**: the library's `.fini_array` entry marks the process as
//!   ending ([`stopping`]: tasks skip driver work from then on) and waits
//!   up to 200 ms for a tick in progress to end, so a tick does not run
//!   against a driver being unloaded.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use std::time::Duration;

/// Most tasks registered at once.
pub const MAX_TASKS: usize = 8;

/// What a task learns at each run.
#[derive(Clone, Copy, Debug)]
pub struct Tick {
    /// CLOCK_MONOTONIC, ns.
    pub now_ns: u64,
    /// Run because [`wake`] was called (not, or not only, because its
    /// period elapsed).
    pub woken: bool,
}

pub type Task = fn(Tick);

struct Entry {
    /// The task (a `Task` as an address); 0: free.
    f: AtomicUsize,
    period_ns: AtomicU64,
    next_ns: AtomicU64,
}

static TASKS: [Entry; MAX_TASKS] = [const { Entry { f: AtomicUsize::new(0), period_ns: AtomicU64::new(0), next_ns: AtomicU64::new(0) } }; MAX_TASKS];
/// Bumped by [`wake`]; the thread sleeps on it (futex).
static WAKE: AtomicU32 = AtomicU32::new(0);
static IN_TICK: AtomicBool = AtomicBool::new(false);
static STOPPING: AtomicBool = AtomicBool::new(false);
/// The service thread's kernel id (0: none yet).
static THREAD_TID: AtomicU32 = AtomicU32::new(0);

fn now_ns() -> u64 {
    crate::trace::progress::now_ns()
}

/// Run `task` every `period` (at least 10 ms) from the service thread,
/// starting it if needed. Registering the same function again changes its
/// period. False when no slot is left or the thread cannot start.
pub fn register(task: Task, period: Duration) -> bool {
    let period_ns = (period.as_nanos() as u64).max(10_000_000);
    let addr = task as usize;
    let mut slot = TASKS.iter().find(|e| e.f.load(Acquire) == addr);
    if slot.is_none() {
        for e in &TASKS {
            if e.f.compare_exchange(0, addr, AcqRel, Acquire).is_ok() {
                slot = Some(e);
                break;
            }
        }
    }
    let Some(e) = slot else {
        log::warn!("service thread: more than {MAX_TASKS} tasks; one is not run");
        return false;
    };
    e.period_ns.store(period_ns, Relaxed);
    e.next_ns.store(now_ns() + period_ns, Release);
    start()
}

/// Stop running `task`.
pub fn unregister(task: Task) {
    for e in &TASKS {
        let _ = e.f.compare_exchange(task as usize, 0, AcqRel, Relaxed);
    }
}

/// Run every task now, as woken. Async-signal-safe.
pub fn wake() {
    WAKE.fetch_add(1, Release);
    futex_wake(&WAKE);
}

/// Wake the threads waiting on `word` ([`futex_wait`]). Async-signal-safe.
pub fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE on a word of ours.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, i32::MAX) };
}

/// Sleep while `word` holds `seen`, at most `wait_ns` (a wake, a change
/// of the word before the call, or a signal ends it early). No lock.
pub fn futex_wait(word: &AtomicU32, seen: u32, wait_ns: u64) {
    let ts = libc::timespec { tv_sec: (wait_ns / 1_000_000_000) as libc::time_t, tv_nsec: (wait_ns % 1_000_000_000) as libc::c_long };
    // SAFETY: FUTEX_WAIT on a word of ours, with a relative timeout.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG, seen, &ts as *const libc::timespec) };
}

/// On a thread of ours: the program's signals are never delivered to it
/// (the faults' signals stay, so a crash in our code is still reported).
pub fn block_signals() {
    // SAFETY: a full set, applied to this thread only.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        for s in [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGABRT] {
            libc::sigdelset(&mut all, s);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    }
}

/// Whether the process is ending (tasks must not start driver work).
pub fn stopping() -> bool {
    STOPPING.load(Acquire)
}

/// Whether the calling thread is the service thread.
pub fn is_service_thread() -> bool {
    THREAD_TID.load(Relaxed) as i32 == crate::trace::gettid()
}

/// Whether this process has a service thread running.
pub fn running() -> bool {
    THREAD.running()
}

fn start() -> bool {
    // A wake that comes before the thread first looks is not lost.
    let seen = WAKE.load(Acquire);
    THREAD.start("cudart-shim-svc", in_forked_child, "the watchdog and periodic outputs are off", move || run(seen))
}

/// A thread of ours of which a process has at most one, started when first
/// asked. A forked child has none (only the forking thread survives a
/// fork): it starts its own when asked again.
pub struct OwnThread {
    /// The process whose thread runs (0: none; a forked child sees its
    /// parent's pid, so it knows it has none).
    running_in: AtomicU32,
    fork_handler: std::sync::Once,
}

impl OwnThread {
    pub const fn new() -> OwnThread {
        OwnThread { running_in: AtomicU32::new(0), fork_handler: std::sync::Once::new() }
    }

    /// Whether this process's thread runs.
    pub fn running(&self) -> bool {
        self.running_in.load(Acquire) == std::process::id()
    }

    /// Start `body` on a thread named `name` unless this process has it
    /// already; `in_child` runs in each forked child (registered once).
    /// False (with one warning saying what is `off` then) when it cannot.
    pub fn start(&self, name: &str, in_child: extern "C" fn(), off: &str, body: impl FnOnce() + Send + 'static) -> bool {
        let pid = std::process::id();
        let cur = self.running_in.load(Acquire);
        if cur == pid || self.running_in.compare_exchange(cur, pid, AcqRel, Acquire).is_err() {
            return true;
        }
        self.fork_handler.call_once(|| {
            // SAFETY: registering a plain extern "C" function.
            unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
        });
        match std::thread::Builder::new().name(name.into()).stack_size(256 * 1024).spawn(body) {
            Ok(_) => true,
            Err(e) => {
                self.running_in.store(0, Release);
                log::warn!("{name}: cannot start a thread ({e}); {off}");
                false
            }
        }
    }

    /// In a forked child: this process has none.
    pub fn forget(&self) {
        self.running_in.store(0, Relaxed);
    }
}

impl Default for OwnThread {
    fn default() -> Self {
        Self::new()
    }
}

static THREAD: OwnThread = OwnThread::new();

extern "C" fn in_forked_child() {
    THREAD.forget();
    IN_TICK.store(false, Relaxed);
    THREAD_TID.store(0, Relaxed);
    for e in &TASKS {
        e.f.store(0, Relaxed);
    }
}

fn run(mut seen: u32) {
    THREAD_TID.store(crate::trace::gettid() as u32, Relaxed);
    // Our thread never receives the program's signals meant for it.
    block_signals();
    loop {
        if STOPPING.load(Acquire) {
            return;
        }
        let now = now_ns();
        let next = TASKS
            .iter()
            .filter(|e| e.f.load(Acquire) != 0)
            .map(|e| e.next_ns.load(Acquire))
            .min()
            .unwrap_or(now + 1_000_000_000);
        let wait = next.saturating_sub(now);
        if wait > 0 {
            futex_wait(&WAKE, seen, wait);
        }
        let w = WAKE.load(Acquire);
        let woken = w != seen;
        seen = w;
        IN_TICK.store(true, Release);
        if STOPPING.load(Acquire) {
            IN_TICK.store(false, Release);
            return;
        }
        let now = now_ns();
        for e in &TASKS {
            let f = e.f.load(Acquire);
            if f == 0 {
                continue;
            }
            let due = e.next_ns.load(Acquire) <= now;
            if !due && !woken {
                continue;
            }
            if due {
                e.next_ns.store(now + e.period_ns.load(Relaxed), Release);
            }
            // SAFETY: stored by `register` from a `Task`.
            let task: Task = unsafe { std::mem::transmute::<usize, Task>(f) };
            let _ = std::panic::catch_unwind(|| task(Tick { now_ns: now, woken }));
        }
        IN_TICK.store(false, Release);
    }
}

/// At exit (this library's `.fini_array`): no new tick; wait briefly for
/// one in progress.
extern "C" fn at_exit() {
    STOPPING.store(true, Release);
    if !running() {
        return;
    }
    wake();
    for _ in 0..200 {
        if !IN_TICK.load(Acquire) {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[used]
#[unsafe(link_section = ".fini_array")]
static AT_EXIT: extern "C" fn() = at_exit;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    static RUNS: AtomicU64 = AtomicU64::new(0);
    static WOKEN: AtomicU64 = AtomicU64::new(0);

    fn task(t: Tick) {
        RUNS.fetch_add(1, Relaxed);
        if t.woken {
            WOKEN.fetch_add(1, Relaxed);
        }
    }

    /// Waits for `cond`, giving up after 20 s (a failure, not a timing).
    fn eventually(cond: impl Fn() -> bool) -> bool {
        (0..2000).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            cond()
        })
    }

    #[test]
    fn a_registered_task_runs_on_the_service_thread_and_wake_runs_it_early() {
        assert!(!running() || RUNS.load(Relaxed) == 0);
        // A period far longer than the test: only `wake` can run it early.
        assert!(register(task, Duration::from_secs(3600)));
        assert!(running());
        assert_eq!(RUNS.load(Relaxed), 0);
        wake();
        assert!(eventually(|| WOKEN.load(Relaxed) >= 1));
        unregister(task);
        let n = RUNS.load(Relaxed);
        wake();
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(RUNS.load(Relaxed), n, "an unregistered task does not run");
    }
}
