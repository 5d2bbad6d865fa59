//! The CUPTI multiplexer: one real Activity API session, two owners.
//!
//! CUPTI 13's Activity API is process-wide (one pair of buffer callbacks,
//! one enabled set, one timestamp callback; `cuptiSubscribe` refuses a
//! second subscriber, and the per-subscriber `_v2` calls of CUPTI 13.5 do
//! not exist in the CUPTI 13.0 that PyTorch ships): docs/GPU-ACTIVITY.md,
//! "Sharing CUPTI". So this module owns the one real registration and
//! serves two owners:
//!
//! - the **tool**: cudart-shim's own GPU tracing (`super`), which gets each
//!   record of the kinds it enabled as a slice, in the buffer-completed
//!   callback, before the buffer goes back to the pool;
//! - the **app**: the program's own CUPTI user (PyTorch's profiler), whose
//!   Activity API calls reach [`TABLE`] through `libcudart_shim_cupti.so`
//!   (cupti-front/, preloaded beside us; what the two hand each other is
//!   [`super::front_abi`], one file compiled into both, checked across
//!   builds). It keeps its own callbacks,
//!   enabled kinds and buffers: every record of a kind it enabled is
//!   copied, byte for byte in CUPTI's layout, into buffers its own
//!   buffer-requested callback gave, and handed back through its own
//!   buffer-completed callback.
//!
//! Invariants:
//! - CUPTI's enabled set is the union of both owners'; an owner's disable
//!   reaches CUPTI only when the other does not want the kind.
//! - A record goes to an owner iff the owner had its kind enabled when the
//!   record was taken from CUPTI; so an app's enable or disable of a kind
//!   the tool also collects first flushes CUPTI (forced): the records made
//!   before the change are routed as the sets were when they were made.
//! - Records for the app are staged, then copied into its buffers outside
//!   any lock of ours, and never from inside one of the app's own calls
//!   except its flush (as CUPTI, which calls the buffer callbacks from its
//!   own thread or from the flush); never at our exit.
//! - Our external correlation records (kind CUSTOM2) are the tool's; the
//!   other external kinds are the app's.
//! - The app's buffers that CUPTI still held when the multiplexer took
//!   over go back to the app whole.
//! - The app's `cuptiFinalize` ends the app's session only.

use super::cupti::{self, Cupti};
use super::record as r;
use std::cell::Cell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

pub use super::front_abi::{Completed, Requested, Timestamp};
use super::front_abi::{self as abi, AppState, MuxTable, INVALID_PARAMETER};

/// Each buffer handed to CUPTI.
const BUFFER_BYTES: usize = 4 << 20;
/// Records held for the app that it has not taken yet, at most (beyond:
/// counted as dropped for it, as CUPTI drops records without buffers).
const STAGED_MAX_BYTES: usize = 256 << 20;

static TABLE: MuxTable = MuxTable {
    abi: abi::ABI_VERSION,
    register_callbacks: app_register_callbacks,
    register_timestamp: app_register_timestamp,
    enable: app_enable,
    disable: app_disable,
    enable_driver_api: app_enable_driver_api,
    enable_runtime_api: app_enable_runtime_api,
    flush_all: app_flush_all,
    next_record: app_next_record,
    dropped: app_dropped,
    finalize: app_finalize,
};

static CUPTI: OnceLock<&'static Cupti> = OnceLock::new();
/// Where the tool's records go (`super::take`); unset: the tool is off.
static TOOL: OnceLock<fn(&[&[u8]])> = OnceLock::new();
static TOOL_ON: AtomicBool = AtomicBool::new(false);
/// Kinds each owner enabled (bit per kind, kinds < 128).
static TOOL_KINDS: [AtomicU64; 2] = [const { AtomicU64::new(0) }; 2];
static APP_KINDS: [AtomicU64; 2] = [const { AtomicU64::new(0) }; 2];
/// The tool's driver API callback ids (launch links), re-applied after an
/// app's disable of DRIVER records.
static TOOL_CBIDS: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// The app's calls reach us (the front is in the process).
static SHARED: AtomicBool = AtomicBool::new(false);
/// At exit: no more deliveries to the app (its objects may be gone).
static EXITING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// >0 while this thread is inside one of the app's CUPTI calls (or ours).
    static IN_CALL: Cell<u32> = const { Cell::new(0) };
}

/// The app's side of the session.
#[derive(Default)]
struct App {
    requested: Option<Requested>,
    completed: Option<Completed>,
    timestamp: Option<Timestamp>,
    driver_cbids: HashSet<u32>,
    runtime_cbids: HashSet<u32>,
    /// Records taken from CUPTI for the app, not yet in its buffers.
    staged: VecDeque<Box<[u8]>>,
    staged_bytes: usize,
    /// The app buffer being filled: pointer, size, used, records limit,
    /// record offsets.
    cur: Option<AppBuf>,
    /// App buffers we filled and handed back: record offsets, for its
    /// `cuptiActivityGetNextRecord`.
    delivered: HashMap<usize, Vec<u32>>,
    dropped: usize,
}

struct AppBuf {
    ptr: *mut u8,
    size: usize,
    used: usize,
    max_records: usize,
    offsets: Vec<u32>,
}
// SAFETY: a buffer the app gave us; only touched under APP's lock, one owner at a time.
unsafe impl Send for AppBuf {}

static APP: Mutex<Option<App>> = Mutex::new(None);
/// Held by whoever copies staged records into the app's buffers.
static PUMP: Mutex<()> = Mutex::new(());
/// Our buffers out at CUPTI (by address), and spares for reuse.
static OURS: Mutex<Option<HashSet<usize>>> = Mutex::new(None);
static POOL: Mutex<Vec<Box<[u64]>>> = Mutex::new(Vec::new());
static DROPPED: AtomicU64 = AtomicU64::new(0);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    super::super::lock(m)
}

fn has(bits: &[AtomicU64; 2], kind: u32) -> bool {
    kind < 128 && bits[(kind / 64) as usize].load(Relaxed) & (1 << (kind % 64)) != 0
}

fn set(bits: &[AtomicU64; 2], kind: u32, on: bool) {
    if kind < 128 {
        let b = 1u64 << (kind % 64);
        if on {
            bits[(kind / 64) as usize].fetch_or(b, Relaxed);
        } else {
            bits[(kind / 64) as usize].fetch_and(!b, Relaxed);
        }
    }
}

/// Runs `f` marked as inside a CUPTI call of ours on this thread.
fn in_call<T>(f: impl FnOnce() -> T) -> T {
    let _ = IN_CALL.try_with(|c| c.set(c.get() + 1));
    let out = f();
    let _ = IN_CALL.try_with(|c| c.set(c.get().saturating_sub(1)));
    out
}

fn inside() -> bool {
    IN_CALL.try_with(|c| c.get() > 0).unwrap_or(true)
}

/// Records CUPTI dropped for lack of buffer space.
pub fn dropped() -> u64 {
    DROPPED.load(Relaxed)
}

/// Whether the program's CUPTI calls are shared with us (the front is in).
pub fn shared() -> bool {
    SHARED.load(Relaxed)
}

/// Take the real CUPTI session: install the app side (when the front is
/// in the process) and register our buffer callbacks. `take` receives the
/// tool's records. The app's timestamp callback, when it registered one,
/// stays CUPTI's clock: returned, for the tool to convert from.
pub fn start(c: &'static Cupti, take: fn(&[&[u8]])) -> Result<Option<Timestamp>, String> {
    let _ = CUPTI.set(c);
    let _ = TOOL.set(take);
    let mut app = App::default();
    let mut front = AppState::EMPTY;
    if install_front(&mut front) {
        SHARED.store(true, Relaxed);
        app.requested = front.requested;
        app.completed = front.completed;
        app.timestamp = front.timestamp;
        for (w, &k) in APP_KINDS.iter().zip(&front.kinds) {
            w.store(k, Relaxed);
        }
        app.driver_cbids = bits(&front.driver_cbids);
        app.runtime_cbids = bits(&front.runtime_cbids);
        if app.requested.is_some() {
            log::debug!("GPU activity: the program's CUPTI user started first; its session is shared from here on");
        }
    }
    let ts = app.timestamp;
    *lock(&APP) = Some(app);
    // SAFETY: CUPTI's function with our callbacks, which stay mapped.
    let r = in_call(|| unsafe { (c.register_callbacks)(requested, completed) });
    if r != cupti::SUCCESS {
        return Err(format!("cuptiActivityRegisterCallbacks failed ({})", c.error(r)));
    }
    TOOL_ON.store(true, Relaxed);
    Ok(ts)
}

fn bits(words: &[u64]) -> HashSet<u32> {
    (0..words.len() as u32 * 64).filter(|&i| words[(i / 64) as usize] & (1 << (i % 64)) != 0).collect()
}

/// Whether `libcudart_shim_cupti.so` (the front) is in the process and
/// of this build's layout (a front of another one: one warning, and it is
/// treated as absent).
pub fn front_loaded() -> bool {
    front().is_some()
}

/// The front's install function, when the front is in the process and its
/// exported layout is ours ([`abi::check_layout`]). Looked up once: a
/// mismatch is logged once.
fn front() -> Option<abi::InstallFn> {
    static FRONT: OnceLock<Option<usize>> = OnceLock::new();
    let f = *FRONT.get_or_init(|| {
        // SAFETY: RTLD_NOLOAD loads nothing; the handle is kept, so the
        // front stays mapped while its install is used; the symbols are
        // read as the shared file declares them, after the layout check.
        unsafe {
            let h = libc::dlopen(abi::FRONT_NAME.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
            if h.is_null() {
                return None;
            }
            let layout = libc::dlsym(h, abi::LAYOUT_SYMBOL.as_ptr()).cast::<abi::Layout>();
            if let Err(why) = abi::check_layout(layout) {
                log::warn!(
                    "GPU activity: {} is of another cudart-shim build ({why}): the program's own CUPTI user (PyTorch's profiler) is not shared with our tracing; preload the {0} installed beside this libcudart_shim.so",
                    abi::FRONT_NAME.to_string_lossy()
                );
                return None;
            }
            let s = libc::dlsym(h, abi::INSTALL_SYMBOL.as_ptr());
            (!s.is_null()).then_some(s as usize)
        }
    });
    // SAFETY: the front's install export, of this build's type (layout checked).
    f.map(|p| unsafe { std::mem::transmute::<usize, abi::InstallFn>(p) })
}

/// Hand the front our table, if the front is in the process.
fn install_front(out: &mut AppState) -> bool {
    let Some(install) = front() else { return false };
    // SAFETY: our static table and a writable state.
    match unsafe { install(&TABLE, out) } {
        cupti::SUCCESS => true,
        r => {
            log::warn!(
                "GPU activity: {} refused our table ({r}; ABI {} here): the program's own CUPTI user is not shared with our tracing",
                abi::FRONT_NAME.to_string_lossy(),
                abi::ABI_VERSION
            );
            false
        }
    }
}

/// Enable `kind` for the tool.
pub fn tool_enable(kind: u32) -> cupti::CuptiResult {
    let Some(c) = CUPTI.get() else { return cupti::NOT_INITIALIZED };
    set(&TOOL_KINDS, kind, true);
    if has(&APP_KINDS, kind) {
        return cupti::SUCCESS;
    }
    // SAFETY: CUPTI's function; no pointer argument.
    let r = in_call(|| unsafe { (c.enable)(kind) });
    if r != cupti::SUCCESS {
        set(&TOOL_KINDS, kind, false);
    }
    r
}

/// Switch the tool's driver API records on for `cbids`.
pub fn tool_enable_driver_api(cbids: &[u32]) -> bool {
    let Some(f) = CUPTI.get().and_then(|c| c.enable_driver_api) else { return false };
    lock(&TOOL_CBIDS).extend_from_slice(cbids);
    for &cbid in cbids {
        // SAFETY: CUPTI's function; no pointer argument.
        in_call(|| unsafe { f(cbid, 1) });
    }
    true
}

/// A forked child: the tool takes nothing more; the app (if any) goes on.
pub fn tool_off() {
    TOOL_ON.store(false, Relaxed);
}

/// Have CUPTI hand over every record it holds (ours at exit: the app gets
/// none delivered from now on, its objects may be gone).
pub fn flush(at_exit: bool) {
    if at_exit {
        EXITING.store(true, Relaxed);
    }
    if let Some(c) = CUPTI.get() {
        // SAFETY: CUPTI's function; no pointer argument.
        unsafe { (c.flush_all)(cupti::FLUSH_FORCED) };
    }
}

// ---- CUPTI's callbacks ----------------------------------------------------

unsafe extern "C" fn requested(buf: *mut *mut u8, size: *mut usize, max_records: *mut usize) {
    let _ = std::panic::catch_unwind(|| {
        // 8-byte aligned, as CUPTI requires.
        let b = lock(&POOL).pop().unwrap_or_else(|| vec![0u64; BUFFER_BYTES / 8].into_boxed_slice());
        let len = b.len() * 8;
        let p = Box::into_raw(b).cast::<u8>();
        lock(&OURS).get_or_insert_with(HashSet::new).insert(p as usize);
        // SAFETY: CUPTI passes writable out-pointers.
        unsafe {
            *size = len;
            *max_records = 0;
            *buf = p;
        }
    });
}

unsafe extern "C" fn completed(ctx: *mut c_void, stream: u32, buf: *mut u8, size: usize, valid: usize) {
    if buf.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        let ours = lock(&OURS).as_mut().is_some_and(|s| s.remove(&(buf as usize)));
        let spans = records(buf, valid);
        // SAFETY: CUPTI's buffer, valid for `valid` bytes until we give it back.
        let all = |&(o, n): &(usize, usize)| unsafe { std::slice::from_raw_parts(buf.add(o), n) };
        if TOOL_ON.load(Relaxed)
            && let Some(take) = TOOL.get()
        {
            let mine: Vec<&[u8]> = spans.iter().map(all).filter(|rec| tool_wants(rec)).collect();
            take(&mine);
        }
        if ours {
            if SHARED.load(Relaxed) && any_app_kind() {
                stage(spans.iter().map(all).filter(|rec| app_wants(rec)));
            }
            if let Some(c) = CUPTI.get() {
                let mut n = 0usize;
                // SAFETY: n is writable; NULL context and stream 0: every record.
                if unsafe { (c.dropped)(std::ptr::null_mut(), 0, &mut n) } == cupti::SUCCESS {
                    DROPPED.fetch_add(n as u64, Relaxed);
                }
            }
            // SAFETY: `buf` came from `requested` (a boxed [u64] of this size).
            let b = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(buf.cast::<u64>(), size / 8)) };
            let mut pool = lock(&POOL);
            if pool.len() < 8 {
                pool.push(b);
            }
        } else {
            // The app's own buffer, given to CUPTI before we took over: back
            // to the app whole, through its callback.
            let done = lock(&APP).as_ref().and_then(|a| a.completed);
            if let Some(f) = done {
                // SAFETY: the app's callback with the app's buffer.
                unsafe { f(ctx, stream, buf, size, valid) };
            }
        }
        if !inside() && !EXITING.load(Relaxed) {
            pump(false, false);
        }
    });
}

/// Offsets and lengths of the records in a CUPTI buffer: a record runs to
/// the next one (or to the end of the valid bytes), padding included, so
/// a copy keeps CUPTI's layout whatever the kind.
fn records(buf: *mut u8, valid: usize) -> Vec<(usize, usize)> {
    let Some(c) = CUPTI.get() else { return Vec::new() };
    let mut starts = Vec::new();
    let mut rec: *mut u8 = std::ptr::null_mut();
    // SAFETY: CUPTI walks its own buffer.
    while in_call(|| unsafe { (c.next_record)(buf, valid, &mut rec) }) == cupti::SUCCESS && !rec.is_null() {
        // SAFETY: rec points into buf.
        starts.push(unsafe { rec.offset_from(buf) } as usize);
    }
    let mut out = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(valid).min(valid);
        if end > s + 4 {
            out.push((s, end - s));
        }
    }
    out
}

fn tool_wants(rec: &[u8]) -> bool {
    let kind = r::u32_at(rec, 0);
    match kind {
        r::KIND_EXTERNAL_CORRELATION => has(&TOOL_KINDS, kind) && r::u32_at(rec, r::external::EXTERNAL_KIND) == r::EXTERNAL_KIND,
        r::KIND_KERNEL => has(&TOOL_KINDS, r::KIND_CONCURRENT_KERNEL) || has(&TOOL_KINDS, kind),
        _ => has(&TOOL_KINDS, kind) && r::size_of_kind(kind).is_some(),
    }
}

fn any_app_kind() -> bool {
    APP_KINDS.iter().any(|w| w.load(Relaxed) != 0) || lock(&APP).as_ref().is_some_and(|a| !a.driver_cbids.is_empty() || !a.runtime_cbids.is_empty())
}

/// `CUpti_ActivityAPI`'s callback id (kinds DRIVER and RUNTIME).
const API_CBID: usize = 4;
const KIND_RUNTIME: u32 = 5;

fn app_wants(rec: &[u8]) -> bool {
    let kind = r::u32_at(rec, 0);
    match kind {
        r::KIND_EXTERNAL_CORRELATION => has(&APP_KINDS, kind) && r::u32_at(rec, r::external::EXTERNAL_KIND) != r::EXTERNAL_KIND,
        r::KIND_DRIVER | KIND_RUNTIME => {
            has(&APP_KINDS, kind)
                || lock(&APP).as_ref().is_some_and(|a| {
                    let set = if kind == r::KIND_DRIVER { &a.driver_cbids } else { &a.runtime_cbids };
                    set.contains(&r::u32_at(rec, API_CBID))
                })
        }
        _ => has(&APP_KINDS, kind),
    }
}

fn stage<'a>(recs: impl Iterator<Item = &'a [u8]>) {
    let mut g = lock(&APP);
    let Some(a) = g.as_mut() else { return };
    for rec in recs {
        if a.staged_bytes + rec.len() > STAGED_MAX_BYTES {
            a.dropped += 1;
            continue;
        }
        a.staged_bytes += rec.len();
        a.staged.push_back(rec.into());
    }
}

/// Copy staged records into the app's buffers and hand full ones back
/// (with `partial`, the last one too). The app's callbacks are called
/// with no lock of ours held but PUMP. `wait`: wait for another pumper
/// (the app's flush), else leave the records to it.
fn pump(partial: bool, wait: bool) {
    let _p = if wait {
        lock(&PUMP)
    } else {
        match PUMP.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        }
    };
    loop {
        let mut g = lock(&APP);
        let Some(a) = g.as_mut() else { return };
        let (Some(req), Some(done)) = (a.requested, a.completed) else { return };
        if a.staged.is_empty() && !(partial && a.cur.as_ref().is_some_and(|b| !b.offsets.is_empty())) {
            return;
        }
        if a.cur.is_none() {
            drop(g);
            let (mut ptr, mut size, mut max) = (std::ptr::null_mut(), 0usize, 0usize);
            // SAFETY: the app's callback with writable out-pointers.
            unsafe { req(&mut ptr, &mut size, &mut max) };
            g = lock(&APP);
            let Some(a) = g.as_mut() else { return };
            if ptr.is_null() || size == 0 {
                // Declined: CUPTI drops the records then.
                a.dropped += a.staged.len();
                a.staged.clear();
                a.staged_bytes = 0;
                return;
            }
            a.cur = Some(AppBuf { ptr, size, used: 0, max_records: max, offsets: Vec::new() });
            continue;
        }
        let full = {
            let b = a.cur.as_mut().expect("current buffer");
            while let Some(rec) = a.staged.front() {
                let need = rec.len().div_ceil(8) * 8;
                if b.used + need > b.size || (b.max_records > 0 && b.offsets.len() >= b.max_records) {
                    break;
                }
                // SAFETY: `need` bytes from `used` lie inside the app's buffer.
                unsafe { std::ptr::copy_nonoverlapping(rec.as_ptr(), b.ptr.add(b.used), rec.len()) };
                b.offsets.push(b.used as u32);
                b.used += need;
                a.staged_bytes -= rec.len();
                a.staged.pop_front();
            }
            if b.offsets.is_empty() && !a.staged.is_empty() {
                // A record larger than the app's whole buffer.
                a.staged.pop_front();
                a.dropped += 1;
                continue;
            }
            !a.staged.is_empty() || partial
        };
        if !full {
            return;
        }
        let b = a.cur.take().expect("current buffer");
        if a.delivered.len() > 4096 {
            a.delivered.clear();
        }
        a.delivered.insert(b.ptr as usize, b.offsets);
        drop(g);
        // SAFETY: the app's callback with its own buffer, `used` bytes valid.
        unsafe { done(std::ptr::null_mut(), 0, b.ptr, b.size, b.used) };
        if partial && lock(&APP).as_ref().is_some_and(|a| a.staged.is_empty()) {
            return;
        }
    }
}

// ---- the app's calls (through cupti-front) --------------------------------

fn cupti_or_err() -> Result<&'static Cupti, c_int> {
    CUPTI.get().copied().ok_or(cupti::NOT_INITIALIZED)
}

/// Our boundary for the app's calls: no panic crosses it.
fn guard(f: impl FnOnce() -> c_int) -> c_int {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| in_call(f))).unwrap_or(cupti::UNKNOWN)
}

unsafe extern "C" fn app_register_callbacks(req: Option<Requested>, done: Option<Completed>) -> c_int {
    guard(|| {
        let (Some(req), Some(done)) = (req, done) else { return INVALID_PARAMETER };
        if let Some(a) = lock(&APP).as_mut() {
            a.requested = Some(req);
            a.completed = Some(done);
        }
        cupti::SUCCESS
    })
}

/// The app's clock becomes CUPTI's (its records must carry it); the tool
/// converts from it.
unsafe extern "C" fn app_register_timestamp(ts: Option<Timestamp>) -> c_int {
    guard(|| {
        let c = match cupti_or_err() {
            Ok(c) => c,
            Err(e) => return e,
        };
        let Some(f) = c.register_timestamp else { return cupti::NOT_INITIALIZED };
        let Some(ts) = ts else { return INVALID_PARAMETER };
        // Records stamped on the old clock are taken with the old offset.
        // SAFETY: CUPTI's functions; `ts` is the app's callback.
        unsafe { (c.flush_all)(cupti::FLUSH_FORCED) };
        // From here records may be on the new clock: ours wait for its rate.
        super::timebase::measuring(true);
        let r = unsafe { f(ts) };
        if r != cupti::SUCCESS {
            super::timebase::measuring(false);
        }
        if r == cupti::SUCCESS {
            if let Some(a) = lock(&APP).as_mut() {
                a.timestamp = Some(ts);
            }
            super::clock_from(ts);
        }
        r
    })
}

unsafe extern "C" fn app_enable(kind: u32) -> c_int {
    guard(|| {
        let c = match cupti_or_err() {
            Ok(c) => c,
            Err(e) => return e,
        };
        if has(&APP_KINDS, kind) {
            return cupti::SUCCESS;
        }
        if has(&TOOL_KINDS, kind) {
            // Records of the kind made before the app enabled it are ours
            // alone: taken from CUPTI before the app's bit is set.
            // SAFETY: CUPTI's function; no pointer argument.
            unsafe { (c.flush_all)(cupti::FLUSH_FORCED) };
        } else {
            // SAFETY: as above.
            let r = unsafe { (c.enable)(kind) };
            if r != cupti::SUCCESS {
                return r;
            }
        }
        set(&APP_KINDS, kind, true);
        cupti::SUCCESS
    })
}

unsafe extern "C" fn app_disable(kind: u32) -> c_int {
    guard(|| {
        let c = match cupti_or_err() {
            Ok(c) => c,
            Err(e) => return e,
        };
        if !has(&APP_KINDS, kind) {
            return if has(&TOOL_KINDS, kind) { cupti::SUCCESS } else { unsafe { (c.disable)(kind) } };
        }
        // The records made while the app had the kind are its: every
        // buffer, the partly filled ones too (as the app's own forced flush
        // after its disable would take them; PyTorch's profiler
        // synchronizes the device before it stops, so none is incomplete).
        // SAFETY: CUPTI's function; no pointer argument.
        unsafe { (c.flush_all)(cupti::FLUSH_FORCED) };
        set(&APP_KINDS, kind, false);
        if has(&TOOL_KINDS, kind) {
            return cupti::SUCCESS;
        }
        // SAFETY: as above.
        let r = unsafe { (c.disable)(kind) };
        if kind == r::KIND_DRIVER {
            reapply_tool_cbids(c);
        }
        r
    })
}

/// Disabling the DRIVER kind overrides the per-callback settings
/// (cupti_activity.h: the kind "overrides the settings done by"
/// `cuptiActivityEnableDriverApi`): put ours back. Measured on an H100:
/// after PyTorch's profiler stopped, the launches of the program's next
/// steps lost their arrows; each id is switched off then on, as setting an
/// id to the value CUPTI already records for it may not reach its tracing.
fn reapply_tool_cbids(c: &Cupti) {
    if let Some(f) = c.enable_driver_api {
        for &cbid in lock(&TOOL_CBIDS).iter() {
            // SAFETY: CUPTI's function; no pointer argument.
            unsafe {
                f(cbid, 0);
                f(cbid, 1);
            }
        }
    }
}

unsafe extern "C" fn app_enable_driver_api(cbid: u32, enable: u8) -> c_int {
    guard(|| {
        let Some(f) = CUPTI.get().and_then(|c| c.enable_driver_api) else { return cupti::NOT_INITIALIZED };
        let tool = lock(&TOOL_CBIDS).contains(&cbid);
        // SAFETY: CUPTI's function; no pointer argument.
        let r = unsafe { f(cbid, u8::from(enable != 0 || tool)) };
        if r == cupti::SUCCESS
            && let Some(a) = lock(&APP).as_mut()
        {
            if enable != 0 {
                a.driver_cbids.insert(cbid);
            } else {
                a.driver_cbids.remove(&cbid);
            }
        }
        r
    })
}

unsafe extern "C" fn app_enable_runtime_api(cbid: u32, enable: u8) -> c_int {
    guard(|| {
        let Some(f) = CUPTI.get().and_then(|c| c.enable_runtime_api) else { return cupti::NOT_INITIALIZED };
        // SAFETY: CUPTI's function; no pointer argument.
        let r = unsafe { f(cbid, enable) };
        if r == cupti::SUCCESS
            && let Some(a) = lock(&APP).as_mut()
        {
            if enable != 0 {
                a.runtime_cbids.insert(cbid);
            } else {
                a.runtime_cbids.remove(&cbid);
            }
        }
        r
    })
}

/// The app's flush: CUPTI's, then every record staged for the app goes
/// into its buffers and back to it, the last buffer too, before returning
/// (as CUPTI's flush does).
unsafe extern "C" fn app_flush_all(flag: u32) -> c_int {
    guard(|| {
        let c = match cupti_or_err() {
            Ok(c) => c,
            Err(e) => return e,
        };
        // SAFETY: CUPTI's function; no pointer argument.
        let r = unsafe { (c.flush_all)(flag) };
        let _ = IN_CALL.try_with(|n| {
            let depth = n.replace(0);
            pump(true, true);
            n.set(depth);
        });
        r
    })
}

unsafe extern "C" fn app_next_record(buf: *mut u8, valid: usize, rec: *mut *mut u8) -> c_int {
    guard(|| {
        if buf.is_null() || rec.is_null() {
            return INVALID_PARAMETER;
        }
        let mut g = lock(&APP);
        let Some(offsets) = g.as_mut().and_then(|a| a.delivered.get(&(buf as usize))) else {
            drop(g);
            let c = match cupti_or_err() {
                Ok(c) => c,
                Err(e) => return e,
            };
            // SAFETY: CUPTI's function with the app's arguments: a buffer CUPTI filled.
            return unsafe { (c.next_record)(buf, valid, rec) };
        };
        // SAFETY: rec is the app's cursor (checked non-null).
        let cur = unsafe { *rec };
        let i = if cur.is_null() {
            0
        } else {
            // SAFETY: cursor and buffer are the app's; compared as addresses.
            let at = (cur as usize).wrapping_sub(buf as usize) as u32;
            offsets.partition_point(|&o| o <= at)
        };
        match offsets.get(i) {
            Some(&o) if (o as usize) < valid => {
                // SAFETY: o lies inside the buffer we filled.
                unsafe { *rec = buf.add(o as usize) };
                cupti::SUCCESS
            }
            _ => {
                if let Some(a) = g.as_mut() {
                    a.delivered.remove(&(buf as usize));
                }
                cupti::MAX_LIMIT_REACHED
            }
        }
    })
}

unsafe extern "C" fn app_dropped(_ctx: *mut c_void, _stream: u32, n: *mut usize) -> c_int {
    guard(|| {
        if n.is_null() {
            return INVALID_PARAMETER;
        }
        let d = lock(&APP).as_mut().map_or(0, |a| std::mem::take(&mut a.dropped));
        // SAFETY: checked above.
        unsafe { *n = d };
        cupti::SUCCESS
    })
}

/// The app ends its session: what it enabled and we do not need goes off,
/// its callbacks are forgotten (records still staged for it are dropped,
/// as CUPTI's finalize drops them). Our session goes on.
unsafe extern "C" fn app_finalize() -> c_int {
    guard(|| {
        let c = match cupti_or_err() {
            Ok(c) => c,
            Err(e) => return e,
        };
        for kind in 0..128u32 {
            if has(&APP_KINDS, kind) {
                set(&APP_KINDS, kind, false);
                if !has(&TOOL_KINDS, kind) {
                    // SAFETY: CUPTI's function; no pointer argument.
                    unsafe { (c.disable)(kind) };
                }
            }
        }
        reapply_tool_cbids(c);
        let _p = lock(&PUMP);
        if let Some(a) = lock(&APP).as_mut() {
            if let Some(f) = c.enable_driver_api {
                for &cbid in &a.driver_cbids {
                    // SAFETY: as above.
                    unsafe { f(cbid, 0) };
                }
            }
            // Buffers already handed back stay readable: the app may walk
            // them after its finalize (PyTorch's profiler processes its
            // buffers after tearing CUPTI down).
            *a = App { timestamp: a.timestamp, delivered: std::mem::take(&mut a.delivered), ..App::default() };
        }
        reapply_tool_cbids(c);
        cupti::SUCCESS
    })
}
