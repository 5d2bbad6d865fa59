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
