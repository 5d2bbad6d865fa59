//! The record of this process that every output carries (timeline
//! formats, the call log's session list, the memory report, the recorder's
//! dump): who wrote it, which runtime, which devices, and clock samples
//! that tie its timestamps to wall time. Producers register what only
//! they know (the runtime: the devices it used); writers read the record.

use super::clock;
use std::sync::OnceLock;
use trace_format::process::Process;

/// Runtime ordinals of the devices the process used, for the record: set
/// by the runtime (this layer is below it).
static DEVICE_LISTER: OnceLock<fn() -> Vec<i32>> = OnceLock::new();

/// Register the function that lists the devices used (see [`DEVICE_LISTER`]).
pub fn set_device_lister(f: fn() -> Vec<i32>) {
    let _ = DEVICE_LISTER.set(f);
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
    p.devices = DEVICE_LISTER.get().map(|f| f()).unwrap_or_default();
    p.clock = clock::start_sample().into_iter().chain([clock::sample()]).collect();
    p
}
