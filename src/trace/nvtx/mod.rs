//! NVTX: the ranges, marks and names a program gives its own work, taken
//! through NVIDIA's NVTX3 injection interface ([`inject`]).
//!
//! What is kept: messages (ASCII, wide, registered strings), colors,
//! categories (and their names), domains, integer and floating payloads,
//! and the names given to threads, devices, contexts, streams and events
//! (domains and names are recorded in the event model,
//! [`super::event::names`], where the timeline's writers read them).
//!
//! Where it goes (only while tracing is on, and only inside a capture
//! window, [`super::window`]):
//! - push/pop ranges: one slice per range on an NVTX track of its thread,
//!   one track per domain ([`super::event::KIND_NVTX_RANGE`]);
//! - start/end ranges (which may end on another thread): async slices
//!   ([`super::event::KIND_NVTX_ASYNC`]);
//! - marks: instants ([`super::event::KIND_NVTX_MARK`]);
//! - every range's duration into the `nvtx_sum` table ([`summary`]);
//! - the call log: each line names its thread's innermost open range.
//!
//! Ranges are tracked whether or not a window is open, so a window that
//! opens inside a range shows that range (a range is written when any
//! window overlapped it).
//!
//! Cost: each thread keeps its open push/pop ranges in a thread-local
//! stack (no lock); the summary's durations go to a per-thread table under
//! that thread's own mutex (taken by another thread only at flush).
//! Start/end ranges, domain, string and name registration share one map
//! each under a lock: they are rare next to push/pop, and a start/end
//! range may end on another thread.

mod inject;

use super::event::names::{self, domain_name, Domain, Kind};
use super::event::{self, clock};
use super::{timeline, window};
use parking_lot::Mutex;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::*};
use std::sync::Arc;

/// NVIDIA's `nvtxEventAttributes_t` (version 2/3: 48 bytes on 64-bit).
#[repr(C)]
pub struct Attr {
    version: u16,
    size: u16,
    category: u32,
    color_type: i32,
    color: u32,
    payload_type: i32,
    reserved0: i32,
    payload: u64,
    message_type: i32,
    message: *const c_void,
}

const COLOR_ARGB: i32 = 1;
const MESSAGE_ASCII: i32 = 1;
const MESSAGE_UNICODE: i32 = 2;
const MESSAGE_REGISTERED: i32 = 3;

/// A payload, as given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Payload {
    None,
    U64(u64),
    I64(i64),
    F64(f64),
}

/// One event's attributes, read out of the caller's memory.
#[derive(Clone, Debug)]
pub struct Info {
    pub message: Cow<'static, str>,
    pub color: Option<u32>,
    pub category: u32,
    pub payload: Payload,
}

impl Info {
    pub fn text(s: Cow<'static, str>) -> Info {
        Info { message: s, color: None, category: 0, payload: Payload::None }
    }
}

/// A registered string (`nvtxDomainRegisterString`): its handle points at it.
struct Registered {
    text: &'static str,
}

/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn cstr(p: *const c_char) -> Cow<'static, str> {
    if p.is_null() {
        return Cow::Borrowed("");
    }
    // SAFETY: per the contract.
    Cow::Owned(unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// # Safety
/// `p` is NULL or a NUL-terminated `wchar_t` (32-bit on Linux) string.
unsafe fn wstr(p: *const i32) -> Cow<'static, str> {
    let mut s = String::new();
    if p.is_null() {
        return Cow::Borrowed("");
    }
    let mut i = 0;
    // SAFETY: read up to the terminator, per the contract; bounded so a
    // missing terminator cannot run on forever.
    while i < 1 << 16 {
        let c = unsafe { *p.add(i) };
        if c == 0 {
            break;
        }
        s.push(char::from_u32(c as u32).unwrap_or('\u{fffd}'));
        i += 1;
    }
    Cow::Owned(s)
}

/// # Safety
/// `a` is NULL or an `nvtxEventAttributes_t` whose `size` says how much is readable.
unsafe fn attr(a: *const Attr) -> Info {
    // SAFETY: per the contract.
    let Some(a) = (unsafe { a.as_ref() }) else { return Info::text(Cow::Borrowed("")) };
    if (a.size as usize) < std::mem::size_of::<Attr>() {
        return Info::text(Cow::Borrowed(""));
    }
    let message = match a.message_type {
        // SAFETY: the member the type names.
        MESSAGE_ASCII => unsafe { cstr(a.message.cast()) },
        MESSAGE_UNICODE => unsafe { wstr(a.message.cast()) },
        MESSAGE_REGISTERED if !a.message.is_null() => {
            // SAFETY: a handle we handed out (register_string).
            Cow::Borrowed(unsafe { &*(a.message as *const Registered) }.text)
        }
        _ => Cow::Borrowed(""),
    };
    let payload = match a.payload_type {
        1 => Payload::U64(a.payload),
        2 => Payload::I64(a.payload as i64),
        3 => Payload::F64(f64::from_bits(a.payload)),
        4 => Payload::U64(a.payload as u32 as u64),
        5 => Payload::I64(a.payload as u32 as i32 as i64),
        6 => Payload::F64(f32::from_bits(a.payload as u32) as f64),
        _ => Payload::None,
    };
    Info { message, color: (a.color_type == COLOR_ARGB).then_some(a.color), category: a.category, payload }
}

// ---- registries (rare calls) ------------------------------------------

/// (domain id, category) -> name.
static CATEGORIES: Mutex<Option<HashMap<(u32, u32), String>>> = Mutex::new(None);

fn domain(name: Cow<'static, str>) -> *const Domain {
    names::domain(name)
}

fn register_string(_d: Option<&Domain>, s: Cow<'static, str>) -> *const c_void {
    let text: &'static str = Box::leak(s.into_owned().into_boxed_str());
    Box::leak(Box::new(Registered { text })) as *const Registered as *const c_void
}

fn name_category(d: Option<&Domain>, cat: u32, name: Cow<'static, str>) {
    CATEGORIES.lock().get_or_insert_with(HashMap::new).insert((d.map_or(0, |d| d.id), cat), name.into_owned());
}

fn category_name(domain: u32, cat: u32) -> Option<String> {
    CATEGORIES.lock().as_ref().and_then(|m| m.get(&(domain, cat)).cloned())
}

fn name(kind: Kind, handle: u64, name: Cow<'static, str>) {
    let stream_id = if kind == Kind::Stream { super::gpu::stream_id(handle) } else { None };
    names::set_name(kind, handle, stream_id, name.into_owned());
}

/// Set once some NVTX copy has been given our callbacks.
static STARTED: AtomicBool = AtomicBool::new(false);
static INITS: AtomicU32 = AtomicU32::new(0);

fn started() {
    STARTED.store(true, Relaxed);
    INITS.fetch_add(1, Relaxed);
}

/// How many NVTX copies in the process called `InitializeInjectionNvtx2`.
pub fn injections() -> u32 {
    INITS.load(Relaxed)
}

// ---- ranges -------------------------------------------------------------

/// A range in progress.
struct Open {
    domain: u32,
    info: Info,
    t0: u64,
    /// A capture window was open when it began, and how many had opened.
    seen: bool,
    windows: u32,
    /// This range opened a capture window (`--capture-range=nvtx`).
    captures: bool,
    /// This thread's last launch id when it began (trace/gpu's `launch_mark`).
    launch0: u64,
}

impl Open {
    fn begin(domain: u32, info: Info) -> Open {
        let captures = window::nvtx_begins(domain_name(domain), &info.message);
        Open { domain, info, t0: clock::ticks(), seen: window::is_open(), windows: window::opened(), captures, launch0: super::gpu::launch_mark() }
    }

    /// Whether any capture window overlapped it (a window opened since it
    /// began, or one is open now or was then).
    fn recorded(&self) -> bool {
        self.seen || window::is_open() || window::opened() != self.windows
    }
}

thread_local! {
    /// This thread's open push/pop ranges, every domain, innermost last.
    static STACK: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
    /// Set once this thread touched STACK. No destructor: the call log asks
    /// it first, so a call made in thread teardown never registers STACK's
    /// destructor that late (glibc would lose 32 bytes per thread,
    /// tests/sanitizers.rs; see trace/mod.rs at `FREE`).
    static HAS_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Start/end ranges by id (they may end on another thread).
static STARTED_RANGES: Mutex<Option<HashMap<u64, Open>>> = Mutex::new(None);
static NEXT_RANGE: AtomicU64 = AtomicU64::new(1);

/// Whether NVTX events are taken at all: tracing is on.
#[inline]
fn on() -> bool {
    super::active()
}

fn push(d: Option<&Domain>, info: Info) -> c_int {
    // The thread's open ranges as other threads may read them (a hang report).
    super::progress::nvtx_push(&info.message);
    if !on() {
        return 0;
    }
    let domain = d.map_or(0, |d| d.id);
    let _ = HAS_STACK.try_with(|h| h.set(true));
    STACK
        .try_with(|s| {
            let mut s = s.borrow_mut();
            let level = s.iter().filter(|o| o.domain == domain).count();
            s.push(Open::begin(domain, info));
            level as c_int
        })
        .unwrap_or(-1)
}

fn pop(d: Option<&Domain>) -> c_int {
    super::progress::nvtx_pop();
    if !on() {
        return -1;
    }
    if !HAS_STACK.try_with(Cell::get).unwrap_or(false) {
        return -1;
    }
    let domain = d.map_or(0, |d| d.id);
    let t1 = clock::ticks();
    let Ok(Some((open, level))) = STACK.try_with(|s| {
        let mut s = s.borrow_mut();
        let i = s.iter().rposition(|o| o.domain == domain)?;
        let level = s[..i].iter().filter(|o| o.domain == domain).count();
        Some((s.remove(i), level))
    }) else {
        return -1;
    };
    finish(&open, t1, level as u32, None);
    level as c_int
}

fn start(d: Option<&Domain>, info: Info) -> u64 {
    if !on() {
        return 0;
    }
    let id = NEXT_RANGE.fetch_add(1, Relaxed);
    let open = Open::begin(d.map_or(0, |d| d.id), info);
    STARTED_RANGES.lock().get_or_insert_with(HashMap::new).insert(id, open);
    id
}

fn end(id: u64) {
    let t1 = clock::ticks();
    let Some(open) = STARTED_RANGES.lock().as_mut().and_then(|m| m.remove(&id)) else { return };
    finish(&open, t1, 0, Some(id));
}

fn mark(d: Option<&Domain>, info: Info) {
    if !on() || !window::is_open() {
        return;
    }
    let domain = d.map_or(0, |d| d.id);
    let ev = event::Event::new(domain, 0, event::KIND_NVTX_MARK, 0, clock::ticks(), 0, color_word(info.color));
    emit(ev, domain, &info);
}

fn color_word(c: Option<u32>) -> i64 {
    c.map_or(0, |c| (1i64 << 32) | c as i64)
}

/// A range ended at `t1`: into the summary and the timeline when a
/// window saw it; a range that opened a window closes it.
fn finish(open: &Open, t1: u64, level: u32, async_id: Option<u64>) {
    if open.recorded() {
        let dt = t1.saturating_sub(open.t0);
        let style = if async_id.is_some() { STYLE_START_END } else { STYLE_PUSH_POP };
        // Push/pop ranges are projected onto the GPU work their thread's
        // calls launched inside them (launch ids grow per thread).
        // Each thread takes its ids from a block of its own: a range that
        // began before its thread's first launch starts at its block.
        let span = match (async_id, super::gpu::launch_mark()) {
            (None, m) if m > open.launch0 => Some((if open.launch0 == 0 { m >> 31 << 31 } else { open.launch0 }, m)),
            _ => None,
        };
        add_sample(open.domain, &open.info.message, style, clock::to_ns(dt), span);
        super::step::observe(&open.info.message, clock::to_ns(dt));
        let ev = match async_id {
            None => event::Event::new(open.domain, level, event::KIND_NVTX_RANGE, 0, open.t0, dt, color_word(open.info.color)),
            Some(id) => event::Event::new(open.domain, 0, event::KIND_NVTX_ASYNC, (id & 0x7fff_ffff) as i32, open.t0, dt, color_word(open.info.color)),
        };
        emit(ev, open.domain, &open.info);
    }
    if open.captures {
        window::nvtx_ends();
    }
}

/// Hand one NVTX event to the timeline (with the timeline on).
fn emit(ev: event::Event, domain: u32, info: &Info) {
    // An NVTX range or mark is the program's work: its files are written
    // (its summary's NVTX table, its timeline), as for a CUDA call.
    if !super::WORK.load(Relaxed) {
        super::first_work();
    }
    if super::FLAGS.load(Relaxed) & super::TIMELINE == 0 {
        return;
    }
    let mut args = super::CallArgs::new(false);
    args.arg("message", false, &Text(&info.message));
    if info.category != 0 {
        let c = category_name(domain, info.category).unwrap_or_else(|| info.category.to_string());
        args.arg("category", false, &Text(&c));
    }
    match info.payload {
        Payload::None => {}
        Payload::U64(v) => args.arg("payload", false, &Text(&v.to_string())),
        Payload::I64(v) => args.arg("payload", false, &Text(&v.to_string())),
        Payload::F64(v) => args.arg("payload", false, &Text(&v.to_string())),
    }
    match super::state() {
        Some(s) => timeline::push(&s.lane, ev, &args),
        None => super::with_late_state(|s| timeline::push(&s.lane, ev, &args)),
    }
}

/// A string argument, kept as text.
struct Text<'a>(&'a str);

impl super::TraceArg for Text<'_> {
    fn trace(&self, out: &mut String) {
        out.push_str(self.0);
    }
}

/// The innermost open push/pop range of this thread, for the call log:
/// ` range="NAME"` (nothing when none).
pub fn innermost(out: &mut String) {
    if !HAS_STACK.try_with(Cell::get).unwrap_or(false) {
        return;
    }
    let _ = STACK.try_with(|s| {
        if let Ok(s) = s.try_borrow()
            && let Some(o) = s.last()
        {
            out.push_str("range=\"");
            let d = domain_name(o.domain);
            if !d.is_empty() {
                out.push_str(d);
                out.push(':');
            }
            out.push_str(&o.info.message);
            out.push_str("\" ");
        }
    });
}

// ---- the summary (nvtx_sum) ---------------------------------------------

pub const STYLE_PUSH_POP: u8 = 0;
pub const STYLE_START_END: u8 = 1;

/// Per (domain, message, style): each instance's duration (ns) and, for a
/// range whose thread launched GPU work inside it, its span of launch ids.
type Samples = HashMap<(u32, String, u8), Vec<(u64, Option<(u64, u64)>)>>;

thread_local! {
    static MINE: RefCell<Option<Arc<Mutex<Samples>>>> = const { RefCell::new(None) };
}
/// Every thread's table (threads that ended keep theirs here).
static TABLES: Mutex<Vec<Arc<Mutex<Samples>>>> = Mutex::new(Vec::new());
/// Samples of threads whose thread-locals are gone.
static LATE: Mutex<Option<Samples>> = Mutex::new(None);

fn add_sample(domain: u32, message: &str, style: u8, ns: u64, span: Option<(u64, u64)>) {
    if super::FLAGS.load(Relaxed) & (super::SUMMARY | super::TIMELINE) == 0 && !super::gpu::on() {
        return;
    }
    let key = (domain, message.to_owned(), style);
    let r = MINE.try_with(|m| {
        let mut m = m.borrow_mut();
        let t = m.get_or_insert_with(|| {
            let t = Arc::new(Mutex::new(HashMap::new()));
            TABLES.lock().push(t.clone());
            t
        });
        t.lock().entry(key.clone()).or_default().push((ns, span));
    });
    if r.is_err() {
        LATE.lock().get_or_insert_with(HashMap::new).entry(key).or_default().push((ns, span));
    }
}

/// One row's instances: (range name with its domain, style, instances).
type RowSamples = (String, &'static str, Vec<(u64, Option<(u64, u64)>)>);

fn all_samples() -> Vec<RowSamples> {
    let mut all: Samples = HashMap::new();
    let tables = TABLES.lock().clone();
    for t in tables.iter().map(|t| t.lock().clone()).chain(LATE.lock().clone()) {
        for (k, v) in t {
            all.entry(k).or_default().extend(v);
        }
    }
    all.into_iter()
        .map(|((domain, message, style), v)| {
            let dn = domain_name(domain);
            let name = if dn.is_empty() { message } else { format!("{dn}:{message}") };
            (name, if style == STYLE_START_END { "StartEnd" } else { "PushPop" }, v)
        })
        .collect()
}

/// The `nvtx_sum` table of the ranges ended so far.
pub fn summary() -> trace_format::nvtx_table::NvtxSummary {
    let mut s = trace_format::nvtx_table::NvtxSummary { windows: window::describe(), ..Default::default() };
    for (name, style, v) in all_samples() {
        let mut d: Vec<u64> = v.iter().map(|x| x.0).collect();
        s.rows.push(trace_format::table::Row::from_samples(&name, &mut d));
        s.styles.push(style.to_owned());
    }
    s.sort();
    s
}

/// The `nvtx_gpu_proj_sum` table (GPU activity with launch links on: `gpu`
/// and `timeline`): each push/pop range whose calls launched GPU work,
/// projected onto that work (trace/gpu's `projections`).
pub fn gpu_projection() -> trace_format::nvtx_table::NvtxGpuProj {
    use trace_format::nvtx_table::{NvtxGpuProj, ProjRow};
    let mut t = NvtxGpuProj::default();
    for (name, style, v) in all_samples() {
        let with: Vec<(u64, (u64, u64))> = v.iter().filter_map(|&(ns, span)| Some((ns, span?))).collect();
        if with.is_empty() {
            continue;
        }
        let spans: Vec<(u64, u64)> = with.iter().map(|x| x.1).collect();
        let proj = super::gpu::projections(&spans);
        let (mut d, mut range_total, mut ops) = (Vec::new(), 0u64, 0u64);
        for ((ns, _), p) in with.iter().zip(proj) {
            if let Some((p, n)) = p {
                d.push(p);
                range_total += ns;
                ops += n;
            }
        }
        if !d.is_empty() {
            t.rows.push(ProjRow { proj: trace_format::table::Row::from_samples(&name, &mut d), style: style.to_owned(), range_total_ns: range_total, gpu_ops: ops });
        }
    }
    t.sort();
    t
}

/// Whether the NVTX table has anything to say (a copy injected).
pub fn any() -> bool {
    STARTED.load(Relaxed)
}

// ---- the export ----------------------------------------------------------

/// NVTX3's injection entry point: NVTX calls it once per copy of NVTX in
/// the process (each library that embeds NVTX3), with that copy's export
/// table; we fill that copy's callback tables. Returns 1 (success), or 0
/// when the table is not one we understand (that copy's calls are then
/// no-ops, as with no tool).
///
/// Exported by both runtimes and the driver interposer, so
/// `NVTX_INJECTION64_PATH` may name any of them.
///
/// # Safety
/// `get_export_table` is NVTX's `nvtxGetExportTable` (or NULL).
///
/// cbindgen:ignore
#[unsafe(no_mangle)]
#[allow(non_snake_case)]
pub unsafe extern "C" fn InitializeInjectionNvtx2(get_export_table: Option<unsafe extern "C" fn(u32) -> *const c_void>) -> c_int {
    // SAFETY: per the contract.
    unsafe { initialize(get_export_table) }
}

/// [`InitializeInjectionNvtx2`] for the driver interposer's hooks. Never
/// call the exported symbol from inside the library: in a library loaded
/// `RTLD_LOCAL` under the interposer, that call binds to the interposer's
/// export of the same name (global scope first), which forwards here again.
///
/// # Safety
/// As [`InitializeInjectionNvtx2`].
pub(crate) unsafe fn initialize(get_export_table: Option<unsafe extern "C" fn(u32) -> *const c_void>) -> c_int {
    // SAFETY: NVTX's function, per the contract.
    std::panic::catch_unwind(|| unsafe { inject::initialize_injection(get_export_table) }).unwrap_or(0)
}

/// cargo-fuzz's entry (fuzz/fuzz_targets/nvtx_attributes.rs; built with
/// `--cfg fuzzing` only): an `nvtxEventAttributes_t` as a program may hand
/// it over, built from the input: any version, size (too small, exact,
/// larger), color and payload types (known or not), payload bits, category,
/// and a message of any type: NULL, an ASCII string (any bytes, a NUL at
/// the end as the contract says), a wide string (any 32-bit units,
/// invalid code points included), or a registered string's handle. The
/// decoded event: no panic; nothing from a struct whose size is too small;
/// a message only from the types NVTX defines, and only text that was
/// there; a payload only for the six payload types, with its bits.
#[cfg(fuzzing)]
pub mod fuzzing {
    use super::*;

    pub fn one_input(data: &[u8]) {
        if data.len() < 32 {
            return;
        }
        let (head, rest) = data.split_at(32);
        let w = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
        let size = match head[0] % 4 {
            0 => std::mem::size_of::<Attr>() as u16,
            1 => (w(1) % std::mem::size_of::<Attr>() as u32) as u16,
            _ => u16::from_le_bytes([head[1], head[2]]).max(std::mem::size_of::<Attr>() as u16),
        };
        // The text the message points at, terminated as the contract says.
        let mut ascii: Vec<u8> = rest.iter().copied().filter(|&b| b != 0).collect();
        ascii.push(0);
        let mut wide: Vec<i32> = rest.chunks(4).map(|c| { let mut b = [0u8; 4]; b[..c.len()].copy_from_slice(c); i32::from_le_bytes(b) }).filter(|&c| c != 0).collect();
        wide.push(0);
        // Registered strings live as long as the process: one for the run.
        static REGISTERED: std::sync::OnceLock<(usize, String)> = std::sync::OnceLock::new();
        let (handle, registered_text) = REGISTERED.get_or_init(|| {
            let t = String::from_utf8_lossy(rest).into_owned();
            (register_string(None, Cow::Owned(t.clone())) as usize, t)
        });
        let registered = *handle as *const c_void;
        let message_type = match head[3] % 5 { 4 => w(4) as i32, t => t as i32 };
        let message: *const c_void = match (message_type, head[8] % 8) {
            (_, 0) => std::ptr::null(),
            (MESSAGE_ASCII, _) => ascii.as_ptr().cast(),
            (MESSAGE_UNICODE, _) => wide.as_ptr().cast(),
            (MESSAGE_REGISTERED, _) => registered,
            _ => ascii.as_ptr().cast(),
        };
        // A larger struct than ours (a newer version): readable up to its size.
        let mut buf = vec![0u8; size as usize + std::mem::size_of::<Attr>()];
        let a = Attr {
            version: u16::from_le_bytes([head[9], head[10]]),
            size,
            category: w(11),
            color_type: (head[15] % 4) as i32 - 1,
            color: w(16),
            payload_type: (head[20] % 9) as i32 - 1,
            reserved0: 0,
            payload: u64::from_le_bytes(head[21..29].try_into().expect("8 bytes")),
            message_type,
            message,
        };
        let (payload_type, color_type) = (a.payload_type, a.color_type);
        // SAFETY: buf holds at least an Attr; unaligned write.
        unsafe { std::ptr::write_unaligned(buf.as_mut_ptr().cast::<Attr>(), a) };
        let mut aligned = std::mem::MaybeUninit::<Attr>::uninit();
        // SAFETY: copying the first Attr's bytes into an aligned one.
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), aligned.as_mut_ptr().cast::<u8>(), std::mem::size_of::<Attr>()) };
        // SAFETY: NULL or a readable attribute structure with valid strings.
        let null = unsafe { attr(std::ptr::null()) };
        assert!(null.message.is_empty() && null.payload == Payload::None);
        let info = unsafe { attr(aligned.as_ptr()) };
        if (size as usize) < std::mem::size_of::<Attr>() {
            assert!(info.message.is_empty() && info.payload == Payload::None && info.color.is_none(), "too small: nothing read");
            return;
        }
        match (message_type, message.is_null()) {
            (_, true) | (0 | 4.., _) | (i32::MIN..=-1, _) => assert!(info.message.is_empty(), "{:?}", info.message),
            (MESSAGE_ASCII, false) => assert_eq!(info.message, String::from_utf8_lossy(&ascii[..ascii.len() - 1])),
            (MESSAGE_REGISTERED, false) => assert_eq!(info.message, registered_text.as_str()),
            (_, false) => assert_eq!(info.message.chars().count(), wide.len() - 1),
        }
        match payload_type {
            1..=6 => assert!(info.payload != Payload::None),
            _ => assert_eq!(info.payload, Payload::None),
        }
        assert_eq!(info.color.is_some(), color_type == COLOR_ARGB);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn attributes_layout_is_nvidias() {
        assert_eq!(std::mem::size_of::<super::Attr>(), 48);
        assert_eq!(std::mem::offset_of!(super::Attr, payload), 24);
        assert_eq!(std::mem::offset_of!(super::Attr, message), 40);
    }

}
