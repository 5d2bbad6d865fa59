//! The internal C ABI between the driver interposer (`interposer/`, built
//! as `libcuda.so.1`) and this library's trace machinery.
//!
//! One file, compiled into both: the interposer includes it with `#[path]`,
//! so the two sides cannot drift apart within one build. Across builds
//! (an interposer and a `libcudart_shim.so` from different versions) the
//! [`ABI_VERSION`] check refuses the pairing, and the interposer then only
//! forwards.
//!
//! The interposer describes its functions once ([`Api`]: names, argument
//! names and kinds, enums), gets back [`Hooks`], and from then on reports
//! each call as `(function id, argument words, the call itself)`. Every
//! pointer in these structs points at statics of the interposer, which is
//! linked `-z nodelete` and so outlives every use.

use std::ffi::{c_int, c_void};
use std::sync::atomic::AtomicU32;

/// Bumped on any change to a struct or function of this file.
/// 2: the hooks no longer switch the machinery on; [`Hooks::activate`] and
/// [`Hooks::depth`] (two runtimes in one process, see `interposer/src/shim.rs`).
/// 3: [`Hooks::flags`] is the interception pipeline's switch word (trace,
/// hooks, faults, ledger...), and [`Hooks::call`] takes the call's typed
/// parameter block, which `run` reads its arguments from. [`Hooks::nvtx_init`] is the interposer's
/// `InitializeInjectionNvtx2`.
pub const ABI_VERSION: u32 = 3;

/// The exported function of `libcudart_shim.so` (and of
/// `libcudart_shim12.so`, versioned `libcudart.so.12` there) that hands out
/// [`Hooks`].
pub const HOOKS_SYMBOL: &[u8] = b"cudartShimInternalDriverHooks\0";
/// `cudartShimInternalDriverHooks(api)`: the hooks, or NULL when driver-API
/// tracing is switched off (`CUDART_SHIM_TRACE_DRIVER=0`) or `api` is of
/// another ABI version. Taking the hooks changes nothing in the runtime:
/// a runtime the program never uses stays inert until [`Hooks::activate`].
pub type HooksFn = unsafe extern "C" fn(api: *const Api) -> *const Hooks;

/// A UTF-8 string in static memory.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Str {
    pub ptr: *const u8,
    pub len: usize,
}

impl Str {
    pub const fn new(s: &'static str) -> Str {
        Str { ptr: s.as_ptr(), len: s.len() }
    }

    /// # Safety
    /// `ptr..ptr+len` is readable and outlives `'a`.
    pub unsafe fn get<'a>(&self) -> &'a str {
        // SAFETY: per the contract; invalid UTF-8 shows as a placeholder.
        std::str::from_utf8(unsafe { std::slice::from_raw_parts(self.ptr, self.len) }).unwrap_or("?")
    }
}

/// How an argument is passed to the interposer as a word and shown.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Kind(pub u32);

pub mod kind {
    use super::Kind;
    /// A pointer or handle: hex.
    pub const PTR: Kind = Kind(0);
    /// A signed integer (sign-extended into the word): decimal.
    pub const INT: Kind = Kind(1);
    /// An unsigned integer: decimal.
    pub const UINT: Kind = Kind(2);
    /// An address or 64-bit handle (`CUdeviceptr`, `CUtexObject`): hex.
    pub const HEX: Kind = Kind(3);
    /// A `float` (its bits in the low half of the word).
    pub const F32: Kind = Kind(4);
    /// A NUL-terminated input string (a name, a path).
    pub const STR: Kind = Kind(5);
    /// A C enum: its enumerator's name (`enum_index` says which enum).
    pub const ENUM: Kind = Kind(6);
    /// A struct passed by value: shown as `{...}`.
    pub const STRUCT: Kind = Kind(7);
    /// An out-pointer to a 32-bit value: address, then the value written.
    pub const OUT32: Kind = Kind(8);
    /// An out-pointer to a 64-bit value or handle: address, then the value.
    pub const OUT64: Kind = Kind(9);
}

/// One enumerator.
#[repr(C)]
pub struct Named {
    pub value: i64,
    pub name: Str,
}

impl Named {
    pub const fn new(value: i64, name: &'static str) -> Named {
        Named { value, name: Str::new(name) }
    }
}

/// One C enum.
#[repr(C)]
pub struct EnumDesc {
    pub name: Str,
    pub values: *const Named,
    pub len: usize,
}

impl EnumDesc {
    pub const fn new(name: &'static str, values: &'static [Named]) -> EnumDesc {
        EnumDesc { name: Str::new(name), values: values.as_ptr(), len: values.len() }
    }
}

/// One parameter.
#[repr(C)]
pub struct ArgDesc {
    pub name: Str,
    pub kind: Kind,
    /// For [`kind::ENUM`]: index into [`Api::enums`].
    pub enum_index: u32,
}

impl ArgDesc {
    pub const fn new(name: &'static str, kind: Kind, enum_index: u32) -> ArgDesc {
        ArgDesc { name: Str::new(name), kind, enum_index }
    }
}

/// One driver function; its index in [`Api::fns`] is its id.
#[repr(C)]
pub struct FnDesc {
    pub name: Str,
    pub args: *const ArgDesc,
    pub nargs: usize,
}

impl FnDesc {
    pub const fn new(name: &'static str, args: &'static [ArgDesc]) -> FnDesc {
        FnDesc { name: Str::new(name), args: args.as_ptr(), nargs: args.len() }
    }
}

/// Everything the interposer can report.
#[repr(C)]
pub struct Api {
    pub abi: u32,
    pub fns: *const FnDesc,
    pub nfns: usize,
    pub enums: *const EnumDesc,
    pub nenums: usize,
    /// Index of `CUresult` in `enums` (for the results).
    pub result_enum: usize,
}

/// The call itself, as the trace machinery runs it: `run(ctx)`.
pub type RunFn = unsafe extern "C" fn(ctx: *mut c_void) -> c_int;

/// What the trace machinery offers the interposer.
#[repr(C)]
pub struct Hooks {
    pub abi: u32,
    /// The interception pipeline's switch word: calls go through
    /// [`Hooks::call`] while it holds more than [`OFF`] (read with a relaxed
    /// load on every call).
    pub flags: *const AtomicU32,
    /// One call of function `id` through the pipeline: `params` is its
    /// typed parameter block (a `#[repr(C)]` struct of its parameters in
    /// order, as `control::params::driver` declares it; a stage may change
    /// it), `args` one word per parameter as the program passed it (for the
    /// call log); `run(ctx)` makes the call with the arguments read from
    /// `params` then, at most once.
    pub call: unsafe extern "C" fn(id: u32, params: *mut c_void, args: *const u64, run: RunFn, ctx: *mut c_void) -> c_int,
    /// An entry point the interposer hands out untraced (a function newer
    /// than its list): counted once under a name that says so.
    pub untraced: unsafe extern "C" fn(name: *const u8, len: usize),
    /// Switch the machinery on as the environment says (reads the
    /// configuration, opens the outputs): for the machinery that receives
    /// the program's own driver calls. A runtime's first call does the same.
    pub activate: unsafe extern "C" fn(),
    /// How many of this runtime's calls are in progress on the calling
    /// thread (0 when none, or when the thread never called it). Changes
    /// nothing.
    pub depth: unsafe extern "C" fn() -> u32,
    /// NVTX3's injection entry point of this machinery
    /// (`InitializeInjectionNvtx2(getExportTable)`, trace/nvtx): the
    /// interposer's export of that name forwards here, so NVTX ranges of a
    /// program that never calls our runtime (CuPy) reach the same trace.
    pub nvtx_init: unsafe extern "C" fn(get_export_table: *const c_void) -> c_int,
}

/// The switch word's value (and below) when nothing wants calls.
pub const OFF: u32 = 1;

// SAFETY: every pointer in these structs points at immutable statics.
unsafe impl Sync for Str {}
unsafe impl Sync for EnumDesc {}
unsafe impl Sync for ArgDesc {}
unsafe impl Sync for FnDesc {}
unsafe impl Sync for Api {}
unsafe impl Sync for Hooks {}
unsafe impl Send for Hooks {}
