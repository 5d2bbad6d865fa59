//! In a setuid program every CUDART_SHIM_* variable is ignored (secure_getenv
//! semantics), so the environment cannot make the library load another
//! driver or write files with raised privileges.

mod common;
use common::*;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

#[test]
fn setuid_program_ignores_cudart_shim_variables() {
    // Copy the program and the libraries where an unprivileged user can read
    // them; the program is setuid root, run by `nobody` (AT_SECURE=1).
    let dir = std::env::temp_dir().join(format!("cudart-shim-setuid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = dir.join("secure_env");
    std::fs::copy(shim_lib(), dir.join("libcudart_shim.so")).unwrap();
    // The program records NEEDED libcudart.so.13 (our SONAME).
    std::fs::copy(shim_lib(), dir.join("libcudart.so.13")).unwrap();
    std::fs::copy(fake_driver(), dir.join("libfake_cuda.so")).unwrap();
    let out = Command::new("cc")
        .arg("-I")
        .arg(repo_root().join("include"))
        .arg(repo_root().join("tests/c/secure_env.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", dir.display()))
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-lcudart_shim")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["libcudart_shim.so", "libcudart.so.13", "libfake_cuda.so"] {
        std::fs::set_permissions(dir.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let driver = dir.join("libfake_cuda.so");
    let run_as = |setuid: bool| {
        let mode = if setuid { 0o4755 } else { 0o755 };
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(mode)).unwrap();
        let o = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&exe)
            .env("CUDART_SHIM_DRIVER", &driver)
            .env("CUDART_SHIM_LOG", "off")
            .output()
            .expect("setpriv (util-linux) is needed");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let is_root = unsafe { libc::geteuid() } == 0;
    assert!(is_root, "this test needs root to make a setuid-root program (CI and the dev machines run as root)");
    assert_eq!(run_as(false), "cudaSuccess\n", "without setuid, CUDART_SHIM_DRIVER selects the fake driver");
    assert_eq!(
        run_as(true),
        "cudaErrorInsufficientDriver\n",
        "setuid: CUDART_SHIM_DRIVER is ignored, so the (absent) system driver is looked for"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
