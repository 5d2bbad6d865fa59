//! GPU activity (`CUDART_SHIM_TRACE=gpu`): what the GPU did, from NVIDIA's
//! CUPTI Activity API.
//!
//! CUPTI records the device-side start and end of every kernel, copy and
//! memset, whoever launched it (our runtime, cuBLAS, cuDNN, Triton through
//! the driver) and inside graph launches, one record per graph node (the
//! documented choice: per node, as Nsight Systems shows them). Records
//! arrive in buffers we hand to CUPTI (`buffer_requested`) and get back
//! full on CUPTI's own thread (`buffer_completed`); nothing is added
//! around launches, so no launch is slowed, serialized or changed in a
//! captured graph.
//!
//! Launch links (timeline on only): around each traced call that can start
//! GPU work (`cudaLaunch*` and nvcc's `__cudaLaunchKernel`, `cudaMemcpy*`,
//! `cudaMemset*`, `cudaGraphLaunch`
//! and the driver's `cuLaunch*`, `cuMemcpy*`, `cuMemset*`, `cuGraphLaunch`
//! when traced) the calling thread pushes an external correlation id
//! (`cuptiActivityPushExternalCorrelationId`, as PyTorch's profiler does,
//! with kind CUSTOM2 where PyTorch uses CUSTOM0 and CUSTOM1) and pops it
//! after. CUPTI then writes an external-correlation record tying that id to
//! the correlation id of the driver call the GPU work came from (it writes
//! one only ahead of an API record, so API records are switched on for the
//! driver's launch, copy and memset calls alone: `cuptiActivityEnableDriverApi`
//! with [`record::LAUNCH_DRIVER_APIS`]; measured on an H100, without them no
//! external-correlation record came at all); the same
//! id is the timeline event's flow id, so Perfetto draws an arrow from the
//! call to its kernel. Either launching layer can push (the runtime
//! exports, or a driver-API interposer): the innermost id wins. Two CUPTI
//! calls per launch; the API-record kinds (RUNTIME, DRIVER), which would
//! also link library launches, cost a record per API call and are off.
//!
//! Clock: CUPTI takes its CPU timestamps from our callback
//! (`cuptiActivityRegisterTimestampCallback`), which returns the trace's
//! own clock ([`super::clock`]) plus [`BASE_NS`]; CUPTI converts GPU
//! timestamps to it by linear interpolation between its CPU/GPU clock
//! samples. So GPU slices sit on the host calls' time axis with CUPTI's own
//! accuracy (measured: docs/PERFORMANCE.md, "GPU activity"). A CUPTI
//! without that callback: the offset between its clock and ours is taken
//! once at start (drift over a run not corrected). A program that
//! registered its own clock first keeps it, in whatever unit: its rate and
//! offset are measured ([`timebase`], where every CUPTI time is converted).
//!
//! CUPTI absent, or held by another profiler (a CUPTI subscriber exists, or
//! Nsight's injection is set): one warning line, no GPU rows, the program
//! runs on untouched.

pub mod cupti;
pub mod front_abi;
pub mod mux;
pub mod record;
mod timebase;

use super::gpu_table::{copy_operation, GpuSummary, MEMSET};
use super::table::Row;
use super::event::{tracks, GpuEvent, GpuSlice, GpuWhat};
use record as r;
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

/// Added to the trace clock in the timestamps we give CUPTI, so none is
/// near zero (CUPTI writes 0 for "no timestamp").
pub const BASE_NS: u64 = 1_000_000_000;

static CUPTI: OnceLock<cupti::Cupti> = OnceLock::new();
/// Records are collected (CUPTI is on and ours).
static ON: AtomicBool = AtomicBool::new(false);
/// GPU slices go to the timeline (timeline on).
static TRACKS: AtomicBool = AtomicBool::new(false);
/// Traced launch calls push external correlation ids (timeline on, and a
/// CUPTI that can write the records that link them).
static LINK: AtomicBool = AtomicBool::new(false);
/// Functions whose calls can start GPU work, by call-site id.
static LAUNCH_SITES: [AtomicBool; super::MAX_SITES] = [const { AtomicBool::new(false) }; super::MAX_SITES];
static INCOMPLETE: AtomicU64 = AtomicU64::new(0);

/// Whether GPU records are being collected.
pub fn on() -> bool {
    ON.load(Relaxed)
}

/// Load CUPTI and start collecting. `timeline`: the timeline is on (GPU
/// slices are written to it and launches are linked). Says once why not.
pub fn start(timeline: bool) -> bool {
    match try_start(timeline) {
        Ok(path) => {
            log::debug!("GPU activity: CUPTI {path}");
            true
        }
        Err(why) => {
            log::warn!("GPU activity is off: {why}; the program runs on without GPU rows");
            false
        }
    }
}

fn try_start(timeline: bool) -> Result<String, String> {
    let c = cupti::load()?;
    // With the front in the process the program's own CUPTI user is
    // multiplexed (mux.rs), so its subscriber is no reason to stay off; a
    // profiler injected from outside (Nsight) still is.
    if let Some(why) = c.held_by(!mux::front_loaded()) {
        return Err(why);
    }
    let c: &'static cupti::Cupti = CUPTI.get_or_init(|| c);
    // Find the demangler now, on the calling thread: never first inside
    // CUPTI's buffer callback (a dlopen there could wait on a thread that
    // is flushing CUPTI).
    demangle("_Z1fv");
    let ok = |r: cupti::CuptiResult, what: &str| if r == cupti::SUCCESS { Ok(()) } else { Err(format!("{what} failed ({})", c.error(r))) };
    // The program's timestamp callback, when it registered one first, stays
    // CUPTI's clock (its records must carry it): ours converts from it.
    match mux::start(c, take)? {
        Some(app_clock) => clock_from(app_clock),
        // SAFETY: a plain extern "C" function that stays mapped.
        None => match c.register_timestamp {
            Some(f) if unsafe { f(timestamp) } == cupti::SUCCESS => {}
            _ => timebase::offset_from(&|| {
                let mut ts = 0u64;
                // SAFETY: ts is writable.
                unsafe { (c.get_timestamp)(&mut ts) };
                ts
            }),
        },
    }
    for kind in [r::KIND_CONCURRENT_KERNEL, r::KIND_MEMCPY, r::KIND_MEMCPY2, r::KIND_MEMSET] {
        ok(mux::tool_enable(kind), &format!("cuptiActivityEnable({kind})"))?;
    }
    if timeline {
        TRACKS.store(true, Relaxed);
        if c.enable_driver_api.is_some() {
            ok(mux::tool_enable(r::KIND_EXTERNAL_CORRELATION), "cuptiActivityEnable(EXTERNAL_CORRELATION)")?;
            mux::tool_enable_driver_api(r::LAUNCH_DRIVER_APIS);
            LINK.store(true, Relaxed);
        } else {
            log::warn!("GPU activity: this CUPTI has no cuptiActivityEnableDriverApi; no launch arrows on the timeline");
        }
    }
    if !mux::shared() {
        log::debug!("GPU activity: libcudart_shim_cupti.so is not preloaded: a CUPTI user of the program's own (PyTorch's profiler) would not be shared");
    }
    // Runs before CUPTI's own exit handlers (registered earlier, run
    // later), while CUPTI can still flush.
    // SAFETY: a plain extern "C" function that stays mapped.
    unsafe { libc::atexit(at_exit) };
    ON.store(true, Relaxed);
    Ok(c.path.clone())
}

/// CUPTI's clock for the trace's: `now_ns + BASE_NS`.
unsafe extern "C" fn timestamp() -> u64 {
    super::clock::since_start_ns(super::clock::ticks()) as u64 + BASE_NS
}

/// The program registered its own timestamp callback: that is CUPTI's
/// clock now, and ours is read from it (its unit too: [`timebase`]).
pub(crate) fn clock_from(app_clock: mux::Timestamp) {
    timebase::linear_from(app_clock);
}

/// Remember whether function `id` (`name`) can start GPU work.
pub fn classify(id: u32, name: &str) {
    const PREFIXES: [&str; 9] =
        ["cudaLaunch", "__cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaGraphLaunch", "cuLaunch", "cuMemcpy", "cuMemset", "cuGraphLaunch"];
    let launch = PREFIXES.iter().any(|p| name.starts_with(p)) && !name.contains("HostFunc");
    if let Some(s) = LAUNCH_SITES.get(id as usize) {
        s.store(launch, Relaxed);
    }
}

/// Ids for external correlation: each thread takes a block of 2^31 (ids
/// stay below 2^53, exact in JavaScript's numbers, for trace viewers).
static THREAD_BLOCKS: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
}

/// Before traced call `id` runs: with launch links on and a call that can
/// start GPU work, push a new external correlation id and return it (else 0).
#[inline]
pub fn begin_launch(id: u32) -> u64 {
    if !LINK.load(Relaxed) || !LAUNCH_SITES.get(id as usize).is_some_and(|s| s.load(Relaxed)) {
        return 0;
    }
    push_new_id()
}

/// A new id of this thread's block, pushed as CUPTI's external correlation
/// id (CUSTOM2); 0 when CUPTI is not ours or refused it.
fn push_new_id() -> u64 {
    let Some(c) = CUPTI.get() else { return 0 };
    let (before, ext) = NEXT_ID
        .try_with(|n| {
            let before = n.get();
            let mut v = before;
            if v & 0x7fff_ffff == 0 {
                v = (THREAD_BLOCKS.fetch_add(1, Relaxed) & 0x3f_ffff) << 31;
            }
            v += 1;
            n.set(v);
            (before, v)
        })
        .unwrap_or((0, 0));
    // SAFETY: CUPTI's function; no pointer argument.
    if ext == 0 || unsafe { (c.push_external)(r::EXTERNAL_KIND, ext) } != cupti::SUCCESS {
        // Not pushed: the thread's last id stays the one before
        // ([`last_id`] names only ids CUPTI was given).
        let _ = NEXT_ID.try_with(|n| n.set(before));
        return 0;
    }
    ext
}

/// After the call: pop what [`begin_launch`] pushed.
#[inline]
pub fn end_launch(ext: u64) {
    if ext != 0
        && let Some(c) = CUPTI.get()
    {
        let mut last = 0u64;
        // SAFETY: last is writable.
        unsafe { (c.pop_external)(r::EXTERNAL_KIND, &mut last) };
    }
}

// ---- exact completion (the watchdog) ---------------------------------------

/// Launches are tied to their kernel records for the watchdog's exact
/// completion (`crate::watchdog`'s exact module): each finished kernel's
/// id goes to `progress::finished`.
static EXACT: AtomicBool = AtomicBool::new(false);

/// Have CUPTI write the records that tie each launch to its kernel (the
/// external correlation records, which CUPTI writes only ahead of the
/// driver launch calls' API records, as for the timeline's arrows), and
/// hand finished kernels to the progress state. False: GPU activity is off
/// or this CUPTI cannot (no `cuptiActivityEnableDriverApi`).
pub fn link_for_completion() -> bool {
    let Some(c) = CUPTI.get() else { return false };
    if !ON.load(Relaxed) || c.enable_driver_api.is_none() {
        return false;
    }
    if !LINK.load(Relaxed) {
        if mux::tool_enable(r::KIND_EXTERNAL_CORRELATION) != cupti::SUCCESS {
            return false;
        }
        mux::tool_enable_driver_api(r::LAUNCH_DRIVER_APIS);
    }
    EXACT.store(true, Relaxed);
    true
}

/// A launch's id for exact completion, pushed on the calling thread (the
/// progress state's `LaunchIds::push`); 0: none.
pub fn push_id() -> u64 {
    if !ON.load(Relaxed) {
        return 0;
    }
    push_new_id()
}

/// Pop the id [`push_id`] pushed.
pub fn pop_id(ext: u64) {
    end_launch(ext);
}

/// The id this thread pushed last (the innermost of a launch's nested
/// pushes: the one CUPTI's external correlation record carries).
pub fn last_id() -> u64 {
    NEXT_ID.try_with(Cell::get).unwrap_or(0)
}

/// Kernel ids that matched no launch when their records were taken, kept
/// for one more try ([`settle`]); at most this many.
const UNMATCHED_MAX: usize = 4096;

/// Finished kernels' ids to the progress state; those it did not match are
/// kept for one more try (`tried`: already tried once; dropped then).
fn finished(st: &mut Store, mut ids: Vec<u64>, tried: bool) {
    super::progress::finished(&mut ids);
    if !tried {
        let room = UNMATCHED_MAX.saturating_sub(st.unmatched.len());
        st.unmatched.extend(ids.into_iter().take(room));
    }
}

/// After a flush (the watchdog's flushing thread): try once more the
/// kernel ids that matched no launch when their records came (a record can
/// be taken before the launching thread kept its launch's id).
pub fn settle() {
    if !EXACT.load(Relaxed) {
        return;
    }
    let mut guard = super::lock(&STORE);
    let Some(st) = guard.as_mut() else { return };
    let again = std::mem::take(&mut st.unmatched);
    if !again.is_empty() {
        finished(st, again, true);
    }
}

// ---- records ------------------------------------------------------------

/// One GPU activity, decoded.
struct Activity {
    start: u64,
    end: u64,
    device: u32,
    stream: u32,
    correlation: u32,
    graph: u32,
    what: What,
}

enum What {
    Kernel { name: usize, grid: [i32; 3], block: [i32; 3], registers: u16, static_shared: i32, dynamic_shared: i32 },
    Copy { op: &'static str, bytes: u64 },
    Set { bytes: u64, value: u32 },
}

/// What the records add up to, and the launch links in flight. Touched
/// only by CUPTI's buffer callbacks and flushes, never by launching threads.
#[derive(Default)]
struct Store {
    /// Raw kernel name -> index in `kernels`.
    names: HashMap<String, usize>,
    /// Demangled name and every duration.
    kernels: Vec<(String, Vec<u64>)>,
    /// Each kernel's busy class ([`class_of`]), by index in `kernels`.
    classes: Vec<Class>,
    /// Per operation: durations and bytes.
    mem: BTreeMap<&'static str, (Vec<u64>, Vec<u64>)>,
    links: Vec<Link>,
    tracks: HashSet<(u32, u32)>,
    /// (launching call's flow id, start, end) of every linked GPU activity
    /// (on the trace's axis), for NVTX's GPU projection (`projections`);
    /// at most [`LAUNCHED_MAX`].
    launched: Vec<(u64, u64, u64)>,
    launched_sorted: bool,
    /// Exact completion: finished kernels' ids that matched no launch yet.
    unmatched: Vec<u64>,
}

/// 24 bytes each: 768 MiB at most.
const LAUNCHED_MAX: usize = 32 << 20;

/// A ring slot: by CUPTI correlation id, the external id and the first
/// GPU slice of that launch, whichever arrives first; the arrow is drawn
/// once both are known (once per launch: a graph launch's arrow goes to
/// its first node).
#[derive(Clone, Copy, Default)]
struct Link {
    correlation: u32,
    external: u64,
    slice: Option<(u64, u32)>,
    /// The first slice's start and end, until its external id is known.
    span: Option<(u64, u64)>,
    drawn: bool,
    /// A finished kernel record of this correlation was taken (exact
    /// completion: its id goes to the progress state once, whichever of
    /// the two records comes last).
    kernel_done: bool,
}

/// Launches in flight are far fewer (CUDA queues about a thousand).
const LINK_RING: usize = 1 << 16;

static STORE: Mutex<Option<Store>> = Mutex::new(None);

fn decode(rec: &[u8], names: &mut dyn FnMut(&[u8]) -> usize) -> Option<Activity> {
    let kind = r::u32_at(rec, 0);
    let common = |start, end, device, stream, corr, graph, what| Activity {
        start: r::u64_at(rec, start),
        end: r::u64_at(rec, end),
        device: r::u32_at(rec, device),
        stream: r::u32_at(rec, stream),
        correlation: r::u32_at(rec, corr),
        graph: r::u32_at(rec, graph),
        what,
    };
    use r::{kernel as k, memcpy as m, memset as s, peer as p};
    Some(match kind {
        r::KIND_KERNEL | r::KIND_CONCURRENT_KERNEL => {
            let p = r::u64_at(rec, k::NAME) as *const std::ffi::c_char;
            // SAFETY: CUPTI's name of the kernel, a C string it owns for the
            // life of the record (read before the buffer goes back).
            let raw = if p.is_null() { &b"?"[..] } else { unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes() };
            let tri = |o: usize| [r::i32_at(rec, o), r::i32_at(rec, o + 4), r::i32_at(rec, o + 8)];
            let what = What::Kernel {
                name: names(raw),
                grid: tri(k::GRID),
                block: tri(k::BLOCK),
                registers: r::u16_at(rec, k::REGISTERS_PER_THREAD),
                static_shared: r::i32_at(rec, k::STATIC_SHARED),
                dynamic_shared: r::i32_at(rec, k::DYNAMIC_SHARED),
            };
            common(k::START, k::END, k::DEVICE, k::STREAM, k::CORRELATION, k::GRAPH, what)
        }
        r::KIND_MEMCPY => {
            let what = What::Copy { op: copy_operation(r::u8_at(rec, m::COPY_KIND)), bytes: r::u64_at(rec, m::BYTES) };
            common(m::START, m::END, m::DEVICE, m::STREAM, m::CORRELATION, m::GRAPH, what)
        }
        r::KIND_MEMCPY2 => {
            let what = What::Copy { op: copy_operation(10), bytes: r::u64_at(rec, p::BYTES) };
            common(p::START, p::END, p::DEVICE, p::STREAM, p::CORRELATION, p::GRAPH, what)
        }
        r::KIND_MEMSET => {
            let what = What::Set { bytes: r::u64_at(rec, s::BYTES), value: r::u32_at(rec, s::VALUE) };
            common(s::START, s::END, s::DEVICE, s::STREAM, s::CORRELATION, s::GRAPH, what)
        }
        _ => return None,
    })
}

/// Take one buffer's records: add them to the tables and, with the
/// timeline on, write them to it.
fn take(records: &[&[u8]]) {
    timebase::wait_measured();
    timebase::refine();
    let out = take_events(records);
    if !out.is_empty() {
        super::timeline::write_gpu(&out);
    }
}

/// [`take`]'s work: the timeline events of the records.
fn take_events(records: &[&[u8]]) -> Vec<GpuEvent> {
    let mut guard = super::lock(&STORE);
    // The ring only with launch links on (external correlation records
    // come only then, and slices look it up only then) or exact
    // completion (which can be switched on after the first records).
    let exact = EXACT.load(Relaxed);
    let ring = if LINK.load(Relaxed) || exact { LINK_RING } else { 0 };
    let st = guard.get_or_insert_with(Store::default);
    if st.links.len() < ring {
        st.links = vec![Link::default(); ring];
    }
    let mut out: Vec<GpuEvent> = Vec::new();
    let timeline = TRACKS.load(Relaxed);
    // Exact completion: ids of launches whose kernel finished.
    let mut done: Vec<u64> = Vec::new();
    // External ids first: they may sit behind the slices they link in a buffer.
    for rec in records.iter().filter(|x| r::u32_at(x, 0) == r::KIND_EXTERNAL_CORRELATION) {
        if r::u32_at(rec, r::external::EXTERNAL_KIND) != r::EXTERNAL_KIND {
            continue;
        }
        let corr = r::u32_at(rec, r::external::CORRELATION);
        let ext = r::u64_at(rec, r::external::EXTERNAL_ID);
        let Some(slot) = st.links.get_mut(corr as usize % LINK_RING) else { continue };
        if slot.correlation != corr {
            *slot = Link { correlation: corr, ..Default::default() };
        }
        if slot.external == 0
            && let Some((t0, t1)) = slot.span
            && st.launched.len() < LAUNCHED_MAX
        {
            st.launched.push((ext, t0, t1));
            st.launched_sorted = false;
        }
        // Its kernel's record came first (an earlier buffer).
        if exact && slot.external == 0 && slot.kernel_done {
            done.push(ext);
        }
        slot.external = ext;
        if let (Some((ts, tid)), false) = (slot.slice, slot.drawn) {
            slot.drawn = true;
            out.push(GpuEvent::FlowEnd { tid, ts, id: ext });
        }
    }
    let Store { names, kernels, classes, .. } = st;
    let mut intern = |raw: &[u8]| -> usize {
        let raw = String::from_utf8_lossy(raw);
        if let Some(&i) = names.get(raw.as_ref()) {
            return i;
        }
        let name = demangle(&raw);
        classes.push(class_of(&name));
        kernels.push((name, Vec::new()));
        names.insert(raw.into_owned(), kernels.len() - 1);
        kernels.len() - 1
    };
    let acts: Vec<Activity> = records.iter().filter_map(|x| decode(x, &mut intern)).collect();
    for a in acts {
        if a.start == 0 || a.end < a.start {
            INCOMPLETE.fetch_add(1, Relaxed);
            continue;
        }
        // A finished kernel: its launch is complete (whatever the capture
        // window: completion is not output). Once per correlation (a graph
        // launch has a record per node).
        if exact
            && matches!(a.what, What::Kernel { .. })
            && let Some(slot) = st.links.get_mut(a.correlation as usize % LINK_RING)
        {
            if slot.correlation != a.correlation {
                *slot = Link { correlation: a.correlation, ..Default::default() };
            }
            if !slot.kernel_done {
                slot.kernel_done = true;
                if slot.external != 0 {
                    done.push(slot.external);
                }
            }
        }
        let (ts, dur) = timebase::span(a.start, a.end);
        // Outside every capture window: not recorded (super::window).
        if !super::window::covers(ts) {
            continue;
        }
        // Busy time by class: the same records, in the same pass, as the
        // tables (so at exit their totals agree).
        let class = match &a.what {
            What::Kernel { name, .. } => st.classes[*name],
            What::Copy { .. } => Class::Memcpy,
            What::Set { .. } => Class::Memset,
        };
        BUSY[busy_slot(a.device, class)].fetch_add(dur, Relaxed);
        match &a.what {
            What::Kernel { name, .. } => st.kernels[*name].1.push(dur),
            What::Copy { op, bytes } => {
                let e = st.mem.entry(op).or_default();
                e.0.push(dur);
                e.1.push(*bytes);
            }
            What::Set { bytes, .. } => {
                let e = st.mem.entry(MEMSET).or_default();
                e.0.push(dur);
                e.1.push(*bytes);
            }
        }
        if !timeline {
            continue;
        }
        let tid = tracks::gpu_track(a.device, a.stream);
        if st.tracks.insert((a.device, a.stream)) {
            out.push(GpuEvent::Track { device: a.device, stream: a.stream, tid });
        }
        let mut ext = 0;
        if let Some(slot) = st.links.get_mut(a.correlation as usize % LINK_RING) {
            if slot.correlation != a.correlation {
                *slot = Link { correlation: a.correlation, ..Default::default() };
            }
            ext = slot.external;
            if slot.slice.is_none() {
                slot.slice = Some((ts, tid));
                slot.span = Some((ts, ts + dur));
            }
        }
        if ext != 0 && st.launched.len() < LAUNCHED_MAX {
            st.launched.push((ext, ts, ts + dur));
            st.launched_sorted = false;
        }
        out.push(GpuEvent::Slice(slice(tid, ts, dur, &a, ext, &st.kernels)));
        if let Some(slot) = st.links.get_mut(a.correlation as usize % LINK_RING).filter(|s| ext != 0 && !s.drawn) {
            slot.drawn = true;
            out.push(GpuEvent::FlowEnd { tid, ts, id: ext });
        }
    }
    if !done.is_empty() {
        finished(st, done, false);
    }
    out
}

/// The id CUPTI's records give stream `handle` (None: CUPTI off, or
/// without `cuptiGetStreamIdEx`). For names given through NVTX (trace/nvtx).
pub fn stream_id(handle: u64) -> Option<u32> {
    let f = CUPTI.get()?.stream_id?;
    let mut id = 0u32;
    // SAFETY: CUPTI's function; the context is ignored for a stream handle.
    (unsafe { f(std::ptr::null_mut(), handle as *mut std::ffi::c_void, 0, &mut id) } == cupti::SUCCESS).then_some(id)
}

/// The timeline's slice of one activity.
fn slice(tid: u32, ts: u64, dur: u64, a: &Activity, launch: u64, kernels: &[(String, Vec<u64>)]) -> GpuSlice {
    let (name, what) = match a.what {
        What::Kernel { name, grid, block, registers, static_shared, dynamic_shared } => {
            (kernels[name].0.clone(), GpuWhat::Kernel { grid, block, registers, static_shared, dynamic_shared })
        }
        What::Copy { op, bytes } => (op.trim_matches(['[', ']']).to_owned(), GpuWhat::Copy { op, bytes }),
        What::Set { bytes, value } => ("CUDA memset".to_owned(), GpuWhat::Set { bytes, value }),
    };
    GpuSlice { tid, ts, dur, name, device: a.device, stream: a.stream, correlation: a.correlation, graph: a.graph, launch, what }
}

/// A kernel's name as PyTorch's profiler shows it: demangled by the C++
/// runtime's `__cxa_demangle` (PyTorch's demangler; measured on an H100,
/// the `cpp_demangle` crate writes `(unsigned int)32` where PyTorch's
/// profiler writes `32u`), else by that crate; as is when not mangled.
fn demangle(raw: &str) -> String {
    if !raw.starts_with("_Z") {
        return raw.to_owned();
    }
    type Demangle = unsafe extern "C" fn(*const std::ffi::c_char, *mut std::ffi::c_char, *mut usize, *mut i32) -> *mut std::ffi::c_char;
    static CXA: OnceLock<Option<Demangle>> = OnceLock::new();
    let cxa = CXA.get_or_init(|| {
        // libstdc++ as the process has it (PyTorch loads it privately, so
        // it is not in the global scope), else loaded privately here.
        // SAFETY: loading the C++ runtime and looking a symbol up; its type
        // is the Itanium C++ ABI's. The handle is kept.
        unsafe {
            let mut h = libc::dlopen(c"libstdc++.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
            if h.is_null() {
                h = libc::dlopen(c"libstdc++.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            }
            let p = if h.is_null() { std::ptr::null_mut() } else { libc::dlsym(h, c"__cxa_demangle".as_ptr()) };
            (!p.is_null()).then(|| std::mem::transmute::<*mut libc::c_void, Demangle>(p))
        }
    });
    if let (Some(f), Ok(c)) = (cxa, std::ffi::CString::new(raw)) {
        let mut status = 0;
        // SAFETY: a C string in; NULL buffer: the result is malloc'd, freed here.
        let out = unsafe { f(c.as_ptr(), std::ptr::null_mut(), std::ptr::null_mut(), &mut status) };
        if !out.is_null() {
            let s = unsafe { std::ffi::CStr::from_ptr(out) }.to_string_lossy().into_owned();
            unsafe { libc::free(out.cast()) };
            if status == 0 {
                return s;
            }
        }
    }
    cpp_demangle::Symbol::new(raw).map(|s| s.to_string()).unwrap_or_else(|_| raw.to_owned())
}

// ---- busy time by class (metrics) ------------------------------------------

/// What GPU work is, for the busy-time metrics: a bounded set (kernel
/// names are never label values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Class {
    Gemm = 0,
    Nccl = 1,
    Memcpy = 2,
    Memset = 3,
    Other = 4,
}

impl Class {
    pub const ALL: [Class; 5] = [Class::Gemm, Class::Nccl, Class::Memcpy, Class::Memset, Class::Other];

    pub fn name(self) -> &'static str {
        ["gemm", "nccl", "memcpy", "memset", "other"][self as usize]
    }
}

/// A kernel's class by its (demangled) name: NCCL's kernels
/// (`ncclDevKernel_*`, `ncclKernel_*`), matrix products (cuBLAS's and
/// CUTLASS's `*gemm*`, cuBLAS's `nvjet_*` on Hopper, Triton's `*matmul*`),
/// the rest `other`.
pub fn class_of(kernel: &str) -> Class {
    let k = kernel.to_ascii_lowercase();
    if k.contains("nccl") {
        Class::Nccl
    } else if k.contains("gemm") || k.starts_with("nvjet") || k.contains("matmul") {
        Class::Gemm
    } else {
        Class::Other
    }
}

/// Devices kept apart in the busy counters; more share the last.
pub const BUSY_DEVICES: usize = 64;
/// GPU nanoseconds per (device, class), added where the records are taken
/// (CUPTI's buffer callback), never on a launching thread.
static BUSY: [AtomicU64; BUSY_DEVICES * 5] = [const { AtomicU64::new(0) }; BUSY_DEVICES * 5];

fn busy_slot(device: u32, class: Class) -> usize {
    (device as usize).min(BUSY_DEVICES - 1) * 5 + class as usize
}

/// GPU nanoseconds of `class` work on `device` recorded so far.
pub fn busy_ns(device: u32, class: Class) -> u64 {
    BUSY[busy_slot(device, class)].load(Relaxed)
}

// ---- flush and tables -----------------------------------------------------

/// Have CUPTI hand over every record it holds, finished buffers and the
/// current ones (they come back through `buffer_completed` before this
/// returns).
pub fn flush() {
    if ON.load(Relaxed) {
        mux::flush(false);
    }
}

extern "C" fn at_exit() {
    let _ = std::panic::catch_unwind(|| {
        timebase::at_exit();
        if ON.load(Relaxed) {
            mux::flush(true);
        }
    });
}

/// A forked child reports nothing (its parent does).
pub fn disable_in_child() {
    ON.store(false, Relaxed);
    EXACT.store(false, Relaxed);
    TRACKS.store(false, Relaxed);
    LINK.store(false, Relaxed);
    mux::tool_off();
}

/// The flow id of the last call of this thread that started GPU work (0:
/// none yet). Ids grow on each thread, so the GPU work launched by the
/// calls between two marks is the ids in `(first, second]`.
pub fn launch_mark() -> u64 {
    if !LINK.load(Relaxed) {
        return 0;
    }
    NEXT_ID.try_with(Cell::get).unwrap_or(0)
}

/// For each `(after, upto]` span of launch ids ([`launch_mark`]): the GPU
/// work those launches started, projected as Nsight does for
/// `nvtx_gpu_proj_sum`: from the start of its first operation to the end of
/// its last, and how many operations (None: none).
pub fn projections(spans: &[(u64, u64)]) -> Vec<Option<(u64, u64)>> {
    let mut guard = super::lock(&STORE);
    let Some(st) = guard.as_mut() else { return vec![None; spans.len()] };
    if !st.launched_sorted {
        st.launched.sort_unstable();
        st.launched_sorted = true;
    }
    let l = &st.launched;
    spans
        .iter()
        .map(|&(after, upto)| {
            let i = l.partition_point(|x| x.0 <= after);
            let j = l.partition_point(|x| x.0 <= upto);
            let ops = l.get(i..j).filter(|o| !o.is_empty())?;
            let first = ops.iter().map(|o| o.1).min()?;
            let last = ops.iter().map(|o| o.2).max()?;
            Some((last - first, ops.len() as u64))
        })
        .collect()
}

/// The GPU tables over every record taken so far.
pub fn summary() -> GpuSummary {
    let guard = super::lock(&STORE);
    let mut g = GpuSummary::default();
    if let Some(st) = guard.as_ref() {
        // Kernels with one name from several mangled spellings are one row.
        let mut by_name: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for (name, d) in &st.kernels {
            by_name.entry(name).or_default().extend_from_slice(d);
        }
        for (name, mut d) in by_name {
            if !d.is_empty() {
                g.kernels.push(Row::from_samples(name, &mut d));
            }
        }
        for (op, (d, b)) in &st.mem {
            g.mem_time.push(Row::from_samples(op, &mut d.clone()));
            g.mem_size.push(Row::from_samples(op, &mut b.clone()));
        }
    }
    g.sort();
    g
}

/// Lines to say under the tables: records CUPTI dropped or left incomplete.
pub fn notes() -> String {
    let mut s = String::new();
    let d = mux::dropped();
    if d > 0 {
        let _ = writeln!(s, "\n CUPTI dropped {d} GPU activity records (its buffers were full); the GPU tables miss them.");
    }
    let i = INCOMPLETE.load(Relaxed);
    if i > 0 {
        let _ = writeln!(s, "\n {i} GPU activities had not finished when the records were taken (work still running at exit?); left out.");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(corr: u32, start: u64, name: &'static std::ffi::CStr) -> Vec<u8> {
        use r::kernel as k;
        let mut rec = vec![0u8; k::SIZE];
        r::put(&mut rec, 0, &r::KIND_CONCURRENT_KERNEL.to_ne_bytes());
        r::put(&mut rec, k::START, &(start + BASE_NS).to_ne_bytes());
        r::put(&mut rec, k::END, &(start + BASE_NS + 500).to_ne_bytes());
        r::put(&mut rec, k::STREAM, &7u32.to_ne_bytes());
        r::put(&mut rec, k::CORRELATION, &corr.to_ne_bytes());
        r::put(&mut rec, k::NAME, &(name.as_ptr() as u64).to_ne_bytes());
        rec
    }

    fn external(corr: u32, id: u64) -> Vec<u8> {
        let mut rec = vec![0u8; r::external::SIZE];
        r::put(&mut rec, 0, &r::KIND_EXTERNAL_CORRELATION.to_ne_bytes());
        r::put(&mut rec, r::external::EXTERNAL_KIND, &r::EXTERNAL_KIND.to_ne_bytes());
        r::put(&mut rec, r::external::EXTERNAL_ID, &id.to_ne_bytes());
        r::put(&mut rec, r::external::CORRELATION, &corr.to_ne_bytes());
        rec
    }

    /// The events as the JSON timeline writes them, one object each.
    fn json(out: &[GpuEvent]) -> Vec<String> {
        out.iter()
            .flat_map(|e| {
                let mut s = String::new();
                super::super::timeline::json::gpu_object(1, e, &mut s);
                s.split(",\n").map(str::to_owned).collect::<Vec<_>>()
            })
            .collect()
    }

    fn flows(out: &[GpuEvent]) -> Vec<(u64, f64)> {
        json(out)
            .iter()
            .map(|o| serde_json::from_str::<serde_json::Value>(o).unwrap())
            .filter(|v| v["ph"] == "f")
            .map(|v| (v["id"].as_u64().unwrap(), v["ts"].as_f64().unwrap()))
            .collect()
    }

    /// CUPTI may hand a launch's external id over after its kernel (a
    /// later buffer), and a graph launch has many kernels of one
    /// correlation id: one arrow each time, to the first slice.
    #[test]
    fn one_arrow_per_launch_whichever_record_comes_first() {
        TRACKS.store(true, Relaxed);
        LINK.store(true, Relaxed);
        // External id first, then the kernel: the arrow comes with the slice.
        let out = take_events(&[&external(900, 77), &kernel(900, 5_000, c"_Z1kv")]);
        assert_eq!(flows(&out), [(77, 5.0)]);
        let k: serde_json::Value = serde_json::from_str(json(&out).iter().find(|o| o.contains("gpu_kernel")).unwrap()).unwrap();
        assert_eq!((k["name"].as_str(), k["args"]["launch"].as_u64()), (Some("k()"), Some(77)));
        // The kernel first (no arrow yet), its external id in the next buffer.
        let out = take_events(&[&kernel(901, 8_000, c"_Z1kv")]);
        assert!(flows(&out).is_empty());
        assert_eq!(flows(&take_events(&[&external(901, 78)])), [(78, 8.0)]);
        // A graph launch: three nodes of one launch, one arrow, to the first.
        let out = take_events(&[&external(902, 79), &kernel(902, 9_000, c"_Z1kv"), &kernel(902, 9_600, c"_Z1kv")]);
        let more = take_events(&[&kernel(902, 10_200, c"_Z1kv")]);
        assert_eq!(flows(&out), [(79, 9.0)]);
        assert!(flows(&more).is_empty());
        // Every duration is in the table, under the demangled name.
        let row = summary().kernels.into_iter().find(|r| r.name == "k()").unwrap();
        assert_eq!((row.calls, row.total_ns), (5, 2500));
        // And in the busy time of device 0's `other` class.
        assert_eq!(busy_ns(0, Class::Other), 2500);
    }

    #[test]
    fn kernel_classes() {
        for (name, class) in [
            ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", Class::Nccl),
            ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", Class::Gemm),
            ("ampere_sgemm_128x64_tn", Class::Gemm),
            ("nvjet_tst_128x256_64x4_1x2_h_bz_coopB_TNT", Class::Gemm),
            ("matmul_kernel", Class::Gemm),
            ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", Class::Other),
        ] {
            assert_eq!(class_of(name), class, "{name}");
        }
    }
}
