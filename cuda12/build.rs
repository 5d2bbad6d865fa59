//! Build script of the CUDA 12 library: its SONAME and the
//! `libcudart.so.12` name next to the artifact. tools/linker keys on the
//! SONAME to name the version node `libcudart.so.12`, export the
//! `NAME__abi12` forms as `NAME` and keep exactly 12.9's export list.

include!("../tools/drop_in_name.rs");

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.12");
    link_drop_in_name("libcudart.so.12", "libcudart_shim12.so");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../tools/drop_in_name.rs");
    // The export list is read at link time by tools/linker.
    println!("cargo:rerun-if-changed=../tests/data/abi/libcudart12-exports.txt");
    println!("cargo:rerun-if-changed=../tools/linker");
}
