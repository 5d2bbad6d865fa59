//! c_examples/memory_copies.c builds against include/cudart_shim.h alone
//! and moves every byte correctly over the fake driver.

mod common;
use common::*;

#[test]
fn memory_copies_example_checks_every_byte() {
    let dir = scratch("memory_copies");
    let exe = compile_c_shim(&repo_root().join("c_examples/memory_copies.c"), &dir.join("memory_copies"), &[]);
    let out = run_on_fake(&exe, &[], &[]);
    assert!(out.contains("1D  65536 bytes checked, 0 wrong"), "{out}");
    assert!(out.contains("2D  3700 bytes checked, 0 wrong"), "{out}");
    assert!(out.contains("3D  1080 bytes checked, 0 wrong"), "{out}");
    assert!(out.ends_with("all copies correct\n"), "{out}");
}

#[test]
fn memory_copies_example_builds_against_nvidia_headers() {
    let dir = scratch("memory_copies_nv");
    compile_c_cudart(&repo_root().join("c_examples/memory_copies.c"), &dir.join("memory_copies_nv"), &["-DUSE_NVIDIA_HEADERS"]);
}
