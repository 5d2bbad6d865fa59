//! Finding cudart-shim's trace machinery: the one of each cudart-shim
//! runtime in the process (`libcudart_shim.so`, `libcudart_shim12.so`).
//!
//! Order: the copies already loaded in the process's global scope (the
//! program runs on our runtime, by LD_PRELOAD or as its libcudart.so.13 or
//! .12), by version node; then the files beside this library
//! (`target/<profile>/libcudart_shim*.so` for
//! `target/<profile>/driver/libcuda.so.1`) when the process already has
//! them loaded `RTLD_LOCAL` (our runtime inside a library opened
//! `RTLD_LOCAL`, as PyTorch's are); last, when there is none and
//! `CUDART_SHIM_TRACE` asks for tracing, `libcudart_shim.so` beside this
//! library, loaded `RTLD_LOCAL` (also when `CUDART_SHIM_FAULTS` asks for
//! faults or `CUDART_SHIM_MEMORY_LIMIT` for a limit). Missing or of another ABI version: the interposer only
//! forwards. Which machinery a call goes to: [`connect`].

use crate::desc::{Api, Hooks, HooksFn, ABI_VERSION, HOOKS_SYMBOL};
use crate::{api, real, HOOKS, SECOND, SWITCH, SWITCH2};
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicU32, Ordering::*};

static API: Api = Api {
    abi: ABI_VERSION,
    fns: api::FNS.as_ptr(),
    nfns: api::FNS.len(),
    enums: api::ENUMS.as_ptr(),
    nenums: api::ENUMS.len(),
    result_enum: api::RESULT_ENUM,
};

/// Every distinct `cudartShimInternalDriverHooks` in the process, in order
/// of preference: the 13 runtime's, then the 12 runtime's, as the global
/// scope resolves each version node (an unversioned `dlsym` would give only
/// the first one loaded); then the copies beside this library already
/// loaded `RTLD_LOCAL` (`RTLD_NOLOAD`: nothing is loaded); last, only when
/// none is in the process and `CUDART_SHIM_TRACE` asks for tracing (or
/// `CUDART_SHIM_FAULTS` for faults, `CUDART_SHIM_MEMORY_LIMIT` for a limit),
/// `libcudart_shim.so` beside this library, loaded `RTLD_LOCAL`.
fn hooks_fns() -> Vec<HooksFn> {
    let mut found: Vec<*mut c_void> = Vec::new();
    fn push(found: &mut Vec<*mut c_void>, f: *mut c_void) {
        if !f.is_null() && !found.contains(&f) {
            found.push(f);
        }
    }
    for node in [c"libcudart.so.13", c"libcudart.so.12"] {
        // SAFETY: RTLD_DEFAULT lookups of C strings.
        push(&mut found, unsafe { libc::dlvsym(libc::RTLD_DEFAULT, HOOKS_SYMBOL.as_ptr().cast(), node.as_ptr()) });
    }
    // An unversioned copy (a test program linking the crate).
    push(&mut found, unsafe { libc::dlsym(libc::RTLD_DEFAULT, HOOKS_SYMBOL.as_ptr().cast()) });
    let dir = own_dir();
    for file in ["libcudart_shim.so", "libcudart_shim12.so"] {
        let Some(lib) = dir.as_ref().and_then(|d| CString::new(d.join(file).into_os_string().into_encoded_bytes()).ok()) else { continue };
        // SAFETY: NOLOAD only takes a reference to a copy already loaded.
        let h = unsafe { libc::dlopen(lib.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL | libc::RTLD_NOLOAD) };
        if !h.is_null() {
            push(&mut found, unsafe { libc::dlsym(h, HOOKS_SYMBOL.as_ptr().cast()) });
        }
    }
    // Faults and memory limits act on driver calls too: a program that
    // does not use our runtime (NVIDIA's static runtime, CuPy) gets it
    // loaded for them.
    let set = |v: &str| real::env(v).is_some_and(|v| !v.trim().is_empty());
    if found.is_empty()
        && (set("CUDART_SHIM_FAULTS")
            || set("CUDART_SHIM_MEMORY_LIMIT")
            || real::env("CUDART_SHIM_TRACE").is_some_and(|v| v != "0" && v != "off"))
        && let Some(lib) = dir.and_then(|d| CString::new(d.join("libcudart_shim.so").into_os_string().into_encoded_bytes()).ok())
    {
        // SAFETY: loading our own runtime library; its initializers only set up statics.
        let h = unsafe { libc::dlopen(lib.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if h.is_null() {
            eprintln!(
                "[cudart-shim] warning: driver interposer: cannot load the trace machinery {}: driver calls are forwarded, not traced",
                lib.to_string_lossy()
            );
        } else {
            push(&mut found, unsafe { libc::dlsym(h, HOOKS_SYMBOL.as_ptr().cast()) });
        }
    }
    found
        .into_iter()
        .map(|f| {
            pin(f);
            // SAFETY: the symbol has this type (src/trace/driver_abi.rs).
            unsafe { std::mem::transmute::<*mut c_void, HooksFn>(f) }
        })
        .collect()
}

/// The folder of this library, its links resolved.
fn own_dir() -> Option<std::path::PathBuf> {
    let own = real::own_path()?;
    // SAFETY: realpath allocates the answer (freed below) or fails.
    let resolved = unsafe { libc::realpath(own.as_ptr(), std::ptr::null_mut()) };
    if resolved.is_null() {
        return None;
    }
    let me = unsafe { std::ffi::CStr::from_ptr(resolved) }.to_string_lossy().into_owned();
    unsafe { libc::free(resolved.cast()) };
    std::path::Path::new(&me).parent().map(std::path::Path::to_path_buf)
}

/// Keep the library holding `addr` loaded for good: we keep pointers into
/// it (its switch word, its hooks), and a program may dlclose the copy it
/// loaded itself (our runtime as its libcudart.so.13).
fn pin(addr: *mut c_void) {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: an address inside a loaded library; info is an out-struct.
    if unsafe { libc::dladdr(addr, &mut info) } != 0 && !info.dli_fname.is_null() {
        // SAFETY: the loader's own C string; NOLOAD only takes a reference.
        unsafe { libc::dlopen(info.dli_fname, libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_NODELETE) };
    }
}

/// Connect to the trace machinery of every cudart-shim runtime in the
/// process (one per ABI: libcudart.so.13 and .12 are two copies of the
/// crate, each with its own statics).
///
/// The rule (tested by tests/cli.rs and tests/interposer.rs):
/// - a driver call made while a runtime call of one machinery is in
///   progress on the thread goes to that machinery, nested under the call
///   (the second machinery's [`Hooks::depth`] is asked first; with one
///   machinery nothing is asked);
/// - every other driver call (the program's own) goes to the *primary*:
///   the first machinery whose runtime is already in use when the
///   interposer loads (our runtimes load the driver in their first call,
///   so that is the runtime the program uses), else the 13 one. Only the
///   primary is switched on here; the other stays inert until its own
///   runtime is called, so a preloaded runtime the program never uses
///   writes nothing.
pub fn connect() {
    let mut hooks: Vec<&'static Hooks> = Vec::new();
    for f in hooks_fns() {
        // SAFETY: API is a static of the agreed layout.
        let h: *const Hooks = unsafe { f(&API) };
        // SAFETY: non-NULL hooks are a static of the machinery.
        if !h.is_null() && unsafe { (*h).abi } == ABI_VERSION {
            hooks.push(unsafe { &*h });
        }
    }
    if hooks.is_empty() {
        return;
    }
    // SAFETY: the flags word of a machinery (a static, pinned above).
    let in_use = |h: &&Hooks| unsafe { &*h.flags }.load(Acquire) != 0;
    let primary = hooks.iter().position(in_use).unwrap_or(0);
    let p = hooks.remove(primary);
    // SAFETY: hooks of a matching ABI version.
    unsafe { (p.activate)() };
    crate::proc_address::build_map();
    if let Some(second) = hooks.first() {
        SECOND.store(*second as *const Hooks as *mut Hooks, Release);
        SWITCH2.store(second.flags as *mut AtomicU32, Release);
    }
    HOOKS.store(p as *const Hooks as *mut Hooks, Release);
    SWITCH.store(p.flags as *mut AtomicU32, Release);
}
