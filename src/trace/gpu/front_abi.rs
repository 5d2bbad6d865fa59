//! The internal C ABI between the CUPTI front (`cupti-front/`, built as
//! `libcudart_shim_cupti.so`) and the CUPTI multiplexer ([`super::mux`]).
//!
//! One file, compiled into both: the front includes it with `#[path]`, so
//! the two sides cannot drift apart within one build. Across builds (a
//! front and a `libcudart_shim.so` from different versions) two checks
//! refuse the pairing before either side reads the other's structs:
//! - the multiplexer reads the front's exported [`LAYOUT_SYMBOL`] (a
//!   [`Layout`]) and installs nothing, with one warning, unless it equals
//!   its own [`LAYOUT`] (a front older than the check exports none);
//! - the front's `cudart_shim_cupti_install` refuses a [`MuxTable`] whose
//!   [`MuxTable::abi`] is not its [`ABI_VERSION`] (`CUPTI_ERROR_NOT_COMPATIBLE`),
//!   touching nothing.
//!
//! Refused, the program's CUPTI calls go on reaching the real CUPTI and
//! cudart-shim's tracing treats the front as absent.
//!
//! Within one version the layout is pinned below at build time: a change
//! to a struct of this file fails the build until [`ABI_VERSION`] is
//! bumped and the pin updated with it.

use std::ffi::{c_int, c_void, CStr};
use std::mem::{offset_of, size_of};

/// Bumped on any change to a struct or function of this file.
/// 1: the first front (no version check; its table started with
/// `register_callbacks`). 2: [`MuxTable::abi`] and the exported [`Layout`].
pub const ABI_VERSION: u32 = 2;

/// The front's file name and SONAME (cupti-front/build.rs).
pub const FRONT_NAME: &CStr = c"libcudart_shim_cupti.so";
/// The front's export that hands the multiplexer's table over: an [`InstallFn`].
pub const INSTALL_SYMBOL: &CStr = c"cudart_shim_cupti_install";
/// The front's exported [`Layout`] (a static).
pub const LAYOUT_SYMBOL: &CStr = c"cudart_shim_cupti_layout";

/// `CUPTI_ERROR_INVALID_PARAMETER` (cupti_result.h).
pub const INVALID_PARAMETER: c_int = 1;
/// `CUPTI_ERROR_NOT_COMPATIBLE` (cupti_result.h): the install's answer to
/// a table of another [`ABI_VERSION`].
pub const NOT_COMPATIBLE: c_int = 14;

/// CUPTI's buffer-requested callback (`CUpti_BuffersCallbackRequestFunc`).
pub type Requested = unsafe extern "C" fn(*mut *mut u8, *mut usize, *mut usize);
/// CUPTI's buffer-completed callback (`CUpti_BuffersCallbackCompleteFunc`).
pub type Completed = unsafe extern "C" fn(*mut c_void, u32, *mut u8, usize, usize);
/// CUPTI's timestamp callback (`CUpti_TimestampCallbackFunc`).
pub type Timestamp = unsafe extern "C" fn() -> u64;

/// `cudart_shim_cupti_install(table, out)`: from now on the program's
/// Activity API calls go to `table`; `out` receives what the program set
/// up through the real CUPTI before. `CUPTI_SUCCESS`, or
/// [`INVALID_PARAMETER`] (a NULL pointer) or [`NOT_COMPATIBLE`] (another
/// [`ABI_VERSION`]) with nothing changed.
pub type InstallFn = unsafe extern "C" fn(table: *const MuxTable, out: *mut AppState) -> c_int;

/// What the program set up through the real CUPTI before the multiplexer
/// took over (kept by the front, handed over at install).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AppState {
    pub requested: Option<Requested>,
    pub completed: Option<Completed>,
    pub timestamp: Option<Timestamp>,
    /// Enabled activity kinds (bit per `CUpti_ActivityKind`, kinds < 128).
    pub kinds: [u64; 2],
    /// Driver / runtime API callback ids switched on one by one
    /// (`cuptiActivityEnableDriverApi` / `EnableRuntimeApi`), ids < 4096.
    pub driver_cbids: [u64; 64],
    pub runtime_cbids: [u64; 64],
}

impl AppState {
    /// Nothing set up.
    pub const EMPTY: AppState = AppState { requested: None, completed: None, timestamp: None, kinds: [0; 2], driver_cbids: [0; 64], runtime_cbids: [0; 64] };
}

/// The multiplexer's entry points for the program's calls, in
/// libcudart_shim.so; each has the C signature of the CUPTI function the
/// front exports (`cuptiActivity...`).
#[repr(C)]
pub struct MuxTable {
    /// [`ABI_VERSION`] of the build that made the table.
    pub abi: u32,
    pub register_callbacks: unsafe extern "C" fn(Option<Requested>, Option<Completed>) -> c_int,
    pub register_timestamp: unsafe extern "C" fn(Option<Timestamp>) -> c_int,
    pub enable: unsafe extern "C" fn(u32) -> c_int,
    pub disable: unsafe extern "C" fn(u32) -> c_int,
    pub enable_driver_api: unsafe extern "C" fn(u32, u8) -> c_int,
    pub enable_runtime_api: unsafe extern "C" fn(u32, u8) -> c_int,
    pub flush_all: unsafe extern "C" fn(u32) -> c_int,
    pub next_record: unsafe extern "C" fn(*mut u8, usize, *mut *mut u8) -> c_int,
    pub dropped: unsafe extern "C" fn(*mut c_void, u32, *mut usize) -> c_int,
    pub finalize: unsafe extern "C" fn() -> c_int,
}

/// The shape of this file's structs as one build compiled them: version,
/// sizes and every field's offset. `abi` stays the first field in every
/// version, so a reader of another version can compare it first.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub abi: u32,
    pub state_size: u32,
    /// [`AppState`]: requested, completed, timestamp, kinds, driver_cbids, runtime_cbids.
    pub state_offsets: [u32; 6],
    pub table_size: u32,
    /// [`MuxTable`]: abi, then the ten entry points in order.
    pub table_offsets: [u32; 11],
}

/// `[offset_of!(T, f) as u32, ...]` for the fields named, in order.
macro_rules! offsets {
    ($t:ty: $($f:ident),*) => { [$(offset_of!($t, $f) as u32),*] };
}

/// This build's [`Layout`].
pub const LAYOUT: Layout = Layout {
    abi: ABI_VERSION,
    state_size: size_of::<AppState>() as u32,
    state_offsets: offsets!(AppState: requested, completed, timestamp, kinds, driver_cbids, runtime_cbids),
    table_size: size_of::<MuxTable>() as u32,
    table_offsets: offsets!(MuxTable: abi, register_callbacks, register_timestamp, enable, disable, enable_driver_api, enable_runtime_api, flush_all, next_record, dropped, finalize),
};

/// The pin (64-bit targets, the only ones cudart-shim builds for):
/// changing a struct above without bumping [`ABI_VERSION`] and this pin
/// together fails the build here.
const _: () = {
    assert!(ABI_VERSION == 2);
    assert!(LAYOUT.state_size == 3 * 8 + (2 + 64 + 64) * 8);
    assert!(LAYOUT.state_offsets[3] == 24 && LAYOUT.state_offsets[4] == 40 && LAYOUT.state_offsets[5] == 552);
    assert!(LAYOUT.table_size == 8 + 10 * 8);
    assert!(LAYOUT.table_offsets[0] == 0 && LAYOUT.table_offsets[1] == 8 && LAYOUT.table_offsets[10] == 80);
    // `abi` first, so a reader of any version can compare it first.
    assert!(offset_of!(Layout, abi) == 0);
};

/// Whether a front's exported layout is this build's; Err says what
/// differs, for the log line.
///
/// # Safety
/// `theirs` is NULL or points at a front's [`LAYOUT_SYMBOL`] static, of
/// whatever version: only its first `u32` is read unless that is
/// [`ABI_VERSION`].
pub unsafe fn check_layout(theirs: *const Layout) -> Result<(), String> {
    if theirs.is_null() {
        return Err(format!("it exports no {}: ABI 1, here {ABI_VERSION}", LAYOUT_SYMBOL.to_string_lossy()));
    }
    // SAFETY: every version's layout starts with its `abi` (u32).
    let abi = unsafe { theirs.cast::<u32>().read() };
    if abi != ABI_VERSION {
        return Err(format!("its ABI is {abi}, here {ABI_VERSION}"));
    }
    // SAFETY: same version, so the same Layout struct.
    let l = unsafe { theirs.read() };
    if l != LAYOUT {
        return Err(format!("same ABI {abi} but another layout (theirs {l:?}, ours {LAYOUT:?})"));
    }
    Ok(())
}
