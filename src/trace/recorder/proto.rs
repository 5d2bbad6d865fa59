//! The dump's timeline in Perfetto's protobuf (the default timeline format,
//! issue #33), written under the dump's rules: into a buffer reserved at
//! start, never grown, `write(2)` only (see the [`dump`](super::dump)
//! module note).
//!
//! The layout is the library's timeline's, in its simplest form (what
//! trace-format's `perfetto` reader and Perfetto read back): one sequence;
//! a process track (`cudart-shim recorder`), one thread track per ring,
//! and each call a slice begin and end on its thread's track, with its
//! name, category `cuda_api`, its decoded arguments and `result` as debug
//! annotations, timestamps in nanoseconds since the trace started on the
//! default clock. Nothing is interned, so each packet stands alone. A
//! call's begin and end are adjacent in the file (rings are read in return
//! order): readers order events by time, so nested calls still nest.
//!
//! A nested message's length is written in four bytes, as a varint padded
//! with continuation bits (Perfetto's protozero does the same), and filled
//! in when the message ends: no second pass, no allocation.

use super::ring::Entry;
use crate::trace::{clock, site_name, status_name};
use trace_format::perfetto::{process_uuid, thread_uuid};

/// Room kept free before one more packet: a call's packet is at most its
/// name, 12 arguments of at most [`MAX_VALUE`] bytes each and its result.
pub const MARGIN: usize = 64 * 1024;
/// An argument's value longer than this is cut (a kernel's symbol).
const MAX_VALUE: usize = 2048;
/// The one sequence of the dump.
const SEQ: u64 = 1;

// Field numbers (perfetto/protos: trace.proto, trace_packet.proto,
// track_event.proto, track_descriptor.proto, debug_annotation.proto).
const TRACE_PACKET: u32 = 1;
const P_TIMESTAMP: u32 = 8;
const P_SEQ_ID: u32 = 10;
const P_TRACK_EVENT: u32 = 11;
const P_SEQ_FLAGS: u32 = 13;
const P_TRACK_DESCRIPTOR: u32 = 60;
const TD_UUID: u32 = 1;
const TD_PROCESS: u32 = 3;
const TD_THREAD: u32 = 4;
const TD_PARENT: u32 = 5;
const PD_PID: u32 = 1;
const PD_NAME: u32 = 6;
const THD_PID: u32 = 1;
const THD_TID: u32 = 2;
const TE_ANNOTATIONS: u32 = 4;
const TE_TYPE: u32 = 9;
const TE_TRACK: u32 = 11;
const TE_CATEGORIES: u32 = 22;
const TE_NAME: u32 = 23;
const DA_STRING: u32 = 6;
const DA_NAME: u32 = 10;
const SLICE_BEGIN: u64 = 1;
const SLICE_END: u64 = 2;
const INSTANT: u64 = 3;
const INCREMENTAL_STATE_CLEARED: u64 = 1;

/// A protobuf writer over the dump's reserved buffer and an open file.
pub struct Pb<'a> {
    pub fd: i32,
    pub b: &'a mut Vec<u8>,
}

impl Pb<'_> {
    /// Make room for one more packet: empty the buffer to the file when
    /// less than [`MARGIN`] is free. Only between packets (a packet's
    /// lengths are filled in inside the buffer).
    pub fn room(&mut self) {
        if self.b.capacity() - self.b.len() < MARGIN {
            self.flush();
        }
    }

    pub fn flush(&mut self) {
        crate::trace::output::write_all(self.fd, self.b);
        self.b.clear();
    }

    /// Bytes, never past the reserved capacity (the margin makes this a
    /// guard only).
    fn put(&mut self, s: &[u8]) {
        let n = s.len().min(self.b.capacity() - self.b.len());
        self.b.extend_from_slice(&s[..n]);
    }

    fn varint(&mut self, mut v: u64) {
        let mut tmp = [0u8; 10];
        let mut i = 0;
        while v >= 0x80 {
            tmp[i] = (v as u8) | 0x80;
            v >>= 7;
            i += 1;
        }
        tmp[i] = v as u8;
        self.put(&tmp[..=i]);
    }

    fn uint(&mut self, field: u32, v: u64) {
        self.varint((field as u64) << 3);
        self.varint(v);
    }

    fn bytes(&mut self, field: u32, s: &[u8]) {
        self.varint(((field as u64) << 3) | 2);
        self.varint(s.len() as u64);
        self.put(s);
    }

    /// Start nested message `field`; [`Pb::close`] fills in its length.
    fn open(&mut self, field: u32) -> usize {
        self.varint(((field as u64) << 3) | 2);
        let at = self.b.len();
        self.put(&[0x80, 0x80, 0x80, 0]);
        at
    }

    fn close(&mut self, at: usize) {
        if at + 4 > self.b.len() {
            return;
        }
        let n = (self.b.len() - at - 4).min((1 << 28) - 1);
        self.b[at] = 0x80 | (n & 0x7f) as u8;
        self.b[at + 1] = 0x80 | ((n >> 7) & 0x7f) as u8;
        self.b[at + 2] = 0x80 | ((n >> 14) & 0x7f) as u8;
        self.b[at + 3] = ((n >> 21) & 0x7f) as u8;
    }

    /// One packet of the dump's sequence; `body` writes its fields.
    fn packet(&mut self, body: impl FnOnce(&mut Self)) {
        self.room();
        let p = self.open(TRACE_PACKET);
        self.uint(P_SEQ_ID, SEQ);
        body(self);
        self.close(p);
    }

    /// The first packets: the process track, with `why` and the failing
    /// thread as an instant on it.
    pub fn header(&mut self, pid: u32, why: &str, tid: i32, scratch: &mut String) {
        self.packet(|p| {
            p.uint(P_SEQ_FLAGS, INCREMENTAL_STATE_CLEARED);
            let d = p.open(P_TRACK_DESCRIPTOR);
            p.uint(TD_UUID, process_uuid(pid));
            let pr = p.open(TD_PROCESS);
            p.uint(PD_PID, pid as u64);
            p.bytes(PD_NAME, b"cudart-shim recorder");
            p.close(pr);
            p.close(d);
        });
        self.packet(|p| {
            p.uint(P_TIMESTAMP, 0);
            let e = p.open(P_TRACK_EVENT);
            p.uint(TE_TYPE, INSTANT);
            p.uint(TE_TRACK, process_uuid(pid));
            p.bytes(TE_CATEGORIES, b"recorder");
            p.bytes(TE_NAME, b"cudart-shim recorder dump");
            p.annotation(b"reason", why.as_bytes());
            scratch.clear();
            crate::trace::args::push_int(scratch, tid);
            p.annotation(b"thread", scratch.as_bytes());
            p.close(e);
        });
    }

    /// A ring's thread track.
    pub fn thread(&mut self, pid: u32, tid: i32) {
        self.packet(|p| {
            let d = p.open(P_TRACK_DESCRIPTOR);
            p.uint(TD_UUID, thread_uuid(pid, tid as u32));
            p.uint(TD_PARENT, process_uuid(pid));
            let t = p.open(TD_THREAD);
            p.uint(THD_PID, pid as u64);
            p.uint(THD_TID, tid as u64);
            p.close(t);
            p.close(d);
        });
    }

    fn annotation(&mut self, name: &[u8], value: &[u8]) {
        let a = self.open(TE_ANNOTATIONS);
        self.bytes(DA_NAME, name);
        self.bytes(DA_STRING, &value[..value.len().min(MAX_VALUE)]);
        self.close(a);
    }

    /// One call: its slice's begin (name, arguments, result) and end.
    /// `scratch` is the dump's text buffer, used for one value at a time.
    pub fn call(&mut self, pid: u32, tid: i32, e: &Entry, scratch: &mut String) {
        let track = thread_uuid(pid, tid as u32);
        let t0 = clock::since_start_ns(e.t0).max(0.0) as u64;
        self.packet(|p| {
            p.uint(P_TIMESTAMP, t0);
            let ev = p.open(P_TRACK_EVENT);
            p.uint(TE_TYPE, SLICE_BEGIN);
            p.uint(TE_TRACK, track);
            p.bytes(TE_CATEGORIES, b"cuda_api");
            p.bytes(TE_NAME, site_name(e.site).as_bytes());
            scratch.clear();
            status_name(e.site, e.result, scratch);
            p.annotation(b"result", scratch.as_bytes());
            for k in e.args() {
                scratch.clear();
                k.write_value("", scratch);
                p.annotation(k.name.as_bytes(), scratch.as_bytes());
            }
            p.close(ev);
        });
        self.packet(|p| {
            p.uint(P_TIMESTAMP, t0 + clock::to_ns(e.dt));
            let ev = p.open(P_TRACK_EVENT);
            p.uint(TE_TYPE, SLICE_END);
            p.uint(TE_TRACK, track);
            p.close(ev);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_lengths_and_varints_decode_as_protobuf() {
        let mut v = Vec::with_capacity(256 * 1024);
        let mut pb = Pb { fd: -1, b: &mut v };
        pb.thread(7, 42);
        let packets = trace_format::perfetto::packets(&v).unwrap();
        assert_eq!(packets.len(), 1);
        let Some(trace_format::perfetto::protos::trace_packet::Data::TrackDescriptor(d)) = &packets[0].data else { panic!("{packets:?}") };
        assert_eq!(d.uuid(), thread_uuid(7, 42));
        assert_eq!(d.parent_uuid, Some(process_uuid(7)));
        assert_eq!((d.thread.as_ref().unwrap().pid(), d.thread.as_ref().unwrap().tid()), (7, 42));
    }
}
