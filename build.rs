//! Build script: the library's SONAME, the `libcudart.so.13` name next to
//! the artifact, and the C header.

use std::path::{Path, PathBuf};

fn main() {
    // NVIDIA's SONAME, so binaries linked against libcudart.so.13 accept us.
    // tools/linker (see .cargo/config.toml) also keys on this argument to put
    // every export under the version node libcudart.so.13.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.13");

    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    link_drop_in_name();
    write_header(&root);
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");
}

/// `target/<profile>/libcudart.so.13 -> libcudart_shim.so`, so that
/// `LD_LIBRARY_PATH=target/<profile>` makes programs load us. Dangling until
/// the library is linked, which happens right after this script.
fn link_drop_in_name() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // OUT_DIR is target/<profile>/build/<pkg>-<hash>/out.
    let Some(profile_dir) = out.ancestors().nth(3) else { return };
    let link = profile_dir.join("libcudart.so.13");
    if std::fs::read_link(&link).is_ok_and(|t| t == Path::new("libcudart_shim.so")) {
        return;
    }
    let _ = std::fs::remove_file(&link);
    if let Err(e) = std::os::unix::fs::symlink("libcudart_shim.so", &link) {
        println!("cargo:warning=cannot create {}: {e}", link.display());
    }
}

/// Regenerate include/cudart_shim.h; written only when it changed, so the
/// file's timestamp (and anything built from it) is stable.
fn write_header(root: &Path) {
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = match cbindgen::Builder::new().with_crate(root).with_config(config).generate() {
        Ok(b) => b,
        Err(e) => {
            println!("cargo:warning=cbindgen could not generate include/cudart_shim.h: {e}");
            return;
        }
    };
    let mut text = Vec::new();
    bindings.write(&mut text);
    let path = root.join("include/cudart_shim.h");
    if std::fs::read(&path).ok().as_deref() != Some(&text[..]) {
        std::fs::create_dir_all(root.join("include")).unwrap();
        std::fs::write(&path, text).unwrap();
    }
}
