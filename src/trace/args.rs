//! Arguments as the trace layer sees them.
//!
//! Out-parameters: a typed pointer `*mut T` prints its address and, when
//! the call succeeded and `T` is a number or a pointer, the value the call
//! wrote (`0x7ffc1234->2`). The pointee is read only while
//! [`with_results`] says the call returned success, i.e. when the call log,
//! the timeline or an exit callback formats the arguments after the call.

use std::any::TypeId;
use std::cell::Cell;
use std::ffi::c_void;
use std::fmt::Write;

/// Receives a call's arguments, by name, in declaration order.
pub trait ArgSink {
    fn arg(&mut self, name: &'static str, value: &dyn TraceArg);
}

/// How a value is written in a trace. Enums print their name, pointers in
/// hex, integers in decimal.
pub trait TraceArg {
    fn trace(&self, out: &mut String);

    /// The value captured as two words and the function that writes them,
    /// so the timeline formats it later on its writer thread instead of on
    /// the calling thread. None: format now with [`TraceArg::trace`].
    #[inline]
    fn raw(&self) -> Option<Raw> {
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

thread_local! {
    /// True while formatting the arguments of a call that succeeded.
    static RESULTS_VALID: Cell<bool> = const { Cell::new(false) };
}

/// Run `f` (which formats arguments) with out-parameter reading on or off.
pub fn with_results<R>(call_succeeded: bool, f: impl FnOnce() -> R) -> R {
    let prev = RESULTS_VALID.try_with(|c| c.replace(call_succeeded)).unwrap_or(false);
    let r = f();
    let _ = RESULTS_VALID.try_with(|c| c.set(prev));
    r
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

fn results_valid() -> bool {
    RESULTS_VALID.try_with(Cell::get).unwrap_or(false)
}

macro_rules! trace_int {
    ($($t:ty),*) => {$(
        impl TraceArg for $t {
            fn trace(&self, out: &mut String) {
                push_int(out, *self);
            }
            #[inline]
            fn raw(&self) -> Option<Raw> {
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
    fn raw(&self) -> Option<Raw> {
        Some(Raw { a: *self as u64, b: 0, fmt: |a, _, out| out.push_str(if a != 0 { "true" } else { "false" }) })
    }
}

impl TraceArg for f32 {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    #[inline]
    fn raw(&self) -> Option<Raw> {
        Some(Raw { a: self.to_bits() as u64, b: 0, fmt: |a, _, out| { let _ = write!(out, "{}", f32::from_bits(a as u32)); } })
    }
}

impl TraceArg for f64 {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
    #[inline]
    fn raw(&self) -> Option<Raw> {
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
    fn raw(&self) -> Option<Raw> {
        Some(Raw { a: *self as usize as u64, b: 0, fmt: hex })
    }
}

impl<T: 'static> TraceArg for *mut T {
    fn trace(&self, out: &mut String) {
        if let Some(r) = self.raw() {
            (r.fmt)(r.a, r.b, out);
        }
    }
    #[inline]
    fn raw(&self) -> Option<Raw> {
        let a = *self as usize as u64;
        if !self.is_null() && results_valid() && pointee_kind::<T>().is_some() {
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
    fn raw(&self) -> Option<Raw> {
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
            fn raw(&self) -> Option<Raw> {
                Some(Raw { a: self.map_or(0, |f| f as usize) as u64, b: 0, fmt: hex })
            }
        }
        impl<R, $($a),*> TraceArg for unsafe extern "C" fn($($a),*) -> R {
            fn trace(&self, out: &mut String) {
                push_hex(out, *self as usize as u64);
            }
            fn raw(&self) -> Option<Raw> {
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

/// Whether argument `name` holds a kernel or symbol address. Asked for
/// every argument of every traced call: the first letter rules out most
/// names before any string compare.
#[inline]
fn is_symbol_arg(name: &str) -> bool {
    matches!(name.as_bytes().first(), Some(b'f' | b'e' | b'k' | b's' | b'h')) && SYMBOL_ARGS.contains(&name)
}

/// Register the lookup for code addresses: `namer(addr, out)` appends the
/// name and returns true, or returns false (and appends nothing). Once per
/// process; later calls are ignored.
pub fn set_symbol_namer(namer: fn(u64, &mut String) -> bool) {
    let _ = SYMBOL_NAMER.set(namer);
}

/// `(name)` of the code at the value of argument `arg`, when a namer is
/// registered and the argument is a kernel or symbol address.
#[inline]
fn symbol_suffix(arg: &str, value: &dyn TraceArg, out: &mut String) {
    let Some(namer) = SYMBOL_NAMER.get() else { return };
    if !is_symbol_arg(arg) {
        return;
    }
    if let Some(r) = value.raw() {
        out.push('(');
        if namer(r.a, out) {
            out.push(')');
        } else {
            out.pop();
        }
    }
}

/// `name=value, name=value` (the call log).
pub struct LineSink<'a> {
    pub out: &'a mut String,
    pub first: bool,
}

impl ArgSink for LineSink<'_> {
    fn arg(&mut self, name: &'static str, value: &dyn TraceArg) {
        if !self.first {
            self.out.push_str(", ");
        }
        self.first = false;
        self.out.push_str(name);
        self.out.push('=');
        value.trace(self.out);
        symbol_suffix(name, value, self.out);
    }
}

/// An argument kept for the timeline: captured raw, or pre-formatted text
/// (`fmt` None: `a..b` is a range of the chunk's text).
#[derive(Clone, Copy)]
pub struct Kept {
    pub name: &'static str,
    pub a: u64,
    pub b: u64,
    pub fmt: Option<fn(u64, u64, &mut String)>,
}

/// Keeps arguments for the timeline (formatted later by the writer).
pub struct KeepSink<'a> {
    pub args: &'a mut Vec<Kept>,
    pub text: &'a mut String,
}

impl ArgSink for KeepSink<'_> {
    #[inline]
    fn arg(&mut self, name: &'static str, value: &dyn TraceArg) {
        match value.raw() {
            Some(r) if !is_symbol_arg(name) || SYMBOL_NAMER.get().is_none() => {
                self.args.push(Kept { name, a: r.a, b: r.b, fmt: Some(r.fmt) })
            }
            _ => {
                let start = self.text.len() as u64;
                value.trace(self.text);
                symbol_suffix(name, value, self.text);
                self.args.push(Kept { name, a: start, b: self.text.len() as u64, fmt: None });
            }
        }
    }
}

/// Write kept arguments as JSON members `,"name":"value"`.
///
/// Raw formatters ([`Raw::fmt`]) write numbers, hex, enum constant names
/// and punctuation, never a quote, a backslash or a control character, so
/// only pre-formatted text (which may hold a kernel's name or a struct's
/// debug form) is escaped.
pub fn write_kept(args: &[Kept], text: &str, out: &mut String) {
    for k in args {
        out.push_str(",\"");
        out.push_str(k.name);
        out.push_str("\":\"");
        match k.fmt {
            Some(f) => f(k.a, k.b, out),
            None => {
                let t = text.get(k.a as usize..k.b as usize).unwrap_or("");
                if t.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
                    super::timeline::escape_into(t, out);
                } else {
                    out.push_str(t);
                }
            }
        }
        out.push('"');
    }
}

/// Every argument as (name, text) (subscribers).
#[derive(Default)]
pub struct CollectSink {
    pub args: Vec<(&'static str, String)>,
}

impl ArgSink for CollectSink {
    fn arg(&mut self, name: &'static str, value: &dyn TraceArg) {
        let mut s = String::new();
        value.trace(&mut s);
        symbol_suffix(name, value, &mut s);
        self.args.push((name, s));
    }
}

/// Implement [`TraceArg`] with `Debug` for plain-data structs passed by value
/// (extents, positions...).
#[macro_export]
macro_rules! trace_debug {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::trace::TraceArg for $t {
            fn trace(&self, out: &mut String) {
                use std::fmt::Write;
                let _ = write!(out, "{:?}", self);
            }
        }
    )*};
}

/// Implement [`TraceArg`] for an enum newtype: the constant's name when the
/// value is known, else the number.
#[macro_export]
macro_rules! trace_enum {
    ($t:ty { $($c:ident),* $(,)? }) => {
        impl $crate::trace::TraceArg for $t {
            fn trace(&self, out: &mut String) {
                $( if *self == $c { out.push_str(stringify!($c)); return; } )*
                $crate::trace::args::push_int(out, self.0);
            }
            #[inline]
            fn raw(&self) -> Option<$crate::trace::args::Raw> {
                Some($crate::trace::args::Raw {
                    a: self.0 as u64,
                    b: 0,
                    fmt: |a, _, out| $crate::trace::TraceArg::trace(&Self(a as _), out),
                })
            }
        }
    };
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

    fn show(v: &dyn TraceArg, ok: bool) -> String {
        let mut s = String::new();
        with_results(ok, || v.trace(&mut s));
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
        let (mut args, mut text) = (Vec::new(), String::new());
        with_results(true, || {
            let mut k = KeepSink { args: &mut args, text: &mut text };
            k.arg("x", &Q);
            k.arg("p", &p);
            k.arg("d", &crate::types::dim3 { x: 7, y: 8, z: 9 });
            k.arg("e", &crate::types::cudaDevAttrWarpSize);
            k.arg("i", &-3i64);
        });
        n = 6; // written values were captured at call time
        let _ = n;
        let mut out = String::new();
        write_kept(&args, &text, &mut out);
        assert_eq!(out, format!(r#","x":"a\"b\\","p":"{:#x}->5","d":"(7,8,9)","e":"cudaDevAttrWarpSize","i":"-3""#, p as usize));
    }

    #[test]
    fn kernel_addresses_get_their_names() {
        set_symbol_namer(|a, out| {
            if a == 0x1000 {
                out.push_str("saxpy");
                true
            } else {
                false
            }
        });
        let f = 0x1000 as *const c_void;
        let g = 0x2000 as *const c_void;
        let mut line = String::new();
        let mut sink = LineSink { out: &mut line, first: true };
        sink.arg("func", &f);
        sink.arg("func", &g);
        sink.arg("ptr", &f);
        assert_eq!(line, "func=0x1000(saxpy), func=0x2000, ptr=0x1000");
        let (mut args, mut text) = (Vec::new(), String::new());
        KeepSink { args: &mut args, text: &mut text }.arg("func", &f);
        let mut out = String::new();
        write_kept(&args, &text, &mut out);
        assert_eq!(out, r#","func":"0x1000(saxpy)""#);
    }
}
