//! Cost of the ledger stage per call, on the CPU: `before` + the call +
//! `after`, as the interception pipeline runs them, with a scripted driver
//! (the calls themselves do nothing, so the figures are the ledger's own).
//!
//! `cargo bench --bench ledger`. Figures: best of 7 rounds, ns per call.
//! - `off`: the ledger switched off (what every call pays: one load);
//! - `other call, on`: a call that is not an allocation (cuLaunchKernel)
//!   with the ledger on: the cached look-up of its function id;
//! - `alloc+free, limit only`: a cudaMalloc and its cudaFree, with a limit
//!   and no reports (no attribution);
//! - `alloc+free, reports, return address`: with the memory reports, the
//!   calling library from the export's return address (the pipeline's
//!   cheap way);
//! - `alloc+free, reports, unwind`: the same, found by unwinding the stack
//!   (no return address given);
//! - `alloc+free, 8 threads`: the limit-only pair on 8 threads at once
//!   (per call, wall time / calls per thread).
//!
//! The target (#25): at most 100 ns per allocation with tracking on.

#[path = "../tests/ledger_common/mod.rs"]
mod ledger_common;

use cudart_shim::ledger;
use ledger_common::*;
use std::hint::black_box;
use std::time::Instant;

fn best_ns(iters: u64, mut f: impl FnMut()) -> f64 {
    for _ in 0..iters / 10 {
        f();
    }
    let mut best = f64::MAX;
    for _ in 0..7 {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    best
}

/// One cudaMalloc (answered with `addr`) and its cudaFree: returns nothing,
/// counts two calls.
fn pair(out: *mut u64, alloc: &Call, free: &mut Call, addr: u64) {
    assert!(ledger::before_view(alloc).is_none());
    // SAFETY: out is the benchmark's own box.
    unsafe { *out = addr };
    ledger::after_view(alloc, 0);
    free.params[0].1 = w(addr);
    assert!(ledger::before_view(free).is_none());
    ledger::after_view(free, 0);
}

#[inline(never)]
fn program_site(out: *mut u64, alloc: &Call, free: &mut Call, i: u64) {
    pair(out, alloc, free, 0x1000 + (i & 1023) * 0x1000);
}

fn main() {
    ledger::set_probe(&PROBE);
    let iters = 200_000;
    let out = Box::into_raw(Box::new(0u64));
    let mut alloc = call("cudaMalloc", 0, vec![("devPtr", w(out)), ("size", w(4096u64))]);
    let mut free = call("cudaFree", 0, vec![("devPtr", w(0u64))]);
    let other = call("cuLaunchKernel", 0, vec![]);
    let run_other = || {
        black_box(ledger::before_view(black_box(&other)));
        black_box(ledger::after_view(black_box(&other), 0));
    };

    ledger::configure(ledger::Config::default());
    let off = best_ns(iters, run_other) / 2.0;

    let limit = trace_format::memory::parse_limit_spec("64GiB").unwrap();
    ledger::configure(ledger::Config { limit: limit.clone(), ..Default::default() });
    let other_on = best_ns(iters, run_other) / 2.0;
    let mut i = 0u64;
    let limit_only = best_ns(iters, || {
        i += 1;
        program_site(out, &alloc, &mut free, i)
    }) / 2.0;

    ledger::configure(ledger::Config { limit: limit.clone(), report: true, ..Default::default() });
    alloc.ret = Some(libc::malloc as *const () as usize + 8);
    let with_ret = best_ns(iters, || {
        i += 1;
        program_site(out, &alloc, &mut free, i)
    }) / 2.0;
    alloc.ret = None;
    let unwind = best_ns(iters / 10, || {
        i += 1;
        program_site(out, &alloc, &mut free, i)
    }) / 2.0;

    ledger::configure(ledger::Config { limit, ..Default::default() });
    let threads = 8u64;
    let t = Instant::now();
    std::thread::scope(|s| {
        for th in 0..threads {
            s.spawn(move || {
                let out = Box::into_raw(Box::new(0u64));
                let alloc = call("cudaMalloc", 0, vec![("devPtr", w(out)), ("size", w(4096u64))]);
                let mut free = call("cudaFree", 0, vec![("devPtr", w(0u64))]);
                for k in 0..iters {
                    pair(out, &alloc, &mut free, ((th + 1) << 40) | ((k & 1023) << 12));
                }
            });
        }
    });
    let eight = t.elapsed().as_nanos() as f64 / (iters * 2) as f64;

    println!("ledger stage, ns per call (best of 7; cudaMalloc+cudaFree pairs counted as 2 calls)");
    println!("{:<44} {:>8.1}", "off", off);
    println!("{:<44} {:>8.1}", "other call, on", other_on);
    println!("{:<44} {:>8.1}", "alloc+free, limit only", limit_only);
    println!("{:<44} {:>8.1}", "alloc+free, reports, return address", with_ret);
    println!("{:<44} {:>8.1}", "alloc+free, reports, unwind", unwind);
    println!("{:<44} {:>8.1}", "alloc+free, limit only, 8 threads (wall)", eight);
    let _ = black_box(&mut alloc);
}
