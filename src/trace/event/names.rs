//! What an event's numbers name, for the writers: functions (an event's
//! `site`) and their results, NVTX domains and the names a program gives
//! threads, devices, streams through NVTX, the libraries that allocate,
//! the ledger's memory kinds. Producers register names here as they meet
//! them (rare calls: a function's first traced call, an NVTX registration,
//! a library's first allocation); writers only read.

use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering::*};
use std::sync::OnceLock;

// ---- functions --------------------------------------------------------

/// Functions that can be traced (exports plus known driver functions).
pub const MAX_SITES: usize = 2048;

/// Function names by id: each points at a leaked `&'static str` (set once,
/// when trace/mod.rs registers the function, before it publishes the id).
static SITES: [AtomicPtr<&'static str>; MAX_SITES] = [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_SITES];
/// Whether function `id` is a driver API function (its result a `CUresult`).
static DRIVER: [AtomicBool; MAX_SITES] = [const { AtomicBool::new(false) }; MAX_SITES];

/// How results are named: `cudaError_t` (runtime functions) and `CUresult`
/// (driver functions), given by the tracer (trace/args.rs, trace/driver.rs)
/// with the first function it registers.
pub struct ResultNames {
    pub runtime: fn(i32, &mut String),
    pub driver: fn(i32, &mut String),
}
static RESULTS: OnceLock<ResultNames> = OnceLock::new();

/// Name function `id` (called once per id, before the id is used).
pub fn set_site(id: u32, name: &'static str, driver: bool, results: impl FnOnce() -> ResultNames) {
    let Some(slot) = SITES.get(id as usize) else { return };
    RESULTS.get_or_init(results);
    DRIVER[id as usize].store(driver, Relaxed);
    slot.store(Box::leak(Box::new(name)), Release);
}

/// Name of function `id` ("?" when unknown).
pub fn site_name(id: u32) -> &'static str {
    let p = SITES.get(id as usize).map_or(std::ptr::null_mut(), |s| s.load(Acquire));
    // SAFETY: set once from a leaked box, never freed.
    if p.is_null() { "?" } else { unsafe { *p } }
}

/// Whether function `id` is a driver API function.
pub fn is_driver(id: u32) -> bool {
    let named = SITES.get(id as usize).is_some_and(|s| !s.load(Acquire).is_null());
    named && DRIVER[id as usize].load(Relaxed)
}

/// The result `code` of a call of function `id`, by name: a `CUresult`
/// for a driver function, else a `cudaError_t` (the number when no namer
/// is known yet).
pub fn status_name(id: u32, code: i32, out: &mut String) {
    match RESULTS.get() {
        Some(r) if is_driver(id) => (r.driver)(code, out),
        Some(r) => (r.runtime)(code, out),
        None => {
            let _ = write!(out, "{code}");
        }
    }
}

// ---- NVTX -------------------------------------------------------------

/// An NVTX domain (`nvtxDomainCreate`); its handle points at it. Id 0 is
/// the default domain.
pub struct Domain {
    pub id: u32,
    pub name: &'static str,
}

static DOMAINS: Mutex<Vec<&'static Domain>> = Mutex::new(Vec::new());

/// The domain named `name`, made at its first use (never freed: the
/// program holds its handle).
pub fn domain(name: std::borrow::Cow<'static, str>) -> &'static Domain {
    let mut d = DOMAINS.lock();
    if let Some(found) = d.iter().find(|x| x.name == name) {
        return found;
    }
    let dom: &'static Domain = Box::leak(Box::new(Domain { id: d.len() as u32 + 1, name: Box::leak(name.into_owned().into_boxed_str()) }));
    d.push(dom);
    dom
}

/// The name of domain `id` (0: the default domain, "").
pub fn domain_name(id: u32) -> &'static str {
    if id == 0 {
        return "";
    }
    DOMAINS.lock().get(id as usize - 1).map_or("?", |d| d.name)
}

/// What a name was given to through NVTX.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    Thread,
    Device,
    Context,
    Stream,
    Event,
}
static NAMES: Mutex<Option<HashMap<(Kind, u64), String>>> = Mutex::new(None);
/// CUPTI stream id -> the name given to the stream (GPU tracks are named
/// by CUPTI's ids, not by handle).
static STREAM_IDS: Mutex<Option<HashMap<u32, String>>> = Mutex::new(None);

/// Record the name the program gave a thread (by OS thread id), device,
/// context, stream or event; `stream_id` is the stream's CUPTI id when
/// known.
pub fn set_name(kind: Kind, handle: u64, stream_id: Option<u32>, name: String) {
    if let Some(id) = stream_id {
        STREAM_IDS.lock().get_or_insert_with(HashMap::new).insert(id, name.clone());
    }
    NAMES.lock().get_or_insert_with(HashMap::new).insert((kind, handle), name);
}

/// The name the program gave a thread (by OS thread id), device, context,
/// stream or event through NVTX.
pub fn name_of(kind: Kind, handle: u64) -> Option<String> {
    NAMES.lock().as_ref().and_then(|m| m.get(&(kind, handle)).cloned())
}

/// The name given to the stream of CUPTI id `id`.
pub fn stream_name(id: u32) -> Option<String> {
    STREAM_IDS.lock().as_ref().and_then(|m| m.get(&id).cloned())
}

// ---- memory -----------------------------------------------------------

/// The ledger's memory kinds by index (`ledger::Kind as usize`).
pub const MEMORY_KINDS: [&str; 7] = ["device", "pool", "vmm", "managed", "graph", "imported", "host"];

/// A library's index in the library names; 0 is "unknown".
pub type LibId = u16;

/// Names of the libraries seen, by id (written at a cache miss only).
static LIBS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// The name of library `id`.
pub fn library(id: LibId) -> String {
    LIBS.read().get(id as usize).cloned().unwrap_or_else(|| "?".to_owned())
}

/// The name of library `id` without waiting: None while another thread
/// adds a library (a hang report never waits on a program thread).
pub fn try_library(id: LibId) -> Option<String> {
    LIBS.try_read().map(|l| l.get(id as usize).cloned().unwrap_or_else(|| "?".to_owned()))
}

/// The id of library `name`, given at its first sight (0 once ids run out).
pub fn intern_library(name: &str) -> LibId {
    if let Some(i) = LIBS.read().iter().position(|n| n == name) {
        return i as LibId;
    }
    let mut libs = LIBS.write();
    if libs.is_empty() {
        libs.push("?".to_owned());
    }
    if let Some(i) = libs.iter().position(|n| n == name) {
        return i as LibId;
    }
    if libs.len() >= LibId::MAX as usize {
        return 0;
    }
    libs.push(name.to_owned());
    (libs.len() - 1) as LibId
}
