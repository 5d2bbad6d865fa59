//! The timeline: Chrome trace event JSON (Perfetto, chrome://tracing).
//!
//! Each thread appends events to its own bounded [`Chunk`] (a lock of its
//! own, only ever contended by a flush). A full chunk goes to a bounded
//! queue drained by one writer thread; when the queue is full the calling
//! thread waits (back-pressure) for a bounded time, so memory stays bounded.
//! The wait is bounded because the writer may be unable to run at all: a
//! call made from a library constructor holds the dynamic loader's lock,
//! which a starting thread needs (PyTorch's import, measured on an H100:
//! an unbounded wait deadlocked). Events that still find no room are
//! dropped and counted; the count is written into the trace. After every batch the writer appends the closing `]}` and seeks
//! back over it, so the file on disk is valid JSON whenever the writer is
//! idle: after a flush, at exit, even if the process is killed later.

use super::clock;
use super::args::{push_int, write_kept, Kept};
use super::output;
use parking_lot::Mutex;
use std::collections::{HashSet, VecDeque};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::{AcqRel, Acquire, Relaxed}};

pub const KIND_CALL: u8 = 0;
pub const KIND_COUNTER: u8 = 1;

pub struct Event {
    pub site: u32,
    pub depth: u16,
    pub kind: u8,
    pub result: i32,
    pub t0: u64,
    pub dt: u64,
    /// Range of this event's arguments in the chunk's `args`.
    pub text: (u32, u32),
    pub value: i64,
}

pub struct Chunk {
    pub tid: i32,
    pub thread_name: String,
    pub events: Vec<Event>,
    /// Arguments, captured raw; formatted by the writer thread.
    pub args: Vec<Kept>,
    /// Arguments that could only be formatted at once.
    pub text: String,
}

const EVENTS_PER_CHUNK: usize = 4096;
const TEXT_PER_CHUNK: usize = 256 * 1024;
/// Full chunks waiting for the writer; callers wait beyond this.
const QUEUE_MAX: usize = 16;
const TRAILER: &[u8] = b"\n]}\n";

impl Chunk {
    pub fn new(tid: i32, thread_name: String) -> Chunk {
        Chunk { tid, thread_name, events: Vec::new(), args: Vec::new(), text: String::new() }
    }
    /// The events gathered so far (None if there are none), leaving this
    /// chunk empty for the same thread.
    fn take_pending(&mut self) -> Option<Chunk> {
        if self.events.is_empty() {
            return None;
        }
        Some(Chunk {
            tid: self.tid,
            thread_name: self.thread_name.clone(),
            events: std::mem::take(&mut self.events),
            args: std::mem::take(&mut self.args),
            text: std::mem::take(&mut self.text),
        })
    }

    fn is_full(&self) -> bool {
        self.events.len() >= EVENTS_PER_CHUNK || self.text.len() >= TEXT_PER_CHUNK || self.args.len() >= 4 * EVENTS_PER_CHUNK
    }
}

/// The queue and its condition variables are std's (futex waits), not
/// parking_lot's: threads in teardown enqueue their last events here
/// (`flush_one`), and a parking_lot wait goes through a thread-local that,
/// first touched in a pthread key destructor (after the thread's
/// thread-local destructors ran), registers a destructor glibc never runs:
/// 32 bytes lost per exiting thread (valgrind, tests/sanitizers.rs).
static QUEUE: std::sync::Mutex<VecDeque<Chunk>> = std::sync::Mutex::new(VecDeque::new());
static NOT_EMPTY: std::sync::Condvar = std::sync::Condvar::new();
static NOT_FULL: std::sync::Condvar = std::sync::Condvar::new();

static POOL: Mutex<Vec<Chunk>> = Mutex::new(Vec::new());
static WRITER: Mutex<Option<Writer>> = Mutex::new(None);
/// Set once the final flush has closed the trace: later events are dropped.
static FINISHED: AtomicBool = AtomicBool::new(false);
pub static DROPPED: AtomicU64 = AtomicU64::new(0);
/// Batches the writer thread has taken from the queue and not yet written.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

struct Writer {
    file: File,
    path: String,
    pid: u32,
    first: bool,
    named: HashSet<i32>,
    events: u64,
    bytes: u64,
    buf: String,
}

/// Open the trace file and start the writer thread.
pub fn start(path: &str) -> bool {
    let mut file = match output::create(path, false) {
        Ok(f) => f,
        Err(e) => {
            log::warn!("cannot create the timeline file {path:?} ({e}); the timeline is off");
            return false;
        }
    };
    let pid = std::process::id();
    let comm = std::fs::read_to_string("/proc/self/comm").unwrap_or_default();
    let mut head = String::from("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"cudart-shim\",\"version\":\"");
    head.push_str(env!("CARGO_PKG_VERSION"));
    head.push_str("\"},\"traceEvents\":[\n");
    head.push_str(&format!(
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":0,\"args\":{{\"name\":\"{} (pid {pid})\"}}}}",
        escape(comm.trim())
    ));
    let ok = file.write_all(head.as_bytes()).and_then(|_| file.write_all(TRAILER)).and_then(|_| file.seek(SeekFrom::Current(-(TRAILER.len() as i64))));
    if let Err(e) = ok {
        log::warn!("cannot write the timeline file {path:?} ({e}); the timeline is off");
        return false;
    }
    *WRITER.lock() = Some(Writer {
        file,
        path: path.to_owned(),
        pid,
        first: false,
        named: HashSet::new(),
        events: 0,
        bytes: head.len() as u64,
        buf: String::new(),
    });
    if let Err(e) = std::thread::Builder::new().name("cudart-shim-tl".into()).spawn(writer_loop) {
        log::warn!("cannot start the timeline writer thread ({e}); events are written at flush and exit");
    }
    log::debug!("timeline: writing to {path}");
    true
}

fn writer_loop() {
    loop {
        let batch: Vec<Chunk> = {
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
        write_batch(batch, false);
        IN_FLIGHT.fetch_sub(1, AcqRel);
    }
}

fn write_batch(batch: Vec<Chunk>, progress: bool) {
    let mut w = WRITER.lock();
    let Some(w) = w.as_mut() else { return };
    let total: usize = batch.iter().map(|c| c.events.len()).sum();
    let show = progress && total > 50_000;
    let mut done = 0usize;
    let mut last = std::time::Instant::now();
    let mut back = Vec::with_capacity(batch.len());
    for mut c in batch {
        w.write_chunk(&c);
        done += c.events.len();
        if show && last.elapsed().as_millis() >= 250 {
            last = std::time::Instant::now();
            eprint!("\rcudart-shim: writing timeline {}: {done}/{total} events, {} MiB", w.path, w.bytes >> 20);
        }
        c.events.clear();
        c.args.clear();
        c.text.clear();
        back.push(c);
    }
    if show {
        eprintln!("\rcudart-shim: wrote timeline {}: {} events, {} MiB          ", w.path, w.events, w.bytes >> 20);
    }
    if progress {
        // The final write: say in the trace itself what could not be kept.
        let dropped = DROPPED.load(Relaxed);
        if dropped > 0 {
            w.buf.clear();
            w.sep();
            let pid = w.pid;
            w.buf.push_str(&format!(
                "{{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":{pid},\"tid\":0,\"args\":{{\"labels\":\"cudart-shim dropped {dropped} events (the writer could not keep up)\"}}}}"
            ));
            let _ = w.file.write_all(w.buf.as_bytes());
            log::warn!("timeline {}: {dropped} events dropped while the writer could not keep up", w.path);
        }
    }
    w.close_json();
    let mut pool = POOL.lock();
    for c in back {
        if pool.len() < QUEUE_MAX {
            pool.push(c);
        }
    }
}

impl Writer {
    fn sep(&mut self) {
        self.buf.push_str(if self.first { "\n" } else { ",\n" });
        self.first = false;
    }

    fn write_chunk(&mut self, c: &Chunk) {
        use std::fmt::Write as _;
        self.buf.clear();
        let pid = self.pid;
        if !c.events.is_empty() && self.named.insert(c.tid) {
            self.sep();
            let _ = write!(
                self.buf,
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}",
                c.tid,
                escape(&c.thread_name)
            );
        }
        // Hand-formatted (no `write!`): this loop bounds how fast a program
        // that makes calls back to back can run with the timeline on. The
        // members every call event of this thread shares are formatted once.
        let call_mid = format!("\",\"cat\":\"cuda_api\",\"ph\":\"X\",\"pid\":{pid},\"tid\":{},\"ts\":", c.tid);
        for e in &c.events {
            self.sep();
            let b = &mut self.buf;
            if e.kind == KIND_COUNTER {
                let _ = write!(
                    b,
                    "{{\"name\":\"device memory allocated (bytes)\",\"cat\":\"memory\",\"ph\":\"C\",\"pid\":{pid},\"tid\":{},\"ts\":",
                    c.tid
                );
                push_us(b, clock::since_start_ns(e.t0) as u64);
                b.push_str(",\"args\":{\"bytes\":");
                push_int(b, e.value);
                b.push_str("}}");
                continue;
            }
            b.push_str("{\"name\":\"");
            b.push_str(super::site_name(e.site));
            b.push_str(&call_mid);
            push_us(b, clock::since_start_ns(e.t0) as u64);
            b.push_str(",\"dur\":");
            push_us(b, clock::to_ns(e.dt));
            b.push_str(",\"args\":{\"result\":\"");
            super::args::result_name(e.result, b);
            b.push_str("\",\"depth\":");
            push_int(b, e.depth);
            write_kept(&c.args[e.text.0 as usize..e.text.1 as usize], &c.text, b);
            b.push_str("}}");
        }
        self.events += c.events.len() as u64;
        self.bytes += self.buf.len() as u64;
        if let Err(e) = self.file.write_all(self.buf.as_bytes()) {
            log::warn!("timeline {}: write failed ({e})", self.path);
        }
    }

    /// Append the closing brackets and step back over them: the file is a
    /// complete JSON document now, and the next batch overwrites them.
    fn close_json(&mut self) {
        let _ = self.file.write_all(TRAILER).and_then(|_| self.file.seek(SeekFrom::Current(-(TRAILER.len() as i64))));
    }
}

/// Nanoseconds written as microseconds with three decimals.
fn push_us(out: &mut String, ns: u64) {
    push_int(out, ns / 1000);
    let f = ns % 1000;
    let frac = [b'.', b'0' + (f / 100) as u8, b'0' + (f / 10 % 10) as u8, b'0' + (f % 10) as u8];
    // SAFETY: four ASCII bytes.
    out.push_str(unsafe { std::str::from_utf8_unchecked(&frac) });
}

/// JSON string escaping for names we did not write ourselves.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    escape_into(s, &mut o);
    o
}

pub fn escape_into(s: &str, o: &mut String) {
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
}

/// Append an event to this thread's chunk; `fill` keeps its arguments.
#[inline]
pub fn push(chunk: &Mutex<Chunk>, mut ev: Event, fill: impl FnOnce(&mut Vec<Kept>, &mut String)) {
    if FINISHED.load(Relaxed) {
        DROPPED.fetch_add(1, Relaxed);
        return;
    }
    let mut guard = chunk.lock();
    let c = &mut *guard;
    let start = c.args.len();
    fill(&mut c.args, &mut c.text);
    ev.text = (start as u32, c.args.len() as u32);
    c.events.push(ev);
    if c.is_full() {
        let fresh = POOL.lock().pop().unwrap_or_else(|| Chunk::new(0, String::new()));
        let full = std::mem::replace(&mut *c, fresh);
        c.tid = full.tid;
        c.thread_name = full.thread_name.clone();
        drop(guard);
        enqueue(full);
    }
}

/// How long a caller waits for room in the queue before its chunk is
/// dropped (see the module note).
const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// Set when a caller gave up waiting; cleared when the writer takes a
/// batch. While set, a full queue drops at once: one wait per stall, not
/// one per chunk.
static STALLED: AtomicBool = AtomicBool::new(false);

fn enqueue(c: Chunk) {
    let mut q = super::lock(&QUEUE);
    let deadline = std::time::Instant::now() + MAX_WAIT;
    while q.len() >= QUEUE_MAX {
        if FINISHED.load(Relaxed) || STALLED.load(Relaxed) || std::time::Instant::now() >= deadline {
            STALLED.store(true, Relaxed);
            DROPPED.fetch_add(c.events.len() as u64, Relaxed);
            return;
        }
        q = NOT_FULL.wait_timeout(q, std::time::Duration::from_millis(20)).unwrap_or_else(std::sync::PoisonError::into_inner).0;
    }
    q.push_back(c);
    drop(q);
    NOT_EMPTY.notify_one();
}

/// Write every pending event (the queue and each thread's chunk) now.
/// `last`: the final flush; later events are dropped.
pub fn flush<'a>(chunks: impl Iterator<Item = &'a Mutex<Chunk>>, last: bool) {
    if FINISHED.load(Relaxed) || WRITER.lock().is_none() {
        return;
    }
    if last {
        FINISHED.store(true, Relaxed);
    }
    // Take what is queued, and wait for a batch the writer thread already
    // took: at exit the process ends as soon as this returns.
    let mut batch: Vec<Chunk> = Vec::new();
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
    batch.extend(chunks.filter_map(|m| m.lock().take_pending()));
    write_batch(batch, last);
    if last {
        let mut w = WRITER.lock();
        if let Some(w) = w.as_mut() {
            let _ = w.file.flush();
            log::debug!("timeline {}: {} events", w.path, w.events);
        }
    }
}

/// Hand a retiring thread's pending events to the writer.
pub fn flush_one(chunk: &Mutex<Chunk>) {
    if FINISHED.load(Relaxed) {
        return;
    }
    let taken = chunk.lock().take_pending();
    if let Some(c) = taken {
        enqueue(c);
    }
}

/// A forked child has no writer thread and may have inherited a held lock:
/// it writes no timeline.
pub fn disable_in_child() {
    FINISHED.store(true, Relaxed);
    std::mem::forget(WRITER.try_lock().map(|mut w| w.take()));
}

#[cfg(test)]
mod tests {
    #[test]
    fn microseconds_with_three_decimals() {
        for (ns, us) in [(0u64, "0.000"), (7, "0.007"), (999, "0.999"), (1000, "1.000"), (123_456_789, "123456.789"), (10_050, "10.050")] {
            let mut s = String::new();
            super::push_us(&mut s, ns);
            assert_eq!(s, us);
        }
    }
}
