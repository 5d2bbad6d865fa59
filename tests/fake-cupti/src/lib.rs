//! A fake CUPTI for cudart-shim's tests: the Activity API calls the shim
//! makes, writing records in CUPTI 13's layouts for what the fake driver
//! reports (tests/fake-driver/src/activity.rs).
//!
//! Records are written when the driver call is made (as CUPTI writes its
//! API-side records; a real GPU fills in times later): start = now, from
//! the client's timestamp callback when registered (as CUPTI converts
//! GPU times to it), and fixed durations tests can predict:
//! - kernel: 1000 ns per block of the grid;
//! - copy: 1000 ns + 1 ns per byte;
//! - memset: 500 ns + 1 ns per 2 bytes.
//!
//! Like CUPTI, the fake stamps every time in the registered clock's unit,
//! whatever it is (PyTorch's Kineto registers TSC-like ticks, about 2.1
//! per ns): when a timestamp callback is registered it measures that
//! clock's rate once against `CLOCK_MONOTONIC` (paired reads 5 ms apart),
//! rounded to 2 decimals so that durations stay predictable (a 1000-ns
//! kernel is 2100 units of a 2.1-per-ns clock, 1000 of a ns clock), and
//! writes durations as ns times that rate.
//!
//! Buffers come from the client's buffer-requested callback and go back,
//! full, through its buffer-completed callback on a worker thread of
//! ours, as CUPTI's; `cuptiActivityFlushAll` hands back every full buffer
//! (and with FLUSH_FORCED the partly filled one) before it returns.
//!
//! Process-wide, as CUPTI 13's Activity API is: one pair of buffer
//! callbacks (a second `cuptiActivityRegisterCallbacks` replaces the first,
//! and the buffers already handed out go back through the new one: the
//! "unknown buffer" of issue #27), one enabled set, one timestamp callback;
//! `cuptiSubscribe` refuses a second subscriber
//! (MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) until the first unsubscribes;
//! `cuptiFinalize` forgets the callbacks, the kinds and the buffers not yet
//! handed back. A buffer-requested callback that declines (NULL) drops the
//! record, counted by `cuptiActivityGetNumDroppedRecords` (which resets).
//!
//! A kernel the fake driver hangs (`FAKE_CUDA_HANG_KERNEL`) has not
//! finished, so its record is held back, with every record after it on its
//! stream (they cannot finish before it), until the hang ends (never
//! without `:ms`; hangs on one stream add up, as the stream runs them one
//! after the other), as CUPTI writes a kernel's record only once it ends.
//! Its external correlation record (written at the call, as CUPTI's) is not.
//!
//! Knobs: `FAKE_CUPTI_HELD=1` (cuptiSubscribe answers
//! MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: another profiler holds CUPTI);
//! `FAKE_CUPTI_RECORDS_PER_BUFFER=N` (a buffer goes back after N records);
//! `FAKE_CUPTI_FLUSH_BLOCK=1` (`cuptiActivityFlushAll` never returns, as a
//! flush may block while the GPU is hung: the watchdog's bounded wait).
#![allow(clippy::missing_safety_doc)]

#[path = "../../../src/trace/gpu/record.rs"]
mod record;

use record as r;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::*};
use std::sync::{Condvar, Mutex, MutexGuard};

type Requested = unsafe extern "C" fn(*mut *mut u8, *mut usize, *mut usize);
type Completed = unsafe extern "C" fn(*mut c_void, u32, *mut u8, usize, usize);
type Timestamp = unsafe extern "C" fn() -> u64;

const SUCCESS: c_int = 0;
const INVALID_PARAMETER: c_int = 1;
const MAX_LIMIT_REACHED: c_int = 12;
const MULTIPLE_SUBSCRIBERS: c_int = 39;

/// Same layout as the fake driver's `FakeActivity`.
#[repr(C)]
pub struct FakeActivity {
    kind: u32,
    name: *const c_char,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stream: usize,
    bytes: u64,
    copy_kind: u8,
    value: u32,
    device: c_int,
    /// Not finished for this many ms (`u64::MAX`: never); 0: at once.
    hold_ms: u64,
}

/// A record held back until its work finishes (None: never).
type Held = (Option<std::time::Instant>, Vec<u8>);

struct Buf {
    ptr: *mut u8,
    size: usize,
    used: usize,
    records: usize,
}
// SAFETY: a buffer the client gave us; one owner at a time.
unsafe impl Send for Buf {}

#[derive(Default)]
struct State {
    requested: Option<Requested>,
    completed: Option<Completed>,
    cur: Option<Buf>,
    full: VecDeque<Buf>,
    streams: HashMap<usize, u32>,
    names: HashMap<String, &'static CStr>,
    worker: bool,
    /// By stream handle, in stream order: a stream runs its work in order,
    /// so each record finishes no sooner than the one before it.
    held: HashMap<usize, VecDeque<Held>>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);
static WAKE: Condvar = Condvar::new();
/// Held while a buffer is handed back (worker or flush), taken before STATE.
static DELIVER: Mutex<()> = Mutex::new(());
static ENABLED: AtomicU64 = AtomicU64::new(0);
static TIMESTAMP: Mutex<Option<Timestamp>> = Mutex::new(None);
/// The registered clock's units per ns (f64 bits; 1.0: CUPTI's own ns).
static RATE: AtomicU64 = AtomicU64::new(0x3FF0_0000_0000_0000);
static NEXT_CORRELATION: AtomicU32 = AtomicU32::new(1);
static CONNECTED: AtomicBool = AtomicBool::new(false);
static SUBSCRIBED: AtomicBool = AtomicBool::new(false);
static DROPPED: AtomicU64 = AtomicU64::new(0);
/// Driver API records are on for some call (`cuptiActivityEnableDriverApi`):
/// as with CUPTI, external correlation records come only ahead of API records.
static API_RECORDS: AtomicBool = AtomicBool::new(false);

thread_local! {
    static EXTERNAL: RefCell<Vec<(u32, u64)>> = const { RefCell::new(Vec::new()) };
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn state() -> MutexGuard<'static, Option<State>> {
    let mut g = lock(&STATE);
    g.get_or_insert_with(State::default);
    g
}

fn knob(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}

fn enabled(kind: u32) -> bool {
    kind < 64 && ENABLED.load(Relaxed) & (1 << kind) != 0
}

fn now() -> u64 {
    if let Some(f) = *lock(&TIMESTAMP) {
        // SAFETY: the client's callback.
        return unsafe { f() };
    }
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: t is writable.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn mono_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: t is writable.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Clock `f`'s units per ns, as CUPTI measures a registered clock once:
/// (`CLOCK_MONOTONIC`, `f`) read together (the tightest of 8 bracketed
/// reads) at two moments 5 ms apart; rounded to 2 decimals (the clocks
/// tests register count 1 or 2.1 per ns: the measurement's error, and our
/// own trace clock's calibration error, up to 0.1%, never change a fixed
/// duration, so the ours-alone tests' totals stay exact).
fn measure_rate(f: Timestamp) -> f64 {
    let pair = || {
        let mut best = (u64::MAX, 0u64, 0u64);
        for _ in 0..8 {
            let a = mono_ns();
            // SAFETY: the client's callback.
            let v = unsafe { f() };
            let b = mono_ns();
            if b - a < best.0 {
                best = (b - a, a / 2 + b / 2, v);
            }
        }
        (best.1, best.2)
    };
    let (n0, v0) = pair();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let (n1, v1) = pair();
    let r = v1.wrapping_sub(v0) as i64 as f64 / (n1 - n0) as f64;
    if r.is_finite() && r > 0.0 { (r * 100.0).round() / 100.0 } else { 1.0 }
}

/// A fixed duration of `ns` nanoseconds in the clock's units.
fn units(ns: u64) -> u64 {
    (ns as f64 * f64::from_bits(RATE.load(Relaxed))).round() as u64
}

/// Append one record; full buffers go to the worker.
fn emit(rec: &[u8]) {
    let mut g = state();
    let st = g.as_mut().expect("state");
    let Some(requested) = st.requested else { return };
    let limit = knob("FAKE_CUPTI_RECORDS_PER_BUFFER").unwrap_or(usize::MAX);
    let need = rec.len().div_ceil(8) * 8;
    if st.cur.as_ref().is_some_and(|b| b.used + need > b.size || b.records >= limit) {
        let b = st.cur.take().expect("current buffer");
        st.full.push_back(b);
        WAKE.notify_all();
    }
    if st.cur.is_none() {
        let (mut ptr, mut size, mut max) = (std::ptr::null_mut(), 0usize, 0usize);
        // SAFETY: the client's callback, with writable out-pointers.
        unsafe { requested(&mut ptr, &mut size, &mut max) };
        if ptr.is_null() || size < need {
            DROPPED.fetch_add(1, Relaxed);
            return;
        }
        st.cur = Some(Buf { ptr, size, used: 0, records: 0 });
    }
    let b = st.cur.as_mut().expect("current buffer");
    // SAFETY: `need` bytes from `used` are inside the client's buffer.
    unsafe { std::ptr::copy_nonoverlapping(rec.as_ptr(), b.ptr.add(b.used), rec.len()) };
    b.used += need;
    b.records += 1;
    if !st.worker {
        st.worker = true;
        std::thread::spawn(worker);
    }
}

fn deliver(b: Buf) {
    let done = lock(&STATE).as_ref().and_then(|s| s.completed);
    if let Some(f) = done {
        // SAFETY: the client's callback and its own buffer.
        unsafe { f(std::ptr::null_mut(), 0, b.ptr, b.size, b.used) };
    }
}

fn worker() {
    loop {
        {
            let _d = lock(&DELIVER);
            let b = state().as_mut().and_then(|s| s.full.pop_front());
            if let Some(b) = b {
                deliver(b);
                continue;
            }
        }
        let g = state();
        if g.as_ref().is_some_and(|s| s.full.is_empty()) {
            let _ = WAKE.wait_timeout(g, std::time::Duration::from_millis(20));
        }
    }
}

/// Called by the fake driver, on the calling thread, for each launch,
/// copy and memset.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cupti_driver_hook(a: *const FakeActivity) {
    // SAFETY: the driver passes a valid record for the call's duration.
    let a = unsafe { &*a };
    let kind = match a.kind {
        0 => r::KIND_CONCURRENT_KERNEL,
        1 => r::KIND_MEMCPY,
        _ => r::KIND_MEMSET,
    };
    release_finished();
    if !enabled(kind) {
        return;
    }
    let corr = NEXT_CORRELATION.fetch_add(1, Relaxed);
    if enabled(r::KIND_EXTERNAL_CORRELATION) && (API_RECORDS.load(Relaxed) || enabled(r::KIND_DRIVER)) {
        // One record per external kind pushed: its innermost id.
        let tops: Vec<(u32, u64)> = EXTERNAL.with(|e| {
            let e = e.borrow();
            let mut tops: Vec<(u32, u64)> = Vec::new();
            for &(k, id) in e.iter().rev() {
                if !tops.iter().any(|t| t.0 == k) {
                    tops.push((k, id));
                }
            }
            tops
        });
        for (k, id) in tops {
            let mut rec = [0u8; r::external::SIZE];
            r::put(&mut rec, 0, &r::KIND_EXTERNAL_CORRELATION.to_ne_bytes());
            r::put(&mut rec, r::external::EXTERNAL_KIND, &k.to_ne_bytes());
            r::put(&mut rec, r::external::EXTERNAL_ID, &id.to_ne_bytes());
            r::put(&mut rec, r::external::CORRELATION, &corr.to_ne_bytes());
            emit(&rec);
        }
    }
    if API_RECORDS.load(Relaxed) || enabled(r::KIND_DRIVER) {
        // The driver call's API record (a kind the client skips).
        let mut rec = [0u8; r::api::SIZE];
        r::put(&mut rec, 0, &r::KIND_DRIVER.to_ne_bytes());
        emit(&rec);
    }
    let stream = {
        let mut g = state();
        let st = g.as_mut().expect("state");
        let n = st.streams.len() as u32;
        *st.streams.entry(a.stream).or_insert(if a.stream == 0 { 7 } else { 13 + n })
    };
    let start = now();
    let device = a.device as u32;
    match kind {
        r::KIND_CONCURRENT_KERNEL => {
            use r::kernel as k;
            let blocks = a.grid.iter().map(|&g| g.max(1) as u64).product::<u64>();
            let name = a.name_static();
            let mut rec = [0u8; k::SIZE];
            r::put(&mut rec, 0, &kind.to_ne_bytes());
            r::put(&mut rec, k::REGISTERS_PER_THREAD, &32u16.to_ne_bytes());
            r::put(&mut rec, k::START, &start.to_ne_bytes());
            r::put(&mut rec, k::END, &(start + units(1000 * blocks)).to_ne_bytes());
            r::put(&mut rec, k::DEVICE, &device.to_ne_bytes());
            r::put(&mut rec, k::CONTEXT, &1u32.to_ne_bytes());
            r::put(&mut rec, k::STREAM, &stream.to_ne_bytes());
            for i in 0..3 {
                r::put(&mut rec, k::GRID + 4 * i, &a.grid[i].to_ne_bytes());
                r::put(&mut rec, k::BLOCK + 4 * i, &a.block[i].to_ne_bytes());
            }
            r::put(&mut rec, k::DYNAMIC_SHARED, &a.shared.to_ne_bytes());
            r::put(&mut rec, k::CORRELATION, &corr.to_ne_bytes());
            r::put(&mut rec, k::NAME, &(name.as_ptr() as u64).to_ne_bytes());
            finish(a, &rec);
        }
        r::KIND_MEMCPY => {
            use r::memcpy as m;
            let mut rec = [0u8; m::SIZE];
            r::put(&mut rec, 0, &kind.to_ne_bytes());
            r::put(&mut rec, m::COPY_KIND, &[a.copy_kind]);
            r::put(&mut rec, m::BYTES, &a.bytes.to_ne_bytes());
            r::put(&mut rec, m::START, &start.to_ne_bytes());
            r::put(&mut rec, m::END, &(start + units(1000 + a.bytes)).to_ne_bytes());
            r::put(&mut rec, m::DEVICE, &device.to_ne_bytes());
            r::put(&mut rec, m::STREAM, &stream.to_ne_bytes());
            r::put(&mut rec, m::CORRELATION, &corr.to_ne_bytes());
            finish(a, &rec);
        }
        _ => {
            use r::memset as s;
            let mut rec = [0u8; s::SIZE];
            r::put(&mut rec, 0, &kind.to_ne_bytes());
            r::put(&mut rec, s::VALUE, &a.value.to_ne_bytes());
            r::put(&mut rec, s::BYTES, &a.bytes.to_ne_bytes());
            r::put(&mut rec, s::START, &start.to_ne_bytes());
            r::put(&mut rec, s::END, &(start + units(500 + a.bytes / 2)).to_ne_bytes());
            r::put(&mut rec, s::DEVICE, &device.to_ne_bytes());
            r::put(&mut rec, s::STREAM, &stream.to_ne_bytes());
            r::put(&mut rec, s::CORRELATION, &corr.to_ne_bytes());
            finish(a, &rec);
        }
    }
}

/// An activity's record, written when the work finishes: now, unless it is
/// a hung kernel or queued behind one on its stream.
fn finish(a: &FakeActivity, rec: &[u8]) {
    {
        let mut g = state();
        let st = g.as_mut().expect("state");
        let q = st.held.entry(a.stream).or_default();
        let now = std::time::Instant::now();
        // When the work before it on the stream ends (None: never).
        let after = q.back().map_or(Some(now), |h| h.0);
        let until = match a.hold_ms {
            0 => after,
            u64::MAX => None,
            ms => after.map(|t| t.max(now) + std::time::Duration::from_millis(ms)),
        };
        if !q.is_empty() || a.hold_ms != 0 {
            q.push_back((until, rec.to_vec()));
            return;
        }
    }
    emit(rec);
}

/// Write the records whose work has finished by now, in stream order.
fn release_finished() {
    let now = std::time::Instant::now();
    let due: Vec<Vec<u8>> = {
        let mut g = state();
        let st = g.as_mut().expect("state");
        let mut due = Vec::new();
        for q in st.held.values_mut() {
            while q.front().is_some_and(|h| h.0.is_some_and(|t| t <= now)) {
                due.extend(q.pop_front().map(|h| h.1));
            }
        }
        due
    };
    for rec in due {
        emit(&rec);
    }
}

impl FakeActivity {
    /// The kernel's name, kept for the life of the process (records point to it).
    fn name_static(&self) -> &'static CStr {
        // SAFETY: the driver passes a C string or NULL.
        let n = if self.name.is_null() { "?".to_owned() } else { unsafe { CStr::from_ptr(self.name) }.to_string_lossy().into_owned() };
        let mut g = state();
        let st = g.as_mut().expect("state");
        st.names.entry(n.clone()).or_insert_with(|| Box::leak(CString::new(n).unwrap_or_default().into_boxed_c_str()))
    }
}

/// Give the fake driver our hook (it may have been loaded first).
fn connect() {
    if CONNECTED.swap(true, Relaxed) {
        return;
    }
    // SAFETY: RTLD_NOLOAD loads nothing; the symbol takes the hook pointer.
    unsafe {
        let h = libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
        if h.is_null() {
            CONNECTED.store(false, Relaxed);
            return;
        }
        let s = libc::dlsym(h, c"fake_cuda_set_activity_hook".as_ptr());
        if !s.is_null() {
            let set: unsafe extern "C" fn(*mut c_void) = std::mem::transmute(s);
            set(fake_cupti_driver_hook as *mut c_void);
        }
        libc::dlclose(h);
    }
}

// ---- the CUPTI API ----------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityRegisterCallbacks(req: Option<Requested>, done: Option<Completed>) -> c_int {
    let (Some(req), Some(done)) = (req, done) else { return INVALID_PARAMETER };
    let mut g = state();
    let st = g.as_mut().expect("state");
    st.requested = Some(req);
    st.completed = Some(done);
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityRegisterTimestampCallback(f: Option<Timestamp>) -> c_int {
    let Some(f) = f else { return INVALID_PARAMETER };
    RATE.store(measure_rate(f).to_bits(), Relaxed);
    *lock(&TIMESTAMP) = Some(f);
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiGetTimestamp(ts: *mut u64) -> c_int {
    if ts.is_null() {
        return INVALID_PARAMETER;
    }
    // SAFETY: checked above.
    unsafe { *ts = now() };
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityEnable(kind: u32) -> c_int {
    if r::size_of_kind(kind).is_none() {
        return 21; // CUPTI_ERROR_INVALID_KIND (for this fake)
    }
    ENABLED.fetch_or(1 << kind, Relaxed);
    connect();
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityDisable(kind: u32) -> c_int {
    if r::size_of_kind(kind).is_none() {
        return 21;
    }
    ENABLED.fetch_and(!(1 << kind), Relaxed);
    if kind == r::KIND_DRIVER {
        // The kind overrides the per-call settings of
        // cuptiActivityEnableDriverApi (cupti_activity.h): they are gone.
        API_RECORDS.store(false, Relaxed);
    }
    SUCCESS
}

/// Ends the session: callbacks, kinds and the buffers not yet handed back
/// are forgotten (as CUPTI's, which tears its state down).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiFinalize() -> c_int {
    let _d = lock(&DELIVER);
    ENABLED.store(0, Relaxed);
    API_RECORDS.store(false, Relaxed);
    *lock(&TIMESTAMP) = None;
    RATE.store(1f64.to_bits(), Relaxed);
    let mut g = state();
    let st = g.as_mut().expect("state");
    st.requested = None;
    st.completed = None;
    st.cur = None;
    st.full.clear();
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityFlush(_ctx: *mut c_void, _stream: u32, flag: u32) -> c_int {
    unsafe { cuptiActivityFlushAll(flag) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityEnableDriverApi(_cbid: u32, enable: u8) -> c_int {
    if enable != 0 {
        API_RECORDS.store(true, Relaxed);
    }
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityGetNextRecord(buf: *mut u8, valid: usize, rec: *mut *mut u8) -> c_int {
    if buf.is_null() || rec.is_null() {
        return INVALID_PARAMETER;
    }
    // SAFETY: `rec` is the client's cursor into `buf`, which we filled.
    unsafe {
        let next = if (*rec).is_null() {
            0
        } else {
            let at = (*rec).offset_from(buf) as usize;
            let kind = ((*rec) as *const u32).read_unaligned();
            at + r::size_of_kind(kind).unwrap_or(8).div_ceil(8) * 8
        };
        if next + 4 > valid {
            return MAX_LIMIT_REACHED;
        }
        *rec = buf.add(next);
    }
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityFlushAll(flag: u32) -> c_int {
    if knob("FAKE_CUPTI_FLUSH_BLOCK") == Some(1) {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    release_finished();
    let _d = lock(&DELIVER);
    loop {
        let b = {
            let mut g = state();
            let st = g.as_mut().expect("state");
            st.full.pop_front().or_else(|| if flag & 1 != 0 { st.cur.take().filter(|b| b.records > 0) } else { None })
        };
        match b {
            Some(b) => deliver(b),
            None => return SUCCESS,
        }
    }
}

/// `cuptiGetStreamIdEx`: the id this fake gives the stream's records (the
/// same table the records use).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiGetStreamIdEx(_ctx: *mut c_void, stream: *mut c_void, _per_thread: u8, id: *mut u32) -> c_int {
    if id.is_null() {
        return 1;
    }
    let mut g = state();
    let st = g.as_mut().expect("state");
    let n = st.streams.len() as u32;
    let s = stream as usize;
    let v = *st.streams.entry(s).or_insert(if s == 0 { 7 } else { 13 + n });
    // SAFETY: checked non-NULL; the caller's out-parameter.
    unsafe { *id = v };
    0
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityGetNumDroppedRecords(_ctx: *mut c_void, _stream: u32, n: *mut usize) -> c_int {
    if n.is_null() {
        return INVALID_PARAMETER;
    }
    // SAFETY: checked above.
    unsafe { *n = DROPPED.swap(0, Relaxed) as usize };
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityPushExternalCorrelationId(kind: u32, id: u64) -> c_int {
    EXTERNAL.with(|e| e.borrow_mut().push((kind, id)));
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiActivityPopExternalCorrelationId(kind: u32, last: *mut u64) -> c_int {
    let popped = EXTERNAL.with(|e| {
        let mut e = e.borrow_mut();
        let i = e.iter().rposition(|x| x.0 == kind)?;
        Some(e.remove(i).1)
    });
    match popped {
        Some(id) => {
            if !last.is_null() {
                // SAFETY: checked above.
                unsafe { *last = id };
            }
            SUCCESS
        }
        None => 7, // CUPTI_ERROR_INVALID_OPERATION: nothing pushed
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiSubscribe(h: *mut *mut c_void, _cb: *const c_void, _data: *mut c_void) -> c_int {
    if h.is_null() {
        return INVALID_PARAMETER;
    }
    if knob("FAKE_CUPTI_HELD") == Some(1) || SUBSCRIBED.swap(true, Relaxed) {
        return MULTIPLE_SUBSCRIBERS;
    }
    // CUPTI 13 loads the driver here (dlopen of libcuda.so.1, measured on an
    // H100): under `cudart-shim trace` that is the driver interposer, whose
    // initializer connects to the runtime that is subscribing right now.
    // SAFETY: a C string; the handle is kept, as CUPTI keeps it.
    unsafe { libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    // SAFETY: checked above.
    unsafe { *h = std::ptr::dangling_mut::<c_void>() };
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiUnsubscribe(h: *mut c_void) -> c_int {
    if h.is_null() || !SUBSCRIBED.swap(false, Relaxed) {
        return INVALID_PARAMETER;
    }
    SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuptiGetResultString(r: c_int, s: *mut *const c_char) -> c_int {
    if s.is_null() {
        return INVALID_PARAMETER;
    }
    let text: &'static CStr = match r {
        SUCCESS => c"CUPTI_SUCCESS",
        MULTIPLE_SUBSCRIBERS => c"CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED",
        _ => c"CUPTI_ERROR_UNKNOWN",
    };
    // SAFETY: checked above.
    unsafe { *s = text.as_ptr() };
    SUCCESS
}
