//! Fake driver: initialization, devices, primary and user contexts.

use crate::knobs;
use crate::*;
use parking_lot::Mutex;
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// Every call but the version query needs `cuInit` first.
pub fn initialized() -> Result<(), CUresult> {
    if INITIALIZED.load(Ordering::Acquire) { Ok(()) } else { Err(NOT_INITIALIZED) }
}

macro_rules! need_init {
    () => {
        if let Err(e) = initialized() {
            return e;
        }
    };
}

/// A context: primary (one per device, handle stable for the process) or
/// created by the program.
pub struct Ctx {
    pub device: c_int,
    pub primary: bool,
    pub state: Mutex<CtxState>,
}

#[derive(Default)]
pub struct CtxState {
    pub retains: u32,
    pub active: bool,
    pub flags: c_uint,
    pub limits: [usize; 8],
    pub cache_config: c_int,
    /// Bumped by every reset (resources made before are gone).
    pub epoch: u64,
}

static PRIMARIES: Mutex<Vec<&'static Ctx>> = Mutex::new(Vec::new());

fn primaries() -> parking_lot::MutexGuard<'static, Vec<&'static Ctx>> {
    let mut g = PRIMARIES.lock();
    if g.is_empty() {
        for d in 0..knobs::get().devices.max(0) {
            g.push(Box::leak(Box::new(Ctx { device: d, primary: true, state: Mutex::new(CtxState::default()) })));
        }
    }
    g
}

/// Contexts made by `cuCtxCreate` (green contexts' included), by address.
static CREATED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Whether `p` is a context this driver made (primary or created): a
/// parameter struct naming any other address names no context.
pub fn is_context(p: *const c_void) -> bool {
    primaries().iter().any(|c| std::ptr::eq(*c as *const Ctx, p.cast())) || CREATED.lock().contains(&(p as usize))
}

pub fn primary(dev: c_int) -> Option<&'static Ctx> {
    primaries().get(usize::try_from(dev).ok()?).copied()
}

thread_local! {
    static CURRENT: Cell<*const Ctx> = const { Cell::new(std::ptr::null()) };
}

/// The calling thread's current context.
pub fn current() -> Option<&'static Ctx> {
    let p = CURRENT.with(Cell::get);
    // SAFETY: contexts are leaked boxes, never freed.
    unsafe { p.as_ref() }
}

/// The current context if it is usable: present and (for a primary) active.
pub fn current_active() -> Result<&'static Ctx, CUresult> {
    initialized()?;
    let c = current().ok_or(INVALID_CONTEXT)?;
    if c.primary && !c.state.lock().active {
        return Err(INVALID_CONTEXT);
    }
    Ok(c)
}

fn valid_device(dev: c_int) -> Result<(), CUresult> {
    if dev >= 0 && dev < knobs::get().devices { Ok(()) } else { Err(INVALID_DEVICE) }
}

macro_rules! dev_ok {
    ($d:expr) => {
        if let Err(e) = valid_device($d) {
            return e;
        }
    };
}

macro_rules! out {
    ($p:expr) => {
        if $p.is_null() {
            return INVALID_VALUE;
        }
    };
}

pub unsafe extern "C" fn cuInit(flags: c_uint) -> CUresult {
    fake_enter!("cuInit");
    if flags != 0 {
        return INVALID_VALUE;
    }
    let r = knobs::get().init_result;
    if r != 0 {
        return r;
    }
    if knobs::get().devices == 0 {
        return NO_DEVICE;
    }
    INITIALIZED.store(true, Ordering::Release);
    crate::activity::connect();
    SUCCESS
}

pub unsafe extern "C" fn cuDriverGetVersion(v: *mut c_int) -> CUresult {
    fake_enter!("cuDriverGetVersion");
    out!(v);
    unsafe { *v = knobs::get().driver_version };
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetCount(n: *mut c_int) -> CUresult {
    fake_enter!("cuDeviceGetCount");
    need_init!();
    out!(n);
    unsafe { *n = knobs::get().devices };
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGet(dev: *mut c_int, ordinal: c_int) -> CUresult {
    fake_enter!("cuDeviceGet");
    need_init!();
    out!(dev);
    dev_ok!(ordinal);
    unsafe { *dev = ordinal };
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetName");
    need_init!();
    out!(name);
    dev_ok!(dev);
    if len <= 0 {
        return INVALID_VALUE;
    }
    let s = format!("Fake CUDA Device {dev}");
    let n = s.len().min(len as usize - 1);
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr().cast(), name, n);
        *name.add(n) = 0;
    }
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetUuid");
    need_init!();
    out!(uuid);
    dev_ok!(dev);
    let mut u = [0u8; 16];
    for (i, b) in u.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(17) ^ dev as u8;
    }
    unsafe { *uuid = u };
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetLuid(_luid: *mut c_char, _mask: *mut c_uint, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetLuid");
    need_init!();
    dev_ok!(dev);
    NOT_SUPPORTED
}

/// 80 GiB, like an H100.
pub const TOTAL_MEM: usize = 80 << 30;

pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceTotalMem");
    need_init!();
    out!(bytes);
    dev_ok!(dev);
    unsafe { *bytes = TOTAL_MEM };
    SUCCESS
}

/// Attribute values of an H100-like device (compute capability 9.0).
pub fn attribute(a: c_int, dev: c_int) -> Option<c_int> {
    if let Some(v) = knobs::get().attrs.get(&a) {
        return Some(*v);
    }
    Some(match a {
        1 => 1024,
        2 | 3 => 1024,
        4 => 64,
        5 => 2147483647,
        6 | 7 => 65535,
        8 => 49152,
        9 => 65536,
        10 => 32,
        11 => 2147483647,
        12 => 65536,
        13 => 1980000,
        14 => 512,
        15 => 1,
        16 => 132,
        17 => 0,
        18 => 0,
        19 => 1,
        20 => 0,
        21 => 131072,
        22 => 131072,
        23 => 65536,
        24..=26 => 16384,
        27 | 28 => 32768,
        29 => 2048,
        30 => 512,
        31 => 1,
        32 => 1,
        33 => 0x10 + dev,
        34 => 0,
        35 => 0,
        36 => 2619000,
        37 => 5120,
        38 => 52428800,
        39 => 2048,
        40 => 3,
        41 => 1,
        42 => 32768,
        43 => 2048,
        44 => 1,
        45 | 46 => 32768,
        47 | 48 => 8192,
        49 => 32768,
        50 => 0,
        51 => 32,
        52 | 53 => 32768,
        54 => 2046,
        55 => 32768,
        56 => 131072,
        57 => 65536,
        58 | 59 => 16384,
        60 => 16384,
        61 => 32768,
        62 => 2048,
        63 | 64 => 32768,
        65 => 2048,
        66 | 67 => 32768,
        68 => 2046,
        69 => 268435456,
        70 | 71 => 131072,
        72 => 2097120,
        73 | 74 => 32768,
        75 => 9,
        76 => 0,
        77 => 32768,
        78..=80 => 1,
        81 => 233472,
        82 => 65536,
        83 => 1,
        84 | 85 => 0,
        86 => 0,
        87 => 2,
        88 => 0,
        89 => 1,
        90 => 1,
        91 => 1,
        92..=94 => 1,
        95 => 1,
        96 => 0,
        97 => 232448,
        98 => 1,
        99 => 1,
        100 | 101 => 0,
        102..=105 => 1,
        106 => 32,
        107 => 1,
        108 => 82837504,
        109 => 134213632,
        110 => 1,
        111 => 1024,
        112..=116 => 1,
        117 => 1,
        118 => 100,
        119 => 9,
        120 | 121 => 1,
        122..=129 => 1,
        130 => 0,
        131 => -1,
        132 => 1,
        133 => 0,
        134 => -1,
        135..=138 => 0,
        139 => 0x233010de,
        140 => 0x16c110de,
        141..=147 => 0,
        _ => return None,
    })
}

pub unsafe extern "C" fn cuDeviceGetAttribute(v: *mut c_int, a: c_int, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetAttribute");
    need_init!();
    out!(v);
    dev_ok!(dev);
    match attribute(a, dev) {
        Some(x) => {
            unsafe { *v = x };
            SUCCESS
        }
        None => INVALID_VALUE,
    }
}

fn bus_id(dev: c_int) -> String {
    format!("00000000:{:02X}:00.0", 0x10 + dev)
}

pub unsafe extern "C" fn cuDeviceGetPCIBusId(buf: *mut c_char, len: c_int, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetPCIBusId");
    need_init!();
    out!(buf);
    dev_ok!(dev);
    if len <= 0 {
        return INVALID_VALUE;
    }
    let s = bus_id(dev);
    let n = s.len().min(len as usize - 1);
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr().cast(), buf, n);
        *buf.add(n) = 0;
    }
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetByPCIBusId(dev: *mut c_int, id: *const c_char) -> CUresult {
    fake_enter!("cuDeviceGetByPCIBusId");
    need_init!();
    out!(dev);
    out!(id);
    let want = unsafe { std::ffi::CStr::from_ptr(id) }.to_string_lossy().to_uppercase();
    for d in 0..knobs::get().devices {
        let have = bus_id(d);
        // Accept the short form too (bus:device.function without domain).
        if want == have || have.ends_with(&format!(":{want}")) || have[4..] == want {
            unsafe { *dev = d };
            return SUCCESS;
        }
    }
    INVALID_DEVICE
}

pub unsafe extern "C" fn cuDeviceGetTexture1DLinearMaxWidth(w: *mut usize, format: c_int, channels: c_uint, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetTexture1DLinearMaxWidth");
    need_init!();
    out!(w);
    dev_ok!(dev);
    let elem = match format {
        0x01 | 0x08 => 1,
        0x02 | 0x09 | 0x10 => 2,
        0x03 | 0x0a | 0x20 => 4,
        _ => return INVALID_VALUE,
    } * channels as usize;
    unsafe { *w = (1usize << 28) / elem.max(1) * 4 / 4 };
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetHostAtomicCapabilities(caps: *mut c_uint, ops: *const c_int, count: c_uint, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetHostAtomicCapabilities");
    need_init!();
    dev_ok!(dev);
    for i in 0..count as usize {
        unsafe { *caps.add(i) = if *ops.add(i) < 8 { 0x3f } else { 0 } };
    }
    SUCCESS
}

pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(ctx: *mut *const Ctx, dev: c_int) -> CUresult {
    fake_enter!("cuDevicePrimaryCtxRetain");
    need_init!();
    out!(ctx);
    dev_ok!(dev);
    let c = primary(dev).unwrap();
    let mut s = c.state.lock();
    s.retains += 1;
    s.active = true;
    unsafe { *ctx = c };
    SUCCESS
}

pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: c_int) -> CUresult {
    fake_enter!("cuDevicePrimaryCtxRelease");
    need_init!();
    dev_ok!(dev);
    let c = primary(dev).unwrap();
    let mut s = c.state.lock();
    if s.retains == 0 {
        return INVALID_CONTEXT;
    }
    s.retains -= 1;
    if s.retains == 0 {
        s.active = false;
        s.epoch += 1;
    }
    SUCCESS
}

pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(dev: c_int) -> CUresult {
    fake_enter!("cuDevicePrimaryCtxReset");
    need_init!();
    dev_ok!(dev);
    let c = primary(dev).unwrap();
    let mut s = c.state.lock();
    s.active = false;
    s.retains = 0;
    s.flags = 0;
    // A reset destroys the context: what was set on it goes too.
    s.limits = Default::default();
    s.cache_config = 0;
    s.epoch += 1;
    SUCCESS
}

pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: c_int, flags: c_uint) -> CUresult {
    fake_enter!("cuDevicePrimaryCtxSetFlags");
    need_init!();
    dev_ok!(dev);
    if flags & !0xff != 0 {
        return INVALID_VALUE;
    }
    primary(dev).unwrap().state.lock().flags = flags;
    SUCCESS
}

pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(dev: c_int, flags: *mut c_uint, active: *mut c_int) -> CUresult {
    fake_enter!("cuDevicePrimaryCtxGetState");
    need_init!();
    dev_ok!(dev);
    out!(flags);
    out!(active);
    let s = primary(dev).unwrap().state.lock();
    unsafe {
        *flags = s.flags;
        *active = s.active as c_int;
    }
    SUCCESS
}

pub unsafe extern "C" fn cuCtxGetCurrent(ctx: *mut *const Ctx) -> CUresult {
    fake_enter!("cuCtxGetCurrent");
    need_init!();
    out!(ctx);
    unsafe { *ctx = CURRENT.with(Cell::get) };
    SUCCESS
}

pub unsafe extern "C" fn cuCtxSetCurrent(ctx: *const Ctx) -> CUresult {
    fake_enter!("cuCtxSetCurrent");
    need_init!();
    CURRENT.with(|c| c.set(ctx));
    SUCCESS
}

/// CUDA 13 signature: a NULL context means the current one.
pub unsafe extern "C" fn cuCtxGetDevice_v2(dev: *mut c_int, ctx: *const Ctx) -> CUresult {
    fake_enter!("cuCtxGetDevice");
    need_init!();
    out!(dev);
    let c = if ctx.is_null() { current() } else { unsafe { ctx.as_ref() } };
    match c {
        Some(c) => {
            unsafe { *dev = c.device };
            SUCCESS
        }
        None => INVALID_CONTEXT,
    }
}

pub unsafe extern "C" fn cuCtxSynchronize_v2(ctx: *const Ctx) -> CUresult {
    fake_enter!("cuCtxSynchronize");
    if ctx.is_null()
        && let Err(e) = current_active()
    {
        return e;
    }
    // Not from a callback; unsafe during stream capture.
    if let Err(e) = crate::stream::ctx_sync_check() {
        return e;
    }
    crate::stream::synchronize_all();
    SUCCESS
}

pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    fake_enter!("cuCtxGetFlags");
    out!(flags);
    match current_active() {
        Ok(c) => {
            unsafe { *flags = c.state.lock().flags };
            SUCCESS
        }
        Err(e) => e,
    }
}

pub unsafe extern "C" fn cuCtxSetFlags(flags: c_uint) -> CUresult {
    fake_enter!("cuCtxSetFlags");
    match current_active() {
        Ok(c) => {
            c.state.lock().flags = flags;
            SUCCESS
        }
        Err(e) => e,
    }
}

const LIMIT_DEFAULTS: [usize; 7] = [1024, 1 << 20, 8 << 20, 2, 2048, 128, 0];

pub unsafe extern "C" fn cuCtxGetLimit(v: *mut usize, limit: c_int) -> CUresult {
    fake_enter!("cuCtxGetLimit");
    out!(v);
    let c = match current_active() {
        Ok(c) => c,
        Err(e) => return e,
    };
    let Some(&default) = LIMIT_DEFAULTS.get(limit as usize) else { return 215 };
    let set = c.state.lock().limits[limit as usize];
    unsafe { *v = if set != 0 { set } else { default } };
    SUCCESS
}

pub unsafe extern "C" fn cuCtxSetLimit(limit: c_int, v: usize) -> CUresult {
    fake_enter!("cuCtxSetLimit");
    let c = match current_active() {
        Ok(c) => c,
        Err(e) => return e,
    };
    if !(0..7).contains(&limit) {
        return 215;
    }
    c.state.lock().limits[limit as usize] = v;
    SUCCESS
}

pub unsafe extern "C" fn cuCtxGetCacheConfig(cfg: *mut c_int) -> CUresult {
    fake_enter!("cuCtxGetCacheConfig");
    out!(cfg);
    match current_active() {
        Ok(c) => {
            unsafe { *cfg = c.state.lock().cache_config };
            SUCCESS
        }
        Err(e) => e,
    }
}

pub unsafe extern "C" fn cuCtxSetCacheConfig(cfg: c_int) -> CUresult {
    fake_enter!("cuCtxSetCacheConfig");
    let c = match current_active() {
        Ok(c) => c,
        Err(e) => return e,
    };
    if !(0..=3).contains(&cfg) {
        return INVALID_VALUE;
    }
    c.state.lock().cache_config = cfg;
    SUCCESS
}

pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CUresult {
    fake_enter!("cuCtxGetStreamPriorityRange");
    if let Err(e) = current_active() {
        return e;
    }
    unsafe {
        if !least.is_null() {
            *least = 0;
        }
        if !greatest.is_null() {
            *greatest = -5;
        }
    }
    SUCCESS
}

pub unsafe extern "C" fn cuCtxResetPersistingL2Cache() -> CUresult {
    fake_enter!("cuCtxResetPersistingL2Cache");
    match current_active() {
        Ok(_) => SUCCESS,
        Err(e) => e,
    }
}

pub unsafe extern "C" fn cuFlushGPUDirectRDMAWrites(target: c_int, scope: c_int) -> CUresult {
    fake_enter!("cuFlushGPUDirectRDMAWrites");
    if let Err(e) = current_active() {
        return e;
    }
    if target != 0 || !(100..=200).contains(&scope) {
        return INVALID_VALUE;
    }
    SUCCESS
}

pub unsafe extern "C" fn cuProfilerStart() -> CUresult {
    fake_enter!("cuProfilerStart");
    match current_active() {
        Ok(_) => SUCCESS,
        Err(e) => e,
    }
}

/// `cuProfilerInitialize(configFile, outputFile, outputMode)` (deprecated in
/// NVIDIA's driver; an export the interposer leaves untyped). Accepts
/// anything: the tests only check that it is reached.
pub unsafe extern "C" fn cuProfilerInitialize(_config: *const c_char, _output: *const c_char, _mode: c_int) -> CUresult {
    fake_enter!("cuProfilerInitialize");
    SUCCESS
}

pub unsafe extern "C" fn cuProfilerStop() -> CUresult {
    fake_enter!("cuProfilerStop");
    match current_active() {
        Ok(_) => SUCCESS,
        Err(e) => e,
    }
}

pub unsafe extern "C" fn cuDeviceRegisterAsyncNotification(
    dev: c_int,
    _cb: *const c_void,
    _user: *mut c_void,
    handle: *mut *mut c_void,
) -> CUresult {
    fake_enter!("cuDeviceRegisterAsyncNotification");
    need_init!();
    dev_ok!(dev);
    out!(handle);
    unsafe { *handle = Box::into_raw(Box::new(dev)).cast() };
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceUnregisterAsyncNotification(dev: c_int, handle: *mut c_void) -> CUresult {
    fake_enter!("cuDeviceUnregisterAsyncNotification");
    need_init!();
    dev_ok!(dev);
    if handle.is_null() {
        return INVALID_VALUE;
    }
    drop(unsafe { Box::from_raw(handle.cast::<c_int>()) });
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetNvSciSyncAttributes(_list: *mut c_void, dev: c_int, _flags: c_int) -> CUresult {
    fake_enter!("cuDeviceGetNvSciSyncAttributes");
    need_init!();
    dev_ok!(dev);
    NOT_SUPPORTED
}

/// CUDA 13 `cuCtxCreate` (v4): a user context, for the interop tests.
pub unsafe extern "C" fn cuCtxCreate_v4(ctx: *mut *const Ctx, _params: *mut c_void, flags: c_uint, dev: c_int) -> CUresult {
    fake_enter!("cuCtxCreate");
    need_init!();
    out!(ctx);
    dev_ok!(dev);
    let c: &'static Ctx = Box::leak(Box::new(Ctx {
        device: dev,
        primary: false,
        state: Mutex::new(CtxState { retains: 1, active: true, flags, ..Default::default() }),
    }));
    CREATED.lock().push(c as *const Ctx as usize);
    CURRENT.with(|cur| cur.set(c));
    unsafe { *ctx = c };
    SUCCESS
}

pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: *const Ctx) -> CUresult {
    fake_enter!("cuCtxDestroy");
    need_init!();
    let Some(c) = (unsafe { ctx.as_ref() }) else { return INVALID_VALUE };
    if c.primary {
        return INVALID_CONTEXT;
    }
    c.state.lock().active = false;
    CURRENT.with(|cur| {
        if cur.get() == ctx {
            cur.set(std::ptr::null());
        }
    });
    SUCCESS
}

pub static SYMBOLS: Symbols = &[
    sym!(cuInit),
    sym!(cuDriverGetVersion),
    sym!(cuDeviceGetCount),
    sym!(cuDeviceGet),
    sym!(cuDeviceGetName),
    sym!(cuDeviceGetUuid),
    sym!(cuDeviceGetLuid),
    sym!("cuDeviceTotalMem" => cuDeviceTotalMem_v2),
    sym!(cuDeviceGetAttribute),
    sym!(cuDeviceGetPCIBusId),
    sym!(cuDeviceGetByPCIBusId),
    sym!(cuDeviceGetTexture1DLinearMaxWidth),
    sym!(cuDeviceGetHostAtomicCapabilities),
    sym!(cuDevicePrimaryCtxRetain),
    sym!("cuDevicePrimaryCtxRelease" => cuDevicePrimaryCtxRelease_v2),
    sym!("cuDevicePrimaryCtxReset" => cuDevicePrimaryCtxReset_v2),
    sym!("cuDevicePrimaryCtxSetFlags" => cuDevicePrimaryCtxSetFlags_v2),
    sym!(cuDevicePrimaryCtxGetState),
    sym!(cuCtxGetCurrent),
    sym!(cuCtxSetCurrent),
    sym!("cuCtxGetDevice" => cuCtxGetDevice_v2),
    sym!("cuCtxSynchronize" => cuCtxSynchronize_v2),
    sym!(cuCtxGetFlags),
    sym!(cuCtxSetFlags),
    sym!(cuCtxGetLimit),
    sym!(cuCtxSetLimit),
    sym!(cuCtxGetCacheConfig),
    sym!(cuCtxSetCacheConfig),
    sym!(cuCtxGetStreamPriorityRange),
    sym!(cuCtxResetPersistingL2Cache),
    sym!(cuFlushGPUDirectRDMAWrites),
    sym!(cuProfilerStart),
    sym!(cuProfilerStop),
    sym!(cuProfilerInitialize),
    sym!(cuDeviceRegisterAsyncNotification),
    sym!(cuDeviceUnregisterAsyncNotification),
    sym!(cuDeviceGetNvSciSyncAttributes),
    sym!("cuCtxCreate" => cuCtxCreate_v4),
    sym!("cuCtxDestroy" => cuCtxDestroy_v2),
];
