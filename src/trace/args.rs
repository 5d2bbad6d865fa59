//! Arguments as the trace layer sees them.

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

impl<T> TraceArg for *const T {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{:#x}", *self as usize);
    }
}

impl<T> TraceArg for *mut T {
    fn trace(&self, out: &mut String) {
        let _ = write!(out, "{:#x}", *self as usize);
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

/// Implement [`TraceArg`] with `Debug` for plain-data structs passed by value
/// (`dim3`, extents, positions...).
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
