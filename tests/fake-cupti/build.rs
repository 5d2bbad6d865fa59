fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcupti.so.13");
}
