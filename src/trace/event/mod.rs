//! The event model: what producers push and writers read, and nothing
//! else. Producers (runtime calls: src/entry.rs and trace/mod.rs; driver
//! calls: trace/driver.rs; GPU activity: trace/gpu; NVTX: trace/nvtx; the
//! ledger: src/ledger) make [`Event`]s and [`GpuEvent`]s and push them into
//! the timeline's lanes (trace/timeline); writers (trace/timeline/json.rs,
//! perfetto.rs; the recorder's dump, which reads its own rings) read them
//! and look up what an event refers to here: [`names`] (functions, results, NVTX domains and the
//! names given through NVTX, libraries, memory kinds), [`tracks`] (which
//! track an event is drawn on, and its name), and [`clock`] (the time base
//! of every timestamp). This module imports nothing of trace/ or the
//! ledger: producers and writers both import it, never each other, so a
//! new format is one new writer file and a new producer one new pusher.
//!
//! A traced call is an [`Event`] of kind [`KIND_CALL`]; an allocation or
//! free the ledger booked is [`KIND_MEMORY`]; NVTX ranges and marks are
//! `KIND_NVTX_*`; GPU activity is a [`GpuEvent`]. A new kind is a new
//! `KIND_*` value here and a case in each writer.

pub mod clock;
pub mod names;
pub mod tracks;

/// A traced call: `site` the function, `depth` its nesting (0: the
/// program's own call), `result` its status, `t0`/`dt` its start and
/// duration in clock ticks, `value` the flow id of the GPU work it launched
/// (0: none), and its kept arguments.
pub const KIND_CALL: u8 = 0;
/// An allocation or a free booked by the ledger (src/ledger, the one
/// source of memory accounting), made by the call just before it on the
/// same thread: `site` the calling library (a [`names::LibId`]), `depth`
/// the ledger's kind, plus [`MEM_ALLOC`] for an allocation, `result` the
/// device (-1: host), `t0` when the call returned, `dt` the
/// bytes then live on that device of that kind (not a duration), `value`
/// the allocation's size. Rendered as an instant on the thread's track
/// and a sample of the counter track of its device and kind ([`Mem`]).
pub const KIND_MEMORY: u8 = 1;
/// In a [`KIND_MEMORY`] event's `depth`: an allocation (else a free).
pub const MEM_ALLOC: u16 = 0x100;
/// An NVTX push/pop range: `site` is its domain, `depth` its level in
/// that domain on its thread, `value` its color ([`nvtx_color`]); the
/// message and the rest are its arguments (trace/nvtx).
pub const KIND_NVTX_RANGE: u8 = 2;
/// An NVTX start/end range (may cross threads): as a range, with `result`
/// its id.
pub const KIND_NVTX_ASYNC: u8 = 3;
/// An NVTX mark (an instant): as a range, without duration.
pub const KIND_NVTX_MARK: u8 = 4;

/// An NVTX event's color from its `value`: bit 32 set = ARGB in the low half.
pub fn nvtx_color(value: i64) -> Option<u32> {
    (value >> 32 & 1 == 1).then_some(value as u32)
}

/// A [`KIND_MEMORY`] event as the writers show it.
pub struct Mem {
    /// The instant's name: `alloc` or `free`.
    pub what: &'static str,
    /// `device`, `pool`, `vmm`, `managed`, `graph`, `imported`, `host`.
    pub kind: &'static str,
    /// -1: host memory.
    pub device: i32,
    pub bytes: u64,
    /// Bytes live on the device of this kind after the call.
    pub live: u64,
    /// The calling library (`?`: not known).
    pub library: String,
}

impl Mem {
    pub fn of(e: &Event) -> Mem {
        let kind = names::MEMORY_KINDS.get((e.depth & 0xff) as usize).copied().unwrap_or("?");
        Mem {
            what: if e.depth & MEM_ALLOC != 0 { "alloc" } else { "free" },
            kind,
            device: e.result,
            bytes: e.value as u64,
            live: e.dt,
            library: names::library(e.site as names::LibId),
        }
    }

    /// The name of the counter track of this event's device and kind
    /// (bytes live): `GPU 0 device memory (bytes)`, `host memory (bytes)`.
    pub fn track_name(&self) -> String {
        if self.device < 0 { format!("{} memory (bytes)", self.kind) } else { format!("GPU {} {} memory (bytes)", self.device, self.kind) }
    }
}

/// One host event (see the `KIND_*` constants for what each field holds).
#[derive(Clone, Copy)]
pub struct Event {
    pub site: u32,
    pub depth: u16,
    pub kind: u8,
    pub result: i32,
    pub t0: u64,
    pub dt: u64,
    pub value: i64,
    /// Set by the timeline's `push` (no producer sets them): this event's
    /// arguments in its chunk's `args`, and the length of the chunk's text
    /// once this event's is in.
    pub(in crate::trace) args: (u32, u32),
    pub(in crate::trace) text_end: u32,
}

impl Event {
    pub fn new(site: u32, depth: u32, kind: u8, result: i32, t0: u64, dt: u64, value: i64) -> Event {
        Event { site, depth: depth.min(u16::MAX as u32) as u16, kind, result, t0, dt, value, args: (0, 0), text_end: 0 }
    }
}

/// What the timeline is made of besides host events: GPU activity from
/// CUPTI (trace/gpu), in the order it was taken.
pub enum GpuEvent {
    /// A device stream seen for the first time; `tid` is its track (see
    /// [`tracks::gpu_track`]), above every host thread id.
    Track { device: u32, stream: u32, tid: u32 },
    Slice(GpuSlice),
    /// The end of the arrow from a launching call (flow id `id`, the
    /// call's [`Event::value`]) to the first slice of its GPU work.
    FlowEnd { tid: u32, ts: u64, id: u64 },
}

/// One kernel, copy or memset on a device stream.
pub struct GpuSlice {
    pub tid: u32,
    /// Start and duration, nanoseconds on the trace's axis.
    pub ts: u64,
    pub dur: u64,
    /// The demangled kernel name, the copy's direction, or "CUDA memset".
    pub name: String,
    pub device: u32,
    pub stream: u32,
    pub correlation: u32,
    pub graph: u32,
    /// The flow id of the launching call (0: not linked).
    pub launch: u64,
    pub what: GpuWhat,
}

pub enum GpuWhat {
    Kernel { grid: [i32; 3], block: [i32; 3], registers: u16, static_shared: i32, dynamic_shared: i32 },
    /// `op`: the copy kind as the GPU tables name it ("[CUDA memcpy HtoD]").
    Copy { op: &'static str, bytes: u64 },
    Set { bytes: u64, value: u32 },
}

