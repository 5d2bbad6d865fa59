//! The timeline: one event stream, written in a format of the user's
//! choice (Chrome trace event JSON, `json`; Perfetto's native protobuf,
//! `perfetto`).
//!
//! The event model ([`Event`], [`GpuEvent`], the `KIND_*` values, names
//! and tracks) is trace/event, below both the producers that push here and
//! the writers below ([`Format`]: `json`, `perfetto`), which render every
//! kind and look names up there, never in a producer. A new format is one
//! new writer file.
//!
//! Each thread appends its events to the current [`Chunk`] of its own
//! [`Lane`] without taking a lock (a chunk is a single-producer buffer that
//! publishes each event with one release store), so a traced call pays no
//! atomic read-modify-write here. A flush reads other threads' published
//! events in place, under their lane's lock, which the owner takes only to
//! swap a full chunk out. A full chunk (or a thread's last one, as it
//! ends) goes to a bounded queue drained by one writer thread, moved there
//! while no flush runs (`HANDOFF`: a flush finds every chunk in its lane
//! or in the queue, never between); when the queue is full the calling thread waits
//! (back-pressure), so memory stays bounded. If the writer takes nothing
//! for 200 ms the calling thread writes the queued chunks itself: the
//! writer may be unable to run at all, as when calls are made from a
//! library constructor, which holds the dynamic loader's lock that a
//! starting thread needs (PyTorch's import: measured on an H100, an
//! unbounded wait deadlocked, and dropping instead lost thousands of
//! events). Events are dropped only when the writer lock itself cannot be
//! had within that time; the count is written into the trace.
//!
//! The file on disk is valid whenever the writer is idle: after a flush,
//! at exit, even if the process is killed later. JSON: after every batch
//! the writer appends the closing `]}` and seeks back over it. Protobuf: a
//! trace is a sequence of length-delimited packets, and only whole packets
//! are written.

pub(in crate::trace) mod json;
mod kineto;
mod perfetto;

use super::args::{push_int, CallArgs, Kept};
use super::event::{Event, GpuEvent};
use super::output;
use crate::config::TimelineFormat;
use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering::{AcqRel, Acquire, Relaxed, Release}};

const EVENTS_PER_CHUNK: usize = 4096;
const ARGS_PER_CHUNK: usize = 4 * EVENTS_PER_CHUNK;
const TEXT_PER_CHUNK: usize = 256 * 1024;
/// Full chunks waiting for the writer; callers wait beyond this.
const QUEUE_MAX: usize = 16;

type Slot<T> = UnsafeCell<MaybeUninit<T>>;

fn slots<T>(n: usize) -> Box<[Slot<T>]> {
    std::iter::repeat_with(|| UnsafeCell::new(MaybeUninit::uninit())).take(n).collect()
}

/// Up to [`EVENTS_PER_CHUNK`] events of one thread with their arguments.
///
/// Invariants: only the thread that owns the lane holding the chunk writes
/// it, and only at and above the published counts; an event and its
/// arguments and text are written before `published` passes it (Release;
/// readers load it with Acquire), and never again until the chunk is
/// recycled, which happens only once no lane holds it and the writer owns
/// it alone. So readers may read below `published` while the owner writes.
pub struct Chunk {
    events: Box<[Slot<Event>]>,
    args: Box<[Slot<Kept>]>,
    text: Box<[Slot<u8>]>,
    /// Arguments and text bytes used (the owner's alone).
    n_args: AtomicU32,
    n_text: AtomicU32,
    /// Events readers may read.
    published: AtomicU32,
    /// Events a flush already wrote (changed under the lane's lock, or by
    /// the writer that owns the chunk).
    consumed: AtomicU32,
}

// SAFETY: the slots are shared under the invariants above; everything else
// is atomic.
unsafe impl Sync for Chunk {}

/// Published events `start..end` of a chunk, their arguments and text.
struct View<'a> {
    events: &'a [Event],
    args: &'a [Kept],
    text: &'a str,
}

impl Chunk {
    fn new() -> Box<Chunk> {
        Box::new(Chunk {
            events: slots(EVENTS_PER_CHUNK),
            args: slots(ARGS_PER_CHUNK),
            text: slots(TEXT_PER_CHUNK),
            n_args: AtomicU32::new(0),
            n_text: AtomicU32::new(0),
            published: AtomicU32::new(0),
            consumed: AtomicU32::new(0),
        })
    }

    /// Append one event (owner only); false when it does not fit.
    #[inline]
    fn try_push(&self, ev: &Event, args: &CallArgs) -> bool {
        let e = self.published.load(Relaxed) as usize;
        let a = self.n_args.load(Relaxed) as usize;
        let t = self.n_text.load(Relaxed) as usize;
        let kept = args.kept();
        let text = args.text.as_bytes();
        if e >= EVENTS_PER_CHUNK || a + kept.len() > ARGS_PER_CHUNK || t + text.len() > TEXT_PER_CHUNK {
            return false;
        }
        // SAFETY: the slots from the published counts on are this thread's
        // alone (the invariants); every index is in bounds (checked above).
        unsafe {
            if !text.is_empty() {
                let dst = UnsafeCell::raw_get(self.text.as_ptr().add(t)).cast::<u8>();
                std::ptr::copy_nonoverlapping(text.as_ptr(), dst, text.len());
            }
            for (i, k) in kept.iter().enumerate() {
                let mut k = *k;
                if k.fmt.is_none() {
                    // Text ranges move from the capture's text to the chunk's.
                    k.a += t as u64;
                    k.b += t as u64;
                }
                UnsafeCell::raw_get(self.args.as_ptr().add(a + i)).write(MaybeUninit::new(k));
            }
            let mut ev = *ev;
            ev.args = (a as u32, (a + kept.len()) as u32);
            ev.text_end = (t + text.len()) as u32;
            UnsafeCell::raw_get(self.events.as_ptr().add(e)).write(MaybeUninit::new(ev));
        }
        self.n_args.store((a + kept.len()) as u32, Relaxed);
        self.n_text.store((t + text.len()) as u32, Relaxed);
        self.published.store(e as u32 + 1, Release);
        true
    }

    /// The events not yet written, and the count to store in `consumed`
    /// once they are.
    fn pending(&self) -> (View<'_>, u32) {
        let end = self.published.load(Acquire) as usize;
        let start = (self.consumed.load(Relaxed) as usize).min(end);
        // SAFETY: slots below `end` are written and stay unchanged (the
        // invariants); the last event's counts bound its predecessors'.
        unsafe {
            let all = std::slice::from_raw_parts(UnsafeCell::raw_get(self.events.as_ptr()).cast::<Event>(), end);
            let (na, nt) = all.last().map_or((0, 0), |l| (l.args.1 as usize, l.text_end as usize));
            let args = std::slice::from_raw_parts(UnsafeCell::raw_get(self.args.as_ptr()).cast::<Kept>(), na);
            let text = std::slice::from_raw_parts(UnsafeCell::raw_get(self.text.as_ptr()).cast::<u8>(), nt);
            // Whole strings were copied in, so the bytes are UTF-8.
            (View { events: &all[start..], args, text: std::str::from_utf8_unchecked(text) }, end as u32)
        }
    }

    fn unwritten(&self) -> u64 {
        let end = self.published.load(Acquire);
        end.saturating_sub(self.consumed.load(Relaxed)) as u64
    }

    /// Empty again, for another lane (the caller owns it alone).
    fn reset(&mut self) {
        for c in [&self.n_args, &self.n_text, &self.published, &self.consumed] {
            c.store(0, Relaxed);
        }
    }
}

/// One thread's path to the timeline.
pub struct Lane {
    /// The chunk the owner appends to (null before its first event).
    /// Replaced only by the owner and only under `meta`, so a flush that
    /// holds `meta` may read the chunk it points to.
    cur: AtomicPtr<Chunk>,
    /// std's mutex, as the queue's (see there): threads in teardown take it.
    meta: std::sync::Mutex<LaneMeta>,
}

struct LaneMeta {
    tid: i32,
    name: String,
}

/// A chunk that left its lane, waiting for the writer.
pub struct Full {
    chunk: Box<Chunk>,
    tid: i32,
    name: String,
}

impl Lane {
    pub fn new() -> Lane {
        Lane { cur: AtomicPtr::new(std::ptr::null_mut()), meta: std::sync::Mutex::new(LaneMeta { tid: 0, name: String::new() }) }
    }

    /// The thread that owns the lane from now on.
    pub fn set_thread(&self, tid: i32, name: String) {
        let mut m = super::lock(&self.meta);
        m.tid = tid;
        m.name = name;
    }

    /// Put `next` in place of the current chunk (owner only); the old one,
    /// if any, with the thread it belongs to. Only [`hand_off`] calls it:
    /// the chunk taken out must reach the queue before a flush looks.
    fn replace(&self, next: Option<Box<Chunk>>) -> Option<Full> {
        let m = super::lock(&self.meta);
        let old = self.cur.swap(next.map_or(std::ptr::null_mut(), Box::into_raw), AcqRel);
        // SAFETY: the pointer came from Box::into_raw, and no flush can be
        // reading it: flushes read the current chunk under `meta`.
        (!old.is_null()).then(|| Full { chunk: unsafe { Box::from_raw(old) }, tid: m.tid, name: m.name.clone() })
    }
}

impl Default for Lane {
    fn default() -> Self {
        Lane::new()
    }
}

/// The queue and its condition variables are std's (futex waits), not
/// parking_lot's: threads in teardown enqueue their last events here
/// (`flush_one`), and a parking_lot wait goes through a thread-local that,
/// first touched in a pthread key destructor (after the thread's
/// thread-local destructors ran), registers a destructor glibc never runs:
/// 32 bytes lost per exiting thread (valgrind, tests/sanitizers.rs).
static QUEUE: std::sync::Mutex<VecDeque<Full>> = std::sync::Mutex::new(VecDeque::new());
static NOT_EMPTY: std::sync::Condvar = std::sync::Condvar::new();
static NOT_FULL: std::sync::Condvar = std::sync::Condvar::new();

/// Written chunks kept for reuse (at most QUEUE_MAX); std's mutex, as the
/// queue's. Boxed: a lane holds its chunk by pointer.
#[allow(clippy::vec_box)]
static POOL: std::sync::Mutex<Vec<Box<Chunk>>> = std::sync::Mutex::new(Vec::new());
/// std's mutex, as the queue's: a thread in teardown may write a batch
/// itself (see `enqueue`).
static WRITER: std::sync::Mutex<Option<Writer>> = std::sync::Mutex::new(None);
/// Set once the final flush has closed the trace: later events are dropped.
static FINISHED: AtomicBool = AtomicBool::new(false);
/// Set in a forked child (which writes no timeline).
static CHILD: AtomicBool = AtomicBool::new(false);
pub static DROPPED: AtomicU64 = AtomicU64::new(0);
/// Batches the writer thread has taken from the queue and not yet written.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// A timeline format: turns the event stream into the bytes of its file.
/// Each method returns the bytes to append (a buffer the format owns),
/// and is called under the writer's lock, in stream order.
trait Format: Send {
    /// The start of the file.
    fn head(&mut self) -> &[u8];
    /// Appended after every batch and stepped back over, so the file is
    /// complete between batches (JSON's closing brackets); may be empty.
    fn trailer(&self) -> &'static [u8];
    /// Host events of thread `tid` (named `thread_name`).
    fn host(&mut self, tid: i32, thread_name: &str, events: &View<'_>) -> &[u8];
    fn gpu(&mut self, events: &[GpuEvent]) -> &[u8];
    /// Say in the trace that `n` events could not be kept, and why.
    fn dropped(&mut self, n: u64, why: &str) -> &[u8];
    /// A marker at the present time on the process's track (the size
    /// limit was reached; events before the ring's window were dropped).
    fn marker(&mut self, text: &str) -> &[u8];
    /// Start a part of the file that must read without what came before
    /// it (the ring drops older parts): declare again the tracks and
    /// names the following events refer to.
    fn restart(&mut self) -> &[u8];
    /// The process record with a clock sample taken now (readers take the
    /// last one: `cudart-shim report`, `--merge`).
    fn process(&mut self) -> &[u8];
    /// The final flush wrote everything: say what the trace lacks (the
    /// Kineto form: a step range that never occurred).
    fn finish(&mut self) {}
}

struct Writer {
    file: File,
    path: String,
    format: Box<dyn Format>,
    events: u64,
    bytes: u64,
    /// The size limit (`--max-size`), and the length of the file's head.
    limit: Option<u64>,
    head: u64,
    /// The limit was reached (no ring): nothing more is written.
    full: bool,
    ring: Option<Ring>,
}

/// `--ring`: the newest events, in two parts of up to half the limit each
/// (each part reads on its own: it starts with [`Format::restart`]). The
/// file is rewritten from them at each flush.
struct Ring {
    part: u64,
    prev: Vec<u8>,
    cur: Vec<u8>,
    prev_events: u64,
    cur_events: u64,
    /// Events of the parts dropped so far.
    dropped: u64,
}

/// Events rendered at a time under a size limit, and about the most bytes
/// they take (a ring's part passes its size by at most that).
const LIMIT_PIECE: usize = 16;
const PIECE_BYTES: u64 = 8192;

/// Set once the size limit stopped the timeline (no ring): callers stop
/// recording events.
static LIMIT_REACHED: AtomicBool = AtomicBool::new(false);
/// Events not recorded after the size limit was reached.
pub static PAST_LIMIT: AtomicU64 = AtomicU64::new(0);

impl Writer {
    /// Append `n` events, rendered by `what`, within the size limit.
    fn append(&mut self, n: u64, what: impl FnOnce(&mut dyn Format) -> &[u8]) {
        if self.full {
            PAST_LIMIT.fetch_add(n, Relaxed);
            return;
        }
        if let Some(r) = &mut self.ring
            && r.cur.len() as u64 >= r.part
        {
            // The current part is full: it becomes the previous one, the
            // previous one goes, and a new part starts that reads on its
            // own. A part passes its size by at most one piece.
            r.dropped += r.prev_events;
            r.prev = std::mem::take(&mut r.cur);
            r.prev_events = std::mem::take(&mut r.cur_events);
            r.cur.extend_from_slice(self.format.restart());
        }
        let bytes = what(&mut *self.format);
        if bytes.is_empty() {
            return;
        }
        if let Some(r) = &mut self.ring {
            r.cur.extend_from_slice(bytes);
            r.cur_events += n;
            return;
        }
        if let Some(max) = self.limit
            && self.bytes + bytes.len() as u64 > max
        {
            self.full = true;
            LIMIT_REACHED.store(true, Relaxed);
            PAST_LIMIT.fetch_add(n, Relaxed);
            let text = format!("cudart-shim: the timeline reached its size limit ({max} bytes): later events are not recorded (the summary counts every call)");
            log::warn!("timeline {}: reached its size limit ({max} bytes): recording stopped here (a marker in the trace says so); the summary stays exact", self.path);
            let m = self.format.marker(&text);
            self.bytes += m.len() as u64;
            let _ = self.file.write_all(m);
            return;
        }
        self.bytes += bytes.len() as u64;
        if let Err(e) = self.file.write_all(bytes) {
            log::warn!("timeline {}: write failed ({e})", self.path);
        }
    }

    /// `--ring`: write the file again, from the head on, with the parts
    /// kept (at each flush).
    fn rewrite_ring(&mut self) {
        let Some(r) = &self.ring else { return };
        let mut out: Vec<u8> = Vec::with_capacity(r.prev.len() + r.cur.len() + 256);
        if r.dropped > 0 {
            let text = format!("cudart-shim: the ring kept the newest events within {} bytes: {} older events dropped", self.limit.unwrap_or(0), r.dropped);
            out.extend_from_slice(self.format.marker(&text));
        }
        let r = self.ring.as_ref().expect("checked above");
        out.extend_from_slice(&r.prev);
        out.extend_from_slice(&r.cur);
        let ok = self.file.seek(SeekFrom::Start(self.head)).and_then(|_| self.file.write_all(&out));
        if let Err(e) = ok {
            log::warn!("timeline {}: write failed ({e})", self.path);
        }
        self.bytes = self.head + out.len() as u64;
    }

    /// Make the file complete (see [`Format::trailer`]).
    fn close(&mut self) {
        let t = self.format.trailer();
        if !t.is_empty() {
            let _ = self.file.write_all(t).and_then(|_| self.file.seek(SeekFrom::Current(-(t.len() as i64))));
        }
    }
}

/// Where the timeline goes, until its file is created ([`open`]).
struct Pending {
    path: String,
    kind: TimelineFormat,
    limit: Option<u64>,
    ring: bool,
}

/// Full chunks of events recorded before the process's first work, held
/// until it begins (`write_locked`). Lock order: WRITER, then EARLY.
static EARLY: std::sync::Mutex<Vec<Full>> = std::sync::Mutex::new(Vec::new());

/// Set by [`start`], taken when the file is created. Lock order: WRITER,
/// then PENDING.
static PENDING: std::sync::Mutex<Option<Pending>> = std::sync::Mutex::new(None);

/// Get ready to write the timeline to `path` in format `kind` and start
/// the writer thread. The file itself is created later, at the process's
/// first call that is program work ([`open`]) or at the first write: a
/// process that records nothing writes no file (`trace`'s module note).
/// `limit`: the file's size limit; `ring`: keep the newest events there.
pub fn start(path: &str, kind: TimelineFormat, limit: Option<u64>, ring: bool) -> bool {
    *super::lock(&PENDING) = Some(Pending { path: path.to_owned(), kind, limit, ring });
    if let Err(e) = std::thread::Builder::new().name("cudart-shim-tl".into()).spawn(writer_loop) {
        log::warn!("cannot start the timeline writer thread ({e}); events are written at flush and exit");
    }
    true
}

/// Create the timeline file now, if it is not yet (the process's first
/// call that is program work: `trace::first_work`).
pub fn open() {
    ensure_open(&mut super::lock(&WRITER));
}

/// The writer, its file created first if [`start`] asked for one and it is
/// not yet. False: no timeline (never asked for, or the file could not be
/// made: said once, and the timeline switched off).
fn ensure_open(slot: &mut Option<Writer>) -> bool {
    if slot.is_none()
        && let Some(p) = super::lock(&PENDING).take()
    {
        *slot = create(p);
        if slot.is_none() {
            super::FLAGS.fetch_and(!super::TIMELINE, Relaxed);
        }
    }
    slot.is_some()
}

/// Create the file with the format's head.
fn create(p: Pending) -> Option<Writer> {
    let (file, path) = match output::create_claimed(&p.path, false, "timeline") {
        Ok(f) => f,
        Err(e) => {
            log::warn!("cannot create the timeline file {:?} ({e}); the timeline is off", p.path);
            return None;
        }
    };
    let format: Box<dyn Format> = match p.kind {
        TimelineFormat::Json => Box::new(json::Json::new()),
        TimelineFormat::Perfetto => Box::new(perfetto::Perfetto::new()),
        TimelineFormat::Kineto => Box::new(kineto::Kineto::new()),
    };
    let limit = p.limit;
    let mut w = Writer { file, path, format, events: 0, bytes: 0, limit, head: 0, full: false, ring: None };
    let head = w.format.head();
    w.bytes = head.len() as u64;
    w.head = w.bytes;
    if p.ring
        && let Some(max) = limit
    {
        // Two parts, each of which may pass its size by a piece.
        let part = (max.saturating_sub(w.head) / 2).saturating_sub(PIECE_BYTES).max(1024);
        w.ring = Some(Ring { part, prev: Vec::new(), cur: Vec::new(), prev_events: 0, cur_events: 0, dropped: 0 });
    }
    if let Err(e) = w.file.write_all(head) {
        log::warn!("cannot write the timeline file {:?} ({e}); the timeline is off", w.path);
        return None;
    }
    w.close();
    log::debug!("timeline: writing to {}", w.path);
    Some(w)
}

fn writer_loop() {
    loop {
        let batch: Vec<Full> = {
            let mut q = super::lock(&QUEUE);
            while q.is_empty() {
                q = NOT_EMPTY.wait(q).unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            // Counted while the queue lock is held: a flush that sees the
            // queue empty and nothing in flight has every event.
            IN_FLIGHT.fetch_add(1, AcqRel);
            STALLED.store(false, Relaxed);
            q.drain(..).collect()
        };
        NOT_FULL.notify_all();
        write_pending(batch, &[], false);
        IN_FLIGHT.fetch_sub(1, AcqRel);
    }
}

/// Write the full chunks of `batch`, then what the `lanes` hold (a flush),
/// then close the JSON. `last`: the final flush, which shows progress for
/// a large trace and records dropped events in the trace.
fn write_pending(batch: Vec<Full>, lanes: &[&Lane], last: bool) {
    write_locked(super::lock(&WRITER), batch, lanes, last);
}

fn write_locked(mut guard: std::sync::MutexGuard<'_, Option<Writer>>, mut batch: Vec<Full>, lanes: &[&Lane], last: bool) {
    if guard.is_none() {
        // The file is created only for something to write.
        let any = batch.iter().any(|f| f.chunk.unwritten() > 0) || lanes.iter().any(|l| lane_chunk(l, |c| c.unwritten()).unwrap_or(0) > 0);
        if !any {
            return;
        }
        // Setup calls before the process's first work (trace's module
        // note): no file yet. Full chunks are held, lanes keep theirs.
        if !super::writes_files() {
            super::lock(&EARLY).extend(batch);
            return;
        }
        if !ensure_open(&mut guard) {
            return;
        }
    }
    let Some(w) = guard.as_mut() else { return };
    // Chunks held before the first work go first (each thread's events in order).
    let early = std::mem::take(&mut *super::lock(&EARLY));
    if !early.is_empty() {
        batch.splice(0..0, early);
    }
    // Counted only for the final write's progress line.
    let total = if last {
        batch.iter().map(|f| f.chunk.unwritten()).sum::<u64>()
            + lanes.iter().map(|l| lane_chunk(l, |c| c.unwritten()).unwrap_or(0)).sum::<u64>()
    } else {
        0
    };
    let show = last && total > 50_000;
    let mut done = 0u64;
    let mut last_shown = std::time::Instant::now();
    let mut progress = |w: &Writer, n: u64| {
        done += n;
        if show && last_shown.elapsed().as_millis() >= 250 {
            last_shown = std::time::Instant::now();
            eprint!("\rcudart-shim: writing timeline {}: {done}/{total} events, {} MiB", w.path, w.bytes >> 20);
        }
    };
    for f in &batch {
        let (view, _) = f.chunk.pending();
        w.write_host(f.tid, &f.name, &view);
        progress(w, view.events.len() as u64);
    }
    for lane in lanes {
        let m = super::lock(&lane.meta);
        let _ = lane_chunk_locked(lane, |c| {
            let (view, end) = c.pending();
            w.write_host(m.tid, &m.name, &view);
            progress(w, view.events.len() as u64);
            c.consumed.store(end, Relaxed);
        });
    }
    if show {
        eprintln!("\rcudart-shim: wrote timeline {}: {} events, {} MiB          ", w.path, w.events, w.bytes >> 20);
    }
    if last {
        // Say in the trace itself what could not be kept.
        let dropped = DROPPED.load(Relaxed);
        if dropped > 0 {
            w.append(0, |f| f.dropped(dropped, "the writer could not keep up"));
            log::warn!("timeline {}: {dropped} events dropped while the writer could not keep up", w.path);
        }
    }
    w.close();
    drop(guard);
    recycle(batch);
}

/// Run `f` on a lane's current chunk (the caller holds the lane's `meta`).
fn lane_chunk_locked<R>(lane: &Lane, f: impl FnOnce(&Chunk) -> R) -> Option<R> {
    let c = lane.cur.load(Acquire);
    // SAFETY: the owner replaces (and hands off) its chunk only under
    // `meta`, which the caller holds.
    (!c.is_null()).then(|| f(unsafe { &*c }))
}

fn lane_chunk<R>(lane: &Lane, f: impl FnOnce(&Chunk) -> R) -> Option<R> {
    let _m = super::lock(&lane.meta);
    lane_chunk_locked(lane, f)
}

/// Keep written chunks for reuse, up to the queue's size.
fn recycle(batch: Vec<Full>) {
    for f in batch {
        recycle_chunk(f.chunk);
    }
}

fn recycle_chunk(mut chunk: Box<Chunk>) {
    let mut pool = super::lock(&POOL);
    if pool.len() < QUEUE_MAX {
        chunk.reset();
        pool.push(chunk);
    }
}

impl Writer {
    fn write_host(&mut self, tid: i32, thread_name: &str, view: &View<'_>) {
        if view.events.is_empty() {
            return;
        }
        // Under a size limit, in pieces: the limit (or the ring's part)
        // is met to within a piece, not a whole chunk.
        let piece = if self.limit.is_some() { LIMIT_PIECE } else { EVENTS_PER_CHUNK };
        for events in view.events.chunks(piece) {
            let v = View { events, args: view.args, text: view.text };
            self.append(events.len() as u64, |f| f.host(tid, thread_name, &v));
        }
        self.events += view.events.len() as u64;
    }

    /// The process record (at each flush; with a ring, after the file is
    /// rewritten from the parts kept). Never held back by the limit.
    fn write_process(&mut self) {
        self.rewrite_ring();
        let p = self.format.process();
        self.bytes += p.len() as u64;
        let _ = self.file.write_all(p);
        if self.ring.is_some() {
            // Cut what a longer earlier window left beyond this one.
            let _ = self.file.stream_position().and_then(|end| self.file.set_len(end));
        }
        self.close();
    }
}

/// Write GPU activity (trace/gpu). Dropped (and counted) once the trace
/// is closed.
pub fn write_gpu(events: &[GpuEvent]) {
    let mut guard = super::lock(&WRITER);
    if events.is_empty() || !ensure_open(&mut guard) {
        return;
    }
    let Some(w) = guard.as_mut() else { return };
    if FINISHED.load(Relaxed) {
        DROPPED.fetch_add(events.len() as u64, Relaxed);
        return;
    }
    let piece = if w.limit.is_some() { LIMIT_PIECE } else { usize::MAX };
    for part in events.chunks(piece) {
        w.append(part.len() as u64, |f| f.gpu(part));
    }
    w.events += events.len() as u64;
    w.close();
}

/// Nanoseconds written as microseconds with three decimals.
pub(crate) fn push_us(out: &mut String, ns: u64) {
    push_int(out, ns / 1000);
    let f = ns % 1000;
    let frac = [b'.', b'0' + (f / 100) as u8, b'0' + (f / 10 % 10) as u8, b'0' + (f % 10) as u8];
    // SAFETY: four ASCII bytes.
    out.push_str(unsafe { std::str::from_utf8_unchecked(&frac) });
}

/// Append an event and its arguments to this thread's lane. Only the
/// lane's owner calls it: the thread whose state holds the lane.
#[inline]
pub fn push(lane: &Lane, ev: Event, args: &CallArgs) {
    if FINISHED.load(Relaxed) {
        DROPPED.fetch_add(1, Relaxed);
        return;
    }
    if LIMIT_REACHED.load(Relaxed) {
        PAST_LIMIT.fetch_add(1, Relaxed);
        return;
    }
    let c = lane.cur.load(Relaxed);
    // SAFETY: only this thread replaces (and so frees) its lane's chunk.
    if c.is_null() || !unsafe { &*c }.try_push(&ev, args) {
        push_to_fresh(lane, ev, args);
    }
}

#[cold]
#[inline(never)]
fn push_to_fresh(lane: &Lane, ev: Event, args: &CallArgs) {
    let fresh = super::lock(&POOL).pop().unwrap_or_else(Chunk::new);
    if !hand_off(lane, Some(fresh)) {
        // The trace closed meanwhile.
        DROPPED.fetch_add(1, Relaxed);
        return;
    }
    let c = lane.cur.load(Relaxed);
    // SAFETY: as in `push`; just installed, so not null. A call whose
    // text alone overflows an empty chunk is dropped.
    if !unsafe { &*c }.try_push(&ev, args) {
        DROPPED.fetch_add(1, Relaxed);
    }
}

/// How long a caller waits for room in the queue before it writes the
/// queued chunks itself (see `enqueue`).
const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// Set when the writer thread took no batch for `MAX_WAIT` while the queue
/// was full; cleared when it takes one. While set, callers that find the
/// queue full write it themselves at once: one wait per stall.
static STALLED: AtomicBool = AtomicBool::new(false);

/// Queue a full chunk for the writer thread. When the queue is full the
/// caller waits for room (back-pressure, memory stays bounded); if the
/// writer thread takes nothing for `MAX_WAIT` (it may be unable to run at
/// all: see the module note) the caller writes the queued chunks itself.
fn enqueue(f: Full) {
    if f.chunk.unwritten() == 0 {
        return recycle(vec![f]);
    }
    let mut q = super::lock(&QUEUE);
    let mut deadline = std::time::Instant::now() + MAX_WAIT;
    while q.len() >= QUEUE_MAX {
        if FINISHED.load(Relaxed) {
            DROPPED.fetch_add(f.chunk.unwritten(), Relaxed);
            drop(q);
            return recycle(vec![f]);
        }
        if STALLED.load(Relaxed) || std::time::Instant::now() >= deadline {
            STALLED.store(true, Relaxed);
            // Counted while the queue lock is held, as the writer thread
            // does: a flush waits for this batch too.
            IN_FLIGHT.fetch_add(1, AcqRel);
            let batch: Vec<Full> = q.drain(..).collect();
            drop(q);
            NOT_FULL.notify_all();
            write_stalled(batch);
            IN_FLIGHT.fetch_sub(1, AcqRel);
            q = super::lock(&QUEUE);
            deadline = std::time::Instant::now() + MAX_WAIT;
            continue;
        }
        q = NOT_FULL.wait_timeout(q, std::time::Duration::from_millis(20)).unwrap_or_else(std::sync::PoisonError::into_inner).0;
    }
    q.push_back(f);
    drop(q);
    NOT_EMPTY.notify_one();
}

/// Write a batch from a calling thread. The writer lock is waited for at
/// most `MAX_WAIT` (its holder might itself be stuck); past that the
/// batch's events are dropped and counted.
fn write_stalled(batch: Vec<Full>) {
    let deadline = std::time::Instant::now() + MAX_WAIT;
    loop {
        match WRITER.try_lock() {
            Ok(g) => return write_locked(g, batch, &[], false),
            Err(std::sync::TryLockError::Poisoned(p)) => return write_locked(p.into_inner(), batch, &[], false),
            Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                DROPPED.fetch_add(batch.iter().map(|f| f.chunk.unwritten()).sum(), Relaxed);
                return recycle(batch);
            }
        }
    }
}

/// Write every pending event (the queue and each thread's lane) now.
/// `last`: the final flush; later events are dropped.
pub fn flush(lanes: &[&Lane], last: bool) {
    if FINISHED.load(Relaxed) || (super::lock(&WRITER).is_none() && super::lock(&PENDING).is_none()) {
        return;
    }
    // No chunk leaves a lane until every lane is read (see HANDOFF).
    let handoffs = HANDOFF.write().unwrap_or_else(std::sync::PoisonError::into_inner);
    if last {
        FINISHED.store(true, Relaxed);
    }
    // Take what is queued, and wait for a batch the writer thread already
    // took: at exit the process ends as soon as this returns.
    let mut batch: Vec<Full> = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let mut q = super::lock(&QUEUE);
        batch.extend(q.drain(..));
        drop(q);
        NOT_FULL.notify_all();
        if IN_FLIGHT.load(Acquire) == 0 && super::lock(&QUEUE).is_empty() {
            break;
        }
        if std::time::Instant::now() > deadline {
            log::warn!("timeline: the writer thread did not finish in 30 s; the trace may miss events");
            break;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    write_pending(batch, lanes, last);
    drop(handoffs);
    if let Some(w) = super::lock(&WRITER).as_mut() {
        w.write_process();
    }
    if last {
        let mut w = super::lock(&WRITER);
        if let Some(w) = w.as_mut() {
            w.format.finish();
            let _ = w.file.flush();
            log::debug!("timeline {}: {} events, {} not recorded past the size limit", w.path, w.events, PAST_LIMIT.load(Relaxed));
        }
    }
}

/// Hand a retiring thread's pending events to the writer (its owner, or
/// the thread that borrowed it, calls this last).
pub fn flush_one(lane: &Lane) {
    hand_off(lane, None);
}

/// Held (shared) by a thread while it moves a chunk from its lane to the
/// queue ([`hand_off`]), and (exclusive) by a flush from before it drains
/// the queue until it has read every lane ([`flush`]). So a chunk is, for
/// a flush, always in one place it looks: in its lane or in the queue (or
/// the writer's hands, counted by `IN_FLIGHT`), never between the two.
///
/// Without it a flush could run entirely inside a hand-off's gap, after
/// `Lane::replace` took the chunk out of the lane and before `enqueue`
/// put it in the queue: it found the lane empty and the queue drained, and
/// returned without those events. At exit that lost them for good (found
/// with tests/c/timeline_exit.c: threads ending while the process exits
/// lost their whole last chunk, silently, in about 1 run in 5): the final
/// flush closed the trace, then the thread either saw `FINISHED` and threw
/// the chunk away uncounted, or queued it for a writer that never ran
/// again. After a `cudartShimFlush()` the events came later, but the file
/// the flush left lacked events made before it began.
///
/// A shared lock, taken once per chunk (4096 events) and at thread exit,
/// never per event. std's (futex), as the queue's: threads in teardown
/// take it.
static HANDOFF: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Put `next` in the lane's place (owner only) and queue the chunk it
/// held for the writer. False: the trace is closed; the chunk's events not
/// yet written are counted as dropped, and nothing is put in the lane.
fn hand_off(lane: &Lane, next: Option<Box<Chunk>>) -> bool {
    if CHILD.load(Relaxed) {
        // A forked child writes no timeline, and may have inherited the
        // lock held by a thread that does not exist in it.
        if let Some(full) = lane.replace(None) {
            recycle(vec![full]);
        }
        if let Some(c) = next {
            recycle_chunk(c);
        }
        return false;
    }
    let _h = HANDOFF.read().unwrap_or_else(std::sync::PoisonError::into_inner);
    // Checked under the lock: a final flush that closed the trace first
    // has read this lane, and wrote its events up to `consumed`; what was
    // published after is dropped, and said so.
    if FINISHED.load(Relaxed) {
        if let Some(full) = lane.replace(None) {
            DROPPED.fetch_add(full.chunk.unwritten(), Relaxed);
            recycle(vec![full]);
        }
        if let Some(c) = next {
            recycle_chunk(c);
        }
        return false;
    }
    if let Some(full) = lane.replace(next) {
        enqueue(full);
    }
    true
}

/// A forked child has no writer thread and may have inherited a held lock:
/// it writes no timeline.
pub fn disable_in_child() {
    CHILD.store(true, Relaxed);
    FINISHED.store(true, Relaxed);
    std::mem::forget(WRITER.try_lock().map(|mut w| w.take()));
    std::mem::forget(PENDING.try_lock().map(|mut p| p.take()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::event::{clock, KIND_CALL, KIND_NVTX_ASYNC, KIND_NVTX_MARK, KIND_NVTX_RANGE};
    use crate::trace::{CallSite, TraceArg};
    use serde_json::Value;

    /// An argument's name and how to capture it.
    type ArgOf<'a> = (&'static str, &'a dyn Fn(&mut CallArgs, &'static str));

    /// A text argument (kept as text, as NVTX messages are).
    struct Text(&'static str);
    impl TraceArg for Text {
        fn trace(&self, out: &mut String) {
            out.push_str(self.0);
        }
    }

    /// The same events (one thread: nested calls, a failed call, a memory
    /// event, NVTX ranges, a mark and a start/end range) rendered by both
    /// writers read back as the same Chrome events: what `cudart-shim
    /// report` and `--merge` read, so both formats give the same tables.
    #[test]
    fn both_writers_give_the_same_events() {
        static SET: CallSite = CallSite::new("cudaSetDevice");
        static MALLOC: CallSite = CallSite::new("cudaMalloc");
        static ALLOC: CallSite = CallSite::driver_api("cuMemAlloc_v2");
        let (set, malloc, alloc) = (SET.id().unwrap(), MALLOC.id().unwrap(), ALLOC.id().unwrap());
        let t = clock::ticks();
        let chunk = Chunk::new();
        let push = |ev: Event, args: &[ArgOf<'_>]| {
            let mut c = CallArgs::new(true);
            for (name, f) in args {
                f(&mut c, name);
            }
            assert!(chunk.try_push(&ev, &c));
        };
        let int = |v: u64| move |c: &mut CallArgs, n: &'static str| c.arg(n, false, &v);
        let text = |v: &'static str| move |c: &mut CallArgs, n: &'static str| c.arg(n, false, &Text(v));
        let memory = crate::ledger::MemEvent { alloc: true, device: 0, kind: crate::ledger::Kind::Device, size: 64, lib: 0, track: 64 };
        push(Event::new(set, 0, KIND_CALL, 101, t + 10, 100, 0), &[("device", &int(7))]);
        // An inner call returns (and is pushed) before the call around it.
        // (Failed: without the interposer's registry a driver success has
        // no name here.)
        push(Event::new(alloc, 1, KIND_CALL, 2, t + 1100, 300, 0), &[("bytesize", &int(64))]);
        push(Event::new(malloc, 0, KIND_CALL, 0, t + 1000, 1000, 0), &[("size", &int(64))]);
        push(memory.event(t + 2000), &[]);
        push(Event::new(0, 1, KIND_NVTX_RANGE, 0, t + 950, 500, (1 << 32) | 0xff0000), &[("message", &text("inner")), ("payload", &int(42))]);
        push(Event::new(0, 0, KIND_NVTX_RANGE, 0, t + 900, 2000, 0), &[("message", &text("outer"))]);
        push(Event::new(0, 0, KIND_NVTX_MARK, 0, t + 1500, 0, 0), &[("message", &text("tick"))]);
        push(Event::new(0, 0, KIND_NVTX_ASYNC, 5, t + 20, 5000, 0), &[("message", &text("handoff"))]);
        let (view, _) = chunk.pending();
        let tid = 4242;
        let mut j = json::Json::new();
        let mut bytes = j.head().to_vec();
        bytes.extend_from_slice(j.host(tid, "main", &view));
        bytes.extend_from_slice(j.trailer());
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        let mut p = perfetto::Perfetto::new();
        let mut pb = p.head().to_vec();
        pb.extend_from_slice(p.host(tid, "main", &view));
        let from_pb = trace_format::perfetto::to_chrome(&trace_format::perfetto::packets(&pb).unwrap());
        // Every event but the metadata, in one order.
        let key = |e: &Value| {
            let mut e = e.clone();
            if let Some(m) = e.as_object_mut() {
                m.remove("pid");
            }
            e.to_string()
        };
        let events = |list: &[Value]| {
            let mut v: Vec<String> = list.iter().filter(|e| e["ph"] != "M").map(key).collect();
            v.sort();
            v
        };
        let (a, b) = (events(doc["traceEvents"].as_array().unwrap()), events(&from_pb));
        assert_eq!(a.len(), 10, "{a:#?}");
        assert_eq!(a, b);
        // The NVTX tracks' names too.
        let names = |list: &[Value]| {
            let mut v: Vec<String> = list.iter().filter(|e| e["name"] == "thread_name").map(|e| format!("{} {}", e["tid"], e["args"]["name"])).collect();
            v.sort();
            v
        };
        assert_eq!(names(doc["traceEvents"].as_array().unwrap()), names(&from_pb));
    }

    #[test]
    fn microseconds_with_three_decimals() {
        for (ns, us) in [(0u64, "0.000"), (7, "0.007"), (999, "0.999"), (1000, "1.000"), (123_456_789, "123456.789"), (10_050, "10.050")] {
            let mut s = String::new();
            super::push_us(&mut s, ns);
            assert_eq!(s, us);
        }
    }
}
