//! Build script: the front's SONAME (its own name: it never stands in for
//! libcupti.so.13, it only interposes on the entry points it exports).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart_shim_cupti.so");
    println!("cargo:rerun-if-changed=build.rs");
}
