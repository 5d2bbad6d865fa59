//! Perfetto's native trace format as cudart-shim writes it (`*.pftrace`,
//! `*.perfetto-trace`, `--format perfetto`) and reads it back
//! (`cudart-shim report`, `--merge`).
//!
//! A trace is a sequence of `TracePacket`s, each written as field 1 of
//! `Trace` (tag, length, bytes), so any prefix made of whole packets is a
//! complete trace: the library writes whole packets only.
//!
//! What the library writes (src/trace/timeline/perfetto.rs):
//! - sequence 1: the process track ([`process_uuid`]), the process record
//!   (an instant [`PROCESS_RECORD`] with the record's JSON in annotation
//!   `process`), markers (other instants on the process track: dropped
//!   events, the size limit) and the ends of launch flows whose GPU slice
//!   went out in an earlier batch (instants on the GPU track);
//! - one sequence per GPU stream track, whose first packet declares the
//!   track and makes it the default: its slices (category `gpu_kernel`,
//!   `gpu_memcpy`, `gpu_memset`, as in the JSON) on its incremental clock;
//!   a slice where its launch's flow ends carries the launch id as that
//!   flow's id only (read back as the JSON's `launch` argument), and its
//!   device and stream only in its track's id ([`gpu_track_tid`]) when
//!   that holds them whole;
//! - one sequence per host thread, whose first packet declares the thread's
//!   track ([`thread_uuid`]) and makes it the sequence's default track;
//!   each call is a slice (begin and end packets), its name and argument
//!   names interned per sequence, argument values written in full at first
//!   use (addresses as `pointer_value`, small numbers as `uint_value`: read
//!   back as the JSON's text) and interned from the second. The call's
//!   result is an annotation `result` when it is not success (no
//!   annotation: success); its depth is the slice's nesting; the flow to
//!   its GPU work is the begin's `flow_ids`, ending at the GPU slice's
//!   `terminating_flow_ids`. The same sequence carries the thread's NVTX
//!   tracks (named `NVTX [domain] thread`, ids as the JSON's track ids) with
//!   their slices and marks (category `nvtx`), its NVTX start/end ranges
//!   (one track each, [`async_uuid`], read back as `b`/`e` pairs), its
//!   memory instants (category `memory`) and the ledger's counter tracks
//!   ([`memory_uuid`]: one per device and kind).
//!
//! Timestamps are nanoseconds on the trace's own axis (since the trace
//! started, as the JSON's microseconds), on Perfetto's default clock; a
//! thread's packets on its sequence's incremental clock.

#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod protos {
    include!("protos.rs");
}

use protos as pb;
use prost::Message;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// The name of the instant that carries the process record.
pub const PROCESS_RECORD: &str = "cudart_shim_process";

/// Track ids: the process in the high 32 bits, so that traces of several
/// processes merge without clashes.
pub fn process_uuid(pid: u32) -> u64 {
    (pid as u64) << 32
}

/// A host thread's track, or a GPU stream's (its timeline thread id).
pub fn thread_uuid(pid: u32, tid: u32) -> u64 {
    process_uuid(pid) | tid as u64
}

/// The timeline thread id of a GPU stream's track: above every real
/// thread id (2^30 and up), so GPU tracks sort after the host threads;
/// the device in 6 bits, the stream in 24.
pub fn gpu_track_tid(device: u32, stream: u32) -> u32 {
    (1 << 30) + ((device & 0x3f) << 24) + (stream & 0xff_ffff)
}

/// The device and stream of a GPU track's thread id, when it holds them
/// whole (their values fit its bits): a slice on that track need not
/// carry them.
pub fn gpu_track_of(tid: u32) -> Option<(u32, u32)> {
    (tid >> 30 == 1).then_some(((tid >> 24) & 0x3f, tid & 0xff_ffff))
}

/// The descriptor of counter track `uuid` of process `pid`: `name`, in bytes
/// (the writers' only counters are memory).
pub fn bytes_counter_track(uuid: u64, pid: u32, name: String) -> protos::TrackDescriptor {
    protos::TrackDescriptor {
        uuid: Some(uuid),
        parent_uuid: Some(process_uuid(pid)),
        static_or_dynamic_name: Some(protos::track_descriptor::StaticOrDynamicName::Name(name)),
        counter: Some(protos::CounterDescriptor { unit: Some(protos::counter_descriptor::Unit::SizeBytes as i32), ..Default::default() }),
        ..Default::default()
    }
}

/// A counter track of a merged trace (`report --merge`), `n`-th of its
/// process.
pub fn counter_uuid(pid: u32) -> u64 {
    process_uuid(pid) | 0xffff_ffff
}

/// The ledger's counter track of memory of `kind` (the ledger's kind
/// number) on `device` (-1: host): bytes live.
pub fn memory_uuid(pid: u32, device: i32, kind: u8) -> u64 {
    process_uuid(pid) | 0xfffe_0000 | (((device + 1) as u64 & 0xfff) << 4) | (kind as u64 & 0xf)
}

/// Low bits of an NVTX start/end range's track (one track per range):
/// `0xc000_0000 | id`, above the GPU stream tracks (2^30 + ...).
const ASYNC_TAG: u64 = 0xc000_0000;
const ASYNC_MASK: u64 = 0xf000_0000;

/// The track of NVTX start/end range `id`.
pub fn async_uuid(pid: u32, id: u32) -> u64 {
    process_uuid(pid) | ASYNC_TAG | (id as u64 & !ASYNC_MASK & 0xffff_ffff)
}

/// The range id of an NVTX start/end range's track.
pub fn async_id(uuid: u64) -> Option<u64> {
    (uuid & ASYNC_MASK == ASYNC_TAG).then_some(uuid & 0x0fff_ffff)
}

/// Whether a file's first bytes are a protobuf trace (a packet: field 1,
/// length-delimited) rather than JSON.
pub fn looks_like_protobuf(head: &[u8]) -> bool {
    head.first() == Some(&0x0a)
}

/// Append one packet as a `Trace.packet` field.
pub fn put_packet(packet: &pb::TracePacket, out: &mut Vec<u8>) {
    out.push(0x0a);
    prost::encoding::encode_varint(packet.encoded_len() as u64, out);
    packet.encode_raw(out);
}

/// The packets of a trace file. A torn last packet (a file cut while being
/// written by something else than the library) ends the list; a packet
/// that does not decode is an error.
pub fn packets(mut bytes: &[u8]) -> Result<Vec<pb::TracePacket>, String> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let at = out.len();
        let Ok(key) = prost::encoding::decode_varint(&mut bytes) else { break };
        if key != 0x0a {
            return Err(format!("packet {at}: field {} (wire type {}) where Trace.packet was expected", key >> 3, key & 7));
        }
        let Ok(len) = prost::encoding::decode_varint(&mut bytes) else { break };
        let Some(body) = bytes.get(..len as usize) else { break };
        out.push(pb::TracePacket::decode(body).map_err(|e| format!("packet {at}: {e}"))?);
        bytes = &bytes[len as usize..];
    }
    Ok(out)
}

/// Interned strings of one sequence.
#[derive(Default)]
struct Interned {
    names: HashMap<u64, String>,
    categories: HashMap<u64, String>,
    arg_names: HashMap<u64, String>,
    values: HashMap<u64, String>,
    default_track: Option<u64>,
    /// The sequence's default clock, and its incremental clock (id, last
    /// timestamp, on the trace clock's axis).
    default_clock: Option<u32>,
    incremental: Option<(u32, u64)>,
}

/// An open slice (its begin read, its end not yet).
struct Open {
    ts: u64,
    name: String,
    cat: String,
    args: Map<String, Value>,
}

/// A track as the Chrome JSON names it.
#[derive(Clone, Copy)]
struct Where {
    pid: u64,
    tid: u64,
    /// A host thread's track (its slices are calls).
    thread: bool,
    /// An NVTX start/end range's track: the range's id (its slice is an
    /// async pair in the JSON).
    range: Option<u64>,
}

fn us(ns: u64) -> Value {
    json!((ns as f64) / 1000.0)
}

/// The events of a protobuf trace as the JSON timeline has them (Chrome
/// trace events), so that every reader of timelines reads both formats.
pub fn to_chrome(packets: &[pb::TracePacket]) -> Vec<Value> {
    let mut seqs: HashMap<u32, Interned> = HashMap::new();
    let mut tracks: HashMap<u64, Where> = HashMap::new();
    let mut counters: HashMap<u64, String> = HashMap::new();
    let mut open: HashMap<u64, Vec<Open>> = HashMap::new();
    let mut out = Vec::new();
    for p in packets {
        let seq_id = match p.optional_trusted_packet_sequence_id {
            Some(pb::trace_packet::OptionalTrustedPacketSequenceId::TrustedPacketSequenceId(s)) => s,
            None => 0,
        };
        let seq = seqs.entry(seq_id).or_default();
        if p.sequence_flags.unwrap_or(0) & pb::trace_packet::SequenceFlags::SeqIncrementalStateCleared as u32 != 0 {
            *seq = Interned::default();
        }
        if let Some(d) = &p.trace_packet_defaults {
            seq.default_clock = d.timestamp_clock_id;
            if let Some(t) = &d.track_event_defaults {
                seq.default_track = t.track_uuid;
            }
        }
        if let Some(pb::trace_packet::Data::ClockSnapshot(c)) = &p.data {
            // An incremental clock whose origin is given on the trace clock
            // (the library writes both at 0).
            let base = c.clocks.iter().find(|k| !k.is_incremental()).map_or(0, |k| k.timestamp());
            if let Some(k) = c.clocks.iter().find(|k| k.is_incremental()) {
                seq.incremental = Some((k.clock_id(), base + k.timestamp()));
            }
        }
        // The packet's time on the trace clock.
        let ts = match (p.timestamp_clock_id.or(seq.default_clock), seq.incremental.as_mut()) {
            (Some(id), Some((inc, last))) if id == *inc => {
                *last += p.timestamp.unwrap_or(0);
                *last
            }
            _ => p.timestamp.unwrap_or(0),
        };
        if let Some(i) = &p.interned_data {
            for n in &i.event_names {
                seq.names.insert(n.iid(), n.name().to_owned());
            }
            for n in &i.event_categories {
                seq.categories.insert(n.iid(), n.name().to_owned());
            }
            for n in &i.debug_annotation_names {
                seq.arg_names.insert(n.iid(), n.name().to_owned());
            }
            for n in &i.debug_annotation_string_values {
                seq.values.insert(n.iid(), String::from_utf8_lossy(n.str()).into_owned());
            }
        }
        match &p.data {
            Some(pb::trace_packet::Data::TrackDescriptor(d)) => {
                let uuid = d.uuid();
                let name = match &d.static_or_dynamic_name {
                    Some(pb::track_descriptor::StaticOrDynamicName::Name(n) | pb::track_descriptor::StaticOrDynamicName::StaticName(n)) => {
                        n.clone()
                    }
                    None => String::new(),
                };
                if let Some(pr) = &d.process {
                    let pid = pr.pid() as u64;
                    tracks.insert(uuid, Where { pid, tid: 0, thread: false, range: None });
                    out.push(json!({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": pr.process_name()}}));
                } else if let Some(t) = &d.thread {
                    let (pid, tid) = (t.pid() as u64, t.tid() as u64);
                    tracks.insert(uuid, Where { pid, tid, thread: true, range: None });
                    out.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": t.thread_name()}}));
                } else if d.counter.is_some() {
                    counters.insert(uuid, name);
                } else if let Some(id) = async_id(uuid) {
                    // An NVTX start/end range: its events name the thread.
                    let pid = d.parent_uuid.and_then(|u| tracks.get(&u)).map_or(uuid >> 32, |w| w.pid);
                    tracks.insert(uuid, Where { pid, tid: 0, thread: false, range: Some(id) });
                } else {
                    // A GPU stream or an NVTX track: a track of its own
                    // under the process (GPU streams sorted by their id).
                    let pid = d.parent_uuid.and_then(|u| tracks.get(&u)).map_or(uuid >> 32, |w| w.pid);
                    let tid = uuid & 0xffff_ffff;
                    tracks.insert(uuid, Where { pid, tid, thread: false, range: None });
                    out.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}));
                    if d.sibling_order_rank.is_some() {
                        out.push(json!({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid, "args": {"sort_index": tid}}));
                    }
                }
            }
            Some(pb::trace_packet::Data::TrackEvent(e)) => {
                let Some(uuid) = e.track_uuid.or(seq.default_track) else { continue };
                let at = tracks.get(&uuid).copied().unwrap_or(Where { pid: uuid >> 32, tid: uuid & 0xffff_ffff, thread: false, range: None });
                // The thread whose sequence wrote the event.
                let writer = seq.default_track.and_then(|u| tracks.get(&u)).map_or(0, |w| w.tid);
                let name = match &e.name_field {
                    Some(pb::track_event::NameField::NameIid(i)) => seq.names.get(i).cloned().unwrap_or_default(),
                    Some(pb::track_event::NameField::Name(n)) => n.clone(),
                    None => String::new(),
                };
                let cat = e.category_iids.first().and_then(|i| seq.categories.get(i).cloned()).or_else(|| e.categories.first().cloned());
                let args = annotations(&e.debug_annotations, seq);
                for id in &e.flow_ids {
                    out.push(json!({"name": "launch", "cat": "gpu_launch", "ph": "s", "id": id, "pid": at.pid, "tid": at.tid, "ts": us(ts)}));
                }
                for id in &e.terminating_flow_ids {
                    out.push(json!({"name": "launch", "cat": "gpu_launch", "ph": "f", "bp": "e", "id": id, "pid": at.pid, "tid": at.tid, "ts": us(ts)}));
                }
                use pb::track_event::Type;
                match Type::try_from(e.r#type.unwrap_or(0)).unwrap_or(Type::Unspecified) {
                    Type::SliceBegin if at.range.is_some() => {
                        let id = at.range.unwrap_or(0);
                        out.push(json!({"name": name, "cat": cat.clone().unwrap_or_default(), "ph": "b", "pid": at.pid, "tid": writer, "id": id, "ts": us(ts), "args": args}));
                        open.entry(uuid).or_default().push(Open { ts, name, cat: cat.unwrap_or_default(), args: Map::new() });
                    }
                    Type::SliceEnd if at.range.is_some() => {
                        if let Some(o) = open.get_mut(&uuid).and_then(Vec::pop) {
                            out.push(json!({"name": o.name, "cat": o.cat, "ph": "e", "pid": at.pid, "tid": writer, "id": at.range.unwrap_or(0), "ts": us(ts)}));
                        }
                    }
                    Type::SliceBegin => {
                        let stack = open.entry(uuid).or_default();
                        let mut args = args;
                        let cat = if at.thread {
                            let cat = cat.unwrap_or_else(|| "cuda_api".into());
                            if cat == "cuda_api" {
                                // A call's arguments are text (the writer
                                // puts small numbers in a number field).
                                for v in args.values_mut() {
                                    if v.is_u64() || v.is_i64() {
                                        *v = Value::String(v.to_string());
                                    }
                                }
                            }
                            args.entry("result").or_insert_with(|| json!(success_of(&name)));
                            // Set from the nesting once every slice is read.
                            args.insert("depth".into(), json!(0));
                            cat
                        } else {
                            let cat = cat.unwrap_or_default();
                            if cat.starts_with("gpu_") {
                                // What the writer left to the track: the
                                // device and stream its id holds, and the
                                // launch id carried once as the flow's id.
                                let mut full = Map::new();
                                if !args.contains_key("device") && let Some((device, stream)) = gpu_track_of(at.tid as u32) {
                                    full.insert("device".into(), json!(device));
                                    full.insert("stream".into(), json!(stream));
                                }
                                full.append(&mut args);
                                args = full;
                                if !args.contains_key("launch") && let Some(id) = e.terminating_flow_ids.first() {
                                    args.insert("launch".into(), json!(id));
                                }
                            }
                            cat
                        };
                        stack.push(Open { ts, name, cat, args });
                    }
                    Type::SliceEnd => {
                        if let Some(o) = open.get_mut(&uuid).and_then(Vec::pop) {
                            out.push(json!({"name": o.name, "cat": o.cat, "ph": "X", "pid": at.pid, "tid": at.tid, "ts": us(o.ts), "dur": us(ts.saturating_sub(o.ts)), "args": o.args}));
                        }
                    }
                    Type::Counter => {
                        let value = match e.counter_value_field {
                            Some(pb::track_event::CounterValueField::CounterValue(v)) => json!(v),
                            Some(pb::track_event::CounterValueField::DoubleCounterValue(v)) => json!(v),
                            None => json!(0),
                        };
                        let name = counters.get(&uuid).cloned().unwrap_or(name);
                        out.push(json!({"name": name, "cat": "memory", "ph": "C", "pid": at.pid, "tid": writer, "ts": us(ts), "args": {"bytes": value}}));
                    }
                    Type::Instant if name == PROCESS_RECORD => {
                        let record = args.get("process").and_then(Value::as_str).and_then(|s| serde_json::from_str::<Value>(s).ok());
                        out.push(json!({"name": PROCESS_RECORD, "ph": "M", "pid": at.pid, "tid": 0, "args": record.unwrap_or(Value::Null)}));
                    }
                    Type::Instant if !at.thread && at.tid == 0 => {
                        out.push(json!({"name": "process_labels", "ph": "M", "pid": at.pid, "tid": 0, "args": {"labels": name}}));
                    }
                    // NVTX marks, memory events: instants of a thread's track.
                    Type::Instant if cat.is_some() => {
                        out.push(json!({"name": name, "cat": cat, "ph": "i", "s": "t", "pid": at.pid, "tid": at.tid, "ts": us(ts), "args": args}));
                    }
                    // Flow ends with no slice of their own (written above).
                    _ => {}
                }
            }
            Some(pb::trace_packet::Data::ClockSnapshot(_)) | None => {}
        }
    }
    set_depths(&mut out);
    out
}

/// A call's depth is how many calls of its thread enclose it. The library
/// writes a call's begin and end together, when the call returns (so an
/// inner call comes before the call around it): depth is taken from the
/// times, not from the order in the file.
fn set_depths(out: &mut [Value]) {
    // By (pid, tid): each call's (start, duration, index in `out`).
    type Calls = Vec<(u64, u64, usize)>;
    let mut by_thread: HashMap<(u64, u64), Calls> = HashMap::new();
    for (i, e) in out.iter().enumerate() {
        if e["ph"] == "X" && e["cat"] == "cuda_api" {
            let ns = |v: &Value| (v.as_f64().unwrap_or(0.0) * 1000.0).round() as u64;
            let (ts, dur) = (ns(&e["ts"]), ns(&e["dur"]));
            by_thread.entry((e["pid"].as_u64().unwrap_or(0), e["tid"].as_u64().unwrap_or(0))).or_default().push((ts, dur, i));
        }
    }
    for (_, mut calls) in by_thread {
        // Outer first among calls that start together.
        calls.sort_by_key(|&(ts, dur, i)| (ts, std::cmp::Reverse(dur), i));
        let mut ends: Vec<u64> = Vec::new();
        for (ts, dur, i) in calls {
            while ends.last().is_some_and(|&end| end <= ts && !(end == ts && dur == 0)) {
                ends.pop();
            }
            out[i]["args"]["depth"] = json!(ends.len());
            ends.push(ts + dur);
        }
    }
}

/// A call's result when the trace says none: success, in the call's API.
fn success_of(name: &str) -> &'static str {
    let driver = name.starts_with("cu") && !name.starts_with("cuda");
    if driver { "CUDA_SUCCESS" } else { "cudaSuccess" }
}

fn annotations(list: &[pb::DebugAnnotation], seq: &Interned) -> Map<String, Value> {
    use pb::debug_annotation::{NameField, Value as V};
    let mut m = Map::new();
    for a in list {
        let name = match &a.name_field {
            Some(NameField::NameIid(i)) => seq.arg_names.get(i).cloned().unwrap_or_default(),
            Some(NameField::Name(n)) => n.clone(),
            None => continue,
        };
        let v = match &a.value {
            Some(V::BoolValue(b)) => json!(b),
            Some(V::UintValue(u)) => json!(u),
            Some(V::IntValue(i)) => json!(i),
            Some(V::DoubleValue(d)) => json!(d),
            Some(V::PointerValue(p)) => json!(format!("{p:#x}")),
            Some(V::StringValue(s) | V::LegacyJsonValue(s)) => json!(s),
            Some(V::StringValueIid(i)) => json!(seq.values.get(i).cloned().unwrap_or_default()),
            None => Value::Null,
        };
        m.insert(name, v);
    }
    m
}

/// A protobuf trace of Chrome trace events (`report --merge OUT.pftrace`):
/// one sequence, names written in full. Tracks: each process, each of its
/// threads (GPU streams are threads here), each counter.
pub fn from_chrome(events: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    let ns = |v: &Value| (v.as_f64().unwrap_or(0.0) * 1000.0).round().max(0.0) as u64;
    let key = |e: &Value| (e["pid"].as_u64().unwrap_or(0) as u32, e["tid"].as_u64().unwrap_or(0) as u32);
    // Flow ends and starts by (pid, tid, ts): they bind to the slice there.
    let mut starts: HashMap<(u32, u32, u64), Vec<u64>> = HashMap::new();
    let mut ends: HashMap<(u32, u32, u64), Vec<u64>> = HashMap::new();
    for e in events {
        let (pid, tid) = key(e);
        let id = e["id"].as_u64().unwrap_or(0);
        match e["ph"].as_str() {
            Some("s") => starts.entry((pid, tid, ns(&e["ts"]))).or_default().push(id),
            Some("f") => ends.entry((pid, tid, ns(&e["ts"]))).or_default().push(id),
            _ => {}
        }
    }
    let mut first = true;
    let mut declared: std::collections::HashSet<u64> = std::collections::HashSet::new();
    let mut declare = |pid: u32, tid: u32, name: Option<&str>, out: &mut Vec<u8>, first: &mut bool| {
        let uuid = if tid == 0 { process_uuid(pid) } else { thread_uuid(pid, tid) };
        if !declared.insert(uuid) && name.is_none() {
            return;
        }
        let d = if tid == 0 {
            pb::TrackDescriptor {
                uuid: Some(process_uuid(pid)),
                process: Some(pb::ProcessDescriptor { pid: Some(pid as i32), process_name: name.map(str::to_owned), ..Default::default() }),
                ..Default::default()
            }
        } else {
            pb::TrackDescriptor {
                uuid: Some(uuid),
                parent_uuid: Some(process_uuid(pid)),
                thread: Some(pb::ThreadDescriptor { pid: Some(pid as i32), tid: Some(tid as i64), thread_name: name.map(str::to_owned) }),
                ..Default::default()
            }
        };
        put(pb::trace_packet::Data::TrackDescriptor(d), None, out, std::mem::take(first));
    };
    let mut counters: HashMap<(u32, String), u64> = HashMap::new();
    // (time, end 0 / begin 1, order among equals, packet)
    let mut slices: Vec<(u64, u8, u64, Vec<u8>)> = Vec::new();
    for e in events {
        let (pid, tid) = key(e);
        let name = e["name"].as_str().unwrap_or("").to_owned();
        match e["ph"].as_str() {
            Some("M") if name == "process_name" || name == "thread_name" => {
                declare(pid, if name == "process_name" { 0 } else { tid }, e["args"]["name"].as_str(), &mut out, &mut first);
            }
            Some("M") if name == PROCESS_RECORD || name == "process_labels" => {
                declare(pid, 0, None, &mut out, &mut first);
                let (n, args) = if name == PROCESS_RECORD {
                    (name.clone(), vec![annotation("process", Value::String(e["args"].to_string()))])
                } else {
                    (e["args"]["labels"].as_str().unwrap_or("").to_owned(), vec![])
                };
                let ev = pb::TrackEvent {
                    r#type: Some(pb::track_event::Type::Instant as i32),
                    track_uuid: Some(process_uuid(pid)),
                    name_field: Some(pb::track_event::NameField::Name(n)),
                    debug_annotations: args,
                    ..Default::default()
                };
                put(pb::trace_packet::Data::TrackEvent(ev), Some(0), &mut out, std::mem::take(&mut first));
            }
            Some("X") => {
                declare(pid, 0, None, &mut out, &mut first);
                declare(pid, tid, None, &mut out, &mut first);
                let ts = ns(&e["ts"]);
                let args = e["args"].as_object().map(|m| m.iter().filter(|(k, _)| *k != "depth").map(|(k, v)| annotation(k, v.clone())).collect()).unwrap_or_default();
                let begin = pb::TrackEvent {
                    r#type: Some(pb::track_event::Type::SliceBegin as i32),
                    track_uuid: Some(thread_uuid(pid, tid)),
                    name_field: Some(pb::track_event::NameField::Name(name)),
                    categories: e["cat"].as_str().map(|c| vec![c.to_owned()]).unwrap_or_default(),
                    flow_ids: starts.remove(&(pid, tid, ts)).unwrap_or_default(),
                    terminating_flow_ids: ends.remove(&(pid, tid, ts)).unwrap_or_default(),
                    debug_annotations: args,
                    ..Default::default()
                };
                let end = pb::TrackEvent { r#type: Some(pb::track_event::Type::SliceEnd as i32), track_uuid: Some(thread_uuid(pid, tid)), ..Default::default() };
                let dur = ns(&e["dur"]);
                let mut b = Vec::new();
                put(pb::trace_packet::Data::TrackEvent(begin), Some(ts), &mut b, false);
                // Begins at one instant: the longest (outermost) first.
                slices.push((ts, 1, u64::MAX - dur, b));
                let mut b = Vec::new();
                put(pb::trace_packet::Data::TrackEvent(end), Some(ts + dur), &mut b, false);
                // Ends at one instant: the latest begun (innermost) first.
                slices.push((ts + dur, 0, u64::MAX - ts, b));
            }
            Some("C") => {
                declare(pid, 0, None, &mut out, &mut first);
                let next = counters.len() as u64;
                let uuid = *counters.entry((pid, name.clone())).or_insert_with(|| {
                    let uuid = counter_uuid(pid) - next;
                    put(pb::trace_packet::Data::TrackDescriptor(bytes_counter_track(uuid, pid, name.clone())), None, &mut out, false);
                    uuid
                });
                let v = e["args"].as_object().and_then(|m| m.values().next()).and_then(Value::as_i64).unwrap_or(0);
                let ev = pb::TrackEvent {
                    r#type: Some(pb::track_event::Type::Counter as i32),
                    track_uuid: Some(uuid),
                    counter_value_field: Some(pb::track_event::CounterValueField::CounterValue(v)),
                    ..Default::default()
                };
                let mut b = Vec::new();
                put(pb::trace_packet::Data::TrackEvent(ev), Some(ns(&e["ts"])), &mut b, false);
                slices.push((ns(&e["ts"]), 1, 0, b));
            }
            _ => {}
        }
    }
    // In time order, ends before begins at one instant (a slice that ends
    // where the next begins), so nesting is rebuilt exactly.
    slices.sort_by_key(|(ts, kind, order, _)| (*ts, *kind, *order));
    for (_, _, _, b) in slices {
        out.extend_from_slice(&b);
    }
    out
}

/// Append one packet of sequence 1 (`first`: the sequence's first).
fn put(data: pb::trace_packet::Data, ts: Option<u64>, out: &mut Vec<u8>, first: bool) {
    let p = pb::TracePacket {
        timestamp: ts,
        data: Some(data),
        optional_trusted_packet_sequence_id: Some(pb::trace_packet::OptionalTrustedPacketSequenceId::TrustedPacketSequenceId(1)),
        sequence_flags: first.then_some(pb::trace_packet::SequenceFlags::SeqIncrementalStateCleared as u32),
        ..Default::default()
    };
    put_packet(&p, out);
}

fn annotation(name: &str, v: Value) -> pb::DebugAnnotation {
    use pb::debug_annotation::{NameField, Value as V};
    let value = match v {
        Value::Bool(b) => V::BoolValue(b),
        Value::Number(n) if n.is_u64() => V::UintValue(n.as_u64().unwrap_or(0)),
        Value::Number(n) if n.is_i64() => V::IntValue(n.as_i64().unwrap_or(0)),
        Value::Number(n) => V::DoubleValue(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => V::StringValue(s),
        other => V::StringValue(other.to_string()),
    };
    pb::DebugAnnotation { name_field: Some(NameField::Name(name.to_owned())), value: Some(value) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed Rust is what the committed .proto generates: its
    /// header records the .proto's fingerprint (scripts/gen-perfetto; run
    /// `scripts/gen-perfetto --check` for the full comparison).
    #[test]
    fn generated_messages_match_the_proto() {
        let proto = include_bytes!("../../proto/perfetto_trace.proto");
        let fnv = proto.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3));
        let generated = include_str!("protos.rs");
        assert!(
            generated.contains(&format!("(proto FNV-1a 64: {fnv:016x})")),
            "trace-format/src/perfetto/protos.rs is stale: run scripts/gen-perfetto"
        );
    }

    #[test]
    fn chrome_events_round_trip_through_protobuf() {
        let events: Vec<Value> = serde_json::from_str(
            r#"[{"name":"process_name","ph":"M","pid":7,"tid":0,"args":{"name":"app"}},
                {"name":"thread_name","ph":"M","pid":7,"tid":8,"args":{"name":"main"}},
                {"name":"cudaMalloc","cat":"cuda_api","ph":"X","pid":7,"tid":8,"ts":1.5,"dur":2.25,"args":{"result":"cudaSuccess","depth":0,"size":"64"}},
                {"name":"cuMemAlloc_v2","cat":"cuda_api","ph":"X","pid":7,"tid":8,"ts":2.0,"dur":1.0,"args":{"result":"CUDA_ERROR_OUT_OF_MEMORY","depth":1}},
                {"name":"launch","cat":"gpu_launch","ph":"s","id":5,"pid":7,"tid":8,"ts":1.5},
                {"name":"device memory allocated (bytes)","cat":"memory","ph":"C","pid":7,"tid":8,"ts":3.0,"args":{"bytes":64}}]"#,
        )
        .unwrap();
        let bytes = from_chrome(&events);
        let back = to_chrome(&packets(&bytes).unwrap());
        let x: Vec<&Value> = back.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(x.len(), 2);
        assert_eq!((x[0]["name"].as_str(), x[0]["dur"].as_f64(), x[0]["args"]["size"].as_str()), (Some("cuMemAlloc_v2"), Some(1.0), None));
        assert_eq!((x[0]["args"]["depth"].as_u64(), x[0]["args"]["result"].as_str()), (Some(1), Some("CUDA_ERROR_OUT_OF_MEMORY")));
        assert_eq!((x[1]["name"].as_str(), x[1]["ts"].as_f64(), x[1]["dur"].as_f64()), (Some("cudaMalloc"), Some(1.5), Some(2.25)));
        assert_eq!((x[1]["args"]["depth"].as_u64(), x[1]["args"]["size"].as_str()), (Some(0), Some("64")));
        assert!(back.iter().any(|e| e["ph"] == "s" && e["id"] == 5 && e["tid"] == 8));
        assert!(back.iter().any(|e| e["ph"] == "C" && e["args"]["bytes"] == 64));
        assert!(back.iter().any(|e| e["name"] == "thread_name" && e["args"]["name"] == "main"));
        // A torn last packet ends the list; the whole ones still read.
        let n = packets(&bytes).unwrap().len();
        assert_eq!(packets(&bytes[..bytes.len() - 1]).unwrap().len(), n - 1);
    }
}
