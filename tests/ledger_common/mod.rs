//! A scripted call for the ledger stage: the `Call` description the
//! interception pipeline hands it (name, layer, depth, typed parameters
//! by C name), and a scripted driver for the ledger's own questions.

#![allow(dead_code)]

use cudart_shim::ledger::{self, CallView, Layer, Probe};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering::Relaxed};

pub struct Call {
    pub id: u32,
    pub name: &'static str,
    pub layer: Layer,
    pub depth: u32,
    pub params: Vec<(&'static str, Vec<u8>)>,
    pub ret: Option<usize>,
}

impl CallView for Call {
    fn id(&self) -> u32 {
        self.id
    }
    fn name(&self) -> &str {
        self.name
    }
    fn layer(&self) -> Layer {
        self.layer
    }
    fn depth(&self) -> u32 {
        self.depth
    }
    fn param(&self, name: &str) -> Option<&[u8]> {
        self.params.iter().find(|(n, _)| *n == name).map(|(_, b)| b.as_slice())
    }
    fn return_address(&self) -> Option<usize> {
        self.ret
    }
}

/// A parameter's bytes.
pub fn w<T: Copy>(v: T) -> Vec<u8> {
    let n = std::mem::size_of::<T>();
    // SAFETY: any Copy value's bytes may be read.
    unsafe { std::slice::from_raw_parts(&v as *const T as *const u8, n) }.to_vec()
}

/// A call of `name`, with an id that no other function of the tests uses.
pub fn call(name: &'static str, depth: u32, params: Vec<(&'static str, Vec<u8>)>) -> Call {
    let id = name.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32)) % 4000;
    let layer = if name.starts_with("cuda") { Layer::Runtime } else { Layer::Driver };
    Call { id, name, layer, depth, params, ret: None }
}

/// The scripted driver: current device, free and total memory.
pub static DEVICE: AtomicI32 = AtomicI32::new(0);
pub static DRIVER_FREE: AtomicU64 = AtomicU64::new(80 << 30);
pub static DRIVER_TOTAL: AtomicU64 = AtomicU64::new(80 << 30);
pub static RANGE: AtomicU64 = AtomicU64::new(0);
pub static PROBE: Probe = Probe {
    current_device: || Some(DEVICE.load(Relaxed)),
    mem_info: || Some((DRIVER_FREE.load(Relaxed), DRIVER_TOTAL.load(Relaxed))),
    address_range: |_| Some(RANGE.load(Relaxed)),
};

/// Start a test: the scripted driver, a fresh ledger configured with
/// `limit` and the reports on.
pub fn start(limit: &str) {
    ledger::set_probe(&PROBE);
    ledger::book::reset();
    let limit = if limit.is_empty() { Default::default() } else { trace_format::memory::parse_limit_spec(limit).unwrap() };
    ledger::configure(ledger::Config { limit, report: true, file: None, backtrace: 0, timeline: false, metrics: false });
}

/// Run `c` through the ledger stage as the pipeline does, the driver
/// answering `driver(c)` (a status) when the call is not refused.
pub fn run(c: &Call, driver: impl FnOnce(&Call) -> i32) -> i32 {
    if let Some(code) = ledger::before_view(c) {
        return code;
    }
    let r = driver(c);
    ledger::after_view(c, r)
}

/// `cudaMalloc(&p, size)` answered with the device pointer `addr`.
pub fn malloc(name: &'static str, size: u64, addr: u64) -> i32 {
    let out = Box::into_raw(Box::new(0u64));
    let (ptr_name, size_name) = if name.starts_with("cuda") { ("devPtr", "size") } else { ("dptr", "bytesize") };
    let c = call(name, 0, vec![(ptr_name, w(out)), (size_name, w(size))]);
    // SAFETY: out is ours until freed below.
    let r = run(&c, |_| {
        unsafe { *out = addr };
        0
    });
    drop(unsafe { Box::from_raw(out) });
    r
}

pub fn free(name: &'static str, addr: u64) -> i32 {
    let p = if name.starts_with("cuda") { "devPtr" } else { "dptr" };
    run(&call(name, 0, vec![(p, w(addr))]), |_| 0)
}

/// The memory table's rows as (device, kind, allocs, frees, live bytes).
pub fn rows() -> Vec<(i32, String, u64, u64, u64)> {
    let mut v: Vec<_> = ledger::report::snapshot().rows.into_iter().map(|r| (r.device, r.kind, r.allocations, r.frees, r.live_bytes)).collect();
    v.sort();
    v
}
