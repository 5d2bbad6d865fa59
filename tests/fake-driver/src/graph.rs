//! Fake driver: graphs, nodes, edges, executable graphs, user objects.
//!
//! A graph is a list of nodes with their typed driver parameters (stored as
//! given, so add/get/set round-trip) and a list of edges with edge data.
//! Instantiation snapshots the nodes in topological order; `cuGraphLaunch`
//! queues one piece of work per node, in that order, through
//! [`crate::stream::enqueue`]: memcpy and memset nodes move bytes (device
//! pointers are host pointers), host nodes call their function, kernel
//! nodes are recorded ([`record_kernel`], read back with
//! `fake_cuda_graph_kernels`), child graphs run their own nodes, disabled
//! nodes are skipped. Event and external-semaphore nodes are no-ops here
//! (events belong to the stream module). Conditional nodes run their bodies
//! by the handle's default value (If/Switch; While runs its body at most
//! once, since no device code can change the value).
//!
//! Stream capture builds its graphs here too ([`add_captured`] and the
//! functions beside it, called by [`crate::capture`]): a captured host
//! function becomes a host node and an external event record/wait an event
//! node; a captured copy, set or kernel launch becomes a node of its type
//! that runs, at launch, the work the memory or module module queued for
//! the stream (see [`CapturedWork`]). Such nodes have no driver parameters
//! here: the typed getters refuse them, the setters replace them.
//!
//! Handles are addresses of a private counter range, never dereferenced; a
//! destroyed handle is unknown afterwards, so it gets `CUDA_ERROR_INVALID_VALUE`.

use crate::capture::{Captured, Replay};
use crate::stream::Work;
use crate::*;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};

const LOSSY_QUERY: CUresult = 402;
const OPERATING_SYSTEM: CUresult = 304;
const GRAPH_EXEC_UPDATE_FAILURE: CUresult = 910;

type H = usize;
type HostFn = Option<unsafe extern "C" fn(*mut c_void)>;

// Driver structs (cuda.h, CUDA 13.0 layouts).

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct KernelParams {
    pub func: *mut c_void,
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub shared: c_uint,
    pub kernel_params: *mut *mut c_void,
    pub extra: *mut *mut c_void,
    pub kern: *mut c_void,
    pub ctx: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Memcpy3D {
    src_x: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_type: c_int,
    src_host: *const c_void,
    src_device: u64,
    src_array: *mut c_void,
    reserved0: *mut c_void,
    src_pitch: usize,
    src_height: usize,
    dst_x: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_type: c_int,
    dst_host: *mut c_void,
    dst_device: u64,
    dst_array: *mut c_void,
    reserved1: *mut c_void,
    dst_pitch: usize,
    dst_height: usize,
    width: usize,
    height: usize,
    depth: usize,
}

/// `CUDA_MEMSET_NODE_PARAMS` (v1: the first six fields; v2 adds `ctx`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemsetV1 {
    dst: u64,
    pitch: usize,
    value: c_uint,
    element_size: c_uint,
    width: usize,
    height: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HostParams {
    func: HostFn,
    user: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ExtSemParams {
    sems: *mut c_void,
    params: *const c_void,
    n: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemAllocParams {
    pool_props: [u8; 88],
    access_descs: *const c_void,
    access_desc_count: usize,
    bytesize: usize,
    dptr: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct CondParams {
    handle: u64,
    kind: c_int,
    size: c_uint,
    graphs_out: *mut H,
    ctx: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct MemcpyNodeParams {
    flags: c_int,
    reserved: c_int,
    ctx: *mut c_void,
    copy: Memcpy3D,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct ChildParams {
    graph: H,
    ownership: c_int,
}

#[repr(C)]
pub struct NodeParams {
    kind: c_int,
    reserved0: [c_int; 3],
    u: [i64; 29],
    reserved2: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeData {
    from_port: u8,
    to_port: u8,
    kind: u8,
    reserved: [u8; 5],
}

#[repr(C)]
pub struct UpdateResultInfo {
    result: c_int,
    error_node: H,
    error_from_node: H,
}

#[repr(C)]
pub struct InstantiateParams {
    flags: u64,
    upload_stream: *mut c_void,
    err_node: H,
    result: c_int,
}

// Node types (CUgraphNodeType).
const KERNEL: c_int = 0;
const MEMCPY: c_int = 1;
const MEMSET: c_int = 2;
const HOST: c_int = 3;
const GRAPH: c_int = 4;
const EMPTY: c_int = 5;
const WAIT_EVENT: c_int = 6;
const EVENT_RECORD: c_int = 7;
const SEM_SIGNAL: c_int = 8;
const SEM_WAIT: c_int = 9;
const MEM_ALLOC: c_int = 10;
const MEM_FREE: c_int = 11;
const CONDITIONAL: c_int = 13;

/// A node's parameters, as the driver stores them.
#[derive(Clone, Debug)]
enum Params {
    Kernel(KernelParams),
    Memcpy(Memcpy3D),
    Memset(MemsetV1),
    Host(HostParams),
    /// The node's own copy of the child graph.
    Child(H),
    Empty,
    WaitEvent(*mut c_void),
    EventRecord(*mut c_void),
    SemSignal(ExtSemParams),
    SemWait(ExtSemParams),
    MemAlloc(MemAllocParams),
    MemFree(u64),
    /// Parameters, and the body graphs (owned by the node).
    Conditional(CondParams, Vec<H>),
    /// Work a stream captured that has no driver parameters here (copies,
    /// sets and kernel launches as the other fake modules queue them): its
    /// `CUgraphNodeType` and the work itself.
    Captured(c_int, CapturedWork),
}

/// The work a captured node runs at each launch; clones (graph clones,
/// instantiated copies) share it.
#[derive(Clone)]
enum CapturedWork {
    /// Runs at every launch.
    Repeat(Replay),
    /// Queued as a `FnOnce`: runs at the first launch of any copy only.
    Once(Arc<Mutex<Option<Work>>>),
}

impl std::fmt::Debug for CapturedWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CapturedWork::Repeat(_) => "Repeat",
            CapturedWork::Once(_) => "Once",
        })
    }
}

impl CapturedWork {
    fn run(&self) {
        match self {
            CapturedWork::Repeat(r) => r(),
            CapturedWork::Once(w) => {
                let w = w.lock().take();
                if let Some(w) = w {
                    w()
                }
            }
        }
    }
}

impl Params {
    fn kind(&self) -> c_int {
        match self {
            Params::Kernel(_) => KERNEL,
            Params::Memcpy(_) => MEMCPY,
            Params::Memset(_) => MEMSET,
            Params::Host(_) => HOST,
            Params::Child(_) => GRAPH,
            Params::Empty => EMPTY,
            Params::WaitEvent(_) => WAIT_EVENT,
            Params::EventRecord(_) => EVENT_RECORD,
            Params::SemSignal(_) => SEM_SIGNAL,
            Params::SemWait(_) => SEM_WAIT,
            Params::MemAlloc(_) => MEM_ALLOC,
            Params::MemFree(_) => MEM_FREE,
            Params::Conditional(..) => CONDITIONAL,
            // Work queued without a kind (KIND_OTHER) shows as an empty node.
            Params::Captured(k, _) if *k >= 0 => *k,
            Params::Captured(..) => EMPTY,
        }
    }
}

struct Node {
    graph: H,
    params: Params,
}

#[derive(Default)]
struct Graph {
    /// In creation order.
    nodes: Vec<H>,
    edges: Vec<(H, H, EdgeData)>,
    /// User object -> references this graph holds.
    objects: HashMap<H, u32>,
    /// Original node -> node of this graph, when this graph is a clone.
    cloned_from: HashMap<H, H>,
}

/// A node as instantiated.
#[derive(Clone)]
struct ExecNode {
    /// The node of the source graph (per-node exec setters name it).
    node: H,
    params: Params,
    enabled: bool,
    /// Instantiated child/conditional bodies.
    children: Vec<Vec<ExecNode>>,
}

struct Exec {
    graph: H,
    flags: u64,
    nodes: Vec<ExecNode>,
    /// Node types and edges (by node index) at instantiation, for updates.
    shape: Shape,
    objects: HashMap<H, u32>,
}

#[derive(PartialEq, Clone)]
struct Shape {
    kinds: Vec<c_int>,
    edges: Vec<(usize, usize, EdgeData)>,
}

struct UserObject {
    ptr: *mut c_void,
    destroy: HostFn,
    refs: u32,
}

#[derive(Default)]
struct State {
    graphs: HashMap<H, Graph>,
    nodes: HashMap<H, Node>,
    execs: HashMap<H, Exec>,
    objects: HashMap<H, UserObject>,
    /// Conditional handle -> value at each launch.
    conditionals: HashMap<u64, u32>,
    graph_mem_used: u64,
    graph_mem_high: u64,
}

// SAFETY: raw pointers stored for the program; the fake never shares them
// across threads other than to hand them back.
unsafe impl Send for State {}

static STATE: Mutex<Option<State>> = Mutex::new(None);
static NEXT: AtomicUsize = AtomicUsize::new(0x6_0000);

fn handle() -> H {
    NEXT.fetch_add(0x10, Ordering::Relaxed)
}

fn with<R>(f: impl FnOnce(&mut State) -> Result<R, CUresult>) -> Result<R, CUresult> {
    crate::device::initialized()?;
    let mut g = STATE.lock();
    f(g.get_or_insert_with(State::default))
}

/// Run `f` on the state and return its code.
fn run(f: impl FnOnce(&mut State) -> Result<(), CUresult>) -> CUresult {
    match with(f) {
        Ok(()) => SUCCESS,
        Err(e) => e,
    }
}

macro_rules! out {
    ($p:expr) => {
        if $p.is_null() {
            return Err(INVALID_VALUE);
        }
    };
}

/// A kernel launch recorded by a graph (test control reads them).
#[derive(Clone, Copy, Debug)]
pub struct KernelLaunch {
    pub func: *mut c_void,
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub shared: c_uint,
    pub params: *mut *mut c_void,
}
// SAFETY: plain values kept for inspection.
unsafe impl Send for KernelLaunch {}

static KERNELS: Mutex<Vec<KernelLaunch>> = Mutex::new(Vec::new());

/// Record a kernel launch (shared with other fake modules that launch).
pub fn record_kernel(k: KernelLaunch) {
    KERNELS.lock().push(k);
}

/// Test control: number of kernel launches graphs recorded; with
/// `index < count` and non-NULL outputs, the function handle and grid x of
/// launch `index`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_graph_kernels(index: u64, func: *mut *mut c_void, grid_x: *mut c_uint) -> u64 {
    let k = KERNELS.lock();
    if let Some(l) = k.get(index as usize) {
        if !func.is_null() {
            unsafe { *func = l.func };
        }
        if !grid_x.is_null() {
            unsafe { *grid_x = l.grid[0] };
        }
    }
    k.len() as u64
}

/// Test control: live user objects.
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_user_objects() -> u64 {
    STATE.lock().as_ref().map_or(0, |s| s.objects.len() as u64)
}

// ---------------------------------------------------------------------------
// Graph bookkeeping.
// ---------------------------------------------------------------------------

impl State {
    fn graph(&mut self, g: H) -> Result<&mut Graph, CUresult> {
        self.graphs.get_mut(&g).ok_or(INVALID_VALUE)
    }

    fn node(&self, n: H) -> Result<&Node, CUresult> {
        self.nodes.get(&n).ok_or(INVALID_VALUE)
    }

    fn node_mut(&mut self, n: H) -> Result<&mut Node, CUresult> {
        self.nodes.get_mut(&n).ok_or(INVALID_VALUE)
    }

    /// Add a node after `deps` (with edge data `data`, NULL = default).
    fn add(&mut self, g: H, deps: *const H, data: *const EdgeData, n: usize, params: Params) -> Result<H, CUresult> {
        self.graph(g)?;
        if n > 0 && deps.is_null() {
            return Err(INVALID_VALUE);
        }
        let deps: Vec<H> = if n == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(deps, n) }.to_vec() };
        let data: Vec<EdgeData> =
            if data.is_null() || n == 0 { vec![EdgeData::default(); n] } else { unsafe { std::slice::from_raw_parts(data, n) }.to_vec() };
        for (i, d) in deps.iter().enumerate() {
            if self.node(*d)?.graph != g || deps[..i].contains(d) {
                return Err(INVALID_VALUE);
            }
            valid_edge(&data[i])?;
        }
        let h = handle();
        self.nodes.insert(h, Node { graph: g, params });
        let graph = self.graph(g)?;
        graph.nodes.push(h);
        for (d, e) in deps.into_iter().zip(data) {
            graph.edges.push((d, h, e));
        }
        Ok(h)
    }

    /// Destroy a graph and everything it owns (nodes, embedded graphs,
    /// user object references); `drops` collects destructors to run.
    fn destroy_graph(&mut self, g: H, drops: &mut Vec<(HostFn, *mut c_void)>) -> Result<(), CUresult> {
        let graph = self.graphs.remove(&g).ok_or(INVALID_VALUE)?;
        for n in graph.nodes {
            self.drop_node(n, drops);
        }
        for (o, c) in graph.objects {
            self.release_object(o, c, drops);
        }
        Ok(())
    }

    fn drop_node(&mut self, n: H, drops: &mut Vec<(HostFn, *mut c_void)>) {
        if let Some(node) = self.nodes.remove(&n) {
            match node.params {
                Params::Child(c) => {
                    let _ = self.destroy_graph(c, drops);
                }
                Params::Conditional(_, bodies) => {
                    for b in bodies {
                        let _ = self.destroy_graph(b, drops);
                    }
                }
                Params::MemAlloc(a) => self.graph_mem_used = self.graph_mem_used.saturating_sub(a.bytesize as u64),
                _ => {}
            }
        }
    }

    fn release_object(&mut self, o: H, count: u32, drops: &mut Vec<(HostFn, *mut c_void)>) {
        if let Some(obj) = self.objects.get_mut(&o) {
            obj.refs = obj.refs.saturating_sub(count);
            if obj.refs == 0 {
                let obj = self.objects.remove(&o).unwrap();
                drops.push((obj.destroy, obj.ptr));
            }
        }
    }

    /// Deep copy of graph `g`; `map` receives original -> copy for every node.
    fn clone_graph(&mut self, g: H, map: &mut HashMap<H, H>) -> Result<H, CUresult> {
        let (nodes, edges, objects) = {
            let graph = self.graph(g)?;
            (graph.nodes.clone(), graph.edges.clone(), graph.objects.clone())
        };
        let copy = handle();
        self.graphs.insert(copy, Graph::default());
        for n in &nodes {
            let params = match self.node(*n)?.params.clone() {
                Params::Child(c) => Params::Child(self.clone_graph(c, &mut HashMap::new())?),
                // NVIDIA: graphs with conditional nodes cannot be cloned.
                Params::Conditional(..) => {
                    let mut drops = Vec::new();
                    let _ = self.destroy_graph(copy, &mut drops);
                    return Err(NOT_SUPPORTED);
                }
                p => p,
            };
            let h = handle();
            self.nodes.insert(h, Node { graph: copy, params });
            self.graph(copy)?.nodes.push(h);
            map.insert(*n, h);
        }
        for (o, c) in &objects {
            if let Some(obj) = self.objects.get_mut(o) {
                obj.refs += c;
            }
        }
        let graph = self.graph(copy)?;
        graph.edges = edges.iter().map(|(a, b, e)| (map[a], map[b], *e)).collect();
        graph.objects = objects;
        graph.cloned_from = map.clone();
        Ok(copy)
    }

    fn shape(&self, g: H) -> Result<Shape, CUresult> {
        let graph = self.graphs.get(&g).ok_or(INVALID_VALUE)?;
        let idx = |n: &H| graph.nodes.iter().position(|x| x == n).unwrap();
        let kinds = graph.nodes.iter().map(|n| self.nodes[n].params.kind()).collect();
        let mut edges: Vec<_> = graph.edges.iter().map(|(a, b, e)| (idx(a), idx(b), *e)).collect();
        edges.sort_by_key(|(a, b, _)| (*a, *b));
        Ok(Shape { kinds, edges })
    }

    /// The nodes of `g` in topological order (Kahn's algorithm, creation
    /// order among ready nodes); a cycle is an invalid structure.
    fn topo(&self, g: H) -> Result<Vec<H>, CUresult> {
        let graph = self.graphs.get(&g).ok_or(INVALID_VALUE)?;
        let mut indeg: HashMap<H, usize> = graph.nodes.iter().map(|n| (*n, 0)).collect();
        for (_, b, _) in &graph.edges {
            *indeg.get_mut(b).unwrap() += 1;
        }
        let mut order = Vec::with_capacity(graph.nodes.len());
        let mut done = vec![false; graph.nodes.len()];
        while order.len() < graph.nodes.len() {
            let Some(i) = (0..graph.nodes.len()).find(|i| !done[*i] && indeg[&graph.nodes[*i]] == 0) else {
                return Err(INVALID_VALUE);
            };
            done[i] = true;
            let n = graph.nodes[i];
            order.push(n);
            for (a, b, _) in &graph.edges {
                if *a == n {
                    *indeg.get_mut(b).unwrap() -= 1;
                }
            }
        }
        Ok(order)
    }

    fn instantiate_nodes(&self, g: H) -> Result<Vec<ExecNode>, CUresult> {
        let mut out = Vec::new();
        for n in self.topo(g)? {
            let params = self.nodes[&n].params.clone();
            let children = match &params {
                Params::Child(c) => vec![self.instantiate_nodes(*c)?],
                Params::Conditional(_, bodies) => bodies.iter().map(|b| self.instantiate_nodes(*b)).collect::<Result<_, _>>()?,
                _ => Vec::new(),
            };
            out.push(ExecNode { node: n, params, enabled: true, children });
        }
        Ok(out)
    }

    fn exec(&mut self, e: H) -> Result<&mut Exec, CUresult> {
        self.execs.get_mut(&e).ok_or(INVALID_VALUE)
    }

    /// The instantiated copy of source node `n`, which must have type `kind`.
    fn exec_node(&mut self, e: H, n: H, kind: c_int) -> Result<&mut ExecNode, CUresult> {
        let x = self.exec(e)?.nodes.iter_mut().find(|x| x.node == n).ok_or(INVALID_VALUE)?;
        if x.params.kind() != kind {
            return Err(INVALID_VALUE);
        }
        Ok(x)
    }
}

fn valid_edge(e: &EdgeData) -> Result<(), CUresult> {
    if e.to_port != 0 || e.kind > 1 || e.reserved != [0; 5] || e.from_port > 2 {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

fn run_drops(drops: Vec<(HostFn, *mut c_void)>) {
    for (f, p) in drops {
        if let Some(f) = f {
            unsafe { f(p) };
        }
    }
}

// ---------------------------------------------------------------------------
// Parameter checks and execution.
// ---------------------------------------------------------------------------

fn check_memcpy(m: &Memcpy3D) -> Result<(), CUresult> {
    let ok = |t: c_int| (1..=4).contains(&t);
    if !ok(m.src_type) || !ok(m.dst_type) {
        return Err(INVALID_VALUE);
    }
    if m.src_type == 3 || m.dst_type == 3 {
        return Err(NOT_SUPPORTED); // arrays: not in this fake
    }
    Ok(())
}

fn check_memset(m: &MemsetV1) -> Result<(), CUresult> {
    if ![1, 2, 4].contains(&m.element_size) || m.dst == 0 {
        return Err(INVALID_VALUE);
    }
    if m.height > 1 && m.pitch < m.width * m.element_size as usize {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

fn check_host(h: &HostParams) -> Result<(), CUresult> {
    if h.func.is_none() { Err(INVALID_VALUE) } else { Ok(()) }
}

fn check_kernel(k: &KernelParams) -> Result<(), CUresult> {
    if k.func.is_null() && k.kern.is_null() {
        return Err(INVALID_VALUE);
    }
    if k.grid.contains(&0) || k.block.contains(&0) {
        return Err(INVALID_VALUE);
    }
    // A context that is not one (junk in the field): INVALID_CONTEXT.
    if !k.ctx.is_null() && !crate::device::is_context(k.ctx) {
        return Err(INVALID_CONTEXT);
    }
    Ok(())
}

unsafe fn do_memcpy(m: &Memcpy3D) {
    let src = if m.src_type == 1 { m.src_host as usize } else { m.src_device as usize };
    let dst = if m.dst_type == 1 { m.dst_host as usize } else { m.dst_device as usize };
    let (sp, dp) = (m.src_pitch.max(m.width), m.dst_pitch.max(m.width));
    let (sh, dh) = (m.src_height.max(m.height), m.dst_height.max(m.height));
    for z in 0..m.depth {
        for y in 0..m.height {
            let s = src + (m.src_z + z) * sp * sh + (m.src_y + y) * sp + m.src_x;
            let d = dst + (m.dst_z + z) * dp * dh + (m.dst_y + y) * dp + m.dst_x;
            unsafe { std::ptr::copy(s as *const u8, d as *mut u8, m.width) };
        }
    }
}

unsafe fn do_memset(m: &MemsetV1) {
    let rows = m.height.max(1);
    let pitch = if rows > 1 { m.pitch } else { 0 };
    for r in 0..rows {
        let row = m.dst as usize + r * pitch;
        for i in 0..m.width {
            let p = row + i * m.element_size as usize;
            unsafe {
                match m.element_size {
                    1 => *(p as *mut u8) = m.value as u8,
                    2 => *(p as *mut u16) = m.value as u16,
                    _ => *(p as *mut u32) = m.value,
                }
            }
        }
    }
}

struct SendWork(Vec<ExecNode>, HashMap<u64, u32>);
// SAFETY: the pointers inside are the program's, used as the real driver
// would use them from its worker.
unsafe impl Send for SendWork {}

/// Execute instantiated nodes in order (on the stream's worker).
fn execute(nodes: &[ExecNode], conds: &HashMap<u64, u32>) {
    for x in nodes {
        if !x.enabled {
            continue;
        }
        match &x.params {
            Params::Kernel(k) => record_kernel(KernelLaunch {
                func: if k.func.is_null() { k.kern } else { k.func },
                grid: k.grid,
                block: k.block,
                shared: k.shared,
                params: k.kernel_params,
            }),
            Params::Memcpy(m) => unsafe { do_memcpy(m) },
            Params::Memset(m) => unsafe { do_memset(m) },
            Params::Host(h) => {
                if let Some(f) = h.func {
                    unsafe { f(h.user) }
                }
            }
            Params::Child(_) => execute(&x.children[0], conds),
            Params::Captured(_, w) => w.run(),
            Params::Conditional(c, _) => {
                let v = conds.get(&c.handle).copied().unwrap_or(0);
                let body = match c.kind {
                    0 if v != 0 => Some(0),
                    0 if c.size == 2 => Some(1),
                    1 if v != 0 => Some(0),
                    2 if (v as usize) < x.children.len() => Some(v as usize),
                    _ => None,
                };
                if let Some(b) = body {
                    execute(&x.children[b], conds);
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------
// Graphs built by stream capture (crate::capture).
// ---------------------------------------------------------------------------

/// A new, empty graph for a capture to fill (cuStreamBeginCapture).
pub fn capture_graph_new() -> H {
    let h = handle();
    STATE.lock().get_or_insert_with(State::default).graphs.insert(h, Graph::default());
    h
}

/// Destroy the graph of a failed capture: its handle and its nodes' handles
/// are unknown afterwards.
pub fn capture_graph_drop(g: H) {
    let mut drops = Vec::new();
    if let Some(s) = STATE.lock().as_mut() {
        let _ = s.destroy_graph(g, &mut drops);
    }
    run_drops(drops);
}

pub fn graph_exists(g: H) -> bool {
    STATE.lock().as_ref().is_some_and(|s| s.graphs.contains_key(&g))
}

pub fn graph_has_node(g: H, node: H) -> bool {
    STATE.lock().as_ref().is_some_and(|s| s.nodes.get(&node).is_some_and(|n| n.graph == g))
}

/// Edge data as capture keeps it (the `CUgraphEdgeData` bytes) is valid.
pub fn edge_bytes_valid(b: &[u8; 8]) -> bool {
    valid_edge(&edge_from_bytes(b)).is_ok()
}

fn edge_from_bytes(b: &[u8; 8]) -> EdgeData {
    EdgeData { from_port: b[0], to_port: b[1], kind: b[2], reserved: [b[3], b[4], b[5], b[6], b[7]] }
}

/// Add a captured operation of type `kind` to `g` after `deps` (with edge
/// data `edges`, parallel to `deps`): event nodes get their event, other
/// operations keep the work their module queued, run at each launch
/// ([`Captured::Repeat`]) or at the first one ([`Captured::Once`]).
pub fn add_captured(g: H, deps: &[H], edges: &[[u8; 8]], kind: c_int, event: H, what: Captured) -> Result<H, CUresult> {
    let params = match (kind, what) {
        (EVENT_RECORD, _) => Params::EventRecord(event as *mut c_void),
        (WAIT_EVENT, _) => Params::WaitEvent(event as *mut c_void),
        (_, Captured::Nothing) => Params::Empty,
        (k, Captured::Repeat(r)) => Params::Captured(k, CapturedWork::Repeat(r)),
        (k, Captured::Once(w)) => Params::Captured(k, CapturedWork::Once(Arc::new(Mutex::new(Some(w))))),
    };
    let data: Vec<EdgeData> = edges.iter().map(edge_from_bytes).collect();
    if data.len() != deps.len() {
        return Err(INVALID_VALUE);
    }
    with(|s| s.add(g, deps.as_ptr(), data.as_ptr(), deps.len(), params))
}

/// Make captured node `node` a host node calling `f(data)` (cuLaunchHostFunc
/// in capture), so it answers cuGraphHostNodeGetParams like one added with
/// cuGraphAddHostNode.
pub fn set_captured_host(node: H, f: unsafe extern "C" fn(*mut c_void), data: *mut c_void) {
    if let Some(n) = STATE.lock().as_mut().and_then(|s| s.nodes.get_mut(&node)) {
        n.params = Params::Host(HostParams { func: Some(f), user: data });
    }
}

/// `nodes` and every node of `g` they depend on, directly or not.
pub fn ancestors(g: H, nodes: &[H]) -> HashSet<H> {
    let st = STATE.lock();
    let mut seen = HashSet::new();
    let Some(graph) = st.as_ref().and_then(|s| s.graphs.get(&g)) else { return seen };
    let mut stack = nodes.to_vec();
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(graph.edges.iter().filter(|e| e.1 == n).map(|e| e.0));
        }
    }
    seen
}

// ---------------------------------------------------------------------------
// Entry points: graphs.
// ---------------------------------------------------------------------------

pub unsafe extern "C" fn cuGraphCreate(out: *mut H, flags: c_uint) -> CUresult {
    fake_enter!("cuGraphCreate");
    run(|s| {
        out!(out);
        if flags != 0 {
            return Err(INVALID_VALUE);
        }
        let h = handle();
        s.graphs.insert(h, Graph::default());
        unsafe { *out = h };
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphClone(out: *mut H, g: H) -> CUresult {
    fake_enter!("cuGraphClone");
    run(|s| {
        out!(out);
        let h = s.clone_graph(g, &mut HashMap::new())?;
        unsafe { *out = h };
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphDestroy(g: H) -> CUresult {
    fake_enter!("cuGraphDestroy");
    let mut drops = Vec::new();
    let r = run(|s| s.destroy_graph(g, &mut drops));
    run_drops(drops);
    r
}

pub unsafe extern "C" fn cuGraphDestroyNode(n: H) -> CUresult {
    fake_enter!("cuGraphDestroyNode");
    let mut drops = Vec::new();
    let r = run(|s| {
        let g = s.node(n)?.graph;
        s.drop_node(n, &mut drops);
        let graph = s.graph(g)?;
        graph.nodes.retain(|x| *x != n);
        graph.edges.retain(|(a, b, _)| *a != n && *b != n);
        Ok(())
    });
    run_drops(drops);
    r
}

// ---------------------------------------------------------------------------
// Nodes by type.
// ---------------------------------------------------------------------------

/// Add a node (common part of every cuGraphAdd*Node).
fn add_node(out: *mut H, g: H, deps: *const H, n: usize, params: Params) -> CUresult {
    run(|s| {
        out!(out);
        let h = s.add(g, deps, std::ptr::null(), n, params)?;
        unsafe { *out = h };
        Ok(())
    })
}

/// Read a node's parameters of type `kind` with `get`.
fn get_params<T>(n: H, o: *mut T, get: impl FnOnce(&Params) -> Option<T>) -> CUresult {
    run(|s| {
        out!(o);
        let v = get(&s.node(n)?.params).ok_or(INVALID_VALUE)?;
        unsafe { *o = v };
        Ok(())
    })
}

/// Replace a node's parameters (same type only).
fn set_params(n: H, p: Params) -> CUresult {
    run(|s| {
        let node = s.node_mut(n)?;
        if node.params.kind() != p.kind() {
            return Err(INVALID_VALUE);
        }
        node.params = p;
        Ok(())
    })
}

/// Replace an instantiated node's parameters.
fn exec_set(e: H, n: H, p: Params) -> CUresult {
    run(|s| {
        let x = s.exec_node(e, n, p.kind())?;
        x.params = p;
        Ok(())
    })
}

fn read<T: Copy>(p: *const T) -> Result<T, CUresult> {
    if p.is_null() { Err(INVALID_VALUE) } else { Ok(unsafe { *p }) }
}

fn kernel(p: *const KernelParams) -> Result<Params, CUresult> {
    let k = read(p)?;
    check_kernel(&k)?;
    Ok(Params::Kernel(k))
}

fn memcpy(p: *const Memcpy3D) -> Result<Params, CUresult> {
    let m = read(p)?;
    check_memcpy(&m)?;
    Ok(Params::Memcpy(m))
}

fn memset(p: *const MemsetV1) -> Result<Params, CUresult> {
    let m = read(p)?;
    check_memset(&m)?;
    Ok(Params::Memset(m))
}

fn host(p: *const HostParams) -> Result<Params, CUresult> {
    let h = read(p)?;
    check_host(&h)?;
    Ok(Params::Host(h))
}

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
}

pub unsafe extern "C" fn cuGraphAddKernelNode_v2(out: *mut H, g: H, deps: *const H, n: usize, p: *const KernelParams) -> CUresult {
    fake_enter!("cuGraphAddKernelNode");
    add_node(out, g, deps, n, tri!(kernel(p)))
}

pub unsafe extern "C" fn cuGraphKernelNodeGetParams_v2(node: H, p: *mut KernelParams) -> CUresult {
    fake_enter!("cuGraphKernelNodeGetParams");
    get_params(node, p, |x| if let Params::Kernel(k) = x { Some(*k) } else { None })
}

pub unsafe extern "C" fn cuGraphKernelNodeSetParams_v2(node: H, p: *const KernelParams) -> CUresult {
    fake_enter!("cuGraphKernelNodeSetParams");
    set_params(node, tri!(kernel(p)))
}

pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(e: H, node: H, p: *const KernelParams) -> CUresult {
    fake_enter!("cuGraphExecKernelNodeSetParams");
    exec_set(e, node, tri!(kernel(p)))
}

pub unsafe extern "C" fn cuGraphAddMemcpyNode(out: *mut H, g: H, deps: *const H, n: usize, p: *const Memcpy3D, _ctx: *mut c_void) -> CUresult {
    fake_enter!("cuGraphAddMemcpyNode");
    add_node(out, g, deps, n, tri!(memcpy(p)))
}

pub unsafe extern "C" fn cuGraphMemcpyNodeGetParams(node: H, p: *mut Memcpy3D) -> CUresult {
    fake_enter!("cuGraphMemcpyNodeGetParams");
    get_params(node, p, |x| if let Params::Memcpy(m) = x { Some(*m) } else { None })
}

pub unsafe extern "C" fn cuGraphMemcpyNodeSetParams(node: H, p: *const Memcpy3D) -> CUresult {
    fake_enter!("cuGraphMemcpyNodeSetParams");
    set_params(node, tri!(memcpy(p)))
}

pub unsafe extern "C" fn cuGraphExecMemcpyNodeSetParams(e: H, node: H, p: *const Memcpy3D, _ctx: *mut c_void) -> CUresult {
    fake_enter!("cuGraphExecMemcpyNodeSetParams");
    exec_set(e, node, tri!(memcpy(p)))
}

pub unsafe extern "C" fn cuGraphAddMemsetNode(out: *mut H, g: H, deps: *const H, n: usize, p: *const MemsetV1, _ctx: *mut c_void) -> CUresult {
    fake_enter!("cuGraphAddMemsetNode");
    add_node(out, g, deps, n, tri!(memset(p)))
}

pub unsafe extern "C" fn cuGraphMemsetNodeGetParams(node: H, p: *mut MemsetV1) -> CUresult {
    fake_enter!("cuGraphMemsetNodeGetParams");
    get_params(node, p, |x| if let Params::Memset(m) = x { Some(*m) } else { None })
}

pub unsafe extern "C" fn cuGraphMemsetNodeSetParams(node: H, p: *const MemsetV1) -> CUresult {
    fake_enter!("cuGraphMemsetNodeSetParams");
    set_params(node, tri!(memset(p)))
}

pub unsafe extern "C" fn cuGraphExecMemsetNodeSetParams(e: H, node: H, p: *const MemsetV1, _ctx: *mut c_void) -> CUresult {
    fake_enter!("cuGraphExecMemsetNodeSetParams");
    exec_set(e, node, tri!(memset(p)))
}

pub unsafe extern "C" fn cuGraphAddHostNode(out: *mut H, g: H, deps: *const H, n: usize, p: *const HostParams) -> CUresult {
    fake_enter!("cuGraphAddHostNode");
    add_node(out, g, deps, n, tri!(host(p)))
}

pub unsafe extern "C" fn cuGraphHostNodeGetParams(node: H, p: *mut HostParams) -> CUresult {
    fake_enter!("cuGraphHostNodeGetParams");
    get_params(node, p, |x| if let Params::Host(h) = x { Some(*h) } else { None })
}

pub unsafe extern "C" fn cuGraphHostNodeSetParams(node: H, p: *const HostParams) -> CUresult {
    fake_enter!("cuGraphHostNodeSetParams");
    set_params(node, tri!(host(p)))
}

pub unsafe extern "C" fn cuGraphExecHostNodeSetParams(e: H, node: H, p: *const HostParams) -> CUresult {
    fake_enter!("cuGraphExecHostNodeSetParams");
    exec_set(e, node, tri!(host(p)))
}

/// Embed a copy of `child` (ownership "clone", the default).
fn child_copy(s: &mut State, child: H) -> Result<Params, CUresult> {
    Ok(Params::Child(s.clone_graph(child, &mut HashMap::new())?))
}

pub unsafe extern "C" fn cuGraphAddChildGraphNode(out: *mut H, g: H, deps: *const H, n: usize, child: H) -> CUresult {
    fake_enter!("cuGraphAddChildGraphNode");
    run(|s| {
        out!(out);
        s.graph(g)?;
        let p = child_copy(s, child)?;
        let h = s.add(g, deps, std::ptr::null(), n, p)?;
        unsafe { *out = h };
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphChildGraphNodeGetGraph(node: H, out: *mut H) -> CUresult {
    fake_enter!("cuGraphChildGraphNodeGetGraph");
    get_params(node, out, |x| if let Params::Child(c) = x { Some(*c) } else { None })
}

/// Replace the body of an instantiated child graph node; the new child must
/// have the instantiated child's node count.
fn exec_child_set(s: &mut State, e: H, node: H, child: H) -> Result<(), CUresult> {
    let shape = s.shape(child)?;
    let old = match &s.node(node)?.params {
        Params::Child(c) => *c,
        _ => return Err(INVALID_VALUE),
    };
    if s.shape(old)?.kinds.len() != shape.kinds.len() {
        return Err(INVALID_VALUE);
    }
    let body = s.instantiate_nodes(child)?;
    let x = s.exec_node(e, node, GRAPH)?;
    x.children = vec![body];
    Ok(())
}

pub unsafe extern "C" fn cuGraphExecChildGraphNodeSetParams(e: H, node: H, child: H) -> CUresult {
    fake_enter!("cuGraphExecChildGraphNodeSetParams");
    run(|s| exec_child_set(s, e, node, child))
}

pub unsafe extern "C" fn cuGraphAddEmptyNode(out: *mut H, g: H, deps: *const H, n: usize) -> CUresult {
    fake_enter!("cuGraphAddEmptyNode");
    add_node(out, g, deps, n, Params::Empty)
}

fn event(e: *mut c_void, record: bool) -> Result<Params, CUresult> {
    if e.is_null() {
        return Err(INVALID_VALUE);
    }
    Ok(if record { Params::EventRecord(e) } else { Params::WaitEvent(e) })
}

pub unsafe extern "C" fn cuGraphAddEventRecordNode(out: *mut H, g: H, deps: *const H, n: usize, e: *mut c_void) -> CUresult {
    fake_enter!("cuGraphAddEventRecordNode");
    add_node(out, g, deps, n, tri!(event(e, true)))
}

pub unsafe extern "C" fn cuGraphEventRecordNodeGetEvent(node: H, out: *mut *mut c_void) -> CUresult {
    fake_enter!("cuGraphEventRecordNodeGetEvent");
    get_params(node, out, |x| if let Params::EventRecord(e) = x { Some(*e) } else { None })
}

pub unsafe extern "C" fn cuGraphEventRecordNodeSetEvent(node: H, e: *mut c_void) -> CUresult {
    fake_enter!("cuGraphEventRecordNodeSetEvent");
    set_params(node, tri!(event(e, true)))
}

pub unsafe extern "C" fn cuGraphExecEventRecordNodeSetEvent(x: H, node: H, e: *mut c_void) -> CUresult {
    fake_enter!("cuGraphExecEventRecordNodeSetEvent");
    exec_set(x, node, tri!(event(e, true)))
}

pub unsafe extern "C" fn cuGraphAddEventWaitNode(out: *mut H, g: H, deps: *const H, n: usize, e: *mut c_void) -> CUresult {
    fake_enter!("cuGraphAddEventWaitNode");
    add_node(out, g, deps, n, tri!(event(e, false)))
}

pub unsafe extern "C" fn cuGraphEventWaitNodeGetEvent(node: H, out: *mut *mut c_void) -> CUresult {
    fake_enter!("cuGraphEventWaitNodeGetEvent");
    get_params(node, out, |x| if let Params::WaitEvent(e) = x { Some(*e) } else { None })
}

pub unsafe extern "C" fn cuGraphEventWaitNodeSetEvent(node: H, e: *mut c_void) -> CUresult {
    fake_enter!("cuGraphEventWaitNodeSetEvent");
    set_params(node, tri!(event(e, false)))
}

pub unsafe extern "C" fn cuGraphExecEventWaitNodeSetEvent(x: H, node: H, e: *mut c_void) -> CUresult {
    fake_enter!("cuGraphExecEventWaitNodeSetEvent");
    exec_set(x, node, tri!(event(e, false)))
}

fn sems(p: *const ExtSemParams, signal: bool) -> Result<Params, CUresult> {
    let v = read(p)?;
    if v.n == 0 || v.sems.is_null() || v.params.is_null() {
        return Err(INVALID_VALUE);
    }
    Ok(if signal { Params::SemSignal(v) } else { Params::SemWait(v) })
}

pub unsafe extern "C" fn cuGraphAddExternalSemaphoresSignalNode(out: *mut H, g: H, deps: *const H, n: usize, p: *const ExtSemParams) -> CUresult {
    fake_enter!("cuGraphAddExternalSemaphoresSignalNode");
    add_node(out, g, deps, n, tri!(sems(p, true)))
}

pub unsafe extern "C" fn cuGraphExternalSemaphoresSignalNodeGetParams(node: H, p: *mut ExtSemParams) -> CUresult {
    fake_enter!("cuGraphExternalSemaphoresSignalNodeGetParams");
    get_params(node, p, |x| if let Params::SemSignal(v) = x { Some(*v) } else { None })
}

pub unsafe extern "C" fn cuGraphExternalSemaphoresSignalNodeSetParams(node: H, p: *const ExtSemParams) -> CUresult {
    fake_enter!("cuGraphExternalSemaphoresSignalNodeSetParams");
    set_params(node, tri!(sems(p, true)))
}

pub unsafe extern "C" fn cuGraphExecExternalSemaphoresSignalNodeSetParams(e: H, node: H, p: *const ExtSemParams) -> CUresult {
    fake_enter!("cuGraphExecExternalSemaphoresSignalNodeSetParams");
    exec_set(e, node, tri!(sems(p, true)))
}

pub unsafe extern "C" fn cuGraphAddExternalSemaphoresWaitNode(out: *mut H, g: H, deps: *const H, n: usize, p: *const ExtSemParams) -> CUresult {
    fake_enter!("cuGraphAddExternalSemaphoresWaitNode");
    add_node(out, g, deps, n, tri!(sems(p, false)))
}

pub unsafe extern "C" fn cuGraphExternalSemaphoresWaitNodeGetParams(node: H, p: *mut ExtSemParams) -> CUresult {
    fake_enter!("cuGraphExternalSemaphoresWaitNodeGetParams");
    get_params(node, p, |x| if let Params::SemWait(v) = x { Some(*v) } else { None })
}

pub unsafe extern "C" fn cuGraphExternalSemaphoresWaitNodeSetParams(node: H, p: *const ExtSemParams) -> CUresult {
    fake_enter!("cuGraphExternalSemaphoresWaitNodeSetParams");
    set_params(node, tri!(sems(p, false)))
}

pub unsafe extern "C" fn cuGraphExecExternalSemaphoresWaitNodeSetParams(e: H, node: H, p: *const ExtSemParams) -> CUresult {
    fake_enter!("cuGraphExecExternalSemaphoresWaitNodeSetParams");
    exec_set(e, node, tri!(sems(p, false)))
}

/// Allocate for a mem-alloc node: host memory that lives as long as the
/// process (the address is fixed at node creation, as NVIDIA's).
fn mem_alloc(s: &mut State, p: &mut MemAllocParams) -> Result<Params, CUresult> {
    if p.bytesize == 0 {
        return Err(INVALID_VALUE);
    }
    let mem = unsafe { libc::calloc(1, p.bytesize) };
    if mem.is_null() {
        return Err(2); // CUDA_ERROR_OUT_OF_MEMORY
    }
    p.dptr = mem as u64;
    s.graph_mem_used += p.bytesize as u64;
    s.graph_mem_high = s.graph_mem_high.max(s.graph_mem_used);
    Ok(Params::MemAlloc(*p))
}

pub unsafe extern "C" fn cuGraphAddMemAllocNode(out: *mut H, g: H, deps: *const H, n: usize, p: *mut MemAllocParams) -> CUresult {
    fake_enter!("cuGraphAddMemAllocNode");
    run(|s| {
        out!(out);
        out!(p);
        s.graph(g)?;
        let params = mem_alloc(s, unsafe { &mut *p })?;
        let h = s.add(g, deps, std::ptr::null(), n, params)?;
        unsafe { *out = h };
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphMemAllocNodeGetParams(node: H, p: *mut MemAllocParams) -> CUresult {
    fake_enter!("cuGraphMemAllocNodeGetParams");
    get_params(node, p, |x| if let Params::MemAlloc(a) = x { Some(*a) } else { None })
}

pub unsafe extern "C" fn cuGraphAddMemFreeNode(out: *mut H, g: H, deps: *const H, n: usize, dptr: u64) -> CUresult {
    fake_enter!("cuGraphAddMemFreeNode");
    if dptr == 0 {
        return INVALID_VALUE;
    }
    add_node(out, g, deps, n, Params::MemFree(dptr))
}

pub unsafe extern "C" fn cuGraphMemFreeNodeGetParams(node: H, out: *mut u64) -> CUresult {
    fake_enter!("cuGraphMemFreeNodeGetParams");
    get_params(node, out, |x| if let Params::MemFree(d) = x { Some(*d) } else { None })
}

pub unsafe extern "C" fn cuGraphConditionalHandleCreate(out: *mut u64, g: H, _ctx: *mut c_void, default: c_uint, flags: c_uint) -> CUresult {
    fake_enter!("cuGraphConditionalHandleCreate");
    run(|s| {
        out!(out);
        s.graph(g)?;
        if flags & !1 != 0 {
            return Err(INVALID_VALUE);
        }
        let h = handle() as u64;
        // Without cudaGraphCondAssignDefault the value starts at 0.
        s.conditionals.insert(h, if flags & 1 != 0 { default } else { 0 });
        unsafe { *out = h };
        Ok(())
    })
}

/// A conditional node: `size` empty body graphs, owned by the node; the
/// array handed back lives as long as the process.
fn conditional(s: &mut State, mut c: CondParams) -> Result<(Params, CondParams), CUresult> {
    let ok_size = match c.kind {
        0 => c.size == 1 || c.size == 2,
        1 => c.size == 1,
        2 => c.size > 0,
        _ => false,
    };
    if !ok_size || !s.conditionals.contains_key(&c.handle) {
        return Err(INVALID_VALUE);
    }
    let bodies: Vec<H> = (0..c.size)
        .map(|_| {
            let h = handle();
            s.graphs.insert(h, Graph::default());
            h
        })
        .collect();
    c.graphs_out = Box::leak(bodies.clone().into_boxed_slice()).as_mut_ptr();
    Ok((Params::Conditional(c, bodies), c))
}

/// Generic parameters to a typed node (cuGraphAddNode and the SetParams
/// calls); `s` is needed for nodes that own graphs or memory.
fn from_generic(s: &mut State, p: &mut NodeParams, adding: bool) -> Result<Params, CUresult> {
    if p.reserved0 != [0; 3] || p.reserved2 != 0 {
        return Err(INVALID_VALUE);
    }
    let u = p.u.as_mut_ptr().cast::<u8>();
    unsafe {
        Ok(match p.kind {
            KERNEL => kernel(u.cast())?,
            MEMCPY => {
                let m = *u.cast::<MemcpyNodeParams>();
                if m.flags != 0 || m.reserved != 0 {
                    return Err(INVALID_VALUE);
                }
                memcpy(&m.copy)?
            }
            MEMSET => memset(u.cast())?,
            HOST => host(u.cast())?,
            GRAPH => {
                let c = *u.cast::<ChildParams>();
                if c.ownership != 0 {
                    return Err(NOT_SUPPORTED);
                }
                if adding { child_copy(s, c.graph)? } else { Params::Child(c.graph) }
            }
            EMPTY => Params::Empty,
            WAIT_EVENT => event(*u.cast(), false)?,
            EVENT_RECORD => event(*u.cast(), true)?,
            SEM_SIGNAL => sems(u.cast(), true)?,
            SEM_WAIT => sems(u.cast(), false)?,
            MEM_ALLOC if adding => mem_alloc(s, &mut *u.cast())?,
            MEM_FREE if adding => Params::MemFree(*u.cast()),
            CONDITIONAL if adding => {
                let (params, c) = conditional(s, *u.cast())?;
                *u.cast::<CondParams>() = c;
                params
            }
            // Alloc, free and conditional nodes cannot be changed.
            MEM_ALLOC | MEM_FREE | CONDITIONAL => return Err(INVALID_VALUE),
            _ => return Err(INVALID_VALUE),
        })
    }
}

pub unsafe extern "C" fn cuGraphAddNode_v2(out: *mut H, g: H, deps: *const H, data: *const EdgeData, n: usize, p: *mut NodeParams) -> CUresult {
    fake_enter!("cuGraphAddNode");
    run(|s| {
        out!(out);
        out!(p);
        s.graph(g)?;
        let params = from_generic(s, unsafe { &mut *p }, true)?;
        let h = s.add(g, deps, data, n, params)?;
        unsafe { *out = h };
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphNodeSetParams(node: H, p: *mut NodeParams) -> CUresult {
    fake_enter!("cuGraphNodeSetParams");
    if p.is_null() {
        return INVALID_VALUE;
    }
    let params = tri!(with(|s| from_generic(s, unsafe { &mut *p }, false)));
    if let Params::Child(c) = params {
        // Changing a child graph node through the generic call: copy it in.
        return run(|s| {
            let copy = child_copy(s, c)?;
            let node = s.node_mut(node)?;
            if node.params.kind() != GRAPH {
                return Err(INVALID_VALUE);
            }
            node.params = copy;
            Ok(())
        });
    }
    set_params(node, params)
}

pub unsafe extern "C" fn cuGraphExecNodeSetParams(e: H, node: H, p: *mut NodeParams) -> CUresult {
    fake_enter!("cuGraphExecNodeSetParams");
    if p.is_null() {
        return INVALID_VALUE;
    }
    let params = tri!(with(|s| from_generic(s, unsafe { &mut *p }, false)));
    if let Params::Child(c) = params {
        return run(|s| exec_child_set(s, e, node, c));
    }
    exec_set(e, node, params)
}

// ---------------------------------------------------------------------------
// Edges and queries.
// ---------------------------------------------------------------------------

fn edge_list(from: *const H, to: *const H, data: *const EdgeData, n: usize) -> Result<Vec<(H, H, EdgeData)>, CUresult> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if from.is_null() || to.is_null() {
        return Err(INVALID_VALUE);
    }
    // Read entry by entry and stop at the first bad one: a count larger
    // than the caller's arrays must fail on a NULL node, not run away.
    (0..n)
        .map(|i| {
            let (a, b) = unsafe { (*from.add(i), *to.add(i)) };
            if a == 0 || b == 0 {
                return Err(INVALID_VALUE);
            }
            let d = if data.is_null() { EdgeData::default() } else { unsafe { *data.add(i) } };
            valid_edge(&d)?;
            Ok((a, b, d))
        })
        .collect()
}

pub unsafe extern "C" fn cuGraphAddDependencies_v2(g: H, from: *const H, to: *const H, data: *const EdgeData, n: usize) -> CUresult {
    fake_enter!("cuGraphAddDependencies");
    run(|s| {
        s.graph(g)?;
        let edges = edge_list(from, to, data, n)?;
        for (i, (a, b, _)) in edges.iter().enumerate() {
            if a == b || s.node(*a)?.graph != g || s.node(*b)?.graph != g {
                return Err(INVALID_VALUE);
            }
            let dup = |x: &(H, H, EdgeData)| x.0 == *a && x.1 == *b;
            if s.graphs[&g].edges.iter().any(dup) || edges[..i].iter().any(dup) {
                return Err(INVALID_VALUE);
            }
        }
        s.graph(g)?.edges.extend(edges);
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphRemoveDependencies_v2(g: H, from: *const H, to: *const H, data: *const EdgeData, n: usize) -> CUresult {
    fake_enter!("cuGraphRemoveDependencies");
    run(|s| {
        s.graph(g)?;
        let edges = edge_list(from, to, data, n)?;
        let graph = s.graph(g)?;
        if !edges.iter().all(|e| graph.edges.contains(e)) {
            return Err(INVALID_VALUE);
        }
        graph.edges.retain(|e| !edges.contains(e));
        Ok(())
    })
}

/// Write a list of (node, node, data) answers the driver's way: with NULL
/// arrays only the count; otherwise up to `*n` entries, NULL-filling the
/// rest and storing the number written. Edge data left out (NULL) while
/// some returned edge has non-default data is a lossy query.
fn answer(items: &[(H, H, EdgeData)], a: *mut H, b: *mut H, data: *mut EdgeData, n: *mut usize) -> Result<(), CUresult> {
    out!(n);
    let cap = unsafe { *n };
    if a.is_null() && b.is_null() {
        unsafe { *n = items.len() };
        return Ok(());
    }
    let k = cap.min(items.len());
    for i in 0..cap {
        let it = items.get(i);
        unsafe {
            if !a.is_null() {
                *a.add(i) = it.map_or(0, |x| x.0);
            }
            if !b.is_null() {
                *b.add(i) = it.map_or(0, |x| x.1);
            }
            if !data.is_null() {
                *data.add(i) = it.map_or(EdgeData::default(), |x| x.2);
            }
        }
    }
    unsafe { *n = k };
    if data.is_null() && items[..k].iter().any(|x| x.2 != EdgeData::default()) {
        return Err(LOSSY_QUERY);
    }
    Ok(())
}

pub unsafe extern "C" fn cuGraphGetEdges_v2(g: H, from: *mut H, to: *mut H, data: *mut EdgeData, n: *mut usize) -> CUresult {
    fake_enter!("cuGraphGetEdges");
    run(|s| {
        let edges = s.graph(g)?.edges.clone();
        if from.is_null() != to.is_null() {
            return Err(INVALID_VALUE);
        }
        answer(&edges, from, to, data, n)
    })
}

fn neighbours(s: &mut State, node: H, deps: bool) -> Result<Vec<(H, H, EdgeData)>, CUresult> {
    let g = s.node(node)?.graph;
    Ok(s.graph(g)?
        .edges
        .iter()
        .filter(|(a, b, _)| if deps { *b == node } else { *a == node })
        .map(|(a, b, e)| if deps { (*a, 0, *e) } else { (*b, 0, *e) })
        .collect())
}

pub unsafe extern "C" fn cuGraphNodeGetDependencies_v2(node: H, deps: *mut H, data: *mut EdgeData, n: *mut usize) -> CUresult {
    fake_enter!("cuGraphNodeGetDependencies");
    run(|s| {
        let items = neighbours(s, node, true)?;
        answer(&items, deps, std::ptr::null_mut(), data, n)
    })
}

pub unsafe extern "C" fn cuGraphNodeGetDependentNodes_v2(node: H, deps: *mut H, data: *mut EdgeData, n: *mut usize) -> CUresult {
    fake_enter!("cuGraphNodeGetDependentNodes");
    run(|s| {
        let items = neighbours(s, node, false)?;
        answer(&items, deps, std::ptr::null_mut(), data, n)
    })
}

fn node_list(nodes: &[H], out: *mut H, n: *mut usize) -> Result<(), CUresult> {
    let items: Vec<_> = nodes.iter().map(|x| (*x, 0, EdgeData::default())).collect();
    answer(&items, out, std::ptr::null_mut(), std::ptr::null_mut(), n)
}

pub unsafe extern "C" fn cuGraphGetNodes(g: H, nodes: *mut H, n: *mut usize) -> CUresult {
    fake_enter!("cuGraphGetNodes");
    run(|s| {
        let all = s.graph(g)?.nodes.clone();
        node_list(&all, nodes, n)
    })
}

pub unsafe extern "C" fn cuGraphGetRootNodes(g: H, nodes: *mut H, n: *mut usize) -> CUresult {
    fake_enter!("cuGraphGetRootNodes");
    run(|s| {
        let graph = s.graph(g)?;
        let roots: Vec<H> = graph.nodes.iter().copied().filter(|x| !graph.edges.iter().any(|e| e.1 == *x)).collect();
        node_list(&roots, nodes, n)
    })
}

pub unsafe extern "C" fn cuGraphNodeGetType(node: H, t: *mut c_int) -> CUresult {
    fake_enter!("cuGraphNodeGetType");
    get_params(node, t, |x| Some(x.kind()))
}

pub unsafe extern "C" fn cuGraphNodeFindInClone(out: *mut H, original: H, cloned: H) -> CUresult {
    fake_enter!("cuGraphNodeFindInClone");
    run(|s| {
        out!(out);
        let h = *s.graph(cloned)?.cloned_from.get(&original).ok_or(INVALID_VALUE)?;
        unsafe { *out = h };
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Executable graphs.
// ---------------------------------------------------------------------------

const AUTO_FREE: u64 = 1;
const UPLOAD: u64 = 2;
const DEVICE_LAUNCH: u64 = 4;
const USE_NODE_PRIORITY: u64 = 8;

/// Instantiate `g`; Err carries the code and the instantiate result.
fn instantiate(s: &mut State, g: H, flags: u64, allowed: u64) -> Result<H, (CUresult, c_int)> {
    if flags & !allowed != 0 || (flags & AUTO_FREE != 0 && flags & DEVICE_LAUNCH != 0) {
        return Err((INVALID_VALUE, 1));
    }
    s.graph(g).map_err(|e| (e, 1))?;
    let nodes = s.instantiate_nodes(g).map_err(|e| (e, 2))?;
    let shape = s.shape(g).map_err(|e| (e, 1))?;
    let objects = s.graphs[&g].objects.clone();
    for (o, c) in &objects {
        if let Some(obj) = s.objects.get_mut(o) {
            obj.refs += c;
        }
    }
    let h = handle();
    s.execs.insert(h, Exec { graph: g, flags, nodes, shape, objects });
    Ok(h)
}

pub unsafe extern "C" fn cuGraphInstantiateWithFlags(out: *mut H, g: H, flags: u64) -> CUresult {
    fake_enter!("cuGraphInstantiateWithFlags");
    run(|s| {
        out!(out);
        let h = instantiate(s, g, flags, AUTO_FREE | DEVICE_LAUNCH | USE_NODE_PRIORITY).map_err(|e| e.0)?;
        unsafe { *out = h };
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphInstantiateWithParams(out: *mut H, g: H, p: *mut InstantiateParams) -> CUresult {
    fake_enter!("cuGraphInstantiateWithParams");
    run(|s| {
        out!(out);
        out!(p);
        let p = unsafe { &mut *p };
        p.err_node = 0;
        match instantiate(s, g, p.flags, AUTO_FREE | UPLOAD | DEVICE_LAUNCH | USE_NODE_PRIORITY) {
            Ok(h) => {
                p.result = 0;
                unsafe { *out = h };
                Ok(())
            }
            Err((code, result)) => {
                p.result = result;
                Err(code)
            }
        }
    })
}

pub unsafe extern "C" fn cuGraphExecDestroy(e: H) -> CUresult {
    fake_enter!("cuGraphExecDestroy");
    let mut drops = Vec::new();
    let r = run(|s| {
        let x = s.execs.remove(&e).ok_or(INVALID_VALUE)?;
        for (o, c) in x.objects {
            s.release_object(o, c, &mut drops);
        }
        Ok(())
    });
    run_drops(drops);
    r
}

pub unsafe extern "C" fn cuGraphExecGetFlags(e: H, flags: *mut u64) -> CUresult {
    fake_enter!("cuGraphExecGetFlags");
    run(|s| {
        out!(flags);
        let f = s.exec(e)?.flags;
        unsafe { *flags = f };
        Ok(())
    })
}

/// `cuGraphExecUpdate`: the new graph must have the instantiated topology
/// (same node count, edges between the same node positions) and the same
/// node types in creation order; then every node's parameters are copied
/// into the executable graph.
pub unsafe extern "C" fn cuGraphExecUpdate_v2(e: H, g: H, info: *mut UpdateResultInfo) -> CUresult {
    fake_enter!("cuGraphExecUpdate");
    run(|s| {
        out!(info);
        let info = unsafe { &mut *info };
        info.error_node = 0;
        info.error_from_node = 0;
        let shape = s.shape(g)?;
        let new_nodes = s.graphs[&g].nodes.clone();
        let old = s.exec(e)?.shape.clone();
        let fail = |info: &mut UpdateResultInfo, result, node| {
            info.result = result;
            info.error_node = node;
            Err(GRAPH_EXEC_UPDATE_FAILURE)
        };
        if old.kinds.len() != shape.kinds.len() || old.edges != shape.edges {
            return fail(info, 2, 0);
        }
        if let Some(i) = (0..old.kinds.len()).find(|i| old.kinds[*i] != shape.kinds[*i]) {
            return fail(info, 3, new_nodes[i]);
        }
        // Per-position parameters from the new graph.
        let src = s.exec(e)?.graph;
        let src_nodes = s.graphs.get(&src).map(|x| x.nodes.clone()).unwrap_or_default();
        let fresh = s.instantiate_nodes(g)?;
        let exec = s.exec(e)?;
        for x in exec.nodes.iter_mut() {
            let Some(pos) = src_nodes.iter().position(|n| *n == x.node) else { continue };
            if let Some(f) = fresh.iter().find(|f| f.node == new_nodes[pos]) {
                x.params = f.params.clone();
                x.children = f.children.clone();
            }
        }
        info.result = 0;
        Ok(())
    })
}

/// Only kernel, memcpy and memset nodes can be disabled.
fn toggle_ok(x: &ExecNode) -> Result<(), CUresult> {
    if [KERNEL, MEMCPY, MEMSET].contains(&x.params.kind()) { Ok(()) } else { Err(INVALID_VALUE) }
}

pub unsafe extern "C" fn cuGraphNodeSetEnabled(e: H, node: H, enabled: c_uint) -> CUresult {
    fake_enter!("cuGraphNodeSetEnabled");
    run(|s| {
        let x = s.exec(e)?.nodes.iter_mut().find(|x| x.node == node).ok_or(INVALID_VALUE)?;
        toggle_ok(x)?;
        x.enabled = enabled != 0;
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphNodeGetEnabled(e: H, node: H, enabled: *mut c_uint) -> CUresult {
    fake_enter!("cuGraphNodeGetEnabled");
    run(|s| {
        out!(enabled);
        let x = s.exec(e)?.nodes.iter().find(|x| x.node == node).ok_or(INVALID_VALUE)?;
        toggle_ok(x)?;
        unsafe { *enabled = x.enabled as c_uint };
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphUpload(e: H, _stream: *mut c_void) -> CUresult {
    fake_enter!("cuGraphUpload");
    run(|s| s.exec(e).map(|_| ()))
}

pub unsafe extern "C" fn cuGraphLaunch(e: H, stream: *mut c_void) -> CUresult {
    fake_enter!("cuGraphLaunch");
    // Snapshot under the lock; run without it (host nodes may call us).
    let work = tri!(with(|s| {
        let nodes = s.exec(e)?.nodes.clone();
        Ok(SendWork(nodes, s.conditionals.clone()))
    }));
    for i in 0..work.0.len() {
        let one = SendWork(vec![work.0[i].clone()], work.1.clone());
        crate::stream::enqueue(stream, Box::new(move || {
            let w = one;
            execute(&w.0, &w.1)
        }));
    }
    SUCCESS
}

// ---------------------------------------------------------------------------
// Dot print, user objects, graph memory, kernel node attributes.
// ---------------------------------------------------------------------------

pub unsafe extern "C" fn cuGraphDebugDotPrint(g: H, path: *const c_char, _flags: c_uint) -> CUresult {
    fake_enter!("cuGraphDebugDotPrint");
    run(|s| {
        if path.is_null() {
            return Err(INVALID_VALUE);
        }
        let path = unsafe { CStr::from_ptr(path) }.to_string_lossy().into_owned();
        let graph = s.graphs.get(&g).ok_or(INVALID_VALUE)?;
        let mut dot = String::from("digraph dot {\n");
        for n in &graph.nodes {
            dot += &format!("  \"n{n:x}\" [label=\"type {}\"];\n", s.nodes[n].params.kind());
        }
        for (a, b, _) in &graph.edges {
            dot += &format!("  \"n{a:x}\" -> \"n{b:x}\";\n");
        }
        dot += "}\n";
        std::fs::write(path, dot).map_err(|_| OPERATING_SYSTEM)
    })
}

pub unsafe extern "C" fn cuUserObjectCreate(out: *mut H, ptr: *mut c_void, destroy: HostFn, initial: c_uint, flags: c_uint) -> CUresult {
    fake_enter!("cuUserObjectCreate");
    run(|s| {
        out!(out);
        // The only flag, and a required one: CU_USER_OBJECT_NO_DESTRUCTOR_SYNC.
        if destroy.is_none() || initial == 0 || flags != 1 {
            return Err(INVALID_VALUE);
        }
        let h = handle();
        s.objects.insert(h, UserObject { ptr, destroy, refs: initial });
        unsafe { *out = h };
        Ok(())
    })
}

pub unsafe extern "C" fn cuUserObjectRetain(o: H, count: c_uint) -> CUresult {
    fake_enter!("cuUserObjectRetain");
    run(|s| {
        if count == 0 {
            return Err(INVALID_VALUE);
        }
        s.objects.get_mut(&o).ok_or(INVALID_VALUE)?.refs += count;
        Ok(())
    })
}

pub unsafe extern "C" fn cuUserObjectRelease(o: H, count: c_uint) -> CUresult {
    fake_enter!("cuUserObjectRelease");
    let mut drops = Vec::new();
    let r = run(|s| {
        if count == 0 || !s.objects.contains_key(&o) {
            return Err(INVALID_VALUE);
        }
        s.release_object(o, count, &mut drops);
        Ok(())
    });
    run_drops(drops);
    r
}

pub unsafe extern "C" fn cuGraphRetainUserObject(g: H, o: H, count: c_uint, flags: c_uint) -> CUresult {
    fake_enter!("cuGraphRetainUserObject");
    run(|s| {
        if count == 0 || flags & !1 != 0 {
            return Err(INVALID_VALUE);
        }
        s.graph(g)?;
        let obj = s.objects.get_mut(&o).ok_or(INVALID_VALUE)?;
        // CU_GRAPH_USER_OBJECT_MOVE: the caller's references move to the graph.
        if flags & 1 == 0 {
            obj.refs += count;
        }
        *s.graph(g)?.objects.entry(o).or_insert(0) += count;
        Ok(())
    })
}

pub unsafe extern "C" fn cuGraphReleaseUserObject(g: H, o: H, count: c_uint) -> CUresult {
    fake_enter!("cuGraphReleaseUserObject");
    let mut drops = Vec::new();
    let r = run(|s| {
        if count == 0 {
            return Err(INVALID_VALUE);
        }
        let held = s.graph(g)?.objects.get_mut(&o).ok_or(INVALID_VALUE)?;
        if *held < count {
            return Err(INVALID_VALUE);
        }
        *held -= count;
        if *held == 0 {
            s.graph(g)?.objects.remove(&o);
        }
        s.release_object(o, count, &mut drops);
        Ok(())
    });
    run_drops(drops);
    r
}

fn valid_device(dev: c_int) -> Result<(), CUresult> {
    if dev >= 0 && dev < crate::knobs::get().devices { Ok(()) } else { Err(INVALID_DEVICE) }
}

pub unsafe extern "C" fn cuDeviceGetGraphMemAttribute(dev: c_int, attr: c_int, value: *mut u64) -> CUresult {
    fake_enter!("cuDeviceGetGraphMemAttribute");
    run(|s| {
        valid_device(dev)?;
        out!(value);
        let v = match attr {
            0 | 2 => s.graph_mem_used,
            1 | 3 => s.graph_mem_high,
            _ => return Err(INVALID_VALUE),
        };
        unsafe { *value = v };
        Ok(())
    })
}

pub unsafe extern "C" fn cuDeviceSetGraphMemAttribute(dev: c_int, attr: c_int, value: *mut u64) -> CUresult {
    fake_enter!("cuDeviceSetGraphMemAttribute");
    run(|s| {
        valid_device(dev)?;
        out!(value);
        // Only the high watermarks can be set, and only to zero.
        if !(attr == 1 || attr == 3) || unsafe { *value } != 0 {
            return Err(INVALID_VALUE);
        }
        s.graph_mem_high = s.graph_mem_used;
        Ok(())
    })
}

pub unsafe extern "C" fn cuDeviceGraphMemTrim(dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGraphMemTrim");
    run(|_| valid_device(dev))
}

/// Kernel node attributes: kept per node as raw 64-byte values.
type AttrMap = HashMap<(H, c_int), [u8; 64]>;
static ATTRS: Mutex<Option<AttrMap>> = Mutex::new(None);

fn kernel_node(node: H) -> Result<(), CUresult> {
    with(|s| if s.node(node)?.params.kind() == KERNEL { Ok(()) } else { Err(INVALID_VALUE) })
}

pub unsafe extern "C" fn cuGraphKernelNodeGetAttribute(node: H, attr: c_int, value: *mut [u8; 64]) -> CUresult {
    fake_enter!("cuGraphKernelNodeGetAttribute");
    tri!(kernel_node(node));
    if value.is_null() || !(1..=14).contains(&attr) {
        return INVALID_VALUE;
    }
    let v = ATTRS.lock().get_or_insert_with(HashMap::new).get(&(node, attr)).copied().unwrap_or([0; 64]);
    unsafe { *value = v };
    SUCCESS
}

pub unsafe extern "C" fn cuGraphKernelNodeSetAttribute(node: H, attr: c_int, value: *const [u8; 64]) -> CUresult {
    fake_enter!("cuGraphKernelNodeSetAttribute");
    tri!(kernel_node(node));
    if value.is_null() || !(1..=14).contains(&attr) {
        return INVALID_VALUE;
    }
    ATTRS.lock().get_or_insert_with(HashMap::new).insert((node, attr), unsafe { *value });
    SUCCESS
}

pub unsafe extern "C" fn cuGraphKernelNodeCopyAttributes(dst: H, src: H) -> CUresult {
    fake_enter!("cuGraphKernelNodeCopyAttributes");
    tri!(kernel_node(dst));
    tri!(kernel_node(src));
    let mut g = ATTRS.lock();
    let m = g.get_or_insert_with(HashMap::new);
    let copied: Vec<_> = m.iter().filter(|((n, _), _)| *n == src).map(|((_, a), v)| (*a, *v)).collect();
    m.retain(|(n, _), _| *n != dst);
    for (a, v) in copied {
        m.insert((dst, a), v);
    }
    SUCCESS
}

/// Entry points this module provides, by the name cuGetProcAddress is asked.
pub static SYMBOLS: crate::Symbols = &[
    sym!(cuGraphCreate),
    sym!(cuGraphClone),
    sym!(cuGraphDestroy),
    sym!(cuGraphDestroyNode),
    sym!("cuGraphAddKernelNode" => cuGraphAddKernelNode_v2),
    sym!("cuGraphKernelNodeGetParams" => cuGraphKernelNodeGetParams_v2),
    sym!("cuGraphKernelNodeSetParams" => cuGraphKernelNodeSetParams_v2),
    sym!("cuGraphExecKernelNodeSetParams" => cuGraphExecKernelNodeSetParams_v2),
    sym!(cuGraphAddMemcpyNode),
    sym!(cuGraphMemcpyNodeGetParams),
    sym!(cuGraphMemcpyNodeSetParams),
    sym!(cuGraphExecMemcpyNodeSetParams),
    sym!(cuGraphAddMemsetNode),
    sym!(cuGraphMemsetNodeGetParams),
    sym!(cuGraphMemsetNodeSetParams),
    sym!(cuGraphExecMemsetNodeSetParams),
    sym!(cuGraphAddHostNode),
    sym!(cuGraphHostNodeGetParams),
    sym!(cuGraphHostNodeSetParams),
    sym!(cuGraphExecHostNodeSetParams),
    sym!(cuGraphAddChildGraphNode),
    sym!(cuGraphChildGraphNodeGetGraph),
    sym!(cuGraphExecChildGraphNodeSetParams),
    sym!(cuGraphAddEmptyNode),
    sym!(cuGraphAddEventRecordNode),
    sym!(cuGraphEventRecordNodeGetEvent),
    sym!(cuGraphEventRecordNodeSetEvent),
    sym!(cuGraphExecEventRecordNodeSetEvent),
    sym!(cuGraphAddEventWaitNode),
    sym!(cuGraphEventWaitNodeGetEvent),
    sym!(cuGraphEventWaitNodeSetEvent),
    sym!(cuGraphExecEventWaitNodeSetEvent),
    sym!(cuGraphAddExternalSemaphoresSignalNode),
    sym!(cuGraphExternalSemaphoresSignalNodeGetParams),
    sym!(cuGraphExternalSemaphoresSignalNodeSetParams),
    sym!(cuGraphExecExternalSemaphoresSignalNodeSetParams),
    sym!(cuGraphAddExternalSemaphoresWaitNode),
    sym!(cuGraphExternalSemaphoresWaitNodeGetParams),
    sym!(cuGraphExternalSemaphoresWaitNodeSetParams),
    sym!(cuGraphExecExternalSemaphoresWaitNodeSetParams),
    sym!(cuGraphAddMemAllocNode),
    sym!(cuGraphMemAllocNodeGetParams),
    sym!(cuGraphAddMemFreeNode),
    sym!(cuGraphMemFreeNodeGetParams),
    sym!(cuGraphConditionalHandleCreate),
    sym!("cuGraphAddNode" => cuGraphAddNode_v2),
    sym!(cuGraphNodeSetParams),
    sym!(cuGraphExecNodeSetParams),
    sym!("cuGraphAddDependencies" => cuGraphAddDependencies_v2),
    sym!("cuGraphRemoveDependencies" => cuGraphRemoveDependencies_v2),
    sym!("cuGraphGetEdges" => cuGraphGetEdges_v2),
    sym!("cuGraphNodeGetDependencies" => cuGraphNodeGetDependencies_v2),
    sym!("cuGraphNodeGetDependentNodes" => cuGraphNodeGetDependentNodes_v2),
    sym!(cuGraphGetNodes),
    sym!(cuGraphGetRootNodes),
    sym!(cuGraphNodeGetType),
    sym!(cuGraphNodeFindInClone),
    sym!(cuGraphInstantiateWithFlags),
    sym!(cuGraphInstantiateWithParams),
    sym!(cuGraphExecDestroy),
    sym!(cuGraphExecGetFlags),
    sym!("cuGraphExecUpdate" => cuGraphExecUpdate_v2),
    sym!(cuGraphNodeSetEnabled),
    sym!(cuGraphNodeGetEnabled),
    sym!(cuGraphUpload),
    sym!(cuGraphLaunch),
    sym!(cuGraphDebugDotPrint),
    sym!(cuUserObjectCreate),
    sym!(cuUserObjectRetain),
    sym!(cuUserObjectRelease),
    sym!(cuGraphRetainUserObject),
    sym!(cuGraphReleaseUserObject),
    sym!(cuDeviceGetGraphMemAttribute),
    sym!(cuDeviceSetGraphMemAttribute),
    sym!(cuDeviceGraphMemTrim),
    sym!(cuGraphKernelNodeGetAttribute),
    sym!(cuGraphKernelNodeSetAttribute),
    sym!(cuGraphKernelNodeCopyAttributes),
];
