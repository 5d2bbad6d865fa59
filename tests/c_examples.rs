//! The C examples in c_examples/ build against include/cudart_shim.h alone
//! and run on the shim over the fake driver.

mod common;
use common::*;

#[test]
fn device_query_prints_every_property() {
    let dir = scratch("device_query");
    let exe = compile_c_shim(&repo_root().join("c_examples/device_query.c"), &dir.join("device_query"), &[]);
    let out = run_on_fake(&exe, &[], &[("FAKE_CUDA_DEVICES", "2")]);
    assert!(out.contains("runtime 13000, driver 13000"), "{out}");
    assert!(out.contains("2 device(s)"), "{out}");
    assert!(out.contains("device 1: Fake CUDA Device 1 (00000000:11:00.0)"), "{out}");
    let lines_per_device = out.lines().filter(|l| l.trim_start().starts_with("multiProcessorCount")).count();
    assert_eq!(lines_per_device, 2);
    assert!(out.contains("  maxThreadsDim                            1024 1024 64"), "{out}");
    assert!(out.contains("device flags 0x8"), "{out}");
    // One line per field of cudaDeviceProp (90 values) plus headers, per device.
    assert!(out.lines().count() > 2 * 90, "{out}");
}

#[test]
fn library_ptx_loads_and_launches() {
    let dir = scratch("library_ptx");
    let exe = compile_c_shim(&repo_root().join("c_examples/library_ptx.c"), &dir.join("library_ptx"), &[]);
    let log = dir.join("launches.txt");
    let _ = std::fs::remove_file(&log);
    let log_s = log.display().to_string();
    // The fake runs no code: check the launch reached the driver instead.
    let out = run_on_fake(&exe, &["--no-check"], &[("FAKE_CUDA_LAUNCH_LOG", log_s.as_str())]);
    assert!(out.contains("kernels 1, kernel axpb, out 256 bytes"), "{out}");
    assert!(out.contains("launched axpb<<<2, 32>>>(out, 3, 7, 64)"), "{out}");
    assert!(out.ends_with("ok\n"), "{out}");
    let launches = std::fs::read_to_string(&log).unwrap();
    let l: Vec<&str> = launches.lines().filter(|l| l.starts_with("kind=plain")).collect();
    assert_eq!(l.len(), 1, "{launches}");
    assert!(l[0].starts_with("kind=plain name=axpb grid=2,1,1 block=32,1,1 shared=0 stream=0x0 args="), "{}", l[0]);
    // out pointer (8 bytes), then a=3, b=7, n=64.
    assert!(l[0].ends_with("030000000700000040000000 attrs="), "{}", l[0]);
    // Without --no-check the program verifies the results, which the fake
    // never computes: it must fail, proving the check is real.
    let bad = run(&exe, &[], &fake_env(&[]));
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stdout).contains("FAIL out[0] = 0, want 7"));
}
