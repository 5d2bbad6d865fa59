//! Fake driver: libraries, kernels, launches, globals, occupancy.
//!
//! Images are understood through their code: a cubin (ELF: kernel symbols,
//! parameter layouts from `.nv.info`, variables from `.nv.global*` and
//! `.nv.constant*`), or PTX text (`.entry` parameter lists, `.global` and
//! `.const` variables). A fatbin container (or nvcc wrapper) must carry one
//! uncompressed: nvcc 13 leaves ELF uncompressed by default and compresses
//! PTX unless `-no-compress`. Variables get host memory, initialized from
//! the image, so symbol copies move real bytes.
//!
//! Launches run nothing: each is recorded (kernel name, grid, block,
//! dynamic shared memory, stream, the argument bytes laid out by the PTX
//! parameter list, launch kind and attributes), in order of submission on
//! its stream. Read the log in process with `fake_cuda_launch_count` /
//! `fake_cuda_launch_get`, or from another process through the file named
//! by `FAKE_CUDA_LAUNCH_LOG` (one line per launch, appended; a library
//! load adds a `kind=library kernels=N` line).
//!
//! Handles: a `CUkernel` is the address of a leaked [`Kernel`] and the
//! `CUfunction` of any context is the same address (the driver also
//! accepts a `CUkernel` where a `CUfunction` is expected).

#[path = "../../../src/fatbin.rs"]
#[allow(dead_code)]
mod fatbin;

use crate::device::{current_active, initialized};
use crate::*;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::io::Write;

const INVALID_IMAGE: CUresult = 200;
const INVALID_HANDLE: CUresult = 400;

/// A parameter: byte offset and size in the argument buffer.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub offset: usize,
    pub size: usize,
}

pub struct Kernel {
    pub name: CString,
    pub params: Vec<Param>,
    pub ptx_version: c_int,
    /// (attribute, device) -> value set by the program.
    attrs: Mutex<HashMap<(c_int, c_int), c_int>>,
    pub library: usize,
}

impl Kernel {
    fn arg_bytes(&self) -> usize {
        self.params.last().map_or(0, |p| p.offset + p.size)
    }
}

pub struct Global {
    pub ptr: *mut u8,
    pub size: usize,
    pub managed: bool,
}

pub struct Library {
    pub kernels: Vec<&'static Kernel>,
    pub globals: HashMap<String, Global>,
}

// SAFETY: globals point to leaked host buffers.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

/// Live libraries and kernels (addresses), for handle validation.
static LIBS: Mutex<Option<HashSet<usize>>> = Mutex::new(None);
static KERNELS: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn live_lib(l: *const c_void) -> Result<&'static Library, CUresult> {
    if LIBS.lock().get_or_insert_with(HashSet::new).contains(&(l as usize)) {
        // SAFETY: registered libraries are leaked boxes.
        Ok(unsafe { &*(l as *const Library) })
    } else {
        Err(INVALID_HANDLE)
    }
}

fn live_kernel(k: *const c_void) -> Result<&'static Kernel, CUresult> {
    if KERNELS.lock().get_or_insert_with(HashSet::new).contains(&(k as usize)) {
        // SAFETY: registered kernels are leaked boxes.
        Ok(unsafe { &*(k as *const Kernel) })
    } else {
        Err(INVALID_HANDLE)
    }
}

macro_rules! try_cu {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(code) => return code,
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

// ---------------------------------------------------------------- PTX ----

fn type_size(t: &str) -> Option<usize> {
    let bits: usize = t.trim_start_matches('.').get(1..)?.parse().ok()?;
    match t.as_bytes().get(1) {
        Some(b'b' | b'u' | b's' | b'f') if matches!(bits, 8 | 16 | 32 | 64) => Some(bits / 8),
        _ => None,
    }
}

/// A declaration `... .align A .type name[n][m] ...`: (name, size, align).
fn declaration(tokens: &[&str]) -> Option<(String, usize, usize)> {
    let mut elem = None;
    let mut align = None;
    let mut name = None;
    let mut pointer = false;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        if t == ".ptr" {
            // `.ptr [.space] .align N`: N is the pointee's alignment.
            pointer = true;
        } else if t == ".align" {
            if !pointer {
                align = tokens.get(i + 1).and_then(|a| a.parse().ok());
            }
            i += 2;
            continue;
        }
        if let Some(s) = type_size(t) {
            elem = Some(s);
        } else if !t.starts_with('.') && elem.is_some() && name.is_none() {
            name = Some(t);
        }
        i += 1;
    }
    let elem = elem?;
    let decl = name?;
    let mut parts = decl.split('[');
    let base = parts.next()?.to_owned();
    let mut count = 1usize;
    for dim in parts {
        count *= dim.trim_end_matches(']').parse::<usize>().ok()?;
    }
    Some((base, elem * count, align.unwrap_or(elem)))
}

pub struct Ptx {
    pub kernels: Vec<(String, Vec<Param>)>,
    /// (name, size, managed, element size, initial values)
    pub globals: Vec<(String, usize, bool, usize, Vec<u64>)>,
    pub version: c_int,
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find('/') {
        out.push_str(&rest[..p]);
        let tail = &rest[p..];
        if tail.starts_with("//") {
            rest = tail.find('\n').map_or("", |n| &tail[n..]);
        } else if tail.starts_with("/*") {
            rest = tail.find("*/").map_or("", |n| &tail[n + 2..]);
        } else {
            out.push('/');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// A module-scope statement: `.version`, or a `.global`/`.const` variable.
fn module_statement(stmt: &str, ptx: &mut Ptx) {
    let (decl, init) = match stmt.split_once('=') {
        Some((d, i)) => (d, Some(i)),
        None => (stmt, None),
    };
    let toks: Vec<&str> = decl.split_whitespace().collect();
    if toks.first() == Some(&".version") {
        if let Some((a, b)) = toks.get(1).and_then(|v| v.split_once('.')) {
            ptx.version = a.parse::<c_int>().unwrap_or(0) * 10 + b.parse::<c_int>().unwrap_or(0);
        }
        return;
    }
    if !(toks.contains(&".global") || toks.contains(&".const")) || toks.contains(&".extern") {
        return;
    }
    let Some((name, size, _)) = declaration(&toks) else { return };
    let elem = toks.iter().find_map(|t| type_size(t)).unwrap_or(1);
    let values = init
        .map(|i| {
            i.replace(['{', '}'], " ")
                .split(',')
                .filter_map(|v| {
                    let v = v.trim();
                    match v.strip_prefix("0x") {
                        Some(h) => u64::from_str_radix(h, 16).ok(),
                        None => v.parse::<i64>().ok().map(|x| x as u64),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    ptx.globals.push((name, size, decl.contains(".attribute_managed"), elem, values));
}

pub fn parse_ptx(text: &str) -> Ptx {
    // `.attribute(.managed)` would read as a parenthesized list.
    let text = strip_comments(text).replace(".attribute(.managed)", ".attribute_managed");
    let mut ptx = Ptx { kernels: Vec::new(), globals: Vec::new(), version: 0 };
    // `.version`, `.target` and `.address_size` end at the line, not at ';'.
    let mut body = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with(".version") {
            module_statement(t, &mut ptx);
        } else if !(t.starts_with(".target") || t.starts_with(".address_size")) {
            body.push_str(line);
            body.push('\n');
        }
    }
    let text = body;
    let mut depth = 0i32;
    let mut rest = text.as_str();
    // Walk statements at module scope (depth 0), skipping function bodies.
    while let Some(p) = rest.find([';', '{', '}', '(']) {
        let stmt = &rest[..p];
        let after = &rest[p + 1..];
        match rest.as_bytes()[p] {
            b'{' if depth == 0 && stmt.contains('=') => {
                // An initializer list: the statement ends at the next ';'.
                let end = after.find(';').map_or(after.len(), |e| e);
                module_statement(&rest[..p + 1 + end], &mut ptx);
                rest = after.get(end + 1..).unwrap_or("");
            }
            b'{' => {
                depth += 1;
                rest = after;
            }
            b'}' => {
                depth -= 1;
                rest = after;
            }
            b'(' => {
                let close = after.find(')').unwrap_or(after.len());
                if depth == 0 && stmt.contains(".entry") {
                    let name = stmt.split_whitespace().last().unwrap_or("").to_owned();
                    let mut params = Vec::new();
                    let mut offset = 0usize;
                    for p in after[..close].split(',').filter(|p| p.contains(".param")) {
                        let toks: Vec<&str> = p.split_whitespace().collect();
                        if let Some((_, size, align)) = declaration(&toks) {
                            let align = align.max(1);
                            offset = offset.div_ceil(align) * align;
                            params.push(Param { offset, size });
                            offset += size;
                        }
                    }
                    ptx.kernels.push((name, params));
                }
                rest = after.get(close + 1..).unwrap_or("");
            }
            _ => {
                if depth == 0 {
                    module_statement(stmt, &mut ptx);
                }
                rest = after;
            }
        }
    }
    ptx
}

// ---------------------------------------------------------------- ELF ----

fn rd<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    b.get(off..off + N)?.try_into().ok()
}
fn r16(b: &[u8], off: usize) -> Option<u16> {
    rd::<2>(b, off).map(u16::from_le_bytes)
}
fn r32(b: &[u8], off: usize) -> Option<u32> {
    rd::<4>(b, off).map(u32::from_le_bytes)
}
fn r64(b: &[u8], off: usize) -> Option<u64> {
    rd::<8>(b, off).map(u64::from_le_bytes)
}

struct Section {
    name: String,
    kind: u32,
    offset: usize,
    size: usize,
}

fn cstr_at(b: &[u8], off: usize) -> String {
    let s = b.get(off..).unwrap_or(&[]);
    let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
    String::from_utf8_lossy(&s[..end]).into_owned()
}

/// Kernels (from `STO_CUDA_ENTRY` symbols, parameters from the
/// `EIATTR_KPARAM_INFO` records of `.nv.info.<kernel>`) and variables (object
/// symbols in `.nv.global*` / `.nv.constant1..`) of a CUDA cubin.
pub fn parse_elf(b: &[u8]) -> Option<Ptx> {
    let shoff = r64(b, 0x28)? as usize;
    let shentsize = r16(b, 0x3a)? as usize;
    let shnum = r16(b, 0x3c)? as usize;
    let shstrndx = r16(b, 0x3e)? as usize;
    let mut raw = Vec::new();
    for i in 0..shnum {
        let h = shoff + i * shentsize;
        raw.push((r32(b, h)?, r32(b, h + 4)?, r64(b, h + 0x18)? as usize, r64(b, h + 0x20)? as usize, r32(b, h + 0x28)?));
    }
    let strtab_off = raw.get(shstrndx)?.2;
    let secs: Vec<Section> =
        raw.iter().map(|r| Section { name: cstr_at(b, strtab_off + r.0 as usize), kind: r.1, offset: r.2, size: r.3 }).collect();
    let (symi, symtab) = secs.iter().enumerate().find(|(_, s)| s.kind == 2)?;
    let strs = &secs[raw[symi].4 as usize];
    let mut ptx = Ptx { kernels: Vec::new(), globals: Vec::new(), version: 90 };
    for i in 0..symtab.size / 24 {
        let e = symtab.offset + i * 24;
        let name = cstr_at(b, strs.offset + r32(b, e)? as usize);
        let info = *b.get(e + 4)?;
        let other = *b.get(e + 5)?;
        let shndx = r16(b, e + 6)? as usize;
        let value = r64(b, e + 8)? as usize;
        let size = r64(b, e + 16)? as usize;
        let Some(sec) = secs.get(shndx) else { continue };
        if info & 0xf == 2 && other & 0x10 != 0 {
            let mut params: Vec<(u16, Param)> = Vec::new();
            if let Some(inf) = secs.iter().find(|s| s.name == format!(".nv.info.{name}")) {
                let rec = b.get(inf.offset..inf.offset + inf.size)?;
                let mut o = 0;
                while o + 4 <= rec.len() {
                    let (fmt, attr) = (rec[o], rec[o + 1]);
                    if fmt == 4 {
                        let n = r16(rec, o + 2)? as usize;
                        if attr == 0x17 && n >= 12 {
                            let ordinal = r16(rec, o + 8)?;
                            let offset = r16(rec, o + 10)? as usize;
                            let psize = (r32(rec, o + 12)? >> 18) as usize;
                            params.push((ordinal, Param { offset, size: psize }));
                        }
                        o += 4 + n;
                    } else {
                        o += 4;
                    }
                }
            }
            params.sort_by_key(|p| p.0);
            ptx.kernels.push((name, params.into_iter().map(|p| p.1).collect()));
        } else if info & 0xf == 1 && (sec.name.starts_with(".nv.global") || (sec.name.starts_with(".nv.constant") && !sec.name.starts_with(".nv.constant0"))) {
            let init: Vec<u64> = if sec.kind == 8 {
                Vec::new()
            } else {
                b.get(sec.offset + value..sec.offset + value + size)?.iter().map(|&x| x as u64).collect()
            };
            ptx.globals.push((name, size, other & 0x4 != 0, 1, init));
        }
    }
    Some(ptx)
}

/// The modules in an image: PTX text, a cubin, an nvcc wrapper, or a
/// container (its first uncompressed ELF, else its uncompressed PTX).
fn modules_of(image: *const c_void) -> Result<Vec<Ptx>, CUresult> {
    let p = image.cast::<u8>();
    // SAFETY: the caller hands a readable image; we read 4 bytes first.
    let magic = unsafe { std::ptr::read_unaligned(p.cast::<u32>()) };
    let data = if magic == fatbin::WRAPPER_MAGIC {
        // SAFETY: an nvcc wrapper {magic, version, data*, ...}.
        unsafe { *(p.add(8).cast::<*const u8>()) }
    } else {
        p
    };
    // SAFETY: see above.
    let magic = unsafe { std::ptr::read_unaligned(data.cast::<u32>()) };
    if magic == fatbin::CONTAINER_MAGIC {
        let c = unsafe { fatbin::parse_ptr(data) }.map_err(|e| {
            eprintln!("fake-cuda: bad fatbin: {e}");
            INVALID_IMAGE
        })?;
        let elf = c.entries.iter().find(|e| e.kind == fatbin::Kind::Elf && e.compression == fatbin::Compression::None);
        if let Some(m) = elf.and_then(|e| parse_elf(e.payload)) {
            return Ok(vec![m]);
        }
        let texts: Vec<Ptx> = c.entries.iter().filter_map(|e| e.ptx_text()).map(parse_ptx).collect();
        if texts.is_empty() {
            eprintln!("fake-cuda: this fatbin has no uncompressed code ({}): build with -no-compress", c.summary());
            return Err(NOT_SUPPORTED);
        }
        return Ok(texts);
    }
    if magic == 0x464c457f {
        // A bare cubin: read its size from the section header table's end.
        let head = unsafe { std::slice::from_raw_parts(data, 64) };
        let (Some(shoff), Some(ent), Some(num)) = (r64(head, 0x28), r16(head, 0x3a), r16(head, 0x3c)) else { return Err(INVALID_IMAGE) };
        let len = shoff as usize + ent as usize * num as usize;
        let b = unsafe { std::slice::from_raw_parts(data, len) };
        return parse_elf(b).map(|m| vec![m]).ok_or(INVALID_IMAGE);
    }
    // SAFETY: otherwise a NUL-terminated PTX string.
    let s = unsafe { CStr::from_ptr(data.cast()) }.to_string_lossy().into_owned();
    if !s.contains(".version") {
        return Err(INVALID_IMAGE);
    }
    Ok(vec![parse_ptx(&s)])
}

fn load(modules: Vec<Ptx>) -> *mut c_void {
    let lib: &'static mut Library = Box::leak(Box::new(Library { kernels: Vec::new(), globals: HashMap::new() }));
    let lib_addr = lib as *mut Library as usize;
    for ptx in modules {
        for (name, params) in ptx.kernels {
            let k: &'static Kernel = Box::leak(Box::new(Kernel {
                name: CString::new(name).unwrap_or_default(),
                params,
                ptx_version: ptx.version,
                attrs: Mutex::new(HashMap::new()),
                library: lib_addr,
            }));
            KERNELS.lock().get_or_insert_with(HashSet::new).insert(k as *const Kernel as usize);
            lib.kernels.push(k);
        }
        for (name, size, managed, elem, values) in ptx.globals {
            // u64 storage: 8-byte aligned, like device globals.
            let buf: &'static mut [u64] = Box::leak(vec![0u64; size.div_ceil(8).max(1)].into_boxed_slice());
            let ptr = buf.as_mut_ptr().cast::<u8>();
            for (i, v) in values.iter().enumerate() {
                let at = i * elem;
                if at + elem <= size {
                    // SAFETY: within the buffer; little-endian like the GPU.
                    unsafe { std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), ptr.add(at), elem) };
                }
            }
            lib.globals.insert(name, Global { ptr, size, managed });
        }
    }
    LIBS.lock().get_or_insert_with(HashSet::new).insert(lib_addr);
    log_line(&format!("kind=library kernels={}", lib.kernels.len()));
    lib_addr as *mut c_void
}

// ------------------------------------------------------------ libraries ----

pub unsafe extern "C" fn cuLibraryLoadData(
    library: *mut *mut c_void,
    code: *const c_void,
    _jit_options: *mut c_int,
    _jit_values: *mut *mut c_void,
    num_jit: c_uint,
    _lib_options: *mut c_int,
    _lib_values: *mut *mut c_void,
    _num_lib: c_uint,
) -> CUresult {
    fake_enter!("cuLibraryLoadData");
    try_cu!(initialized());
    out!(library);
    out!(code);
    let _ = num_jit;
    let modules = try_cu!(modules_of(code));
    unsafe { *library = load(modules) };
    SUCCESS
}

pub unsafe extern "C" fn cuLibraryLoadFromFile(
    library: *mut *mut c_void,
    file: *const c_char,
    _jit_options: *mut c_int,
    _jit_values: *mut *mut c_void,
    _num_jit: c_uint,
    _lib_options: *mut c_int,
    _lib_values: *mut *mut c_void,
    _num_lib: c_uint,
) -> CUresult {
    fake_enter!("cuLibraryLoadFromFile");
    try_cu!(initialized());
    out!(library);
    out!(file);
    let path = unsafe { CStr::from_ptr(file) }.to_string_lossy().into_owned();
    let Ok(mut bytes) = std::fs::read(&path) else { return 301 }; // CUDA_ERROR_FILE_NOT_FOUND
    bytes.push(0);
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    let modules = try_cu!(modules_of(bytes.as_ptr().cast()));
    unsafe { *library = load(modules) };
    SUCCESS
}

pub unsafe extern "C" fn cuLibraryUnload(library: *mut c_void) -> CUresult {
    fake_enter!("cuLibraryUnload");
    let lib = try_cu!(live_lib(library));
    LIBS.lock().get_or_insert_with(HashSet::new).remove(&(library as usize));
    let mut ks = KERNELS.lock();
    for k in &lib.kernels {
        ks.get_or_insert_with(HashSet::new).remove(&(*k as *const Kernel as usize));
    }
    SUCCESS
}

pub unsafe extern "C" fn cuLibraryGetKernel(kernel: *mut *const Kernel, library: *mut c_void, name: *const c_char) -> CUresult {
    fake_enter!("cuLibraryGetKernel");
    out!(kernel);
    out!(name);
    let lib = try_cu!(live_lib(library));
    let name = unsafe { CStr::from_ptr(name) };
    match lib.kernels.iter().find(|k| k.name.as_c_str() == name) {
        Some(k) => {
            unsafe { *kernel = *k };
            SUCCESS
        }
        None => NOT_FOUND,
    }
}

pub unsafe extern "C" fn cuLibraryGetKernelCount(count: *mut c_uint, library: *mut c_void) -> CUresult {
    fake_enter!("cuLibraryGetKernelCount");
    out!(count);
    let lib = try_cu!(live_lib(library));
    unsafe { *count = lib.kernels.len() as c_uint };
    SUCCESS
}

pub unsafe extern "C" fn cuLibraryEnumerateKernels(kernels: *mut *const Kernel, num: c_uint, library: *mut c_void) -> CUresult {
    fake_enter!("cuLibraryEnumerateKernels");
    out!(kernels);
    let lib = try_cu!(live_lib(library));
    if num as usize > lib.kernels.len() {
        return INVALID_VALUE;
    }
    for (i, k) in lib.kernels.iter().take(num as usize).enumerate() {
        unsafe { *kernels.add(i) = *k };
    }
    SUCCESS
}

fn global(dptr: *mut u64, bytes: *mut usize, library: *mut c_void, name: *const c_char, managed: bool) -> CUresult {
    if name.is_null() {
        return INVALID_VALUE;
    }
    let lib = try_cu!(live_lib(library));
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    match lib.globals.get(name.as_ref()) {
        Some(g) if g.managed == managed => {
            if !dptr.is_null() {
                unsafe { *dptr = g.ptr as u64 };
            }
            if !bytes.is_null() {
                unsafe { *bytes = g.size };
            }
            SUCCESS
        }
        _ => NOT_FOUND,
    }
}

pub unsafe extern "C" fn cuLibraryGetGlobal(dptr: *mut u64, bytes: *mut usize, library: *mut c_void, name: *const c_char) -> CUresult {
    fake_enter!("cuLibraryGetGlobal");
    try_cu!(current_active());
    global(dptr, bytes, library, name, false)
}

pub unsafe extern "C" fn cuLibraryGetManaged(dptr: *mut u64, bytes: *mut usize, library: *mut c_void, name: *const c_char) -> CUresult {
    fake_enter!("cuLibraryGetManaged");
    global(dptr, bytes, library, name, true)
}

pub unsafe extern "C" fn cuLibraryGetUnifiedFunction(fptr: *mut *mut c_void, library: *mut c_void, symbol: *const c_char) -> CUresult {
    fake_enter!("cuLibraryGetUnifiedFunction");
    out!(fptr);
    out!(symbol);
    try_cu!(live_lib(library));
    // The fake has no unified functions.
    NOT_FOUND
}

// -------------------------------------------------------------- kernels ----

pub unsafe extern "C" fn cuKernelGetFunction(func: *mut *const Kernel, kernel: *const c_void) -> CUresult {
    fake_enter!("cuKernelGetFunction");
    out!(func);
    try_cu!(current_active());
    let k = try_cu!(live_kernel(kernel));
    unsafe { *func = k };
    SUCCESS
}

pub unsafe extern "C" fn cuKernelGetLibrary(library: *mut *mut c_void, kernel: *const c_void) -> CUresult {
    fake_enter!("cuKernelGetLibrary");
    out!(library);
    let k = try_cu!(live_kernel(kernel));
    unsafe { *library = k.library as *mut c_void };
    SUCCESS
}

/// Default attribute values of every kernel (H100-like).
fn attr_value(k: &Kernel, a: c_int, dev: c_int) -> Result<c_int, CUresult> {
    if let Some(v) = k.attrs.lock().get(&(a, dev)) {
        return Ok(*v);
    }
    Ok(match a {
        0 => 1024,
        1..=3 => 0,
        4 => 16,
        5 | 6 => k.ptx_version.max(90),
        7 => 0,
        8 => 48 * 1024,
        9 => -1,
        10..=15 => 0,
        _ => return Err(INVALID_VALUE),
    })
}

fn set_attr(k: &Kernel, a: c_int, v: c_int, dev: c_int) -> CUresult {
    match a {
        8 if !(0..=227 * 1024).contains(&v) => INVALID_VALUE,
        9 if !(-1..=100).contains(&v) => INVALID_VALUE,
        8..=15 => {
            k.attrs.lock().insert((a, dev), v);
            SUCCESS
        }
        _ => INVALID_VALUE,
    }
}

fn device_ok(dev: c_int) -> Result<(), CUresult> {
    if dev >= 0 && dev < crate::knobs::get().devices { Ok(()) } else { Err(INVALID_DEVICE) }
}

pub unsafe extern "C" fn cuKernelGetAttribute(v: *mut c_int, a: c_int, kernel: *const c_void, dev: c_int) -> CUresult {
    fake_enter!("cuKernelGetAttribute");
    out!(v);
    try_cu!(initialized());
    try_cu!(device_ok(dev));
    let k = try_cu!(live_kernel(kernel));
    unsafe { *v = try_cu!(attr_value(k, a, dev)) };
    SUCCESS
}

pub unsafe extern "C" fn cuKernelSetAttribute(a: c_int, value: c_int, kernel: *const c_void, dev: c_int) -> CUresult {
    fake_enter!("cuKernelSetAttribute");
    try_cu!(initialized());
    try_cu!(device_ok(dev));
    let k = try_cu!(live_kernel(kernel));
    set_attr(k, a, value, dev)
}

pub unsafe extern "C" fn cuKernelSetCacheConfig(kernel: *const c_void, config: c_int, dev: c_int) -> CUresult {
    fake_enter!("cuKernelSetCacheConfig");
    try_cu!(device_ok(dev));
    try_cu!(live_kernel(kernel));
    if !(0..=3).contains(&config) {
        return INVALID_VALUE;
    }
    SUCCESS
}

pub unsafe extern "C" fn cuKernelGetName(name: *mut *const c_char, kernel: *const c_void) -> CUresult {
    fake_enter!("cuKernelGetName");
    out!(name);
    let k = try_cu!(live_kernel(kernel));
    unsafe { *name = k.name.as_ptr() };
    SUCCESS
}

pub unsafe extern "C" fn cuKernelGetParamInfo(kernel: *const c_void, index: usize, offset: *mut usize, size: *mut usize) -> CUresult {
    fake_enter!("cuKernelGetParamInfo");
    param_info(kernel, index, offset, size)
}

fn param_info(kernel: *const c_void, index: usize, offset: *mut usize, size: *mut usize) -> CUresult {
    out!(offset);
    let k = try_cu!(live_kernel(kernel));
    let Some(p) = k.params.get(index) else { return INVALID_VALUE };
    unsafe {
        *offset = p.offset;
        if !size.is_null() {
            *size = p.size;
        }
    }
    SUCCESS
}

pub unsafe extern "C" fn cuFuncGetAttribute(v: *mut c_int, a: c_int, func: *const c_void) -> CUresult {
    fake_enter!("cuFuncGetAttribute");
    out!(v);
    let ctx = try_cu!(current_active());
    let k = try_cu!(live_kernel(func));
    unsafe { *v = try_cu!(attr_value(k, a, ctx.device)) };
    SUCCESS
}

pub unsafe extern "C" fn cuFuncSetAttribute(func: *const c_void, a: c_int, value: c_int) -> CUresult {
    fake_enter!("cuFuncSetAttribute");
    let ctx = try_cu!(current_active());
    let k = try_cu!(live_kernel(func));
    set_attr(k, a, value, ctx.device)
}

pub unsafe extern "C" fn cuFuncSetCacheConfig(func: *const c_void, config: c_int) -> CUresult {
    fake_enter!("cuFuncSetCacheConfig");
    try_cu!(live_kernel(func));
    if !(0..=3).contains(&config) { INVALID_VALUE } else { SUCCESS }
}

pub unsafe extern "C" fn cuFuncSetSharedMemConfig(func: *const c_void, config: c_int) -> CUresult {
    fake_enter!("cuFuncSetSharedMemConfig");
    try_cu!(live_kernel(func));
    if !(0..=2).contains(&config) { INVALID_VALUE } else { SUCCESS }
}

pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, func: *const c_void) -> CUresult {
    fake_enter!("cuFuncGetName");
    out!(name);
    let k = try_cu!(live_kernel(func));
    unsafe { *name = k.name.as_ptr() };
    SUCCESS
}

pub unsafe extern "C" fn cuFuncGetParamInfo(func: *const c_void, index: usize, offset: *mut usize, size: *mut usize) -> CUresult {
    fake_enter!("cuFuncGetParamInfo");
    param_info(func, index, offset, size)
}

// ------------------------------------------------------------- launches ----

/// One recorded launch.
#[derive(Clone, Debug)]
pub struct Launch {
    pub kind: &'static str,
    pub name: String,
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub shared: c_uint,
    pub stream: usize,
    pub args: Vec<u8>,
    /// (attribute id, first 4 bytes of its value as an int)
    pub attrs: Vec<(c_int, c_int)>,
}

impl Launch {
    /// `kind=plain name=_Z2k1i grid=1,1,1 block=32,1,1 shared=0 stream=0x0 args=01000000 attrs=2:1`
    pub fn line(&self) -> String {
        let hex: String = self.args.iter().map(|b| format!("{b:02x}")).collect();
        let attrs: Vec<String> = self.attrs.iter().map(|(a, v)| format!("{a}:{v}")).collect();
        format!(
            "kind={} name={} grid={},{},{} block={},{},{} shared={} stream={:#x} args={} attrs={}",
            self.kind,
            self.name,
            self.grid[0],
            self.grid[1],
            self.grid[2],
            self.block[0],
            self.block[1],
            self.block[2],
            self.shared,
            self.stream,
            hex,
            attrs.join(",")
        )
    }
}

static LAUNCHES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Append a line to `FAKE_CUDA_LAUNCH_LOG`, if set.
fn log_line(line: &str) {
    if let Ok(path) = std::env::var("FAKE_CUDA_LAUNCH_LOG")
        && let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}

fn record(l: Launch) {
    let line = l.line();
    log_line(&line);
    LAUNCHES.lock().push(line);
}

/// Validate and record one launch of `func` (a kernel or function handle)
/// on `stream`. Other fake modules that run kernels (graph launches) call
/// this so their launches land in the same log.
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch(
    kind: &'static str,
    func: *const c_void,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    attrs: Vec<(c_int, c_int)>,
) -> CUresult {
    let ctx = try_cu!(current_active());
    let k = try_cu!(live_kernel(func));
    if grid.contains(&0) || block.contains(&0) {
        return INVALID_VALUE;
    }
    let threads = block.iter().map(|&b| b as u64).product::<u64>();
    if threads > 1024 || block[2] > 64 || grid[1] > 65535 || grid[2] > 65535 {
        return INVALID_VALUE;
    }
    if shared as i64 > attr_value(k, 8, ctx.device).unwrap_or(0) as i64 {
        return INVALID_VALUE;
    }
    let mut args = vec![0u8; k.arg_bytes()];
    if !params.is_null() {
        for (i, p) in k.params.iter().enumerate() {
            // SAFETY: the program passes one pointer per parameter.
            let src = unsafe { *params.add(i) };
            if src.is_null() {
                return INVALID_VALUE;
            }
            unsafe { std::ptr::copy_nonoverlapping(src.cast::<u8>(), args.as_mut_ptr().add(p.offset), p.size) };
        }
    } else if !extra.is_null() {
        // CU_LAUNCH_PARAM_BUFFER_POINTER (1), CU_LAUNCH_PARAM_BUFFER_SIZE (2), END (0).
        let (mut buf, mut size) = (std::ptr::null::<u8>(), 0usize);
        let mut i = 0;
        loop {
            let key = unsafe { *extra.add(i) } as usize;
            match key {
                0 => break,
                1 => buf = unsafe { *extra.add(i + 1) }.cast(),
                2 => size = unsafe { *(*extra.add(i + 1)).cast::<usize>() },
                _ => return INVALID_VALUE,
            }
            i += 2;
        }
        if buf.is_null() || size < args.len() {
            return INVALID_VALUE;
        }
        unsafe { std::ptr::copy_nonoverlapping(buf, args.as_mut_ptr(), args.len()) };
    } else if !k.params.is_empty() {
        return INVALID_VALUE;
    }
    let l = Launch { kind, name: k.name.to_string_lossy().into_owned(), grid, block, shared, stream: stream as usize, args, attrs };
    let hang = knobs::hang(&l.name);
    crate::activity::kernel(&l.name, grid, block, shared, stream as usize, hang);
    crate::stream::enqueue_repeatable(stream, crate::capture::KIND_KERNEL, move || record(l.clone()));
    // A kernel that does not complete (FAKE_CUDA_HANG_KERNEL): its stream
    // stays busy, on the stream's own thread (host work never runs inline).
    if let Some(ms) = hang {
        let _ = crate::stream::submit(
            stream,
            false,
            crate::capture::KIND_HOST,
            Box::new(move || match ms {
                Some(ms) => std::thread::sleep(std::time::Duration::from_millis(ms)),
                None => loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                },
            }),
        );
    }
    SUCCESS
}

pub unsafe extern "C" fn cuLaunchKernel(
    f: *const c_void,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    fake_enter!("cuLaunchKernel");
    launch("plain", f, [gx, gy, gz], [bx, by, bz], shared, stream, params, extra, Vec::new())
}

pub unsafe extern "C" fn cuLaunchKernel_ptsz(
    f: *const c_void,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    fake_enter!("cuLaunchKernel_ptsz");
    launch("plain_ptsz", f, [gx, gy, gz], [bx, by, bz], shared, stream, params, extra, Vec::new())
}

pub unsafe extern "C" fn cuLaunchCooperativeKernel(
    f: *const c_void,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
) -> CUresult {
    fake_enter!("cuLaunchCooperativeKernel");
    launch("cooperative", f, [gx, gy, gz], [bx, by, bz], shared, stream, params, std::ptr::null_mut(), Vec::new())
}

/// C: `CUlaunchConfig`.
#[repr(C)]
pub struct LaunchConfig {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: *mut c_void,
    attrs: *const [u8; 72],
    num_attrs: c_uint,
}

fn launch_ex(kind: &'static str, config: *const LaunchConfig, f: *const c_void, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult {
    out!(config);
    let c = unsafe { &*config };
    if c.num_attrs > 0 && c.attrs.is_null() {
        return INVALID_VALUE;
    }
    let attrs = (0..c.num_attrs as usize)
        .map(|i| {
            let a = unsafe { &*c.attrs.add(i) };
            let id = c_int::from_le_bytes(a[0..4].try_into().unwrap());
            let v = c_int::from_le_bytes(a[8..12].try_into().unwrap());
            (id, v)
        })
        .collect();
    launch(kind, f, c.grid, c.block, c.shared, c.stream, params, extra, attrs)
}

pub unsafe extern "C" fn cuLaunchKernelEx(config: *const LaunchConfig, f: *const c_void, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult {
    fake_enter!("cuLaunchKernelEx");
    launch_ex("ex", config, f, params, extra)
}

pub unsafe extern "C" fn cuLaunchKernelEx_ptsz(config: *const LaunchConfig, f: *const c_void, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult {
    fake_enter!("cuLaunchKernelEx_ptsz");
    launch_ex("ex_ptsz", config, f, params, extra)
}

/// C: `CUDA_LAUNCH_PARAMS` (12.9's cuda.h), 56 bytes.
#[repr(C)]
pub struct MultiDeviceParams {
    function: *const c_void,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
}

/// `cuLaunchCooperativeKernelMultiDevice` (`_v9000`, deprecated; not in
/// 13.x's headers, still in driver 580). Checks what its documentation
/// asks, all before launching anything: one entry per device at most,
/// known flags (`NO_PRE_LAUNCH_SYNC` 1, `NO_POST_LAUNCH_SYNC` 2), created
/// streams only (the NULL and special streams are INVALID_HANDLE),
/// distinct devices, one kernel with one shape. Then each entry is
/// launched on its stream as a cooperative launch; the log's kind names
/// the flags.
pub unsafe extern "C" fn cuLaunchCooperativeKernelMultiDevice(list: *mut MultiDeviceParams, n: c_uint, flags: c_uint) -> CUresult {
    fake_enter!("cuLaunchCooperativeKernelMultiDevice");
    try_cu!(current_active());
    if list.is_null() || n == 0 || n as c_int > knobs::get().devices || flags & !3 != 0 {
        return INVALID_VALUE;
    }
    // SAFETY: the caller passes n entries.
    let l = unsafe { std::slice::from_raw_parts(list, n as usize) };
    let mut devices = HashSet::new();
    for p in l {
        if (p.stream as usize) <= 2 {
            return INVALID_HANDLE;
        }
        let s = try_cu!(crate::stream::resolve(p.stream, false));
        if !devices.insert(s.device) {
            return INVALID_VALUE;
        }
        try_cu!(live_kernel(p.function));
        let f = &l[0];
        if p.function != f.function || p.grid != f.grid || p.block != f.block || p.shared != f.shared {
            return INVALID_VALUE;
        }
    }
    let kind = match flags {
        0 => "multi_device",
        1 => "multi_device_no_pre_sync",
        2 => "multi_device_no_post_sync",
        _ => "multi_device_no_pre_no_post_sync",
    };
    for p in l {
        let r = launch(kind, p.function, p.grid, p.block, p.shared, p.stream, p.params, std::ptr::null_mut(), Vec::new());
        if r != SUCCESS {
            return r;
        }
    }
    SUCCESS
}

// ------------------------------------------------------------ occupancy ----

/// The fake SM: 2048 threads, 32 blocks, 228 KiB shared memory (1 KiB
/// reserved per block).
const SM_THREADS: c_int = 2048;
const SM_BLOCKS: c_int = 32;
const SM_SMEM: usize = 228 * 1024;

pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    f: *const c_void,
    block_size: c_int,
    smem: usize,
    flags: c_uint,
) -> CUresult {
    fake_enter!("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    out!(blocks);
    try_cu!(current_active());
    try_cu!(live_kernel(f));
    if !(1..=1024).contains(&block_size) || flags > 1 {
        return INVALID_VALUE;
    }
    let by_threads = SM_THREADS / block_size;
    let by_smem = (SM_SMEM / (smem + 1024)) as c_int;
    unsafe { *blocks = by_threads.min(by_smem).min(SM_BLOCKS) };
    SUCCESS
}

pub unsafe extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(smem: *mut usize, f: *const c_void, blocks: c_int, block_size: c_int) -> CUresult {
    fake_enter!("cuOccupancyAvailableDynamicSMemPerBlock");
    out!(smem);
    try_cu!(current_active());
    try_cu!(live_kernel(f));
    if blocks <= 0 || !(1..=1024).contains(&block_size) {
        return INVALID_VALUE;
    }
    let v = if blocks * block_size > SM_THREADS || blocks > SM_BLOCKS { 0 } else { (SM_SMEM / blocks as usize).saturating_sub(1024).min(227 * 1024) };
    unsafe { *smem = v };
    SUCCESS
}

pub unsafe extern "C" fn cuOccupancyMaxPotentialClusterSize(size: *mut c_int, f: *const c_void, config: *const LaunchConfig) -> CUresult {
    fake_enter!("cuOccupancyMaxPotentialClusterSize");
    out!(size);
    out!(config);
    try_cu!(current_active());
    try_cu!(live_kernel(f));
    unsafe { *size = 8 };
    SUCCESS
}

pub unsafe extern "C" fn cuOccupancyMaxActiveClusters(n: *mut c_int, f: *const c_void, config: *const LaunchConfig) -> CUresult {
    fake_enter!("cuOccupancyMaxActiveClusters");
    out!(n);
    out!(config);
    try_cu!(current_active());
    try_cu!(live_kernel(f));
    // 132 SMs in clusters of the grid's x-size... kept simple: 132 / 2.
    unsafe { *n = 66 };
    SUCCESS
}

// -------------------------------------------------------- export tables ----

static EXPORT_TABLE: [usize; 4] = [4 * 8, 0, 0, 0];

pub unsafe extern "C" fn cuGetExportTable(table: *mut *const c_void, id: *const [u8; 16]) -> CUresult {
    fake_enter!("cuGetExportTable");
    out!(table);
    out!(id);
    // Every id answers the same dummy table (the fake has no private API).
    unsafe { *table = EXPORT_TABLE.as_ptr().cast() };
    SUCCESS
}

// --------------------------------------------------------- control API ----

/// Number of launches recorded so far (test control API).
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_launch_count() -> u64 {
    LAUNCHES.lock().len() as u64
}

/// Launch `i` as one line (see [`Launch::line`]), NUL-terminated in `buf`
/// of `cap` bytes; returns the line's length (test control API).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fake_cuda_launch_get(i: u64, buf: *mut c_char, cap: usize) -> usize {
    let g = LAUNCHES.lock();
    let Some(l) = g.get(i as usize) else { return 0 };
    if !buf.is_null() && cap > 0 {
        let n = l.len().min(cap - 1);
        unsafe {
            std::ptr::copy_nonoverlapping(l.as_ptr().cast(), buf, n);
            *buf.add(n) = 0;
        }
    }
    l.len()
}

/// Forget recorded launches (test control API).
#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_launch_clear() {
    LAUNCHES.lock().clear();
}

pub static SYMBOLS: crate::Symbols = &[
    sym!(cuLibraryLoadData),
    sym!(cuLibraryLoadFromFile),
    sym!(cuLibraryUnload),
    sym!(cuLibraryGetKernel),
    sym!(cuLibraryGetKernelCount),
    sym!(cuLibraryEnumerateKernels),
    sym!(cuLibraryGetGlobal),
    sym!(cuLibraryGetManaged),
    sym!(cuLibraryGetUnifiedFunction),
    sym!(cuKernelGetFunction),
    sym!(cuKernelGetLibrary),
    sym!(cuKernelGetAttribute),
    sym!(cuKernelSetAttribute),
    sym!(cuKernelSetCacheConfig),
    sym!(cuKernelGetName),
    sym!(cuKernelGetParamInfo),
    sym!(cuFuncGetAttribute),
    sym!(cuFuncSetAttribute),
    sym!(cuFuncSetCacheConfig),
    sym!(cuFuncSetSharedMemConfig),
    sym!(cuFuncGetName),
    sym!(cuFuncGetParamInfo),
    sym!(cuLaunchKernel),
    sym!("cuLaunchKernel@ptds" => cuLaunchKernel_ptsz),
    sym!(cuLaunchKernelEx),
    sym!("cuLaunchKernelEx@ptds" => cuLaunchKernelEx_ptsz),
    sym!(cuLaunchCooperativeKernel),
    sym!(cuLaunchCooperativeKernelMultiDevice),
    sym!(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags),
    sym!(cuOccupancyAvailableDynamicSMemPerBlock),
    sym!(cuOccupancyMaxPotentialClusterSize),
    sym!(cuOccupancyMaxActiveClusters),
    sym!(cuGetExportTable),
];
