//! `cuGetProcAddress` and `cuGetProcAddress_v2`: the real answer, with the
//! entry point replaced by our export of the same real address.
//!
//! Every pointer the driver hands out is the address of one of its exports
//! (checked on driver 580: all 2644 answers of every name, version and
//! stream flavour). So a table from real address to our export, built from
//! the real addresses of our list, maps each answer without knowing which
//! versioned name the driver chose. An address not in the table (a function
//! newer than the list) goes out unchanged, untraced, and the trace counts
//! it once, under a name that says so.

use crate::api::{ID_cuGetProcAddress, ID_cuGetProcAddress_v2};
use crate::{any_on, intercepted, CUresult, Word, CUDA_SUCCESS, HOOKS, REAL};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::Ordering::*;
use std::sync::OnceLock;

/// (real address, our export), sorted by real address.
static BY_REAL: OnceLock<Vec<(usize, usize)>> = OnceLock::new();

/// Build the table (once the real driver is loaded).
pub fn build_map() {
    BY_REAL.get_or_init(|| {
        let mut v: Vec<(usize, u32, usize)> = crate::exports::wrappers()
            .into_iter()
            .map(|(id, ours)| (REAL[id as usize].load(Acquire) as usize, id, ours as usize))
            .collect();
        v.push((REAL[ID_cuGetProcAddress as usize].load(Acquire) as usize, ID_cuGetProcAddress, cuGetProcAddress as *const () as usize));
        v.push((REAL[ID_cuGetProcAddress_v2 as usize].load(Acquire) as usize, ID_cuGetProcAddress_v2, cuGetProcAddress_v2 as *const () as usize));
        // Untyped exports map to their jumps: not traced, but ours (id
        // past the typed ones, never preferred over a typed name).
        for (i, ours) in crate::exports::untyped_wrappers().into_iter().enumerate() {
            v.push((crate::REAL_UNTYPED[i].load(Acquire) as usize, u32::MAX, ours as usize));
        }
        // Several names with one real address (a driver answering every
        // version of a name with one function, as the fake driver does):
        // the newest version's export, whose signature that function has.
        // Our stubs are never handed out by a driver.
        v.retain(|e| !crate::real::is_stub(e.0));
        v.sort_unstable_by_key(|&(real, id, _)| (real, std::cmp::Reverse(version(id))));
        v.dedup_by_key(|e| e.0);
        v.into_iter().map(|(real, _, ours)| (real, ours)).collect()
    });
}

/// The name without its version and stream suffixes (`cuMemcpyHtoD_v2_ptds`
/// -> `cuMemcpyHtoD`): what `cuGetProcAddress` is asked for.
pub fn base_name(name: &str) -> &str {
    let n = name.strip_suffix("_ptds").or_else(|| name.strip_suffix("_ptsz")).unwrap_or(name);
    match n.rfind("_v") {
        Some(i) if n[i + 2..].bytes().all(|b| b.is_ascii_digit()) && i + 2 < n.len() => &n[..i],
        _ => n,
    }
}

/// The version number of function `id`'s name (`_v3` -> 3; none: 1).
fn version(id: u32) -> u32 {
    if id as usize >= crate::api::FNS.len() {
        return 0;
    }
    // SAFETY: the generated list's static strings.
    let name = unsafe { crate::api::FNS[id as usize].name.get() };
    let n = name.strip_suffix("_ptds").or_else(|| name.strip_suffix("_ptsz")).unwrap_or(name);
    n.rfind("_v").and_then(|i| n[i + 2..].parse().ok()).unwrap_or(1)
}

/// Our entry point for the real `p` the driver handed out for `symbol`.
fn wrap(symbol: *const c_char, p: *mut c_void) -> *mut c_void {
    let h = HOOKS.load(Acquire);
    let Some(map) = BY_REAL.get() else { return p };
    if p.is_null() || h.is_null() {
        return p;
    }
    if let Ok(i) = map.binary_search_by_key(&(p as usize), |e| e.0) {
        return map[i].1 as *mut c_void;
    }
    if !symbol.is_null() {
        // SAFETY: the driver accepted it as a C string.
        let name = unsafe { CStr::from_ptr(symbol) }.to_bytes();
        // SAFETY: hooks of a matching ABI version.
        unsafe { ((*h).untraced)(name.as_ptr(), name.len()) };
    }
    p
}

type GetProcAddressV2 = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> CUresult;
type GetProcAddress = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64) -> CUresult;

/// The answer's entry point, wrapped; a failed call leaves a NULL there.
unsafe fn finish(r: CUresult, symbol: *const c_char, pfn: *mut *mut c_void) -> CUresult {
    if !pfn.is_null() {
        if r == CUDA_SUCCESS {
            unsafe { *pfn = wrap(symbol, *pfn) };
        } else if REAL[ID_cuGetProcAddress_v2 as usize].load(Relaxed) == crate::real::no_driver as *mut c_void {
            unsafe { *pfn = std::ptr::null_mut() };
        }
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
    symbolStatus: *mut c_int,
) -> CUresult {
    // SAFETY: the real function of this signature, or the stub.
    let f: GetProcAddressV2 = unsafe { std::mem::transmute(REAL[ID_cuGetProcAddress_v2 as usize].load(Relaxed)) };
    if !any_on() {
        return unsafe { finish(f(symbol, pfn, cudaVersion, flags, symbolStatus), symbol, pfn) };
    }
    #[repr(C)]
    struct Params {
        symbol: *const c_char,
        pfn: *mut *mut c_void,
        cudaVersion: c_int,
        flags: u64,
        symbolStatus: *mut c_int,
    }
    let words = [symbol.word(), pfn.word(), cudaVersion.word(), flags.word(), symbolStatus.word()];
    let mut p = Params { symbol, pfn, cudaVersion, flags, symbolStatus };
    let pp: *mut Params = &mut p;
    // SAFETY: `pp` points at `p` for the whole call (see exports.rs).
    unsafe { intercepted(ID_cuGetProcAddress_v2, pp.cast(), &words, move || {
        let Params { symbol, pfn, cudaVersion, flags, symbolStatus } = std::ptr::read(pp);
        finish(f(symbol, pfn, cudaVersion, flags, symbolStatus), symbol, pfn)
    }) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, cudaVersion: c_int, flags: u64) -> CUresult {
    // SAFETY: as above.
    let f: GetProcAddress = unsafe { std::mem::transmute(REAL[ID_cuGetProcAddress as usize].load(Relaxed)) };
    if !any_on() {
        return unsafe { finish(f(symbol, pfn, cudaVersion, flags), symbol, pfn) };
    }
    #[repr(C)]
    struct Params {
        symbol: *const c_char,
        pfn: *mut *mut c_void,
        cudaVersion: c_int,
        flags: u64,
    }
    let words = [symbol.word(), pfn.word(), cudaVersion.word(), flags.word()];
    let mut p = Params { symbol, pfn, cudaVersion, flags };
    let pp: *mut Params = &mut p;
    // SAFETY: as above.
    unsafe { intercepted(ID_cuGetProcAddress, pp.cast(), &words, move || {
        let Params { symbol, pfn, cudaVersion, flags } = std::ptr::read(pp);
        finish(f(symbol, pfn, cudaVersion, flags), symbol, pfn)
    }) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base_names() {
        assert_eq!(super::base_name("cuMemcpyHtoD_v2_ptds"), "cuMemcpyHtoD");
        assert_eq!(super::base_name("cuMemcpyHtoDAsync_v2_ptsz"), "cuMemcpyHtoDAsync");
        assert_eq!(super::base_name("cuCtxCreate_v4"), "cuCtxCreate");
        assert_eq!(super::base_name("cuLaunchKernel_ptsz"), "cuLaunchKernel");
        assert_eq!(super::base_name("cuInit"), "cuInit");
        // "_v" not followed by digits only is part of the name.
        assert_eq!(super::base_name("cuMemAdvise_vX"), "cuMemAdvise_vX");
    }

    #[test]
    fn every_typed_function_has_an_export_and_a_descriptor() {
        let w = crate::exports::wrappers();
        // All but the two written by hand.
        assert_eq!(w.len() + 2, crate::api::FNS.len());
        assert!(w.iter().all(|(id, p)| (*id as usize) < crate::api::FNS.len() && !p.is_null()));
        assert_eq!(crate::exports::untyped_wrappers().len(), crate::api::UNTYPED.len());
    }
}

