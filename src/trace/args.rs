//! Arguments as the trace layer sees them.
//!
//! A traced call's arguments are captured once, after the call, into a
//! [`CallArgs`]: each as two raw words and the function that formats them
//! ([`Kept`]), or as text when it can only be formatted at once. Every
//! output formats from that capture: the timeline later on its writer
//! thread, the call log and subscribers at once.
//!
//! Out-parameters: a typed pointer `*mut T` prints its address and, when
//! the call succeeded and `T` is a number or a pointer, the value the call
//! wrote (`0x7ffc1234->2`). The pointee is read only when the capture says
//! the call returned success ([`CallArgs::new`]).

use crate::types::{self, CEnum};
use std::any::TypeId;
use std::ffi::{c_int, c_void};
use std::fmt::Write;
use std::mem::MaybeUninit;

/// How a value is written in a trace. Enums print their name, pointers in
/// hex, integers in decimal.
pub trait TraceArg {
    /// The value as the caller passed it (an out-pointer's address only).
    fn trace(&self, out: &mut String);

    /// The value captured as two words and the function that writes them,
    /// so the timeline formats it later on its writer thread instead of on
    /// the calling thread. `out_valid`: the call succeeded, so what an
    /// out-pointer points to was written by it and may be read. None:
    /// format now with [`TraceArg::trace`].
    #[inline]
    fn raw(&self, out_valid: bool) -> Option<Raw> {
        let _ = out_valid;
        None
    }
}

/// A captured argument: `fmt(a, b, out)` writes it as `trace` would have.
#[derive(Clone, Copy)]
pub struct Raw {
    pub a: u64,
    pub b: u64,
    pub fmt: fn(u64, u64, &mut String),
}

/// Decimal and hexadecimal numbers without `core::fmt`: the timeline's
/// writer formats several per event, millions of events in a long trace,
/// and `write!` costs several times more than these.
pub fn push_int<I: itoa::Integer>(out: &mut String, v: I) {
    out.push_str(itoa::Buffer::new().format(v));
}

/// `0x`-prefixed lowercase hex, as `{:#x}` writes it.
pub fn push_hex(out: &mut String, v: u64) {
    let mut buf = [0u8; 18];
    let mut i = buf.len();
    let mut x = v;
    loop {
        i -= 1;
        buf[i] = b"0123456789abcdef"[(x & 15) as usize];
        x >>= 4;
        if x == 0 {
            break;
        }
    }
    buf[i - 2..i].copy_from_slice(b"0x");
    // SAFETY: every byte written above is ASCII.
    out.push_str(unsafe { std::str::from_utf8_unchecked(&buf[i - 2..]) });
}

macro_rules! trace_int {
    ($($t:ty),*) => {$(
        impl TraceArg for $t {
            fn trace(&self, out: &mut String) {
                push_int(out, *self);
            }
            #[inline]
            fn raw(&self, _: bool) -> Option<Raw> {
                Some(Raw { a: *self as u64, b: 0, fmt: |a, _, out| push_int(out, a as $t) })
            }
        }
    )*};
}
trace_int!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);

impl TraceArg for bool {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    #[inline]
    fn raw(&self, _: bool) -> Option<Raw> {
        Some(Raw { a: *self as u64, b: 0, fmt: |a, _, out| out.push_str(if a != 0 { "true" } else { "false" }) })
    }
}

impl TraceArg for f32 {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    #[inline]
    fn raw(&self, _: bool) -> Option<Raw> {
        Some(Raw { a: self.to_bits() as u64, b: 0, fmt: |a, _, out| { let _ = write!(out, "{}", f32::from_bits(a as u32)); } })
    }
}

impl TraceArg for f64 {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    #[inline]
    fn raw(&self, _: bool) -> Option<Raw> {
        Some(Raw { a: self.to_bits(), b: 0, fmt: |a, _, out| { let _ = write!(out, "{}", f64::from_bits(a)); } })
    }
}

fn hex(a: u64, _: u64, out: &mut String) {
    push_hex(out, a);
}

impl TraceArg for () {
    fn trace(&self, _out: &mut String) {}
}

/// How the value behind an out-pointer `*mut T` is read and written: None
/// for pointees we do not read (structs, `void`, chars...).
fn pointee_kind<T: 'static>() -> Option<fn(u64, &mut String)> {
    let t = TypeId::of::<T>();
    macro_rules! kinds {
        ($($ty:ty),*) => {$(
            if t == TypeId::of::<$ty>() {
                return Some(|v, out| { out.push_str("->"); push_int(out, v as $ty); });
            }
        )*};
    }
    kinds!(i32, u32, i64, u64, usize, isize);
    if t == TypeId::of::<f32>() {
        return Some(|v, out| { let _ = write!(out, "->{}", f32::from_bits(v as u32)); });
    }
    if t == TypeId::of::<f64>() {
        return Some(|v, out| { let _ = write!(out, "->{}", f64::from_bits(v)); });
    }
    let pointer = t == TypeId::of::<*mut c_void>()
        || t == TypeId::of::<*const c_void>()
        || std::any::type_name::<T>().starts_with("*mut ")
        || std::any::type_name::<T>().starts_with("*const ");
    if pointer && std::mem::size_of::<T>() == std::mem::size_of::<usize>() {
        return Some(|v, out| { out.push_str("->"); push_hex(out, v); });
    }
    None
}

/// The bits behind `p` (the call succeeded, so it wrote a T there).
fn read_bits<T>(p: *const T) -> u64 {
    // SAFETY: the caller checked that p is non-null and the call that
    // writes through it succeeded; T is at most 8 bytes (pointee_kind).
    unsafe {
        match std::mem::size_of::<T>() {
            4 => p.cast::<u32>().read_unaligned() as u64,
            8 => p.cast::<u64>().read_unaligned(),
            _ => 0,
        }
    }
}

fn out_ptr<T: 'static>(a: u64, b: u64, out: &mut String) {
    hex(a, 0, out);
    if let Some(f) = pointee_kind::<T>() {
        f(b, out);
    }
}

impl<T: 'static> TraceArg for *const T {
    fn trace(&self, out: &mut String) {
        push_hex(out, *self as usize as u64);
    }
    #[inline]
    fn raw(&self, _: bool) -> Option<Raw> {
        Some(Raw { a: *self as usize as u64, b: 0, fmt: hex })
    }
}

impl<T: 'static> TraceArg for *mut T {
    fn trace(&self, out: &mut String) {
        push_hex(out, *self as usize as u64);
    }
    #[inline]
    fn raw(&self, out_valid: bool) -> Option<Raw> {
        let a = *self as usize as u64;
        if out_valid && !self.is_null() && pointee_kind::<T>().is_some() {
            return Some(Raw { a, b: read_bits(*self as *const T), fmt: out_ptr::<T> });
        }
        Some(Raw { a, b: 0, fmt: hex })
    }
}

impl TraceArg for crate::types::dim3 {
    fn trace(&self, out: &mut String) {
        dims(out, self.x, self.y, self.z);
    }
    #[inline]
    fn raw(&self, _: bool) -> Option<Raw> {
        Some(Raw {
            a: (self.x as u64) << 32 | self.y as u64,
            b: self.z as u64,
            fmt: |a, b, out| dims(out, (a >> 32) as u32, a as u32, b as u32),
        })
    }
}

/// `(x,y,z)`
fn dims(out: &mut String, x: u32, y: u32, z: u32) {
    out.push('(');
    push_int(out, x);
    out.push(',');
    push_int(out, y);
    out.push(',');
    push_int(out, z);
    out.push(')');
}

macro_rules! trace_fn_ptr {
    ($($a:ident),*) => {
        impl<R, $($a),*> TraceArg for Option<unsafe extern "C" fn($($a),*) -> R> {
            fn trace(&self, out: &mut String) {
                push_hex(out, self.map_or(0, |f| f as usize) as u64);
            }
            fn raw(&self, _: bool) -> Option<Raw> {
                Some(Raw { a: self.map_or(0, |f| f as usize) as u64, b: 0, fmt: hex })
            }
        }
        impl<R, $($a),*> TraceArg for unsafe extern "C" fn($($a),*) -> R {
            fn trace(&self, out: &mut String) {
                push_hex(out, *self as usize as u64);
            }
            fn raw(&self, _: bool) -> Option<Raw> {
                Some(Raw { a: *self as usize as u64, b: 0, fmt: hex })
            }
        }
    };
}
trace_fn_ptr!();
trace_fn_ptr!(A);
trace_fn_ptr!(A, B);
trace_fn_ptr!(A, B, C);
trace_fn_ptr!(A, B, C, D);

/// A result code by name (`cudaSuccess`, `cudaErrorInvalidValue`, or the
/// number when unknown).
pub fn result_name(code: i32, out: &mut String) {
    TraceArg::trace(&crate::types::cudaError_t(code), out);
}

/// Names for code addresses in traces: the kernel area registers a lookup
/// (host stub or `cudaKernel_t`/`CUfunction` -> kernel name) with
/// [`set_symbol_namer`]; arguments named like a function or symbol are then
/// written `0x5555...(kernelName)`.
static SYMBOL_NAMER: std::sync::OnceLock<fn(u64, &mut String) -> bool> = std::sync::OnceLock::new();

/// Argument names whose value is a kernel or symbol address.
const SYMBOL_ARGS: &[&str] = &["func", "entryFuncAddr", "kernel", "symbol", "hostFun", "f"];

/// Whether argument `name` holds a kernel or symbol address. `const`: the
/// export macro asks it at compile time, so a call pays nothing for it.
pub const fn is_symbol_arg(name: &str) -> bool {
    let mut i = 0;
    while i < SYMBOL_ARGS.len() {
        let (a, b) = (SYMBOL_ARGS[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Whether code addresses get their names (see [`set_names_in_dump`]).
static NAMES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Switched off while the recorder dumps from a signal handler: the namer
/// takes the kernel registry's lock, which the interrupted code may hold.
pub(crate) fn set_names_in_dump(on: bool) {
    NAMES.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Register the lookup for code addresses: `namer(addr, out)` appends the
/// name and returns true, or returns false (and appends nothing). Once per
/// process; later calls are ignored.
pub fn set_symbol_namer(namer: fn(u64, &mut String) -> bool) {
    let _ = SYMBOL_NAMER.set(namer);
}

/// A code address and, when the namer knows it, its name:
/// `0x5555...(kernelName)`. The name is looked up when the value is
/// written; a kernel unloaded before that shows its address alone.
fn symbol_value(addr: u64, _: u64, out: &mut String) {
    push_hex(out, addr);
    if !NAMES.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let Some(namer) = SYMBOL_NAMER.get() else { return };
    out.push('(');
    if namer(addr, out) {
        out.push(')');
    } else {
        out.pop();
    }
}

/// An argument kept for the outputs: captured raw (`fmt` writes `a`, `b`),
/// or pre-formatted text (`fmt` None: `a..b` is a byte range of the text
/// that goes with it: [`CallArgs::text`], or a timeline chunk's).
#[derive(Clone, Copy)]
pub struct Kept {
    pub name: &'static str,
    pub a: u64,
    pub b: u64,
    pub fmt: Option<fn(u64, u64, &mut String)>,
}

impl Kept {
    /// The value as text (what [`TraceArg::trace`] would have written,
    /// with the out-parameter's value when it was captured).
    pub fn write_value(&self, text: &str, out: &mut String) {
        match self.fmt {
            Some(f) => f(self.a, self.b, out),
            None => out.push_str(text.get(self.a as usize..self.b as usize).unwrap_or("")),
        }
    }
}

/// The most arguments kept per call (no export has more; the traced driver
/// forwarders pass at most this many).
pub const MAX_ARGS: usize = 16;

/// One call's arguments, captured (see the module note). Lives on the
/// calling thread's stack; the text buffer allocates only for arguments
/// that must be formatted at once (structs, kernel names).
pub struct CallArgs {
    kept: [MaybeUninit<Kept>; MAX_ARGS],
    n: usize,
    /// Text of the pre-formatted arguments.
    pub text: String,
    out_valid: bool,
}

impl CallArgs {
    /// `out_valid`: the call returned success, so out-parameters are read.
    #[inline(always)]
    pub fn new(out_valid: bool) -> CallArgs {
        CallArgs { kept: [const { MaybeUninit::uninit() }; MAX_ARGS], n: 0, text: String::new(), out_valid }
    }

    /// Keep argument `name`. `symbol`: [`is_symbol_arg`]`(name)`, computed
    /// by the caller at compile time. Generic and inlined: the value's
    /// [`TraceArg::raw`] is a direct call.
    #[inline(always)]
    pub fn arg<T: TraceArg>(&mut self, name: &'static str, symbol: bool, value: &T) {
        if self.n == MAX_ARGS {
            return;
        }
        let k = match value.raw(self.out_valid) {
            // A kernel's name is looked up when the value is written (on the
            // timeline's writer thread), not during the call.
            Some(r) if symbol => Kept { name, a: r.a, b: 0, fmt: Some(symbol_value) },
            Some(r) => Kept { name, a: r.a, b: r.b, fmt: Some(r.fmt) },
            None => self.text_arg(name, value),
        };
        self.kept[self.n].write(k);
        self.n += 1;
    }

    #[cold]
    #[inline(never)]
    fn text_arg(&mut self, name: &'static str, value: &dyn TraceArg) -> Kept {
        let start = self.text.len() as u64;
        value.trace(&mut self.text);
        Kept { name, a: start, b: self.text.len() as u64, fmt: None }
    }

    pub fn kept(&self) -> &[Kept] {
        // SAFETY: the first n slots were written by `arg`.
        unsafe { std::slice::from_raw_parts(self.kept.as_ptr().cast::<Kept>(), self.n) }
    }

    /// `name=value, name=value` (the call log).
    pub fn write_line(&self, out: &mut String) {
        for (i, k) in self.kept().iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(k.name);
            out.push('=');
            k.write_value(&self.text, out);
        }
    }
}

/// Write kept arguments as JSON members `,"name":"value"`. Values are
/// JSON-escaped where needed: raw formatters write numbers, hex and enum
/// names, but a kernel's name or a struct's debug form may hold anything.
pub fn write_kept(args: &[Kept], text: &str, out: &mut String) {
    for k in args {
        out.push_str(",\"");
        out.push_str(k.name);
        out.push_str("\":\"");
        let start = out.len();
        k.write_value(text, out);
        if out.as_bytes()[start..].iter().any(|&b| b == b'"' || b == b'\\' || b < 0x20) {
            let value = out.split_off(start);
            escape_into(&value, out);
        }
        out.push('"');
    }
}

/// JSON string escaping (the timeline writes kept arguments and names
/// with it).
pub fn escape_into(s: &str, o: &mut String) {
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
}

/// [`TraceArg`] with `Debug`, for the plain-data structs exports take by
/// value (extents, positions, handles by value...).
macro_rules! trace_debug {
    ($($t:ty),* $(,)?) => {$(
        impl TraceArg for $t {
            fn trace(&self, out: &mut String) {
                let _ = write!(out, "{:?}", self);
            }
        }
    )*};
}
trace_debug!(
    types::cudaIpcMemHandle_st,
    types::cudaIpcEventHandle_st,
    types::cudaGLDeviceList,
    types::cudaEglFrame,
    types::cudaMemLocation,
    types::cudaPitchedPtr,
    types::cudaExtent,
    types::cudaPos,
    types::cudaChannelFormatDesc,
);

/// Every C enum newtype of the lower layers ([`CEnum`]): the enumerator's
/// name when the value has one, else the number.
impl<T: CEnum> TraceArg for T {
    fn trace(&self, out: &mut String) {
        match self.name() {
            Some(n) => out.push_str(n),
            None => push_int(out, self.value()),
        }
    }
    #[inline]
    fn raw(&self, _: bool) -> Option<Raw> {
        Some(Raw { a: self.value() as u64, b: 0, fmt: |a, _, out| T::from_value(a as c_int).trace(out) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_argument_filter_knows_every_name() {
        assert!(SYMBOL_ARGS.iter().all(|n| is_symbol_arg(n)));
        assert!(!["device", "value", "attr", "stream", "", "fx", "kernels"].iter().any(|n| is_symbol_arg(n)));
    }

    #[test]
    fn number_writers_match_core_fmt() {
        for v in [0u64, 1, 9, 10, 15, 16, 255, 4096, 0x7ffc_1234_5678, u32::MAX as u64, u64::MAX] {
            let (mut h, mut d) = (String::new(), String::new());
            push_hex(&mut h, v);
            push_int(&mut d, v);
            assert_eq!(h, format!("{v:#x}"));
            assert_eq!(d, v.to_string());
        }
        for v in [i32::MIN, -1, 0, 7, i32::MAX] {
            let mut d = String::new();
            push_int(&mut d, v);
            assert_eq!(d, v.to_string());
        }
    }

    /// The value as the outputs write it, captured after a call that
    /// succeeded (`ok`) or failed.
    fn show<T: TraceArg>(v: &T, ok: bool) -> String {
        let mut c = CallArgs::new(ok);
        c.arg("v", false, v);
        let mut s = String::new();
        c.kept()[0].write_value(&c.text, &mut s);
        s
    }

    #[test]
    fn out_pointers_show_written_values_only_after_success() {
        let mut n: i32 = 7;
        let p: *mut i32 = &mut n;
        assert_eq!(show(&p, false), format!("{:#x}", p as usize));
        assert_eq!(show(&p, true), format!("{:#x}->7", p as usize));
        let mut q: *mut c_void = 0x1234 as *mut c_void;
        let pq: *mut *mut c_void = &mut q;
        assert!(show(&pq, true).ends_with("->0x1234"));
        let mut sz: usize = 4096;
        assert!(show(&(&mut sz as *mut usize), true).ends_with("->4096"));
        let np: *mut i32 = std::ptr::null_mut();
        assert_eq!(show(&np, true), "0x0");
        let mut big = [0u8; 3];
        assert_eq!(show(&(big.as_mut_ptr()), true), format!("{:#x}", big.as_ptr() as usize));
        assert_eq!(show(&crate::types::dim3 { x: 4, y: 2, z: 1 }, true), "(4,2,1)");
    }

    #[test]
    fn kept_arguments_write_like_trace_and_escape() {
        struct Q;
        impl TraceArg for Q {
            fn trace(&self, out: &mut String) {
                out.push_str("a\"b\\");
            }
        }
        let mut n: i32 = 5;
        let p: *mut i32 = &mut n;
        let mut c = CallArgs::new(true);
        c.arg("x", false, &Q);
        c.arg("p", false, &p);
        c.arg("d", false, &crate::types::dim3 { x: 7, y: 8, z: 9 });
        c.arg("e", false, &crate::types::cudaDevAttrWarpSize);
        c.arg("i", false, &-3i64);
        n = 6; // written values were captured at call time
        let _ = n;
        let mut out = String::new();
        write_kept(c.kept(), &c.text, &mut out);
        assert_eq!(out, format!(r#","x":"a\"b\\","p":"{:#x}->5","d":"(7,8,9)","e":"cudaDevAttrWarpSize","i":"-3""#, p as usize));
    }

    #[test]
    fn kernel_addresses_get_their_names() {
        set_symbol_namer(|a, out| {
            match a {
                0x1000 => out.push_str("saxpy"),
                0x3000 => out.push_str("we\"ird\\name"),
                _ => return false,
            }
            true
        });
        let f = 0x1000 as *const c_void;
        let g = 0x2000 as *const c_void;
        let mut c = CallArgs::new(true);
        c.arg("func", is_symbol_arg("func"), &f);
        c.arg("func", is_symbol_arg("func"), &g);
        c.arg("ptr", is_symbol_arg("ptr"), &f);
        let mut line = String::new();
        c.write_line(&mut line);
        assert_eq!(line, "func=0x1000(saxpy), func=0x2000, ptr=0x1000");
        let mut out = String::new();
        write_kept(&c.kept()[..1], &c.text, &mut out);
        assert_eq!(out, r#","func":"0x1000(saxpy)""#);
        // Names are written as JSON strings whatever they hold.
        let mut c = CallArgs::new(true);
        c.arg("kernel", is_symbol_arg("kernel"), &(0x3000 as *const c_void));
        let mut out = String::new();
        write_kept(c.kept(), &c.text, &mut out);
        assert_eq!(out, r#","kernel":"0x3000(we\"ird\\name)""#);
        assert!(serde_json::from_str::<serde_json::Value>(&format!("{{{}}}", &out[1..])).is_ok());
    }
}
