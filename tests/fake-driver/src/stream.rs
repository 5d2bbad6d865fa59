//! Fake driver: streams, events and host callbacks.
//!
//! Contract for every module that queues work (copies, sets, launches):
//! call [`enqueue`] (or [`submit`], which reports errors and names the node
//! kind for stream capture) with the stream handle the shim passed; work a
//! captured graph must redo at every launch goes through
//! [`enqueue_repeatable`] (or [`submit_repeatable`]).
//!
//! Model:
//! - Each stream (the legacy stream, each thread's per-thread stream, and
//!   each created stream) owns a FIFO and a worker thread that runs it, so
//!   work on one stream runs in order, on a driver thread, as on a GPU.
//!   Host functions and callbacks always run on the worker; other work
//!   (copies, sets, launches, event records) runs inline at enqueue time
//!   when the stream is idle, so results of work on an idle stream are
//!   visible as soon as the call returns (as the fake did before streams
//!   were real), and queues behind pending work otherwise.
//! - The legacy stream synchronizes with blocking streams: work queued on
//!   it first waits for everything already queued on every blocking
//!   stream, and work queued on a blocking stream first waits for what is
//!   already queued on the legacy stream. Waits only point back to work
//!   queued earlier, so they can never form a cycle.
//! - Events record a timestamp when their stream reaches them;
//!   `cuStreamWaitEvent` makes a stream wait for the last record queued.
//! - A stream in capture runs nothing: work becomes graph nodes
//!   (see [`crate::capture`]).
//! - Handles are checked against the set of live objects, so a destroyed or
//!   made-up handle gives `CUDA_ERROR_INVALID_HANDLE` instead of a crash.

use crate::capture::{self, Member};
use crate::*;
use parking_lot::{Condvar, Mutex};
use std::cell::Cell;
use std::collections::{HashSet, VecDeque};
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

pub const INVALID_HANDLE: CUresult = 400;
pub const NOT_READY: CUresult = 600;
pub const NOT_PERMITTED: CUresult = 800;

pub type Work = Box<dyn FnOnce() + Send>;

const LEGACY: usize = 0x1;
const PER_THREAD: usize = 0x2;

#[derive(Default)]
struct Queue {
    items: VecDeque<Work>,
    /// Items ever queued / ever finished: a stream is idle when equal.
    submitted: u64,
    completed: u64,
    worker: bool,
    destroyed: bool,
    /// An item is running inline on the caller's thread (see
    /// [`Stream::run_inline`]); the worker waits for it.
    inline: bool,
}

/// Attributes kept per stream (cuStreamGet/SetAttribute): the raw 64-byte
/// value of each attribute id that was set.
#[derive(Default, Clone)]
pub struct Attrs {
    pub values: Vec<(c_int, [u8; 64])>,
}

pub struct Stream {
    pub flags: c_uint,
    pub priority: c_int,
    pub id: u64,
    pub device: c_int,
    pub legacy: bool,
    q: Mutex<Queue>,
    cv: Condvar,
    pub attrs: Mutex<Attrs>,
    /// Capture membership (see crate::capture).
    pub capture: Mutex<Option<Member>>,
}

// SAFETY: every mutable field is behind a lock.
unsafe impl Sync for Stream {}
unsafe impl Send for Stream {}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Stream {
    fn new(flags: c_uint, priority: c_int, device: c_int, legacy: bool) -> &'static Stream {
        let s: &'static Stream = Box::leak(Box::new(Stream {
            flags,
            priority,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            device,
            legacy,
            q: Mutex::new(Queue::default()),
            cv: Condvar::new(),
            attrs: Mutex::new(Attrs::default()),
            capture: Mutex::new(None),
        }));
        ALL.lock().push(s);
        s
    }

    pub fn handle(&'static self) -> *mut c_void {
        self as *const Stream as *mut c_void
    }

    /// A blocking stream synchronizes with the legacy stream.
    pub fn blocking(&self) -> bool {
        !self.legacy && self.flags & 1 == 0
    }

    /// Append to the FIFO; starts the worker on first use.
    fn push(&'static self, w: Work) {
        let mut q = self.q.lock();
        q.items.push_back(w);
        q.submitted += 1;
        if !q.worker {
            q.worker = true;
            std::thread::Builder::new()
                .name(format!("fake-cuda-stream-{}", self.id))
                .spawn(move || self.run())
                .expect("spawn stream worker");
        }
        self.cv.notify_all();
    }

    fn run(&'static self) {
        ON_WORKER.with(|w| w.set(true));
        loop {
            let w = {
                let mut q = self.q.lock();
                loop {
                    if !q.inline {
                        if let Some(w) = q.items.pop_front() {
                            break w;
                        }
                        if q.destroyed {
                            q.worker = false;
                            return;
                        }
                    }
                    self.cv.wait(&mut q);
                }
            };
            // A panicking work item must not kill the stream (tests would hang).
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(w));
            let mut q = self.q.lock();
            q.completed += 1;
            self.cv.notify_all();
        }
    }

    /// Run `w` now on the caller's thread if the stream is idle (nothing
    /// queued or running): the common case then behaves as if the device
    /// were infinitely fast, and results are visible when the call returns.
    /// Otherwise hand it back to be queued.
    fn run_inline(&'static self, w: Work) -> Option<Work> {
        {
            let mut q = self.q.lock();
            if q.inline || !q.items.is_empty() || q.completed != q.submitted {
                return Some(w);
            }
            q.inline = true;
            q.submitted += 1;
        }
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(w));
        let mut q = self.q.lock();
        q.completed += 1;
        q.inline = false;
        self.cv.notify_all();
        None
    }

    /// Work queued so far (a ticket for [`wait_for`](Self::wait_for)).
    pub fn ticket(&self) -> u64 {
        self.q.lock().submitted
    }

    pub fn reached(&self, ticket: u64) -> bool {
        self.q.lock().completed >= ticket
    }

    /// Block until the first `ticket` items have run.
    pub fn wait_for(&self, ticket: u64) {
        let mut q = self.q.lock();
        while q.completed < ticket {
            self.cv.wait(&mut q);
        }
    }

    pub fn idle(&self) -> bool {
        let q = self.q.lock();
        q.completed == q.submitted
    }

    pub fn synchronize(&self) {
        let t = self.ticket();
        self.wait_for(t);
    }
}

/// Every stream ever made (destroyed ones may still be draining).
static ALL: Mutex<Vec<&'static Stream>> = Mutex::new(Vec::new());
/// Addresses of streams that are not destroyed.
static LIVE: Mutex<Option<HashSet<usize>>> = Mutex::new(None);
static LEGACY_STREAM: std::sync::OnceLock<&'static Stream> = std::sync::OnceLock::new();

thread_local! {
    /// Set on stream worker threads: host functions and callbacks run there.
    static ON_WORKER: Cell<bool> = const { Cell::new(false) };
    static PER_THREAD_STREAM: Cell<Option<&'static Stream>> = const { Cell::new(None) };
}

fn legacy_stream() -> &'static Stream {
    LEGACY_STREAM.get_or_init(|| Stream::new(0, 0, 0, true))
}

fn per_thread_stream() -> &'static Stream {
    PER_THREAD_STREAM.with(|c| {
        if let Some(s) = c.get() {
            return s;
        }
        let s = Stream::new(0, 0, crate::device::current().map_or(0, |c| c.device), false);
        c.set(Some(s));
        s
    })
}

/// The stream a handle names. NULL is the legacy stream, or the calling
/// thread's per-thread stream for `_ptsz` entry points (`ptds`).
pub fn resolve(h: *mut c_void, ptds: bool) -> Result<&'static Stream, CUresult> {
    match h as usize {
        0 | LEGACY | PER_THREAD => {
            crate::device::current_active()?;
            Ok(if h as usize == PER_THREAD || (h.is_null() && ptds) { per_thread_stream() } else { legacy_stream() })
        }
        a => {
            crate::device::initialized()?;
            if LIVE.lock().as_ref().is_some_and(|l| l.contains(&a)) {
                // SAFETY: live streams are leaked boxes.
                Ok(unsafe { &*(a as *const Stream) })
            } else {
                Err(INVALID_HANDLE)
            }
        }
    }
}

/// Queue `work` on `stream` (NULL, 0x1 legacy, 0x2 per-thread, or a handle
/// from cuStreamCreate; NULL means the legacy stream). Errors (bad handle,
/// invalidated capture) drop the work; use [`submit`] to see them.
pub fn enqueue(stream: *mut c_void, work: Work) {
    let _ = submit(stream, false, capture::KIND_OTHER, work);
}

/// [`enqueue`] for `_ptsz`/`_ptds` entry points: NULL is the calling
/// thread's per-thread stream.
pub fn enqueue_ptds(stream: *mut c_void, work: Work) {
    let _ = submit(stream, true, capture::KIND_OTHER, work);
}

/// Queue `work` on `stream`, or, when the stream is capturing, add a node of
/// `kind` (a `CUgraphNodeType` value, e.g. 1 for a copy) that holds `work`.
/// Returns the driver's error for a bad handle or a capture violation.
pub fn submit(stream: *mut c_void, ptds: bool, kind: c_int, work: Work) -> Result<(), CUresult> {
    let s = resolve(stream, ptds)?;
    submit_to(s, kind, work)
}

pub fn submit_to(s: &'static Stream, kind: c_int, work: Work) -> Result<(), CUresult> {
    if s.capture.lock().is_some() {
        // Still capturing unless the capture ended in between.
        if let Some(r) = capture::capture_node(s, kind, 0, capture::Captured::Once(work)) {
            return r.map(|_| ());
        }
        return Ok(());
    }
    capture::check_legacy_use(s)?;
    unsafe_push(s, kind, work);
    Ok(())
}

/// [`submit`] for work a captured graph can run again at every launch:
/// when `stream` is capturing, the node keeps `work` itself and runs it at
/// each launch of the graph (see [`crate::capture`]); otherwise it is
/// queued once.
pub fn submit_repeatable(stream: *mut c_void, ptds: bool, kind: c_int, work: capture::Replay) -> Result<(), CUresult> {
    let s = resolve(stream, ptds)?;
    if s.capture.lock().is_some()
        && let Some(r) = capture::capture_node(s, kind, 0, capture::Captured::Repeat(work.clone()))
    {
        return r.map(|_| ());
    }
    submit_to(s, kind, Box::new(move || work()))
}

/// [`enqueue`] for work a captured graph runs again at every launch
/// (copies, sets, kernel launches), captured as a node of type `kind` (a
/// `CUgraphNodeType` value). Errors drop the work, as with [`enqueue`].
pub fn enqueue_repeatable(stream: *mut c_void, kind: c_int, work: impl Fn() + Send + Sync + 'static) {
    let _ = submit_repeatable(stream, false, kind, Arc::new(work));
}

/// Queue on a stream known not to be capturing, with the legacy-stream
/// implicit synchronization.
///
/// Work that is neither host work (callbacks and host functions run on the
/// stream's driver thread, as in CUDA) nor a wait runs inline when the
/// stream is idle.
fn unsafe_push(s: &'static Stream, kind: c_int, work: Work) {
    if s.legacy {
        let blocking: Vec<&'static Stream> = ALL.lock().iter().copied().filter(|o| o.blocking()).collect();
        for o in blocking {
            let t = o.ticket();
            if !o.reached(t) {
                s.push(Box::new(move || o.wait_for(t)));
            }
        }
    } else if s.blocking()
        && let Some(l) = LEGACY_STREAM.get()
    {
        let t = l.ticket();
        if !l.reached(t) {
            s.push(Box::new(move || l.wait_for(t)));
        }
    }
    let work = match kind {
        capture::KIND_HOST | capture::KIND_WAIT_EVENT => work,
        _ => match s.run_inline(work) {
            Some(w) => w,
            None => return,
        },
    };
    s.push(work);
}

/// Wait for the legacy stream and, through it, every blocking stream: what
/// a synchronous driver call (cuMemcpy, cuMemsetD8, ...) must do before it
/// runs on the caller's thread.
pub fn wait_legacy() {
    let l = legacy_stream();
    let blocking: Vec<&'static Stream> = ALL.lock().iter().copied().filter(|o| o.blocking()).collect();
    for o in blocking {
        o.synchronize();
    }
    l.synchronize();
}

/// Whether the caller is a host function or callback (a driver thread).
/// Like CUDA, blocking synchronization from there is CUDA_ERROR_NOT_PERMITTED
/// (it could wait for the very stream running it).
pub fn on_driver_thread() -> bool {
    ON_WORKER.with(Cell::get)
}

fn not_from_callback() -> Result<(), CUresult> {
    if on_driver_thread() { Err(NOT_PERMITTED) } else { Ok(()) }
}

/// The checks cuCtxSynchronize makes before [`synchronize_all`]: not from a
/// callback, and not when stream capture forbids it.
pub fn ctx_sync_check() -> Result<(), CUresult> {
    not_from_callback()?;
    capture::check_unsafe_call()
}

/// Wait for all work queued on every stream (cuCtxSynchronize).
pub fn synchronize_all() {
    let all: Vec<&'static Stream> = ALL.lock().clone();
    for s in all {
        s.synchronize();
    }
}

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
}
pub(crate) use tri;

/// A driver entry point and its `_ptsz` twin (NULL = the calling thread's
/// per-thread stream): `twins! { plain, plain_ptsz, "name", "name_ptsz"
/// (args) |ptds| body; }` binds `ptds` to false / true in `body`.
macro_rules! twins {
    ($( $plain:ident, $ptsz:ident, $name:literal, $name_pt:literal ( $($a:ident : $t:ty),* $(,)? ) |$p:ident| $body:expr; )*) => {$(
        pub unsafe extern "C" fn $plain($($a: $t),*) -> CUresult {
            fake_enter!($name);
            let $p = false;
            $body
        }
        pub unsafe extern "C" fn $ptsz($($a: $t),*) -> CUresult {
            fake_enter!($name_pt);
            let $p = true;
            $body
        }
    )*};
}
pub(crate) use twins;


// ---------------------------------------------------------------- streams

fn create(out: *mut *mut c_void, flags: c_uint, priority: c_int) -> CUresult {
    if out.is_null() || flags & !1 != 0 {
        return INVALID_VALUE;
    }
    let ctx = tri!(crate::device::current_active());
    // Priorities are clamped to cuCtxGetStreamPriorityRange: [-5, 0].
    let s = Stream::new(flags, priority.clamp(-5, 0), ctx.device, false);
    LIVE.lock().get_or_insert_with(HashSet::new).insert(s as *const Stream as usize);
    unsafe { *out = s.handle() };
    SUCCESS
}

pub unsafe extern "C" fn cuStreamCreate(out: *mut *mut c_void, flags: c_uint) -> CUresult {
    fake_enter!("cuStreamCreate");
    create(out, flags, 0)
}

pub unsafe extern "C" fn cuStreamCreateWithPriority(out: *mut *mut c_void, flags: c_uint, priority: c_int) -> CUresult {
    fake_enter!("cuStreamCreateWithPriority");
    create(out, flags, priority)
}

pub unsafe extern "C" fn cuStreamDestroy_v2(h: *mut c_void) -> CUresult {
    fake_enter!("cuStreamDestroy");
    if matches!(h as usize, 0 | LEGACY | PER_THREAD) {
        return INVALID_HANDLE;
    }
    let s = tri!(resolve(h, false));
    LIVE.lock().get_or_insert_with(HashSet::new).remove(&(h as usize));
    capture::on_destroy(s);
    // Like CUDA: returns at once; queued work still runs, then the worker ends.
    let mut q = s.q.lock();
    q.destroyed = true;
    s.cv.notify_all();
    SUCCESS
}

fn query(h: *mut c_void, ptds: bool) -> CUresult {
    let s = tri!(resolve(h, ptds));
    tri!(capture::check_sync(s));
    if s.idle() { SUCCESS } else { NOT_READY }
}

fn synchronize(h: *mut c_void, ptds: bool) -> CUresult {
    let s = tri!(resolve(h, ptds));
    tri!(not_from_callback());
    tri!(capture::check_sync(s));
    if s.legacy {
        // The legacy stream also waits for blocking streams' earlier work.
        let blocking: Vec<&'static Stream> = ALL.lock().iter().copied().filter(|o| o.blocking()).collect();
        for o in blocking {
            o.synchronize();
        }
    }
    s.synchronize();
    SUCCESS
}

fn get_flags(h: *mut c_void, ptds: bool, out: *mut c_uint) -> CUresult {
    let s = tri!(resolve(h, ptds));
    if out.is_null() {
        return INVALID_VALUE;
    }
    unsafe { *out = s.flags };
    SUCCESS
}

fn get_priority(h: *mut c_void, ptds: bool, out: *mut c_int) -> CUresult {
    let s = tri!(resolve(h, ptds));
    if out.is_null() {
        return INVALID_VALUE;
    }
    unsafe { *out = s.priority };
    SUCCESS
}

fn get_id(h: *mut c_void, ptds: bool, out: *mut u64) -> CUresult {
    let s = tri!(resolve(h, ptds));
    if out.is_null() {
        return INVALID_VALUE;
    }
    unsafe { *out = s.id };
    SUCCESS
}

fn get_device(h: *mut c_void, ptds: bool, out: *mut c_int) -> CUresult {
    let s = tri!(resolve(h, ptds));
    if out.is_null() {
        return INVALID_VALUE;
    }
    unsafe { *out = s.device };
    SUCCESS
}

/// Stream attributes the fake accepts: access policy window (1),
/// synchronization policy (3), priority (8), mem sync domain map (9) and
/// domain (10).
fn attr_ok(attr: c_int) -> bool {
    matches!(attr, 1 | 3 | 8 | 9 | 10)
}

fn get_attribute(h: *mut c_void, ptds: bool, attr: c_int, out: *mut [u8; 64]) -> CUresult {
    let s = tri!(resolve(h, ptds));
    if out.is_null() || !attr_ok(attr) {
        return INVALID_VALUE;
    }
    let mut v = [0u8; 64];
    if let Some((_, val)) = s.attrs.lock().values.iter().find(|(a, _)| *a == attr) {
        v = *val;
    } else if attr == 8 {
        v[..4].copy_from_slice(&s.priority.to_ne_bytes());
    } else if attr == 3 {
        v[..4].copy_from_slice(&1i32.to_ne_bytes()); // cudaSyncPolicyAuto
    }
    unsafe { *out = v };
    SUCCESS
}

fn set_attribute(h: *mut c_void, ptds: bool, attr: c_int, val: *const [u8; 64]) -> CUresult {
    let s = tri!(resolve(h, ptds));
    if val.is_null() || !attr_ok(attr) {
        return INVALID_VALUE;
    }
    let v = unsafe { *val };
    if attr == 3 && !(1..=4).contains(&i32::from_ne_bytes(v[..4].try_into().unwrap())) {
        return INVALID_VALUE;
    }
    if attr == 1 {
        // hitRatio (offset 16, f32) must lie in [0, 1].
        let hit = f32::from_ne_bytes(v[16..20].try_into().unwrap());
        if !(0.0..=1.0).contains(&hit) {
            return INVALID_VALUE;
        }
    }
    let mut a = s.attrs.lock();
    a.values.retain(|(id, _)| *id != attr);
    a.values.push((attr, v));
    SUCCESS
}

fn copy_attributes(dst: *mut c_void, src: *mut c_void, ptds: bool) -> CUresult {
    let d = tri!(resolve(dst, ptds));
    let s = tri!(resolve(src, ptds));
    let v = s.attrs.lock().clone();
    *d.attrs.lock() = v;
    SUCCESS
}

fn attach_mem(h: *mut c_void, ptds: bool, dptr: u64, _len: usize, flags: c_uint) -> CUresult {
    let s = tri!(resolve(h, ptds));
    // CU_MEM_ATTACH_GLOBAL 1, HOST 2, SINGLE 4: exactly one.
    if dptr == 0 || !matches!(flags, 1 | 2 | 4) {
        return INVALID_VALUE;
    }
    tri!(submit_to(s, capture::KIND_OTHER, Box::new(|| {})));
    SUCCESS
}

// ---------------------------------------------------------------- host work

type StreamCallback = unsafe extern "C" fn(*mut c_void, CUresult, *mut c_void);
type HostFn = unsafe extern "C" fn(*mut c_void);

/// Raw pointers moved into work items (they are the caller's to keep valid).
#[derive(Clone, Copy)]
pub struct SendPtr(pub *mut c_void);
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}

impl SendPtr {
    /// By method, so closures capture the whole (Send) wrapper.
    pub fn get(self) -> *mut c_void {
        self.0
    }
}

fn add_callback(h: *mut c_void, ptds: bool, cb: Option<StreamCallback>, data: *mut c_void, flags: c_uint) -> CUresult {
    let s = tri!(resolve(h, ptds));
    let Some(cb) = cb else { return INVALID_VALUE };
    if flags != 0 {
        return INVALID_VALUE;
    }
    // cuStreamAddCallback is not capturable (cuLaunchHostFunc is).
    tri!(capture::refuse_in_capture(s));
    let (hs, d) = (SendPtr(h), SendPtr(data));
    tri!(submit_to(s, capture::KIND_HOST, Box::new(move || unsafe { cb(hs.get(), SUCCESS, d.get()) })));
    SUCCESS
}

fn launch_host_func(h: *mut c_void, ptds: bool, f: Option<HostFn>, data: *mut c_void) -> CUresult {
    let s = tri!(resolve(h, ptds));
    let Some(f) = f else { return INVALID_VALUE };
    let d = SendPtr(data);
    let replay: capture::Replay = Arc::new(move || unsafe { f(d.get()) });
    if let Some(r) = capture::capture_node(s, capture::KIND_HOST, 0, capture::Captured::Repeat(replay)) {
        return match r {
            Ok(node) => {
                capture::set_host_params(node, f, data);
                SUCCESS
            }
            Err(e) => e,
        };
    }
    tri!(submit_to(s, capture::KIND_HOST, Box::new(move || unsafe { f(d.get()) })));
    SUCCESS
}

// ---------------------------------------------------------------- events

pub struct Event {
    pub flags: c_uint,
    st: Mutex<EventState>,
}

#[derive(Default)]
struct EventState {
    /// Records ever queued (0: never recorded).
    records: u64,
    /// The stream and ticket of the last record: the event is complete
    /// when that stream has run that far.
    last: Option<(&'static Stream, u64)>,
    /// When the newest record that ran was reached, and its number.
    time: Option<(u64, Instant)>,
    /// Set while the last record happened in a capture (capture id and the
    /// capture dependencies at that point).
    captured: Option<(u64, Vec<usize>)>,
}

static EVENTS: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

pub fn event(h: *mut c_void) -> Result<&'static Event, CUresult> {
    crate::device::initialized()?;
    if !h.is_null() && EVENTS.lock().as_ref().is_some_and(|l| l.contains(&(h as usize))) {
        // SAFETY: live events are leaked boxes.
        Ok(unsafe { &*(h as *const Event) })
    } else {
        Err(INVALID_HANDLE)
    }
}

impl Event {
    /// Capture state of the last record (for crate::capture).
    pub fn captured(&self) -> Option<(u64, Vec<usize>)> {
        self.st.lock().captured.clone()
    }

    pub fn set_captured(&self, c: Option<(u64, Vec<usize>)>) {
        self.st.lock().captured = c;
    }

    fn last(&self) -> Option<(&'static Stream, u64)> {
        self.st.lock().last
    }

    fn complete(&self) -> bool {
        self.last().is_none_or(|(s, t)| s.reached(t))
    }

    fn wait(&self) {
        if let Some((s, t)) = self.last() {
            s.wait_for(t);
        }
    }
}

pub unsafe extern "C" fn cuEventCreate(out: *mut *mut c_void, flags: c_uint) -> CUresult {
    fake_enter!("cuEventCreate");
    if out.is_null() || flags & !0x7 != 0 || (flags & 4 != 0 && flags & 2 == 0) {
        return INVALID_VALUE;
    }
    tri!(crate::device::current_active());
    let e: &'static Event = Box::leak(Box::new(Event { flags, st: Mutex::new(EventState::default()) }));
    let h = e as *const Event as usize;
    EVENTS.lock().get_or_insert_with(HashSet::new).insert(h);
    unsafe { *out = h as *mut c_void };
    SUCCESS
}

pub unsafe extern "C" fn cuEventDestroy_v2(h: *mut c_void) -> CUresult {
    fake_enter!("cuEventDestroy");
    tri!(event(h));
    EVENTS.lock().get_or_insert_with(HashSet::new).remove(&(h as usize));
    SUCCESS
}

fn record(ev: *mut c_void, h: *mut c_void, ptds: bool, flags: c_uint) -> CUresult {
    let e = tri!(event(ev));
    let s = tri!(resolve(h, ptds));
    if flags & !1 != 0 {
        return INVALID_VALUE;
    }
    if let Some(r) = capture::record_event(s, e, ev as usize, flags) {
        return r.err().unwrap_or(SUCCESS);
    }
    tri!(capture::check_legacy_use(s));
    let generation = {
        let mut st = e.st.lock();
        st.records += 1;
        st.captured = None;
        st.records
    };
    unsafe_push(s, capture::KIND_EVENT_RECORD, Box::new(move || {
        let mut st = e.st.lock();
        if st.time.is_none_or(|(g, _)| g < generation) {
            st.time = Some((generation, Instant::now()));
        }
    }));
    // The ticket includes the record itself (pushed above, in this thread's
    // order for this stream).
    e.st.lock().last = Some((s, s.ticket()));
    SUCCESS
}

pub unsafe extern "C" fn cuEventQuery(ev: *mut c_void) -> CUresult {
    fake_enter!("cuEventQuery");
    let e = tri!(event(ev));
    if e.captured().is_some() {
        return capture::CAPTURED_EVENT;
    }
    if e.complete() { SUCCESS } else { NOT_READY }
}

pub unsafe extern "C" fn cuEventSynchronize(ev: *mut c_void) -> CUresult {
    fake_enter!("cuEventSynchronize");
    let e = tri!(event(ev));
    if e.captured().is_some() {
        return capture::CAPTURED_EVENT;
    }
    tri!(not_from_callback());
    e.wait();
    SUCCESS
}

/// CUDA 12.8+ `cuEventElapsedTime_v2`: INVALID_HANDLE for events without
/// timing or never recorded, NOT_READY while a record is pending.
pub unsafe extern "C" fn cuEventElapsedTime_v2(ms: *mut f32, start: *mut c_void, end: *mut c_void) -> CUresult {
    fake_enter!("cuEventElapsedTime");
    unsafe { elapsed(ms, start, end) }
}

/// The plain `cuEventElapsedTime` (`_v2000`), what a request below 12.8
/// gets: the same answers here (the fake has no pending-work errors for the
/// two to report differently), counted under its own name.
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, start: *mut c_void, end: *mut c_void) -> CUresult {
    fake_enter!("cuEventElapsedTime_v1");
    unsafe { elapsed(ms, start, end) }
}

unsafe fn elapsed(ms: *mut f32, start: *mut c_void, end: *mut c_void) -> CUresult {
    if ms.is_null() {
        return INVALID_VALUE;
    }
    let a = tri!(event(start));
    let b = tri!(event(end));
    if a.flags & 2 != 0 || b.flags & 2 != 0 {
        return INVALID_HANDLE;
    }
    if a.captured().is_some() || b.captured().is_some() {
        return capture::CAPTURED_EVENT;
    }
    // One lock at a time: `start` and `end` may be the same event.
    let sa = a.st.lock().records;
    let sb = b.st.lock().records;
    if sa == 0 || sb == 0 {
        return INVALID_HANDLE;
    }
    if !a.complete() || !b.complete() {
        return NOT_READY;
    }
    let ta = a.st.lock().time;
    let tb = b.st.lock().time;
    let (Some((_, ta)), Some((_, tb))) = (ta, tb) else { return NOT_READY };
    let d = if tb >= ta { (tb - ta).as_secs_f64() } else { -(ta - tb).as_secs_f64() };
    unsafe { *ms = (d * 1e3) as f32 };
    SUCCESS
}

fn wait_event(h: *mut c_void, ptds: bool, ev: *mut c_void, flags: c_uint) -> CUresult {
    let s = tri!(resolve(h, ptds));
    let e = tri!(event(ev));
    if flags & !1 != 0 {
        return INVALID_VALUE;
    }
    if let Some(r) = capture::wait_event(s, e, ev as usize, flags) {
        return r.err().unwrap_or(SUCCESS);
    }
    tri!(capture::check_legacy_use(s));
    let Some((o, t)) = e.last() else {
        return SUCCESS; // never recorded: nothing to wait for
    };
    if !o.reached(t) {
        unsafe_push(s, capture::KIND_WAIT_EVENT, Box::new(move || o.wait_for(t)));
    }
    SUCCESS
}

twins! {
    cuStreamQuery, cuStreamQuery_ptsz, "cuStreamQuery", "cuStreamQuery_ptsz" (h: *mut c_void) |ptds| query(h, ptds);
    cuStreamSynchronize, cuStreamSynchronize_ptsz, "cuStreamSynchronize", "cuStreamSynchronize_ptsz" (h: *mut c_void) |ptds| synchronize(h, ptds);
    cuStreamGetFlags, cuStreamGetFlags_ptsz, "cuStreamGetFlags", "cuStreamGetFlags_ptsz" (h: *mut c_void, out: *mut c_uint) |ptds| get_flags(h, ptds, out);
    cuStreamGetPriority, cuStreamGetPriority_ptsz, "cuStreamGetPriority", "cuStreamGetPriority_ptsz" (h: *mut c_void, out: *mut c_int) |ptds| get_priority(h, ptds, out);
    cuStreamGetId, cuStreamGetId_ptsz, "cuStreamGetId", "cuStreamGetId_ptsz" (h: *mut c_void, out: *mut u64) |ptds| get_id(h, ptds, out);
    cuStreamGetDevice, cuStreamGetDevice_ptsz, "cuStreamGetDevice", "cuStreamGetDevice_ptsz" (h: *mut c_void, out: *mut c_int) |ptds| get_device(h, ptds, out);
    cuStreamGetAttribute, cuStreamGetAttribute_ptsz, "cuStreamGetAttribute", "cuStreamGetAttribute_ptsz"
        (h: *mut c_void, attr: c_int, out: *mut [u8; 64]) |ptds| get_attribute(h, ptds, attr, out);
    cuStreamSetAttribute, cuStreamSetAttribute_ptsz, "cuStreamSetAttribute", "cuStreamSetAttribute_ptsz"
        (h: *mut c_void, attr: c_int, val: *const [u8; 64]) |ptds| set_attribute(h, ptds, attr, val);
    cuStreamCopyAttributes, cuStreamCopyAttributes_ptsz, "cuStreamCopyAttributes", "cuStreamCopyAttributes_ptsz"
        (dst: *mut c_void, src: *mut c_void) |ptds| copy_attributes(dst, src, ptds);
    cuStreamAttachMemAsync, cuStreamAttachMemAsync_ptsz, "cuStreamAttachMemAsync", "cuStreamAttachMemAsync_ptsz"
        (h: *mut c_void, dptr: u64, len: usize, flags: c_uint) |ptds| attach_mem(h, ptds, dptr, len, flags);
    cuStreamAddCallback, cuStreamAddCallback_ptsz, "cuStreamAddCallback", "cuStreamAddCallback_ptsz"
        (h: *mut c_void, cb: Option<StreamCallback>, data: *mut c_void, flags: c_uint) |ptds| add_callback(h, ptds, cb, data, flags);
    cuLaunchHostFunc, cuLaunchHostFunc_ptsz, "cuLaunchHostFunc", "cuLaunchHostFunc_ptsz"
        (h: *mut c_void, f: Option<HostFn>, data: *mut c_void) |ptds| launch_host_func(h, ptds, f, data);
    cuEventRecord, cuEventRecord_ptsz, "cuEventRecord", "cuEventRecord_ptsz" (ev: *mut c_void, h: *mut c_void) |ptds| record(ev, h, ptds, 0);
    cuEventRecordWithFlags, cuEventRecordWithFlags_ptsz, "cuEventRecordWithFlags", "cuEventRecordWithFlags_ptsz"
        (ev: *mut c_void, h: *mut c_void, flags: c_uint) |ptds| record(ev, h, ptds, flags);
    cuStreamWaitEvent, cuStreamWaitEvent_ptsz, "cuStreamWaitEvent", "cuStreamWaitEvent_ptsz"
        (h: *mut c_void, ev: *mut c_void, flags: c_uint) |ptds| wait_event(h, ptds, ev, flags);
}

/// Entry points this module provides, by the name cuGetProcAddress is asked.
/// `name@ptds` entries are the `_ptsz` variants (NULL = per-thread stream).
pub static SYMBOLS: crate::Symbols = &[
    sym!(cuStreamCreate),
    sym!(cuStreamCreateWithPriority),
    sym!("cuStreamDestroy" => cuStreamDestroy_v2),
    sym!(cuStreamQuery),
    sym!("cuStreamQuery@ptds" => cuStreamQuery_ptsz),
    sym!(cuStreamSynchronize),
    sym!("cuStreamSynchronize@ptds" => cuStreamSynchronize_ptsz),
    sym!(cuStreamGetFlags),
    sym!("cuStreamGetFlags@ptds" => cuStreamGetFlags_ptsz),
    sym!(cuStreamGetPriority),
    sym!("cuStreamGetPriority@ptds" => cuStreamGetPriority_ptsz),
    sym!(cuStreamGetId),
    sym!("cuStreamGetId@ptds" => cuStreamGetId_ptsz),
    sym!(cuStreamGetDevice),
    sym!("cuStreamGetDevice@ptds" => cuStreamGetDevice_ptsz),
    sym!(cuStreamGetAttribute),
    sym!("cuStreamGetAttribute@ptds" => cuStreamGetAttribute_ptsz),
    sym!(cuStreamSetAttribute),
    sym!("cuStreamSetAttribute@ptds" => cuStreamSetAttribute_ptsz),
    sym!(cuStreamCopyAttributes),
    sym!("cuStreamCopyAttributes@ptds" => cuStreamCopyAttributes_ptsz),
    sym!(cuStreamAttachMemAsync),
    sym!("cuStreamAttachMemAsync@ptds" => cuStreamAttachMemAsync_ptsz),
    sym!(cuStreamAddCallback),
    sym!("cuStreamAddCallback@ptds" => cuStreamAddCallback_ptsz),
    sym!(cuLaunchHostFunc),
    sym!("cuLaunchHostFunc@ptds" => cuLaunchHostFunc_ptsz),
    sym!(cuStreamWaitEvent),
    sym!("cuStreamWaitEvent@ptds" => cuStreamWaitEvent_ptsz),
    sym!(cuEventCreate),
    sym!("cuEventDestroy" => cuEventDestroy_v2),
    sym!(cuEventRecord),
    sym!("cuEventRecord@ptds" => cuEventRecord_ptsz),
    sym!(cuEventRecordWithFlags),
    sym!("cuEventRecordWithFlags@ptds" => cuEventRecordWithFlags_ptsz),
    sym!(cuEventQuery),
    sym!(cuEventSynchronize),
    sym!("cuEventElapsedTime" => cuEventElapsedTime_v2),
    sym!("cuEventElapsedTime@v1" => cuEventElapsedTime),
];
