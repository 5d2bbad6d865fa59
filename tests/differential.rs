//! Differential tests against NVIDIA's libcudart.so.13 (from the pinned
//! wheel), on a machine without a GPU: the same program, built once against
//! NVIDIA's headers, runs with NVIDIA's library and with ours, no driver
//! reachable, and must print the same.

mod common;
use common::*;

fn both(src: &str, name: &str) -> (String, String) {
    let dir = scratch(name);
    let exe = compile_c_cudart(&repo_root().join(src), &dir.join(name), &[]);
    let nv = run_on_nvidia(&exe, &[]);
    assert!(nv.status.success(), "NVIDIA run failed: {}", String::from_utf8_lossy(&nv.stderr));
    // Ours, with a driver path that cannot load: "no driver".
    let ours = run(
        &exe,
        &[],
        &[
            ("LD_LIBRARY_PATH".into(), target_dir().display().to_string()),
            ("CUDART_SHIM_DRIVER".into(), "/nonexistent/libcuda.so.1".into()),
            ("CUDART_SHIM_LOG".into(), "off".into()),
        ],
    );
    assert!(ours.status.success(), "our run failed: {}", String::from_utf8_lossy(&ours.stderr));
    (String::from_utf8(nv.stdout).unwrap(), String::from_utf8(ours.stdout).unwrap())
}

fn assert_same(nv: &str, ours: &str) {
    for (i, (a, b)) in nv.lines().zip(ours.lines()).enumerate() {
        assert_eq!(a, b, "line {} differs (left: NVIDIA, right: cudart-shim)", i + 1);
    }
    assert_eq!(nv.lines().count(), ours.lines().count(), "line counts differ");
}

#[test]
fn error_names_and_strings_match_nvidia() {
    let (nv, ours) = both("tests/c/errors.c", "errors");
    assert_eq!(nv.lines().count(), 1004 + 3);
    assert_same(&nv, &ours);
}

#[test]
fn no_driver_call_sequence_matches_nvidia() {
    let (nv, ours) = both("tests/c/script.c", "script");
    assert!(nv.contains("cudaGetDeviceCount(&n)"), "{nv}");
    assert_same(&nv, &ours);
}
