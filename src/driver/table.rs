//! `driver_table!`: declares typed, lazily resolved driver entry points.

/// ```ignore
/// driver_table! {
///     fn cuInit(flags: c_uint);
/// }
/// ```
/// declares `pub static cuInit: DriverFn<unsafe extern "C" fn(c_uint) -> CUresult>`,
/// resolved by the name `cuInit` on first use.
///
/// The signature must be the one `cuGetProcAddress(name, 13000)` returns:
/// in `cudaTypedefs.h`, the `PFN_<name>_v<N>` with the largest N <= 13000
/// (e.g. `cuCtxSynchronize` takes a context at 13000; `cuMemAlloc` is
/// `cuMemAlloc_v2`). The `_ptds`/`_ptsz` variant has the same parameters.
macro_rules! driver_table {
    ($( $(#[$m:meta])* fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ); )*) => {
        $(
            $(#[$m])*
            pub static $name: $crate::driver::DriverFn<unsafe extern "C" fn($($ty),*) -> $crate::driver::CUresult> =
                $crate::driver::DriverFn::new(concat!(stringify!($name), "\0"));
        )*
    };
}
pub(crate) use driver_table;

/// `driver_table_since! { 13010 => fn cuGraphGetId(...); }`: entry points
/// added after CUDA 13.0, each resolved with the version that introduced it
/// (its `PFN_<name>_v<version>` signature); an older driver fails only these
/// calls, with `cudaErrorCallRequiresNewerDriver`.
macro_rules! driver_table_since {
    ($( $(#[$m:meta])* $v:literal => fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ); )*) => {
        $(
            $(#[$m])*
            pub static $name: $crate::driver::DriverFn<unsafe extern "C" fn($($ty),*) -> $crate::driver::CUresult> =
                $crate::driver::DriverFn::since(concat!(stringify!($name), "\0"), $v);
        )*
    };
}
pub(crate) use driver_table_since;
