//! The timeline in Perfetto's native protobuf format (the layout: see
//! trace-format's `perfetto` module, which reads it back).
//!
//! Size is what this writer is for: a call is two packets (slice begin and
//! end) on its thread's own sequence, whose default track is the thread,
//! with the function's name, the arguments' names and their short values
//! interned per sequence; success is the absence of a result. Only whole
//! packets are written, so the file is a complete trace after every batch.

use super::View;
use crate::trace::event::names::{domain_name, site_name, status_name};
use crate::trace::event::{nvtx_color, tracks, Event, GpuEvent, GpuSlice, GpuWhat, Mem, KIND_CALL, KIND_MEMORY, KIND_NVTX_ASYNC, KIND_NVTX_RANGE};
use crate::trace::event::clock;
use crate::trace::output;
use std::collections::{HashMap, HashSet};
use trace_format::perfetto::{async_uuid, bytes_counter_track, memory_uuid, process_uuid, protos as pb, put_packet, thread_uuid, PROCESS_RECORD};

use pb::debug_annotation::{NameField as AnnName, Value as AnnValue};
use pb::trace_packet::{Data, OptionalTrustedPacketSequenceId as SeqId};
use pb::track_event::{NameField, Type};

/// Names the program chose (NVTX messages) longer than this are written in
/// full, never interned: many are unique (`emit_nvtx` puts an op id in each).
const INTERN_MAX_NAME_LEN: usize = 64;
/// Argument values longer than this are written in full, never interned.
/// Long values that repeat are kernel symbols (a mangled name with its
/// address, 100 to 1000 bytes, once per launch): worth an id.
const INTERN_MAX_LEN: usize = 4096;
/// Bytes of interned argument values a sequence keeps, at most (the table
/// lives as long as the sequence); later new values are written in full.
const INTERN_MAX_BYTES: usize = 4 << 20;
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
    /// Hashes of the values seen once (written in full then; interned at
    /// their second use), cleared when it holds [`INTERN_MAX_VALUES`].
    seen: HashSet<u64>,
    next_name: u64,
    next_value: u64,
    /// Bytes of the values in `values`.
    value_bytes: usize,
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
            new.event_names.push(pb::EventName { iid: Some(self.sites[i]), name: Some(site_name(site).to_owned()) });
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

    /// A name the program chose (an NVTX message): interned when short and
    /// the table has room, else written in full.
    fn free_name(&mut self, name: &str, new: &mut pb::InternedData) -> NameField {
        if self.names.contains_key(name) || (name.len() <= INTERN_MAX_NAME_LEN && (self.names.len() as u64) < INTERN_MAX_VALUES) {
            NameField::NameIid(self.name(name, new))
        } else {
            NameField::Name(name.to_owned())
        }
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

    /// A call's argument: a small decimal number as a `uint_value` (one
    /// byte less than an interned id; readers show a call's arguments as
    /// text, so it reads back the same), else as [`Seq::value`].
    fn arg_value(&mut self, v: &str, new: &mut pb::InternedData) -> AnnValue {
        match small_number(v) {
            Some(n) => AnnValue::UintValue(n),
            None => self.value(v, new),
        }
    }

    /// A string value: interned from its second use when short and the
    /// table has room, else written in full; an address in full is a
    /// `pointer_value` (a varint: readers show it as the same `0x...` text).
    /// Most addresses and sizes a program passes are used once: interning
    /// one costs its text and an id more than writing it.
    fn value(&mut self, v: &str, new: &mut pb::InternedData) -> AnnValue {
        if let Some(&i) = self.values.get(v) {
            return AnnValue::StringValueIid(i);
        }
        let again = v.len() <= INTERN_MAX_LEN && self.next_value <= INTERN_MAX_VALUES && self.value_bytes + v.len() <= INTERN_MAX_BYTES && {
            if self.seen.len() as u64 >= INTERN_MAX_VALUES {
                self.seen.clear();
            }
            !self.seen.insert(fnv(v.as_bytes()))
        };
        if !again {
            return match pointer(v) {
                Some(p) => AnnValue::PointerValue(p),
                None => AnnValue::StringValue(v.to_owned()),
            };
        }
        let i = self.next_value;
        self.next_value += 1;
        self.value_bytes += v.len();
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
    /// Each GPU stream track's sequence, by its timeline thread id: its
    /// slices on their own incremental clock and default track, as a
    /// host thread's calls (no track id nor absolute time per packet).
    gpu_seqs: HashMap<u32, Seq>,
    /// NVTX and memory counter tracks declared (since the last restart).
    nvtx_tracks: HashSet<u64>,
    memory_tracks: HashSet<u64>,
}

impl Perfetto {
    pub(super) fn new() -> Perfetto {
        Perfetto { pid: std::process::id(), buf: Vec::new(), threads: HashMap::new(), process: Seq::new(PROCESS_SEQ), next_seq: PROCESS_SEQ + 1, text: String::new(), gpu_tracks: Vec::new(), gpu_seqs: HashMap::new(), nvtx_tracks: HashSet::new(), memory_tracks: HashSet::new() }
    }

    fn packet(seq: u32, ts: Option<u64>, data: Data) -> pb::TracePacket {
        pb::TracePacket { timestamp: ts, data: Some(data), optional_trusted_packet_sequence_id: Some(SeqId::TrustedPacketSequenceId(seq)), ..Default::default() }
    }

    /// Open sequence `seq` with its track's descriptor, which makes the
    /// track the sequence's default and its timestamps deltas on the
    /// sequence's incremental clock (origin 0 on both it and the trace
    /// clock: timestamps are nanoseconds since the trace started).
    fn open_sequence(seq: u32, descriptor: pb::TrackDescriptor, buf: &mut Vec<u8>) {
        let track = descriptor.uuid;
        let mut p = Self::packet(seq, None, Data::TrackDescriptor(descriptor));
        p.sequence_flags = Some(pb::trace_packet::SequenceFlags::SeqIncrementalStateCleared as u32);
        p.first_packet_on_sequence = Some(true);
        p.trace_packet_defaults = Some(pb::TracePacketDefaults {
            timestamp_clock_id: Some(INCREMENTAL_CLOCK),
            track_event_defaults: Some(pb::TrackEventDefaults { track_uuid: track }),
        });
        put_packet(&p, buf);
        let clock = |id, incremental| pb::clock_snapshot::Clock { clock_id: Some(id), timestamp: Some(0), is_incremental: incremental, unit_multiplier_ns: None };
        let snap = pb::ClockSnapshot { clocks: vec![clock(INCREMENTAL_CLOCK, Some(true)), clock(BOOTTIME, None)] };
        put_packet(&Self::packet(seq, None, Data::ClockSnapshot(snap)), buf);
    }

    /// The sequence of GPU track `d` (thread id `tid`): a new one, opened.
    fn open_gpu_sequence(&mut self, tid: u32, d: pb::TrackDescriptor) {
        let seq = Seq::new(self.next_seq);
        self.next_seq += 1;
        Self::open_sequence(seq.id, d, &mut self.buf);
        self.gpu_seqs.insert(tid, seq);
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

    /// The process track (first on its sequence).
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
    }

    fn record(&mut self) {
        let record = output::process_record().to_json().to_string();
        let arg = pb::DebugAnnotation { name_field: Some(AnnName::Name("process".into())), value: Some(AnnValue::StringValue(record)) };
        self.instant(PROCESS_RECORD.to_owned(), vec![arg]);
    }
}

/// FNV-1a, 64 bits (the seen-once set's key: a collision only interns a
/// value at its first use).
fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| (h ^ c as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// An address as the trace writes it (`0x` and lowercase hex digits, no
/// leading zero), which a `pointer_value` gives back exactly.
fn pointer(v: &str) -> Option<u64> {
    let h = v.strip_prefix("0x")?;
    if h.is_empty() || h.len() > 16 || (h.len() > 1 && h.starts_with('0')) || !h.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)) {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

/// A decimal number below 2^14 (at most two varint bytes) written the
/// way it reads back (no sign, no leading zero).
fn small_number(v: &str) -> Option<u64> {
    if v.is_empty() || v.len() > 5 || (v.len() > 1 && v.starts_with('0')) || !v.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    v.parse::<u64>().ok().filter(|&n| n < 1 << 14)
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

/// Add an annotation named `name` (interned) to `ev`.
fn annotate(seq: &mut Seq, ev: &mut pb::TrackEvent, name: &'static str, value: AnnValue, new: &mut pb::InternedData) {
    let n = seq.arg_name(name, new);
    ev.debug_annotations.push(pb::DebugAnnotation { name_field: Some(AnnName::NameIid(n)), value: Some(value) });
}

/// Write `packet` with `ev` as its event, and take the event back (its
/// vectors keep their capacity); the packet's interned data is cleared.
fn put_event(packet: &mut pb::TracePacket, ev: &mut pb::TrackEvent, buf: &mut Vec<u8>) {
    packet.data = Some(Data::TrackEvent(std::mem::take(ev)));
    put_packet(packet, buf);
    if let Some(Data::TrackEvent(back)) = packet.data.take() {
        *ev = back;
    }
    packet.interned_data = None;
}

/// The ends of the slices a batch opened, by track (None: the thread's
/// own), each track's a stack (its slices nest); written in time order
/// between the batch's other packets.
#[derive(Default)]
struct Ends {
    stacks: Vec<(Option<u64>, Vec<u64>)>,
}

impl Ends {
    fn push(&mut self, track: Option<u64>, at: u64) {
        match self.stacks.iter_mut().find(|(t, _)| *t == track) {
            Some((_, s)) => s.push(at),
            None => self.stacks.push((track, vec![at])),
        }
    }

    /// Write every end at or before `ts`, earliest first.
    fn write_until(&mut self, ts: u64, seq: &mut Seq, sid: Option<SeqId>, buf: &mut Vec<u8>) {
        loop {
            let next = self.stacks.iter().enumerate().filter_map(|(i, (_, s))| s.last().map(|&e| (e, i))).min();
            let Some((at, i)) = next.filter(|&(at, _)| at <= ts) else { return };
            let track = self.stacks[i].0;
            self.stacks[i].1.pop();
            if self.stacks[i].1.is_empty() && track.is_some() {
                self.stacks.swap_remove(i);
            }
            let mut p = pb::TracePacket { optional_trusted_packet_sequence_id: sid, ..Default::default() };
            stamp(seq, at, &mut p);
            p.data = Some(Data::TrackEvent(pb::TrackEvent { r#type: Some(Type::SliceEnd as i32), track_uuid: track, ..Default::default() }));
            put_packet(&p, buf);
        }
    }
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
        self.nvtx_tracks.clear();
        self.memory_tracks.clear();
        self.process = Seq::new(PROCESS_SEQ);
        self.declare_process();
        self.gpu_seqs.clear();
        for d in self.gpu_tracks.clone() {
            let tid = d.uuid.unwrap_or(0) as u32;
            self.open_gpu_sequence(tid, d);
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
        let thread_name = &*tracks::thread_name(tid, thread_name);
        if fresh {
            let d = pb::TrackDescriptor {
                uuid: Some(thread_uuid(pid, tid as u32)),
                parent_uuid: Some(process_uuid(pid)),
                thread: Some(pb::ThreadDescriptor { pid: Some(pid as i32), tid: Some(tid as i64), thread_name: Some(thread_name.to_owned()) }),
                ..Default::default()
            };
            Self::open_sequence(seq.id, d, &mut self.buf);
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
        // absolute timestamp. Outer before inner at one instant (calls'
        // and NVTX ranges' `depth` is their level); a memory event (its
        // `depth` holds its kind, above any level) after the call that
        // made it.
        let start = |e: &Event| clock::since_start_ns(e.t0) as u64;
        let mut order: Vec<usize> = (0..c.events.len()).collect();
        order.sort_by_key(|&i| (start(&c.events[i]), c.events[i].depth));
        let mut ends = Ends::default();
        for i in order {
            let e = &c.events[i];
            let ts = start(e);
            ends.write_until(ts, seq, sid, &mut self.buf);
            ev.debug_annotations.clear();
            ev.flow_ids.clear();
            ev.track_uuid = None;
            ev.category_iids.clear();
            ev.counter_value_field = None;
            let mut end = None;
            match e.kind {
                KIND_CALL => {
                    ev.r#type = Some(Type::SliceBegin as i32);
                    ev.name_field = Some(NameField::NameIid(seq.site(e.site, &mut new)));
                    if e.value != 0 {
                        ev.flow_ids.push(e.value as u64);
                    }
                    if e.result != 0 {
                        self.text.clear();
                        status_name(e.site, e.result, &mut self.text);
                        let value = seq.value(&self.text, &mut new);
                        annotate(seq, &mut ev, "result", value, &mut new);
                    }
                    for k in &c.args[e.args.0 as usize..e.args.1 as usize] {
                        self.text.clear();
                        k.write_value(c.text, &mut self.text);
                        let value = seq.arg_value(&self.text, &mut new);
                        annotate(seq, &mut ev, k.name, value, &mut new);
                    }
                    end = Some((None, ts + clock::to_ns(e.dt)));
                }
                KIND_MEMORY => {
                    let m = Mem::of(e);
                    // The counter track of the device and kind, declared
                    // on first use.
                    let uuid = memory_uuid(pid, m.device, (e.depth & 0xff) as u8);
                    if self.memory_tracks.insert(uuid) {
                        let d = bytes_counter_track(uuid, pid, m.track_name());
                        put_packet(&Self::packet(seq.id, None, Data::TrackDescriptor(d)), &mut self.buf);
                    }
                    // The instant, on the thread's track.
                    ev.r#type = Some(Type::Instant as i32);
                    ev.name_field = Some(NameField::NameIid(seq.name(m.what, &mut new)));
                    ev.category_iids.push(seq.category("memory", &mut new));
                    annotate(seq, &mut ev, "bytes", AnnValue::UintValue(m.bytes), &mut new);
                    let kind = seq.value(m.kind, &mut new);
                    annotate(seq, &mut ev, "kind", kind, &mut new);
                    annotate(seq, &mut ev, "device", AnnValue::IntValue(m.device as i64), &mut new);
                    let lib = seq.value(&m.library, &mut new);
                    annotate(seq, &mut ev, "library", lib, &mut new);
                    stamp(seq, ts, &mut packet);
                    packet.interned_data = interned(&mut new);
                    put_event(&mut packet, &mut ev, &mut self.buf);
                    // The counter sample.
                    ev.debug_annotations.clear();
                    ev.category_iids.clear();
                    ev.r#type = Some(Type::Counter as i32);
                    ev.name_field = None;
                    ev.track_uuid = Some(uuid);
                    ev.counter_value_field = Some(pb::track_event::CounterValueField::CounterValue(m.live as i64));
                    stamp(seq, ts, &mut packet);
                    put_event(&mut packet, &mut ev, &mut self.buf);
                    continue;
                }
                kind => {
                    // NVTX (as the JSON: see json.rs's `nvtx`): a push/pop
                    // range is a slice on the NVTX track of its thread and
                    // domain, a mark an instant there, a start/end range a
                    // slice on a track of its own (it may cross threads).
                    let args = &c.args[e.args.0 as usize..e.args.1 as usize];
                    let domain = domain_name(e.site);
                    let uuid = if kind == KIND_NVTX_ASYNC {
                        let uuid = async_uuid(pid, e.result as u32);
                        let name = if domain.is_empty() { "NVTX start/end".to_owned() } else { format!("NVTX {domain} start/end") };
                        let d = pb::TrackDescriptor { uuid: Some(uuid), parent_uuid: Some(process_uuid(pid)), static_or_dynamic_name: Some(pb::track_descriptor::StaticOrDynamicName::Name(name)), ..Default::default() };
                        put_packet(&Self::packet(seq.id, None, Data::TrackDescriptor(d)), &mut self.buf);
                        uuid
                    } else {
                        let track = tracks::nvtx_track(tid, e.site);
                        let uuid = thread_uuid(pid, track as u32);
                        if self.nvtx_tracks.insert(uuid) {
                            let name = if domain.is_empty() { format!("NVTX {thread_name}") } else { format!("NVTX {domain} {thread_name}") };
                            let d = pb::TrackDescriptor { uuid: Some(uuid), parent_uuid: Some(process_uuid(pid)), static_or_dynamic_name: Some(pb::track_descriptor::StaticOrDynamicName::Name(name)), ..Default::default() };
                            put_packet(&Self::packet(seq.id, None, Data::TrackDescriptor(d)), &mut self.buf);
                        }
                        uuid
                    };
                    self.text.clear();
                    if let Some(k) = args.iter().find(|k| k.name == "message") {
                        k.write_value(c.text, &mut self.text);
                    }
                    ev.name_field = Some(seq.free_name(&self.text, &mut new));
                    ev.category_iids.push(seq.category("nvtx", &mut new));
                    ev.track_uuid = Some(uuid);
                    match kind {
                        KIND_NVTX_RANGE => {
                            ev.r#type = Some(Type::SliceBegin as i32);
                            annotate(seq, &mut ev, "level", AnnValue::UintValue(e.depth as u64), &mut new);
                            end = Some((Some(uuid), ts + clock::to_ns(e.dt)));
                        }
                        KIND_NVTX_ASYNC => {
                            ev.r#type = Some(Type::SliceBegin as i32);
                            let style = seq.value("StartEnd", &mut new);
                            annotate(seq, &mut ev, "style", style, &mut new);
                            end = Some((Some(uuid), ts + clock::to_ns(e.dt)));
                        }
                        _ => {
                            ev.r#type = Some(Type::Instant as i32);
                            annotate(seq, &mut ev, "mark", AnnValue::BoolValue(true), &mut new);
                        }
                    }
                    if !domain.is_empty() {
                        let d = seq.value(domain, &mut new);
                        annotate(seq, &mut ev, "domain", d, &mut new);
                    }
                    if let Some(col) = nvtx_color(e.value) {
                        let v = seq.value(&format!("#{:06x}", col & 0xff_ffff), &mut new);
                        annotate(seq, &mut ev, "color", v, &mut new);
                    }
                    for k in args.iter().filter(|k| k.name != "message") {
                        self.text.clear();
                        k.write_value(c.text, &mut self.text);
                        let value = seq.value(&self.text, &mut new);
                        annotate(seq, &mut ev, k.name, value, &mut new);
                    }
                }
            }
            stamp(seq, ts, &mut packet);
            packet.interned_data = interned(&mut new);
            put_event(&mut packet, &mut ev, &mut self.buf);
            if let Some((track, at)) = end {
                ends.push(track, at);
            }
        }
        ends.write_until(u64::MAX, seq, sid, &mut self.buf);
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
                    self.gpu_tracks.push(d.clone());
                    self.open_gpu_sequence(*tid, d);
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
        if !self.gpu_seqs.contains_key(&s.tid) {
            // Every track is declared (and its sequence opened) before its
            // slices; a slice of an undeclared one still gets a sequence.
            let d = pb::TrackDescriptor { uuid: Some(thread_uuid(self.pid, s.tid)), parent_uuid: Some(process_uuid(self.pid)), ..Default::default() };
            self.open_gpu_sequence(s.tid, d);
        }
        let Some(seq) = self.gpu_seqs.get_mut(&s.tid) else { return };
        let cat = match s.what {
            GpuWhat::Kernel { .. } => "gpu_kernel",
            GpuWhat::Copy { .. } => "gpu_memcpy",
            GpuWhat::Set { .. } => "gpu_memset",
        };
        let mut args = Vec::with_capacity(12);
        let mut arg = |seq: &mut Seq, name: &'static str, v: AnnValue, new: &mut pb::InternedData| {
            args.push(pb::DebugAnnotation { name_field: Some(AnnName::NameIid(seq.arg_name(name, new))), value: Some(v) });
        };
        // The device and stream are the track's, when its id holds them
        // whole (readers take them from there).
        if trace_format::perfetto::gpu_track_of(s.tid) != Some((s.device, s.stream)) {
            arg(seq, "device", AnnValue::UintValue(s.device as u64), new);
            arg(seq, "stream", AnnValue::UintValue(s.stream as u64), new);
        }
        arg(seq, "correlation", AnnValue::UintValue(s.correlation as u64), new);
        // The launch's id is the flow's: written once, as the flow's end,
        // when the flow ends here (readers give it back as `launch`).
        if s.launch != 0 && flow_end != Some(s.launch) {
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
                let o = seq.value(trace_format::gpu_table::MEMSET, new);
                arg(seq, "operation", o, new);
                arg(seq, "value", AnnValue::UintValue(*value as u64), new);
                arg(seq, "bytes", AnnValue::UintValue(*bytes), new);
                arg(seq, "bandwidth (GB/s)", bandwidth(*bytes), new);
            }
        }
        let begin = pb::TrackEvent {
            r#type: Some(Type::SliceBegin as i32),
            name_field: Some(NameField::NameIid(seq.name(&s.name, new))),
            category_iids: vec![seq.category(cat, new)],
            terminating_flow_ids: flow_end.into_iter().collect(),
            debug_annotations: args,
            ..Default::default()
        };
        let mut p = Self::packet(seq.id, None, Data::TrackEvent(begin));
        stamp(seq, s.ts, &mut p);
        p.interned_data = interned(new);
        put_packet(&p, &mut self.buf);
        let mut p = Self::packet(seq.id, None, Data::TrackEvent(pb::TrackEvent { r#type: Some(Type::SliceEnd as i32), ..Default::default() }));
        stamp(seq, s.ts + s.dur, &mut p);
        put_packet(&p, &mut self.buf);
    }
}
