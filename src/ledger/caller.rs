//! The calling library of an allocation: the first return address outside
//! our libraries, resolved to the object that holds it.
//!
//! "Our libraries" are the objects that stand between the program and the
//! GPU: this library (the runtime), the driver interposer and the driver
//! (`libcuda.so*`), and NVIDIA's runtime (`libcudart.so*`, which CuPy
//! loads): an allocation made through any of them belongs to whoever
//! called them (`libtorch_cuda.so`, `libnccl.so.2`, the program).
//!
//! Cost: when the interception point knows the export's return address it
//! hands it over ([`super::CallView::return_address`]) and resolving it is
//! a look-up in a per-thread cache of address ranges (one range per
//! loaded segment, found once with `dl_iterate_phdr`). Otherwise, and for
//! `CUDART_SHIM_MEMORY_BACKTRACE=N`, the stack is unwound (libgcc's
//! `_Unwind_Backtrace`, which uses the objects' unwind tables and so works
//! without frame pointers) until the first frame outside our libraries.

use parking_lot::RwLock;
use std::cell::Cell;
use std::ffi::{c_int, c_void, CStr};

/// A library's index in [`LIBS`]; 0 is "unknown".
pub type LibId = u16;

/// Names of the libraries seen, by id (written at a cache miss only).
static LIBS: RwLock<Vec<String>> = RwLock::new(Vec::new());
/// Loaded segments seen so far: `(start, end, lib, ours)`.
static RANGES: RwLock<Vec<(usize, usize, LibId, bool)>> = RwLock::new(Vec::new());

const CACHE: usize = 4;
thread_local! {
    /// The last ranges this thread resolved (most recent first).
    static RECENT: Cell<[(usize, usize, LibId, bool); CACHE]> = const { Cell::new([(0, 0, 0, false); CACHE]) };
}

/// The name of library `id`.
pub fn name(id: LibId) -> String {
    LIBS.read().get(id as usize).cloned().unwrap_or_else(|| "?".to_owned())
}

fn intern(name: &str) -> LibId {
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

/// Whether object `name` (a file name without its folder) is one of ours.
pub fn is_ours(name: &str) -> bool {
    name.contains("cudart_shim") || name.starts_with("libcudart.so") || name.starts_with("libcuda.so")
}

fn program_name() -> String {
    std::fs::read_link("/proc/self/exe")
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "(program)".to_owned())
}

/// The segment holding `addr`: `(start, end, lib, ours)`, found in the
/// loaded objects and remembered.
#[cold]
fn find_segment(addr: usize) -> Option<(usize, usize, LibId, bool)> {
    if let Some(r) = RANGES.read().iter().find(|r| r.0 <= addr && addr < r.1) {
        return Some(*r);
    }
    struct Found {
        addr: usize,
        hit: Option<(usize, usize, String)>,
    }
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
        // SAFETY: the loader hands a valid info for the duration of the
        // call; data is our Found.
        let (info, f) = unsafe { (&*info, &mut *(data as *mut Found)) };
        for i in 0..info.dlpi_phnum as usize {
            // SAFETY: dlpi_phdr has dlpi_phnum entries.
            let ph = unsafe { &*info.dlpi_phdr.add(i) };
            if ph.p_type != libc::PT_LOAD {
                continue;
            }
            let start = info.dlpi_addr as usize + ph.p_vaddr as usize;
            let end = start + ph.p_memsz as usize;
            if start <= f.addr && f.addr < end {
                let name = if info.dlpi_name.is_null() {
                    String::new()
                } else {
                    // SAFETY: a NUL-terminated string owned by the loader.
                    unsafe { CStr::from_ptr(info.dlpi_name) }.to_string_lossy().into_owned()
                };
                f.hit = Some((start, end, name));
                return 1;
            }
        }
        0
    }
    let mut f = Found { addr, hit: None };
    // SAFETY: the callback matches dl_iterate_phdr's contract.
    unsafe { libc::dl_iterate_phdr(Some(each), &mut f as *mut Found as *mut c_void) };
    let (start, end, path) = f.hit?;
    let base = path.rsplit('/').next().unwrap_or("").to_owned();
    let (name, ours) = if base.is_empty() {
        // The main program (or the test binary that links this crate).
        (program_name(), own_object(addr))
    } else {
        let ours = is_ours(&base) || own_object(addr);
        (base, ours)
    };
    let r = (start, end, intern(&name), ours);
    RANGES.write().push(r);
    Some(r)
}

/// Whether `addr` is in the object that holds this code.
fn own_object(addr: usize) -> bool {
    let base = |a: usize| {
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        // SAFETY: dladdr only reads the loader's tables.
        (unsafe { libc::dladdr(a as *const c_void, &mut info) } != 0).then_some(info.dli_fbase as usize)
    };
    let me = base(own_object as *const () as usize);
    me.is_some() && me == base(addr)
}

/// The segment of `addr`, through the thread's cache.
#[inline]
pub fn segment(addr: usize) -> Option<(LibId, bool)> {
    let hit = RECENT
        .try_with(|c| {
            let v = c.get();
            v.iter().position(|r| r.0 <= addr && addr < r.1).map(|i| {
                if i != 0 {
                    let mut n = v;
                    n[..=i].rotate_right(1);
                    c.set(n);
                }
                (v[i].2, v[i].3)
            })
        })
        .ok()
        .flatten();
    if hit.is_some() {
        return hit;
    }
    let r = find_segment(addr)?;
    let _ = RECENT.try_with(|c| {
        let mut v = c.get();
        v.rotate_right(1);
        v[0] = r;
        c.set(v);
    });
    Some((r.2, r.3))
}

unsafe extern "C" {
    fn _Unwind_Backtrace(trace: unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int, arg: *mut c_void) -> c_int;
    fn _Unwind_GetIP(ctx: *mut c_void) -> usize;
}

struct Walk {
    /// The first return address outside our libraries.
    first: usize,
    frames: Vec<usize>,
    want: usize,
}

unsafe extern "C" fn step(ctx: *mut c_void, arg: *mut c_void) -> c_int {
    // SAFETY: arg is our Walk; ctx is the unwinder's context for this frame.
    let (w, ip) = unsafe { (&mut *(arg as *mut Walk), _Unwind_GetIP(ctx)) };
    if ip == 0 {
        return 5; // _URC_END_OF_STACK: stop.
    }
    if w.first == 0 {
        match segment(ip) {
            Some((_, true)) | None => return 0,
            Some((_, false)) => w.first = ip,
        }
    }
    if w.frames.len() < w.want {
        w.frames.push(ip);
        return 0;
    }
    5
}

/// The first return address outside our libraries, and with `frames` > 0
/// the native backtrace from there (up to `frames` return addresses).
pub fn unwind(frames: usize) -> (usize, Vec<usize>) {
    let mut w = Walk { first: 0, frames: Vec::new(), want: frames };
    // SAFETY: the callback matches the unwinder's contract and only
    // touches the Walk we pass.
    unsafe { _Unwind_Backtrace(step, &mut w as *mut Walk as *mut c_void) };
    (w.first, w.frames)
}

/// `function+0xoff (library)` for a return address (the call instruction
/// just before it is what is named).
pub fn symbolize(ret: usize) -> String {
    if ret == 0 {
        return "?".to_owned();
    }
    let at = ret - 1;
    let lib = segment(at).map_or_else(|| "?".to_owned(), |(l, _)| name(l));
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the loader's tables; the strings it gives
    // are the loader's and are copied at once.
    if unsafe { libc::dladdr(at as *const c_void, &mut info) } != 0 && !info.dli_sname.is_null() {
        let sym = unsafe { CStr::from_ptr(info.dli_sname) }.to_string_lossy();
        let sym = cpp_demangle::Symbol::new(sym.as_bytes()).ok().map_or_else(|| sym.clone().into_owned(), |s| s.to_string());
        return format!("{sym}+{:#x} ({lib})", ret - info.dli_saddr as usize);
    }
    let base = if unsafe { libc::dladdr(at as *const c_void, &mut info) } != 0 { info.dli_fbase as usize } else { 0 };
    format!("{:#x} ({lib})", ret - base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_resolve_to_their_library_and_ours_are_marked() {
        let (libc_id, ours) = segment(libc::malloc as *const () as usize).unwrap();
        assert!(name(libc_id).starts_with("libc.so"), "{}", name(libc_id));
        assert!(!ours);
        // This code is ours (in the test binary that links it).
        let (_, ours) = segment(segment as *const () as usize).unwrap();
        assert!(ours);
        // A second look-up comes from the cache and agrees.
        assert_eq!(segment(libc::malloc as *const () as usize + 1).unwrap().0, libc_id);
        assert!(is_ours("libcudart.so.13") && is_ours("libcuda.so.1") && is_ours("libcudart_shim.so"));
        assert!(!is_ours("libnccl.so.2") && !is_ours("libtorch_cuda.so"));
    }

    #[test]
    fn symbols_name_the_function_and_the_library() {
        let s = symbolize(libc::malloc as *const () as usize + 4);
        assert!(s.contains("malloc") && s.contains("libc.so"), "{s}");
    }
}
