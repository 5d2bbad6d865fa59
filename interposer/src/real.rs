//! Finding and loading the real driver.
//!
//! Search order (the first library that loads wins):
//! 1. `CUDART_SHIM_DRIVER`: a path (ignored by setuid programs, like every
//!    variable of cudart-shim);
//! 2. the folders of `LD_LIBRARY_PATH` (where the loader would have found
//!    the driver had this library not been first; also ignored by setuid
//!    programs);
//! 3. the dynamic loader's cache (`/etc/ld.so.cache`, what `ldconfig -p`
//!    prints): every x86-64 `libcuda.so.1` it lists;
//! 4. the usual driver folders: the distributions' library folders, the
//!    NVIDIA container toolkit's mount (`/usr/local/nvidia/lib64`) and WSL's
//!    (`/usr/lib/wsl/lib`).
//!
//! A candidate that is this library itself (same device and inode), or any
//! other copy of the interposer (it exports [`MARKER`]), is skipped. The
//! driver is loaded by absolute path with `RTLD_LOCAL`, so its symbols never
//! shadow ours; the loader still hands our copy to every later
//! `dlopen("libcuda.so.1")`, as the first object loaded under that SONAME.

use crate::{api, CUresult, CUDA_ERROR_NOT_FOUND, REAL, REAL_UNTYPED};
use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::Ordering::*;

/// What every call answers when no real driver was found: NVIDIA's stub
/// driver answers the same (`CUDA_ERROR_STUB_LIBRARY`: "the CUDA driver
/// that the application has loaded is a stub library"), and NVIDIA's
/// static runtime turns it into `cudaErrorStubLibrary`.
pub const NO_DRIVER: CUresult = 34;

/// Exported by every copy of the interposer, so that one never loads another.
#[unsafe(no_mangle)]
pub static cudart_shim_driver_interposer: u32 = crate::desc::ABI_VERSION;
const MARKER: &CStr = c"cudart_shim_driver_interposer";

/// The stub behind every entry point until (or unless) the real driver is
/// loaded. Called with any arguments: on x86-64 a callee may ignore them.
pub extern "C" fn no_driver() -> CUresult {
    NO_DRIVER
}

/// `cuDriverGetVersion` with no driver: success and version 0, what
/// `cudaDriverGetVersion` documents for "no driver installed"; NVIDIA's
/// static runtime then reports `cudaErrorInsufficientDriver`, as it does
/// when there is no libcuda.so.1 at all.
unsafe extern "C" fn driver_version_none(v: *mut std::ffi::c_int) -> CUresult {
    if v.is_null() {
        return crate::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: the caller's out-pointer, checked non-NULL.
    unsafe { *v = 0 };
    0
}

/// `cuGetErrorName` / `cuGetErrorString` with no driver: the result's name
/// from cuda.h (the driver's own descriptions are not in the header), so a
/// program can still say what went wrong.
unsafe extern "C" fn error_name_none(error: CUresult, out: *mut *const std::ffi::c_char) -> CUresult {
    static NAMES: std::sync::OnceLock<Vec<(i64, CString)>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        // SAFETY: the generated list's static strings.
        api::E_CUresult.iter().map(|n| (n.value, CString::new(unsafe { n.name.get() }).unwrap_or_default())).collect()
    });
    match (out.is_null(), names.iter().find(|n| n.0 == error as i64)) {
        (false, Some((_, name))) => {
            // SAFETY: the caller's out-pointer, checked non-NULL.
            unsafe { *out = name.as_ptr() };
            0
        }
        _ => crate::CUDA_ERROR_INVALID_VALUE,
    }
}

/// With no driver, the few answers that differ from [`no_driver`].
fn no_driver_answers() {
    for (name, f) in [
        ("cuDriverGetVersion", driver_version_none as *mut c_void),
        ("cuGetErrorName", error_name_none as *mut c_void),
        ("cuGetErrorString", error_name_none as *mut c_void),
    ] {
        // SAFETY: the generated list's static strings.
        if let Some(id) = api::FNS.iter().position(|f| unsafe { f.name.get() } == name) {
            REAL[id].store(f, Release);
        }
    }
}

/// Whether `p` is one of the stubs above or below (not a driver function).
pub fn is_stub(p: usize) -> bool {
    [no_driver as *const () as usize, not_in_driver as *const () as usize, driver_version_none as *const () as usize, error_name_none as *const () as usize]
        .contains(&p)
}

/// The stub behind a function the loaded driver does not export.
extern "C" fn not_in_driver() -> CUresult {
    CUDA_ERROR_NOT_FOUND
}

/// The usual driver folders, after the environment and the loader's cache.
pub const FOLDERS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
    "/usr/lib/wsl/lib",
    "/usr/lib",
    "/lib/x86_64-linux-gnu",
    "/lib64",
];

/// The handle of the real driver (NULL: none).
pub static HANDLE: std::sync::atomic::AtomicPtr<c_void> = std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// Whether the process runs with elevated rights (setuid, setgid,
/// capabilities): then no variable is read.
pub fn secure() -> bool {
    // SAFETY: plain libc query.
    unsafe { libc::getauxval(libc::AT_SECURE) != 0 }
}

pub fn env(name: &str) -> Option<String> {
    if secure() {
        return None;
    }
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// (device, inode) of a file, following links.
fn file_id(path: &CStr) -> Option<(u64, u64)> {
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid C string and out-struct.
    (unsafe { libc::stat(path.as_ptr(), &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

/// The path this library was loaded from.
pub fn own_path() -> Option<CString> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: any address inside this library; info is an out-struct.
    if unsafe { libc::dladdr(no_driver as *const c_void, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr's answer is a C string owned by the loader.
    Some(unsafe { CStr::from_ptr(info.dli_fname) }.to_owned())
}

/// The candidates, in search order, each with where it came from.
fn candidates() -> Vec<(String, &'static str)> {
    let mut v = Vec::new();
    if let Some(p) = env("CUDART_SHIM_DRIVER") {
        v.push((p, "CUDART_SHIM_DRIVER"));
    }
    // Where the dynamic loader would have looked for libcuda.so.1 had we not
    // been first (this folder itself is skipped below, by file identity).
    for d in env("LD_LIBRARY_PATH").iter().flat_map(|v| v.split(':').filter(|d| !d.is_empty()).map(str::to_owned).collect::<Vec<_>>()) {
        v.push((format!("{d}/libcuda.so.1"), "LD_LIBRARY_PATH"));
    }
    for p in ld_cache("libcuda.so.1") {
        v.push((p, "loader cache"));
    }
    for d in FOLDERS {
        v.push((format!("{d}/libcuda.so.1"), "usual folder"));
    }
    let mut seen = std::collections::HashSet::new();
    v.retain(|(p, _)| seen.insert(p.clone()));
    v
}

/// Paths `/etc/ld.so.cache` lists for `soname` (x86-64, glibc's format
/// "glibc-ld.so.cache1.1"; an unreadable or older cache gives none).
pub fn ld_cache(soname: &str) -> Vec<String> {
    let Ok(data) = std::fs::read("/etc/ld.so.cache") else { return Vec::new() };
    parse_ld_cache(&data, soname)
}

fn parse_ld_cache(data: &[u8], soname: &str) -> Vec<String> {
    const MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
    // Flags of a 64-bit x86-64 library for glibc (FLAG_ELF_LIBC6 | FLAG_X8664_LIB64).
    const X86_64: i32 = 0x0303;
    let mut out = Vec::new();
    let Some(base) = data.windows(MAGIC.len()).position(|w| w == MAGIC) else { return out };
    let u32_at = |o: usize| data.get(o..o + 4).map(|b| u32::from_ne_bytes(b.try_into().unwrap()));
    let Some(nlibs) = u32_at(base + 20) else { return out };
    let cstr_at = |o: usize| data.get(base + o..).and_then(|s| CStr::from_bytes_until_nul(s).ok());
    for i in 0..nlibs as usize {
        let e = base + 48 + i * 24;
        let (Some(flags), Some(key), Some(value)) = (u32_at(e), u32_at(e + 4), u32_at(e + 8)) else { break };
        if flags as i32 != X86_64 || cstr_at(key as usize).is_none_or(|k| k.to_bytes() != soname.as_bytes()) {
            continue;
        }
        if let Some(p) = cstr_at(value as usize).and_then(|p| p.to_str().ok()) {
            out.push(p.to_owned());
        }
    }
    out
}

fn dlerror() -> String {
    // SAFETY: dlerror returns NULL or a C string valid until the next call.
    let e = unsafe { libc::dlerror() };
    if e.is_null() { "unknown error".into() } else { unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned() }
}

/// Find and load the real driver, and fill [`REAL`] and [`REAL_UNTYPED`].
/// Not found: the tables keep [`no_driver`], and one warning lists what was
/// searched.
pub fn load() {
    let me = own_path().and_then(|p| file_id(&p));
    let mut tried = Vec::new();
    for (path, from) in candidates() {
        let Ok(c) = CString::new(path.clone()) else { continue };
        let Some(id) = file_id(&c) else {
            if from != "usual folder" && from != "LD_LIBRARY_PATH" {
                tried.push(format!("{path} ({from}: no such file)"));
            }
            continue;
        };
        if Some(id) == me {
            tried.push(format!("{path} ({from}: this interposer)"));
            continue;
        }
        // SAFETY: loading the driver runs its initializers, as any CUDA
        // program's dlopen of it does.
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if h.is_null() {
            tried.push(format!("{path} ({from}: {})", dlerror()));
            continue;
        }
        // SAFETY: valid handle and C string.
        if !unsafe { libc::dlsym(h, MARKER.as_ptr()) }.is_null() {
            tried.push(format!("{path} ({from}: another copy of the interposer)"));
            unsafe { libc::dlclose(h) };
            continue;
        }
        HANDLE.store(h, Release);
        resolve(h);
        return;
    }
    no_driver_answers();
    if tried.is_empty() {
        tried.push("no libcuda.so.1 in the loader cache".into());
    }
    // CUDART_SHIM_LOG=off or error silences warnings, as in the runtime.
    if env("CUDART_SHIM_LOG").is_some_and(|v| matches!(v.trim(), "off" | "error")) {
        return;
    }
    eprintln!(
        "[cudart-shim] warning: driver interposer: the real CUDA driver (libcuda.so.1) was not found; searched: CUDART_SHIM_DRIVER and LD_LIBRARY_PATH{}, the loader cache, {}; tried: {}. Every driver call answers CUDA_ERROR_STUB_LIBRARY (34). Install the NVIDIA driver or set CUDART_SHIM_DRIVER to its path.",
        if secure() { " (ignored: setuid program)" } else { "" },
        FOLDERS.join(", "),
        tried.join("; ")
    );
}

/// Fill the tables from the real driver's exports.
///
/// A driver library that exports only `cuGetProcAddress_v2` (the test
/// suite's fake driver) is asked through it instead: by the name without
/// its version suffix, in the stream flavour the suffix says.
fn resolve(h: *mut c_void) {
    let sym = |name: &str| -> *mut c_void {
        let Ok(c) = CString::new(name) else { return std::ptr::null_mut() };
        // SAFETY: valid handle and C string.
        unsafe { libc::dlsym(h, c.as_ptr()) }
    };
    type Gpa = unsafe extern "C" fn(*const std::ffi::c_char, *mut *mut c_void, std::ffi::c_int, u64, *mut std::ffi::c_int) -> CUresult;
    let gpa = sym("cuGetProcAddress_v2");
    let by_query = sym("cuInit").is_null() && !gpa.is_null();
    let query = |name: &str| -> *mut c_void {
        let per_thread = name.ends_with("_ptds") || name.ends_with("_ptsz");
        let base = crate::names::base_name(name);
        let Ok(c) = CString::new(base) else { return std::ptr::null_mut() };
        let mut p = std::ptr::null_mut();
        let mut st = 0;
        // SAFETY: the driver's cuGetProcAddress_v2 with valid out-pointers.
        let f: Gpa = unsafe { std::mem::transmute::<*mut c_void, Gpa>(gpa) };
        let r = unsafe { f(c.as_ptr(), &mut p, 13000, if per_thread { 2 } else { 1 }, &mut st) };
        if r == 0 { p } else { std::ptr::null_mut() }
    };
    for (id, f) in api::FNS.iter().enumerate() {
        // SAFETY: the generated list's static strings.
        let name = unsafe { f.name.get() };
        let mut p = sym(name);
        if p.is_null() && by_query {
            p = query(name);
        }
        REAL[id].store(if p.is_null() { not_in_driver as *mut c_void } else { p }, Release);
    }
    for (i, name) in api::UNTYPED.iter().enumerate() {
        let p = sym(name);
        REAL_UNTYPED[i].store(if p.is_null() { not_in_driver as *mut c_void } else { p }, Release);
    }
}

#[cfg(test)]
mod tests {
    /// A cache in glibc's format with the given (flags, key, value) entries.
    fn cache(entries: &[(i32, &str, &str)]) -> Vec<u8> {
        let mut strings = Vec::new();
        let header = 48 + 24 * entries.len();
        let mut table = Vec::new();
        for (flags, k, v) in entries {
            let key = header + strings.len();
            strings.extend_from_slice(k.as_bytes());
            strings.push(0);
            let value = header + strings.len();
            strings.extend_from_slice(v.as_bytes());
            strings.push(0);
            table.extend_from_slice(&flags.to_ne_bytes());
            table.extend_from_slice(&(key as u32).to_ne_bytes());
            table.extend_from_slice(&(value as u32).to_ne_bytes());
            table.extend_from_slice(&[0u8; 12]);
        }
        let mut f = b"glibc-ld.so.cache1.1".to_vec();
        f.extend_from_slice(&(entries.len() as u32).to_ne_bytes());
        f.extend_from_slice(&(strings.len() as u32).to_ne_bytes());
        f.extend_from_slice(&[0u8; 20]);
        assert_eq!(f.len(), 48);
        f.extend(table);
        f.extend(strings);
        f
    }

    #[test]
    fn ld_cache_entries_for_the_name_and_x86_64() {
        let c = cache(&[
            (0x0303, "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
            (0x0003, "libcuda.so.1", "/usr/lib/i386-linux-gnu/libcuda.so.1"),
            (0x0303, "libcudart.so.13", "/opt/cuda/libcudart.so.13"),
            (0x0303, "libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1"),
        ]);
        assert_eq!(
            super::parse_ld_cache(&c, "libcuda.so.1"),
            ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1"]
        );
        // Truncated or foreign data: nothing, never a panic.
        for n in 0..c.len() {
            let _ = super::parse_ld_cache(&c[..n], "libcuda.so.1");
        }
        assert!(super::parse_ld_cache(b"ld.so-1.7.0 old format only", "libcuda.so.1").is_empty());
    }

    #[test]
    fn ld_cache_of_this_machine_parses() {
        // libc is in every cache; an x86-64 path ending in its name.
        let v = super::ld_cache("libc.so.6");
        assert!(v.iter().all(|p| p.ends_with("libc.so.6")), "{v:?}");
        assert!(!v.is_empty() || !std::path::Path::new("/etc/ld.so.cache").exists());
    }
}
