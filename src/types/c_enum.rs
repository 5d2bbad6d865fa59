//! What every C enum newtype here has in common, so the layers above can
//! show any of them by name (the trace formatter implements its argument
//! trait once for all of them) while this, the lowest layer, imports
//! nothing from them.

use std::ffi::c_int;

/// A C enum as a `#[repr(transparent)]` newtype over `c_int` (never a Rust
/// `enum`: C hands us any number).
pub trait CEnum: Copy + 'static {
    /// The number.
    fn value(self) -> c_int;
    /// The newtype of any number.
    fn from_value(v: c_int) -> Self;
    /// The first of the enumerators with this value, if any.
    fn name(self) -> Option<&'static str>;
}

/// `c_enum!(Type { CONST_A, CONST_B, ... })`: [`CEnum`] for a newtype and
/// its constants, in the order of the header (the first name of a value
/// wins). The generated `*_enums.rs` files invoke it.
macro_rules! c_enum {
    ($t:ty { $($c:ident),* $(,)? }) => {
        impl $crate::types::CEnum for $t {
            #[inline]
            fn value(self) -> ::std::ffi::c_int {
                self.0 as ::std::ffi::c_int
            }
            #[inline]
            fn from_value(v: ::std::ffi::c_int) -> Self {
                Self(v as _)
            }
            fn name(self) -> Option<&'static str> {
                $( if self == $c { return Some(stringify!($c)); } )*
                None
            }
        }
    };
}
pub(crate) use c_enum;
