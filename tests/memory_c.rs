//! c_examples/memory_copies.c builds against include/cudart_shim.h alone
//! and moves every byte correctly over the fake driver.

mod common;
use common::*;

#[test]
fn memory_copies_example_checks_every_byte() {
    use programs::memory_copies::*;
    let exe = PROGRAM.build(&scratch("memory_copies"), &[]);
    check(&run_on_fake(&exe, &[], &[]));
}

#[test]
fn memory_copies_example_builds_against_nvidia_headers() {
    let dir = scratch("memory_copies_nv");
    compile_c_cudart(&repo_root().join("c_examples/memory_copies.c"), &dir.join("memory_copies_nv"), &["-DUSE_NVIDIA_HEADERS"]);
}
