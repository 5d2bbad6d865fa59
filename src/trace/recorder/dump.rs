//! The recorder's dump: the failing thread's last calls on stderr, every
//! ring as a call log (the call log's line format) and as a timeline in
//! the timeline's format (Perfetto's protobuf by default, [`super::proto`];
//! Chrome JSON when the timeline format is `json`), both files named on
//! stderr.
//!
//! Async-signal-safe, whatever triggered it, because a crash signal may
//! interrupt any code, malloc and our own locks included:
//! - the text is built in one buffer reserved at start ([`prepare`]) and
//!   emptied to the file whenever it nears its capacity, so no push ever
//!   grows it (no allocation);
//! - the file names are C strings made at start; `open(2)` and `write(2)`
//!   are the only system calls;
//! - rings are read through their seqlocks (no lock);
//! - arguments are decoded by their capture's formatters, which write
//!   numbers, hex and enum names from static tables; a kernel's name is
//!   looked up (under the kernel registry's lock) only outside a signal.
//!
//! One dump at a time: a second trigger while one runs (another thread's
//! crash) is skipped and says so on stderr.

use super::ring::Entry;
use crate::trace::args::{push_int, set_names_in_dump, Kept};
use crate::trace::event::clock;
use crate::trace::event::names::{site_name, status_name};
use std::cell::UnsafeCell;
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering::*};
use std::sync::OnceLock;

/// The failing thread's calls shown on stderr.
pub const STDERR_CALLS: usize = 16;
/// Room kept free in the buffer before formatting one more line.
const MARGIN: usize = 16 * 1024;
const CAPACITY: usize = 256 * 1024;

struct Prepared {
    log: CString,
    timeline: CString,
    /// The two names as the stderr lines show them.
    log_name: String,
    timeline_name: String,
}

/// The current names (leaked; replaced in a forked child, see
/// [`rename_for_child`]).
static FILES: AtomicPtr<Prepared> = AtomicPtr::new(std::ptr::null_mut());

fn files() -> Option<&'static Prepared> {
    // SAFETY: null or a leaked Prepared, never freed.
    unsafe { FILES.load(Acquire).as_ref() }
}

struct Buf<T>(UnsafeCell<T>);
// SAFETY: used only by the one dump that holds `DUMPING`.
unsafe impl<T> Sync for Buf<T> {}
static BUF: OnceLock<Buf<String>> = OnceLock::new();
/// The protobuf timeline's bytes (not text), reserved like [`BUF`].
static PBUF: OnceLock<Buf<Vec<u8>>> = OnceLock::new();
static DUMPING: AtomicBool = AtomicBool::new(false);
/// The dump's timeline is Perfetto's protobuf (else Chrome JSON); set once
/// at start, from the timeline format.
static PROTOBUF: AtomicBool = AtomicBool::new(true);

/// The timeline's name beside call log `file`: `X.log` -> `X.pftrace`
/// (`X.json` in the JSON format), anything else gets the extension
/// appended.
pub fn timeline_name(file: &str, protobuf: bool) -> String {
    let ext = if protobuf { "pftrace" } else { "json" };
    match file.strip_suffix(".log") {
        Some(stem) => format!("{stem}.{ext}"),
        None => format!("{file}.{ext}"),
    }
}

/// Make the buffers and the file names (not the files: nothing is written
/// until a dump); `protobuf`: the timeline's format.
pub fn prepare(file: &str, protobuf: bool) -> bool {
    PROTOBUF.store(protobuf, Relaxed);
    let abs = |p: &str| -> String {
        if p.starts_with('/') {
            return p.to_owned();
        }
        std::env::current_dir().map(|d| d.join(p).display().to_string()).unwrap_or_else(|_| p.to_owned())
    };
    // Absolute now: a program that changes folder later still finds them.
    if !set_names(&abs(file)) {
        log::warn!("recorder: the file name {file:?} holds a NUL byte; the recorder is off");
        return false;
    }
    let _ = BUF.set(Buf(UnsafeCell::new(String::with_capacity(CAPACITY))));
    if protobuf {
        let _ = PBUF.set(Buf(UnsafeCell::new(Vec::with_capacity(CAPACITY))));
    }
    true
}

fn set_names(log_name: &str) -> bool {
    let timeline_name = timeline_name(log_name, PROTOBUF.load(Relaxed));
    let (Ok(log), Ok(timeline)) = (CString::new(log_name), CString::new(timeline_name.clone())) else { return false };
    let p = Box::into_raw(Box::new(Prepared { log, timeline, log_name: log_name.to_owned(), timeline_name }));
    // The previous names stay allocated: a dump may be reading them.
    FILES.store(p, Release);
    true
}

/// A forked child dumps to its own files (`NAME.<pid>.log`), not over its
/// parent's.
pub fn rename_for_child() {
    if let Some(f) = files() {
        let _ = set_names(&crate::trace::output::with_tag(&f.log_name, &std::process::id().to_string()));
    }
}

/// An open file of the dump, or stderr: writes go through the buffer.
struct Out<'a> {
    fd: i32,
    buf: &'a mut String,
}

impl Out<'_> {
    /// Make room for one more line: empty the buffer to the file when it
    /// nears its capacity. Never grows it.
    fn room(&mut self) {
        if self.buf.capacity() - self.buf.len() < MARGIN {
            self.flush();
        }
    }

    fn flush(&mut self) {
        crate::trace::output::write_all(self.fd, self.buf.as_bytes());
        self.buf.clear();
    }

    /// `s` cut to what fits (names and reasons are short; this only
    /// guards the no-growth rule).
    fn push(&mut self, s: &str) {
        let free = self.buf.capacity() - self.buf.len();
        let mut n = s.len().min(free);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.buf.push_str(&s[..n]);
    }
}

/// Open a dump file (async-signal-safe: `open(2)` only).
fn open(path: &CString) -> i32 {
    // SAFETY: a valid C string; the flags and mode are plain values.
    unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_NOFOLLOW | libc::O_CLOEXEC, 0o600 as libc::c_uint) }
}

/// Dump every ring; `why` says what triggered it (shown on stderr and in
/// both files). Async-signal-safe (see the module note).
pub fn dump(why: &str) {
    dump_from(why, false);
}

/// [`dump`] from a signal handler: kernel names are not looked up.
pub fn dump_in_signal(why: &str) {
    dump_from(why, true);
}

fn dump_from(why: &str, in_signal: bool) {
    let (Some(files), Some(buf)) = (files(), BUF.get()) else { return };
    if DUMPING.swap(true, Acquire) {
        crate::trace::output::write_all(2, b"cudart-shim recorder: a second dump was asked while one runs; skipped\n");
        return;
    }
    // SAFETY: DUMPING gives this dump the buffer alone.
    let buf = unsafe { &mut *buf.0.get() };
    buf.clear();
    if in_signal {
        set_names_in_dump(false);
    }
    let tid = crate::trace::gettid();
    let pid = std::process::id();

    // stderr: what happened, where the files are, this thread's last calls.
    let mut err = Out { fd: 2, buf };
    err.push("cudart-shim recorder: ");
    err.push(why);
    err.push(" on thread ");
    push_int(err.buf, tid);
    err.push("; the last calls of every thread are in ");
    err.push(&files.log_name);
    err.push(" (call log) and ");
    err.push(&files.timeline_name);
    err.push(" (timeline)\n");
    let own = super::rings().find(|r| r.tid.load(Acquire) == tid);
    match own {
        Some(r) => {
            let head = r.recorded();
            let first = head.saturating_sub(STDERR_CALLS.min(r.capacity()) as u64);
            err.push("cudart-shim recorder: this thread's last ");
            push_int(err.buf, head - first);
            err.push(" calls, oldest first:\n");
            for n in first..head {
                if let Some(e) = r.read(n) {
                    err.room();
                    line(err.buf, tid, &e);
                }
            }
        }
        None => err.push("cudart-shim recorder: this thread made no recorded call\n"),
    }
    err.flush();

    // The call log.
    to_file(&files.log, &files.log_name, err.buf, |log| {
        log.push("# cudart-shim recorder dump: ");
        log.push(why);
        log.push(" (pid ");
        push_int(log.buf, pid);
        log.push(", thread ");
        push_int(log.buf, tid);
        log.push(")\n");
        for r in super::rings() {
            let rt = r.tid.load(Acquire);
            let head = r.recorded();
            if head == 0 {
                continue;
            }
            log.room();
            log.push("# thread ");
            push_int(log.buf, rt);
            log.push(": its last ");
            push_int(log.buf, head.min(r.capacity() as u64));
            log.push(" of ");
            push_int(log.buf, head);
            log.push(" calls\n");
            r.for_each(|_, e| {
                log.room();
                line(log.buf, rt, e);
            });
        }
    });

    // The timeline: Perfetto's protobuf (the default format), or one JSON
    // document.
    if let (true, Some(pbuf)) = (PROTOBUF.load(Relaxed), PBUF.get()) {
        // SAFETY: DUMPING gives this dump the buffer alone.
        let pbuf = unsafe { &mut *pbuf.0.get() };
        pbuf.clear();
        let fd = open(&files.timeline);
        if fd < 0 {
            note_open_failed(err.buf, &files.timeline_name);
        } else {
            let mut pb = super::proto::Pb { fd, b: pbuf };
            pb.header(pid, why, tid, err.buf);
            for r in super::rings() {
                let rt = r.tid.load(Acquire);
                if r.recorded() == 0 {
                    continue;
                }
                pb.thread(pid, rt);
                r.for_each(|_, e| pb.call(pid, rt, e, err.buf));
            }
            pb.flush();
            // SAFETY: our descriptor.
            unsafe { libc::close(fd) };
        }
    } else {
        json_timeline(files, err.buf, why, pid, tid);
    }
    if in_signal {
        set_names_in_dump(true);
    }
    DUMPING.store(false, Release);
}

/// The timeline as one Chrome JSON document.
fn json_timeline(files: &Prepared, buf: &mut String, why: &str, pid: u32, tid: i32) {
    to_file(&files.timeline, &files.timeline_name, buf, |js| {
        js.push("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"cudart-shim recorder\",\"version\":\"");
        js.push(env!("CARGO_PKG_VERSION"));
        js.push("\",\"reason\":\"");
        push_escaped(js.buf, why);
        js.push("\",\"thread\":");
        push_int(js.buf, tid);
        js.push("},\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
        push_int(js.buf, pid);
        js.push(",\"tid\":0,\"args\":{\"name\":\"cudart-shim recorder\"}}");
        for r in super::rings() {
            let rt = r.tid.load(Acquire);
            r.for_each(|_, e| {
                js.room();
                js.buf.push_str(",\n");
                event(js.buf, pid, rt, e);
            });
        }
        js.push("\n]}\n");
    });
}

/// Create `path`, write what `body` puts in the buffer, close it; if it
/// cannot be created, say so on stderr.
fn to_file(path: &CString, name: &str, buf: &mut String, body: impl FnOnce(&mut Out<'_>)) {
    buf.clear();
    let fd = open(path);
    if fd < 0 {
        return note_open_failed(buf, name);
    }
    let mut out = Out { fd, buf };
    body(&mut out);
    out.flush();
    // SAFETY: our descriptor.
    unsafe { libc::close(fd) };
}

fn note_open_failed(buf: &mut String, name: &str) {
    let mut err = Out { fd: 2, buf };
    err.buf.clear();
    err.push("cudart-shim recorder: cannot create ");
    err.push(name);
    err.push(" (errno ");
    push_int(err.buf, std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
    err.push("); that part of the dump is lost\n");
    err.flush();
}

/// One call as the call log writes it.
fn line(out: &mut String, tid: i32, e: &Entry) {
    crate::trace::write_call_line(out, (tid, e.depth as u32), e.site, e.result, e.dt, |_| {}, |o| write_args(e.args(), o));
}

fn write_args(args: &[Kept], out: &mut String) {
    for (i, k) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(k.name);
        out.push('=');
        k.write_value("", out);
    }
}

/// One call as the timeline writes a call event (`cuda_api`, `X`).
fn event(b: &mut String, pid: u32, tid: i32, e: &Entry) {
    b.push_str("{\"name\":\"");
    b.push_str(site_name(e.site));
    b.push_str("\",\"cat\":\"cuda_api\",\"ph\":\"X\",\"pid\":");
    push_int(b, pid);
    b.push_str(",\"tid\":");
    push_int(b, tid);
    b.push_str(",\"ts\":");
    crate::trace::timeline::push_us(b, clock::since_start_ns(e.t0) as u64);
    b.push_str(",\"dur\":");
    crate::trace::timeline::push_us(b, clock::to_ns(e.dt));
    b.push_str(",\"args\":{\"result\":\"");
    status_name(e.site, e.result, b);
    b.push_str("\",\"depth\":");
    push_int(b, e.depth);
    for k in e.args() {
        b.push_str(",\"");
        b.push_str(k.name);
        b.push_str("\":\"");
        let start = b.len();
        k.write_value("", b);
        sanitize(&mut b[start..]);
        b.push('"');
    }
    b.push_str("}}");
}

/// Make `b` safe inside a JSON string without
/// allocating: a quote, a backslash or a control byte becomes `?` (the
/// formatters write numbers, hex and names; this only guards the form).
fn sanitize(b: &mut str) {
    // SAFETY: only ASCII bytes are replaced by an ASCII byte, so the
    // string stays UTF-8.
    for c in unsafe { b.as_bytes_mut() }.iter_mut() {
        if *c == b'"' || *c == b'\\' || *c < 0x20 {
            *c = b'?';
        }
    }
}

fn push_escaped(b: &mut String, s: &str) {
    let start = b.len();
    b.push_str(s);
    sanitize(&mut b[start..]);
}

/// cargo-fuzz's entry (fuzz/fuzz_targets/recorder_dump.rs; built with
/// `--cfg fuzzing` only). One input is a list of calls (function id,
/// depth, result, start, duration, up to 16 typed arguments, each captured
/// as a traced call captures it), put in a ring and decoded as a dump
/// decodes them: each call log line is one whole line, each timeline event
/// is one JSON object naming the function, its result and its arguments.
#[cfg(fuzzing)]
pub mod fuzzing {
    use super::{event, line, Entry};
    use crate::trace::args::CallArgs;
    use crate::types::{cudaError_t, cudaMemcpyKind, dim3};

    struct Bytes<'a>(&'a [u8]);

    impl Bytes<'_> {
        fn take<const N: usize>(&mut self) -> [u8; N] {
            let mut b = [0u8; N];
            let n = N.min(self.0.len());
            b[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            b
        }
        fn u8(&mut self) -> u8 {
            self.take::<1>()[0]
        }
        fn u32(&mut self) -> u32 {
            u32::from_le_bytes(self.take())
        }
        fn u64(&mut self) -> u64 {
            u64::from_le_bytes(self.take())
        }
    }

    const NAMES: [&str; 4] = ["devPtr", "count", "kind", "func"];

    pub fn one_input(data: &[u8]) {
        let mut r = Bytes(data);
        let ring = super::super::ring::Ring::new(8);
        let mut calls = 0;
        while !r.0.is_empty() && calls < 12 {
            let (site, depth, result, t0, dt) = (r.u32() % 4096, r.u8() as u32, r.u32() as i32, r.u64(), r.u64());
            let out_valid = r.u8() & 1 == 1;
            let mut c = CallArgs::new(out_valid);
            for _ in 0..(r.u8() % 18) {
                let name = NAMES[(r.u8() % 4) as usize];
                let v = r.u64();
                match r.u8() % 11 {
                    0 => c.arg(name, false, &v),
                    1 => c.arg(name, false, &(v as i32)),
                    2 => c.arg(name, false, &f32::from_bits(v as u32)),
                    3 => c.arg(name, false, &f64::from_bits(v)),
                    4 => c.arg(name, false, &(v & 1 == 1)),
                    5 => c.arg(name, false, &(v as usize as *const std::ffi::c_void)),
                    // A kernel's address, named when written (not found: hex).
                    6 => c.arg(name, true, &(v as usize as *const std::ffi::c_void)),
                    // An out-parameter: the pointee is read when the call succeeded.
                    7 => {
                        let mut out = v as i32;
                        c.arg(name, false, &(&mut out as *mut i32));
                    }
                    8 => c.arg(name, false, &cudaError_t(v as i32)),
                    9 => c.arg(name, false, &dim3 { x: v as u32, y: (v >> 32) as u32, z: v as u32 ^ 7 }),
                    _ => c.arg(name, false, &cudaMemcpyKind(v as i32)),
                }
            }
            ring.push(site, depth, result, t0, dt, c.kept());
            calls += 1;
        }
        ring.for_each(|_, e: &Entry| {
            let mut l = String::new();
            line(&mut l, 4242, e);
            assert!(l.ends_with('\n') && l.matches('\n').count() == 1, "{l:?}");
            assert!(l.contains(crate::trace::site_name(e.site)), "{l:?}");
            let mut j = String::new();
            event(&mut j, 7, 4242, e);
            let v: serde_json::Value = serde_json::from_str(&j).unwrap_or_else(|err| panic!("{err}: {j}"));
            assert_eq!(v["name"], crate::trace::site_name(e.site), "{j}");
            assert_eq!(v["args"]["depth"], e.depth as u64, "{j}");
            assert!(v["args"]["result"].as_str().is_some_and(|s| !s.is_empty()), "{j}");
            for k in e.args() {
                assert!(v["args"][k.name].is_string(), "{j}");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn timeline_name_beside_the_log() {
        assert_eq!(super::timeline_name("cudart-shim-recorder-7.log", true), "cudart-shim-recorder-7.pftrace");
        assert_eq!(super::timeline_name("cudart-shim-recorder-7.log", false), "cudart-shim-recorder-7.json");
        assert_eq!(super::timeline_name("/tmp/crash.txt", false), "/tmp/crash.txt.json");
    }
}
