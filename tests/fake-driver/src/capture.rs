//! Fake driver: stream capture.
//!
//! A stream in capture runs nothing: each operation becomes a node of the
//! capture's graph, depending on the stream's current dependency set, and
//! becomes that set. Event record/wait forks and joins other streams into
//! the capture. Violations give NVIDIA's driver codes and invalidate the
//! capture where CUDA does.
//!
//! ## Rust API for the fake graph module (`graph.rs`)
//! Graphs made by capture are kept here, keyed by the graph handle:
//! - [`set_graph_factory`]: let graph.rs create the graph object that
//!   `cuStreamEndCapture` returns (default: a handle of our own).
//! - [`graph_nodes`]: the nodes captured into a graph, in capture order
//!   (handle, `CUgraphNodeType` kind, dependencies, host fn/data, event).
//! - [`node_replay`]: a node's repeatable work (host functions, and work
//!   other modules submitted with [`crate::stream::submit_repeatable`]), to
//!   run at every launch of the graph.
//! - [`take_work`]: the one-shot work of a node queued with plain
//!   `stream::enqueue` (a `FnOnce`), for a first launch.
//! - [`forget_graph`]: drop a graph's captured nodes (cuGraphDestroy).
//!
//! `cuStreamBeginCaptureToGraph` accepts any non-NULL graph handle and adds
//! to the nodes kept under it.

use crate::stream::{tri, twins, Event, Stream, Work};
use crate::*;
use parking_lot::Mutex;
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::thread::ThreadId;

pub const ILLEGAL_STATE: CUresult = 401;
pub const CAPTURE_UNSUPPORTED: CUresult = 900;
pub const CAPTURE_INVALIDATED: CUresult = 901;
pub const CAPTURE_MERGE: CUresult = 902;
pub const CAPTURE_UNMATCHED: CUresult = 903;
pub const CAPTURE_UNJOINED: CUresult = 904;
pub const CAPTURE_ISOLATION: CUresult = 905;
pub const CAPTURE_IMPLICIT: CUresult = 906;
pub const CAPTURED_EVENT: CUresult = 907;
pub const CAPTURE_WRONG_THREAD: CUresult = 908;

/// `CUgraphNodeType` values of captured nodes; [`KIND_OTHER`] for work
/// queued through `stream::enqueue` without a kind.
pub const KIND_KERNEL: c_int = 0;
pub const KIND_MEMCPY: c_int = 1;
pub const KIND_MEMSET: c_int = 2;
pub const KIND_HOST: c_int = 3;
pub const KIND_EMPTY: c_int = 5;
pub const KIND_WAIT_EVENT: c_int = 6;
pub const KIND_EVENT_RECORD: c_int = 7;
pub const KIND_OTHER: c_int = -1;

const MODE_GLOBAL: c_int = 0;
const MODE_RELAXED: c_int = 2;

/// A captured node, as graph.rs sees it.
#[derive(Clone, Debug)]
pub struct NodeInfo {
    pub handle: usize,
    pub kind: c_int,
    pub deps: Vec<usize>,
    /// Host nodes: the function and its argument.
    pub host_fn: usize,
    pub host_data: usize,
    /// Event record/wait nodes: the event handle.
    pub event: usize,
}

/// Work a graph can run at every launch.
pub type Replay = Arc<dyn Fn() + Send + Sync>;

/// What a captured node holds to run.
pub enum Captured {
    Nothing,
    Once(Work),
    Repeat(Replay),
}

struct Node {
    info: NodeInfo,
    work: Option<Work>,
    replay: Option<Replay>,
}

#[derive(Default)]
struct Graph {
    nodes: Vec<Node>,
}

static GRAPHS: Mutex<Option<HashMap<usize, Graph>>> = Mutex::new(None);
static FACTORY: OnceLock<fn() -> *mut c_void> = OnceLock::new();

/// Let the graph module create the graph objects capture returns.
pub fn set_graph_factory(f: fn() -> *mut c_void) {
    let _ = FACTORY.set(f);
}

/// Nodes captured into `graph`, in capture order (None: not a capture graph).
pub fn graph_nodes(graph: *mut c_void) -> Option<Vec<NodeInfo>> {
    GRAPHS.lock().as_ref()?.get(&(graph as usize)).map(|g| g.nodes.iter().map(|n| n.info.clone()).collect())
}

/// The work a captured node holds (one-shot).
pub fn take_work(graph: *mut c_void, node: usize) -> Option<Work> {
    GRAPHS.lock().as_mut()?.get_mut(&(graph as usize))?.nodes.iter_mut().find(|n| n.info.handle == node)?.work.take()
}

/// The repeatable work of a captured node.
pub fn node_replay(graph: *mut c_void, node: usize) -> Option<Replay> {
    GRAPHS.lock().as_ref()?.get(&(graph as usize))?.nodes.iter().find(|n| n.info.handle == node)?.replay.clone()
}

/// Drop what capture kept for `graph`.
pub fn forget_graph(graph: *mut c_void) {
    if let Some(g) = GRAPHS.lock().as_mut() {
        g.remove(&(graph as usize));
    }
}

fn new_graph() -> usize {
    let h = match FACTORY.get() {
        Some(f) => f() as usize,
        None => Box::into_raw(Box::new(0u64)) as usize,
    };
    GRAPHS.lock().get_or_insert_with(HashMap::new).entry(h).or_default();
    h
}

fn has_node(graph: usize, node: usize) -> bool {
    GRAPHS.lock().as_ref().and_then(|g| g.get(&graph)).is_some_and(|g| g.nodes.iter().any(|n| n.info.handle == node))
}

static NEXT_NODE: AtomicU64 = AtomicU64::new(1);

fn add_node(graph: usize, kind: c_int, deps: Vec<usize>, event: usize, what: Captured) -> usize {
    // Node handles: unique, non-NULL, never dereferenced by the shim.
    let handle = 0x7000_0000_0000 + 16 * NEXT_NODE.fetch_add(1, Ordering::Relaxed) as usize;
    let info = NodeInfo { handle, kind, deps, host_fn: 0, host_data: 0, event };
    let (work, replay) = match what {
        Captured::Nothing => (None, None),
        Captured::Once(w) => (Some(w), None),
        Captured::Repeat(r) => (None, Some(r)),
    };
    GRAPHS.lock().get_or_insert_with(HashMap::new).entry(graph).or_default().nodes.push(Node { info, work, replay });
    handle
}

/// Fill in a host node's function and argument.
pub fn set_host_params(node: usize, f: usize, data: usize) {
    if let Some(gs) = GRAPHS.lock().as_mut() {
        for g in gs.values_mut() {
            if let Some(n) = g.nodes.iter_mut().find(|n| n.info.handle == node) {
                n.info.host_fn = f;
                n.info.host_data = data;
            }
        }
    }
}

/// One capture sequence.
pub struct Session {
    pub id: u64,
    pub graph: usize,
    pub mode: c_int,
    pub origin: usize,
    pub thread: ThreadId,
    pub invalid: bool,
    /// Streams that take part (origin first).
    pub streams: Vec<&'static Stream>,
}

/// A stream's part in a capture: the session and its dependency set. The
/// `out_*` vectors back the arrays cuStreamGetCaptureInfo hands out.
pub struct Member {
    pub session: Arc<Mutex<Session>>,
    pub deps: Vec<usize>,
    pub edges: Vec<[u8; 8]>,
    out_deps: Vec<usize>,
    out_edges: Vec<[u8; 8]>,
}

static ACTIVE: Mutex<Vec<Arc<Mutex<Session>>>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static THREAD_MODE: Cell<c_int> = const { Cell::new(MODE_GLOBAL) };
}

fn session_of(s: &Stream) -> Option<Arc<Mutex<Session>>> {
    s.capture.lock().as_ref().map(|m| m.session.clone())
}

fn invalidate(sess: &Arc<Mutex<Session>>) {
    sess.lock().invalid = true;
}

/// If `s` is capturing: add a node of `kind` after its dependencies and
/// return its handle (or the capture's error). None: not capturing.
pub fn capture_node(s: &'static Stream, kind: c_int, event: usize, what: Captured) -> Option<Result<usize, CUresult>> {
    let mut g = s.capture.lock();
    let m = g.as_mut()?;
    let (graph, invalid) = {
        let sess = m.session.lock();
        (sess.graph, sess.invalid)
    };
    if invalid {
        return Some(Err(CAPTURE_INVALIDATED));
    }
    let node = add_node(graph, kind, std::mem::take(&mut m.deps), event, what);
    m.deps = vec![node];
    m.edges = vec![[0; 8]];
    Some(Ok(node))
}

/// Operations that are not capturable (cuStreamAddCallback): refused with
/// CAPTURE_UNSUPPORTED, invalidating the capture.
pub fn refuse_in_capture(s: &Stream) -> Result<(), CUresult> {
    match session_of(s) {
        Some(sess) => {
            invalidate(&sess);
            Err(CAPTURE_UNSUPPORTED)
        }
        None => Ok(()),
    }
}

/// Synchronizing or querying a capturing stream is not permitted and
/// invalidates the capture; on the legacy stream it is an implicit
/// dependency on any capture of a blocking stream.
pub fn check_sync(s: &Stream) -> Result<(), CUresult> {
    refuse_in_capture(s)?;
    check_legacy_use(s)
}

/// Work on the legacy stream while a blocking stream captures would create
/// an implicit dependency: CAPTURE_IMPLICIT, and the capture is invalidated.
pub fn check_legacy_use(s: &Stream) -> Result<(), CUresult> {
    if !s.legacy {
        return Ok(());
    }
    let mut hit = false;
    for sess in ACTIVE.lock().iter() {
        let mut g = sess.lock();
        if g.streams.iter().any(|m| m.blocking()) {
            g.invalid = true;
            hit = true;
        }
    }
    if hit { Err(CAPTURE_IMPLICIT) } else { Ok(()) }
}

/// For "potentially unsafe" calls (synchronous allocation, device-wide
/// synchronization): CAPTURE_UNSUPPORTED when the calling thread's capture
/// interaction mode forbids them, invalidating the offending capture.
pub fn check_unsafe_call() -> Result<(), CUresult> {
    let mode = THREAD_MODE.with(Cell::get);
    if mode == MODE_RELAXED {
        return Ok(());
    }
    let me = std::thread::current().id();
    let mut hit = false;
    for sess in ACTIVE.lock().iter() {
        let mut g = sess.lock();
        let mine = g.thread == me && g.mode != MODE_RELAXED;
        let global = mode == MODE_GLOBAL && g.mode == MODE_GLOBAL;
        if mine || global {
            g.invalid = true;
            hit = true;
        }
    }
    if hit { Err(CAPTURE_UNSUPPORTED) } else { Ok(()) }
}

/// Event record on a capturing stream: the event remembers the capture and
/// the dependency set (for forks); with CU_EVENT_RECORD_EXTERNAL it also
/// becomes an event-record node. None: not capturing.
pub fn record_event(s: &'static Stream, e: &Event, ev: usize, flags: c_uint) -> Option<Result<(), CUresult>> {
    let sess = session_of(s)?;
    let (id, invalid) = {
        let g = sess.lock();
        (g.id, g.invalid)
    };
    if invalid {
        return Some(Err(CAPTURE_INVALIDATED));
    }
    if flags & 1 != 0 {
        if let Some(Err(err)) = capture_node(s, KIND_EVENT_RECORD, ev, Captured::Nothing) {
            return Some(Err(err));
        }
    }
    let deps = s.capture.lock().as_ref().map(|m| m.deps.clone()).unwrap_or_default();
    e.set_captured(Some((id, deps)));
    Some(Ok(()))
}

/// Stream wait on an event. An event recorded in a capture joins the
/// waiting stream into that capture (fork) or merges the dependency sets
/// (join). A capturing stream waiting on an event from outside the capture
/// is an isolation error. With CU_EVENT_WAIT_EXTERNAL a capturing stream
/// gets an event-wait node instead.
/// None: neither side is in a capture.
pub fn wait_event(s: &'static Stream, e: &Event, ev: usize, flags: c_uint) -> Option<Result<(), CUresult>> {
    if flags & 1 != 0 && s.capture.lock().is_some() {
        // An external wait is a node whatever recorded the event.
        return capture_node(s, KIND_WAIT_EVENT, ev, Captured::Nothing).map(|r| r.map(|_| ()));
    }
    let captured = e.captured().and_then(|(id, deps)| {
        let sess = ACTIVE.lock().iter().find(|x| x.lock().id == id).cloned()?;
        Some((sess, deps))
    });
    let mine = session_of(s);
    match (captured, mine) {
        (None, None) => None,
        (None, Some(sess)) => {
            invalidate(&sess);
            Some(Err(CAPTURE_ISOLATION))
        }
        (Some((sess, _)), None) if s.legacy => {
            // The legacy stream can never take part in a capture.
            invalidate(&sess);
            Some(Err(CAPTURE_IMPLICIT))
        }
        (Some((sess, deps)), None) => {
            // Fork: s joins the capture, starting after the event's point.
            let edges = vec![[0u8; 8]; deps.len()];
            sess.lock().streams.push(s);
            *s.capture.lock() = Some(Member { session: sess, deps, edges, out_deps: Vec::new(), out_edges: Vec::new() });
            Some(Ok(()))
        }
        (Some((theirs, deps)), Some(ours)) => {
            if !Arc::ptr_eq(&theirs, &ours) {
                invalidate(&ours);
                invalidate(&theirs);
                return Some(Err(CAPTURE_MERGE));
            }
            let mut g = s.capture.lock();
            let m = g.as_mut().unwrap();
            for d in deps {
                if !m.deps.contains(&d) {
                    m.deps.push(d);
                    m.edges.push([0; 8]);
                }
            }
            Some(Ok(()))
        }
    }
}

/// A destroyed stream leaves its capture; destroying the origin
/// invalidates it.
pub fn on_destroy(s: &'static Stream) {
    if let Some(m) = s.capture.lock().take() {
        let mut g = m.session.lock();
        g.streams.retain(|x| !std::ptr::eq(*x, s));
        if g.origin == s as *const Stream as usize {
            g.invalid = true;
        }
    }
}

fn begin(h: *mut c_void, ptds: bool, graph: Option<(usize, Vec<usize>, Vec<[u8; 8]>)>, mode: c_int) -> CUresult {
    let s = tri!(crate::stream::resolve(h, ptds));
    if !(MODE_GLOBAL..=MODE_RELAXED).contains(&mode) {
        return INVALID_VALUE;
    }
    if s.legacy {
        return CAPTURE_UNSUPPORTED;
    }
    let mut slot = s.capture.lock();
    if slot.is_some() {
        return ILLEGAL_STATE;
    }
    let (graph, deps, edges) = match graph {
        Some(g) => g,
        None => (new_graph(), Vec::new(), Vec::new()),
    };
    let sess = Arc::new(Mutex::new(Session {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        graph,
        mode,
        origin: s as *const Stream as usize,
        thread: std::thread::current().id(),
        invalid: false,
        streams: vec![s],
    }));
    ACTIVE.lock().push(sess.clone());
    *slot = Some(Member { session: sess, deps, edges, out_deps: Vec::new(), out_edges: Vec::new() });
    SUCCESS
}

unsafe fn to_graph(
    h: *mut c_void,
    ptds: bool,
    graph: *mut c_void,
    deps: *const usize,
    edges: *const [u8; 8],
    n: usize,
    mode: c_int,
) -> CUresult {
    if graph.is_null() || (n > 0 && deps.is_null()) {
        return INVALID_VALUE;
    }
    let g = graph as usize;
    GRAPHS.lock().get_or_insert_with(HashMap::new).entry(g).or_default();
    let d: Vec<usize> = if n == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(deps, n) }.to_vec() };
    if d.iter().any(|x| !has_node(g, *x)) {
        return INVALID_VALUE;
    }
    let e = if edges.is_null() { vec![[0; 8]; n] } else { unsafe { std::slice::from_raw_parts(edges, n) }.to_vec() };
    begin(h, ptds, Some((g, d, e)), mode)
}

/// Whether every node in `from` is reachable backwards from `to` (so the
/// streams that produced `from` were joined back).
fn joined(graph: usize, to: &[usize], from: &[usize]) -> bool {
    let gs = GRAPHS.lock();
    let Some(g) = gs.as_ref().and_then(|g| g.get(&graph)) else { return true };
    let deps: HashMap<usize, &Vec<usize>> = g.nodes.iter().map(|n| (n.info.handle, &n.info.deps)).collect();
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<usize> = to.to_vec();
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            if let Some(d) = deps.get(&n) {
                stack.extend(d.iter().copied());
            }
        }
    }
    from.iter().all(|n| seen.contains(n))
}

fn end(h: *mut c_void, ptds: bool, out: *mut *mut c_void) -> CUresult {
    let s = tri!(crate::stream::resolve(h, ptds));
    if out.is_null() {
        return INVALID_VALUE;
    }
    let Some(sess) = session_of(s) else { return ILLEGAL_STATE };
    {
        let g = sess.lock();
        if g.origin != s as *const Stream as usize {
            return CAPTURE_UNMATCHED;
        }
        if g.mode != MODE_RELAXED && g.thread != std::thread::current().id() {
            return CAPTURE_WRONG_THREAD;
        }
    }
    // The capture ends for every stream in it, whatever the outcome.
    let (graph, mut invalid, streams) = {
        let g = sess.lock();
        (g.graph, g.invalid, g.streams.clone())
    };
    let origin_deps = s.capture.lock().as_ref().map(|m| m.deps.clone()).unwrap_or_default();
    let mut unjoined = false;
    for o in &streams {
        if let Some(m) = o.capture.lock().take() {
            if !std::ptr::eq(*o, s) && !joined(graph, &origin_deps, &m.deps) {
                unjoined = true;
            }
        }
    }
    ACTIVE.lock().retain(|x| !Arc::ptr_eq(x, &sess));
    unsafe { *out = std::ptr::null_mut() };
    if unjoined {
        invalid = true;
    }
    if invalid {
        forget_graph(graph as *mut c_void);
        return if unjoined { CAPTURE_UNJOINED } else { CAPTURE_INVALIDATED };
    }
    unsafe { *out = graph as *mut c_void };
    SUCCESS
}

/// 0 none, 1 active, 2 invalidated.
fn status(s: &Stream) -> c_int {
    match session_of(s) {
        None => 0,
        Some(sess) if sess.lock().invalid => 2,
        Some(_) => 1,
    }
}

fn legacy_implicit(s: &Stream) -> Result<(), CUresult> {
    if s.legacy && ACTIVE.lock().iter().any(|x| x.lock().streams.iter().any(|m| m.blocking())) {
        return Err(CAPTURE_IMPLICIT);
    }
    Ok(())
}

fn is_capturing(h: *mut c_void, ptds: bool, out: *mut c_int) -> CUresult {
    let s = tri!(crate::stream::resolve(h, ptds));
    if out.is_null() {
        return INVALID_VALUE;
    }
    tri!(legacy_implicit(s));
    unsafe { *out = status(s) };
    SUCCESS
}

#[allow(clippy::too_many_arguments)]
unsafe fn info(
    h: *mut c_void,
    ptds: bool,
    status_out: *mut c_int,
    id_out: *mut u64,
    graph_out: *mut *mut c_void,
    deps_out: *mut *const usize,
    edges_out: *mut *const [u8; 8],
    n_out: *mut usize,
) -> CUresult {
    let s = tri!(crate::stream::resolve(h, ptds));
    if status_out.is_null() {
        return INVALID_VALUE;
    }
    tri!(legacy_implicit(s));
    let st = status(s);
    unsafe { *status_out = st };
    let mut g = s.capture.lock();
    let Some(m) = g.as_mut() else {
        // Not capturing: only the status is defined.
        return SUCCESS;
    };
    let (id, graph) = {
        let x = m.session.lock();
        (x.id, x.graph)
    };
    m.out_deps = m.deps.clone();
    m.out_edges = m.edges.clone();
    // Edge data requested but the caller cannot see it: CUDA reports
    // "lossy" queries only when non-default edges exist; all ours are zero.
    unsafe {
        if !id_out.is_null() {
            *id_out = id;
        }
        if !graph_out.is_null() {
            *graph_out = graph as *mut c_void;
        }
        if !deps_out.is_null() {
            *deps_out = m.out_deps.as_ptr();
        }
        if !edges_out.is_null() {
            *edges_out = m.out_edges.as_ptr();
        }
        if !n_out.is_null() {
            *n_out = m.out_deps.len();
        }
    }
    SUCCESS
}

unsafe fn update(h: *mut c_void, ptds: bool, deps: *const usize, edges: *const [u8; 8], n: usize, flags: c_uint) -> CUresult {
    let s = tri!(crate::stream::resolve(h, ptds));
    if flags > 1 || (n > 0 && deps.is_null()) {
        return INVALID_VALUE;
    }
    let mut g = s.capture.lock();
    let Some(m) = g.as_mut() else { return ILLEGAL_STATE };
    let graph = m.session.lock().graph;
    let d: Vec<usize> = if n == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(deps, n) }.to_vec() };
    if d.iter().any(|x| !has_node(graph, *x)) {
        return INVALID_VALUE;
    }
    let e = if edges.is_null() { vec![[0; 8]; n] } else { unsafe { std::slice::from_raw_parts(edges, n) }.to_vec() };
    if flags == 1 {
        m.deps.clear();
        m.edges.clear();
    }
    for (x, y) in d.into_iter().zip(e) {
        if !m.deps.contains(&x) {
            m.deps.push(x);
            m.edges.push(y);
        }
    }
    SUCCESS
}

twins! {
    cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz, "cuStreamBeginCapture", "cuStreamBeginCapture_ptsz"
        (h: *mut c_void, mode: c_int) |ptds| begin(h, ptds, None, mode);
    cuStreamBeginCaptureToGraph, cuStreamBeginCaptureToGraph_ptsz, "cuStreamBeginCaptureToGraph", "cuStreamBeginCaptureToGraph_ptsz"
        (h: *mut c_void, graph: *mut c_void, deps: *const usize, edges: *const [u8; 8], n: usize, mode: c_int)
        |ptds| unsafe { to_graph(h, ptds, graph, deps, edges, n, mode) };
    cuStreamEndCapture, cuStreamEndCapture_ptsz, "cuStreamEndCapture", "cuStreamEndCapture_ptsz"
        (h: *mut c_void, out: *mut *mut c_void) |ptds| end(h, ptds, out);
    cuStreamIsCapturing, cuStreamIsCapturing_ptsz, "cuStreamIsCapturing", "cuStreamIsCapturing_ptsz"
        (h: *mut c_void, out: *mut c_int) |ptds| is_capturing(h, ptds, out);
    cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v3_ptsz, "cuStreamGetCaptureInfo", "cuStreamGetCaptureInfo_ptsz"
        (h: *mut c_void, status_out: *mut c_int, id_out: *mut u64, graph_out: *mut *mut c_void,
         deps_out: *mut *const usize, edges_out: *mut *const [u8; 8], n_out: *mut usize)
        |ptds| unsafe { info(h, ptds, status_out, id_out, graph_out, deps_out, edges_out, n_out) };
    cuStreamUpdateCaptureDependencies_v2, cuStreamUpdateCaptureDependencies_v2_ptsz,
        "cuStreamUpdateCaptureDependencies", "cuStreamUpdateCaptureDependencies_ptsz"
        (h: *mut c_void, deps: *const usize, edges: *const [u8; 8], n: usize, flags: c_uint)
        |ptds| unsafe { update(h, ptds, deps, edges, n, flags) };
}

pub unsafe extern "C" fn cuThreadExchangeStreamCaptureMode(mode: *mut c_int) -> CUresult {
    fake_enter!("cuThreadExchangeStreamCaptureMode");
    if let Err(e) = crate::device::initialized() {
        return e;
    }
    if mode.is_null() {
        return INVALID_VALUE;
    }
    let want = unsafe { *mode };
    if !(MODE_GLOBAL..=MODE_RELAXED).contains(&want) {
        return INVALID_VALUE;
    }
    unsafe { *mode = THREAD_MODE.with(|c| c.replace(want)) };
    SUCCESS
}

/// Test control: the kinds of the nodes captured into `graph`, in order
/// (up to `max`); returns the node count, or -1 if it is not a capture graph.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_captured_kinds(graph: *mut c_void, kinds: *mut c_int, max: usize) -> i64 {
    let Some(nodes) = graph_nodes(graph) else { return -1 };
    for (i, n) in nodes.iter().take(max).enumerate() {
        unsafe { *kinds.add(i) = n.kind };
    }
    nodes.len() as i64
}

/// Test control: the number of dependencies of the `i`th captured node.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_captured_deps(graph: *mut c_void, i: usize) -> i64 {
    graph_nodes(graph).and_then(|n| n.get(i).map(|n| n.deps.len() as i64)).unwrap_or(-1)
}

/// Test control: run the work held by the captured nodes of `graph`, in
/// capture order (a stand-in for a graph launch in this module's tests):
/// repeatable work every time, one-shot work the first time. Returns how
/// many nodes ran.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_run_captured(graph: *mut c_void) -> i64 {
    let Some(nodes) = graph_nodes(graph) else { return -1 };
    let mut ran = 0;
    for n in nodes {
        if let Some(r) = node_replay(graph, n.handle) {
            r();
            ran += 1;
        } else if let Some(w) = take_work(graph, n.handle) {
            w();
            ran += 1;
        }
    }
    ran
}

pub static SYMBOLS: crate::Symbols = &[
    sym!("cuStreamBeginCapture" => cuStreamBeginCapture_v2),
    sym!("cuStreamBeginCapture@ptds" => cuStreamBeginCapture_v2_ptsz),
    sym!(cuStreamBeginCaptureToGraph),
    sym!("cuStreamBeginCaptureToGraph@ptds" => cuStreamBeginCaptureToGraph_ptsz),
    sym!(cuStreamEndCapture),
    sym!("cuStreamEndCapture@ptds" => cuStreamEndCapture_ptsz),
    sym!(cuStreamIsCapturing),
    sym!("cuStreamIsCapturing@ptds" => cuStreamIsCapturing_ptsz),
    sym!("cuStreamGetCaptureInfo" => cuStreamGetCaptureInfo_v3),
    sym!("cuStreamGetCaptureInfo@ptds" => cuStreamGetCaptureInfo_v3_ptsz),
    sym!("cuStreamUpdateCaptureDependencies" => cuStreamUpdateCaptureDependencies_v2),
    sym!("cuStreamUpdateCaptureDependencies@ptds" => cuStreamUpdateCaptureDependencies_v2_ptsz),
    sym!(cuThreadExchangeStreamCaptureMode),
];
