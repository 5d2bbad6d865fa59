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

/// Library ids and names live with the event model, where the timeline's
/// writers read them.
pub use crate::trace::event::names::{library as name, LibId};
use crate::trace::event::names::intern_library as intern;

/// Loaded segments seen so far with their object's file and load bias,
/// for symbols that are not exported (`.symtab`).
static OBJECTS: RwLock<Vec<(usize, usize, String, usize)>> = RwLock::new(Vec::new());
/// Loaded segments seen so far: `(start, end, lib, ours)`.
static RANGES: RwLock<Vec<(usize, usize, LibId, bool)>> = RwLock::new(Vec::new());

const CACHE: usize = 4;
thread_local! {
    /// The last ranges this thread resolved (most recent first).
    static RECENT: Cell<[(usize, usize, LibId, bool); CACHE]> = const { Cell::new([(0, 0, 0, false); CACHE]) };
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
        bias: usize,
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
                f.bias = info.dlpi_addr as usize;
                return 1;
            }
        }
        0
    }
    let mut f = Found { addr, hit: None, bias: 0 };
    // SAFETY: the callback matches dl_iterate_phdr's contract.
    unsafe { libc::dl_iterate_phdr(Some(each), &mut f as *mut Found as *mut c_void) };
    let (start, end, path) = f.hit?;
    let base = path.rsplit('/').next().unwrap_or("").to_owned();
    // Ours by name: this library is `libcudart_shim*.so` or installed as
    // `libcudart.so.*`; the main program never is (a Rust program linking
    // the crate statically is its own caller).
    let (name, ours) = if base.is_empty() { (program_name(), false) } else { let o = is_ours(&base); (base, o) };
    let r = (start, end, intern(&name), ours);
    let file = if path.is_empty() { "/proc/self/exe".to_owned() } else { path };
    OBJECTS.write().push((start, end, file, f.bias));
    RANGES.write().push(r);
    Some(r)
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
    let obj = OBJECTS.read().iter().find(|o| o.0 <= at && at < o.1).map(|o| (o.2.clone(), o.3));
    if let Some((file, bias)) = obj {
        if let Some((sym, start)) = symtab_lookup(&file, (at - bias) as u64) {
            let sym = cpp_demangle::Symbol::new(sym.as_bytes()).ok().map_or(sym.clone(), |s| s.to_string());
            return format!("{sym}+{:#x} ({lib})", (ret - bias) as u64 - start);
        }
        return format!("{:#x} ({lib})", ret - bias);
    }
    format!("{ret:#x} ({lib})")
}

/// A file mapped read-only (a library may be a gigabyte: only the pages
/// of its headers and symbol table are read).
struct Mapped(*mut c_void, usize);

impl Mapped {
    fn open(path: &str) -> Option<Mapped> {
        let f = std::fs::File::open(path).ok()?;
        let len = f.metadata().ok()?.len() as usize;
        if len == 0 {
            return None;
        }
        use std::os::fd::AsRawFd;
        // SAFETY: a private read-only mapping of a file we opened; unmapped on drop.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, f.as_raw_fd(), 0) };
        (p != libc::MAP_FAILED).then_some(Mapped(p, len))
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping is readable for its length while self lives.
        unsafe { std::slice::from_raw_parts(self.0 as *const u8, self.1) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: our own mapping.
        unsafe { libc::munmap(self.0, self.1) };
    }
}

/// The function of an ELF file's full symbol table (`.symtab`, kept
/// unless the file was stripped) holding file address `addr`: its name
/// and start. Report time only: reads the file.
fn symtab_lookup(file: &str, addr: u64) -> Option<(String, u64)> {
    let map = Mapped::open(file)?;
    let data: &[u8] = map.bytes();
    let u16_at = |o: usize| data.get(o..o + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let u32_at = |o: usize| data.get(o..o + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()));
    let u64_at = |o: usize| data.get(o..o + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()));
    // ELF64, little-endian only (x86_64, aarch64).
    if data.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let shoff = u64_at(0x28)? as usize;
    let shentsize = u16_at(0x3a)? as usize;
    let shnum = u16_at(0x3c)? as usize;
    let sh = |i: usize| shoff + i * shentsize;
    for i in 0..shnum {
        if u32_at(sh(i) + 4)? != 2 {
            continue; // not SHT_SYMTAB
        }
        let (off, size, link, entsize) = (u64_at(sh(i) + 0x18)? as usize, u64_at(sh(i) + 0x20)? as usize, u32_at(sh(i) + 0x28)? as usize, u64_at(sh(i) + 0x38)? as usize);
        let stroff = u64_at(sh(link) + 0x18)? as usize;
        if entsize < 24 {
            return None;
        }
        for k in 0..size / entsize {
            let e = off + k * entsize;
            let (name, info, value, sz) = (u32_at(e)? as usize, *data.get(e + 4)?, u64_at(e + 8)?, u64_at(e + 16)?);
            if info & 0xf == 2 && value <= addr && addr < value + sz.max(1) {
                let s = &data.get(stroff + name..)?;
                let n = s.iter().position(|&b| b == 0)?;
                return Some((String::from_utf8_lossy(&s[..n]).into_owned(), value));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_resolve_to_their_library_and_ours_are_marked() {
        let (libc_id, ours) = segment(libc::malloc as *const () as usize).unwrap();
        assert!(name(libc_id).starts_with("libc.so"), "{}", name(libc_id));
        assert!(!ours);
        // The test binary is the program, not one of ours.
        let (prog, ours) = segment(segment as *const () as usize).unwrap();
        assert!(!ours && name(prog).starts_with("cudart_shim"), "{}", name(prog));
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
