// Shared by build.rs and cuda12/build.rs (through `include!`): the NVIDIA
// name of a runtime library next to the artifact.

/// `target/<profile>/<name> -> <artifact>`, so that
/// `LD_LIBRARY_PATH=target/<profile>` makes programs load us. Dangling until
/// the library is linked, which happens right after the build script.
fn link_drop_in_name(name: &str, artifact: &str) {
    use std::path::{Path, PathBuf};
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // OUT_DIR is target/<profile>/build/<pkg>-<hash>/out.
    let Some(profile_dir) = out.ancestors().nth(3) else { return };
    let link = profile_dir.join(name);
    if std::fs::read_link(&link).is_ok_and(|t| t == Path::new(artifact)) {
        return;
    }
    let _ = std::fs::remove_file(&link);
    if let Err(e) = std::os::unix::fs::symlink(artifact, &link) {
        println!("cargo:warning=cannot create {}: {e}", link.display());
    }
}
