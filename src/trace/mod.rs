//! Counting, timing and tracing of calls.
//!
//! Every export owns a static [`CallSite`]. When nothing is on (the
//! default), [`active`] is one relaxed load and a compare, and the site is
//! never touched. When on, [`traced`] times the call and hands it to the
//! enabled outputs:
//!
//! - `summary`: per-thread statistics ([`stats`]), merged and printed as
//!   Nsight's `cuda_api_sum` table ([`table`]) at exit and on flush;
//! - `calls`: one line per call, written with one `write` after it returns;
//! - `timeline`: events of the event model ([`event`]) through per-thread
//!   chunks and a writer thread, written as Perfetto's protobuf or Chrome
//!   trace JSON ([`timeline`]);
//! - subscribers registered through the shim's C API ([`subscribe`]);
//! - `recorder`: per-thread rings of the last calls, dumped on a sticky
//!   error, a crash signal or a flush ([`recorder`]).
//!
//! Registration is not program work: the calls nvcc's host code makes
//! from constructors to register its kernels and variables
//! (`__cudaRegister*`, `__cudaUnregister*`: tens of thousands when Python
//! imports torch) and the driver calls made inside them are counted in
//! the summary, exactly, one row per function, but are not written to the
//! timeline or the call log unless `CUDART_SHIM_TRACE_REGISTRATION=1`
//! (`trace --registration`). The files (timeline, call log, summary file)
//! are created at the process's first other call ([`first_work`]), not at
//! its first call: a process that made no call besides registration (a
//! launcher, a Python tool that imports torch) writes no file, and prints
//! no summary on stderr either. So such a process never takes a file name
//! a process doing the work wants (`%r`, `trace`'s claims). Setup calls
//! ([`is_setup`]: the device count, versions, entry points, error names)
//! and the calls nested in them do not make a process a working one
//! either (torchrun's launcher asks for the device count): made before
//! the first work, they are held (call log lines here, timeline events in
//! their threads' lanes) and written when the work begins, or never. A
//! setup call of the program's own that fails, and an NVTX range or mark,
//! begin the work. `--registration` keeps every call as work.
//!
//! Configuration is read once from the environment, at the first call
//! ([`crate::config::trace_config`]). Thread state is reached through a
//! const-initialized thread-local read with `try_with`; a call made while
//! its thread is being torn down is still answered, counted and put on the
//! timeline (through a state borrowed under a lock: that path is rare).
//!
//! Exit: the final flush runs from this library's `.fini_array`, which
//! glibc runs after every `atexit` handler and C++ static destructor of the
//! program, so it sees their calls too; it runs for a return from main,
//! `exit()`, and after `cudaDeviceReset`. Calls made after it (from other
//! libraries' destructors) are still answered; they are not in the
//! timeline, which is closed.

pub mod args;
pub mod event;
pub use event::clock;
pub mod driver;
/// cbindgen:ignore
pub mod driver_abi;
pub mod gpu;
pub(crate) mod output;
pub mod recorder;
pub mod nvtx;
pub mod progress;
pub mod stats;
pub mod step;
pub mod subscribe;
pub use trace_format::{gpu_table, table};
pub mod timeline;
pub mod window;

pub use args::{set_symbol_namer, CallArgs, TraceArg};
pub use event::process::set_device_lister;

use crate::types::cudaError_t;
use parking_lot::Mutex;
use stats::{Agg, SiteStats};
use std::cell::Cell;
use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU32, AtomicU8, Ordering::*};
use std::sync::OnceLock;

pub use event::names::{site_name, status_name, MAX_SITES};
pub(crate) use event::names::is_driver;

/// Static per-function record. Const-constructed, so the hot path never
/// allocates; registered (given an id) at its first traced call.
pub struct CallSite {
    pub name: &'static str,
    /// 0: not registered yet; `FULL`: no id left; else id + 1.
    id: AtomicU32,
    /// Whether `CUDART_SHIM_TRACE_FILTER` lets it into the outputs.
    included: AtomicBool,
    /// A driver API function (reported by the driver interposer): its
    /// result is a `CUresult`, and a call made inside a runtime call is not
    /// counted as the program's own (see [`driver`]).
    driver: bool,
    /// A registration function (`__cudaRegister*`, `__cudaUnregister*`;
    /// set when registered): see the module note.
    registration: AtomicBool,
    /// A setup call ([`is_setup`]; set when registered): see the module note.
    setup: AtomicBool,
}

const FULL: u32 = u32::MAX;

impl CallSite {
    pub const fn new(name: &'static str) -> Self {
        CallSite { name, id: AtomicU32::new(0), included: AtomicBool::new(true), driver: false, registration: AtomicBool::new(false), setup: AtomicBool::new(false) }
    }

    /// The site of a driver API function.
    pub const fn driver_api(name: &'static str) -> Self {
        CallSite { name, id: AtomicU32::new(0), included: AtomicBool::new(true), driver: true, registration: AtomicBool::new(false), setup: AtomicBool::new(false) }
    }

    #[inline]
    fn id(&'static self) -> Option<u32> {
        match self.id.load(Acquire) {
            0 => register(self),
            FULL => None,
            v => Some(v - 1),
        }
    }

    /// Calls counted so far (over every thread; needs counting on).
    pub fn calls(&'static self) -> u64 {
        self.id().map_or(0, |id| merged(id).calls)
    }
}

static SITES: [AtomicPtr<CallSite>; MAX_SITES] = [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_SITES];
static C_NAMES: [AtomicPtr<c_char>; MAX_SITES] = [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_SITES];
static NSITES: AtomicU32 = AtomicU32::new(0);
static REGISTER: Mutex<()> = Mutex::new(());

#[cold]
fn register(site: &'static CallSite) -> Option<u32> {
    let _g = REGISTER.lock();
    match site.id.load(Acquire) {
        0 => {}
        FULL => return None,
        v => return Some(v - 1),
    }
    // An API layer switched off (CUDART_SHIM_TRACE_RUNTIME=0 or _DRIVER=0):
    // its calls are not traced at all, not even as nesting (the driver
    // calls of an untraced runtime call are then the program's own).
    let c = crate::config::trace_config();
    if !(if site.driver { c.driver } else { c.runtime }) {
        site.id.store(FULL, Release);
        return None;
    }
    let id = NSITES.load(Relaxed);
    if id as usize >= MAX_SITES {
        site.id.store(FULL, Release);
        log::warn!("tracing: more than {MAX_SITES} functions; {} is not traced", site.name);
        return None;
    }
    let cname = CString::new(site.name).unwrap_or_default().into_raw();
    C_NAMES[id as usize].store(cname, Relaxed);
    SITES[id as usize].store(site as *const CallSite as *mut CallSite, Relaxed);
    event::names::set_site(id, site.name, site.driver, || event::names::ResultNames { runtime: args::result_name, driver: driver::result_name });
    site.included.store(c.includes(site.name), Relaxed);
    site.registration.store(!site.driver && is_registration(site.name), Relaxed);
    site.setup.store(is_setup(site.name), Relaxed);
    gpu::classify(id, site.name);
    window::classify(id, site.name);
    NSITES.store(id + 1, Release);
    site.id.store(id + 1, Release);
    Some(id)
}

pub use crate::control::is_registration;

/// A setup call: one that asks about the installation (how many devices,
/// which versions, a driver entry point, an error's name or the last
/// error) and makes no context and no work. Made before the process's
/// first other call, it does not make the process a working one (the
/// module note): torchrun's launcher imports torch (registration) and asks
/// `cudaGetDeviceCount`, and wrote `trace-ranknorank-PID.json` on the GPU
/// (2026-11-26 and -28: `cudaGetDeviceCount`, the driver calls inside it
/// and `cuGetExportTable` were its only other calls).
pub fn is_setup(name: &str) -> bool {
    let base = name.strip_suffix("_v2").unwrap_or(name);
    matches!(
        base,
        "cudaGetDeviceCount"
            | "cudaDriverGetVersion"
            | "cudaRuntimeGetVersion"
            | "cudaGetDriverEntryPoint"
            | "cudaGetDriverEntryPointByVersion"
            | "cudaGetErrorName"
            | "cudaGetErrorString"
            | "cudaGetLastError"
            | "cudaPeekAtLastError"
            | "cuInit"
            | "cuDriverGetVersion"
            | "cuDeviceGetCount"
            | "cuDeviceGet"
            | "cuGetProcAddress"
            | "cuGetExportTable"
            | "cuGetErrorName"
            | "cuGetErrorString"
    )
}

/// Name of function `id` as a C string (NULL when unknown).
pub fn site_c_name(id: u32) -> *const c_char {
    C_NAMES.get(id as usize).map_or(std::ptr::null_mut(), |s| s.load(Acquire))
}

pub fn site_count() -> u32 {
    NSITES.load(Acquire)
}

/// The output switches in force (`SUMMARY`, `CALLS`, ...; `CONFIGURED`
/// alone: nothing on), for the metrics' cost estimate.
pub(crate) fn flags() -> u32 {
    FLAGS.load(Relaxed)
}

/// Calls that returned a sticky error ([`recorder::is_sticky`]), over the
/// functions the summary shows: a view of the same counters.
pub fn sticky_errors() -> u64 {
    let states = all_states();
    let mut n = 0;
    for id in 0..site_count() {
        let site = SITES[id as usize].load(Acquire);
        // SAFETY: registered sites are statics.
        if site.is_null() || !unsafe { &*site }.included.load(Relaxed) {
            continue;
        }
        n += merged_over(&states, id).errors.iter().filter(|&(&c, _)| c != -1 && recorder::is_sticky(c & !INJECTED)).map(|(_, &k)| k).sum::<u64>();
    }
    n
}

/// The id of a registered function by name.
pub fn site_id(name: &str) -> Option<u32> {
    (0..site_count()).find(|&i| site_name(i) == name)
}

// ---- switches ---------------------------------------------------------

const CONFIGURED: u32 = 1;
pub(crate) const SUMMARY: u32 = 2;
pub(crate) const CALLS: u32 = 4;
pub(crate) const TIMELINE: u32 = 8;
pub(crate) const SUBSCRIBERS: u32 = 16;
/// Counters on (for the counters API) without printing a summary.
pub(crate) const COUNT: u32 = 32;
/// The flight recorder's rings ([`recorder`]).
pub(crate) const RECORDER: u32 = 64;
/// No capture window is open: calls run unrecorded ([`window`]).
pub(crate) const CLOSED: u32 = 128;

static FLAGS: AtomicU32 = AtomicU32::new(0);

/// Whether calls are traced. Reads the environment on first use.
#[inline(always)]
pub fn active() -> bool {
    match FLAGS.load(Relaxed) {
        CONFIGURED => false,
        0 => configure(),
        _ => true,
    }
}

pub(crate) fn set_flag(flag: u32, on: bool) {
    configure();
    if on {
        FLAGS.fetch_or(flag, Relaxed);
    } else {
        FLAGS.fetch_and(!flag, Relaxed);
    }
    publish_switch(FLAGS.load(Relaxed));
}

/// Tell the pipeline's switch word what observation wants: [`switch::TRACE`]
/// for any output, or [`switch::RECORDER`] when the flight recorder is the
/// only one (its short path; a window rule still applies there).
///
/// [`switch::TRACE`]: crate::control::switch::TRACE
/// [`switch::RECORDER`]: crate::control::switch::RECORDER
fn publish_switch(flags: u32) {
    use crate::control::switch::{mark, RECORDER as ALONE, TRACE};
    let recorder_alone = flags & !(CONFIGURED | CLOSED) == RECORDER && !gpu::on();
    mark(TRACE, flags > CONFIGURED && !recorder_alone);
    mark(ALONE, recorder_alone);
}

/// The summary's and the call log's destinations, opened at the first
/// call that is program work ([`first_work`]) or, for GPU activity alone,
/// when the summary is written.
struct Outputs {
    summary: OnceLock<output::Sink>,
    calls: OnceLock<output::Sink>,
    /// The summary shares the call log's file: appended to it (set by
    /// `configure`, before any output is opened).
    summary_in_calls: AtomicBool,
}

static OUTPUTS: Outputs = Outputs { summary: OnceLock::new(), calls: OnceLock::new(), summary_in_calls: AtomicBool::new(false) };

impl Outputs {
    fn calls(&self) -> &output::Sink {
        self.calls.get_or_init(|| {
            let c = crate::config::trace_config();
            let calls = if c.calls { output::Sink::open(c.calls_file.as_deref(), true, "call log") } else { output::Sink::Stderr };
            calls.note_process("call log");
            calls
        })
    }

    fn summary(&self) -> &output::Sink {
        self.summary.get_or_init(|| {
            let c = crate::config::trace_config();
            if (c.summary || c.gpu) && !self.summary_in_calls() {
                // Created now (empty) so a bad path is reported early, rewritten at each flush.
                output::Sink::open(c.summary_file.as_deref(), false, "summary")
            } else {
                output::Sink::Stderr
            }
        })
    }

    fn summary_in_calls(&self) -> bool {
        self.summary_in_calls.load(Relaxed)
    }
}

/// Set at the process's first traced call that is program work (not
/// registration: the module note); its files exist from then on.
static WORK: AtomicBool = AtomicBool::new(false);

/// The first call that is program work: create the call log, the summary
/// file and the timeline now, on the calling thread (where the first call
/// created them before registration stopped counting as work: a writer
/// thread creating them could wait on the loader lock that a library
/// constructor making this call holds). Other threads do not wait for it:
/// their lines and events find the files open, or open them.
#[cold]
#[inline(never)]
fn first_work() {
    if WORK.swap(true, Relaxed) {
        return;
    }
    let flags = FLAGS.load(Relaxed);
    if flags & CALLS != 0 {
        OUTPUTS.calls();
        write_early_lines();
    }
    OUTPUTS.summary();
    if flags & TIMELINE != 0 {
        timeline::open();
    }
    if let Some(f) = ON_FIRST_WORK.get() {
        f();
    }
}

/// Whether the timeline file may be created now: the process began its
/// work (the module note).
pub(crate) fn writes_files() -> bool {
    WORK.load(Relaxed)
}

/// Setup calls that may come before the process's first work (the module
/// note); past this many, the process counts as working (its held lines
/// and events stay few).
const SETUP_MAX: u32 = 256;
static SETUP_CALLS: AtomicU32 = AtomicU32::new(0);

/// Whether a call made before the process's first work leaves it not yet
/// working (None: it is work): `Some(true)` for the program's own setup
/// call ([`is_setup`]; if it fails, the process is a working one after
/// all: a program that finds no driver shows its failed calls), `Some(false)`
/// for any call nested in another (the outer call decides: a working one
/// has already made the process a working one).
#[cold]
#[inline(never)]
fn before_work(site: &CallSite, st: Option<&ThreadState>) -> Option<bool> {
    if crate::config::trace_config().registration {
        return None;
    }
    if st.is_some_and(|s| s.depth.load(Relaxed) > 0) {
        return Some(false);
    }
    (site.setup.load(Relaxed) && SETUP_CALLS.fetch_add(1, Relaxed) < SETUP_MAX).then_some(true)
}

/// The call log's lines of calls made before the process's first work
/// (setup calls): written when it begins ([`first_work`]), never if it
/// does not. The lock is taken only before that.
static EARLY_LINES: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Write the held call log lines (the first work began).
fn write_early_lines() {
    let early = std::mem::take(&mut *lock(&EARLY_LINES));
    if !early.is_empty() {
        output::write_all(OUTPUTS.calls().fd(), early.as_bytes());
    }
}

/// What starts at the process's first call that is work, from above this
/// layer (the metrics' threads and socket: a launcher that only registers
/// kernels, torchrun importing torch, takes no port a rank wants). Set once.
static ON_FIRST_WORK: OnceLock<fn()> = OnceLock::new();

/// Register [`ON_FIRST_WORK`]; runs `f` now if that call already came.
pub fn set_on_first_work(f: fn()) {
    if ON_FIRST_WORK.set(f).is_ok() && WORK.load(Relaxed) {
        f();
    }
}

thread_local! {
    /// Set while this thread runs the one-time setup (`configure`).
    static CONFIGURING: Cell<bool> = const { Cell::new(false) };
}

/// Read the configuration, open the outputs, start the writer: once.
///
/// A call made on the configuring thread while the setup runs is part of
/// the setup and is not traced: CUPTI, started here, loads the driver,
/// which under `cudart-shim trace` is the interposer, whose initializer
/// asks this runtime to switch tracing on (`Hooks::activate`), and CUPTI's
/// own driver calls come back through it. Waiting on the setup from inside
/// it would wait forever (a CUDA 12 program under `trace --gpu` did, on an
/// H100). Other threads wait for the setup as before.
#[cold]
fn configure() -> bool {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if CONFIGURING.try_with(Cell::get).unwrap_or(false) {
        return false;
    }
    ONCE.call_once(|| {
        struct Configuring;
        impl Drop for Configuring {
            fn drop(&mut self) {
                let _ = CONFIGURING.try_with(|c| c.set(false));
            }
        }
        let _ = CONFIGURING.try_with(|c| c.set(true));
        let _configuring = Configuring;
        let c = crate::config::trace_config();
        // The call log and the timeline need every call's time.
        if c.sample > 1 && (c.calls || c.timeline) {
            log::warn!("CUDART_SHIM_TRACE_SAMPLE applies to the summary alone; with calls or timeline on, every call is timed");
        } else {
            stats::SAMPLE_EVERY.store(c.sample.max(1), Relaxed);
        }
        let mut flags = CONFIGURED;
        if c.any() || c.driver || c.gpu {
            clock::init();
        }
        let shared = c.calls && c.summary && c.calls_file.is_some() && c.calls_file == c.summary_file;
        OUTPUTS.summary_in_calls.store(shared, Relaxed);
        if c.summary {
            flags |= SUMMARY;
        }
        // The metrics are views of the counters: with them on, calls are
        // counted even when no summary is printed.
        if crate::config::metrics_config().on() {
            clock::init();
            flags |= COUNT;
        }
        if c.calls {
            flags |= CALLS;
        }
        // The file itself is created at the first call that is work.
        if c.timeline && timeline::start(c.timeline_file.as_deref().unwrap_or("cudart-shim.pftrace"), c.timeline_format, c.timeline_max_size, c.timeline_ring) {
            flags |= TIMELINE;
        }
        if c.recorder && recorder::start(c) {
            flags |= RECORDER;
        }
        // GPU activity is not a flag: with it alone, calls are not traced.
        if c.gpu {
            gpu::start(flags & TIMELINE != 0);
        }
        if (flags != CONFIGURED || gpu::on()) && window::start() {
            flags |= CLOSED;
        }
        if flags != CONFIGURED || gpu::on() {
            // SAFETY: registering a plain extern "C" function.
            unsafe { libc::pthread_atfork(Some(before_fork), Some(after_fork_in_parent), Some(in_forked_child)) };
        }
        FLAGS.fetch_or(flags, Relaxed);
        test_pause_setup();
        // The pipeline's switch word: observation wants calls.
        publish_switch(flags);
    });
    FLAGS.load(Relaxed) > CONFIGURED
}

/// Debug builds (the tests' library) only: `CUDART_SHIM_TEST_PAUSE_SETUP_MS=N`
/// holds the setup N ms between setting [`FLAGS`] and publishing the
/// switch bit, the window in which other threads' calls went untraced
/// before [`setup`] (tests/stress.rs widens it to show the loss cannot
/// come back). Release builds have no such variable.
fn test_pause_setup() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("CUDART_SHIM_TEST_PAUSE_SETUP_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms.min(10_000)));
    }
}

/// Run the one-time setup, or wait until the thread running it is done;
/// false only on that thread while it runs (its calls are part of the
/// setup). The pipeline's setup (`crate::intercept`) completes only after
/// this returns true: [`FLAGS`] is set before the switch word's bit is
/// published ([`publish_switch`]), so a caller that took a set `FLAGS` for
/// "set up" could finish the pipeline's setup while the word said
/// "nothing on", and other threads' calls went untraced until the bit
/// came (docs/RELIABILITY.md, "Nothing lost").
pub fn setup() -> bool {
    if CONFIGURING.try_with(Cell::get).unwrap_or(false) {
        return false;
    }
    configure();
    true
}

/// Set in a forked child: it reports only the calls it made itself.
static FORKED_CHILD: AtomicBool = AtomicBool::new(false);

type ForkHeld = (
    std::sync::MutexGuard<'static, Vec<&'static ThreadState>>,
    parking_lot::MutexGuard<'static, Vec<&'static ThreadState>>,
    std::sync::MutexGuard<'static, String>,
);

thread_local! {
    /// The thread-state locks the forking thread holds across `fork`.
    static FORK_HELD: std::cell::RefCell<Option<ForkHeld>> = const { std::cell::RefCell::new(None) };
}

/// Before `fork`: hold the locks a thread's first call takes (`FREE`, then
/// `STATES`, their order in `adopt`), so that no other thread holds them
/// when the child is made. A child that inherited one held by a thread it
/// does not have waited forever at its first call (scripts/stress, `fork`:
/// 2 lifecycles in about 18,000, gdb: `adopt` waiting on `FREE`). And
/// `EARLY_LINES`, which a call line made before the first work takes.
extern "C" fn before_fork() {
    // The outputs' sinks are `OnceLock`s made at the first work: one another
    // thread is making at the fork would reach the child mid-initialization,
    // with no thread to finish it, and the child's exit waited on it for
    // ever (scripts/stress, `fork`: 2 lifecycles in about 17,000; gdb:
    // at_exit -> write_summary -> Outputs::summary waiting in Once::call).
    // Finished here first, in the parent, where the making thread lives
    // (and made here when the first work has begun but not made them yet:
    // what first_work would make). Before the locks below: making a sink
    // takes none of them.
    if WORK.load(Relaxed) {
        if FLAGS.load(Relaxed) & CALLS != 0 {
            OUTPUTS.calls();
        }
        OUTPUTS.summary();
    }
    let free = lock(&FREE);
    let states = STATES.lock();
    let early = lock(&EARLY_LINES);
    let _ = FORK_HELD.try_with(|h| *h.borrow_mut() = Some((free, states, early)));
}

/// After `fork`, in either process: let the thread-state locks go.
fn release_fork_held() {
    if let Ok(held) = FORK_HELD.try_with(|h| h.borrow_mut().take()) {
        drop(held);
    }
}

extern "C" fn after_fork_in_parent() {
    release_fork_held();
}

extern "C" fn in_forked_child() {
    // The held call log lines are the parent's, written by the parent if
    // it works: not the child's.
    if let Ok(Some(held)) = FORK_HELD.try_with(|h| h.borrow_mut().take()) {
        let (free, states, mut early) = held;
        early.clear();
        drop((early, states, free));
    }
    release_fork_held();
    timeline::disable_in_child();
    gpu::disable_in_child();
    stats::EPOCH.fetch_add(1, Relaxed);
    FORKED_CHILD.store(true, Relaxed);
    // Only the forking thread lives on, and it is not recording (fork is
    // not called from inside `recorded`): the flags other threads left set
    // would hold the child's final flush (found by scripts/stress, fork).
    if let Some(states) = STATES.try_lock() {
        for s in states.iter() {
            s.recording.store(false, Relaxed);
        }
    }
    // SAFETY: states are leaked, never freed.
    let current = CURRENT.try_with(Cell::get).ok().filter(|p| !p.is_null() && *p != DEAD).map(|p| unsafe { &*p });
    recorder::in_forked_child(current.map(|s| &s.ring));
}

// ---- per-thread state -------------------------------------------------

pub(crate) struct ThreadState {
    tid: AtomicI32,
    depth: AtomicU32,
    /// A registration call is in progress on this thread: it and the calls
    /// made inside it are not program work (the module note).
    registering: AtomicBool,
    /// Set while this thread records a finished call in the outputs
    /// ([`recorded`]): the final flush waits for it (the exit rule).
    recording: AtomicBool,
    stats: Box<[AtomicPtr<SiteStats>]>,
    lane: timeline::Lane,
    /// The flight recorder's ring of this thread's last calls.
    ring: recorder::ThreadRing,
    /// The call log's line buffer (a field, not a thread-local with a
    /// destructor, for the reason given at [`RETIRE_KEY`]).
    line: std::sync::Mutex<String>,
}

impl ThreadState {
    #[inline(always)]
    fn site_stats(&self, id: u32) -> &SiteStats {
        let slot = &self.stats[id as usize];
        let p = slot.load(Acquire);
        if !p.is_null() {
            // SAFETY: records are leaked, never freed.
            return unsafe { &*p };
        }
        Self::new_site_stats(slot)
    }

    #[cold]
    fn new_site_stats(slot: &AtomicPtr<SiteStats>) -> &SiteStats {
        let p = Box::into_raw(SiteStats::new());
        slot.store(p, Release);
        // SAFETY: just leaked.
        unsafe { &*p }
    }
}

/// Every thread state ever made (they are recycled, never freed).
static STATES: Mutex<Vec<&'static ThreadState>> = Mutex::new(Vec::new());
// FREE and LATE are std (futex) mutexes, not parking_lot's: threads in
// teardown take them, and parking_lot waits through a thread-local that,
// first touched in a pthread key destructor (after the thread's
// thread-local destructors ran), registers a destructor glibc never runs:
// 32 bytes lost per exiting thread, seen by valgrind and LeakSanitizer
// (tests/sanitizers.rs). The timeline queue is std's for the same reason.

/// States of threads that ended, ready for new threads.
static FREE: std::sync::Mutex<Vec<&'static ThreadState>> = std::sync::Mutex::new(Vec::new());
/// Serializes calls made while their thread is torn down (rare): each
/// borrows a free state for the call (one writer at a time), then returns it.
static LATE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Lock a std mutex; a panic while it was held leaves it usable.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn new_state() -> &'static ThreadState {
    let s: &'static ThreadState = Box::leak(Box::new(ThreadState {
        tid: AtomicI32::new(0),
        depth: AtomicU32::new(0),
        registering: AtomicBool::new(false),
        recording: AtomicBool::new(false),
        stats: (0..MAX_SITES).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect(),
        lane: timeline::Lane::new(),
        ring: recorder::ThreadRing::new(),
        line: std::sync::Mutex::new(String::new()),
    }));
    STATES.lock().push(s);
    s
}

pub(crate) fn gettid() -> i32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as i32 }
}

fn thread_name() -> String {
    let mut buf = [0u8; 64];
    // SAFETY: buf is writable for its length.
    let r = unsafe { libc::pthread_getname_np(libc::pthread_self(), buf.as_mut_ptr().cast(), buf.len()) };
    let n = buf.iter().position(|&b| b == 0).unwrap_or(0);
    if r == 0 && n > 0 { String::from_utf8_lossy(&buf[..n]).into_owned() } else { format!("thread {}", gettid()) }
}

/// A thread's state goes back to the free list from the destructor of a
/// pthread key of ours, not from a Rust thread-local's destructor: glibc
/// runs thread-local destructors first and pthread key destructors after,
/// in rounds, so a thread whose first CUDA call comes from another
/// library's key destructor can still register here (in the next round),
/// where a thread-local registered that late is never destroyed (glibc
/// loses its 32-byte record and the state is never recycled). Calls made
/// after retirement take the late path ([`with_late_state`]).
static RETIRE_KEY: OnceLock<Option<libc::pthread_key_t>> = OnceLock::new();

fn retire_key() -> Option<libc::pthread_key_t> {
    *RETIRE_KEY.get_or_init(|| {
        let mut k = 0;
        // SAFETY: k is writable; `retire` stays mapped while the key
        // exists (the key is deleted when the library is unloaded, `at_exit`).
        let ok = unsafe { libc::pthread_key_create(&mut k, Some(retire)) } == 0;
        if !ok {
            log::warn!("tracing: no pthread key left; each thread's calls take the slower shared path");
        }
        ok.then_some(k)
    })
}

/// The key's destructor: the exiting thread's state, with its pending
/// timeline events handed to the writer, goes back to the free list.
unsafe extern "C" fn retire(p: *mut std::ffi::c_void) {
    let _ = std::panic::catch_unwind(|| {
        let _ = CURRENT.try_with(|c| c.set(DEAD));
        recorder::signals::forget_alt_stack();
        // SAFETY: the key holds a leaked (never freed) state, set by `adopt`.
        let s: &'static ThreadState = unsafe { &*(p as *const ThreadState) };
        timeline::flush_one(&s.lane);
        lock(&FREE).push(s);
    });
}

/// Set once the thread's state is retired: its later calls (from other key
/// destructors) take the late path.
const DEAD: *const ThreadState = std::ptr::dangling();

thread_local! {
    // No destructor: usable at any point of the thread's teardown.
    static CURRENT: Cell<*const ThreadState> = const { Cell::new(std::ptr::null()) };
}

/// This thread's state: None once it is retired.
#[inline]
fn state() -> Option<&'static ThreadState> {
    match CURRENT.try_with(Cell::get) {
        Ok(p) if p.is_null() => adopt(),
        // SAFETY: states are leaked, never freed; only this thread writes it.
        Ok(p) if p != DEAD => Some(unsafe { &*p }),
        _ => None,
    }
}

/// With the flight recorder on, the states of the last `KEEP_ENDED`
/// threads that ended are not given to new threads: each holds its
/// thread's ring, and a dump shows the last calls of threads that ended
/// too (a worker that finished before another started lost its ring to
/// it: tests/recorder.rs, 8 threads, failed about 4 runs in 10). Past
/// that many, a new thread takes the state of the thread that ended
/// longest ago. Bounded memory: at most `KEEP_ENDED` rings more than
/// the live threads' (16 x 512 KiB at the default ring size).
pub(crate) const KEEP_ENDED: usize = 16;

/// A state for a new thread from the free list, if it has one to give
/// (see [`KEEP_ENDED`]); else the caller makes one.
fn reuse_state() -> Option<&'static ThreadState> {
    let mut free = lock(&FREE);
    if !recorder::started() {
        return free.pop();
    }
    // The state of the thread that ended longest ago (a short list: the
    // free states are the threads that ended and were not replaced).
    (free.len() >= KEEP_ENDED).then(|| free.remove(0))
}

#[cold]
fn adopt() -> Option<&'static ThreadState> {
    let key = retire_key()?;
    let s = reuse_state().unwrap_or_else(new_state);
    let tid = gettid();
    s.tid.store(tid, Relaxed);
    s.depth.store(0, Relaxed);
    s.registering.store(false, Relaxed);
    s.lane.set_thread(tid, thread_name());
    s.ring.reassign(tid);
    // SAFETY: a key we created; the value is a leaked state.
    if unsafe { libc::pthread_setspecific(key, s as *const ThreadState as *const std::ffi::c_void) } != 0 {
        lock(&FREE).push(s);
        return None;
    }
    CURRENT.try_with(|c| c.set(s)).ok()?;
    Some(s)
}

/// How many traced calls are in progress on this thread, without making
/// the thread a state (a thread that never called reads 0).
pub(crate) fn current_depth() -> u32 {
    match CURRENT.try_with(Cell::get) {
        // SAFETY: states are leaked, never freed.
        Ok(p) if !p.is_null() && p != DEAD => unsafe { &*p }.depth.load(Relaxed),
        _ => 0,
    }
}

/// Run `f` with a borrowed state for a call whose thread is being torn
/// down: its events carry the calling thread's id and go to the writer at
/// once; the state goes back to the free list.
fn with_late_state(f: impl FnOnce(&ThreadState)) {
    let _g = lock(&LATE);
    let s = lock(&FREE).pop().unwrap_or_else(new_state);
    let tid = gettid();
    s.tid.store(tid, Relaxed);
    s.lane.set_thread(tid, format!("thread {tid} (exiting)"));
    f(s);
    timeline::flush_one(&s.lane);
    lock(&FREE).push(s);
}

// ---- the traced call --------------------------------------------------

/// Run a traced call: `run` performs it (panic boundary included) and
/// `status_of` says what it returned. Outside a capture window the call
/// runs unrecorded (one check); a profiler start or stop may open or
/// close a window after it ([`window`]).
#[inline(never)]
pub fn traced<R>(
    site: &'static CallSite,
    args: &dyn Fn(&mut CallArgs),
    run: impl FnOnce() -> R,
    status_of: impl Fn(&R) -> cudaError_t,
) -> R {
    let Some(id) = site.id() else { return run() };
    if FLAGS.load(Relaxed) & CLOSED != 0 {
        let r = run();
        window::after_call(id);
        return r;
    }
    let r = traced_open(site, id, args, run, status_of);
    window::after_call(id);
    r
}

/// [`traced`] inside a capture window (or without window rules).
#[inline(always)]
fn traced_open<R>(
    site: &'static CallSite,
    id: u32,
    args: &dyn Fn(&mut CallArgs),
    run: impl FnOnce() -> R,
    status_of: impl Fn(&R) -> cudaError_t,
) -> R {
    let mut flags = FLAGS.load(Relaxed);
    let st = state();
    // Registration (the module note): this call opens a registration, or
    // runs inside one; `opens`: it closes it when it returns.
    let opens = site.registration.load(Relaxed) && st.is_some_and(|s| !s.registering.swap(true, Relaxed));
    // The program's own setup call before its first work: if it fails,
    // the process counts as working after all (its trouble is shown).
    let mut setup = false;
    if opens || st.is_some_and(|s| s.registering.load(Relaxed)) {
        if !crate::config::trace_config().registration {
            // Counted, not written.
            flags &= !(CALLS | TIMELINE);
        } else if !WORK.load(Relaxed) {
            first_work();
        }
    } else if !WORK.load(Relaxed) {
        match before_work(site, st) {
            None => first_work(),
            Some(own) => setup = own,
        }
    }
    let r = traced_as_work(site, id, flags, st, args, run, &status_of);
    if setup && status_of(&r).0 != 0 {
        first_work();
    }
    if opens && let Some(s) = st {
        s.registering.store(false, Relaxed);
    }
    r
}

/// [`traced`] once the call is placed: `flags` are the outputs it goes to.
#[inline(always)]
fn traced_as_work<R>(
    site: &'static CallSite,
    id: u32,
    flags: u32,
    st: Option<&'static ThreadState>,
    args: &dyn Fn(&mut CallArgs),
    run: impl FnOnce() -> R,
    status_of: impl Fn(&R) -> cudaError_t,
) -> R {
    // Statistics only (summary, counters: the modes meant to stay on): one
    // record lookup and the nesting depth (a driver call inside a runtime
    // call is not the program's own); a call left out by sampling is
    // counted without reading the clock (on some hosts one read costs 20+ ns).
    if let (Some(s), 0) = (st, flags & (CALLS | TIMELINE | SUBSCRIBERS | RECORDER)) {
        let depth = s.depth.load(Relaxed);
        if !site.included.load(Relaxed) || (site.driver && depth > 0) {
            s.depth.store(depth + 1, Relaxed);
            let r = run();
            s.depth.store(depth, Relaxed);
            return r;
        }
        let rec = s.site_stats(id);
        s.depth.store(depth + 1, Relaxed);
        let r = if !rec.time_next() {
            let r = run();
            rec.add_untimed(stat_code(status_of(&r).0, fault_mark()));
            r
        } else {
            let t0 = clock::ticks();
            let r = run();
            rec.add(clock::elapsed(t0), stat_code(status_of(&r).0, fault_mark()));
            r
        };
        s.depth.store(depth, Relaxed);
        return r;
    }
    // The recorder alone (the mode meant to stay on): time the call and
    // put it in the thread's ring; nothing else.
    if let (Some(s), RECORDER) = (st, flags & !CONFIGURED) {
        let depth = s.depth.load(Relaxed);
        s.depth.store(depth + 1, Relaxed);
        let t0 = clock::ticks();
        let r = run();
        let dt = clock::elapsed(t0);
        s.depth.store(depth, Relaxed);
        recorder::record(&s.ring, s.tid.load(Relaxed), id, depth, (t0, dt), status_of(&r).0, args);
        return r;
    }
    let depth = st.map_or(0, |s| {
        let d = s.depth.load(Relaxed);
        s.depth.store(d + 1, Relaxed);
        d
    });
    // The thread's id as subscribers see it (kept in its state: no system call).
    let tid = || st.map_or_else(gettid, |s| s.tid.load(Relaxed));
    if flags & SUBSCRIBERS != 0 {
        subscribe::notify(id, tid(), depth, args, None);
    }
    // GPU work this call starts is linked to it (timeline and gpu on).
    let launch = gpu::begin_launch(id);
    let t0 = clock::ticks();
    let r = run();
    let dt = clock::elapsed(t0);
    let fault = fault_mark();
    gpu::end_launch(launch);
    let status = status_of(&r);
    // What the call changed in the ledger (the one source of memory
    // accounting; it leaves events while the timeline is on).
    let memory = if flags & TIMELINE != 0 { crate::ledger::take_event() } else { None };
    let included = site.included.load(Relaxed);
    if included || memory.is_some() {
        let ev = (t0, dt, launch as i64);
        // The call and its memory event, in every output or in none (the
        // exit rule, [`recorded`]).
        let both = |s: &ThreadState| {
            recorded(s, || {
                if included {
                    record(s, id, flags, depth, ev, (status, fault), args);
                }
                if let Some(m) = &memory {
                    memory_event(s, m, t0 + dt);
                }
            })
        };
        match st {
            Some(s) => both(s),
            None => with_late_state(both),
        }
    }
    if flags & SUBSCRIBERS != 0 {
        subscribe::notify(id, tid(), depth, args, Some((status, dt)));
    }
    if flags & RECORDER != 0
        && let Some(s) = st
    {
        recorder::record(&s.ring, s.tid.load(Relaxed), id, depth, (t0, dt), status.0, args);
    }
    // Calls made by exit callbacks above still count as nested.
    if let Some(s) = st {
        s.depth.store(depth, Relaxed);
    }
    r
}

/// Hand one finished call to the enabled outputs (with the call log, the
/// timeline or subscribers on; statistics alone are kept in [`traced`]).
#[allow(clippy::too_many_arguments)]
#[inline]
fn record(s: &ThreadState, id: u32, flags: u32, depth: u32, ev: (u64, u64, i64), (status, fault): (cudaError_t, Option<&'static str>), args: &dyn Fn(&mut CallArgs)) {
    // A driver call inside a runtime call is not the program's own.
    if flags & (SUMMARY | COUNT) != 0 && !(depth > 0 && is_driver(id)) {
        s.site_stats(id).add(ev.1, stat_code(status.0, fault));
    }
    if flags & (CALLS | TIMELINE) != 0 {
        record_events(s, id, flags, depth, ev, (status, fault), args);
    }
}

/// The error codes of calls failed by an injected fault are kept apart in
/// the statistics (this bit set), and shown as `NAME (injected)`.
pub const INJECTED: i32 = 1 << 30;

/// The mark the faults stage left on the call just run (faults on only).
#[inline(always)]
fn fault_mark() -> Option<&'static str> {
    if crate::control::switch::bits() & crate::control::switch::FAULTS == 0 {
        return None;
    }
    crate::control::faults::take_mark()
}

#[inline(always)]
fn stat_code(code: i32, fault: Option<&str>) -> i32 {
    if code != 0 && fault.is_some() { code | INJECTED } else { code }
}

/// A fault mark as an argument of the call (`fault=SPEC` in the call log,
/// `fault` in the timeline event's arguments).
struct FaultArg(&'static str);

impl TraceArg for FaultArg {
    fn trace(&self, out: &mut String) {
        out.push_str(self.0);
    }
    fn raw(&self, _: bool) -> Option<args::Raw> {
        fn write(a: u64, b: u64, out: &mut String) {
            // SAFETY: `a`/`b` are a fault spec's text, which lives as long as the process.
            out.push_str(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(a as *const u8, b as usize)) });
        }
        Some(args::Raw { a: self.0.as_ptr() as u64, b: self.0.len() as u64, fmt: write })
    }
}

/// The call log line and the timeline event of one call, from one capture
/// of its arguments. `ev`: start, duration, and the external correlation
/// id of the GPU work it launched (0: none).
#[inline(never)]
fn record_events(s: &ThreadState, id: u32, flags: u32, depth: u32, (t0, dt, launch): (u64, u64, i64), (status, fault): (cudaError_t, Option<&'static str>), args: &dyn Fn(&mut CallArgs)) {
    let mut captured = CallArgs::new(status.is_success());
    args(&mut captured);
    if let Some(f) = fault {
        captured.arg("fault", false, &FaultArg(f));
    }
    if flags & CALLS != 0 {
        call_line(s, id, depth, dt, status, &captured);
    }
    if flags & TIMELINE != 0 {
        timeline::push(&s.lane, event::Event::new(id, depth, event::KIND_CALL, status.0, t0, dt, launch), &captured);
    }
}

/// The timeline event of a ledger change made by the call that returned
/// at `t`, after the call's own event.
#[cold]
#[inline(never)]
fn memory_event(s: &ThreadState, m: &crate::ledger::MemEvent, t: u64) {
    timeline::push(&s.lane, m.event(t), &CallArgs::new(false));
}

/// Set by the final flush before it reads any output: a call that has not
/// been recorded by then is recorded in none (the exit rule, [`recorded`]).
static CUT: AtomicBool = AtomicBool::new(false);

/// The exit rule (docs/RELIABILITY.md): a finished call is in every output
/// (summary, call log, timeline) or in none. `put` records it in each;
/// it runs only if the final flush has not begun, and the final flush
/// waits for a `put` that runs ([`cut_recording`]), so no output reads
/// before it and another after it. A call still running when the final
/// flush begins (another thread's, at `exit()`) is in none.
///
/// Dekker's pattern: the flag store and the `CUT` load here, the `CUT`
/// store and the flag loads there, each pair ordered by a full fence.
/// One uncontended fence per recorded call, on the paths that write call
/// lines or events (not on the statistics-only path, whose one output is
/// read in one place).
#[inline]
fn recorded(s: &ThreadState, put: impl FnOnce()) {
    s.recording.store(true, Relaxed);
    std::sync::atomic::fence(SeqCst);
    if !CUT.load(Relaxed) {
        put();
    }
    s.recording.store(false, Release);
}

/// The final flush's side of [`recorded`]: stop recording, then wait for
/// the calls being recorded (a few microseconds each). Bounded: a thread
/// stopped inside `put` (by a debugger, or blocked writing a call line to
/// a full pipe) holds the flush at most 2 s, and its call may then be in
/// some outputs only.
fn cut_recording() {
    CUT.store(true, Relaxed);
    std::sync::atomic::fence(SeqCst);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    // This thread's own recording, if a signal handler calls exit() inside
    // it, cannot finish while we wait: not waited for.
    let me = CURRENT.try_with(Cell::get).unwrap_or(std::ptr::null());
    for s in all_states().into_iter().filter(|s| !std::ptr::eq(*s, me)) {
        while s.recording.load(Acquire) {
            if std::time::Instant::now() > deadline {
                log::warn!("tracing: a thread is still recording a call after 2 s; the outputs may disagree on that call");
                return;
            }
            std::thread::yield_now();
        }
    }
}

#[cold]
#[inline(never)]
fn call_line(s: &ThreadState, id: u32, depth: u32, dt: u64, status: cudaError_t, args: &CallArgs) {
    if !WORK.load(Acquire) {
        // Held until the first work (the module note). Checked again under
        // the lock that `first_work` takes after setting WORK: a line is
        // either held and written by it, or written here.
        let mut early = lock(&EARLY_LINES);
        if !WORK.load(Relaxed) {
            write_call_line(&mut early, (s.tid.load(Relaxed), depth), id, status.0, dt, nvtx::innermost, |l| args.write_line(l));
            return;
        }
    }
    let fd = OUTPUTS.calls().fd();
    let write = |line: &mut String| {
        line.clear();
        write_call_line(line, (s.tid.load(Relaxed), depth), id, status.0, dt, nvtx::innermost, |l| args.write_line(l));
        output::write_all(fd, line.as_bytes());
    };
    match s.line.try_lock() {
        Ok(mut line) => write(&mut line),
        Err(_) => write(&mut String::new()),
    }
}

/// One call log line: `[cudart-shim] tid=T [range="R" ][nested=D ]name(args) = result
/// (N ns)` (`range`: the thread's innermost NVTX range, for the call log).
/// Shared by the call log and the recorder's dump; writes
/// through `core::fmt` into `line` only (no allocation when it has room).
pub(crate) fn write_call_line(line: &mut String, (tid, depth): (i32, u32), id: u32, status: i32, dt: u64, range: impl FnOnce(&mut String), args: impl FnOnce(&mut String)) {
    use std::fmt::Write;
    line.push_str("[cudart-shim] tid=");
    args::push_int(line, tid);
    line.push(' ');
    range(line);
    if depth > 0 {
        let _ = write!(line, "nested={depth} ");
    }
    line.push_str(site_name(id));
    line.push('(');
    args(line);
    line.push_str(") = ");
    status_name(id, status, line);
    let _ = writeln!(line, " ({} ns)", clock::to_ns(dt));
}

/// The result to show for an export that returns a value: the value itself
/// when it is a `cudaError_t` (`cudaGetLastError`...), else success.
pub fn status_of_value<T: 'static>(r: &T) -> cudaError_t {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<cudaError_t>() {
        // SAFETY: T is cudaError_t.
        unsafe { *(r as *const T as *const cudaError_t) }
    } else {
        crate::types::cudaSuccess
    }
}

// ---- reading, flushing, exit --------------------------------------------

fn all_states() -> Vec<&'static ThreadState> {
    STATES.lock().clone()
}

/// Function `id`'s statistics over every thread (ticks).
pub fn merged(id: u32) -> Agg {
    merged_over(&all_states(), id)
}

/// Function `id`'s statistics over the thread states `states` (ticks).
fn merged_over(states: &[&'static ThreadState], id: u32) -> Agg {
    let mut a = Agg::new();
    for s in states {
        let p = s.stats[id as usize].load(Acquire);
        if !p.is_null() {
            // SAFETY: leaked records.
            unsafe { &*p }.merge_into(&mut a);
        }
    }
    a
}

/// The summary over every included function with at least one call.
pub fn summary() -> table::Summary {
    let states = all_states();
    let mut sum = table::Summary::default();
    let k = clock::ns_per_tick();
    for id in 0..site_count() {
        let site = SITES[id as usize].load(Acquire);
        // SAFETY: registered sites are statics.
        if site.is_null() || !unsafe { &*site }.included.load(Relaxed) {
            continue;
        }
        let a = merged_over(&states, id);
        if a.calls == 0 {
            continue;
        }
        let name = site_name(id).to_owned();
        let (total_ns, med_ns, min_ns, max_ns, stddev_ns) = a.ns_figures(k);
        sum.rows.push(table::Row { name: name.clone(), calls: a.calls, total_ns, med_ns, min_ns, max_ns, stddev_ns });
        for (&code, &n) in &a.errors {
            let mut error = String::new();
            if code == -1 {
                error.push_str("(other errors)");
            } else {
                status_name(id, code & !INJECTED, &mut error);
                if code & INJECTED != 0 {
                    error.push_str(" (injected)");
                }
            }
            sum.errors.push(table::ErrRow { name: name.clone(), error, calls: n });
        }
    }
    sum.timed_one_in = stats::SAMPLE_EVERY.load(Relaxed);
    sum.sort();
    sum
}

static FLUSHING: Mutex<()> = Mutex::new(());
static EXITED: AtomicU8 = AtomicU8::new(0);

/// Write the summary and every pending timeline event now.
pub fn flush() {
    recorder::flush();
    flush_impl(false);
}

fn flush_impl(last: bool) {
    let flags = FLAGS.load(Relaxed);
    if flags <= CONFIGURED && !gpu::on() {
        return;
    }
    let Some(_g) = FLUSHING.try_lock_for(std::time::Duration::from_secs(if last { 5 } else { 60 })) else { return };
    if last {
        cut_recording();
    }
    // Before the timeline closes: GPU slices are written to it.
    gpu::flush();
    if flags & TIMELINE != 0 {
        let lanes: Vec<&timeline::Lane> = all_states().into_iter().map(|s| &s.lane).collect();
        timeline::flush(&lanes, last);
    }
    if flags & SUMMARY != 0 || gpu::on() {
        write_summary(flags & SUMMARY != 0);
    }
    if flags & CALLS != 0
        && let Some(calls) = OUTPUTS.calls.get()
    {
        calls.note_process(if last { "call log ends" } else { "flush" });
    }
    if last && let Some(f) = AFTER_LAST_FLUSH.get() {
        f();
    }
}

/// What runs after the final flush (the metrics' last textfile, which must
/// see the GPU records that flush took). Set once, from above this layer.
static AFTER_LAST_FLUSH: OnceLock<fn()> = OnceLock::new();

/// Register [`AFTER_LAST_FLUSH`].
pub fn set_after_last_flush(f: fn()) {
    let _ = AFTER_LAST_FLUSH.set(f);
}

/// Lines another part of the library adds under the text summary (the
/// caching allocator's statistics). Set once.
static SUMMARY_EXTRA: std::sync::OnceLock<fn() -> String> = std::sync::OnceLock::new();

/// Register the extra summary lines (see [`SUMMARY_EXTRA`]).
pub fn set_summary_extra(f: fn() -> String) {
    let _ = SUMMARY_EXTRA.set(f);
}

fn summary_text(s: &table::Summary) -> String {
    let mut t = s.to_text();
    if let Some(f) = SUMMARY_EXTRA.get() {
        t.push_str(&f());
    }
    t
}

/// Write the API summary (`api`) and the GPU tables (GPU activity on) to
/// the summary's destination, in the format its name asks for.
fn write_summary(api: bool) {
    let g = gpu::on().then(gpu::summary);
    // A process that made no call besides registration, and whose GPU ran
    // nothing, writes no summary, not even on stderr (the module note).
    // Capture windows: calls outside them are not recorded, so a process
    // whose windows never opened still says so.
    if !WORK.load(Relaxed) && g.as_ref().is_none_or(|g| g.is_empty()) && !window::ruled() {
        return;
    }
    let o = &OUTPUTS;
    let in_calls = o.summary_in_calls();
    let mut s = if api { summary() } else { table::Summary::default() };
    if in_calls || o.summary().path().is_some() {
        s.process = Some(event::process::record());
    }
    let nv = nvtx::any().then(nvtx::summary);
    // The projection needs launch links (GPU activity with the timeline).
    let proj = (nvtx::any() && gpu::on()).then(nvtx::gpu_projection).filter(|p| !p.is_empty());
    // No empty tables on stderr, and a forked child that made no call
    // (a worker process) leaves its parent's summary file alone.
    let empty = s.rows.is_empty() && g.as_ref().is_none_or(|g| g.is_empty()) && nv.as_ref().is_none_or(|n| n.is_empty());
    if empty && (FORKED_CHILD.load(Relaxed) || in_calls || o.summary().path().is_none()) {
        return;
    }
    let described = window::describe();
    let windows = described.as_ref().map(|w| format!("\n Capture windows: {w}\n")).unwrap_or_default();
    // In JSON, the windows as `capture_windows` (what `cudart-shim trace`
    // reads back to say which windows the API table covers).
    let with_windows = |m: &mut serde_json::Map<String, serde_json::Value>| {
        if let Some(w) = &described {
            m.insert("capture_windows".into(), w.clone().into());
        }
    };
    let render = |path: Option<&str>| -> String {
        let (csv, json) = (path.is_some_and(|p| p.ends_with(".csv")), path.is_some_and(|p| p.ends_with(".json")));
        let Some(g) = &g else {
            let Some(n) = &nv else {
                return match () {
                    _ if json && described.is_some() => {
                        let mut j: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap_or_default();
                        if let Some(m) = j.as_object_mut() {
                            with_windows(m);
                        }
                        serde_json::to_string_pretty(&j).unwrap_or_default() + "\n"
                    }
                    _ if csv || json => s.render_for(path),
                    _ => summary_text(&s) + &windows,
                };
            };
            return match () {
                _ if json => {
                    let mut j: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap_or_default();
                    if let Some(m) = j.as_object_mut() {
                        m.extend(n.json_members());
                        with_windows(m);
                    }
                    serde_json::to_string_pretty(&j).unwrap_or_default() + "\n"
                }
                _ if csv => (if s.rows.is_empty() { String::new() } else { s.to_csv() + "\n" }) + &n.to_csv(),
                _ => (if api { summary_text(&s) } else { String::new() }) + &windows + &n.to_text(),
            };
        };
        match path {
            Some(p) if p.ends_with(".json") => {
                let mut j: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap_or_default();
                if let Some(m) = j.as_object_mut() {
                    m.extend(g.json_members());
                    with_windows(m);
                    if let Some(n) = &nv {
                        m.extend(n.json_members());
                    }
                    if let Some(p) = &proj {
                        m.extend(p.json_members());
                    }
                }
                serde_json::to_string_pretty(&j).unwrap_or_default() + "\n"
            }
            Some(p) if p.ends_with(".csv") => {
                let api = if s.rows.is_empty() { String::new() } else { s.to_csv() + "\n" };
                api + &g.to_csv()
                    + &nv.as_ref().map(|n| "\n".to_owned() + &n.to_csv()).unwrap_or_default()
                    + &proj.as_ref().map(|p| "\n".to_owned() + &p.to_csv()).unwrap_or_default()
            }
            _ => {
                let api = if api { summary_text(&s) } else { String::new() };
                api + &windows
                    + &g.to_text()
                    + &gpu::notes()
                    + &nv.as_ref().map(|n| n.to_text()).unwrap_or_default()
                    + &proj.as_ref().map(|p| p.to_text()).unwrap_or_default()
            }
        }
    };
    if in_calls {
        let calls = o.calls();
        let text = if g.is_some() || nv.is_some() || described.is_some() { render(calls.path()) } else { s.render_for(calls.path()) };
        output::write_all(calls.fd(), text.as_bytes());
        return;
    }
    match o.summary().path() {
        None => output::write_all(2, render(None).as_bytes()),
        Some(p) => match output::create(p, false) {
            Ok(f) => {
                use std::os::fd::AsRawFd;
                output::write_all(f.as_raw_fd(), render(Some(p)).as_bytes());
            }
            Err(e) => log::warn!("cannot write the summary to {p:?} ({e})"),
        },
    }
}

/// The final flush (see the module note). Runs once.
extern "C" fn at_exit() {
    if EXITED.swap(1, AcqRel) == 0 && (FLAGS.load(Relaxed) > CONFIGURED || gpu::on()) {
        let _ = std::panic::catch_unwind(|| flush_impl(true));
    }
    // This also runs when the library is unloaded (dlclose): no thread may
    // call `retire` once its code is unmapped. A deleted key's destructor
    // is not called; the states it held are not recycled (the process is
    // ending, or the library is gone).
    if let Some(Some(k)) = RETIRE_KEY.get() {
        // SAFETY: a key we created.
        unsafe { libc::pthread_key_delete(*k) };
    }
}

#[used]
#[unsafe(link_section = ".fini_array")]
static AT_EXIT: extern "C" fn() = at_exit;
