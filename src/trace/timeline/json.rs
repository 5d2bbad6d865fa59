//! The timeline as Chrome trace event JSON (`{"traceEvents":[...]}`),
//! which Perfetto's UI and chrome://tracing load. Each object on a line of
//! its own; the closing `]}` is the trailer the writer steps back over.

use super::{push_us, View};
use crate::trace::event::names::{domain_name, site_name, status_name};
use crate::trace::event::{nvtx_color, tracks, Event, GpuEvent, GpuSlice, GpuWhat, Mem, KIND_MEMORY, KIND_NVTX_ASYNC, KIND_NVTX_RANGE};
use crate::trace::args::{escape_into, push_int, write_kept};
use crate::trace::event::clock;
use crate::trace::output;
use std::collections::HashSet;
use std::fmt::Write as _;

pub(super) struct Json {
    pid: u32,
    /// Threads whose `thread_name` record is written.
    named: HashSet<i32>,
    /// GPU stream tracks seen (their records are written again at a
    /// restart).
    gpu_tracks: Vec<GpuEvent>,
    buf: String,
}

impl Json {
    pub(super) fn new() -> Json {
        Json { pid: std::process::id(), named: HashSet::new(), gpu_tracks: Vec::new(), buf: String::new() }
    }
}

impl super::Format for Json {
    fn head(&mut self) -> &[u8] {
        let pid = self.pid;
        // Who wrote the trace and when its clock started (`otherData.process`;
        // each flush adds a later sample, see `process`).
        let process = output::process_record();
        let b = &mut self.buf;
        b.clear();
        b.push_str("{\"displayTimeUnit\":\"ns\",");
        open_events(b, pid, &process, "");
        self.buf.as_bytes()
    }

    fn trailer(&self) -> &'static [u8] {
        TRAILER
    }

    fn host(&mut self, tid: i32, thread_name: &str, c: &View<'_>) -> &[u8] {
        self.buf.clear();
        let pid = self.pid;
        let thread_name = &*tracks::thread_name(tid, thread_name);
        if self.named.insert(tid) {
            thread_name_object(&mut self.buf, pid, tid, thread_name);
        }
        // Hand-formatted (no `write!`): this loop bounds how fast a program
        // that makes calls back to back can run with the timeline on. The
        // members every call event of this thread shares are formatted once.
        let call_mid = format!("\",\"cat\":\"cuda_api\",\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":");
        for e in c.events {
            self.buf.push_str(",\n");
            let b = &mut self.buf;
            if e.kind >= KIND_NVTX_RANGE {
                nvtx(b, &mut self.named, pid, tid, thread_name, e, c);
                continue;
            }
            if e.kind == KIND_MEMORY {
                memory(b, pid, tid, e);
                continue;
            }
            if e.value != 0 {
                // The start of the arrow to the GPU work this call launched
                // (its end: the GPU slice, trace/gpu).
                b.push_str("{\"name\":\"launch\",\"cat\":\"gpu_launch\",\"ph\":\"s\",\"id\":");
                push_int(b, e.value);
                b.push_str(&call_mid[call_mid.find(",\"pid").unwrap_or(0)..]);
                push_us(b, clock::since_start_ns(e.t0) as u64);
                b.push_str("},\n");
            }
            b.push_str("{\"name\":\"");
            b.push_str(site_name(e.site));
            b.push_str(&call_mid);
            push_us(b, clock::since_start_ns(e.t0) as u64);
            b.push_str(",\"dur\":");
            push_us(b, clock::to_ns(e.dt));
            b.push_str(",\"args\":{\"result\":\"");
            status_name(e.site, e.result, b);
            b.push_str("\",\"depth\":");
            push_int(b, e.depth);
            write_kept(&c.args[e.args.0 as usize..e.args.1 as usize], c.text, b);
            b.push_str("}}");
        }
        self.buf.as_bytes()
    }

    fn gpu(&mut self, events: &[GpuEvent]) -> &[u8] {
        self.buf.clear();
        let pid = self.pid;
        for e in events {
            self.buf.push_str(",\n");
            gpu_object(pid, e, &mut self.buf);
            if let GpuEvent::Track { device, stream, tid } = e {
                self.gpu_tracks.push(GpuEvent::Track { device: *device, stream: *stream, tid: *tid });
            }
        }
        self.buf.as_bytes()
    }

    fn marker(&mut self, text: &str) -> &[u8] {
        self.buf.clear();
        marker(&mut self.buf, self.pid, text, clock::since_start_ns(clock::ticks()) as u64);
        self.buf.as_bytes()
    }

    fn restart(&mut self) -> &[u8] {
        self.named.clear();
        self.buf.clear();
        let pid = self.pid;
        for e in &self.gpu_tracks {
            self.buf.push_str(",\n");
            gpu_object(pid, e, &mut self.buf);
        }
        self.buf.as_bytes()
    }

    fn dropped(&mut self, n: u64, why: &str) -> &[u8] {
        self.buf.clear();
        dropped(&mut self.buf, self.pid, n, why);
        self.buf.as_bytes()
    }

    fn process(&mut self) -> &[u8] {
        self.buf.clear();
        process(&mut self.buf, self.pid);
        self.buf.as_bytes()
    }
}

/// What closes the file (stepped back over after each batch), for the
/// Kineto form too.
pub(super) const TRAILER: &[u8] = b"\n]}\n";

// The process's own objects, shared with the Kineto form (kineto.rs).
// Each but the first is appended after a separator.

/// The end of the head: `otherData` (who wrote the trace, `extra`
/// members, the process record), the start of `traceEvents` and its first
/// event, the metadata naming the process.
pub(super) fn open_events(b: &mut String, pid: u32, process: &trace_format::process::Process, extra: &str) {
    b.push_str("\"otherData\":{\"producer\":\"cudart-shim\",");
    b.push_str(extra);
    b.push_str("\"version\":\"");
    b.push_str(env!("CARGO_PKG_VERSION"));
    b.push_str("\",\"process\":");
    b.push_str(&process.to_json().to_string());
    b.push_str("},\"traceEvents\":[\n");
    let comm = std::fs::read_to_string("/proc/self/comm").unwrap_or_default();
    let _ = write!(
        b,
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":0,\"args\":{{\"name\":\"{}: {}\"}}}}",
        escape(comm.trim()),
        escape(&process.label())
    );
}

/// The metadata naming a thread.
pub(super) fn thread_name_object(b: &mut String, pid: u32, tid: i32, name: &str) {
    let _ = write!(b, ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":\"{}\"}}}}", escape(name));
}

/// A marker at `ts_ns` on the process's track.
pub(super) fn marker(b: &mut String, pid: u32, text: &str, ts_ns: u64) {
    let _ = write!(b, ",\n{{\"name\":\"{}\",\"cat\":\"cudart_shim\",\"ph\":\"i\",\"s\":\"p\",\"pid\":{pid},\"tid\":0,\"ts\":", escape(text));
    push_us(b, ts_ns);
    b.push('}');
}

/// How many events were dropped and why, as a process label.
pub(super) fn dropped(b: &mut String, pid: u32, n: u64, why: &str) {
    let _ = write!(
        b,
        ",\n{{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":{pid},\"tid\":0,\"args\":{{\"labels\":\"cudart-shim dropped {n} events ({})\"}}}}",
        escape(why)
    );
}

/// The process record with a clock sample taken now.
pub(super) fn process(b: &mut String, pid: u32) {
    let record = output::process_record().to_json();
    let _ = write!(b, ",\n{{\"name\":\"cudart_shim_process\",\"ph\":\"M\",\"pid\":{pid},\"tid\":0,\"args\":{record}}}");
}

/// One GPU event as a JSON object (a track is two metadata objects).
pub(in crate::trace) fn gpu_object(pid: u32, e: &GpuEvent, s: &mut String) {
    match e {
        GpuEvent::Track { device, stream, tid } => {
            let _ = write!(
                s,
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":\"{}\"}}}}",
                escape(&tracks::gpu_track_name(*device, *stream))
            );
            s.push_str(",\n");
            let _ = write!(s, "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"sort_index\":{tid}}}}}");
        }
        GpuEvent::FlowEnd { tid, ts, id } => {
            let _ = write!(s, "{{\"name\":\"launch\",\"cat\":\"gpu_launch\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{id},\"pid\":{pid},\"tid\":{tid},\"ts\":");
            push_us(s, *ts);
            s.push('}');
        }
        GpuEvent::Slice(a) => slice(pid, a, s),
    }
}

/// The slice of one activity, with its arguments.
fn slice(pid: u32, a: &GpuSlice, s: &mut String) {
    s.push_str("{\"name\":\"");
    escape_into(&a.name, s);
    let cat = match &a.what {
        GpuWhat::Kernel { .. } => "gpu_kernel",
        GpuWhat::Copy { .. } => "gpu_memcpy",
        GpuWhat::Set { .. } => "gpu_memset",
    };
    let (tid, dur) = (a.tid, a.dur);
    let _ = write!(s, "\",\"cat\":\"{cat}\",\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":");
    push_us(s, a.ts);
    s.push_str(",\"dur\":");
    push_us(s, dur);
    let _ = write!(s, ",\"args\":{{\"device\":{},\"stream\":{},\"correlation\":{}", a.device, a.stream, a.correlation);
    if a.launch != 0 {
        let _ = write!(s, ",\"launch\":{}", a.launch);
    }
    if a.graph != 0 {
        let _ = write!(s, ",\"graph\":{}", a.graph);
    }
    if let GpuWhat::Kernel { grid, block, registers, static_shared, dynamic_shared } = &a.what {
        let _ = write!(
            s,
            ",\"grid\":\"[{}, {}, {}]\",\"block\":\"[{}, {}, {}]\",\"registers per thread\":{registers},\"static shared memory\":{static_shared},\"dynamic shared memory\":{dynamic_shared}",
            grid[0], grid[1], grid[2], block[0], block[1], block[2]
        );
    }
    memory_op_args(s, &a.what, dur, "bandwidth (GB/s)");
    s.push_str("}}");
}

/// A copy's or memset's own arguments: its operation (the GPU tables'
/// name), a memset's value, its bytes and bandwidth (named `bw`: the
/// Kineto form names it as Kineto does); nothing for a kernel.
pub(super) fn memory_op_args(s: &mut String, what: &GpuWhat, dur: u64, bw: &str) {
    let (op, bytes) = match what {
        GpuWhat::Kernel { .. } => return,
        GpuWhat::Copy { op, bytes } => (*op, *bytes),
        GpuWhat::Set { bytes, .. } => (trace_format::gpu_table::MEMSET, *bytes),
    };
    let _ = write!(s, ",\"operation\":\"{op}\"");
    if let GpuWhat::Set { value, .. } = what {
        let _ = write!(s, ",\"value\":{value}");
    }
    let _ = write!(s, ",\"bytes\":{bytes},\"{bw}\":{:.3}", bytes as f64 / dur.max(1) as f64);
}

/// One NVTX event as JSON (see the `KIND_NVTX_*` notes): a push/pop range
/// is a slice on the NVTX track of its thread and domain (named on first
/// use), a start/end range an async slice pair, a mark an instant.
fn nvtx(b: &mut String, named: &mut HashSet<i32>, pid: u32, tid: i32, thread_name: &str, e: &Event, c: &View<'_>) {
    use std::fmt::Write as _;
    let args = &c.args[e.args.0 as usize..e.args.1 as usize];
    let domain = domain_name(e.site);
    let track = tracks::nvtx_track(tid, e.site);
    if e.kind != KIND_NVTX_ASYNC && named.insert(track) {
        let label = if domain.is_empty() { format!("NVTX {thread_name}") } else { format!("NVTX {domain} {thread_name}") };
        let _ = writeln!(b, "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{track},\"args\":{{\"name\":\"{}\"}}}},", escape(&label));
    }
    let mut message = String::new();
    if let Some(k) = args.iter().find(|k| k.name == "message") {
        k.write_value(c.text, &mut message);
    }
    let mut members = String::new();
    if !domain.is_empty() {
        members.push_str(",\"domain\":\"");
        escape_into(domain, &mut members);
        members.push('"');
    }
    if let Some(col) = nvtx_color(e.value) {
        let _ = write!(members, ",\"color\":\"#{:06x}\"", col & 0xff_ffff);
    }
    let rest: Vec<crate::trace::args::Kept> = args.iter().filter(|k| k.name != "message").copied().collect();
    write_kept(&rest, c.text, &mut members);
    let ts = clock::since_start_ns(e.t0) as u64;
    let head = |b: &mut String, ph: &str| {
        b.push_str("{\"name\":\"");
        escape_into(&message, b);
        let _ = write!(b, "\",\"cat\":\"nvtx\",\"ph\":\"{ph}\",\"pid\":{pid},");
    };
    match e.kind {
        KIND_NVTX_RANGE => {
            head(b, "X");
            let _ = write!(b, "\"tid\":{track},\"ts\":");
            push_us(b, ts);
            b.push_str(",\"dur\":");
            push_us(b, clock::to_ns(e.dt));
            let _ = write!(b, ",\"args\":{{\"level\":{}{members}}}}}", e.depth);
        }
        KIND_NVTX_ASYNC => {
            head(b, "b");
            let _ = write!(b, "\"tid\":{tid},\"id\":{},\"ts\":", e.result);
            push_us(b, ts);
            let _ = writeln!(b, ",\"args\":{{\"style\":\"StartEnd\"{members}}}}},");
            head(b, "e");
            let _ = write!(b, "\"tid\":{tid},\"id\":{},\"ts\":", e.result);
            push_us(b, ts + clock::to_ns(e.dt));
            b.push('}');
        }
        _ => {
            head(b, "i");
            let _ = write!(b, "\"s\":\"t\",\"tid\":{track},\"ts\":");
            push_us(b, ts);
            let _ = write!(b, ",\"args\":{{\"mark\":true{members}}}}}");
        }
    }
}

/// A ledger change ([`KIND_MEMORY`]): an instant on the thread's track
/// with its size, kind, device and library, and a sample of the counter
/// track of its device and kind (bytes live).
fn memory(b: &mut String, pid: u32, tid: i32, e: &Event) {
    let m = Mem::of(e);
    let ts = clock::since_start_ns(e.t0) as u64;
    let _ = write!(b, "{{\"name\":\"{}\",\"cat\":\"memory\",\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":{tid},\"ts\":", m.what);
    push_us(b, ts);
    let _ = write!(b, ",\"args\":{{\"bytes\":{},\"kind\":\"{}\",\"device\":{},\"library\":\"", m.bytes, m.kind, m.device);
    escape_into(&m.library, b);
    b.push_str("\"}},\n{\"name\":\"");
    escape_into(&m.track_name(), b);
    let _ = write!(b, "\",\"cat\":\"memory\",\"ph\":\"C\",\"pid\":{pid},\"tid\":{tid},\"ts\":");
    push_us(b, ts);
    let _ = write!(b, ",\"args\":{{\"bytes\":{}}}}}", m.live);
}

/// JSON string escaping for names we did not write ourselves.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    escape_into(s, &mut o);
    o
}
