//! Differential tests against NVIDIA's libcudart.so.13 (from the pinned
//! wheels), on a machine without a GPU: the same program, built once against
//! NVIDIA's headers, runs with NVIDIA's library and with ours, no driver
//! reachable, and must print the same as NVIDIA's 13.5 (the runtime we
//! are), and differ from NVIDIA's 13.0 only where 13.5 does.

mod common;
use common::*;
use std::path::Path;

/// Build `src` on the headers of the wheels in `cuda`, run it with that
/// wheel's NVIDIA library and with ours: (NVIDIA's output, ours).
fn both_with(cuda: &Path, src: &str, name: &str) -> (String, String) {
    let dir = scratch(name);
    let exe = compile_c_cudart_with(cuda, &repo_root().join(src), &dir.join(name), &[]);
    let nv = run_on_nvidia_with(cuda, &exe, &[]);
    assert!(nv.status.success(), "NVIDIA run failed: {}", String::from_utf8_lossy(&nv.stderr));
    let ours = run_on_ours_without_driver(&exe, &[]);
    assert!(ours.status.success(), "our run failed: {}", String::from_utf8_lossy(&ours.stderr));
    (String::from_utf8(nv.stdout).unwrap(), String::from_utf8(ours.stdout).unwrap())
}

/// The lines of `nv` and `ours` that differ (same line count asserted).
fn differing<'a>(nv: &'a str, ours: &'a str) -> Vec<(&'a str, &'a str)> {
    assert_eq!(nv.lines().count(), ours.lines().count(), "line counts differ");
    nv.lines().zip(ours.lines()).filter(|(a, b)| a != b).collect()
}

#[test]
fn error_names_and_strings_match_nvidia() {
    let (nv, ours) = both_with(&cuda135(), "tests/c/errors.c", "errors");
    assert_eq!(nv.lines().count(), 1004 + 3);
    assert_same_lines(&nv, &ours);
}

/// Against NVIDIA's 13.0 library, only the codes 13.5 added read
/// differently: 13.0 calls them unrecognized.
#[test]
fn error_table_differs_from_13_0_only_in_the_codes_13_5_added() {
    let (nv, ours) = both_with(&require_cuda(), "tests/c/errors.c", "errors130");
    let d = differing(&nv, &ours);
    let codes: Vec<&str> = d.iter().map(|(_, b)| b.split_whitespace().next().unwrap()).collect();
    assert_eq!(codes, ["10", "227", "917", "918", "919"], "{d:#?}");
    assert!(d.iter().all(|(a, _)| a.contains("unrecognized error code")), "{d:#?}");
}

#[test]
fn no_driver_call_sequence_matches_nvidia() {
    let (nv, ours) = both_with(&cuda135(), "tests/c/script.c", "script");
    assert!(nv.contains("cudaGetDeviceCount(&n)"), "{nv}");
    assert!(nv.contains("runtime=13050"), "{nv}");
    assert_same_lines(&nv, &ours);
}

/// Against NVIDIA's 13.0 library, only the runtime version differs.
#[test]
fn no_driver_call_sequence_differs_from_13_0_only_in_the_version() {
    let (nv, ours) = both_with(&require_cuda(), "tests/c/script.c", "script130");
    assert_eq!(differing(&nv, &ours), [("runtime=13000", "runtime=13050")]);
}
