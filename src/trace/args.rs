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

fn results_valid() -> bool {
    RESULTS_VALID.try_with(Cell::get).unwrap_or(false)
}

macro_rules! trace_display {
    ($($t:ty),*) => {$(
        impl TraceArg for $t {
            fn trace(&self, out: &mut String) {
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
trace_display!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize, f32, f64, bool);

impl TraceArg for () {
    fn trace(&self, _out: &mut String) {}
}

/// The value behind an out-pointer, for the number and pointer types the
/// runtime writes through out-parameters.
fn pointee<T: 'static>(p: *const T, out: &mut String) {
    let t = TypeId::of::<T>();
    macro_rules! read_as {
        ($($ty:ty),*) => {$(
            if t == TypeId::of::<$ty>() {
                // SAFETY: the call succeeded, so it wrote a $ty at p.
                let v = unsafe { p.cast::<$ty>().read_unaligned() };
                let _ = write!(out, "->{v}");
                return;
            }
        )*};
    }
    read_as!(i32, u32, i64, u64, usize, isize, f32, f64);
    let pointer = t == TypeId::of::<*mut c_void>()
        || t == TypeId::of::<*const c_void>()
        || std::any::type_name::<T>().starts_with("*mut ")
        || std::any::type_name::<T>().starts_with("*const ");
    if pointer && std::mem::size_of::<T>() == std::mem::size_of::<usize>() {
        // SAFETY: as above; T is a thin pointer.
        let v = unsafe { p.cast::<usize>().read_unaligned() };
        let _ = write!(out, "->{v:#x}");
    }
}

impl<T: 'static> TraceArg for *const T {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{:#x}", *self as usize);
    }
}

impl<T: 'static> TraceArg for *mut T {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{:#x}", *self as usize);
        if !self.is_null() && results_valid() {
            pointee::<T>(*self as *const T, out);
        }
    }
}

impl TraceArg for crate::types::dim3 {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "({},{},{})", self.x, self.y, self.z);
    }
}

macro_rules! trace_fn_ptr {
    ($($a:ident),*) => {
        impl<R, $($a),*> TraceArg for Option<unsafe extern "C" fn($($a),*) -> R> {
            fn trace(&self, out: &mut String) {
                let _ = write!(out, "{:#x}", self.map_or(0, |f| f as usize));
            }
        }
        impl<R, $($a),*> TraceArg for unsafe extern "C" fn($($a),*) -> R {
            fn trace(&self, out: &mut String) {
                let _ = write!(out, "{:#x}", *self as usize);
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
    }
}

/// `,"name":"value"` members of a JSON object (the timeline).
pub struct JsonSink<'a> {
    pub out: &'a mut String,
}

impl ArgSink for JsonSink<'_> {
    fn arg(&mut self, name: &'static str, value: &dyn TraceArg) {
        self.out.push_str(",\"");
        self.out.push_str(name);
        self.out.push_str("\":\"");
        let start = self.out.len();
        value.trace(self.out);
        if self.out[start..].bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            let raw = self.out.split_off(start);
            super::timeline::escape_into(&raw, self.out);
        }
        self.out.push('"');
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
                use std::fmt::Write;
                $( if *self == $c { out.push_str(stringify!($c)); return; } )*
                let _ = write!(out, "{}", self.0);
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn json_sink_escapes() {
        struct Q;
        impl TraceArg for Q {
            fn trace(&self, out: &mut String) {
                out.push_str("a\"b\\");
            }
        }
        let mut s = String::new();
        JsonSink { out: &mut s }.arg("x", &Q);
        assert_eq!(s, r#","x":"a\"b\\""#);
    }
}
