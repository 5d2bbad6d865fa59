//! Fake driver: memory pools and the stream-ordered allocator, IPC,
//! external memory and semaphores, texture and surface objects, logs, and
//! the API-independent graphics-interop calls.
//!
//! Graphics-API registration (`cuGraphicsGLRegisterBuffer`, EGL, VDPAU) is
//! deliberately absent: the shim must answer `cudaErrorNotSupported` for a
//! driver without it. Resources for the generic calls come from
//! `fake_cuda_graphics_resource`, EGL frames of them from
//! `fake_cuda_graphics_egl_frame`.

use crate::device::current_active;
use crate::*;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

const INVALID_HANDLE: CUresult = 400;
const OUT_OF_MEMORY: CUresult = 2;

macro_rules! ctx {
    () => {
        match current_active() {
            Ok(c) => c,
            Err(e) => return e,
        }
    };
}

macro_rules! nonnull {
    ($($p:expr),*) => {
        if $($p.is_null())||* {
            return INVALID_VALUE;
        }
    };
}

/// Host memory standing in for device memory: 256-byte aligned, zeroed.
fn host_alloc(size: usize) -> u64 {
    let layout = std::alloc::Layout::from_size_align(size.max(1), 256).unwrap();
    // SAFETY: non-zero size.
    unsafe { std::alloc::alloc_zeroed(layout) as u64 }
}

fn host_free(p: u64, size: usize) {
    let layout = std::alloc::Layout::from_size_align(size.max(1), 256).unwrap();
    // SAFETY: p came from host_alloc with this size.
    unsafe { std::alloc::dealloc(p as *mut u8, layout) }
}

// ---- Pools -----------------------------------------------------------------

/// `CUmemPoolProps` (88 bytes), as the fake reads it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PoolProps {
    pub alloc_type: c_int,
    pub handle_types: c_int,
    pub loc_type: c_int,
    pub loc_id: c_int,
    pub win32: *mut c_void,
    pub max_size: usize,
    pub usage: u16,
    pub reserved: [u8; 54],
}

#[derive(Default)]
struct Pool {
    device: c_int,
    handle_types: c_int,
    max_size: usize,
    /// Attributes 1..=3 (reuse policies) and 4 (release threshold).
    reuse: [c_int; 3],
    release_threshold: u64,
    /// Bytes in live allocations / their high-water mark.
    used: u64,
    used_high: u64,
    /// Bytes held from the "system": live plus cached / high-water mark.
    reserved: u64,
    reserved_high: u64,
    /// Freed blocks kept for reuse: (pointer, size).
    cache: Vec<(u64, usize)>,
    /// Access granted to other devices (device -> flags).
    access: HashMap<c_int, c_int>,
    destroyed: bool,
}

struct Book {
    pools: HashMap<usize, Pool>,
    next_pool: usize,
    /// Per device: (default pool, current pool).
    device_pools: HashMap<c_int, (usize, usize)>,
    /// Live stream-ordered allocations: pointer -> (pool, size).
    allocs: HashMap<u64, (usize, usize)>,
    host_pool: Option<usize>,
}

static BOOK: Mutex<Option<Book>> = Mutex::new(None);

fn with_book<R>(f: impl FnOnce(&mut Book) -> R) -> R {
    let mut g = BOOK.lock();
    let b = g.get_or_insert_with(|| Book {
        pools: HashMap::new(),
        next_pool: 0x7000_0000,
        device_pools: HashMap::new(),
        allocs: HashMap::new(),
        host_pool: None,
    });
    f(b)
}

impl Book {
    fn new_pool(&mut self, p: Pool) -> usize {
        self.next_pool += 0x10;
        self.pools.insert(self.next_pool, p);
        self.next_pool
    }

    fn device_pools(&mut self, dev: c_int) -> (usize, usize) {
        if let Some(&p) = self.device_pools.get(&dev) {
            return p;
        }
        let h = self.new_pool(Pool { device: dev, release_threshold: 0, reuse: [1, 1, 1], ..Default::default() });
        self.device_pools.insert(dev, (h, h));
        (h, h)
    }

    fn pool(&mut self, h: usize) -> Option<&mut Pool> {
        self.pools.get_mut(&h).filter(|p| !p.destroyed)
    }

    fn alloc(&mut self, pool: usize, size: usize) -> Result<u64, CUresult> {
        let p = self.pool(pool).ok_or(INVALID_VALUE)?;
        if p.max_size != 0 && p.used + size as u64 > p.max_size as u64 {
            return Err(OUT_OF_MEMORY);
        }
        let ptr = match p.cache.iter().position(|&(_, s)| s == size) {
            Some(i) => {
                let (ptr, _) = p.cache.swap_remove(i);
                // SAFETY: a cached block of `size` bytes; reused memory is
                // zeroed again so tests see deterministic contents.
                unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, size) };
                ptr
            }
            None => {
                p.reserved += size as u64;
                p.reserved_high = p.reserved_high.max(p.reserved);
                host_alloc(size)
            }
        };
        p.used += size as u64;
        p.used_high = p.used_high.max(p.used);
        self.allocs.insert(ptr, (pool, size));
        Ok(ptr)
    }

    /// Return a block to its pool's cache (runs in stream order).
    fn release(&mut self, ptr: u64) {
        let Some((pool, size)) = self.allocs.remove(&ptr) else { return };
        if let Some(p) = self.pools.get_mut(&pool) {
            p.used -= size as u64;
            p.cache.push((ptr, size));
            trim(p, p.release_threshold);
        }
    }
}

/// Release cached blocks until at most `keep` bytes are reserved.
fn trim(p: &mut Pool, keep: u64) {
    while p.reserved > keep {
        let Some((ptr, size)) = p.cache.pop() else { break };
        host_free(ptr, size);
        p.reserved -= size as u64;
    }
}

fn check_location(loc_type: c_int, id: c_int) -> Result<(), CUresult> {
    match loc_type {
        1 if id >= 0 && id < knobs::get().devices => Ok(()),
        2..=4 => Ok(()),
        _ => Err(INVALID_VALUE),
    }
}

/// The device's default (`current` false) or current pool.
fn device_pool(pool: *mut usize, dev: c_int, current: bool) -> CUresult {
    if let Err(e) = device::initialized() {
        return e;
    }
    nonnull!(pool);
    if dev < 0 || dev >= knobs::get().devices {
        return INVALID_DEVICE;
    }
    let (d, c) = with_book(|b| b.device_pools(dev));
    unsafe { *pool = if current { c } else { d } };
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetDefaultMemPool(pool: *mut usize, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetDefaultMemPool");
    device_pool(pool, dev, false)
}

pub unsafe extern "C" fn cuDeviceGetMemPool(pool: *mut usize, dev: c_int) -> CUresult {
    fake_enter!("cuDeviceGetMemPool");
    device_pool(pool, dev, true)
}

pub unsafe extern "C" fn cuDeviceSetMemPool(dev: c_int, pool: usize) -> CUresult {
    fake_enter!("cuDeviceSetMemPool");
    if let Err(e) = device::initialized() {
        return e;
    }
    if dev < 0 || dev >= knobs::get().devices {
        return INVALID_DEVICE;
    }
    with_book(|b| {
        match b.pool(pool) {
            Some(p) if p.device == dev => {}
            _ => return INVALID_VALUE,
        }
        let d = b.device_pools(dev).0;
        b.device_pools.insert(dev, (d, pool));
        SUCCESS
    })
}

/// `cuMemGetDefaultMemPool` / `cuMemGetMemPool`: device locations map to
/// the device's pools, host locations to one host pool; pinned type only.
fn location_pool(pool: *mut usize, loc: *const [c_int; 2], ty: c_int, current: bool) -> CUresult {
    if let Err(e) = device::initialized() {
        return e;
    }
    nonnull!(pool, loc);
    let [t, id] = unsafe { *loc };
    if ty != 1 {
        return INVALID_VALUE;
    }
    if let Err(e) = check_location(t, id) {
        return e;
    }
    let h = with_book(|b| {
        if t == 1 {
            let (d, c) = b.device_pools(id);
            return if current { c } else { d };
        }
        if let Some(h) = b.host_pool {
            return h;
        }
        let h = b.new_pool(Pool { device: -1, reuse: [1, 1, 1], ..Default::default() });
        b.host_pool = Some(h);
        h
    });
    unsafe { *pool = h };
    SUCCESS
}

pub unsafe extern "C" fn cuMemGetDefaultMemPool(pool: *mut usize, loc: *const [c_int; 2], ty: c_int) -> CUresult {
    fake_enter!("cuMemGetDefaultMemPool");
    location_pool(pool, loc, ty, false)
}

pub unsafe extern "C" fn cuMemGetMemPool(pool: *mut usize, loc: *const [c_int; 2], ty: c_int) -> CUresult {
    fake_enter!("cuMemGetMemPool");
    location_pool(pool, loc, ty, true)
}

pub unsafe extern "C" fn cuMemSetMemPool(loc: *const [c_int; 2], ty: c_int, pool: usize) -> CUresult {
    fake_enter!("cuMemSetMemPool");
    if let Err(e) = device::initialized() {
        return e;
    }
    nonnull!(loc);
    let [t, id] = unsafe { *loc };
    if ty != 1 || t != 1 {
        return if ty != 1 { INVALID_VALUE } else { NOT_SUPPORTED };
    }
    if let Err(e) = check_location(t, id) {
        return e;
    }
    unsafe { cuDeviceSetMemPool(id, pool) }
}

pub unsafe extern "C" fn cuMemPoolCreate(pool: *mut usize, props: *const PoolProps) -> CUresult {
    fake_enter!("cuMemPoolCreate");
    let _ = ctx!();
    nonnull!(pool, props);
    let p = unsafe { *props };
    if p.alloc_type != 1 || p.reserved.iter().any(|&b| b != 0) {
        return INVALID_VALUE;
    }
    if p.loc_type != 1 {
        return if p.loc_type == 0 { INVALID_VALUE } else { NOT_SUPPORTED };
    }
    if let Err(e) = check_location(p.loc_type, p.loc_id) {
        return e;
    }
    if p.handle_types & !0x9 != 0 {
        return NOT_SUPPORTED;
    }
    let h = with_book(|b| {
        b.new_pool(Pool {
            device: p.loc_id,
            handle_types: p.handle_types,
            max_size: p.max_size,
            reuse: [1, 1, 1],
            ..Default::default()
        })
    });
    unsafe { *pool = h };
    SUCCESS
}

pub unsafe extern "C" fn cuMemPoolDestroy(pool: usize) -> CUresult {
    fake_enter!("cuMemPoolDestroy");
    let _ = ctx!();
    with_book(|b| {
        if b.device_pools.values().any(|&(d, _)| d == pool) {
            return INVALID_VALUE; // default pools cannot be destroyed
        }
        let Some(p) = b.pool(pool) else { return INVALID_VALUE };
        p.destroyed = true;
        trim(p, 0);
        for (_, (d, c)) in b.device_pools.iter_mut() {
            if *c == pool {
                *c = *d;
            }
        }
        SUCCESS
    })
}

pub unsafe extern "C" fn cuMemPoolTrimTo(pool: usize, keep: usize) -> CUresult {
    fake_enter!("cuMemPoolTrimTo");
    let _ = ctx!();
    with_book(|b| match b.pool(pool) {
        Some(p) => {
            trim(p, keep as u64);
            SUCCESS
        }
        None => INVALID_VALUE,
    })
}

pub unsafe extern "C" fn cuMemPoolGetAttribute(pool: usize, attr: c_int, value: *mut c_void) -> CUresult {
    fake_enter!("cuMemPoolGetAttribute");
    let _ = ctx!();
    nonnull!(value);
    with_book(|b| {
        let Some(p) = b.pool(pool) else { return INVALID_VALUE };
        unsafe {
            match attr {
                1..=3 => *value.cast::<c_int>() = p.reuse[attr as usize - 1],
                4 => *value.cast::<u64>() = p.release_threshold,
                5 => *value.cast::<u64>() = p.reserved,
                6 => *value.cast::<u64>() = p.reserved_high,
                7 => *value.cast::<u64>() = p.used,
                8 => *value.cast::<u64>() = p.used_high,
                _ => return INVALID_VALUE,
            }
        }
        SUCCESS
    })
}

pub unsafe extern "C" fn cuMemPoolSetAttribute(pool: usize, attr: c_int, value: *mut c_void) -> CUresult {
    fake_enter!("cuMemPoolSetAttribute");
    let _ = ctx!();
    nonnull!(value);
    with_book(|b| {
        let Some(p) = b.pool(pool) else { return INVALID_VALUE };
        unsafe {
            match attr {
                1..=3 => p.reuse[attr as usize - 1] = *value.cast::<c_int>(),
                4 => p.release_threshold = *value.cast::<u64>(),
                // High-water marks may only be reset to zero (to the current value).
                6 | 8 if *value.cast::<u64>() == 0 => {
                    if attr == 6 {
                        p.reserved_high = p.reserved
                    } else {
                        p.used_high = p.used
                    }
                }
                _ => return INVALID_VALUE,
            }
        }
        SUCCESS
    })
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct AccessDesc {
    pub loc_type: c_int,
    pub loc_id: c_int,
    pub flags: c_int,
}

pub unsafe extern "C" fn cuMemPoolSetAccess(pool: usize, map: *const AccessDesc, count: usize) -> CUresult {
    fake_enter!("cuMemPoolSetAccess");
    let _ = ctx!();
    if count > 0 && map.is_null() {
        return INVALID_VALUE;
    }
    let descs = if count == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(map, count) } };
    with_book(|b| {
        let Some(p) = b.pool(pool) else { return INVALID_VALUE };
        for d in descs {
            if d.loc_type != 1 || check_location(d.loc_type, d.loc_id).is_err() || !matches!(d.flags, 0 | 1 | 3) {
                return INVALID_VALUE;
            }
            if d.loc_id == p.device && d.flags != 3 {
                return INVALID_VALUE; // the owner's access cannot be revoked
            }
        }
        for d in descs {
            p.access.insert(d.loc_id, d.flags);
        }
        SUCCESS
    })
}

pub unsafe extern "C" fn cuMemPoolGetAccess(flags: *mut c_int, pool: usize, loc: *const [c_int; 2]) -> CUresult {
    fake_enter!("cuMemPoolGetAccess");
    let _ = ctx!();
    nonnull!(flags, loc);
    let [t, id] = unsafe { *loc };
    if t != 1 || check_location(t, id).is_err() {
        return INVALID_VALUE;
    }
    with_book(|b| {
        let Some(p) = b.pool(pool) else { return INVALID_VALUE };
        let f = if id == p.device { 3 } else { *p.access.get(&id).unwrap_or(&0) };
        unsafe { *flags = f };
        SUCCESS
    })
}

/// A shareable handle of a pool is a pipe's read end (a real fd); the
/// handle's value is the pool, kept in a table by fd.
static EXPORTED: Mutex<Vec<(c_int, usize)>> = Mutex::new(Vec::new());

pub unsafe extern "C" fn cuMemPoolExportToShareableHandle(out: *mut c_void, pool: usize, ty: c_int, flags: c_ulonglong) -> CUresult {
    fake_enter!("cuMemPoolExportToShareableHandle");
    let _ = ctx!();
    nonnull!(out);
    if flags != 0 {
        return INVALID_VALUE;
    }
    let types = match with_book(|b| b.pool(pool).map(|p| p.handle_types)) {
        Some(t) => t,
        None => return INVALID_VALUE,
    };
    if ty != 1 || types & 1 == 0 {
        return INVALID_VALUE;
    }
    let mut fds = [0; 2];
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return OUT_OF_MEMORY;
    }
    unsafe { libc::close(fds[1]) };
    EXPORTED.lock().push((fds[0], pool));
    unsafe { *out.cast::<c_int>() = fds[0] };
    SUCCESS
}

pub unsafe extern "C" fn cuMemPoolImportFromShareableHandle(pool: *mut usize, handle: *mut c_void, ty: c_int, flags: c_ulonglong) -> CUresult {
    fake_enter!("cuMemPoolImportFromShareableHandle");
    let _ = ctx!();
    nonnull!(pool);
    if ty != 1 || flags != 0 {
        return INVALID_VALUE;
    }
    let fd = handle as usize as c_int;
    match EXPORTED.lock().iter().find(|e| e.0 == fd) {
        Some(&(_, p)) => {
            unsafe { *pool = p };
            SUCCESS
        }
        None => INVALID_VALUE,
    }
}

/// Export data: magic, then the pointer.
const EXPORT_MAGIC: u64 = 0x464b_4558_504f_5254;

pub unsafe extern "C" fn cuMemPoolExportPointer(data: *mut [u64; 8], ptr: u64) -> CUresult {
    fake_enter!("cuMemPoolExportPointer");
    let _ = ctx!();
    nonnull!(data);
    if !with_book(|b| b.allocs.contains_key(&ptr)) {
        return INVALID_VALUE;
    }
    // The runtime's struct is byte-aligned.
    unsafe { data.write_unaligned([EXPORT_MAGIC, ptr, 0, 0, 0, 0, 0, 0]) };
    SUCCESS
}

pub unsafe extern "C" fn cuMemPoolImportPointer(ptr: *mut u64, pool: usize, data: *const [u64; 8]) -> CUresult {
    fake_enter!("cuMemPoolImportPointer");
    let _ = ctx!();
    nonnull!(ptr, data);
    let d = unsafe { data.read_unaligned() };
    if d[0] != EXPORT_MAGIC {
        return INVALID_VALUE;
    }
    match with_book(|b| b.allocs.get(&d[1]).copied()) {
        Some((p, _)) if p == pool => {
            unsafe { *ptr = d[1] };
            SUCCESS
        }
        _ => INVALID_VALUE,
    }
}

// ---- Stream-ordered allocation ---------------------------------------------

fn alloc_async(dptr: *mut u64, size: usize, pool: Option<usize>, stream: *mut c_void) -> CUresult {
    let c = ctx!();
    nonnull!(dptr);
    if size == 0 {
        return INVALID_VALUE;
    }
    // More than the device has: out of memory, as the real driver answers.
    if size > crate::device::TOTAL_MEM {
        return 2;
    }
    let r = with_book(|b| {
        let pool = pool.unwrap_or_else(|| b.device_pools(c.device).1);
        b.alloc(pool, size)
    });
    match r {
        Ok(p) => {
            // The block becomes usable in stream order; nothing to do on the
            // host, but the stream sees the operation.
            stream::enqueue(stream, Box::new(|| {}));
            unsafe { *dptr = p };
            SUCCESS
        }
        Err(e) => e,
    }
}

pub unsafe extern "C" fn cuMemAllocAsync(dptr: *mut u64, size: usize, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemAllocAsync");
    alloc_async(dptr, size, None, stream)
}

pub unsafe extern "C" fn cuMemAllocFromPoolAsync(dptr: *mut u64, size: usize, pool: usize, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemAllocFromPoolAsync");
    if !with_book(|b| b.pool(pool).is_some()) {
        let _ = ctx!();
        return INVALID_VALUE;
    }
    alloc_async(dptr, size, Some(pool), stream)
}

pub unsafe extern "C" fn cuMemFreeAsync(ptr: u64, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemFreeAsync");
    let _ = ctx!();
    if !with_book(|b| b.allocs.contains_key(&ptr)) {
        return INVALID_VALUE;
    }
    stream::enqueue(stream, Box::new(move || with_book(|b| b.release(ptr))));
    SUCCESS
}

/// Live stream-ordered allocations (test control API).
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_async_allocations() -> u64 {
    with_book(|b| b.allocs.len() as u64)
}

// ---- IPC -------------------------------------------------------------------

const IPC_MEM_MAGIC: u64 = 0x4649_5043_4d45_4d00;
const IPC_EVENT_MAGIC: u64 = 0x4649_5043_4556_5400;

/// A 64-byte IPC handle, passed by value as the C struct is.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct IpcHandle(pub [u64; 8]);

/// Pointers opened through IPC and their open counts.
static IPC_OPEN: Mutex<Vec<(u64, u32)>> = Mutex::new(Vec::new());

/// The handle encodes the exporting process and the pointer, so opening it
/// in the same process maps the same memory.
pub unsafe extern "C" fn cuIpcGetMemHandle(handle: *mut [u64; 8], ptr: u64) -> CUresult {
    fake_enter!("cuIpcGetMemHandle");
    let _ = ctx!();
    nonnull!(handle);
    if ptr == 0 {
        return INVALID_VALUE;
    }
    unsafe { handle.write_unaligned([IPC_MEM_MAGIC, ptr, std::process::id() as u64, 0, 0, 0, 0, 0]) };
    SUCCESS
}

pub unsafe extern "C" fn cuIpcOpenMemHandle_v2(dptr: *mut u64, handle: IpcHandle, flags: c_uint) -> CUresult {
    fake_enter!("cuIpcOpenMemHandle");
    let handle = handle.0;
    let _ = ctx!();
    nonnull!(dptr);
    if handle[0] != IPC_MEM_MAGIC || flags > 1 {
        return INVALID_VALUE;
    }
    if handle[2] != std::process::id() as u64 {
        return NOT_SUPPORTED; // another process's memory: GPU only
    }
    let mut open = IPC_OPEN.lock();
    match open.iter_mut().find(|e| e.0 == handle[1]) {
        Some(e) => e.1 += 1,
        None => open.push((handle[1], 1)),
    }
    unsafe { *dptr = handle[1] };
    SUCCESS
}

pub unsafe extern "C" fn cuIpcCloseMemHandle(ptr: u64) -> CUresult {
    fake_enter!("cuIpcCloseMemHandle");
    let _ = ctx!();
    let mut open = IPC_OPEN.lock();
    match open.iter().position(|e| e.0 == ptr) {
        Some(i) => {
            open[i].1 -= 1;
            if open[i].1 == 0 {
                open.swap_remove(i);
            }
            SUCCESS
        }
        None => INVALID_VALUE,
    }
}

pub unsafe extern "C" fn cuIpcGetEventHandle(handle: *mut [u64; 8], event: *mut c_void) -> CUresult {
    fake_enter!("cuIpcGetEventHandle");
    let _ = ctx!();
    nonnull!(handle);
    if event.is_null() {
        return INVALID_HANDLE;
    }
    unsafe { handle.write_unaligned([IPC_EVENT_MAGIC, event as u64, std::process::id() as u64, 0, 0, 0, 0, 0]) };
    SUCCESS
}

pub unsafe extern "C" fn cuIpcOpenEventHandle(event: *mut *mut c_void, handle: IpcHandle) -> CUresult {
    fake_enter!("cuIpcOpenEventHandle");
    let handle = handle.0;
    let _ = ctx!();
    nonnull!(event);
    if handle[0] != IPC_EVENT_MAGIC {
        return INVALID_VALUE;
    }
    unsafe { *event = handle[1] as *mut c_void };
    SUCCESS
}

// ---- External memory and semaphores ----------------------------------------

/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC` (104 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ExtMemDesc {
    pub ty: c_int,
    pub handle: [u64; 2],
    pub size: u64,
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

struct ExtMem {
    base: u64,
    size: u64,
}

/// External memory objects (handle -> mapping) and the mipmapped-array
/// descriptors they produced (handle -> 120 bytes).
static EXT_MEM: Mutex<Vec<(usize, ExtMem)>> = Mutex::new(Vec::new());
static MIPMAPS: Mutex<Vec<(usize, [u8; 120])>> = Mutex::new(Vec::new());
static NEXT_HANDLE: AtomicU64 = AtomicU64::new(0x5000_0000);

fn next_handle() -> usize {
    NEXT_HANDLE.fetch_add(0x40, Ordering::Relaxed) as usize
}

/// Opaque fds only: the fd's first `size` bytes are mapped shared (so a
/// memfd written by the test shows through), then the fd is closed, as the
/// driver takes ownership of it.
pub unsafe extern "C" fn cuImportExternalMemory(out: *mut usize, desc: *const ExtMemDesc) -> CUresult {
    fake_enter!("cuImportExternalMemory");
    let _ = ctx!();
    nonnull!(out, desc);
    let d = unsafe { *desc };
    if d.ty != 1 {
        return if (2..=8).contains(&d.ty) { NOT_SUPPORTED } else { INVALID_VALUE };
    }
    let fd = d.handle[0] as u32 as c_int;
    if fd < 0 || d.size == 0 || d.flags & !1 != 0 {
        return INVALID_VALUE;
    }
    let p = unsafe {
        libc::mmap(std::ptr::null_mut(), d.size as usize, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0)
    };
    if p == libc::MAP_FAILED {
        return INVALID_VALUE;
    }
    unsafe { libc::close(fd) };
    let h = next_handle();
    EXT_MEM.lock().push((h, ExtMem { base: p as u64, size: d.size }));
    unsafe { *out = h };
    SUCCESS
}

/// `CUDA_EXTERNAL_MEMORY_BUFFER_DESC` (88 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ExtBufDesc {
    pub offset: u64,
    pub size: u64,
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

pub unsafe extern "C" fn cuExternalMemoryGetMappedBuffer(dptr: *mut u64, mem: usize, desc: *const ExtBufDesc) -> CUresult {
    fake_enter!("cuExternalMemoryGetMappedBuffer");
    let _ = ctx!();
    nonnull!(dptr, desc);
    let d = unsafe { *desc };
    let list = EXT_MEM.lock();
    let Some((_, m)) = list.iter().find(|e| e.0 == mem) else { return INVALID_HANDLE };
    if d.flags != 0 || d.size == 0 || d.offset.checked_add(d.size).is_none_or(|end| end > m.size) {
        return INVALID_VALUE;
    }
    unsafe { *dptr = m.base + d.offset };
    SUCCESS
}

pub unsafe extern "C" fn cuExternalMemoryGetMappedMipmappedArray(out: *mut usize, mem: usize, desc: *const [u8; 120]) -> CUresult {
    fake_enter!("cuExternalMemoryGetMappedMipmappedArray");
    let _ = ctx!();
    nonnull!(out, desc);
    if !EXT_MEM.lock().iter().any(|e| e.0 == mem) {
        return INVALID_HANDLE;
    }
    let h = next_handle();
    MIPMAPS.lock().push((h, unsafe { *desc }));
    unsafe { *out = h };
    SUCCESS
}

/// The `CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC` a mipmapped array was
/// made from (test control API): copies 120 bytes, returns 0 if known.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_mipmap_desc(mipmap: usize, out: *mut [u8; 120]) -> c_int {
    match MIPMAPS.lock().iter().find(|e| e.0 == mipmap) {
        Some((_, d)) => {
            unsafe { *out = *d };
            0
        }
        None => 1,
    }
}

pub unsafe extern "C" fn cuDestroyExternalMemory(mem: usize) -> CUresult {
    fake_enter!("cuDestroyExternalMemory");
    let _ = ctx!();
    let mut list = EXT_MEM.lock();
    let Some(i) = list.iter().position(|e| e.0 == mem) else { return INVALID_HANDLE };
    let (_, m) = list.swap_remove(i);
    unsafe { libc::munmap(m.base as *mut c_void, m.size as usize) };
    SUCCESS
}

/// `CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC` (96 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ExtSemDesc {
    pub ty: c_int,
    pub handle: [u64; 2],
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

/// Semaphores: handle -> (type, value).
static SEMS: Mutex<Vec<(usize, c_int, u64)>> = Mutex::new(Vec::new());

/// Opaque fds (binary) and timeline fds; the fd is closed on success.
pub unsafe extern "C" fn cuImportExternalSemaphore(out: *mut usize, desc: *const ExtSemDesc) -> CUresult {
    fake_enter!("cuImportExternalSemaphore");
    let _ = ctx!();
    nonnull!(out, desc);
    let d = unsafe { *desc };
    if !matches!(d.ty, 1 | 9) {
        return if (2..=10).contains(&d.ty) { NOT_SUPPORTED } else { INVALID_VALUE };
    }
    let fd = d.handle[0] as u32 as c_int;
    if fd < 0 || d.flags != 0 || unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return INVALID_VALUE;
    }
    unsafe { libc::close(fd) };
    let h = next_handle();
    SEMS.lock().push((h, d.ty, 0));
    unsafe { *out = h };
    SUCCESS
}

/// Signal/wait parameters (144 bytes): fence value first, flags at 72.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SemParams {
    pub fence_value: u64,
    pub rest: [u64; 8],
    pub flags: c_uint,
    pub reserved: [c_uint; 16],
}

fn sem_op(sems: *const usize, params: *const SemParams, n: c_uint, stream: *mut c_void, signal: bool) -> CUresult {
    let _ = ctx!();
    if n == 0 {
        return SUCCESS;
    }
    if sems.is_null() || params.is_null() {
        return INVALID_VALUE;
    }
    let (hs, ps) = unsafe { (std::slice::from_raw_parts(sems, n as usize), std::slice::from_raw_parts(params, n as usize)) };
    {
        let list = SEMS.lock();
        for (h, p) in hs.iter().zip(ps) {
            if !list.iter().any(|e| e.0 == *h) {
                return INVALID_HANDLE;
            }
            if p.flags != 0 {
                return INVALID_VALUE;
            }
        }
    }
    let ops: Vec<(usize, u64)> = hs.iter().zip(ps).map(|(h, p)| (*h, p.fence_value)).collect();
    stream::enqueue(
        stream,
        Box::new(move || {
            let mut list = SEMS.lock();
            for (h, v) in ops {
                if let Some(e) = list.iter_mut().find(|e| e.0 == h) {
                    // Binary: signal sets 1, wait consumes it. Timeline:
                    // signal stores the value; wait leaves it.
                    match (e.1, signal) {
                        (9, true) => e.2 = v,
                        (9, false) => {}
                        (_, true) => e.2 = 1,
                        (_, false) => e.2 = 0,
                    }
                }
            }
        }),
    );
    SUCCESS
}

pub unsafe extern "C" fn cuSignalExternalSemaphoresAsync(sems: *const usize, params: *const SemParams, n: c_uint, stream: *mut c_void) -> CUresult {
    fake_enter!("cuSignalExternalSemaphoresAsync");
    sem_op(sems, params, n, stream, true)
}

pub unsafe extern "C" fn cuWaitExternalSemaphoresAsync(sems: *const usize, params: *const SemParams, n: c_uint, stream: *mut c_void) -> CUresult {
    fake_enter!("cuWaitExternalSemaphoresAsync");
    sem_op(sems, params, n, stream, false)
}

/// The value of a semaphore (test control API); `u64::MAX` if unknown.
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_semaphore_value(sem: usize) -> u64 {
    SEMS.lock().iter().find(|e| e.0 == sem).map_or(u64::MAX, |e| e.2)
}

pub unsafe extern "C" fn cuDestroyExternalSemaphore(sem: usize) -> CUresult {
    fake_enter!("cuDestroyExternalSemaphore");
    let _ = ctx!();
    let mut list = SEMS.lock();
    match list.iter().position(|e| e.0 == sem) {
        Some(i) => {
            list.swap_remove(i);
            SUCCESS
        }
        None => INVALID_HANDLE,
    }
}

// ---- Texture and surface objects -------------------------------------------

/// An object's descriptors as they reached the driver: resource (144
/// bytes), texture (104, textures only), view (112, when given).
struct TexObj {
    res: [u8; 144],
    tex: Option<[u8; 104]>,
    view: Option<[u8; 112]>,
}

static TEX: Mutex<Vec<(u64, TexObj)>> = Mutex::new(Vec::new());
static NEXT_TEX: AtomicU64 = AtomicU64::new(1);

fn res_ok(res: &[u8; 144]) -> bool {
    let ty = c_int::from_ne_bytes(res[0..4].try_into().unwrap());
    let handle = u64::from_ne_bytes(res[8..16].try_into().unwrap());
    (0..=3).contains(&ty) && handle != 0
}

pub unsafe extern "C" fn cuTexObjectCreate(out: *mut u64, res: *const [u8; 144], tex: *const [u8; 104], view: *const [u8; 112]) -> CUresult {
    fake_enter!("cuTexObjectCreate");
    let _ = ctx!();
    nonnull!(out, res, tex);
    let r = unsafe { *res };
    if !res_ok(&r) {
        return INVALID_VALUE;
    }
    let id = NEXT_TEX.fetch_add(1, Ordering::Relaxed);
    TEX.lock().push((id, TexObj { res: r, tex: Some(unsafe { *tex }), view: unsafe { view.as_ref() }.copied() }));
    unsafe { *out = id };
    SUCCESS
}

pub unsafe extern "C" fn cuSurfObjectCreate(out: *mut u64, res: *const [u8; 144]) -> CUresult {
    fake_enter!("cuSurfObjectCreate");
    let _ = ctx!();
    nonnull!(out, res);
    let r = unsafe { *res };
    if !res_ok(&r) || r[0..4] != [0; 4] {
        return INVALID_VALUE;
    }
    let id = NEXT_TEX.fetch_add(1, Ordering::Relaxed);
    TEX.lock().push((id, TexObj { res: r, tex: None, view: None }));
    unsafe { *out = id };
    SUCCESS
}

fn destroy_obj(id: u64, texture: bool) -> CUresult {
    let _ = ctx!();
    let mut list = TEX.lock();
    match list.iter().position(|e| e.0 == id && e.1.tex.is_some() == texture) {
        Some(i) => {
            list.swap_remove(i);
            SUCCESS
        }
        None => INVALID_VALUE,
    }
}

pub unsafe extern "C" fn cuTexObjectDestroy(id: u64) -> CUresult {
    fake_enter!("cuTexObjectDestroy");
    destroy_obj(id, true)
}

pub unsafe extern "C" fn cuSurfObjectDestroy(id: u64) -> CUresult {
    fake_enter!("cuSurfObjectDestroy");
    destroy_obj(id, false)
}

fn get_obj<const N: usize>(out: *mut [u8; N], id: u64, texture: bool, pick: impl Fn(&TexObj) -> Option<[u8; N]>) -> CUresult {
    let _ = ctx!();
    nonnull!(out);
    let list = TEX.lock();
    let Some((_, o)) = list.iter().find(|e| e.0 == id && e.1.tex.is_some() == texture) else { return INVALID_VALUE };
    match pick(o) {
        Some(d) => {
            unsafe { *out = d };
            SUCCESS
        }
        None => INVALID_VALUE,
    }
}

pub unsafe extern "C" fn cuTexObjectGetResourceDesc(out: *mut [u8; 144], id: u64) -> CUresult {
    fake_enter!("cuTexObjectGetResourceDesc");
    get_obj(out, id, true, |o| Some(o.res))
}

pub unsafe extern "C" fn cuTexObjectGetTextureDesc(out: *mut [u8; 104], id: u64) -> CUresult {
    fake_enter!("cuTexObjectGetTextureDesc");
    get_obj(out, id, true, |o| o.tex)
}

pub unsafe extern "C" fn cuTexObjectGetResourceViewDesc(out: *mut [u8; 112], id: u64) -> CUresult {
    fake_enter!("cuTexObjectGetResourceViewDesc");
    get_obj(out, id, true, |o| o.view)
}

pub unsafe extern "C" fn cuSurfObjectGetResourceDesc(out: *mut [u8; 144], id: u64) -> CUresult {
    fake_enter!("cuSurfObjectGetResourceDesc");
    get_obj(out, id, false, |o| Some(o.res))
}

/// The texture descriptor (104 bytes) as it reached the driver (test control
/// API): returns 0 if the object is known.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_texture_desc(id: u64, out: *mut [u8; 104]) -> c_int {
    match TEX.lock().iter().find(|e| e.0 == id).and_then(|e| e.1.tex) {
        Some(d) => {
            unsafe { *out = d };
            0
        }
        None => 1,
    }
}

// ---- Logs ------------------------------------------------------------------

type LogCallback = unsafe extern "C" fn(*mut c_void, c_int, *mut c_char, usize);

struct Logs {
    entries: Vec<String>,
    callbacks: Vec<(usize, LogCallback, usize)>,
}

static LOGS: Mutex<Logs> = Mutex::new(Logs { entries: Vec::new(), callbacks: Vec::new() });

pub unsafe extern "C" fn cuLogsRegisterCallback(cb: Option<LogCallback>, user: *mut c_void, out: *mut usize) -> CUresult {
    fake_enter!("cuLogsRegisterCallback");
    nonnull!(out);
    let Some(cb) = cb else { return INVALID_VALUE };
    let h = next_handle();
    LOGS.lock().callbacks.push((h, cb, user as usize));
    unsafe { *out = h };
    SUCCESS
}

pub unsafe extern "C" fn cuLogsUnregisterCallback(h: usize) -> CUresult {
    fake_enter!("cuLogsUnregisterCallback");
    let mut l = LOGS.lock();
    match l.callbacks.iter().position(|c| c.0 == h) {
        Some(i) => {
            l.callbacks.remove(i);
            SUCCESS
        }
        None => INVALID_VALUE,
    }
}

pub unsafe extern "C" fn cuLogsCurrent(it: *mut c_uint, flags: c_uint) -> CUresult {
    fake_enter!("cuLogsCurrent");
    nonnull!(it);
    if flags != 0 {
        return INVALID_VALUE;
    }
    unsafe { *it = LOGS.lock().entries.len() as c_uint };
    SUCCESS
}

/// The log from `it` (NULL: all), one message per line; advances `it`.
fn log_text(it: *mut c_uint) -> String {
    let l = LOGS.lock();
    let from = unsafe { it.as_ref() }.map_or(0, |&i| i as usize).min(l.entries.len());
    let s: String = l.entries[from..].iter().map(|e| format!("{e}\n")).collect();
    if let Some(i) = unsafe { it.as_mut() } {
        *i = l.entries.len() as c_uint;
    }
    s
}

pub unsafe extern "C" fn cuLogsDumpToFile(it: *mut c_uint, path: *const c_char, flags: c_uint) -> CUresult {
    fake_enter!("cuLogsDumpToFile");
    nonnull!(path);
    if flags != 0 {
        return INVALID_VALUE;
    }
    let path = unsafe { std::ffi::CStr::from_ptr(path) }.to_string_lossy().into_owned();
    let text = log_text(it);
    match std::fs::write(path, text) {
        Ok(()) => SUCCESS,
        Err(_) => INVALID_VALUE,
    }
}

/// Writes at most `*size - 1` bytes and a NUL; `*size` becomes the bytes
/// written (without the NUL).
pub unsafe extern "C" fn cuLogsDumpToMemory(it: *mut c_uint, buf: *mut c_char, size: *mut usize, flags: c_uint) -> CUresult {
    fake_enter!("cuLogsDumpToMemory");
    nonnull!(buf, size);
    if flags != 0 || unsafe { *size } == 0 {
        return INVALID_VALUE;
    }
    let text = log_text(it);
    let n = text.len().min(unsafe { *size } - 1);
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast(), buf, n);
        *buf.add(n) = 0;
        *size = n;
    }
    SUCCESS
}

/// Append a message to the driver's log and call the callbacks (test
/// control API).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_log(level: c_int, msg: *const c_char) {
    let text = unsafe { std::ffi::CStr::from_ptr(msg) }.to_string_lossy().into_owned();
    let callbacks = {
        let mut l = LOGS.lock();
        l.entries.push(text.clone());
        l.callbacks.clone()
    };
    let mut bytes = text.into_bytes();
    bytes.push(0);
    for (_, cb, user) in callbacks {
        unsafe { cb(user as *mut c_void, level, bytes.as_mut_ptr().cast(), bytes.len() - 1) };
    }
}

// ---- Graphics interop (API-independent calls) -------------------------------

/// A registered graphics resource.
struct Graphics {
    handle: usize,
    ptr: u64,
    size: usize,
    mapped: bool,
    map_flags: c_uint,
}

static GRAPHICS: Mutex<Vec<Graphics>> = Mutex::new(Vec::new());

/// A registered graphics resource backed by `size` bytes at `ptr`, as if a
/// GL buffer had been registered (test control API).
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_graphics_resource(ptr: u64, size: usize) -> usize {
    let h = next_handle();
    GRAPHICS.lock().push(Graphics { handle: h, ptr, size, mapped: false, map_flags: 0 });
    h
}

pub unsafe extern "C" fn cuGraphicsUnregisterResource(res: usize) -> CUresult {
    fake_enter!("cuGraphicsUnregisterResource");
    let _ = ctx!();
    let mut g = GRAPHICS.lock();
    match g.iter().position(|e| e.handle == res) {
        Some(i) => {
            g.swap_remove(i);
            SUCCESS
        }
        None => INVALID_HANDLE,
    }
}

pub unsafe extern "C" fn cuGraphicsResourceSetMapFlags_v2(res: usize, flags: c_uint) -> CUresult {
    fake_enter!("cuGraphicsResourceSetMapFlags");
    let _ = ctx!();
    if flags > 2 {
        return INVALID_VALUE;
    }
    let mut g = GRAPHICS.lock();
    let Some(e) = g.iter_mut().find(|e| e.handle == res) else { return INVALID_HANDLE };
    if e.mapped {
        return 208; // CUDA_ERROR_ALREADY_MAPPED
    }
    e.map_flags = flags;
    SUCCESS
}

fn map_resources(count: c_uint, res: *const usize, stream: *mut c_void, map: bool) -> CUresult {
    let _ = ctx!();
    if count == 0 || res.is_null() {
        return INVALID_VALUE;
    }
    let hs = unsafe { std::slice::from_raw_parts(res, count as usize) };
    let mut g = GRAPHICS.lock();
    for h in hs {
        match g.iter().find(|e| e.handle == *h) {
            None => return INVALID_HANDLE,
            Some(e) if e.mapped == map => return if map { 208 } else { 211 }, // ALREADY_MAPPED / NOT_MAPPED
            _ => {}
        }
    }
    for h in hs {
        if let Some(e) = g.iter_mut().find(|e| e.handle == *h) {
            e.mapped = map;
        }
    }
    stream::enqueue(stream, Box::new(|| {}));
    SUCCESS
}

pub unsafe extern "C" fn cuGraphicsMapResources(count: c_uint, res: *const usize, stream: *mut c_void) -> CUresult {
    fake_enter!("cuGraphicsMapResources");
    map_resources(count, res, stream, true)
}

pub unsafe extern "C" fn cuGraphicsUnmapResources(count: c_uint, res: *const usize, stream: *mut c_void) -> CUresult {
    fake_enter!("cuGraphicsUnmapResources");
    map_resources(count, res, stream, false)
}

pub unsafe extern "C" fn cuGraphicsResourceGetMappedPointer_v2(dptr: *mut u64, size: *mut usize, res: usize) -> CUresult {
    fake_enter!("cuGraphicsResourceGetMappedPointer");
    let _ = ctx!();
    nonnull!(dptr, size);
    let g = GRAPHICS.lock();
    let Some(e) = g.iter().find(|e| e.handle == res) else { return INVALID_HANDLE };
    if !e.mapped {
        return 211; // CUDA_ERROR_NOT_MAPPED
    }
    unsafe {
        *dptr = e.ptr;
        *size = e.size;
    }
    SUCCESS
}

/// EGL frames of resources, as the driver's `CUeglFrame` bytes (the fake
/// does not interpret them): what `cuGraphicsResourceGetMappedEglFrame`
/// returns.
static EGL_FRAMES: Mutex<Vec<(usize, Vec<u8>)>> = Mutex::new(Vec::new());

/// Makes `res` an EGL resource whose frame is the `len` bytes at `frame`, a
/// `CUeglFrame` (test control API).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_graphics_egl_frame(res: usize, frame: *const u8, len: usize) {
    let bytes = unsafe { std::slice::from_raw_parts(frame, len) }.to_vec();
    let mut f = EGL_FRAMES.lock();
    f.retain(|e| e.0 != res);
    f.push((res, bytes));
}

/// Registered EGL resources are always mapped; index and level 0 only.
pub unsafe extern "C" fn cuGraphicsResourceGetMappedEglFrame(frame: *mut u8, res: usize, index: c_uint, level: c_uint) -> CUresult {
    fake_enter!("cuGraphicsResourceGetMappedEglFrame");
    let _ = ctx!();
    nonnull!(frame);
    if !GRAPHICS.lock().iter().any(|e| e.handle == res) {
        return INVALID_HANDLE;
    }
    let f = EGL_FRAMES.lock();
    let Some((_, bytes)) = f.iter().find(|e| e.0 == res) else { return 211 }; // CUDA_ERROR_NOT_MAPPED
    if index != 0 || level != 0 {
        return INVALID_VALUE;
    }
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), frame, bytes.len()) };
    SUCCESS
}

/// Every device drives the (pretend) GL context, listed in reverse order so
/// tests see the device numbers converted, not copied.
pub unsafe extern "C" fn cuGLGetDevices_v2(count: *mut c_uint, devs: *mut c_int, max: c_uint, list: c_int) -> CUresult {
    fake_enter!("cuGLGetDevices");
    if let Err(e) = device::initialized() {
        return e;
    }
    nonnull!(count);
    if !(1..=3).contains(&list) {
        return INVALID_VALUE;
    }
    let n = knobs::get().devices.max(0) as c_uint;
    unsafe { *count = n };
    for i in 0..n.min(max) {
        unsafe { *devs.add(i as usize) = (n - 1 - i) as c_int };
    }
    SUCCESS
}

pub static SYMBOLS: Symbols = &[
    sym!(cuDeviceGetDefaultMemPool),
    sym!(cuDeviceGetMemPool),
    sym!(cuDeviceSetMemPool),
    sym!(cuMemGetDefaultMemPool),
    sym!(cuMemGetMemPool),
    sym!(cuMemSetMemPool),
    sym!(cuMemPoolCreate),
    sym!(cuMemPoolDestroy),
    sym!(cuMemPoolTrimTo),
    sym!(cuMemPoolGetAttribute),
    sym!(cuMemPoolSetAttribute),
    sym!(cuMemPoolSetAccess),
    sym!(cuMemPoolGetAccess),
    sym!(cuMemPoolExportToShareableHandle),
    sym!(cuMemPoolImportFromShareableHandle),
    sym!(cuMemPoolExportPointer),
    sym!(cuMemPoolImportPointer),
    sym!(cuMemAllocAsync),
    sym!(cuMemAllocFromPoolAsync),
    sym!(cuMemFreeAsync),
    sym!(cuIpcGetMemHandle),
    sym!("cuIpcOpenMemHandle" => cuIpcOpenMemHandle_v2),
    sym!(cuIpcCloseMemHandle),
    sym!(cuIpcGetEventHandle),
    sym!(cuIpcOpenEventHandle),
    sym!(cuImportExternalMemory),
    sym!(cuExternalMemoryGetMappedBuffer),
    sym!(cuExternalMemoryGetMappedMipmappedArray),
    sym!(cuDestroyExternalMemory),
    sym!(cuImportExternalSemaphore),
    sym!(cuSignalExternalSemaphoresAsync),
    sym!(cuWaitExternalSemaphoresAsync),
    sym!(cuDestroyExternalSemaphore),
    sym!(cuTexObjectCreate),
    sym!(cuTexObjectDestroy),
    sym!(cuTexObjectGetResourceDesc),
    sym!(cuTexObjectGetTextureDesc),
    sym!(cuTexObjectGetResourceViewDesc),
    sym!(cuSurfObjectCreate),
    sym!(cuSurfObjectDestroy),
    sym!(cuSurfObjectGetResourceDesc),
    sym!(cuLogsRegisterCallback),
    sym!(cuLogsUnregisterCallback),
    sym!(cuLogsCurrent),
    sym!(cuLogsDumpToFile),
    sym!(cuLogsDumpToMemory),
    sym!(cuGraphicsUnregisterResource),
    sym!("cuGraphicsResourceSetMapFlags" => cuGraphicsResourceSetMapFlags_v2),
    sym!(cuGraphicsMapResources),
    sym!(cuGraphicsUnmapResources),
    sym!("cuGraphicsResourceGetMappedPointer" => cuGraphicsResourceGetMappedPointer_v2),
    sym!("cuGLGetDevices" => cuGLGetDevices_v2),
    sym!(cuGraphicsResourceGetMappedEglFrame),
];
