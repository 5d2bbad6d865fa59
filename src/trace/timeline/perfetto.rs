//! The timeline in Perfetto's native protobuf format (the layout: see
//! trace-format's `perfetto` module, which reads it back).
//!
//! Size is what this writer is for: a call is two packets (slice begin and
//! end) on its thread's own sequence, whose default track is the thread,
//! with the function's name, the arguments' names and their short values
//! interned per sequence; success is the absence of a result. Only whole
//! packets are written, so the file is a complete trace after every batch.

use super::{GpuEvent, GpuSlice, GpuWhat, View, KIND_COUNTER};
use crate::trace::{clock, output};
use std::collections::HashMap;
use trace_format::perfetto::{counter_uuid, process_uuid, protos as pb, put_packet, thread_uuid, PROCESS_RECORD};

use pb::debug_annotation::{NameField as AnnName, Value as AnnValue};
use pb::trace_packet::{Data, OptionalTrustedPacketSequenceId as SeqId};
use pb::track_event::{NameField, Type};

/// Argument values longer than this are written in full, never interned.
const INTERN_MAX_LEN: usize = 64;
/// Interned values per sequence; later new values are written in full.
const INTERN_MAX_VALUES: u64 = 1 << 16;
/// The sequence of the process, GPU tracks and markers.
const PROCESS_SEQ: u32 = 1;
/// A thread sequence's own clock (ids 64 to 127 are sequence-scoped, as
/// Perfetto's SDK uses 64): incremental, each packet's timestamp a delta
/// from the sequence's previous one, 0 at the trace's start.
const INCREMENTAL_CLOCK: u32 = 64;
/// Perfetto's default trace clock: the axis of absolute timestamps.
const BOOTTIME: u32 = 6;

/// One sequence's interning state.
#[derive(Default)]
struct Seq {
    id: u32,
    /// Function name iids by call-site id (0: not yet).
    sites: Vec<u64>,
    /// Other event names (GPU slices), categories.
    names: HashMap<String, u64>,
    arg_names: HashMap<&'static str, u64>,
    values: HashMap<String, u64>,
    next_name: u64,
    next_value: u64,
    /// The incremental clock's last timestamp on this sequence.
    last_ts: u64,
}

impl Seq {
    fn new(id: u32) -> Seq {
        Seq { id, next_name: 1, next_value: 1, ..Default::default() }
    }

    fn site(&mut self, site: u32, new: &mut pb::InternedData) -> u64 {
        let i = site as usize;
        if self.sites.len() <= i {
            self.sites.resize(i + 1, 0);
        }
        if self.sites[i] == 0 {
            self.sites[i] = self.next_name;
            self.next_name += 1;
            new.event_names.push(pb::EventName { iid: Some(self.sites[i]), name: Some(crate::trace::site_name(site).to_owned()) });
        }
        self.sites[i]
    }

    fn name(&mut self, name: &str, new: &mut pb::InternedData) -> u64 {
        if let Some(&i) = self.names.get(name) {
            return i;
        }
        let i = self.next_name;
        self.next_name += 1;
        self.names.insert(name.to_owned(), i);
        new.event_names.push(pb::EventName { iid: Some(i), name: Some(name.to_owned()) });
        i
    }

    fn category(&mut self, cat: &'static str, new: &mut pb::InternedData) -> u64 {
        let key = format!("\0{cat}");
        if let Some(&i) = self.names.get(&key) {
            return i;
        }
        let i = self.names.len() as u64 + 1;
        self.names.insert(key, i);
        new.event_categories.push(pb::EventCategory { iid: Some(i), name: Some(cat.to_owned()) });
        i
    }

    fn arg_name(&mut self, name: &'static str, new: &mut pb::InternedData) -> u64 {
        let n = self.arg_names.len() as u64 + 1;
        *self.arg_names.entry(name).or_insert_with(|| {
            new.debug_annotation_names.push(pb::DebugAnnotationName { iid: Some(n), name: Some(name.to_owned()) });
            n
        })
    }

    /// A string value: interned when short and the table has room.
    fn value(&mut self, v: &str, new: &mut pb::InternedData) -> AnnValue {
        if let Some(&i) = self.values.get(v) {
            return AnnValue::StringValueIid(i);
        }
        if v.len() > INTERN_MAX_LEN || self.next_value > INTERN_MAX_VALUES {
            return AnnValue::StringValue(v.to_owned());
        }
        let i = self.next_value;
        self.next_value += 1;
        self.values.insert(v.to_owned(), i);
        new.debug_annotation_string_values.push(pb::InternedString { iid: Some(i), str: Some(v.as_bytes().to_vec()) });
        AnnValue::StringValueIid(i)
    }
}

pub(super) struct Perfetto {
    pid: u32,
    buf: Vec<u8>,
    threads: HashMap<i32, Seq>,
    process: Seq,
    next_seq: u32,
    /// Reused for every value written (its capacity).
    text: String,
    /// GPU stream tracks declared (declared again at a restart).
    gpu_tracks: Vec<pb::TrackDescriptor>,
}

impl Perfetto {
    pub(super) fn new() -> Perfetto {
        Perfetto { pid: std::process::id(), buf: Vec::new(), threads: HashMap::new(), process: Seq::new(PROCESS_SEQ), next_seq: PROCESS_SEQ + 1, text: String::new(), gpu_tracks: Vec::new() }
    }

    fn packet(seq: u32, ts: Option<u64>, data: Data) -> pb::TracePacket {
        pb::TracePacket { timestamp: ts, data: Some(data), optional_trusted_packet_sequence_id: Some(SeqId::TrustedPacketSequenceId(seq)), ..Default::default() }
    }

    /// An instant on the process track (the process record, markers).
    fn instant(&mut self, name: String, args: Vec<pb::DebugAnnotation>) {
        let ev = pb::TrackEvent {
            r#type: Some(Type::Instant as i32),
            track_uuid: Some(process_uuid(self.pid)),
            name_field: Some(NameField::Name(name)),
            debug_annotations: args,
            ..Default::default()
        };
        let ts = clock::since_start_ns(clock::ticks()) as u64;
        put_packet(&Self::packet(PROCESS_SEQ, Some(ts), Data::TrackEvent(ev)), &mut self.buf);
    }

    /// The process track (first on its sequence) and the memory counter's.
    fn declare_process(&mut self) {
        let pid = self.pid;
        let comm = std::fs::read_to_string("/proc/self/comm").unwrap_or_default();
        let process = output::process_record();
        let cmdline: Vec<String> = std::fs::read("/proc/self/cmdline")
            .map(|b| b.split(|&c| c == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8_lossy(a).into_owned()).collect())
            .unwrap_or_default();
        let mut p = Self::packet(
            PROCESS_SEQ,
            None,
            Data::TrackDescriptor(pb::TrackDescriptor {
                uuid: Some(process_uuid(pid)),
                process: Some(pb::ProcessDescriptor {
                    pid: Some(pid as i32),
                    cmdline,
                    process_name: Some(format!("{}: {}", comm.trim(), process.label())),
                    process_labels: vec![format!("cudart-shim {}", env!("CARGO_PKG_VERSION"))],
                }),
                ..Default::default()
            }),
        );
        p.sequence_flags = Some(pb::trace_packet::SequenceFlags::SeqIncrementalStateCleared as u32);
        p.first_packet_on_sequence = Some(true);
        put_packet(&p, &mut self.buf);
        let counter = pb::TrackDescriptor {
            uuid: Some(counter_uuid(pid)),
            parent_uuid: Some(process_uuid(pid)),
            static_or_dynamic_name: Some(pb::track_descriptor::StaticOrDynamicName::Name("device memory allocated (bytes)".into())),
            counter: Some(pb::CounterDescriptor { unit: Some(pb::counter_descriptor::Unit::SizeBytes as i32), ..Default::default() }),
            ..Default::default()
        };
        put_packet(&Self::packet(PROCESS_SEQ, None, Data::TrackDescriptor(counter)), &mut self.buf);
    }

    fn record(&mut self) {
        let record = output::process_record().to_json().to_string();
        let arg = pb::DebugAnnotation { name_field: Some(AnnName::Name("process".into())), value: Some(AnnValue::StringValue(record)) };
        self.instant(PROCESS_RECORD.to_owned(), vec![arg]);
    }
}

/// Set a thread packet's timestamp: a delta on the sequence's incremental
/// clock, or absolute (on the trace clock) when it would go backwards.
fn stamp(seq: &mut Seq, ts: u64, p: &mut pb::TracePacket) {
    if ts >= seq.last_ts {
        p.timestamp = Some(ts - seq.last_ts);
        p.timestamp_clock_id = None;
        seq.last_ts = ts;
    } else {
        p.timestamp = Some(ts);
        p.timestamp_clock_id = Some(BOOTTIME);
    }
}

fn interned(new: &mut pb::InternedData) -> Option<pb::InternedData> {
    let empty = new.event_names.is_empty() && new.event_categories.is_empty() && new.debug_annotation_names.is_empty() && new.debug_annotation_string_values.is_empty();
    (!empty).then(|| std::mem::take(new))
}

impl super::Format for Perfetto {
    fn head(&mut self) -> &[u8] {
        self.buf.clear();
        self.declare_process();
        self.record();
        &self.buf
    }

    fn trailer(&self) -> &'static [u8] {
        b""
    }

    fn marker(&mut self, text: &str) -> &[u8] {
        self.buf.clear();
        self.instant(text.to_owned(), Vec::new());
        &self.buf
    }

    fn restart(&mut self) -> &[u8] {
        self.buf.clear();
        // Threads get new sequences (declared at their next event); the
        // process sequence starts again.
        self.threads.clear();
        self.process = Seq::new(PROCESS_SEQ);
        self.declare_process();
        for d in &self.gpu_tracks {
            put_packet(&Self::packet(PROCESS_SEQ, None, Data::TrackDescriptor(d.clone())), &mut self.buf);
        }
        &self.buf
    }

    fn host(&mut self, tid: i32, thread_name: &str, c: &View<'_>) -> &[u8] {
        self.buf.clear();
        let pid = self.pid;
        let next = &mut self.next_seq;
        let mut fresh = false;
        let seq = self.threads.entry(tid).or_insert_with(|| {
            fresh = true;
            *next += 1;
            Seq::new(*next - 1)
        });
        let sid = Some(SeqId::TrustedPacketSequenceId(seq.id));
        if fresh {
            let track = thread_uuid(pid, tid as u32);
            let mut p = Self::packet(
                seq.id,
                None,
                Data::TrackDescriptor(pb::TrackDescriptor {
                    uuid: Some(track),
                    parent_uuid: Some(process_uuid(pid)),
                    thread: Some(pb::ThreadDescriptor { pid: Some(pid as i32), tid: Some(tid as i64), thread_name: Some(thread_name.to_owned()) }),
                    ..Default::default()
                }),
            );
            p.sequence_flags = Some(pb::trace_packet::SequenceFlags::SeqIncrementalStateCleared as u32);
            p.first_packet_on_sequence = Some(true);
            p.trace_packet_defaults = Some(pb::TracePacketDefaults {
                timestamp_clock_id: Some(INCREMENTAL_CLOCK),
                track_event_defaults: Some(pb::TrackEventDefaults { track_uuid: Some(track) }),
            });
            put_packet(&p, &mut self.buf);
            // The incremental clock's origin: 0 on both it and the trace
            // clock (timestamps are nanoseconds since the trace started).
            let clock = |id, incremental| pb::clock_snapshot::Clock { clock_id: Some(id), timestamp: Some(0), is_incremental: incremental, unit_multiplier_ns: None };
            let snap = pb::ClockSnapshot { clocks: vec![clock(INCREMENTAL_CLOCK, Some(true)), clock(BOOTTIME, None)] };
            put_packet(&Self::packet(seq.id, None, Data::ClockSnapshot(snap)), &mut self.buf);
        }
        let mut new = pb::InternedData::default();
        // Reused: the annotations' vector keeps its capacity.
        let mut packet = pb::TracePacket { optional_trusted_packet_sequence_id: sid, ..Default::default() };
        let mut ev = pb::TrackEvent::default();
        // Events come in the order calls returned (an inner call before
        // the one around it): written in time order, begins and ends
        // interleaved, so the incremental clock's deltas stay small and
        // positive. A call that began before what this sequence already
        // wrote (its inner calls were in an earlier batch) gets an
        // absolute timestamp.
        let start = |e: &super::Event| clock::since_start_ns(e.t0) as u64;
        let mut order: Vec<usize> = (0..c.events.len()).collect();
        order.sort_by_key(|&i| (start(&c.events[i]), c.events[i].depth));
        let mut ends: Vec<u64> = Vec::new();
        let end_packet = |seq: &mut Seq, at: u64, buf: &mut Vec<u8>| {
            let mut p = pb::TracePacket { optional_trusted_packet_sequence_id: sid, ..Default::default() };
            stamp(seq, at, &mut p);
            p.data = Some(Data::TrackEvent(pb::TrackEvent { r#type: Some(Type::SliceEnd as i32), ..Default::default() }));
            put_packet(&p, buf);
        };
        for i in order {
            let e = &c.events[i];
            let ts = start(e);
            while let Some(&end) = ends.last()
                && end <= ts
            {
                ends.pop();
                end_packet(seq, end, &mut self.buf);
            }
            stamp(seq, ts, &mut packet);
            ev.debug_annotations.clear();
            ev.flow_ids.clear();
            if e.kind == KIND_COUNTER {
                ev.r#type = Some(Type::Counter as i32);
                ev.track_uuid = Some(counter_uuid(pid));
                ev.name_field = None;
                ev.counter_value_field = Some(pb::track_event::CounterValueField::CounterValue(e.value));
                packet.data = Some(Data::TrackEvent(std::mem::take(&mut ev)));
                put_packet(&packet, &mut self.buf);
                if let Some(Data::TrackEvent(back)) = packet.data.take() {
                    ev = back;
                }
                ev.track_uuid = None;
                ev.counter_value_field = None;
                continue;
            }
            ev.r#type = Some(Type::SliceBegin as i32);
            ev.name_field = Some(NameField::NameIid(seq.site(e.site, &mut new)));
            if e.value != 0 {
                ev.flow_ids.push(e.value as u64);
            }
            if e.result != 0 {
                self.text.clear();
                crate::trace::status_name(e.site, e.result, &mut self.text);
                let name = seq.arg_name("result", &mut new);
                let value = seq.value(&self.text, &mut new);
                ev.debug_annotations.push(pb::DebugAnnotation { name_field: Some(AnnName::NameIid(name)), value: Some(value) });
            }
            for k in &c.args[e.args.0 as usize..e.args.1 as usize] {
                self.text.clear();
                k.write_value(c.text, &mut self.text);
                let name = seq.arg_name(k.name, &mut new);
                let value = seq.value(&self.text, &mut new);
                ev.debug_annotations.push(pb::DebugAnnotation { name_field: Some(AnnName::NameIid(name)), value: Some(value) });
            }
            packet.interned_data = interned(&mut new);
            packet.data = Some(Data::TrackEvent(std::mem::take(&mut ev)));
            put_packet(&packet, &mut self.buf);
            if let Some(Data::TrackEvent(back)) = packet.data.take() {
                ev = back;
            }
            packet.interned_data = None;
            ends.push(ts + clock::to_ns(e.dt));
        }
        while let Some(end) = ends.pop() {
            end_packet(seq, end, &mut self.buf);
        }
        &self.buf
    }

    fn gpu(&mut self, events: &[GpuEvent]) -> &[u8] {
        self.buf.clear();
        let pid = self.pid;
        let mut new = pb::InternedData::default();
        let mut i = 0;
        while i < events.len() {
            match &events[i] {
                GpuEvent::Track { device, stream, tid } => {
                    let d = pb::TrackDescriptor {
                        uuid: Some(thread_uuid(pid, *tid)),
                        parent_uuid: Some(process_uuid(pid)),
                        static_or_dynamic_name: Some(pb::track_descriptor::StaticOrDynamicName::Name(format!("GPU {device} stream {stream}"))),
                        sibling_order_rank: Some(*tid as i32),
                        ..Default::default()
                    };
                    put_packet(&Self::packet(PROCESS_SEQ, None, Data::TrackDescriptor(d.clone())), &mut self.buf);
                    self.gpu_tracks.push(d);
                }
                GpuEvent::FlowEnd { tid, ts, id } => {
                    // The arrow's end with no slice written beside it (its
                    // slice went out in an earlier batch): an instant there.
                    let ev = pb::TrackEvent {
                        r#type: Some(Type::Instant as i32),
                        track_uuid: Some(thread_uuid(pid, *tid)),
                        name_field: Some(NameField::NameIid(self.process.name("launch", &mut new))),
                        terminating_flow_ids: vec![*id],
                        ..Default::default()
                    };
                    let mut p = Self::packet(PROCESS_SEQ, Some(*ts), Data::TrackEvent(ev));
                    p.interned_data = interned(&mut new);
                    put_packet(&p, &mut self.buf);
                }
                GpuEvent::Slice(s) => {
                    // A flow end right after its slice binds to it.
                    let end = match events.get(i + 1) {
                        Some(GpuEvent::FlowEnd { tid, ts, id }) if *tid == s.tid && *ts == s.ts => {
                            i += 1;
                            Some(*id)
                        }
                        _ => None,
                    };
                    self.slice(s, end, &mut new);
                }
            }
            i += 1;
        }
        &self.buf
    }

    fn dropped(&mut self, n: u64, why: &str) -> &[u8] {
        self.buf.clear();
        self.instant(format!("cudart-shim dropped {n} events ({why})"), Vec::new());
        &self.buf
    }

    fn process(&mut self) -> &[u8] {
        self.buf.clear();
        self.record();
        &self.buf
    }
}

impl Perfetto {
    fn slice(&mut self, s: &GpuSlice, flow_end: Option<u64>, new: &mut pb::InternedData) {
        let seq = &mut self.process;
        let cat = match s.what {
            GpuWhat::Kernel { .. } => "gpu_kernel",
            GpuWhat::Copy { .. } => "gpu_memcpy",
            GpuWhat::Set { .. } => "gpu_memset",
        };
        let mut args = Vec::with_capacity(12);
        let mut arg = |seq: &mut Seq, name: &'static str, v: AnnValue, new: &mut pb::InternedData| {
            args.push(pb::DebugAnnotation { name_field: Some(AnnName::NameIid(seq.arg_name(name, new))), value: Some(v) });
        };
        arg(seq, "device", AnnValue::UintValue(s.device as u64), new);
        arg(seq, "stream", AnnValue::UintValue(s.stream as u64), new);
        arg(seq, "correlation", AnnValue::UintValue(s.correlation as u64), new);
        if s.launch != 0 {
            arg(seq, "launch", AnnValue::UintValue(s.launch), new);
        }
        if s.graph != 0 {
            arg(seq, "graph", AnnValue::UintValue(s.graph as u64), new);
        }
        let dur = s.dur;
        let bandwidth = |bytes: u64| AnnValue::DoubleValue(((bytes as f64 / dur.max(1) as f64) * 1000.0).round() / 1000.0);
        match &s.what {
            GpuWhat::Kernel { grid, block, registers, static_shared, dynamic_shared } => {
                let g = seq.value(&format!("[{}, {}, {}]", grid[0], grid[1], grid[2]), new);
                arg(seq, "grid", g, new);
                let b = seq.value(&format!("[{}, {}, {}]", block[0], block[1], block[2]), new);
                arg(seq, "block", b, new);
                arg(seq, "registers per thread", AnnValue::UintValue(*registers as u64), new);
                arg(seq, "static shared memory", AnnValue::IntValue(*static_shared as i64), new);
                arg(seq, "dynamic shared memory", AnnValue::IntValue(*dynamic_shared as i64), new);
            }
            GpuWhat::Copy { op, bytes } => {
                let o = seq.value(op, new);
                arg(seq, "operation", o, new);
                arg(seq, "bytes", AnnValue::UintValue(*bytes), new);
                arg(seq, "bandwidth (GB/s)", bandwidth(*bytes), new);
            }
            GpuWhat::Set { bytes, value } => {
                let o = seq.value(crate::trace::gpu_table::MEMSET, new);
                arg(seq, "operation", o, new);
                arg(seq, "value", AnnValue::UintValue(*value as u64), new);
                arg(seq, "bytes", AnnValue::UintValue(*bytes), new);
                arg(seq, "bandwidth (GB/s)", bandwidth(*bytes), new);
            }
        }
        let track = thread_uuid(self.pid, s.tid);
        let begin = pb::TrackEvent {
            r#type: Some(Type::SliceBegin as i32),
            track_uuid: Some(track),
            name_field: Some(NameField::NameIid(seq.name(&s.name, new))),
            category_iids: vec![seq.category(cat, new)],
            terminating_flow_ids: flow_end.into_iter().collect(),
            debug_annotations: args,
            ..Default::default()
        };
        let mut p = Self::packet(PROCESS_SEQ, Some(s.ts), Data::TrackEvent(begin));
        p.interned_data = interned(new);
        put_packet(&p, &mut self.buf);
        let end = pb::TrackEvent { r#type: Some(Type::SliceEnd as i32), track_uuid: Some(track), ..Default::default() };
        put_packet(&Self::packet(PROCESS_SEQ, Some(s.ts + s.dur), Data::TrackEvent(end)), &mut self.buf);
    }
}
