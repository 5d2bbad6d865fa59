//! Driver API calls, as the driver interposer (`interposer/`, built as
//! `libcuda.so.1`) reports them.
//!
//! The interposer is thin: it forwards every driver call and, when tracing
//! is on, hands each one to [`traced`](super::traced) here through the C ABI
//! of [`driver_abi`](super::driver_abi), so runtime and driver calls share
//! one machinery: the same counters, summary (a `cu*` row beside the
//! `cuda*` rows, as in nsys's `cuda_api_sum`), call log, timeline,
//! subscribers and environment variables.
//!
//! The interposer describes its functions once (names, parameters, how each
//! is shown, the enums of cuda.h); the registry below turns that into one
//! [`CallSite`] per driver function and argument decoders.
//!
//! Nesting: a driver call made while a runtime call is in progress on the
//! same thread (our runtime calling the driver) is marked `driver` on its
//! site and has a depth above 0: it appears nested on the timeline and in
//! the call log, and is not counted as the program's own in the summary.
//!
//! `CUDART_SHIM_TRACE_DRIVER=0` switches driver-API tracing off: the hooks
//! are refused and the interposer only forwards. The same switch decides
//! whether our runtime loads its driver through the interposer (see
//! `driver::loader`), which is also how entry points handed out by
//! `cudaGetDriverEntryPoint*` are traced: they are the interposer's.

use super::args::{push_hex, push_int, Raw};
use super::driver_abi::{kind, Api, Kind, ABI_VERSION};
use super::{traced, CallArgs, CallSite, TraceArg};
use crate::types::cudaError_t;
use std::ffi::{c_int, CStr};
use std::panic::catch_unwind;
use std::sync::OnceLock;

struct Enum {
    /// (value, name), first name of each value.
    values: Box<[(i64, &'static str)]>,
}

impl Enum {
    fn write(&self, v: i64, out: &mut String) {
        match self.values.iter().find(|e| e.0 == v) {
            Some(e) => out.push_str(e.1),
            None => push_int(out, v),
        }
    }
}

struct Arg {
    name: &'static str,
    kind: Kind,
    en: Option<&'static Enum>,
}

struct Func {
    site: CallSite,
    args: Box<[Arg]>,
}

struct Registry {
    api: *const Api,
    fns: Box<[Func]>,
    result: &'static Enum,
    /// Driver-API tracing on (`CUDART_SHIM_TRACE_DRIVER`): the calls are
    /// observed. Off, they still take the other stages (hooks, faults,
    /// the ledger) when those are on.
    traced: bool,
}

// SAFETY: `api` is only compared, never dereferenced after registration.
unsafe impl Send for Registry {}
unsafe impl Sync for Registry {}

static REGISTRY: OnceLock<&'static Registry> = OnceLock::new();

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// Copy the interposer's description (its statics outlive us, but our
/// copies keep this side free of its lifetime).
///
/// # Safety
/// `api` follows [`super::driver_abi`].
unsafe fn register(api: &Api) -> Registry {
    // SAFETY: per the ABI, arrays of the given lengths.
    let enums: Vec<&'static Enum> = unsafe { std::slice::from_raw_parts(api.enums, api.nenums) }
        .iter()
        .map(|e| {
            let vals = unsafe { std::slice::from_raw_parts(e.values, e.len) };
            let mut values: Vec<(i64, &'static str)> = Vec::with_capacity(vals.len());
            for v in vals {
                if !values.iter().any(|x| x.0 == v.value) {
                    values.push((v.value, leak(unsafe { v.name.get() })));
                }
            }
            &*Box::leak(Box::new(Enum { values: values.into() }))
        })
        .collect();
    let empty: &'static Enum = Box::leak(Box::new(Enum { values: Box::new([]) }));
    let fns = unsafe { std::slice::from_raw_parts(api.fns, api.nfns) }
        .iter()
        .map(|f| {
            let args = unsafe { std::slice::from_raw_parts(f.args, f.nargs) }
                .iter()
                .take(super::args::MAX_ARGS)
                .map(|a| Arg {
                    name: leak(unsafe { a.name.get() }),
                    kind: a.kind,
                    en: (a.kind == kind::ENUM).then(|| enums.get(a.enum_index as usize).copied().unwrap_or(empty)),
                })
                .collect();
            Func { site: CallSite::driver_api(leak(unsafe { f.name.get() })), args }
        })
        .collect();
    let traced = crate::config::trace_config().driver;
    Registry { api, fns, result: enums.get(api.result_enum).copied().unwrap_or(empty), traced }
}

/// Take the interposer's description (once; a second interposer's is
/// refused). Returns false when its calls cannot come here: another ABI
/// version or a second interposer. Driver-API tracing switched off
/// (`CUDART_SHIM_TRACE_DRIVER=0`, or no tracing: `cudart-shim run`) does
/// not refuse: hooks, faults and memory limits act on driver calls all the
/// same, and the interposer's fast path (switch word at `OFF`) costs
/// nothing while none of them is on.
///
/// # Safety
/// `api` is NULL or follows [`super::driver_abi`].
pub unsafe fn register_api(api: *const Api) -> bool {
    // SAFETY: NULL or a valid Api, per the contract.
    let Some(a) = (unsafe { api.as_ref() }) else { return false };
    if a.abi != ABI_VERSION {
        log::warn!("driver interposer of another version (ABI {} here {ABI_VERSION}): driver calls are not traced", a.abi);
        return false;
    }
    // SAFETY: checked above.
    let reg = REGISTRY.get_or_init(|| Box::leak(Box::new(unsafe { register(a) })));
    if reg.api != api {
        log::warn!("a second driver interposer was loaded; only the first one's calls are traced");
        return false;
    }
    true
}

/// Observe one driver call of the interposer's function `id`: `words`
/// holds one word per parameter; `go` runs the call (with every other
/// stage of the pipeline) exactly once.
pub fn observe(id: u32, words: &[u64], go: impl FnOnce() -> c_int) -> c_int {
    let Some(f) = REGISTRY.get().filter(|r| r.traced).and_then(|r| r.fns.get(id as usize)) else { return go() };
    let words = &words[..words.len().min(f.args.len())];
    traced(&f.site, &|c: &mut CallArgs| capture(f, words, c), go, |r| cudaError_t(*r))
}

fn capture(f: &'static Func, words: &[u64], c: &mut CallArgs) {
    for (a, &w) in f.args.iter().zip(words) {
        c.arg(a.name, false, &Word { w, arg: a });
    }
}

/// Entry points handed out untraced (a function newer than the
/// interposer's list, or one it exports untyped): one row per name, counted
/// once.
pub unsafe extern "C" fn untraced(name: *const u8, len: usize) {
    if !REGISTRY.get().is_some_and(|r| r.traced) {
        return;
    }
    let _ = catch_unwind(|| {
        // SAFETY: per the ABI.
        let name = String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(name, len) }).into_owned();
        static SEEN: parking_lot::Mutex<Vec<String>> = parking_lot::Mutex::new(Vec::new());
        let mut seen = SEEN.lock();
        if seen.contains(&name) {
            return;
        }
        let site: &'static CallSite = Box::leak(Box::new(CallSite::new(leak(&format!("{name} [entry point not traced: not in the interposer's list]")))));
        seen.push(name);
        drop(seen);
        traced(site, &|_: &mut CallArgs| {}, || (), |_| crate::types::cudaSuccess);
    });
}

/// A `CUresult` by name (`CUDA_SUCCESS`, `CUDA_ERROR_INVALID_VALUE`, or the
/// number when unknown).
pub fn result_name(code: i32, out: &mut String) {
    match REGISTRY.get() {
        Some(r) => r.result.write(code as i64, out),
        None => push_int(out, code),
    }
}

/// One argument word with how to show it.
struct Word {
    w: u64,
    arg: &'static Arg,
}

fn write_int(a: u64, _: u64, out: &mut String) {
    push_int(out, a as i64);
}
fn write_uint(a: u64, _: u64, out: &mut String) {
    push_int(out, a);
}
fn write_hex(a: u64, _: u64, out: &mut String) {
    push_hex(out, a);
}
fn write_f32(a: u64, _: u64, out: &mut String) {
    use std::fmt::Write;
    let _ = write!(out, "{}", f32::from_bits(a as u32));
}
fn write_struct(_: u64, _: u64, out: &mut String) {
    out.push_str("{...}");
}
fn write_enum(a: u64, b: u64, out: &mut String) {
    // SAFETY: b is a leaked &'static Enum (see `raw`).
    let e = unsafe { &*(b as *const Enum) };
    e.write(a as i32 as i64, out);
}
/// An out-pointer and the value the call wrote.
fn write_out(a: u64, b: u64, out: &mut String) {
    push_hex(out, a);
    out.push_str("->");
    push_hex(out, b);
}
fn write_out32(a: u64, b: u64, out: &mut String) {
    push_hex(out, a);
    out.push_str("->");
    push_int(out, b as u32 as i32);
}

impl TraceArg for Word {
    fn trace(&self, out: &mut String) {
        if self.arg.kind == kind::STR {
            if self.w == 0 {
                out.push_str("NULL");
                return;
            }
            // SAFETY: the driver's contract: a NUL-terminated string, read
            // after the call the driver made with it.
            let s = unsafe { CStr::from_ptr(self.w as *const std::ffi::c_char) }.to_string_lossy();
            let s: String = s.chars().take(200).collect();
            out.push_str(&s);
            return;
        }
        if let Some(r) = self.raw(false) {
            (r.fmt)(r.a, r.b, out);
        }
    }

    fn raw(&self, out_valid: bool) -> Option<Raw> {
        let (a, b) = (self.w, 0);
        let fmt: fn(u64, u64, &mut String) = match self.arg.kind {
            kind::INT => write_int,
            kind::UINT => write_uint,
            kind::F32 => write_f32,
            kind::STRUCT => write_struct,
            kind::STR => return None,
            kind::ENUM => {
                let e = self.arg.en.map_or(0, |e| e as *const Enum as u64);
                return Some(if e == 0 { Raw { a, b, fmt: write_int } } else { Raw { a, b: e, fmt: write_enum } });
            }
            k @ (kind::OUT32 | kind::OUT64) if out_valid && a != 0 && a % 4 == 0 => {
                // SAFETY: the call succeeded, so it wrote through this
                // pointer (cuda.h: an out-parameter of this size).
                return Some(if k == kind::OUT32 {
                    Raw { a, b: unsafe { std::ptr::read_volatile(a as *const u32) } as u64, fmt: write_out32 }
                } else {
                    Raw { a, b: unsafe { std::ptr::read_unaligned(a as *const u64) }, fmt: write_out }
                });
            }
            _ => write_hex,
        };
        Some(Raw { a, b, fmt })
    }
}

/// A driver call's arguments for a hang report, from a copy of its
/// argument words (`trace::progress::Decode`): `name(args)`.
///
/// # Safety
/// `copy` holds at least `nargs(id - DRIVER_BASE)` words (at most 32 read).
pub unsafe fn decode_words(id: u32, copy: *const u8, _: [usize; 2], out: &mut String) {
    let id = id.wrapping_sub(crate::control::params::DRIVER_BASE);
    let Some(f) = REGISTRY.get().and_then(|r| r.fns.get(id as usize)) else {
        out.push_str(super::progress::function_name(id + crate::control::params::DRIVER_BASE));
        return;
    };
    let n = f.args.len().min(super::progress::MAX_PARAM_BYTES / 8);
    // SAFETY: per the contract.
    let words = unsafe { std::slice::from_raw_parts(copy as *const u64, n) };
    let mut c = CallArgs::new(false);
    capture(f, words, &mut c);
    out.push_str(f.site.name);
    out.push('(');
    c.write_line(out);
    out.push(')');
}

/// How many parameters the interposer's function `id` has (0 when unknown).
pub fn nargs(id: u32) -> usize {
    REGISTRY.get().and_then(|r| r.fns.get(id as usize)).map_or(0, |f| f.args.len())
}
