//! The exports: one typed function per entry of the generated list, one
//! untyped jump per other export of the real driver.

use crate::{any_on, intercepted, CUresult, Word, REAL, REAL_UNTYPED};
#[allow(unused_imports)]
use crate::{CUipcHandle, CUmemLocation};
#[allow(unused_imports)]
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::Ordering::Relaxed;

/// Each typed export: with everything off, a call through the real pointer
/// (compiled to a tail jump); else the same call through the pipeline
/// ([`intercepted`]) with its typed parameter block (a `#[repr(C)]` struct
/// of its parameters, laid out as `control::params::driver` declares it),
/// which a stage may change before the call reads its arguments from it,
/// and its arguments as words for the call log.
macro_rules! typed_exports {
    ($( $id:literal $name:ident ( $($a:ident : $t:ty),* ); )*) => {
        $(
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $name($($a: $t),*) -> CUresult {
                type F = unsafe extern "C" fn($($t),*) -> CUresult;
                // SAFETY: REAL[id] holds the real driver's function of this
                // name (same signature, from the same header) or a stub that
                // ignores its arguments.
                let f: F = unsafe { std::mem::transmute::<*mut c_void, F>(REAL[$id].load(Relaxed)) };
                if !any_on() {
                    return unsafe { f($($a),*) };
                }
                #[repr(C)]
                struct Params { $($a: $t),* }
                let words = [$(Word::word($a)),*];
                let mut p = Params { $($a),* };
                let pp: *mut Params = &mut p;
                // SAFETY: `pp` points at `p`, alive for the whole call; the
                // pipeline writes it only before the call reads it.
                unsafe { intercepted($id, pp.cast(), &words, move || {
                    let Params { $($a),* } = std::ptr::read(pp);
                    f($($a),*)
                }) }
            }
        )*

        /// Our export for each typed function id (for `cuGetProcAddress`).
        pub fn wrappers() -> Vec<(u32, *mut c_void)> {
            vec![$(($id, $name as *mut c_void)),*]
        }
    };
}
crate::driver_api_list!(typed_exports);

/// Each untyped export: a jump through the real pointer, with the caller's
/// registers and stack untouched, so any signature works (these have none in
/// cuda.h or cudaProfilerTypedefs.h that the generator resolves: OpenGL,
/// EGL, VDPAU, cuProfilerInitialize and debugger entry points).
macro_rules! untyped_exports {
    ($( $i:literal $name:ident )*) => {
        $(
            #[unsafe(no_mangle)]
            #[unsafe(naked)]
            pub unsafe extern "C" fn $name() {
                std::arch::naked_asm!(
                    "jmp qword ptr [rip + {table} + {off}]",
                    table = sym REAL_UNTYPED,
                    off = const $i * 8,
                );
            }
        )*

        /// Our untyped export for each index of `api::UNTYPED`.
        pub fn untyped_wrappers() -> Vec<*mut c_void> {
            vec![$($name as *mut c_void),*]
        }
    };
}
crate::driver_untyped_list!(untyped_exports);
