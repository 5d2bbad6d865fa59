//! The objects this process has loaded, read from their dynamic sections
//! as the loader mapped them (`dl_iterate_phdr`), never through `dlopen`.
//!
//! Why not `dlopen(name, RTLD_NOLOAD)`: it runs the initializers of an
//! object that is mapped but not yet initialized. A runtime that starts
//! its trace inside another library's initializer (nvcc's fatbin
//! registration, called while the loader initializes a batch of libraries)
//! would then run the next library's registration inside its own one-time
//! setup, which waits for itself: measured with PyTorch 2.11 on an H100
//! (libtorch_nvshmem's registration started the timeline, whose `dlopen`
//! ran libtorch_cuda's registration, which waited on the trace setup).
//! Reading the mapped ELF runs nothing.

use std::ffi::{CStr, c_char, c_void};

const PT_DYNAMIC: u32 = 2;
const DT_NULL: i64 = 0;
const DT_HASH: i64 = 4;
const DT_STRTAB: i64 = 5;
const DT_SYMTAB: i64 = 6;
const DT_SONAME: i64 = 14;
const DT_GNU_HASH: i64 = 0x6fff_fef5;

/// C: `Elf64_Dyn`.
#[repr(C)]
struct Dyn {
    tag: i64,
    val: u64,
}

/// C: `Elf64_Sym`.
#[repr(C)]
struct Sym {
    name: u32,
    info: u8,
    other: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

/// One loaded object: where it is mapped and its dynamic section.
pub struct Object {
    pub base: usize,
    dynamic: *const Dyn,
}

/// Every loaded object with a dynamic section, in the loader's order.
pub fn objects() -> Vec<Object> {
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _: usize, data: *mut c_void) -> libc::c_int {
        // SAFETY: the loader's record for this call; data is our Vec.
        let (info, out) = unsafe { (&*info, &mut *(data as *mut Vec<Object>)) };
        for i in 0..info.dlpi_phnum as usize {
            // SAFETY: dlpi_phdr holds dlpi_phnum program headers.
            let ph = unsafe { &*info.dlpi_phdr.add(i) };
            if ph.p_type == PT_DYNAMIC {
                let dynamic = (info.dlpi_addr as usize).wrapping_add(ph.p_vaddr as usize) as *const Dyn;
                out.push(Object { base: info.dlpi_addr as usize, dynamic });
            }
        }
        0
    }
    let mut out: Vec<Object> = Vec::new();
    // SAFETY: the callback only reads the records and pushes to `out`.
    unsafe { libc::dl_iterate_phdr(Some(each), &mut out as *mut Vec<Object> as *mut c_void) };
    out
}

impl Object {
    /// The value of dynamic entry `tag`, if present.
    fn entry(&self, tag: i64) -> Option<u64> {
        let mut d = self.dynamic;
        loop {
            // SAFETY: a mapped dynamic section ends with DT_NULL.
            let e = unsafe { &*d };
            if e.tag == DT_NULL {
                return None;
            }
            if e.tag == tag {
                return Some(e.val);
            }
            d = d.wrapping_add(1);
        }
    }

    /// An address entry: glibc rewrites them to absolute addresses where
    /// the section is writable (x86-64) and leaves them relative to the
    /// object elsewhere; a value below the object's base is relative.
    fn address(&self, tag: i64) -> Option<usize> {
        let v = self.entry(tag)? as usize;
        Some(if v < self.base { self.base + v } else { v })
    }

    fn string(&self, offset: u64) -> Option<&'static CStr> {
        let strtab = self.address(DT_STRTAB)?;
        // SAFETY: offsets into the mapped string table name NUL-terminated strings.
        Some(unsafe { CStr::from_ptr((strtab + offset as usize) as *const c_char) })
    }

    /// `DT_SONAME`, if the object has one.
    pub fn soname(&self) -> Option<&'static CStr> {
        self.string(self.entry(DT_SONAME)?)
    }

    /// The address of the defined dynamic symbol `name` (any version), found
    /// through the object's GNU or SysV hash table.
    pub fn symbol(&self, name: &CStr) -> Option<*const c_void> {
        let symtab = self.address(DT_SYMTAB)? as *const Sym;
        let matches = |i: usize| {
            // SAFETY: `i` comes from the object's own hash table.
            let s = unsafe { &*symtab.add(i) };
            (s.shndx != 0 && s.value != 0 && self.string(u64::from(s.name)) == Some(name)).then(|| (self.base + s.value as usize) as *const c_void)
        };
        let bytes = name.to_bytes();
        if let Some(gnu) = self.address(DT_GNU_HASH) {
            let h = gnu as *const u32;
            // SAFETY: the GNU hash table's layout: nbuckets, symoffset,
            // bloom size, bloom shift, the bloom words, buckets, chains.
            unsafe {
                let (nbuckets, symoffset, bloom) = (*h as usize, *h.add(1) as usize, *h.add(2) as usize);
                if nbuckets == 0 {
                    return None;
                }
                let buckets = (h.add(4) as *const u64).add(bloom) as *const u32;
                let chains = buckets.add(nbuckets);
                let hash = bytes.iter().fold(5381u32, |h, &c| h.wrapping_mul(33).wrapping_add(u32::from(c)));
                let mut i = *buckets.add(hash as usize % nbuckets) as usize;
                if i < symoffset {
                    return None;
                }
                loop {
                    let c = *chains.add(i - symoffset);
                    if c | 1 == hash | 1
                        && let Some(a) = matches(i)
                    {
                        return Some(a);
                    }
                    if c & 1 != 0 {
                        return None;
                    }
                    i += 1;
                }
            }
        }
        let h = self.address(DT_HASH)? as *const u32;
        // SAFETY: the SysV hash table's layout: nbucket, nchain, buckets, chains.
        unsafe {
            let nbucket = *h as usize;
            if nbucket == 0 {
                return None;
            }
            let (buckets, chains) = (h.add(2), h.add(2 + nbucket));
            let hash = bytes.iter().fold(0u32, |h, &c| {
                let h = (h << 4).wrapping_add(u32::from(c));
                let g = h & 0xf000_0000;
                (h ^ (g >> 24)) & !g
            });
            let mut i = *buckets.add(hash as usize % nbucket) as usize;
            while i != 0 {
                if let Some(a) = matches(i) {
                    return Some(a);
                }
                i = *chains.add(i) as usize;
            }
        }
        None
    }
}

/// The loaded object that holds `addr` (by `dladdr`'s base, which takes
/// the loader's lock but runs nothing).
pub fn object_of(addr: *const c_void) -> Option<Object> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: an address in a loaded object; info is an out-struct.
    if unsafe { libc::dladdr(addr, &mut info) } == 0 {
        return None;
    }
    objects().into_iter().find(|o| o.base == info.dli_fbase as usize)
}
