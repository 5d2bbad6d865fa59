//! The timeline in the PyTorch profiler's (Kineto's) form of Chrome JSON,
//! which Holistic Trace Analysis reads (docs/HTA.md; the form's names are
//! shared with `cudart-shim report` in `trace_format::kineto`).
//!
//! - The head holds, before `traceEvents`, `distributedInfo` with
//!   `"rank": N` written with a space (HTA finds a file's rank with the
//!   regex `"rank":\s+(\d+)`, the first match in the file), then
//!   `deviceProperties` and `baseTimeNanoseconds` (the wall clock at the
//!   trace's zero).
//! - Timestamps: microseconds of the wall clock since
//!   `baseTimeNanoseconds`, a multiple of 10^14 ns shared by every process
//!   of a job (`trace_format::kineto::time_base`), so HTA lines ranks up
//!   as it does PyTorch's traces (as well as the hosts' clocks agree).
//! - Host calls: `cuda_runtime` / `cuda_driver` slices on the thread (no
//!   `stream`). A launch's `correlation` (the id of its launch arrow) is on
//!   the program's own call (depth 0) that made it, and on its GPU slice:
//!   with a driver call nested in a runtime call, the kernel is linked to
//!   the innermost call (trace/gpu), and HTA looks for `cudaLaunchKernel`
//!   (CUDA 13's `__cudaLaunchKernel` is written under that name, its own
//!   in an argument: `trace_format::kineto::kineto_name`).
//! - Waits (device, stream and event synchronize, stream-wait-event) are
//!   also `cuda_sync` slices (`Context Sync`, `Stream Sync`, `Event Sync`,
//!   `Stream Wait Event`); one on a stream is on that stream's GPU row
//!   when the stream's id is known (learned from launches on the handle
//!   whose GPU slices were already written), with `wait_on_stream` for an
//!   event recorded on a known stream; otherwise on the calling thread.
//! - GPU slices: process = device, thread = stream (as Kineto), `kernel`,
//!   `gpu_memcpy` (`Memcpy HtoD`, ...), `gpu_memset` (`Memset (Device)`),
//!   with `stream`, `device`, `correlation`, `External id`, `bytes` and
//!   `memory bandwidth (GB/s)`.
//! - NVTX ranges: `user_annotation` on the thread; with a step range
//!   (`CUDART_SHIM_STEP_RANGE`) each instance of it is `ProfilerStep#<n>`,
//!   numbered from 0 in the order they end; the program's own
//!   `ProfilerStep#N` ranges pass through.

use super::json;
use super::{push_us, View};
use crate::trace::args::{escape_into, push_int, write_kept, Kept};
use crate::trace::event::names::{domain_name, is_driver, site_name, status_name};
use crate::trace::event::{clock, nvtx_color, tracks, Event, GpuEvent, GpuSlice, GpuWhat, Mem, KIND_MEMORY, KIND_NVTX_ASYNC, KIND_NVTX_MARK, KIND_NVTX_RANGE};
use crate::trace::output;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use trace_format::kineto as k;

/// Learned stream handles kept at most (cleared past it).
const MAX_HANDLES: usize = 1 << 16;

pub(super) struct Kineto {
    pid: u32,
    buf: String,
    /// Host threads whose `thread_name` is written.
    named: HashSet<i32>,
    /// GPU rows named: devices, and (device, stream).
    devices: HashSet<u32>,
    streams: HashSet<(u32, u32)>,
    /// GPU track ids (trace/gpu's) to (device, stream), for flow ends.
    tracks: HashMap<u32, (u32, u32)>,
    /// `CUDART_SHIM_STEP_RANGE`, and the steps written so far.
    step: Option<String>,
    steps: u64,
    /// Per host thread: the innermost launch inside the depth-0 call not
    /// yet written (its depth, arrow id and start).
    inner: HashMap<i32, (u16, i64, u64)>,
    /// Launch arrow id -> the stream handle its call named (until its GPU
    /// slice is written), and handle -> (device, stream id).
    launch_handle: HashMap<i64, String>,
    handle_stream: HashMap<String, (u32, u32)>,
    /// Event handle -> the stream handle it was last recorded on.
    event_stream: HashMap<String, String>,
    /// Added to every timestamp (ns): see [`k::time_base`].
    shift: u64,
}

impl Kineto {
    pub(super) fn new() -> Kineto {
        let step = crate::config::trace_config().step_range.clone();
        Kineto {
            pid: std::process::id(),
            buf: String::new(),
            named: HashSet::new(),
            devices: HashSet::new(),
            streams: HashSet::new(),
            tracks: HashMap::new(),
            step,
            steps: 0,
            inner: HashMap::new(),
            launch_handle: HashMap::new(),
            handle_stream: HashMap::new(),
            event_stream: HashMap::new(),
            shift: 0,
        }
    }

    /// Name the GPU row of `device`/`stream` on first use.
    fn gpu_row(&mut self, device: u32, stream: u32) {
        if self.devices.insert(device) {
            let _ = write!(
                self.buf,
                ",\n{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{device},\"tid\":0,\"args\":{{\"name\":\"GPU {device}\"}}}},\n{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{device},\"tid\":0,\"args\":{{\"sort_index\":{}}}}}",
                1_000_000 + device
            );
        }
        if self.streams.insert((device, stream)) {
            let _ = write!(self.buf, ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{device},\"tid\":{stream},\"args\":{{\"name\":\"stream {stream}\"}}}}");
        }
    }
}

/// The value of the kept argument `name` (one of `names`) as text.
fn kept_value(args: &[Kept], text: &str, names: &[&str]) -> Option<String> {
    let k = args.iter().find(|k| names.contains(&k.name))?;
    let mut s = String::new();
    k.write_value(text, &mut s);
    Some(s)
}

/// The wait a call is, as Kineto names its `cuda_sync` event.
fn sync_kind(name: &str) -> Option<&'static str> {
    Some(match name {
        "cudaDeviceSynchronize" | "cuCtxSynchronize" => "Context Sync",
        "cudaStreamSynchronize" | "cuStreamSynchronize" => "Stream Sync",
        "cudaEventSynchronize" | "cuEventSynchronize" => "Event Sync",
        "cudaStreamWaitEvent" | "cuStreamWaitEvent" => "Stream Wait Event",
        _ => return None,
    })
}

const STREAM_ARGS: &[&str] = &["stream", "hStream"];
const EVENT_ARGS: &[&str] = &["event", "hEvent"];

impl super::Format for Kineto {
    fn head(&mut self) -> &[u8] {
        let process = output::process_record();
        let b = &mut self.buf;
        b.clear();
        // `"rank": N` with the space: HTA's rank regex needs it.
        let _ = write!(
            b,
            "{{\"schemaVersion\":1,\n\"distributedInfo\":{{\"backend\":\"nccl\",\"rank\": {},\"world_size\": {}}},\n\"deviceProperties\":[",
            process.rank.unwrap_or(0),
            process.world_size.unwrap_or(1)
        );
        for (i, d) in process.devices.iter().enumerate() {
            let _ = write!(b, "{}{{\"id\":{d}}}", if i > 0 { "," } else { "" });
        }
        b.push_str("],\n");
        if let Some(zero) = process.zero_wall_ns() {
            let (base, shift) = k::time_base(zero);
            self.shift = shift;
            let _ = writeln!(b, "\"baseTimeNanoseconds\":{base},");
        }
        b.push_str("\"displayTimeUnit\":\"ns\",");
        json::open_events(b, self.pid, &process, &format!("\"format\":\"kineto\",\"{}\":{},", k::TIME_OFFSET, self.shift));
        self.buf.as_bytes()
    }

    fn trailer(&self) -> &'static [u8] {
        json::TRAILER
    }

    fn host(&mut self, tid: i32, thread_name: &str, c: &View<'_>) -> &[u8] {
        let pid = self.pid;
        self.buf.clear();
        let thread_name = &*tracks::thread_name(tid, thread_name);
        if self.named.insert(tid) {
            json::thread_name_object(&mut self.buf, pid, tid, thread_name);
        }
        for e in c.events {
            let args = &c.args[e.args.0 as usize..e.args.1 as usize];
            let ts = self.shift + clock::since_start_ns(e.t0) as u64;
            if e.kind >= KIND_NVTX_RANGE {
                self.annotation(tid, e, args, c.text, ts);
                continue;
            }
            if e.kind == KIND_MEMORY {
                memory(&mut self.buf, pid, tid, e, ts);
                continue;
            }
            let name = site_name(e.site);
            let dur = clock::to_ns(e.dt);
            // The correlation: on the program's own call, the innermost
            // launch inside it (see the module note).
            let corr = if e.depth > 0 {
                if e.value != 0 && self.inner.get(&tid).is_none_or(|&(d, _, _)| e.depth >= d) {
                    self.inner.insert(tid, (e.depth, e.value, ts));
                }
                0
            } else {
                // Only a launch that started inside this call is its own
                // (one whose outer call was not recorded is left).
                self.inner.remove(&tid).filter(|&(_, _, t)| t >= ts).map_or(e.value, |(_, v, _)| v)
            };
            if e.value != 0 {
                if let Some(h) = kept_value(args, c.text, STREAM_ARGS) {
                    if self.launch_handle.len() >= MAX_HANDLES {
                        self.launch_handle.clear();
                    }
                    self.launch_handle.insert(e.value, h);
                }
                let b = &mut self.buf;
                let _ = write!(b, ",\n{{\"name\":\"ac2g\",\"cat\":\"ac2g\",\"ph\":\"s\",\"id\":{},\"pid\":{pid},\"tid\":{tid},\"ts\":", e.value);
                push_us(b, ts);
                b.push('}');
            }
            let b = &mut self.buf;
            let shown = k::kineto_name(name);
            let _ = write!(b, ",\n{{\"name\":\"{shown}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":", if is_driver(e.site) { "cuda_driver" } else { "cuda_runtime" });
            push_us(b, ts);
            b.push_str(",\"dur\":");
            push_us(b, dur);
            b.push_str(",\"args\":{\"result\":\"");
            status_name(e.site, e.result, b);
            b.push_str("\",\"depth\":");
            push_int(b, e.depth);
            if corr != 0 {
                let _ = write!(b, ",\"correlation\":{corr},\"External id\":{corr}");
            }
            if shown != name {
                let _ = write!(b, ",\"{}\":\"{name}\"", k::OUR_NAME);
            }
            for a in args {
                b.push_str(",\"");
                escape_into(&k::call_arg_name(a.name), b);
                b.push_str("\":\"");
                let mut v = String::new();
                a.write_value(c.text, &mut v);
                escape_into(&v, b);
                b.push('"');
            }
            b.push_str("}}");
            if e.depth == 0
                && let Some(kind) = sync_kind(name)
            {
                self.sync(tid, kind, args, c.text, ts, dur);
            }
            if e.depth == 0
                && matches!(name, "cudaEventRecord" | "cuEventRecord" | "cudaEventRecordWithFlags" | "cuEventRecordWithFlags")
                && let (Some(ev), Some(s)) = (kept_value(args, c.text, EVENT_ARGS), kept_value(args, c.text, STREAM_ARGS))
            {
                if self.event_stream.len() >= MAX_HANDLES {
                    self.event_stream.clear();
                }
                self.event_stream.insert(ev, s);
            }
        }
        self.buf.as_bytes()
    }

    fn gpu(&mut self, events: &[GpuEvent]) -> &[u8] {
        self.buf.clear();
        for e in events {
            match e {
                GpuEvent::Track { device, stream, tid } => {
                    self.tracks.insert(*tid, (*device, *stream));
                    self.gpu_row(*device, *stream);
                }
                GpuEvent::FlowEnd { tid, ts, id } => {
                    let Some(&(device, stream)) = self.tracks.get(tid) else { continue };
                    let _ = write!(self.buf, ",\n{{\"name\":\"ac2g\",\"cat\":\"ac2g\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{id},\"pid\":{device},\"tid\":{stream},\"ts\":");
                    push_us(&mut self.buf, self.shift + *ts);
                    self.buf.push('}');
                }
                GpuEvent::Slice(a) => {
                    self.gpu_row(a.device, a.stream);
                    if a.launch != 0
                        && let Some(h) = self.launch_handle.remove(&(a.launch as i64))
                    {
                        if self.handle_stream.len() >= MAX_HANDLES {
                            self.handle_stream.clear();
                        }
                        self.handle_stream.insert(h, (a.device, a.stream));
                    }
                    slice(a, self.shift, &mut self.buf);
                }
            }
        }
        self.buf.as_bytes()
    }

    fn marker(&mut self, text: &str) -> &[u8] {
        self.buf.clear();
        json::marker(&mut self.buf, self.pid, text, self.shift + clock::since_start_ns(clock::ticks()) as u64);
        self.buf.as_bytes()
    }

    fn restart(&mut self) -> &[u8] {
        self.named.clear();
        self.buf.clear();
        let rows: Vec<(u32, u32)> = self.streams.drain().collect();
        self.devices.clear();
        for (d, s) in rows {
            self.gpu_row(d, s);
        }
        self.buf.as_bytes()
    }

    fn dropped(&mut self, n: u64, why: &str) -> &[u8] {
        self.buf.clear();
        json::dropped(&mut self.buf, self.pid, n, why);
        self.buf.as_bytes()
    }

    fn process(&mut self) -> &[u8] {
        self.buf.clear();
        json::process(&mut self.buf, self.pid);
        self.buf.as_bytes()
    }

    fn finish(&mut self) {
        if let Some(s) = &self.step
            && self.steps == 0
        {
            log::warn!(
                "step range {s:?} (CUDART_SHIM_STEP_RANGE, --step-range): no NVTX range of that name was recorded, so the Kineto timeline has no ProfilerStep (HTA's per-step analyses need them; the trace is complete otherwise)"
            );
        }
    }
}

impl Kineto {
    /// An NVTX event as a `user_annotation` on the thread (a step range's
    /// instance as `ProfilerStep#<n>`); a mark is an instant.
    fn annotation(&mut self, tid: i32, e: &Event, args: &[Kept], text: &str, ts: u64) {
        let pid = self.pid;
        let message = kept_value(args, text, &["message"]).unwrap_or_default();
        let is_step = e.kind != KIND_NVTX_MARK && self.step.as_deref() == Some(message.as_str());
        let b = &mut self.buf;
        b.push_str(",\n{\"name\":\"");
        if is_step {
            let _ = write!(b, "ProfilerStep#{}", self.steps);
            self.steps += 1;
        } else {
            escape_into(&message, b);
        }
        let ph = if e.kind == KIND_NVTX_MARK { "i\",\"s\":\"t" } else { "X" };
        let _ = write!(b, "\",\"cat\":\"user_annotation\",\"ph\":\"{ph}\",\"pid\":{pid},\"tid\":{tid},\"ts\":");
        push_us(b, ts);
        if e.kind != KIND_NVTX_MARK {
            b.push_str(",\"dur\":");
            push_us(b, clock::to_ns(e.dt));
        }
        b.push_str(",\"args\":{");
        if e.kind == KIND_NVTX_ASYNC {
            let _ = write!(b, "\"style\":\"StartEnd\",\"id\":{}", e.result);
        } else {
            let _ = write!(b, "\"level\":{}", e.depth);
        }
        if is_step {
            b.push_str(",\"range\":\"");
            escape_into(&message, b);
            b.push('"');
        }
        let domain = domain_name(e.site);
        if !domain.is_empty() {
            b.push_str(",\"domain\":\"");
            escape_into(domain, b);
            b.push('"');
        }
        if let Some(col) = nvtx_color(e.value) {
            let _ = write!(b, ",\"color\":\"#{:06x}\"", col & 0xff_ffff);
        }
        let rest: Vec<Kept> = args.iter().filter(|k| k.name != "message").copied().collect();
        write_kept(&rest, text, b);
        b.push_str("}}");
    }

    /// The `cuda_sync` event of a wait (see the module note).
    fn sync(&mut self, tid: i32, kind: &str, args: &[Kept], text: &str, ts: u64, dur: u64) {
        let known = |h: Option<String>| h.and_then(|h| self.handle_stream.get(&h).copied());
        let on = match kind {
            "Stream Sync" | "Stream Wait Event" => known(kept_value(args, text, STREAM_ARGS)),
            _ => None,
        };
        let waits_on = match kind {
            "Event Sync" | "Stream Wait Event" => known(kept_value(args, text, EVENT_ARGS).and_then(|ev| self.event_stream.get(&ev).cloned())),
            _ => None,
        };
        if let Some((d, s)) = on {
            self.gpu_row(d, s);
        }
        let b = &mut self.buf;
        let (pid, row) = match on {
            Some((d, s)) => (d as i64, s as i64),
            None => (self.pid as i64, tid as i64),
        };
        let _ = write!(b, ",\n{{\"name\":\"{kind}\",\"cat\":\"cuda_sync\",\"ph\":\"X\",\"pid\":{pid},\"tid\":{row},\"ts\":");
        push_us(b, ts);
        b.push_str(",\"dur\":");
        push_us(b, dur);
        b.push_str(",\"args\":{");
        match on {
            Some((d, s)) => {
                let _ = write!(b, "\"device\":{d},\"stream\":{s}");
            }
            None => b.push_str("\"stream\":-1"),
        }
        if let Some((_, s)) = waits_on {
            let _ = write!(b, ",\"wait_on_stream\":{s}");
        }
        b.push_str("}}");
    }
}

/// One GPU slice on its device's row, on its stream's thread.
fn slice(a: &GpuSlice, shift: u64, s: &mut String) {
    let (cat, name): (&str, &str) = match &a.what {
        GpuWhat::Kernel { .. } => ("kernel", &a.name),
        GpuWhat::Copy { op, .. } => ("gpu_memcpy", k::copy_name(op)),
        GpuWhat::Set { .. } => ("gpu_memset", k::MEMSET_NAME),
    };
    s.push_str(",\n{\"name\":\"");
    escape_into(name, s);
    let _ = write!(s, "\",\"cat\":\"{cat}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":", a.device, a.stream);
    push_us(s, shift + a.ts);
    s.push_str(",\"dur\":");
    push_us(s, a.dur);
    // A launch not linked to its call keeps CUPTI's correlation id (a
    // different space from the arrows' ids, which start at 2^31).
    let corr = if a.launch != 0 { a.launch } else { a.correlation as u64 };
    let _ = write!(s, ",\"args\":{{\"device\":{},\"stream\":{},\"correlation\":{corr}", a.device, a.stream);
    if a.launch != 0 {
        let _ = write!(s, ",\"External id\":{0},\"launch\":{0}", a.launch);
    }
    if a.graph != 0 {
        let _ = write!(s, ",\"graph\":{}", a.graph);
    }
    if let GpuWhat::Kernel { grid, block, registers, static_shared, dynamic_shared } = &a.what {
        let _ = write!(
            s,
            ",\"grid\":[{}, {}, {}],\"block\":[{}, {}, {}],\"registers per thread\":{registers},\"shared memory\":{},\"static shared memory\":{static_shared},\"dynamic shared memory\":{dynamic_shared}",
            grid[0],
            grid[1],
            grid[2],
            block[0],
            block[1],
            block[2],
            static_shared + dynamic_shared
        );
    }
    json::memory_op_args(s, &a.what, a.dur, "memory bandwidth (GB/s)");
    s.push_str("}}");
}

/// A ledger change as Kineto's `[memory]` instant (`Bytes` negative for a
/// free, `Total Allocated` the bytes then live on its device and kind).
fn memory(b: &mut String, pid: u32, tid: i32, e: &Event, ts: u64) {
    let m = Mem::of(e);
    let bytes = if m.what == "free" { -(m.bytes as i64) } else { m.bytes as i64 };
    let _ = write!(b, ",\n{{\"name\":\"[memory]\",\"cat\":\"cpu_instant_event\",\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":{tid},\"ts\":");
    push_us(b, ts);
    let _ = write!(
        b,
        ",\"args\":{{\"Bytes\":{bytes},\"Total Allocated\":{},\"Device Type\":{},\"Device Id\":{},\"bytes\":{},\"kind\":\"{}\",\"device\":{},\"library\":\"",
        m.live,
        if m.device < 0 { 0 } else { 1 },
        m.device,
        m.bytes,
        m.kind,
        m.device
    );
    escape_into(&m.library, b);
    b.push_str("\"}}");
}
