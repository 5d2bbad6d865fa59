//! Build script: the interposer's SONAME and its `driver/libcuda.so.1` name.

use std::path::{Path, PathBuf};

fn main() {
    // Programs and libraries load the driver as libcuda.so.1; the SONAME must
    // say so (a program linked with -lcuda against us records it).
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    // Never unloaded: entry points handed out by cuGetProcAddress point into
    // it, and the trace machinery keeps pointers to its descriptors.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    link_driver_name();
    println!("cargo:rerun-if-changed=build.rs");
}

/// `target/<profile>/driver/libcuda.so.1 -> ../libcudart_shim_driver.so`: the
/// folder to put first on `LD_LIBRARY_PATH`. A folder of its own, so that it
/// holds no other library a program could pick up by accident. Also
/// `libcuda.so` (what `-lcuda` links against, and the name some programs
/// dlopen first, e.g. Numba). Dangling until the library is linked, right
/// after this script.
fn link_driver_name() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // OUT_DIR is target/<profile>/build/<pkg>-<hash>/out.
    let Some(profile_dir) = out.ancestors().nth(3) else { return };
    let dir = profile_dir.join("driver");
    let _ = std::fs::create_dir_all(&dir);
    let target = Path::new("../libcudart_shim_driver.so");
    for name in ["libcuda.so.1", "libcuda.so"] {
        let link = dir.join(name);
        if std::fs::read_link(&link).is_ok_and(|t| t == target) {
            continue;
        }
        let _ = std::fs::remove_file(&link);
        if let Err(e) = std::os::unix::fs::symlink(target, &link) {
            println!("cargo:warning=cannot create {}: {e}", link.display());
        }
    }
}
