//! Finding cudart-shim's trace machinery (`libcudart_shim.so`).
//!
//! Order: a copy already loaded in the process's global scope (the program
//! runs on our runtime, by LD_PRELOAD or as its libcudart.so.13); else the
//! file beside this library (`target/<profile>/libcudart_shim.so` for
//! `target/<profile>/driver/libcuda.so.1`), loaded with `RTLD_LOCAL`: when
//! the process already has that file loaded (our runtime inside a library
//! opened `RTLD_LOCAL`, as PyTorch's are), the loader hands back the same
//! copy, so there is one machinery per process. The file is loaded only
//! when `CUDART_SHIM_TRACE` asks for tracing; otherwise, and when it is
//! missing or of another ABI version, the interposer only forwards.

use crate::desc::{Api, Hooks, HooksFn, ABI_VERSION, HOOKS_SYMBOL};
use crate::{api, real, HOOKS, SWITCH};
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

fn hooks_fn() -> Option<HooksFn> {
    // SAFETY: RTLD_DEFAULT lookup of a C string.
    let mut f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, HOOKS_SYMBOL.as_ptr().cast()) };
    if f.is_null() {
        real::env("CUDART_SHIM_TRACE").filter(|v| v != "0" && v != "off")?;
        let own = real::own_path()?;
        // SAFETY: realpath allocates the answer (freed below) or fails.
        let resolved = unsafe { libc::realpath(own.as_ptr(), std::ptr::null_mut()) };
        if resolved.is_null() {
            return None;
        }
        let me = unsafe { std::ffi::CStr::from_ptr(resolved) }.to_string_lossy().into_owned();
        unsafe { libc::free(resolved.cast()) };
        let dir = std::path::Path::new(&me).parent()?;
        let lib = CString::new(dir.join("libcudart_shim.so").into_os_string().into_encoded_bytes()).ok()?;
        // SAFETY: loading our own runtime library; its initializers only set up statics.
        let h = unsafe { libc::dlopen(lib.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if h.is_null() {
            eprintln!(
                "[cudart-shim] warning: driver interposer: cannot load the trace machinery {}: driver calls are forwarded, not traced",
                lib.to_string_lossy()
            );
            return None;
        }
        f = unsafe { libc::dlsym(h, HOOKS_SYMBOL.as_ptr().cast()) };
        if f.is_null() {
            return None;
        }
    }
    pin(f);
    // SAFETY: the symbol has this type (src/trace/driver_abi.rs).
    Some(unsafe { std::mem::transmute::<*mut c_void, HooksFn>(f) })
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

/// Connect to the trace machinery, if there is one to connect to.
pub fn connect() {
    let Some(f) = hooks_fn() else { return };
    // SAFETY: API is a static of the agreed layout.
    let h: *const Hooks = unsafe { f(&API) };
    // SAFETY: non-NULL hooks are a static of the machinery.
    if h.is_null() || unsafe { (*h).abi } != ABI_VERSION {
        return;
    }
    crate::proc_address::build_map();
    HOOKS.store(h as *mut Hooks, Release);
    SWITCH.store(unsafe { (*h).flags } as *mut AtomicU32, Release);
}
