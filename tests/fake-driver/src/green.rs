//! Fake driver: CUDA 13.x entry points behind the runtime's 13.5 exports:
//! device resources and SM splits, green contexts, context ids and events,
//! push/pop, `cuStreamGetCtx` (12.5 signature), and the 13.1+ calls the
//! shim resolves by version (`cuLaunchHostFunc_v2`, copies with attributes).
//!
//! [`SINCE`] says which CUDA version introduced each: `cuGetProcAddress`
//! does not know a name newer than `FAKE_CUDA_DRIVER_VERSION` (as driver 580
//! does not know 13.1's), so tests pick the driver they mean. Devices have
//! H100-like SM resources: the `MULTIPROCESSOR_COUNT` attribute SMs (132 by
//! default), partitions of at least 8, co-scheduled in groups of 8.

use crate::device::Ctx;
use crate::stream::tri;
use crate::*;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

const INVALID_HANDLE: CUresult = 400;
const INVALID_RESOURCE_TYPE: CUresult = 914;
const INVALID_RESOURCE_CONFIGURATION: CUresult = 915;
const SM: c_int = 1;
const MIN_PARTITION: c_uint = 8;
const ALIGNMENT: c_uint = 8;

/// The CUDA version that introduced each entry point here that 13.0 lacks.
pub static SINCE: &[(&str, c_int)] = &[
    ("cuDevSmResourceSplit", 13010),
    ("cuStreamGetDevResource", 13010),
    ("cuGraphGetId", 13010),
    ("cuGraphExecGetId", 13010),
    ("cuGraphNodeGetContainingGraph", 13010),
    ("cuGraphNodeGetLocalId", 13010),
    ("cuGraphNodeGetToolsId", 13010),
    ("cuFuncGetParamCount", 13020),
    ("cuKernelGetParamCount", 13020),
    ("cuGraphNodeGetParams", 13020),
    ("cuMemcpyWithAttributesAsync", 13020),
    ("cuMemcpy3DWithAttributesAsync", 13020),
    ("cuStreamBeginRecaptureToGraph", 13030),
    ("cuMemGetLocationInfo", 13040),
    ("cuLaunchHostFunc_v2", 13050),
    ("cuSubgridCreate", 13050),
    ("cuSubgridWorkerGridCreate", 13050),
    ("cuSubgridWorksetCreate", 13050),
];

/// `CUdevResource` (144 bytes): the type, 92 bytes of padding, the SM
/// resource (first 20 of 40 bytes), the next pointer.
#[repr(C)]
pub struct Resource {
    kind: c_int,
    _pad: [u8; 92],
    sm_count: c_uint,
    min_partition: c_uint,
    alignment: c_uint,
    flags: c_uint,
    locality: c_uint,
    _rest: [u8; 20],
    next: *mut Resource,
}

fn fill(r: &mut Resource, sm: c_uint, full: bool) {
    r.kind = SM;
    r.sm_count = sm;
    // Split results carry only the count (as driver 580's do).
    (r.min_partition, r.alignment) = if full { (MIN_PARTITION, ALIGNMENT) } else { (0, 0) };
    r.flags = 0;
}

fn device_sms(dev: c_int) -> c_uint {
    crate::device::attribute(16, dev).unwrap_or(132) as c_uint
}

/// A resource descriptor: the SMs it grants.
struct Desc {
    sms: c_uint,
}

/// A green context: its driver context and SMs.
struct Green {
    ctx: &'static Ctx,
    sms: c_uint,
}

/// Live green contexts by handle, and green-context streams by handle.
static GREENS: Mutex<Option<HashMap<usize, &'static Green>>> = Mutex::new(None);
static GREEN_STREAMS: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

fn green(h: *mut c_void) -> Result<&'static Green, CUresult> {
    GREENS.lock().as_ref().and_then(|m| m.get(&(h as usize)).copied()).ok_or(INVALID_HANDLE)
}

fn green_of_ctx(ctx: *const Ctx) -> Option<(usize, &'static Green)> {
    GREENS.lock().as_ref()?.iter().find(|(_, g)| std::ptr::eq(g.ctx, ctx)).map(|(h, g)| (*h, *g))
}

fn ctx_or_current(ctx: *const Ctx) -> Result<&'static Ctx, CUresult> {
    // SAFETY: contexts are leaked boxes, never freed.
    match unsafe { ctx.as_ref() } {
        Some(c) => Ok(c),
        None => crate::device::current_active(),
    }
}

pub unsafe extern "C" fn cuDeviceGetDevResource(dev: c_int, res: *mut Resource, kind: c_int) -> CUresult {
    fake_enter!("cuDeviceGetDevResource");
    tri!(crate::device::initialized());
    if dev < 0 || dev >= knobs::get().devices {
        return INVALID_DEVICE;
    }
    let Some(r) = (unsafe { res.as_mut() }) else { return INVALID_VALUE };
    if kind != SM {
        return INVALID_RESOURCE_TYPE;
    }
    fill(r, device_sms(dev), true);
    SUCCESS
}

pub unsafe extern "C" fn cuDevSmResourceSplitByCount(
    result: *mut Resource,
    nb: *mut c_uint,
    input: *const Resource,
    remaining: *mut Resource,
    flags: c_uint,
    min_count: c_uint,
) -> CUresult {
    fake_enter!("cuDevSmResourceSplitByCount");
    let (Some(nb), Some(input)) = (unsafe { nb.as_mut() }, unsafe { input.as_ref() }) else { return INVALID_VALUE };
    if flags & !3 != 0 || input.kind != SM {
        return INVALID_VALUE;
    }
    let min = min_count.max(MIN_PARTITION).next_multiple_of(ALIGNMENT);
    if min > input.sm_count {
        return INVALID_RESOURCE_CONFIGURATION;
    }
    let possible = input.sm_count / min;
    if result.is_null() {
        *nb = possible;
        return SUCCESS;
    }
    let n = (*nb).min(possible);
    for i in 0..n as usize {
        fill(unsafe { &mut *result.add(i) }, min, false);
    }
    if let Some(rem) = unsafe { remaining.as_mut() } {
        fill(rem, input.sm_count - n * min, false);
    }
    *nb = n;
    SUCCESS
}

/// `CU_DEV_SM_RESOURCE_GROUP_PARAMS` (64 bytes): the SM count first.
#[repr(C)]
pub struct GroupParams {
    sm_count: c_uint,
    _rest: [c_uint; 15],
}

/// `cuDevSmResourceSplit` (CUDA 13.1): group i takes `params[i].smCount`
/// SMs rounded up to the alignment; a count of 0 is discovered as the
/// minimum partition (written back). `result` may be NULL (discovery only).
pub unsafe extern "C" fn cuDevSmResourceSplit(
    result: *mut Resource,
    nb: c_uint,
    input: *const Resource,
    remainder: *mut Resource,
    flags: c_uint,
    params: *mut GroupParams,
) -> CUresult {
    fake_enter!("cuDevSmResourceSplit");
    let Some(input) = (unsafe { input.as_ref() }) else { return INVALID_VALUE };
    if nb == 0 || params.is_null() || flags != 0 || input.kind != SM {
        return INVALID_VALUE;
    }
    let params = unsafe { std::slice::from_raw_parts_mut(params, nb as usize) };
    let mut used = 0;
    for (i, p) in params.iter_mut().enumerate() {
        if p.sm_count == 0 {
            p.sm_count = MIN_PARTITION;
        }
        let n = p.sm_count.next_multiple_of(ALIGNMENT);
        used += n;
        if used > input.sm_count {
            return INVALID_RESOURCE_CONFIGURATION;
        }
        if !result.is_null() {
            fill(unsafe { &mut *result.add(i) }, n, false);
        }
    }
    if let Some(r) = unsafe { remainder.as_mut() } {
        fill(r, input.sm_count - used, false);
    }
    SUCCESS
}

pub unsafe extern "C" fn cuDevResourceGenerateDesc(out: *mut *mut c_void, res: *mut Resource, n: c_uint) -> CUresult {
    fake_enter!("cuDevResourceGenerateDesc");
    if out.is_null() || res.is_null() || n == 0 {
        return INVALID_VALUE;
    }
    let all = unsafe { std::slice::from_raw_parts(res, n as usize) };
    if all.iter().any(|r| r.kind != SM) {
        return INVALID_RESOURCE_TYPE;
    }
    let d = Box::leak(Box::new(Desc { sms: all.iter().map(|r| r.sm_count).sum() }));
    unsafe { *out = (d as *mut Desc).cast() };
    SUCCESS
}

pub unsafe extern "C" fn cuGreenCtxCreate(out: *mut *mut c_void, desc: *mut c_void, dev: c_int, flags: c_uint) -> CUresult {
    fake_enter!("cuGreenCtxCreate");
    tri!(crate::device::initialized());
    if out.is_null() || desc.is_null() || flags != 1 {
        return INVALID_VALUE;
    }
    if dev < 0 || dev >= knobs::get().devices {
        return INVALID_DEVICE;
    }
    let sms = unsafe { &*(desc as *const Desc) }.sms;
    // A context of its own on the device (as cuCtxCreate makes), not current.
    let mut cur = std::ptr::null();
    unsafe { crate::device::cuCtxGetCurrent(&mut cur) };
    let mut ctx = std::ptr::null();
    tri!(match unsafe { crate::device::cuCtxCreate_v4(&mut ctx, std::ptr::null_mut(), 0, dev) } {
        SUCCESS => Ok(()),
        e => Err(e),
    });
    unsafe { crate::device::cuCtxSetCurrent(cur) };
    let g: &'static Green = Box::leak(Box::new(Green { ctx: unsafe { &*ctx }, sms }));
    let h = g as *const Green as usize;
    GREENS.lock().get_or_insert_with(HashMap::new).insert(h, g);
    unsafe { *out = h as *mut c_void };
    SUCCESS
}

pub unsafe extern "C" fn cuGreenCtxDestroy(h: *mut c_void) -> CUresult {
    fake_enter!("cuGreenCtxDestroy");
    let g = tri!(green(h));
    GREENS.lock().as_mut().map(|m| m.remove(&(h as usize)));
    g.ctx.state.lock().active = false;
    SUCCESS
}

pub unsafe extern "C" fn cuCtxFromGreenCtx(out: *mut *const Ctx, h: *mut c_void) -> CUresult {
    fake_enter!("cuCtxFromGreenCtx");
    if out.is_null() {
        return INVALID_VALUE;
    }
    let g = tri!(green(h));
    unsafe { *out = g.ctx };
    SUCCESS
}

pub unsafe extern "C" fn cuGreenCtxGetDevResource(h: *mut c_void, res: *mut Resource, kind: c_int) -> CUresult {
    fake_enter!("cuGreenCtxGetDevResource");
    let g = tri!(green(h));
    let Some(r) = (unsafe { res.as_mut() }) else { return INVALID_VALUE };
    if kind != SM {
        return INVALID_RESOURCE_TYPE;
    }
    fill(r, g.sms, true);
    SUCCESS
}

pub unsafe extern "C" fn cuCtxGetDevResource(ctx: *const Ctx, res: *mut Resource, kind: c_int) -> CUresult {
    fake_enter!("cuCtxGetDevResource");
    let c = tri!(ctx_or_current(ctx));
    let Some(r) = (unsafe { res.as_mut() }) else { return INVALID_VALUE };
    if kind != SM {
        return INVALID_RESOURCE_TYPE;
    }
    let sms = green_of_ctx(c).map_or_else(|| device_sms(c.device), |(_, g)| g.sms);
    fill(r, sms, true);
    SUCCESS
}

pub unsafe extern "C" fn cuGreenCtxStreamCreate(out: *mut *mut c_void, h: *mut c_void, flags: c_uint, priority: c_int) -> CUresult {
    fake_enter!("cuGreenCtxStreamCreate");
    let g = tri!(green(h));
    // The driver requires non-blocking streams on a green context.
    if out.is_null() || flags != 1 {
        return INVALID_VALUE;
    }
    let mut cur = std::ptr::null();
    unsafe { crate::device::cuCtxGetCurrent(&mut cur) };
    unsafe { crate::device::cuCtxSetCurrent(g.ctx) };
    let r = unsafe { crate::stream::cuStreamCreateWithPriority(out, flags, priority) };
    unsafe { crate::device::cuCtxSetCurrent(cur) };
    if r == SUCCESS {
        GREEN_STREAMS.lock().get_or_insert_with(HashMap::new).insert(unsafe { *out } as usize, h as usize);
    }
    r
}

/// The context of a stream that is not a green context's: the current one
/// for the NULL and special streams, and for a stream of the current
/// context's device; else the primary context of the stream's device
/// (streams here remember their device, not their context).
fn stream_ctx(stream: *mut c_void) -> Result<&'static Ctx, CUresult> {
    let cur = crate::device::current_active()?;
    if (stream as usize) <= 2 {
        return Ok(cur);
    }
    let s = crate::stream::resolve(stream, false)?;
    if s.device == cur.device {
        return Ok(cur);
    }
    crate::device::primary(s.device).ok_or(INVALID_HANDLE)
}

/// 12.5 signature (what `cuGetProcAddress("cuStreamGetCtx", 13000)` gives).
pub unsafe extern "C" fn cuStreamGetCtx_v2(stream: *mut c_void, pctx: *mut *const Ctx, pgreen: *mut *mut c_void) -> CUresult {
    fake_enter!("cuStreamGetCtx");
    if pctx.is_null() && pgreen.is_null() {
        return INVALID_VALUE;
    }
    let gh = GREEN_STREAMS.lock().as_ref().and_then(|m| m.get(&(stream as usize)).copied());
    let (ctx, gh) = match gh.and_then(|h| green(h as *mut c_void).ok().map(|g| (g.ctx as *const Ctx, h))) {
        Some((c, h)) => (c, h as *mut c_void),
        None => (tri!(stream_ctx(stream)) as *const Ctx, std::ptr::null_mut()),
    };
    if !pctx.is_null() {
        unsafe { *pctx = ctx };
    }
    if !pgreen.is_null() {
        unsafe { *pgreen = gh };
    }
    SUCCESS
}

fn record(ev: *mut c_void) -> CUresult {
    if ev.is_null() {
        return INVALID_HANDLE;
    }
    unsafe { crate::stream::cuEventRecord(ev, std::ptr::null_mut()) }
}

fn wait(ev: *mut c_void) -> CUresult {
    if ev.is_null() {
        return INVALID_HANDLE;
    }
    tri!(crate::stream::event(ev));
    SUCCESS
}

pub unsafe extern "C" fn cuGreenCtxRecordEvent(h: *mut c_void, ev: *mut c_void) -> CUresult {
    fake_enter!("cuGreenCtxRecordEvent");
    tri!(green(h));
    record(ev)
}

pub unsafe extern "C" fn cuGreenCtxWaitEvent(h: *mut c_void, ev: *mut c_void) -> CUresult {
    fake_enter!("cuGreenCtxWaitEvent");
    tri!(green(h));
    wait(ev)
}

pub unsafe extern "C" fn cuCtxRecordEvent(ctx: *const Ctx, ev: *mut c_void) -> CUresult {
    fake_enter!("cuCtxRecordEvent");
    tri!(ctx_or_current(ctx));
    record(ev)
}

pub unsafe extern "C" fn cuCtxWaitEvent(ctx: *const Ctx, ev: *mut c_void) -> CUresult {
    fake_enter!("cuCtxWaitEvent");
    tri!(ctx_or_current(ctx));
    wait(ev)
}

/// Context ids: the address of the context (unique while it lives).
pub unsafe extern "C" fn cuCtxGetId(ctx: *const Ctx, id: *mut c_ulonglong) -> CUresult {
    fake_enter!("cuCtxGetId");
    let c = tri!(ctx_or_current(ctx));
    if id.is_null() {
        return INVALID_VALUE;
    }
    unsafe { *id = c as *const Ctx as c_ulonglong };
    SUCCESS
}

thread_local! {
    static STACK: std::cell::RefCell<Vec<*const Ctx>> = const { std::cell::RefCell::new(Vec::new()) };
}

pub unsafe extern "C" fn cuCtxPushCurrent_v2(ctx: *const Ctx) -> CUresult {
    fake_enter!("cuCtxPushCurrent");
    if ctx.is_null() {
        return INVALID_CONTEXT;
    }
    let mut cur = std::ptr::null();
    unsafe { crate::device::cuCtxGetCurrent(&mut cur) };
    STACK.with(|s| s.borrow_mut().push(cur));
    unsafe { crate::device::cuCtxSetCurrent(ctx) }
}

pub unsafe extern "C" fn cuCtxPopCurrent_v2(out: *mut *const Ctx) -> CUresult {
    fake_enter!("cuCtxPopCurrent");
    let Some(prev) = STACK.with(|s| s.borrow_mut().pop()) else { return INVALID_CONTEXT };
    let mut cur = std::ptr::null();
    unsafe { crate::device::cuCtxGetCurrent(&mut cur) };
    if !out.is_null() {
        unsafe { *out = cur };
    }
    unsafe { crate::device::cuCtxSetCurrent(prev) }
}

/// `cuLaunchHostFunc` with a synchronization mode (0 blocking, 1 spin).
pub unsafe extern "C" fn cuLaunchHostFunc_v2(stream: *mut c_void, f: *mut c_void, data: *mut c_void, mode: c_uint) -> CUresult {
    fake_enter!("cuLaunchHostFunc_v2");
    if mode > 1 {
        return INVALID_VALUE;
    }
    unsafe { crate::stream::cuLaunchHostFunc(stream, std::mem::transmute::<*mut c_void, Option<unsafe extern "C" fn(*mut c_void)>>(f), data) }
}

/// `cuMemcpyWithAttributesAsync`: a stream-ordered copy; the attributes
/// must name a source access order (1..=3).
pub unsafe extern "C" fn cuMemcpyWithAttributesAsync(dst: u64, src: u64, n: usize, attr: *mut c_int, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemcpyWithAttributesAsync");
    let Some(order) = (unsafe { attr.as_ref() }) else { return INVALID_VALUE };
    if n == 0 || !(1..=3).contains(order) {
        return INVALID_VALUE;
    }
    unsafe { crate::memory::cuMemcpyAsync(dst, src, n, stream) }
}

/// Present so the shim sees a 13.2 driver's entry point; the shim reads a
/// node's parameters with the per-type getters and never calls this.
pub unsafe extern "C" fn cuGraphNodeGetParams(_node: *mut c_void, _params: *mut c_void) -> CUresult {
    fake_enter!("cuGraphNodeGetParams");
    NOT_SUPPORTED
}

/// `CUgraphNodeParams` with a kernel member (`CUDA_KERNEL_NODE_PARAMS_v2`).
#[repr(C)]
pub struct KernelNodeParams {
    kind: c_int,
    reserved0: [c_int; 3],
    func: *mut c_void,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    kern: *mut c_void,
    ctx: *mut c_void,
    rest: [i64; 20],
    reserved2: i64,
}

type RecaptureCallback = Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *const KernelNodeParams, *const KernelNodeParams, c_int) -> CUresult>;

/// `cuStreamBeginRecaptureToGraph` (CUDA 13.3): begins capture into
/// `graph`. Test equipment: with a callback, it reports one made-up
/// mismatch first, a kernel node whose grid went from 7 to 9 (status 1,
/// ineligible for update), and a failing callback fails the call with its
/// code.
pub unsafe extern "C" fn cuStreamBeginRecaptureToGraph(h: *mut c_void, mode: c_int, graph: *mut c_void, cb: RecaptureCallback, data: *mut c_void) -> CUresult {
    fake_enter!("cuStreamBeginRecaptureToGraph");
    if graph.is_null() {
        return INVALID_VALUE;
    }
    if let Some(cb) = cb {
        let node = |grid| KernelNodeParams {
            kind: 0,
            reserved0: [0; 3],
            func: std::ptr::null_mut(),
            grid: [grid, 1, 1],
            block: [32, 1, 1],
            shared: 0,
            params: std::ptr::null_mut(),
            extra: std::ptr::null_mut(),
            kern: 0x1230 as *mut c_void,
            ctx: std::ptr::null_mut(),
            rest: [0; 20],
            reserved2: 0,
        };
        let (a, b) = (node(7), node(9));
        let r = unsafe { cb(data, 0x4560 as *mut c_void, &a, &b, 1) };
        if r != SUCCESS {
            return r;
        }
    }
    unsafe { crate::capture::cuStreamBeginCaptureToGraph(h, graph, std::ptr::null(), std::ptr::null(), 0, mode) }
}

/// Entry points this module provides.
pub static SYMBOLS: crate::Symbols = &[
    sym!(cuDeviceGetDevResource),
    sym!(cuDevSmResourceSplitByCount),
    sym!(cuDevResourceGenerateDesc),
    sym!(cuGreenCtxCreate),
    sym!(cuGreenCtxDestroy),
    sym!(cuCtxFromGreenCtx),
    sym!(cuGreenCtxGetDevResource),
    sym!(cuCtxGetDevResource),
    sym!(cuGreenCtxStreamCreate),
    sym!("cuStreamGetCtx" => cuStreamGetCtx_v2),
    sym!(cuGreenCtxRecordEvent),
    sym!(cuGreenCtxWaitEvent),
    sym!(cuCtxRecordEvent),
    sym!(cuCtxWaitEvent),
    sym!(cuCtxGetId),
    sym!("cuCtxPushCurrent" => cuCtxPushCurrent_v2),
    sym!("cuCtxPopCurrent" => cuCtxPopCurrent_v2),
    sym!(cuLaunchHostFunc_v2),
    sym!(cuMemcpyWithAttributesAsync),
    sym!(cuGraphNodeGetParams),
    sym!(cuDevSmResourceSplit),
    sym!(cuStreamBeginRecaptureToGraph),
];

/// The version that introduced `name`, if it is newer than 13.0.
pub fn since(name: &str) -> Option<c_int> {
    SINCE.iter().find(|s| s.0 == name).map(|s| s.1)
}
