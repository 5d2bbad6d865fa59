//! The ledger stage (src/ledger) as the interception pipeline drives it:
//! `before(call)`, the call (a scripted driver answer), `after(call, r)`.
//! Each test runs in its own process (nextest), on a fresh ledger.

mod ledger_common;

use cudart_shim::ledger;
use ledger_common::*;
use std::sync::atomic::Ordering::Relaxed;

/// `name(out, params...)` answered with handle `addr` written to `*out`.
fn alloc_out(name: &'static str, out_name: &'static str, mut params: Vec<(&'static str, Vec<u8>)>, addr: u64) -> i32 {
    let out = Box::into_raw(Box::new([0u64; 4]));
    params.push((out_name, w(out)));
    let c = call(name, 0, params);
    let r = run(&c, |_| {
        // SAFETY: out is ours until freed below.
        unsafe { (*out)[0] = addr };
        0
    });
    drop(unsafe { Box::from_raw(out) });
    r
}

#[test]
fn every_family_is_counted_with_its_kind_and_freed_by_its_free() {
    start("");
    let mi = 1u64 << 20;
    // device: plain, pitch, 3D, arrays, mipmapped arrays; both layers.
    assert_eq!(malloc("cudaMalloc", mi, 0x1000_0000), 0);
    assert_eq!(malloc("cuMemAlloc_v2", mi, 0x2000_0000), 0);
    let pitch = Box::into_raw(Box::new(512u64));
    assert_eq!(alloc_out("cudaMallocPitch", "devPtr", vec![("pitch", w(pitch)), ("width", w(500u64)), ("height", w(10u64))], 0x3000_0000), 0);
    let pitched = Box::into_raw(Box::new([0u64, 1024, 0, 0]));
    let c = call("cudaMalloc3D", 0, vec![("pitchedDevPtr", w(pitched)), ("extent", w([1000u64, 4, 2]))]);
    assert_eq!(run(&c, |_| { unsafe { (*pitched)[0] = 0x3100_0000 }; 0 }), 0);
    let desc = Box::into_raw(Box::new([32i32, 0, 0, 0, 2]));
    assert_eq!(alloc_out("cudaMallocArray", "array", vec![("desc", w(desc)), ("width", w(100u64)), ("height", w(0u64))], 0xa1), 0);
    assert_eq!(alloc_out("cudaMallocMipmappedArray", "mipmappedArray", vec![("desc", w(desc)), ("extent", w([8u64, 8, 0])), ("numLevels", w(4u32))], 0xa2), 0);
    // CUDA_ARRAY_DESCRIPTOR {Width 64, Height 2, Format FLOAT, NumChannels 4}.
    let ad = Box::into_raw(Box::new([64u64, 2, 0x20 | (4 << 32)]));
    assert_eq!(alloc_out("cuArrayCreate_v2", "pHandle", vec![("pAllocateArray", w(ad))], 0xa3), 0);
    // pool (stream-ordered), VMM, managed, IPC imports, host.
    assert_eq!(alloc_out("cudaMallocAsync", "devPtr", vec![("size", w(mi)), ("hStream", w(0x55u64))], 0x4000_0000), 0);
    assert_eq!(alloc_out("cuMemAllocFromPoolAsync", "dptr", vec![("bytesize", w(mi)), ("pool", w(1u64)), ("hStream", w(0u64))], 0x4100_0000), 0);
    let prop = Box::into_raw(Box::new([1i32, 0, 1, 0, 0, 0, 0, 0]));
    assert_eq!(alloc_out("cuMemCreate", "handle", vec![("size", w(2 * mi)), ("prop", w(prop)), ("flags", w(0u64))], 0x77), 0);
    assert_eq!(alloc_out("cudaMallocManaged", "devPtr", vec![("size", w(mi)), ("flags", w(1u32))], 0x5000_0000), 0);
    RANGE.store(3 * mi, Relaxed);
    assert_eq!(alloc_out("cuIpcOpenMemHandle_v2", "pdptr", vec![("handle", w([0u8; 64])), ("Flags", w(1u32))], 0x6000_0000), 0);
    assert_eq!(alloc_out("cudaHostAlloc", "pHost", vec![("size", w(mi)), ("flags", w(0u32))], 0x7000_0000), 0);
    assert_eq!(run(&call("cuMemHostRegister_v2", 0, vec![("p", w(0x7100_0000u64)), ("bytesize", w(mi)), ("Flags", w(0u32))]), |_| 0), 0);

    let live: u64 = mi + mi + 512 * 10 + 1024 * 4 * 2 + 100 * 4 + (64 + 16 + 4 + 1) * 4 + 64 * 2 * 16 + mi + mi + 2 * mi + mi;
    assert_eq!(ledger::book::used(0), live, "device usage: every kind the limit covers, by size");
    assert_eq!(
        rows(),
        vec![
            (-1, "host".into(), 2, 0, 2 * mi),
            (0, "device".into(), 7, 0, mi + mi + 5120 + 8192 + 400 + 340 + 2048),
            (0, "imported".into(), 1, 0, 3 * mi),
            (0, "managed".into(), 1, 0, mi),
            (0, "pool".into(), 2, 0, 2 * mi),
            (0, "vmm".into(), 1, 0, 2 * mi),
        ]
    );

    // Each family's free, from either layer.
    for (n, p, a) in [
        ("cuMemFree_v2", "dptr", 0x1000_0000u64),
        ("cudaFree", "devPtr", 0x2000_0000),
        ("cudaFree", "devPtr", 0x3000_0000),
        ("cudaFree", "devPtr", 0x3100_0000),
        ("cudaFreeArray", "array", 0xa1),
        ("cudaFreeMipmappedArray", "mipmappedArray", 0xa2),
        ("cuArrayDestroy", "hArray", 0xa3),
        ("cudaFreeAsync", "devPtr", 0x4000_0000),
        ("cuMemFreeAsync", "dptr", 0x4100_0000),
        ("cuMemRelease", "handle", 0x77),
        ("cudaFree", "devPtr", 0x5000_0000),
        ("cuIpcCloseMemHandle", "dptr", 0x6000_0000),
        ("cudaFreeHost", "ptr", 0x7000_0000),
        ("cuMemHostUnregister", "p", 0x7100_0000),
    ] {
        assert_eq!(run(&call(n, 0, vec![(p, w(a))]), |_| 0), 0, "{n}");
    }
    assert_eq!(ledger::book::used(0), 0);
    assert!(rows().iter().all(|r| r.2 == r.3 && r.4 == 0), "{:?}", rows());
    assert!(ledger::book::live().is_empty());
}

#[test]
fn a_runtime_allocation_and_the_driver_call_under_it_are_one() {
    start("");
    let out = Box::into_raw(Box::new(0u64));
    let rt = call("cudaMalloc", 0, vec![("devPtr", w(out)), ("size", w(4096u64))]);
    let r = run(&rt, |_| {
        // The runtime's own driver call, nested (depth 1).
        let inner = Box::into_raw(Box::new(0u64));
        let drv = call("cuMemAlloc_v2", 1, vec![("dptr", w(inner)), ("bytesize", w(4096u64))]);
        assert_eq!(run(&drv, |_| { unsafe { *inner = 0xd000 }; 0 }), 0);
        unsafe { *out = *inner };
        0
    });
    assert_eq!(r, 0);
    assert_eq!(rows(), vec![(0, "device".into(), 1, 0, 4096)]);
    assert_eq!(ledger::book::used(0), 4096);
    // The free, also nested.
    let rt = call("cudaFree", 0, vec![("devPtr", w(0xd000u64))]);
    run(&rt, |_| run(&call("cuMemFree_v2", 1, vec![("dptr", w(0xd000u64))]), |_| 0));
    assert_eq!(rows(), vec![(0, "device".into(), 1, 1, 0)]);
    // A driver allocation of another library (depth 0) is counted.
    assert_eq!(malloc("cuMemAlloc_v2", 100, 0xe000), 0);
    assert_eq!(rows(), vec![(0, "device".into(), 2, 1, 100)]);
}

#[test]
fn the_limit_holds_exactly_at_its_boundary() {
    start("0=1MiB");
    let driver_calls = std::cell::Cell::new(0);
    let m = |size: u64, addr: u64| {
        let out = Box::into_raw(Box::new(0u64));
        let c = call("cudaMalloc", 0, vec![("devPtr", w(out)), ("size", w(size))]);
        run(&c, |_| {
            driver_calls.set(driver_calls.get() + 1);
            unsafe { *out = addr };
            0
        })
    };
    assert_eq!(m(512 << 10, 0x1000), 0);
    assert_eq!(m(512 << 10, 0x2000), 0, "exactly at the limit is allowed");
    assert_eq!(m(1, 0x3000), ledger::OUT_OF_MEMORY, "one byte over is refused");
    assert_eq!(driver_calls.get(), 2, "a refused call never reaches the driver");
    assert_eq!(free("cudaFree", 0x2000), 0);
    assert_eq!(m((512 << 10) + 1, 0x3000), ledger::OUT_OF_MEMORY, "one byte over after a free");
    assert_eq!(m(512 << 10, 0x3000), 0);
    assert_eq!(ledger::book::used(0), 1 << 20);
    // Another device has no limit; host memory is outside it.
    DEVICE.store(1, Relaxed);
    assert_eq!(m(8 << 20, 0x4000), 0);
    DEVICE.store(0, Relaxed);
    assert_eq!(alloc_out("cuMemHostAlloc", "pp", vec![("bytesize", w(8u64 << 20)), ("Flags", w(0u32))], 0x9000), 0);
    // The driver layer's code is the same number.
    assert_eq!(malloc("cuMemAlloc_v2", 1, 0x5000), 2);
    // A failed driver call returns its reservation.
    let out = Box::into_raw(Box::new(0u64));
    assert_eq!(free("cudaFree", 0x3000), 0);
    assert_eq!(run(&call("cuMemAlloc_v2", 0, vec![("dptr", w(out)), ("bytesize", w(4096u64))]), |_| 2), 2);
    assert_eq!(ledger::book::used(0), 512 << 10);
}

#[test]
fn eight_threads_racing_never_take_the_limit_over() {
    start("0=1MiB");
    let over = std::sync::atomic::AtomicBool::new(false);
    let granted = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (over, granted) = (&over, &granted);
            s.spawn(move || {
                let mut mine = Vec::new();
                for round in 0..2000u64 {
                    let addr = ((t + 1) << 40) | (round << 12);
                    let size = 4096 * (1 + (round % 7));
                    if malloc("cudaMalloc", size, addr) == 0 {
                        mine.push(addr);
                        granted.fetch_add(1, Relaxed);
                    }
                    if ledger::book::used(0) > 1 << 20 {
                        over.store(true, Relaxed);
                    }
                    if round % 3 == 0 && !mine.is_empty() {
                        assert_eq!(free("cudaFree", mine.swap_remove(0)), 0);
                    }
                }
                for a in mine {
                    assert_eq!(free("cuMemFree_v2", a), 0);
                }
            });
        }
    });
    assert!(!over.load(Relaxed), "usage went past the limit");
    assert!(granted.load(Relaxed) > 100);
    assert_eq!(ledger::book::used(0), 0, "every reservation returned");
    let r = rows();
    assert_eq!((r[0].2, r[0].3, r[0].4), (granted.load(Relaxed), granted.load(Relaxed), 0));
}

#[test]
fn mem_info_answers_the_limit_and_never_more_than_the_driver_has() {
    start("0=4GiB");
    let gib = 1u64 << 30;
    let info = |name: &'static str| {
        let (f, t) = (Box::into_raw(Box::new(0usize)), Box::into_raw(Box::new(0usize)));
        let c = call(name, 0, vec![("free", w(f)), ("total", w(t))]);
        assert_eq!(
            run(&c, |_| {
                unsafe {
                    *f = DRIVER_FREE.load(Relaxed) as usize;
                    *t = DRIVER_TOTAL.load(Relaxed) as usize;
                }
                0
            }),
            0
        );
        unsafe { (*Box::from_raw(f) as u64, *Box::from_raw(t) as u64) }
    };
    assert_eq!(info("cudaMemGetInfo"), (4 * gib, 4 * gib));
    assert_eq!(malloc("cudaMalloc", gib, 0x1000), 0);
    assert_eq!(info("cuMemGetInfo_v2"), (3 * gib, 4 * gib));
    // Other processes took the GPU: the driver's free is the smaller.
    DRIVER_FREE.store(gib / 2, Relaxed);
    assert_eq!(info("cudaMemGetInfo"), (gib / 2, 4 * gib));
    // No limit on device 1: the driver's answer, untouched.
    DEVICE.store(1, Relaxed);
    assert_eq!(info("cudaMemGetInfo"), (gib / 2, 80 * gib));
    // The device's size: cuDeviceTotalMem and totalGlobalMem say the limit.
    let bytes = Box::into_raw(Box::new(80usize << 30));
    run(&call("cuDeviceTotalMem_v2", 0, vec![("bytes", w(bytes)), ("dev", w(0i32))]), |_| 0);
    assert_eq!(unsafe { *bytes } as u64, 4 * gib);
    let mut prop: Box<cudart_shim::cudaDeviceProp> = Box::new(unsafe { std::mem::zeroed() });
    prop.totalGlobalMem = 80 << 30;
    let pp: *mut cudart_shim::cudaDeviceProp = &mut *prop;
    run(&call("cudaGetDeviceProperties", 0, vec![("prop", w(pp)), ("device", w(0i32))]), |_| 0);
    assert_eq!(prop.totalGlobalMem as u64, 4 * gib);
    run(&call("cudaGetDeviceProperties", 0, vec![("prop", w(pp)), ("device", w(1i32))]), |_| 0);
    assert_eq!(prop.totalGlobalMem as u64, 4 * gib, "device 1 has no limit: unchanged");
    // A nested call (the runtime's own cuDeviceTotalMem) is left alone.
    unsafe { *bytes = 80 << 30 };
    run(&call("cuDeviceTotalMem_v2", 1, vec![("bytes", w(bytes)), ("dev", w(0i32))]), |_| 0);
    assert_eq!(unsafe { *bytes } as u64, 80 * gib);
}

#[test]
fn totalglobalmem_is_at_the_same_offset_in_both_abis() {
    assert_eq!(std::mem::offset_of!(cudart_shim::cudaDeviceProp, totalGlobalMem), 288);
    assert_eq!(std::mem::offset_of!(cudart_shim::types::abi12::cudaDeviceProp12, totalGlobalMem), 288);
}

#[test]
fn bad_specs_are_one_warning_and_no_limit() {
    for (v, part) in [("0=4GB", "unknown unit \"GB\""), ("gpu0=1GiB", "unknown device \"gpu0\""), ("lots", "not a size")] {
        let (c, warnings) = cudart_shim::config::parse_memory_config(|k| (k == "CUDART_SHIM_MEMORY_LIMIT").then(|| v.to_owned()));
        assert!(c.limit.is_empty(), "{v}");
        assert_eq!(warnings.len(), 1, "{v}: {warnings:?}");
        assert!(warnings[0].contains("CUDART_SHIM_MEMORY_LIMIT") && warnings[0].contains(part) && warnings[0].contains("no memory limit"), "{}", warnings[0]);
    }
    let (c, warnings) = cudart_shim::config::parse_memory_config(|k| match k {
        "CUDART_SHIM_MEMORY_LIMIT" => Some("0=8GiB,1=4GiB".into()),
        "CUDART_SHIM_MEMORY_BACKTRACE" => Some("12".into()),
        _ => None,
    });
    assert!(warnings.is_empty());
    assert_eq!((c.limit.of(0), c.limit.of(1), c.limit.of(2), c.backtrace), (Some(8 << 30), Some(4 << 30), None, 12));
    let (c, warnings) = cudart_shim::config::parse_memory_config(|k| (k == "CUDART_SHIM_MEMORY_BACKTRACE").then(|| "many".to_owned()));
    assert_eq!((c.backtrace, warnings.len()), (0, 1));
}

#[test]
fn the_memory_table_attributes_each_allocation_to_its_calling_library() {
    start("");
    // The pipeline hands the export's return address: one in libc, one in
    // the test program.
    let mut c = call("cuMemAlloc_v2", 0, vec![]);
    let out = Box::into_raw(Box::new(0u64));
    c.params = vec![("dptr", w(out)), ("bytesize", w(1000u64))];
    c.ret = Some(libc::malloc as *const () as usize + 8);
    run(&c, |_| { unsafe { *out = 0x1000 }; 0 });
    c.params[1].1 = w(3000u64);
    c.ret = Some(libc::free as *const () as usize + 8);
    run(&c, |_| { unsafe { *out = 0x2000 }; 0 });
    let t = ledger::report::snapshot();
    assert_eq!(t.rows.len(), 1, "{:?}", t.rows);
    assert!(t.rows[0].library.starts_with("libc.so"), "{:?}", t.rows);
    assert_eq!((t.rows[0].allocations, t.rows[0].peak_bytes, t.rows[0].live_bytes), (2, 4000, 4000));
    free("cuMemFree_v2", 0x1000);
    let t = ledger::report::snapshot();
    assert_eq!((t.rows[0].frees, t.rows[0].peak_bytes, t.rows[0].live_bytes), (1, 4000, 3000));
    let text = t.to_text();
    assert!(text.contains("CUDA Memory by Device, Library and Kind") && text.contains("libc.so"), "{text}");
}

#[inline(never)]
fn leak_three(n: u64) -> [usize; 3] {
    // Three allocations made here: the return address the pipeline hands
    // over is in this function.
    let here = leak_three as *const () as usize + 16;
    let mut r = [0; 3];
    for (i, size) in [1000u64, 2000, 3000].into_iter().enumerate() {
        let out = Box::into_raw(Box::new(0u64));
        let mut c = call("cudaMalloc", 0, vec![("devPtr", w(out)), ("size", w(size))]);
        c.ret = Some(here);
        run(&c, |_| { unsafe { *out = n + i as u64 * 0x1000 }; 0 });
        r[i] = here;
    }
    r
}

#[test]
fn the_leak_report_groups_by_library_and_call_site_with_exact_sizes() {
    start("");
    leak_three(0x10_0000);
    assert_eq!(malloc("cudaMalloc", 77, 0x90_0000), 0);
    assert_eq!(free("cudaFree", 0x90_0000), 0);
    let r = ledger::report::at_exit();
    assert_eq!(r.leaks.len(), 1, "{:?}", r.leaks);
    assert_eq!(r.leaks[0].sizes, vec![1000, 2000, 3000]);
    assert!(r.leaks[0].site.contains("leak_three"), "{}", r.leaks[0].site);
    let text = r.to_text();
    assert!(text.contains("Leaks: 3 allocation(s)") && text.contains("1,000, 2,000, 3,000") && text.contains("leak_three"), "{text}");
    // And back from the JSON `cudart-shim report` reads.
    let back = trace_format::memory::Report::from_json(&serde_json::from_str(&r.to_json()).unwrap()).unwrap();
    assert_eq!(back.leaks, r.leaks);
}

#[test]
fn an_oom_report_at_the_first_failure_of_each_kind() {
    start("0=1MiB");
    assert_eq!(malloc("cudaMalloc", 1 << 19, 0x1000), 0);
    assert_eq!(malloc("cudaMalloc", 1 << 20, 0x2000), 2);
    assert_eq!(malloc("cudaMalloc", 1 << 20, 0x2000), 2);
    // A real OOM from the driver, of another kind.
    let out = Box::into_raw(Box::new(0u64));
    let c = call("cuMemAllocManaged", 0, vec![("dptr", w(out)), ("bytesize", w(4096u64)), ("flags", w(1u32))]);
    assert_eq!(run(&c, |_| 2), 2);
    let r = ledger::report::snapshot();
    assert_eq!(r.ooms.len(), 2, "one per kind: {:?}", r.ooms);
    let (a, b) = (&r.ooms[0], &r.ooms[1]);
    assert_eq!((a.function.as_str(), a.kind.as_str(), a.cause.as_str(), a.requested, a.limit, a.used), ("cudaMalloc", "device", "limit", 1 << 20, Some(1 << 20), 1 << 19));
    assert_eq!((a.driver_free, a.driver_total), (Some(80 << 30), Some(80 << 30)));
    assert_eq!(a.live.len(), 1);
    assert_eq!(a.live[0].live_bytes, 1 << 19);
    assert_eq!((b.function.as_str(), b.kind.as_str(), b.cause.as_str()), ("cuMemAllocManaged", "managed", "driver"));
    let t = a.to_text();
    assert!(t.contains("refused by the memory limit") && t.contains("limit: 1.00 MiB"), "{t}");
}

#[test]
fn each_booked_call_leaves_one_memory_event_for_the_timeline() {
    start("");
    // Events are left only while the timeline is on.
    assert_eq!(malloc("cudaMalloc", 8, 0x3000), 0);
    assert_eq!(ledger::take_event(), None, "no timeline, no event");
    assert_eq!(free("cudaFree", 0x3000), 0);
    ledger::configure(ledger::Config { timeline: true, ..ledger::config() });
    assert_eq!(malloc("cudaMalloc", 1000, 0x1000), 0);
    let e = ledger::take_event().unwrap();
    assert_eq!((e.alloc, e.device, e.kind, e.size, e.track), (true, 0, ledger::Kind::Device, 1000, 1000));
    assert_eq!(ledger::take_event(), None, "taken once");
    assert_eq!(malloc("cuMemAlloc_v2", 24, 0x2000), 0);
    assert_eq!(ledger::take_event().unwrap().track, 1024);
    assert_eq!(free("cudaFree", 0x1000), 0);
    let e = ledger::take_event().unwrap();
    assert_eq!((e.alloc, e.size, e.track), (false, 1000, 24));
    // Calls that change nothing leave nothing.
    assert_eq!(free("cudaFree", 0x9999), 0);
    assert_eq!(run(&call("cuLaunchKernel", 0, vec![]), |_| 0), 0);
    assert_eq!(ledger::take_event(), None);
}
