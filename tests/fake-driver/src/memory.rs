//! Fake driver: memory, unified addressing and peer access.
//!
//! Every allocation is host memory recorded in one registry (base, size,
//! kind, device), so pointer attributes, address ranges and the checks of
//! typed copies (HtoD needs a device destination, ...) behave like the
//! driver's. Copies and sets really move bytes: 2D/3D copies honour pitches,
//! offsets and slice heights; CUDA arrays are host buffers with their own
//! row-major layout (row = width x element size). Async work goes through
//! `crate::stream::enqueue`.
//!
//! Test control: `fake_cuda_mem_kind(ptr)` returns the registry kind of an
//! address (0 unknown, 1 device, 2 host, 3 registered, 4 managed),
//! `fake_cuda_peer_enabled(dev, peer)` whether peer access is on, and
//! `fake_cuda_device_memory_held(dev, &peak)` the device memory the real
//! driver would hold for the process's `cuMemAlloc`s, at its granularity
//! (see [`Held`]).

use crate::device::{current_active, TOTAL_MEM};
use crate::*;
use parking_lot::Mutex;
use std::alloc::Layout;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

const OUT_OF_MEMORY: CUresult = 2;
const PEER_ACCESS_UNSUPPORTED: CUresult = 217;
const INVALID_HANDLE: CUresult = 400;
const PEER_ACCESS_ALREADY_ENABLED: CUresult = 704;
const PEER_ACCESS_NOT_ENABLED: CUresult = 705;
const HOST_MEMORY_ALREADY_REGISTERED: CUresult = 712;
const HOST_MEMORY_NOT_REGISTERED: CUresult = 713;

type R = Result<(), CUresult>;

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
}

fn done(r: R) -> CUresult {
    r.err().unwrap_or(SUCCESS)
}

// ---------------------------------------------------------------- registry

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Device = 1,
    Host = 2,
    Registered = 3,
    Managed = 4,
}

#[derive(Clone, Copy, Debug)]
struct Alloc {
    size: usize,
    kind: Kind,
    device: c_int,
    flags: c_uint,
    /// Managed memory: last prefetch location, preferred location, read-mostly
    /// (locations: a device number, -1 the host, -2 none), and who has
    /// AccessedBy set (bit 0 the host, bit d + 1 device d).
    prefetched: c_int,
    preferred: c_int,
    read_mostly: bool,
    accessed_by: u64,
}

static ALLOCS: Mutex<BTreeMap<usize, Alloc>> = Mutex::new(BTreeMap::new());

/// The allocation containing `addr`, as (base, record).
fn find(addr: usize) -> Option<(usize, Alloc)> {
    let g = ALLOCS.lock();
    let (&base, a) = g.range(..=addr).next_back()?;
    (addr < base + a.size.max(1)).then_some((base, *a))
}

/// Whether `addr` is device memory (for the activity records' copy kinds).
pub(crate) fn on_device(addr: usize) -> bool {
    find(addr).is_some_and(|(_, a)| a.kind == Kind::Device)
}

/// The allocation containing all of `[addr, addr + len)`.
fn find_range(addr: usize, len: usize) -> Option<(usize, Alloc)> {
    let (base, a) = find(addr)?;
    (addr.checked_add(len)? <= base + a.size).then_some((base, a))
}

const ALIGN: usize = 256;

fn layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.max(1), ALIGN).ok()
}

fn device_bytes_in_use(device: c_int) -> usize {
    ALLOCS.lock().values().filter(|a| a.device == device && a.kind != Kind::Registered).map(|a| a.size).sum()
}

// ---------------------------------------------------------------- held, the driver's way

const HELD_PAGE: usize = 2 << 20;
const HELD_SMALL_MAX: usize = 1 << 20;
const HELD_SMALL_ALIGN: usize = 512;

/// The device memory the real driver holds for `cuMemAlloc` /
/// `cuMemAllocPitch` (what `cuMemGetInfo`'s used bytes move by on a GPU):
/// requests up to 1 MiB are packed, rounded to 512 B, into 2 MiB pages
/// that stay held while anything lives in them (first fit); larger
/// requests take whole 2 MiB pages of their own. So NVIDIA's GPUs behave:
/// small `cudaMalloc`s come back 512 B apart inside one 2 MiB range, larger
/// ones 2 MiB aligned with their size rounded up to 2 MiB. The model is
/// optimistic about packing (no fragmentation inside a page). The fake's
/// own `cuMemGetInfo` keeps counting exact bytes.
#[derive(Default)]
pub struct Held {
    /// Bytes in use per small page (0: the page is not held).
    pages: Vec<usize>,
    /// Small allocation -> (page, rounded bytes).
    small: HashMap<usize, (usize, usize)>,
    bytes: usize,
    peak: usize,
}

impl Held {
    fn add(&mut self, p: usize, size: usize) {
        if size <= HELD_SMALL_MAX {
            let n = size.next_multiple_of(HELD_SMALL_ALIGN);
            let page = match self.pages.iter().position(|&used| used > 0 && used + n <= HELD_PAGE) {
                Some(i) => i,
                None => {
                    self.bytes += HELD_PAGE;
                    match self.pages.iter().position(|&used| used == 0) {
                        Some(i) => i,
                        None => {
                            self.pages.push(0);
                            self.pages.len() - 1
                        }
                    }
                }
            };
            self.pages[page] += n;
            self.small.insert(p, (page, n));
        } else {
            self.bytes += size.next_multiple_of(HELD_PAGE);
        }
        self.peak = self.peak.max(self.bytes);
    }

    fn remove(&mut self, p: usize, size: usize) {
        if size <= HELD_SMALL_MAX {
            if let Some((page, n)) = self.small.remove(&p) {
                self.pages[page] -= n;
                if self.pages[page] == 0 {
                    self.bytes -= HELD_PAGE;
                }
            }
        } else {
            self.bytes -= size.next_multiple_of(HELD_PAGE);
        }
    }
}

static HELD: Mutex<BTreeMap<c_int, Held>> = Mutex::new(BTreeMap::new());

/// Allocate `size` zeroed bytes of `kind` for the current context's device.
fn allocate(size: usize, kind: Kind, flags: c_uint) -> Result<usize, CUresult> {
    let ctx = current_active()?;
    if size == 0 {
        return Err(INVALID_VALUE);
    }
    if size > TOTAL_MEM.saturating_sub(device_bytes_in_use(ctx.device)) {
        return Err(OUT_OF_MEMORY);
    }
    let l = layout(size).ok_or(OUT_OF_MEMORY)?;
    // SAFETY: non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(l) } as usize;
    if p == 0 {
        return Err(OUT_OF_MEMORY);
    }
    let a = Alloc { size, kind, device: ctx.device, flags, prefetched: -2, preferred: -2, read_mostly: false, accessed_by: 0 };
    ALLOCS.lock().insert(p, a);
    if kind == Kind::Device {
        HELD.lock().entry(ctx.device).or_default().add(p, size);
    }
    Ok(p)
}

/// Free the allocation based at `p` if it is one of `kinds`.
fn release(p: usize, kinds: &[Kind]) -> R {
    current_active()?;
    let mut g = ALLOCS.lock();
    match g.get(&p) {
        Some(a) if kinds.contains(&a.kind) => {
            let l = layout(a.size).unwrap();
            let a = *a;
            g.remove(&p);
            drop(g);
            if a.kind == Kind::Device {
                HELD.lock().entry(a.device).or_default().remove(p, a.size);
            }
            // SAFETY: allocated by `allocate` with this layout.
            unsafe { std::alloc::dealloc(p as *mut u8, l) };
            Ok(())
        }
        _ => Err(INVALID_VALUE),
    }
}

unsafe fn put<T>(p: *mut T, v: T) -> R {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    unsafe { p.write(v) };
    Ok(())
}

// ---------------------------------------------------------------- allocation

pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut u64, size: usize) -> CUresult {
    fake_enter!("cuMemAlloc");
    if dptr.is_null() {
        return INVALID_VALUE;
    }
    let p = tri!(allocate(size, Kind::Device, 0));
    done(unsafe { put(dptr, p as u64) })
}

pub unsafe extern "C" fn cuMemAllocPitch_v2(dptr: *mut u64, pitch: *mut usize, w: usize, h: usize, elem: c_uint) -> CUresult {
    fake_enter!("cuMemAllocPitch");
    if dptr.is_null() || pitch.is_null() || w == 0 || h == 0 || !matches!(elem, 4 | 8 | 16) {
        return INVALID_VALUE;
    }
    let pt = w.div_ceil(512) * 512;
    let p = tri!(allocate(pt * h, Kind::Device, 0));
    unsafe { *pitch = pt };
    done(unsafe { put(dptr, p as u64) })
}

pub unsafe extern "C" fn cuMemFree_v2(dptr: u64) -> CUresult {
    fake_enter!("cuMemFree");
    done(release(dptr as usize, &[Kind::Device, Kind::Managed]))
}

pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, size: usize) -> CUresult {
    fake_enter!("cuMemAllocHost");
    if pp.is_null() {
        return INVALID_VALUE;
    }
    // cuMemAllocHost memory is portable and mapped.
    let p = tri!(allocate(size, Kind::Host, 0x3));
    done(unsafe { put(pp, p as *mut c_void) })
}

pub unsafe extern "C" fn cuMemHostAlloc(pp: *mut *mut c_void, size: usize, flags: c_uint) -> CUresult {
    fake_enter!("cuMemHostAlloc");
    if pp.is_null() || flags & !0x7 != 0 {
        return INVALID_VALUE;
    }
    let p = tri!(allocate(size, Kind::Host, flags));
    done(unsafe { put(pp, p as *mut c_void) })
}

pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    fake_enter!("cuMemFreeHost");
    done(release(p as usize, &[Kind::Host]))
}

pub unsafe extern "C" fn cuMemAllocManaged(dptr: *mut u64, size: usize, flags: c_uint) -> CUresult {
    fake_enter!("cuMemAllocManaged");
    if dptr.is_null() || !matches!(flags, 1 | 2) {
        return INVALID_VALUE;
    }
    let p = tri!(allocate(size, Kind::Managed, flags));
    done(unsafe { put(dptr, p as u64) })
}

pub unsafe extern "C" fn cuMemHostRegister_v2(p: *mut c_void, size: usize, flags: c_uint) -> CUresult {
    fake_enter!("cuMemHostRegister");
    let ctx = tri!(current_active());
    if p.is_null() || size == 0 || flags & !0xf != 0 {
        return INVALID_VALUE;
    }
    let base = p as usize;
    let Some(end) = base.checked_add(size) else { return INVALID_VALUE };
    let mut g = ALLOCS.lock();
    let overlaps = g.range(..end).next_back().is_some_and(|(&b, a)| b + a.size > base);
    if overlaps {
        return HOST_MEMORY_ALREADY_REGISTERED;
    }
    let a = Alloc { size, kind: Kind::Registered, device: ctx.device, flags, prefetched: -2, preferred: -2, read_mostly: false, accessed_by: 0 };
    g.insert(base, a);
    SUCCESS
}

pub unsafe extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    fake_enter!("cuMemHostUnregister");
    tri!(current_active());
    let mut g = ALLOCS.lock();
    match g.get(&(p as usize)) {
        Some(a) if a.kind == Kind::Registered => {
            g.remove(&(p as usize));
            SUCCESS
        }
        _ => HOST_MEMORY_NOT_REGISTERED,
    }
}

fn host_alloc_of(p: *mut c_void) -> Result<(usize, Alloc), CUresult> {
    current_active()?;
    match find(p as usize) {
        Some((b, a)) if matches!(a.kind, Kind::Host | Kind::Registered) => Ok((b, a)),
        _ => Err(INVALID_VALUE),
    }
}

pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(d: *mut u64, p: *mut c_void, flags: c_uint) -> CUresult {
    fake_enter!("cuMemHostGetDevicePointer");
    if flags != 0 {
        return INVALID_VALUE;
    }
    tri!(host_alloc_of(p));
    // Unified addressing: the device alias is the host address.
    done(unsafe { put(d, p as u64) })
}

pub unsafe extern "C" fn cuMemHostGetFlags(f: *mut c_uint, p: *mut c_void) -> CUresult {
    fake_enter!("cuMemHostGetFlags");
    let (_, a) = tri!(host_alloc_of(p));
    done(unsafe { put(f, a.flags) })
}

pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    fake_enter!("cuMemGetInfo");
    let ctx = tri!(current_active());
    if free.is_null() || total.is_null() {
        return INVALID_VALUE;
    }
    unsafe {
        *total = TOTAL_MEM;
        *free = TOTAL_MEM.saturating_sub(device_bytes_in_use(ctx.device));
    }
    SUCCESS
}

pub unsafe extern "C" fn cuMemGetAddressRange_v2(base: *mut u64, size: *mut usize, p: u64) -> CUresult {
    fake_enter!("cuMemGetAddressRange");
    tri!(current_active());
    match find(p as usize) {
        Some((b, a)) if a.kind != Kind::Registered && a.kind != Kind::Host => {
            unsafe {
                if !base.is_null() {
                    *base = b as u64;
                }
                if !size.is_null() {
                    *size = a.size;
                }
            }
            SUCCESS
        }
        _ => NOT_FOUND,
    }
}

// ---------------------------------------------------------------- pointer attributes

const ATTR_CONTEXT: c_int = 1;
const ATTR_MEMORY_TYPE: c_int = 2;
const ATTR_DEVICE_POINTER: c_int = 3;
const ATTR_HOST_POINTER: c_int = 4;
const ATTR_IS_MANAGED: c_int = 8;
const ATTR_DEVICE_ORDINAL: c_int = 9;
const ATTR_RANGE_START: c_int = 11;
const ATTR_RANGE_SIZE: c_int = 12;
const ATTR_MAPPED: c_int = 13;

/// Write one pointer attribute; `None` for an unknown pointer (defaults).
unsafe fn write_attr(attr: c_int, data: *mut c_void, p: usize, found: Option<(usize, Alloc)>) -> R {
    if data.is_null() {
        return Err(INVALID_VALUE);
    }
    unsafe {
        match attr {
            ATTR_CONTEXT => *data.cast::<usize>() = 0,
            ATTR_MEMORY_TYPE => {
                *data.cast::<c_uint>() = match found.map(|f| f.1.kind) {
                    None => 0,
                    Some(Kind::Device | Kind::Managed) => 2,
                    Some(Kind::Host | Kind::Registered) => 1,
                }
            }
            ATTR_DEVICE_POINTER => *data.cast::<u64>() = found.map_or(0, |_| p as u64),
            ATTR_HOST_POINTER => {
                *data.cast::<usize>() = match found {
                    Some((_, a)) if a.kind != Kind::Device => p,
                    _ => 0,
                }
            }
            ATTR_IS_MANAGED => *data.cast::<u8>() = found.is_some_and(|f| f.1.kind == Kind::Managed) as u8,
            ATTR_DEVICE_ORDINAL => *data.cast::<c_int>() = found.map_or(-2, |f| f.1.device),
            ATTR_RANGE_START => *data.cast::<u64>() = found.map_or(0, |f| f.0 as u64),
            ATTR_RANGE_SIZE => *data.cast::<usize>() = found.map_or(0, |f| f.1.size),
            ATTR_MAPPED => *data.cast::<u8>() = found.is_some() as u8,
            _ => return Err(INVALID_VALUE),
        }
    }
    Ok(())
}

pub unsafe extern "C" fn cuPointerGetAttributes(n: c_uint, attrs: *mut c_int, data: *mut *mut c_void, p: u64) -> CUresult {
    fake_enter!("cuPointerGetAttributes");
    tri!(crate::device::initialized());
    if n == 0 || attrs.is_null() || data.is_null() {
        return INVALID_VALUE;
    }
    let found = find(p as usize);
    for i in 0..n as usize {
        tri!(unsafe { write_attr(*attrs.add(i), *data.add(i), p as usize, found) });
    }
    SUCCESS
}

pub unsafe extern "C" fn cuPointerGetAttribute(data: *mut c_void, attr: c_int, p: u64) -> CUresult {
    fake_enter!("cuPointerGetAttribute");
    tri!(crate::device::initialized());
    match find(p as usize) {
        None => INVALID_VALUE,
        found => done(unsafe { write_attr(attr, data, p as usize, found) }),
    }
}

// ---------------------------------------------------------------- arrays

/// CUDA_ARRAY3D_DESCRIPTOR (v2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Desc3D {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub format: c_int,
    pub channels: c_uint,
    pub flags: c_uint,
}

/// CUDA_ARRAY_DESCRIPTOR (v2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Desc2D {
    pub width: usize,
    pub height: usize,
    pub format: c_int,
    pub channels: c_uint,
}

struct Array {
    desc: Desc3D,
    data: Vec<u8>,
    /// Part of a mipmapped array (destroyed with it, not by cuArrayDestroy).
    level: bool,
}

impl Array {
    fn row(&self) -> usize {
        self.desc.width * elem_size(self.desc.format, self.desc.channels)
    }
    fn rows(&self) -> usize {
        self.desc.height.max(1)
    }
    fn slices(&self) -> usize {
        self.desc.depth.max(1)
    }
}

/// Arrays by handle; a handle is the address of a leaked `Box<u8>` token so
/// handles are unique and never reused.
static ARRAYS: Mutex<Option<HashMap<usize, Array>>> = Mutex::new(None);
static MIPMAPS: Mutex<Option<HashMap<usize, Vec<usize>>>> = Mutex::new(None);

fn new_handle() -> usize {
    Box::into_raw(Box::new(0u8)) as usize
}

fn elem_size(format: c_int, channels: c_uint) -> usize {
    let b = match format {
        0x1 | 0x8 => 1,
        0x2 | 0x9 | 0x10 => 2,
        0x3 | 0xa | 0x20 => 4,
        _ => 1,
    };
    b * channels as usize
}

fn check_desc(d: &Desc3D) -> R {
    let known = matches!(d.format, 0x1 | 0x2 | 0x3 | 0x8 | 0x9 | 0xa | 0x10 | 0x20);
    if d.width == 0 || !known || !matches!(d.channels, 1 | 2 | 4) || (d.height == 0 && d.depth > 0) {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

fn create_array(d: Desc3D, level: bool) -> Result<usize, CUresult> {
    check_desc(&d)?;
    let mut a = Array { desc: d, data: Vec::new(), level };
    let bytes = a.row().checked_mul(a.rows()).and_then(|n| n.checked_mul(a.slices())).ok_or(OUT_OF_MEMORY)?;
    if bytes > 1 << 32 {
        return Err(OUT_OF_MEMORY);
    }
    a.data = vec![0; bytes];
    let h = new_handle();
    ARRAYS.lock().get_or_insert_with(HashMap::new).insert(h, a);
    Ok(h)
}

fn with_array<T>(h: usize, f: impl FnOnce(&mut Array) -> Result<T, CUresult>) -> Result<T, CUresult> {
    let mut g = ARRAYS.lock();
    let a = g.get_or_insert_with(HashMap::new).get_mut(&h).ok_or(INVALID_HANDLE)?;
    f(a)
}

pub unsafe extern "C" fn cuArrayCreate_v2(h: *mut usize, d: *const Desc2D) -> CUresult {
    fake_enter!("cuArrayCreate");
    tri!(current_active());
    if h.is_null() || d.is_null() {
        return INVALID_VALUE;
    }
    let d = unsafe { *d };
    let d3 = Desc3D { width: d.width, height: d.height, depth: 0, format: d.format, channels: d.channels, flags: 0 };
    let a = tri!(create_array(d3, false));
    done(unsafe { put(h, a) })
}

pub unsafe extern "C" fn cuArray3DCreate_v2(h: *mut usize, d: *const Desc3D) -> CUresult {
    fake_enter!("cuArray3DCreate");
    tri!(current_active());
    if h.is_null() || d.is_null() {
        return INVALID_VALUE;
    }
    let a = tri!(create_array(unsafe { *d }, false));
    done(unsafe { put(h, a) })
}

pub unsafe extern "C" fn cuArray3DGetDescriptor_v2(d: *mut Desc3D, h: usize) -> CUresult {
    fake_enter!("cuArray3DGetDescriptor");
    tri!(current_active());
    let desc = tri!(with_array(h, |a| Ok(a.desc)));
    done(unsafe { put(d, desc) })
}

pub unsafe extern "C" fn cuArrayGetDescriptor_v2(d: *mut Desc2D, h: usize) -> CUresult {
    fake_enter!("cuArrayGetDescriptor");
    tri!(current_active());
    let x = tri!(with_array(h, |a| Ok(a.desc)));
    done(unsafe { put(d, Desc2D { width: x.width, height: x.height, format: x.format, channels: x.channels }) })
}

pub unsafe extern "C" fn cuArrayDestroy(h: usize) -> CUresult {
    fake_enter!("cuArrayDestroy");
    tri!(current_active());
    let mut g = ARRAYS.lock();
    let m = g.get_or_insert_with(HashMap::new);
    match m.get(&h) {
        Some(a) if !a.level => {
            m.remove(&h);
            SUCCESS
        }
        _ => INVALID_HANDLE,
    }
}

pub unsafe extern "C" fn cuArrayGetPlane(plane: *mut usize, h: usize, idx: c_uint) -> CUresult {
    fake_enter!("cuArrayGetPlane");
    tri!(current_active());
    if plane.is_null() {
        return INVALID_VALUE;
    }
    let _ = idx;
    // No planar (NV12) formats here: every array has no planes.
    tri!(with_array(h, |_| Err(INVALID_VALUE)))
}

/// CUDA_ARRAY_MEMORY_REQUIREMENTS.
#[repr(C)]
pub struct MemReq {
    size: usize,
    alignment: usize,
    reserved: [c_uint; 4],
}

/// CUDA_ARRAY_SPARSE_PROPERTIES.
#[repr(C)]
pub struct SparseProps {
    tile: [c_uint; 3],
    miptail_first_level: c_uint,
    miptail_size: c_ulonglong,
    flags: c_uint,
    reserved: [c_uint; 4],
}

const ARRAY_SPARSE: c_uint = 0x40;
const ARRAY_DEFERRED_MAPPING: c_uint = 0x80;

fn requirements(flags: c_uint, bytes: usize) -> Result<MemReq, CUresult> {
    if flags & ARRAY_DEFERRED_MAPPING == 0 {
        return Err(INVALID_VALUE);
    }
    Ok(MemReq { size: bytes.div_ceil(1 << 16) << 16, alignment: 1 << 16, reserved: [0; 4] })
}

fn sparse(flags: c_uint, bytes: usize) -> Result<SparseProps, CUresult> {
    if flags & ARRAY_SPARSE == 0 {
        return Err(INVALID_VALUE);
    }
    Ok(SparseProps { tile: [64, 64, 1], miptail_first_level: 0, miptail_size: bytes as u64, flags: 0, reserved: [0; 4] })
}

pub unsafe extern "C" fn cuArrayGetMemoryRequirements(r: *mut MemReq, h: usize, dev: c_int) -> CUresult {
    fake_enter!("cuArrayGetMemoryRequirements");
    tri!(current_active());
    if dev < 0 || dev >= crate::knobs::get().devices {
        return INVALID_DEVICE;
    }
    let req = tri!(with_array(h, |a| requirements(a.desc.flags, a.data.len())));
    done(unsafe { put(r, req) })
}

pub unsafe extern "C" fn cuArrayGetSparseProperties(p: *mut SparseProps, h: usize) -> CUresult {
    fake_enter!("cuArrayGetSparseProperties");
    tri!(current_active());
    let s = tri!(with_array(h, |a| sparse(a.desc.flags, a.data.len())));
    done(unsafe { put(p, s) })
}

pub unsafe extern "C" fn cuMipmappedArrayCreate(h: *mut usize, d: *const Desc3D, levels: c_uint) -> CUresult {
    fake_enter!("cuMipmappedArrayCreate");
    tri!(current_active());
    if h.is_null() || d.is_null() || levels == 0 {
        return INVALID_VALUE;
    }
    let d = unsafe { *d };
    tri!(check_desc(&d));
    let mut v = Vec::new();
    for l in 0..levels {
        let shrink = |x: usize| if x == 0 { 0 } else { (x >> l).max(1) };
        let ld = Desc3D { width: shrink(d.width), height: shrink(d.height), depth: shrink(d.depth), ..d };
        v.push(tri!(create_array(ld, true)));
    }
    let m = new_handle();
    MIPMAPS.lock().get_or_insert_with(HashMap::new).insert(m, v);
    done(unsafe { put(h, m) })
}

fn levels_of(m: usize) -> Result<Vec<usize>, CUresult> {
    MIPMAPS.lock().get_or_insert_with(HashMap::new).get(&m).cloned().ok_or(INVALID_HANDLE)
}

pub unsafe extern "C" fn cuMipmappedArrayGetLevel(a: *mut usize, m: usize, level: c_uint) -> CUresult {
    fake_enter!("cuMipmappedArrayGetLevel");
    tri!(current_active());
    let v = tri!(levels_of(m));
    match v.get(level as usize) {
        Some(&h) => done(unsafe { put(a, h) }),
        None => INVALID_VALUE,
    }
}

pub unsafe extern "C" fn cuMipmappedArrayDestroy(m: usize) -> CUresult {
    fake_enter!("cuMipmappedArrayDestroy");
    tri!(current_active());
    let Some(v) = MIPMAPS.lock().get_or_insert_with(HashMap::new).remove(&m) else { return INVALID_HANDLE };
    let mut g = ARRAYS.lock();
    let arrays = g.get_or_insert_with(HashMap::new);
    for h in v {
        arrays.remove(&h);
    }
    SUCCESS
}

fn level0(m: usize) -> Result<(c_uint, usize), CUresult> {
    let v = levels_of(m)?;
    let bytes: usize = v.iter().map(|&h| with_array(h, |a| Ok(a.data.len())).unwrap_or(0)).sum();
    let flags = with_array(v[0], |a| Ok(a.desc.flags))?;
    Ok((flags, bytes))
}

pub unsafe extern "C" fn cuMipmappedArrayGetMemoryRequirements(r: *mut MemReq, m: usize, dev: c_int) -> CUresult {
    fake_enter!("cuMipmappedArrayGetMemoryRequirements");
    tri!(current_active());
    if dev < 0 || dev >= crate::knobs::get().devices {
        return INVALID_DEVICE;
    }
    let (flags, bytes) = tri!(level0(m));
    let req = tri!(requirements(flags, bytes));
    done(unsafe { put(r, req) })
}

pub unsafe extern "C" fn cuMipmappedArrayGetSparseProperties(p: *mut SparseProps, m: usize) -> CUresult {
    fake_enter!("cuMipmappedArrayGetSparseProperties");
    tri!(current_active());
    let (flags, bytes) = tri!(level0(m));
    let s = tri!(sparse(flags, bytes));
    done(unsafe { put(p, s) })
}

// ---------------------------------------------------------------- copies

/// A planned copy: (dst, src, len) byte runs, executed in order.
type Plan = Vec<(usize, usize, usize)>;

fn run(plan: &Plan) {
    for &(d, s, n) in plan {
        // SAFETY: every run was checked against the registry (device side)
        // or is caller-provided host memory, as with the real driver.
        unsafe { std::ptr::copy(s as *const u8, d as *mut u8, n) };
    }
}

/// Synchronous work waits for everything queued before it (the legacy
/// stream's rule), then runs on the caller's thread.
fn submit(plan: Plan, stream: Option<*mut c_void>) {
    crate::activity::copy(&plan, stream.map_or(0, |s| s as usize));
    match stream {
        None => {
            crate::stream::synchronize_all();
            run(&plan)
        }
        Some(s) => crate::stream::enqueue_repeatable(s, crate::capture::KIND_MEMCPY, move || run(&plan)),
    }
}

/// Where the bytes of a typed linear end must live.
#[derive(Clone, Copy, PartialEq)]
enum Need {
    /// Device-accessible: inside a registry allocation.
    Device,
    /// Host-accessible: not device-only memory.
    Host,
    /// Either (unified addressing).
    Any,
}

fn check_linear(addr: usize, len: usize, need: Need) -> R {
    if addr == 0 {
        return Err(INVALID_VALUE);
    }
    match need {
        Need::Device => find_range(addr, len).map(|_| ()).ok_or(INVALID_VALUE),
        Need::Host => match find(addr) {
            Some((_, a)) if a.kind == Kind::Device => Err(INVALID_VALUE),
            _ => Ok(()),
        },
        Need::Any => match find(addr) {
            Some(_) => find_range(addr, len).map(|_| ()).ok_or(INVALID_VALUE),
            None => Ok(()),
        },
    }
}

fn linear(dst: u64, dneed: Need, src: u64, sneed: Need, n: usize) -> Result<Plan, CUresult> {
    current_active()?;
    check_linear(dst as usize, n, dneed)?;
    check_linear(src as usize, n, sneed)?;
    Ok(vec![(dst as usize, src as usize, n)])
}

macro_rules! copy_fn {
    ($name:ident, $label:literal, $dt:ty, $dn:expr, $st:ty, $sn:expr) => {
        pub unsafe extern "C" fn $name(dst: $dt, src: $st, n: usize) -> CUresult {
            fake_enter!($label);
            let p = tri!(linear(dst as u64, $dn, src as u64, $sn, n));
            submit(p, None);
            SUCCESS
        }
    };
    ($name:ident, $label:literal, $dt:ty, $dn:expr, $st:ty, $sn:expr, async) => {
        pub unsafe extern "C" fn $name(dst: $dt, src: $st, n: usize, stream: *mut c_void) -> CUresult {
            fake_enter!($label);
            let p = tri!(linear(dst as u64, $dn, src as u64, $sn, n));
            submit(p, Some(stream));
            SUCCESS
        }
    };
}

copy_fn!(cuMemcpy, "cuMemcpy", u64, Need::Any, u64, Need::Any);
copy_fn!(cuMemcpyHtoD_v2, "cuMemcpyHtoD", u64, Need::Device, *const c_void, Need::Host);
copy_fn!(cuMemcpyDtoH_v2, "cuMemcpyDtoH", *mut c_void, Need::Host, u64, Need::Device);
copy_fn!(cuMemcpyDtoD_v2, "cuMemcpyDtoD", u64, Need::Device, u64, Need::Device);
copy_fn!(cuMemcpyAsync, "cuMemcpyAsync", u64, Need::Any, u64, Need::Any, async);
copy_fn!(cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync", u64, Need::Device, *const c_void, Need::Host, async);
copy_fn!(cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync", *mut c_void, Need::Host, u64, Need::Device, async);
copy_fn!(cuMemcpyDtoDAsync_v2, "cuMemcpyDtoDAsync", u64, Need::Device, u64, Need::Device, async);

/// CUDA_MEMCPY3D (v2); CUDA_MEMCPY3D_PEER has the same layout with the
/// contexts in the reserved slots.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Copy3D {
    src_x: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_type: c_uint,
    src_host: usize,
    src_device: u64,
    src_array: usize,
    src_ctx: usize,
    src_pitch: usize,
    src_height: usize,
    dst_x: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_type: c_uint,
    dst_host: usize,
    dst_device: u64,
    dst_array: usize,
    dst_ctx: usize,
    dst_pitch: usize,
    dst_height: usize,
    width: usize,
    height: usize,
    depth: usize,
}

/// CUDA_MEMCPY2D (v2).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Copy2D {
    src_x: usize,
    src_y: usize,
    src_type: c_uint,
    src_host: usize,
    src_device: u64,
    src_array: usize,
    src_pitch: usize,
    dst_x: usize,
    dst_y: usize,
    dst_type: c_uint,
    dst_host: usize,
    dst_device: u64,
    dst_array: usize,
    dst_pitch: usize,
    width: usize,
    height: usize,
}

impl Copy2D {
    fn widen(&self) -> Copy3D {
        Copy3D {
            src_x: self.src_x,
            src_y: self.src_y,
            src_z: 0,
            src_lod: 0,
            src_type: self.src_type,
            src_host: self.src_host,
            src_device: self.src_device,
            src_array: self.src_array,
            src_ctx: 0,
            src_pitch: self.src_pitch,
            src_height: 0,
            dst_x: self.dst_x,
            dst_y: self.dst_y,
            dst_z: 0,
            dst_lod: 0,
            dst_type: self.dst_type,
            dst_host: self.dst_host,
            dst_device: self.dst_device,
            dst_array: self.dst_array,
            dst_ctx: 0,
            dst_pitch: self.dst_pitch,
            dst_height: 0,
            width: self.width,
            height: self.height,
            depth: 1,
        }
    }
}

const MT_HOST: c_uint = 1;
const MT_DEVICE: c_uint = 2;
const MT_ARRAY: c_uint = 3;
const MT_UNIFIED: c_uint = 4;

/// One end of a 2D/3D copy, resolved to "address of row (y, z)".
struct End {
    base: usize,
    pitch: usize,
    slice: usize,
}

#[allow(clippy::too_many_arguments)]
fn end(
    ty: c_uint,
    host: usize,
    device: u64,
    array: usize,
    x: usize,
    y: usize,
    z: usize,
    pitch: usize,
    height: usize,
    c: &Copy3D,
) -> Result<End, CUresult> {
    let (w, h, d) = (c.width, c.height, c.depth);
    if ty == MT_ARRAY {
        return with_array(array, |a| {
            if x + w > a.row() || y + h > a.rows() || z + d > a.slices() {
                return Err(INVALID_VALUE);
            }
            let base = a.data.as_mut_ptr() as usize + (z * a.rows() + y) * a.row() + x;
            Ok(End { base, pitch: a.row(), slice: a.row() * a.rows() })
        });
    }
    let addr = match ty {
        MT_HOST => host,
        MT_DEVICE | MT_UNIFIED => device as usize,
        _ => return Err(INVALID_VALUE),
    };
    // A row wider than the pitch, or slices taller than the slice height.
    if (h > 1 || d > 1) && w > pitch || d > 1 && y + h > height {
        return Err(INVALID_VALUE);
    }
    let slice = pitch * height;
    let first = addr + z * slice + y * pitch + x;
    let span = (d - 1) * slice + (h - 1) * pitch + w;
    let need = match ty {
        MT_HOST => Need::Host,
        MT_DEVICE => Need::Device,
        _ => Need::Any,
    };
    check_linear(first, span, need)?;
    Ok(End { base: first, pitch, slice })
}

fn plan_3d(c: &Copy3D) -> Result<Plan, CUresult> {
    if c.width == 0 || c.height == 0 || c.depth == 0 {
        return Ok(Vec::new());
    }
    let s = end(c.src_type, c.src_host, c.src_device, c.src_array, c.src_x, c.src_y, c.src_z, c.src_pitch, c.src_height, c)?;
    let d = end(c.dst_type, c.dst_host, c.dst_device, c.dst_array, c.dst_x, c.dst_y, c.dst_z, c.dst_pitch, c.dst_height, c)?;
    let mut plan = Vec::with_capacity(c.height * c.depth);
    for z in 0..c.depth {
        for y in 0..c.height {
            plan.push((d.base + z * d.slice + y * d.pitch, s.base + z * s.slice + y * s.pitch, c.width));
        }
    }
    Ok(plan)
}

fn copy_3d(c: *const Copy3D, stream: Option<*mut c_void>) -> R {
    current_active()?;
    if c.is_null() {
        return Err(INVALID_VALUE);
    }
    let plan = plan_3d(unsafe { &*c })?;
    submit(plan, stream);
    Ok(())
}

fn copy_2d(c: *const Copy2D, stream: Option<*mut c_void>) -> R {
    if c.is_null() {
        return Err(INVALID_VALUE);
    }
    let w = unsafe { &*c }.widen();
    copy_3d(&w, stream)
}

pub unsafe extern "C" fn cuMemcpy2D_v2(c: *const Copy2D) -> CUresult {
    fake_enter!("cuMemcpy2D");
    done(copy_2d(c, None))
}

pub unsafe extern "C" fn cuMemcpy2DUnaligned_v2(c: *const Copy2D) -> CUresult {
    fake_enter!("cuMemcpy2DUnaligned");
    done(copy_2d(c, None))
}

pub unsafe extern "C" fn cuMemcpy2DAsync_v2(c: *const Copy2D, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemcpy2DAsync");
    done(copy_2d(c, Some(stream)))
}

pub unsafe extern "C" fn cuMemcpy3D_v2(c: *const Copy3D) -> CUresult {
    fake_enter!("cuMemcpy3D");
    done(copy_3d(c, None))
}

pub unsafe extern "C" fn cuMemcpy3DAsync_v2(c: *const Copy3D, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemcpy3DAsync");
    done(copy_3d(c, Some(stream)))
}

fn ctx_device(ctx: *const crate::device::Ctx) -> Result<c_int, CUresult> {
    // SAFETY: contexts are leaked boxes; a non-NULL handle from us is valid.
    unsafe { ctx.as_ref() }.map(|c| c.device).ok_or(INVALID_CONTEXT)
}

fn peer_3d(c: *const Copy3D, stream: Option<*mut c_void>) -> R {
    if c.is_null() {
        return Err(INVALID_VALUE);
    }
    let r = unsafe { &*c };
    ctx_device(r.src_ctx as *const _)?;
    ctx_device(r.dst_ctx as *const _)?;
    copy_3d(c, stream)
}

pub unsafe extern "C" fn cuMemcpy3DPeer(c: *const Copy3D) -> CUresult {
    fake_enter!("cuMemcpy3DPeer");
    done(peer_3d(c, None))
}

pub unsafe extern "C" fn cuMemcpy3DPeerAsync(c: *const Copy3D, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemcpy3DPeerAsync");
    done(peer_3d(c, Some(stream)))
}

fn peer(dst: u64, dctx: *const crate::device::Ctx, src: u64, sctx: *const crate::device::Ctx, n: usize) -> Result<Plan, CUresult> {
    let (dd, sd) = (ctx_device(dctx)?, ctx_device(sctx)?);
    let p = linear(dst, Need::Device, src, Need::Device, n)?;
    // The memory must belong to the named contexts' devices.
    if find(dst as usize).map(|f| f.1.device) != Some(dd) || find(src as usize).map(|f| f.1.device) != Some(sd) {
        return Err(INVALID_VALUE);
    }
    Ok(p)
}

pub unsafe extern "C" fn cuMemcpyPeer(dst: u64, dctx: *const crate::device::Ctx, src: u64, sctx: *const crate::device::Ctx, n: usize) -> CUresult {
    fake_enter!("cuMemcpyPeer");
    let p = tri!(peer(dst, dctx, src, sctx, n));
    submit(p, None);
    SUCCESS
}

pub unsafe extern "C" fn cuMemcpyPeerAsync(
    dst: u64,
    dctx: *const crate::device::Ctx,
    src: u64,
    sctx: *const crate::device::Ctx,
    n: usize,
    stream: *mut c_void,
) -> CUresult {
    fake_enter!("cuMemcpyPeerAsync");
    let p = tri!(peer(dst, dctx, src, sctx, n));
    submit(p, Some(stream));
    SUCCESS
}

/// The batch calls refuse the legacy default stream, like the driver.
fn batch_stream(stream: *mut c_void) -> R {
    if stream.is_null() || stream as usize == 1 { Err(INVALID_VALUE) } else { Ok(()) }
}

/// CUmemcpyAttributes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CopyAttrs {
    src_access_order: c_int,
    src_loc: [c_int; 2],
    dst_loc: [c_int; 2],
    flags: c_uint,
}

/// A batch's failure: the code and the index of the copy it is about
/// (`usize::MAX`: not one copy, as the 12.8 entry points report it).
type BatchErr = (CUresult, usize);

#[allow(clippy::too_many_arguments)]
unsafe fn memcpy_batch(
    dsts: *const u64,
    srcs: *const u64,
    sizes: *const usize,
    count: usize,
    attrs: *const CopyAttrs,
    idxs: *const usize,
    num_attrs: usize,
    stream: *mut c_void,
) -> Result<(), BatchErr> {
    let whole = |e| (e, usize::MAX);
    current_active().map_err(whole)?;
    batch_stream(stream).map_err(whole)?;
    if dsts.is_null() || srcs.is_null() || sizes.is_null() || count == 0 {
        return Err(whole(INVALID_VALUE));
    }
    if attrs.is_null() || idxs.is_null() || num_attrs == 0 || num_attrs > count {
        return Err(whole(INVALID_VALUE));
    }
    let idx = unsafe { std::slice::from_raw_parts(idxs, num_attrs) };
    if idx[0] != 0 || idx.windows(2).any(|w| w[0] >= w[1]) || idx[num_attrs - 1] >= count {
        return Err(whole(INVALID_VALUE));
    }
    // Access orders: 1 stream, 2 during API call, 3 any.
    for a in unsafe { std::slice::from_raw_parts(attrs, num_attrs) } {
        if !matches!(a.src_access_order, 1..=3) {
            return Err(whole(INVALID_VALUE));
        }
    }
    let mut plan = Vec::with_capacity(count);
    for i in 0..count {
        let (d, s, n) = unsafe { (*dsts.add(i), *srcs.add(i), *sizes.add(i)) };
        plan.extend(linear(d, Need::Any, s, Need::Any, n).map_err(|e| (e, i))?);
    }
    submit(plan, Some(stream));
    Ok(())
}

/// `_v2` (13.0's meaning of the name): no failure index.
pub unsafe extern "C" fn cuMemcpyBatchAsync(
    dsts: *const u64,
    srcs: *const u64,
    sizes: *const usize,
    count: usize,
    attrs: *const CopyAttrs,
    idxs: *const usize,
    num_attrs: usize,
    stream: *mut c_void,
) -> CUresult {
    fake_enter!("cuMemcpyBatchAsync");
    unsafe { memcpy_batch(dsts, srcs, sizes, count, attrs, idxs, num_attrs, stream) }.err().map_or(SUCCESS, |e| e.0)
}

/// The 12.8 entry point (`_v12080`, what a request below 13.0 gets): the
/// failing copy's index in `fail` (`SIZE_MAX` when the failure is not one
/// copy's), counted as `cuMemcpyBatchAsync_v1`.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuMemcpyBatchAsync_v1(
    dsts: *const u64,
    srcs: *const u64,
    sizes: *const usize,
    count: usize,
    attrs: *const CopyAttrs,
    idxs: *const usize,
    num_attrs: usize,
    fail: *mut usize,
    stream: *mut c_void,
) -> CUresult {
    fake_enter!("cuMemcpyBatchAsync_v1");
    batch_result(unsafe { memcpy_batch(dsts, srcs, sizes, count, attrs, idxs, num_attrs, stream) }, fail)
}

fn batch_result(r: Result<(), BatchErr>, fail: *mut usize) -> CUresult {
    match r {
        Ok(()) => SUCCESS,
        Err((e, i)) => {
            if !fail.is_null() {
                unsafe { *fail = i };
            }
            e
        }
    }
}

/// CUmemcpy3DOperand.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Operand {
    ty: c_int,
    /// ptr: (ptr, rowLength, layerHeight, locHint) | array: (array, x, y, z)
    a: usize,
    b: usize,
    c: usize,
    d: usize,
}

/// CUDA_MEMCPY3D_BATCH_OP.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct BatchOp {
    src: Operand,
    dst: Operand,
    extent: [usize; 3],
    src_access_order: c_int,
    flags: c_uint,
}

const OPERAND_POINTER: c_int = 1;
const OPERAND_ARRAY: c_int = 2;

fn batch_op_plan(op: &BatchOp) -> Result<Plan, CUresult> {
    let elem = |o: &Operand| -> Result<Option<usize>, CUresult> {
        match o.ty {
            OPERAND_ARRAY => with_array(o.a, |a| Ok(Some(elem_size(a.desc.format, a.desc.channels)))),
            OPERAND_POINTER => Ok(None),
            _ => Err(INVALID_VALUE),
        }
    };
    let (se, de) = (elem(&op.src)?, elem(&op.dst)?);
    let unit = se.or(de).unwrap_or(1);
    let [w, h, d] = op.extent;
    let mut c = Copy3D {
        src_x: 0,
        src_y: 0,
        src_z: 0,
        src_lod: 0,
        src_type: 0,
        src_host: 0,
        src_device: 0,
        src_array: 0,
        src_ctx: 0,
        src_pitch: 0,
        src_height: 0,
        dst_x: 0,
        dst_y: 0,
        dst_z: 0,
        dst_lod: 0,
        dst_type: 0,
        dst_host: 0,
        dst_device: 0,
        dst_array: 0,
        dst_ctx: 0,
        dst_pitch: 0,
        dst_height: 0,
        width: w * unit,
        height: h,
        depth: d,
    };
    // Pointer operands: row length and layer height count elements (0: packed).
    let fill = |o: &Operand, e: Option<usize>| -> (c_uint, u64, usize, [usize; 3], usize, usize) {
        if o.ty == OPERAND_ARRAY {
            (MT_ARRAY, 0, o.a, [o.b * e.unwrap_or(1), o.c, o.d], 0, 0)
        } else {
            let row = if o.b == 0 { w } else { o.b } * unit;
            let layer = if o.c == 0 { h } else { o.c };
            (MT_UNIFIED, o.a as u64, 0, [0, 0, 0], row, layer)
        }
    };
    let (t, dev, arr, pos, pitch, height) = fill(&op.src, se);
    (c.src_type, c.src_device, c.src_array, c.src_x, c.src_y, c.src_z, c.src_pitch, c.src_height) =
        (t, dev, arr, pos[0], pos[1], pos[2], pitch, height);
    let (t, dev, arr, pos, pitch, height) = fill(&op.dst, de);
    (c.dst_type, c.dst_device, c.dst_array, c.dst_x, c.dst_y, c.dst_z, c.dst_pitch, c.dst_height) =
        (t, dev, arr, pos[0], pos[1], pos[2], pitch, height);
    plan_3d(&c)
}

unsafe fn memcpy_3d_batch(n: usize, ops: *const BatchOp, flags: c_ulonglong, stream: *mut c_void) -> Result<(), BatchErr> {
    let whole = |e| (e, usize::MAX);
    current_active().map_err(whole)?;
    batch_stream(stream).map_err(whole)?;
    if n == 0 || ops.is_null() || flags != 0 {
        return Err(whole(INVALID_VALUE));
    }
    let mut plan = Vec::new();
    for (i, op) in unsafe { std::slice::from_raw_parts(ops, n) }.iter().enumerate() {
        plan.extend(batch_op_plan(op).map_err(|e| (e, i))?);
    }
    submit(plan, Some(stream));
    Ok(())
}

pub unsafe extern "C" fn cuMemcpy3DBatchAsync(n: usize, ops: *const BatchOp, flags: c_ulonglong, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemcpy3DBatchAsync");
    unsafe { memcpy_3d_batch(n, ops, flags, stream) }.err().map_or(SUCCESS, |e| e.0)
}

/// The 12.8 entry point, with the failure index (see `cuMemcpyBatchAsync_v1`).
pub unsafe extern "C" fn cuMemcpy3DBatchAsync_v1(n: usize, ops: *const BatchOp, fail: *mut usize, flags: c_ulonglong, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemcpy3DBatchAsync_v1");
    batch_result(unsafe { memcpy_3d_batch(n, ops, flags, stream) }, fail)
}

// ---------------------------------------------------------------- sets

fn plan_set(dst: u64, pitch: usize, w: usize, h: usize) -> Result<Vec<usize>, CUresult> {
    current_active()?;
    if h > 1 && w > pitch {
        return Err(INVALID_VALUE);
    }
    if w == 0 || h == 0 {
        return Ok(Vec::new());
    }
    check_linear(dst as usize, (h - 1) * pitch + w, Need::Device)?;
    Ok((0..h).map(|y| dst as usize + y * pitch).collect())
}

fn set(rows: Vec<usize>, w: usize, v: u8, stream: Option<*mut c_void>) {
    crate::activity::memset((rows.len() * w) as u64, v, stream.map_or(0, |s| s as usize));
    let work = move || {
        for &r in &rows {
            // SAFETY: checked against the registry by plan_set.
            unsafe { std::ptr::write_bytes(r as *mut u8, v, w) };
        }
    };
    match stream {
        None => {
            crate::stream::synchronize_all();
            work()
        }
        Some(s) => crate::stream::enqueue_repeatable(s, crate::capture::KIND_MEMSET, work),
    }
}

pub unsafe extern "C" fn cuMemsetD8_v2(dst: u64, v: u8, n: usize) -> CUresult {
    fake_enter!("cuMemsetD8");
    let rows = tri!(plan_set(dst, n, n, 1));
    set(rows, n, v, None);
    SUCCESS
}

pub unsafe extern "C" fn cuMemsetD8Async(dst: u64, v: u8, n: usize, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemsetD8Async");
    let rows = tri!(plan_set(dst, n, n, 1));
    set(rows, n, v, Some(stream));
    SUCCESS
}

pub unsafe extern "C" fn cuMemsetD2D8_v2(dst: u64, pitch: usize, v: u8, w: usize, h: usize) -> CUresult {
    fake_enter!("cuMemsetD2D8");
    let rows = tri!(plan_set(dst, pitch, w, h));
    set(rows, w, v, None);
    SUCCESS
}

pub unsafe extern "C" fn cuMemsetD2D8Async(dst: u64, pitch: usize, v: u8, w: usize, h: usize, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemsetD2D8Async");
    let rows = tri!(plan_set(dst, pitch, w, h));
    set(rows, w, v, Some(stream));
    SUCCESS
}

// ---------------------------------------------------------------- managed memory

/// CUmemLocation.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Location {
    ty: c_int,
    id: c_int,
}

const LOC_DEVICE: c_int = 1;
const LOC_HOST: c_int = 2;

/// The location as a device id (-1 host), or INVALID_VALUE / INVALID_DEVICE.
fn location(l: Location) -> Result<c_int, CUresult> {
    match l.ty {
        LOC_DEVICE if l.id >= 0 && l.id < crate::knobs::get().devices => Ok(l.id),
        LOC_DEVICE => Err(INVALID_DEVICE),
        LOC_HOST => Ok(-1),
        _ => Err(INVALID_VALUE),
    }
}

fn managed_range(p: u64, n: usize) -> Result<usize, CUresult> {
    match find_range(p as usize, n) {
        Some((b, a)) if a.kind == Kind::Managed && n > 0 => Ok(b),
        _ => Err(INVALID_VALUE),
    }
}

fn update(base: usize, f: impl FnOnce(&mut Alloc)) {
    if let Some(a) = ALLOCS.lock().get_mut(&base) {
        f(a);
    }
}

pub unsafe extern "C" fn cuMemPrefetchAsync_v2(p: u64, n: usize, loc: Location, flags: c_uint, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemPrefetchAsync");
    tri!(current_active());
    let dev = tri!(location(loc));
    if flags != 0 {
        return INVALID_VALUE;
    }
    let base = tri!(managed_range(p, n));
    crate::stream::enqueue(stream, Box::new(move || update(base, |a| a.prefetched = dev)));
    SUCCESS
}

pub unsafe extern "C" fn cuMemAdvise_v2(p: u64, n: usize, advice: c_int, loc: Location) -> CUresult {
    fake_enter!("cuMemAdvise");
    tri!(current_active());
    let base = tri!(managed_range(p, n));
    match advice {
        1 => update(base, |a| a.read_mostly = true),
        2 => update(base, |a| a.read_mostly = false),
        3 => {
            let dev = tri!(location(loc));
            update(base, |a| a.preferred = dev)
        }
        4 => update(base, |a| a.preferred = -2),
        5 | 6 => {
            // Devices past 62 are not recorded (the fake never has that many).
            let bit = 1u64.checked_shl((tri!(location(loc)) + 1) as u32).unwrap_or(0);
            update(base, |a| if advice == 5 { a.accessed_by |= bit } else { a.accessed_by &= !bit })
        }
        _ => return INVALID_VALUE,
    }
    SUCCESS
}

/// `cuMemAdvise` asked for below CUDA 13.0 (`PFN_cuMemAdvise_v8000`): the
/// device as a `CUdevice`, `CU_DEVICE_CPU` (-1) for the host.
pub unsafe extern "C" fn cuMemAdvise_v1(p: u64, n: usize, advice: c_int, dev: c_int) -> CUresult {
    let loc = if dev == -1 { Location { ty: LOC_HOST, id: 0 } } else { Location { ty: LOC_DEVICE, id: dev } };
    unsafe { cuMemAdvise_v2(p, n, advice, loc) }
}

unsafe fn range_attr(data: *mut c_void, size: usize, attr: c_int, p: u64, n: usize) -> R {
    current_active()?;
    if data.is_null() {
        return Err(INVALID_VALUE);
    }
    let base = managed_range(p, n)?;
    let a = ALLOCS.lock()[&base];
    let int = |v: c_int| -> R {
        if size != 4 {
            return Err(INVALID_VALUE);
        }
        unsafe { *data.cast::<c_int>() = v };
        Ok(())
    };
    match attr {
        1 => int(a.read_mostly as c_int),
        2 => int(a.preferred),
        3 => {
            if size == 0 || !size.is_multiple_of(4) {
                return Err(INVALID_VALUE);
            }
            // The devices (then the host) with AccessedBy set; the other slots
            // are "no device".
            let s = unsafe { std::slice::from_raw_parts_mut(data.cast::<c_int>(), size / 4) };
            s.fill(-2);
            let who = (0..63).filter(|b| a.accessed_by & (1 << (b + 1)) != 0).chain((a.accessed_by & 1 != 0).then_some(-1));
            for (slot, d) in s.iter_mut().zip(who) {
                *slot = d;
            }
            Ok(())
        }
        4 => int(a.prefetched),
        // Location type (0 invalid, 1 device, 2 host) and id of the
        // preferred (5, 6) and last prefetch (7, 8) locations.
        5 | 7 => int(match if attr == 5 { a.preferred } else { a.prefetched } {
            d if d >= 0 => 1,
            -1 => 2,
            _ => 0,
        }),
        6 | 8 => int((if attr == 6 { a.preferred } else { a.prefetched }).max(0)),
        _ => Err(INVALID_VALUE),
    }
}

pub unsafe extern "C" fn cuMemRangeGetAttribute(data: *mut c_void, size: usize, attr: c_int, p: u64, n: usize) -> CUresult {
    fake_enter!("cuMemRangeGetAttribute");
    done(unsafe { range_attr(data, size, attr, p, n) })
}

pub unsafe extern "C" fn cuMemRangeGetAttributes(
    data: *mut *mut c_void,
    sizes: *const usize,
    attrs: *const c_int,
    num: usize,
    p: u64,
    n: usize,
) -> CUresult {
    fake_enter!("cuMemRangeGetAttributes");
    if data.is_null() || sizes.is_null() || attrs.is_null() || num == 0 {
        return INVALID_VALUE;
    }
    for i in 0..num {
        tri!(unsafe { range_attr(*data.add(i), *sizes.add(i), *attrs.add(i), p, n) });
    }
    SUCCESS
}

fn batch_ranges(ptrs: *const u64, sizes: *const usize, count: usize, stream: *mut c_void) -> Result<Vec<usize>, CUresult> {
    current_active()?;
    batch_stream(stream)?;
    if ptrs.is_null() || sizes.is_null() || count == 0 {
        return Err(INVALID_VALUE);
    }
    (0..count).map(|i| unsafe { managed_range(*ptrs.add(i), *sizes.add(i)) }).collect()
}

fn batch_locations(locs: *const Location, idxs: *const usize, num: usize, count: usize) -> Result<Vec<c_int>, CUresult> {
    if locs.is_null() || idxs.is_null() || num == 0 || num > count {
        return Err(INVALID_VALUE);
    }
    let idx = unsafe { std::slice::from_raw_parts(idxs, num) };
    if idx[0] != 0 || idx.windows(2).any(|w| w[0] >= w[1]) || idx[num - 1] >= count {
        return Err(INVALID_VALUE);
    }
    // Location of each operation: the last index at or before it.
    let l: Vec<c_int> = unsafe { std::slice::from_raw_parts(locs, num) }.iter().map(|&l| location(l)).collect::<Result<_, _>>()?;
    Ok((0..count).map(|i| l[idx.iter().rposition(|&s| s <= i).unwrap()]).collect())
}

pub unsafe extern "C" fn cuMemPrefetchBatchAsync(
    ptrs: *const u64,
    sizes: *const usize,
    count: usize,
    locs: *const Location,
    idxs: *const usize,
    num: usize,
    flags: c_ulonglong,
    stream: *mut c_void,
) -> CUresult {
    fake_enter!("cuMemPrefetchBatchAsync");
    let bases = tri!(batch_ranges(ptrs, sizes, count, stream));
    let at = tri!(batch_locations(locs, idxs, num, count));
    if flags != 0 {
        return INVALID_VALUE;
    }
    crate::stream::enqueue(
        stream,
        Box::new(move || {
            for (b, d) in bases.into_iter().zip(at) {
                update(b, |a| a.prefetched = d);
            }
        }),
    );
    SUCCESS
}

/// Discarding makes the contents undefined; the fake zeroes them so tests
/// can see it happened.
fn discard(bases: &[usize], ptrs: *const u64, sizes: *const usize) -> Vec<(usize, usize)> {
    let _ = bases;
    (0..bases.len()).map(|i| unsafe { (*ptrs.add(i) as usize, *sizes.add(i)) }).collect()
}

pub unsafe extern "C" fn cuMemDiscardBatchAsync(ptrs: *const u64, sizes: *const usize, count: usize, flags: c_ulonglong, stream: *mut c_void) -> CUresult {
    fake_enter!("cuMemDiscardBatchAsync");
    let bases = tri!(batch_ranges(ptrs, sizes, count, stream));
    if flags != 0 {
        return INVALID_VALUE;
    }
    let runs = discard(&bases, ptrs, sizes);
    crate::stream::enqueue(
        stream,
        Box::new(move || {
            for (p, n) in runs {
                unsafe { std::ptr::write_bytes(p as *mut u8, 0, n) };
            }
        }),
    );
    SUCCESS
}

pub unsafe extern "C" fn cuMemDiscardAndPrefetchBatchAsync(
    ptrs: *const u64,
    sizes: *const usize,
    count: usize,
    locs: *const Location,
    idxs: *const usize,
    num: usize,
    flags: c_ulonglong,
    stream: *mut c_void,
) -> CUresult {
    fake_enter!("cuMemDiscardAndPrefetchBatchAsync");
    let bases = tri!(batch_ranges(ptrs, sizes, count, stream));
    let at = tri!(batch_locations(locs, idxs, num, count));
    if flags != 0 {
        return INVALID_VALUE;
    }
    let runs = discard(&bases, ptrs, sizes);
    crate::stream::enqueue(
        stream,
        Box::new(move || {
            for ((p, n), (b, d)) in runs.into_iter().zip(bases.into_iter().zip(at)) {
                unsafe { std::ptr::write_bytes(p as *mut u8, 0, n) };
                update(b, |a| a.prefetched = d);
            }
        }),
    );
    SUCCESS
}

// ---------------------------------------------------------------- peer access

/// (device of the context that enabled access, peer device).
static PEERS: Mutex<Option<HashSet<(c_int, c_int)>>> = Mutex::new(None);

/// `FAKE_CUDA_NO_PEER=1`: no device pair supports peer access.
fn peer_supported() -> bool {
    std::env::var("FAKE_CUDA_NO_PEER").map_or(true, |v| v != "1")
}

fn two_devices(a: c_int, b: c_int) -> R {
    crate::device::initialized()?;
    let n = crate::knobs::get().devices;
    if a < 0 || a >= n || b < 0 || b >= n {
        return Err(INVALID_DEVICE);
    }
    Ok(())
}

pub unsafe extern "C" fn cuDeviceCanAccessPeer(can: *mut c_int, dev: c_int, peer: c_int) -> CUresult {
    fake_enter!("cuDeviceCanAccessPeer");
    tri!(two_devices(dev, peer));
    done(unsafe { put(can, (dev != peer && peer_supported()) as c_int) })
}

pub unsafe extern "C" fn cuCtxEnablePeerAccess(peer: *const crate::device::Ctx, flags: c_uint) -> CUresult {
    fake_enter!("cuCtxEnablePeerAccess");
    let cur = tri!(current_active());
    let pd = tri!(ctx_device(peer));
    if flags != 0 {
        return INVALID_VALUE;
    }
    // A context is not its own peer (what the real driver answers, H100).
    if pd == cur.device {
        return 217;
    }
    if !peer_supported() {
        return PEER_ACCESS_UNSUPPORTED;
    }
    if !PEERS.lock().get_or_insert_with(HashSet::new).insert((cur.device, pd)) {
        return PEER_ACCESS_ALREADY_ENABLED;
    }
    SUCCESS
}

pub unsafe extern "C" fn cuCtxDisablePeerAccess(peer: *const crate::device::Ctx) -> CUresult {
    fake_enter!("cuCtxDisablePeerAccess");
    let cur = tri!(current_active());
    let pd = tri!(ctx_device(peer));
    if !PEERS.lock().get_or_insert_with(HashSet::new).remove(&(cur.device, pd)) {
        return PEER_ACCESS_NOT_ENABLED;
    }
    SUCCESS
}

pub unsafe extern "C" fn cuDeviceGetP2PAttribute(v: *mut c_int, attr: c_int, src: c_int, dst: c_int) -> CUresult {
    fake_enter!("cuDeviceGetP2PAttribute");
    tri!(two_devices(src, dst));
    if src == dst {
        return INVALID_DEVICE;
    }
    let on = peer_supported() as c_int;
    let value = match attr {
        1 => 0,
        2..=4 => on,
        5 => 0,
        _ => return INVALID_VALUE,
    };
    done(unsafe { put(v, value) })
}

pub unsafe extern "C" fn cuDeviceGetP2PAtomicCapabilities(caps: *mut c_uint, ops: *const c_int, count: c_uint, src: c_int, dst: c_int) -> CUresult {
    fake_enter!("cuDeviceGetP2PAtomicCapabilities");
    tri!(two_devices(src, dst));
    if caps.is_null() || ops.is_null() || count == 0 {
        return INVALID_VALUE;
    }
    if src == dst {
        return INVALID_DEVICE;
    }
    for i in 0..count as usize {
        let op = unsafe { *ops.add(i) };
        if !(0..=12).contains(&op) {
            return INVALID_VALUE;
        }
        // Scalar 32- and 64-bit support for every operation when peers work.
        unsafe { *caps.add(i) = if peer_supported() { 0x3 } else { 0 } };
    }
    SUCCESS
}

// ---------------------------------------------------------------- test control

/// Registry kind of `p` (0 unknown, 1 device, 2 host, 3 registered, 4 managed).
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_mem_kind(p: *const c_void) -> c_int {
    find(p as usize).map_or(0, |(_, a)| a.kind as c_int)
}

/// Device memory the real driver would hold now for device `dev`'s
/// `cuMemAlloc`/`cuMemAllocPitch` allocations, at its granularity (see
/// [`Held`]); `*peak`, unless NULL, gets the most it held at any time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_device_memory_held(dev: c_int, peak: *mut usize) -> usize {
    let g = HELD.lock();
    let (bytes, most) = g.get(&dev).map_or((0, 0), |h| (h.bytes, h.peak));
    if !peak.is_null() {
        unsafe { *peak = most };
    }
    bytes
}

/// Whether the current context of device `dev` enabled access to `peer`.
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_peer_enabled(dev: c_int, peer: c_int) -> c_int {
    PEERS.lock().as_ref().is_some_and(|s| s.contains(&(dev, peer))) as c_int
}

/// Entry points this module provides, by the name cuGetProcAddress is asked.
pub static SYMBOLS: crate::Symbols = &[
    sym!("cuMemAlloc" => cuMemAlloc_v2),
    sym!("cuMemAllocPitch" => cuMemAllocPitch_v2),
    sym!("cuMemFree" => cuMemFree_v2),
    sym!("cuMemAllocHost" => cuMemAllocHost_v2),
    sym!(cuMemHostAlloc),
    sym!(cuMemFreeHost),
    sym!(cuMemAllocManaged),
    sym!("cuMemHostRegister" => cuMemHostRegister_v2),
    sym!(cuMemHostUnregister),
    sym!("cuMemHostGetDevicePointer" => cuMemHostGetDevicePointer_v2),
    sym!(cuMemHostGetFlags),
    sym!("cuMemGetInfo" => cuMemGetInfo_v2),
    sym!("cuMemGetAddressRange" => cuMemGetAddressRange_v2),
    sym!(cuPointerGetAttributes),
    sym!(cuPointerGetAttribute),
    sym!("cuArrayCreate" => cuArrayCreate_v2),
    sym!("cuArray3DCreate" => cuArray3DCreate_v2),
    sym!("cuArray3DGetDescriptor" => cuArray3DGetDescriptor_v2),
    sym!("cuArrayGetDescriptor" => cuArrayGetDescriptor_v2),
    sym!(cuArrayDestroy),
    sym!(cuArrayGetPlane),
    sym!(cuArrayGetMemoryRequirements),
    sym!(cuArrayGetSparseProperties),
    sym!(cuMipmappedArrayCreate),
    sym!(cuMipmappedArrayGetLevel),
    sym!(cuMipmappedArrayDestroy),
    sym!(cuMipmappedArrayGetMemoryRequirements),
    sym!(cuMipmappedArrayGetSparseProperties),
    sym!(cuMemcpy),
    sym!("cuMemcpyHtoD" => cuMemcpyHtoD_v2),
    sym!("cuMemcpyDtoH" => cuMemcpyDtoH_v2),
    sym!("cuMemcpyDtoD" => cuMemcpyDtoD_v2),
    sym!(cuMemcpyAsync),
    sym!("cuMemcpyHtoDAsync" => cuMemcpyHtoDAsync_v2),
    sym!("cuMemcpyDtoHAsync" => cuMemcpyDtoHAsync_v2),
    sym!("cuMemcpyDtoDAsync" => cuMemcpyDtoDAsync_v2),
    sym!("cuMemcpy2D" => cuMemcpy2D_v2),
    sym!("cuMemcpy2DUnaligned" => cuMemcpy2DUnaligned_v2),
    sym!("cuMemcpy2DAsync" => cuMemcpy2DAsync_v2),
    sym!("cuMemcpy3D" => cuMemcpy3D_v2),
    sym!("cuMemcpy3DAsync" => cuMemcpy3DAsync_v2),
    sym!(cuMemcpyPeer),
    sym!(cuMemcpyPeerAsync),
    sym!(cuMemcpy3DPeer),
    sym!(cuMemcpy3DPeerAsync),
    sym!(cuMemcpyBatchAsync),
    sym!("cuMemcpyBatchAsync@v1" => cuMemcpyBatchAsync_v1),
    sym!(cuMemcpy3DBatchAsync),
    sym!("cuMemcpy3DBatchAsync@v1" => cuMemcpy3DBatchAsync_v1),
    sym!("cuMemsetD8" => cuMemsetD8_v2),
    sym!(cuMemsetD8Async),
    sym!("cuMemsetD2D8" => cuMemsetD2D8_v2),
    sym!(cuMemsetD2D8Async),
    sym!("cuMemPrefetchAsync" => cuMemPrefetchAsync_v2),
    sym!("cuMemAdvise" => cuMemAdvise_v2),
    sym!("cuMemAdvise@v1" => cuMemAdvise_v1),
    sym!(cuMemRangeGetAttribute),
    sym!(cuMemRangeGetAttributes),
    sym!(cuMemPrefetchBatchAsync),
    sym!(cuMemDiscardBatchAsync),
    sym!(cuMemDiscardAndPrefetchBatchAsync),
    sym!(cuDeviceCanAccessPeer),
    sym!(cuCtxEnablePeerAccess),
    sym!(cuCtxDisablePeerAccess),
    sym!(cuDeviceGetP2PAttribute),
    sym!(cuDeviceGetP2PAtomicCapabilities),
];
