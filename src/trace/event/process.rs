//! The record of this process that every output carries (timeline
//! formats, the call log's session list, the memory report, the recorder's
//! dump): who wrote it, which runtime, which devices, and clock samples
//! that tie its timestamps to wall time. Producers register what only
//! they know (the devices used: [`DeviceSource`]); writers read the
//! record.

use super::clock;
use std::sync::OnceLock;
use trace_format::process::Process;

/// Who can say which devices the process used (this layer is below both).
#[derive(Clone, Copy)]
pub enum DeviceSource {
    /// The devices whose primary context our runtime retained.
    Runtime = 0,
    /// The devices the memory ledger booked allocations on (driver-only
    /// programs: VMM, `cuMemAlloc` through the interposer).
    Ledger = 1,
}

/// A function that lists runtime device ordinals.
type Lister = fn() -> Vec<i32>;

/// Each source's lister, set once.
static DEVICE_LISTERS: [OnceLock<Lister>; 2] = [const { OnceLock::new() }; 2];

/// Register `source`'s function that lists the devices used (the first
/// registration of a source stands).
pub fn set_device_lister(source: DeviceSource, f: Lister) {
    let _ = DEVICE_LISTERS[source as usize].set(f);
}

/// The SONAME of the runtime library this code was linked into
/// (`libcudart.so.13` or `libcudart.so.12`), or None when it is neither
/// (the crate linked into a test program). The two libraries are links of
/// one crate, so the code cannot know at compile time: the `DT_SONAME` of
/// the object holding this function is the answer (read from the mapped
/// object, [`crate::loaded`]). Found once.
pub fn runtime_soname() -> Option<&'static str> {
    static SONAME: OnceLock<Option<&'static str>> = OnceLock::new();
    *SONAME.get_or_init(|| match crate::loaded::object_of(runtime_soname as *const libc::c_void)?.soname()?.to_bytes() {
        b"libcudart.so.13" => Some("libcudart.so.13"),
        b"libcudart.so.12" => Some("libcudart.so.12"),
        _ => None,
    })
}

/// The record of this process for an output file, with the clock sample
/// taken at start and one taken now.
pub fn record() -> Process {
    let mut p = crate::config::process_identity(crate::config::env_var, std::process::id());
    p.runtime = runtime_soname().map(str::to_owned);
    // Every source's devices, once each, in order.
    let mut devices: Vec<i32> = DEVICE_LISTERS.iter().filter_map(OnceLock::get).flat_map(|f| f()).collect();
    devices.sort_unstable();
    devices.dedup();
    p.devices = devices;
    p.clock = clock::start_sample().into_iter().chain([clock::sample()]).collect();
    p
}
