//! Fake driver: stream capture.
//!
//! A stream in capture runs nothing: each operation becomes a node of the
//! capture's graph, depending on the stream's current dependency set, and
//! becomes that set. Event record/wait forks and joins other streams into
//! the capture. Violations give NVIDIA's driver codes and invalidate the
//! capture where CUDA does.
//!
//! The capture's graph is a graph of the graph module (`crate::graph`)
//! from the start: `cuStreamBeginCapture` creates an empty one and each
//! captured operation is added to it at once ([`crate::graph::add_captured`]),
//! so the node handles cuStreamGetCaptureInfo hands out are graph nodes, the
//! graph answers the graph API (nodes, edges, types) during and after the
//! capture, and `cuStreamEndCapture` returns it ready to instantiate. A
//! captured node keeps the work its module queued: host functions and work
//! queued with [`crate::stream::submit_repeatable`] run at every launch of
//! the graph, `FnOnce` work queued with plain `stream::enqueue` at the first
//! launch only. A failed capture destroys the graph it created.
//! `cuStreamBeginCaptureToGraph` adds to an existing graph, after nodes of
//! that graph, and leaves the graph to its owner whatever the outcome (after
//! a failed capture NVIDIA calls its contents undefined).

use crate::stream::{tri, twins, Event, Stream, Work};
use crate::*;
use parking_lot::Mutex;
use std::cell::Cell;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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
/// queued through `stream::enqueue` without a kind (such a node reports
/// itself as an empty node, and still runs its work).
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

/// Work a graph can run at every launch.
pub type Replay = Arc<dyn Fn() + Send + Sync>;

/// What a captured node holds to run.
pub enum Captured {
    Nothing,
    Once(Work),
    Repeat(Replay),
}

/// Make captured node `node` a host node calling `f(data)`.
pub fn set_host_params(node: usize, f: unsafe extern "C" fn(*mut c_void), data: *mut c_void) {
    crate::graph::set_captured_host(node, f, data);
}

/// One capture sequence.
pub struct Session {
    pub id: u64,
    pub graph: usize,
    pub mode: c_int,
    pub origin: usize,
    pub thread: ThreadId,
    pub invalid: bool,
    /// The capture created its graph (cuStreamBeginCapture), so a failed
    /// capture destroys it; false for cuStreamBeginCaptureToGraph.
    pub owned: bool,
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
    let node = match crate::graph::add_captured(graph, &m.deps, &m.edges, kind, event, what) {
        Ok(n) => n,
        Err(e) => return Some(Err(e)),
    };
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
    if flags & 1 != 0
        && let Some(Err(err)) = capture_node(s, KIND_EVENT_RECORD, ev, Captured::Nothing)
    {
        return Some(Err(err));
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
    let owned = graph.is_none();
    let (graph, deps, edges) = match graph {
        Some(g) => g,
        None => (crate::graph::capture_graph_new(), Vec::new(), Vec::new()),
    };
    let sess = Arc::new(Mutex::new(Session {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        graph,
        mode,
        origin: s as *const Stream as usize,
        thread: std::thread::current().id(),
        invalid: false,
        owned,
        streams: vec![s],
    }));
    ACTIVE.lock().push(sess.clone());
    *slot = Some(Member { session: sess, deps, edges, out_deps: Vec::new(), out_edges: Vec::new() });
    SUCCESS
}

/// Dependencies and edge data handed in for `graph` (cuStreamBeginCaptureToGraph,
/// cuStreamUpdateCaptureDependencies): distinct nodes of that graph, valid
/// edge data (NULL: default edges).
unsafe fn dependencies(graph: usize, deps: *const usize, edges: *const [u8; 8], n: usize) -> Result<(Vec<usize>, Vec<[u8; 8]>), CUresult> {
    if n > 0 && deps.is_null() {
        return Err(INVALID_VALUE);
    }
    let d: Vec<usize> = if n == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(deps, n) }.to_vec() };
    if d.iter().enumerate().any(|(i, x)| !crate::graph::graph_has_node(graph, *x) || d[..i].contains(x)) {
        return Err(INVALID_VALUE);
    }
    let e = if edges.is_null() || n == 0 { vec![[0; 8]; n] } else { unsafe { std::slice::from_raw_parts(edges, n) }.to_vec() };
    if !e.iter().all(crate::graph::edge_bytes_valid) {
        return Err(INVALID_VALUE);
    }
    Ok((d, e))
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
    let g = graph as usize;
    if !crate::graph::graph_exists(g) {
        return INVALID_VALUE;
    }
    let (d, e) = tri!(unsafe { dependencies(g, deps, edges, n) });
    begin(h, ptds, Some((g, d, e)), mode)
}

/// Whether every node in `from` is reachable backwards from `to` (so the
/// streams that produced `from` were joined back).
fn joined(graph: usize, to: &[usize], from: &[usize]) -> bool {
    let seen = crate::graph::ancestors(graph, to);
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
    let (graph, mut invalid, owned, streams) = {
        let g = sess.lock();
        (g.graph, g.invalid, g.owned, g.streams.clone())
    };
    let origin_deps = s.capture.lock().as_ref().map(|m| m.deps.clone()).unwrap_or_default();
    let mut unjoined = false;
    for o in &streams {
        if let Some(m) = o.capture.lock().take()
            && !std::ptr::eq(*o, s)
            && !joined(graph, &origin_deps, &m.deps)
        {
            unjoined = true;
        }
    }
    ACTIVE.lock().retain(|x| !Arc::ptr_eq(x, &sess));
    unsafe { *out = std::ptr::null_mut() };
    if unjoined {
        invalid = true;
    }
    if invalid {
        if owned {
            crate::graph::capture_graph_drop(graph);
        }
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
    let (d, e) = tri!(unsafe { dependencies(graph, deps, edges, n) });
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
