//! The bad-input suite: every cudaError_t export of NVIDIA's runtime (from
//! the export list and NVIDIA's prototypes, see scripts/gen-bad-input.py)
//! called with NULL pointers, out-of-range enums and flags, zero and huge
//! sizes, devices -1 and 99.
//!
//! - With no driver, ours returns exactly what NVIDIA's library returns, case
//!   by case (CPU-only differential).
//! - Over the fake driver, no case crashes or hangs, except cases whose
//!   arguments make NVIDIA's runtime read or write past a buffer by
//!   construction (tests/data/bad_input_ub.tsv, each with its reason).
//! - On a GPU, gpu/checks/conformance/conformance.py records NVIDIA's code and ours for every
//!   case in tests/data/bad_input_gpu.tsv; rows whose two codes differ are
//!   the open differences (counted in docs/RELIABILITY.md). Every case where
//!   the two agreed must still give NVIDIA's code over the fake driver,
//!   except where the fake driver is known to answer unlike the real one
//!   (tests/data/bad_input_fake_diffs.tsv, each with its reason).

mod common;
use common::*;
use std::collections::BTreeMap;
use std::process::Command;

fn program(tag: &str) -> std::path::PathBuf {
    let dir = scratch(&format!("bad_input-{tag}"));
    let src = dir.join("bad_input.c");
    let out = Command::new("python3")
        .arg(repo_root().join("scripts/gen-bad-input.py"))
        .arg(cuda_include())
        .arg(repo_root().join("tests/data/abi/libcudart13-exports.txt"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&src, out.stdout).unwrap();
    compile_c_cudart(&src, &dir.join("bad_input"), &["-w"])
}

fn results(stdout: &[u8]) -> BTreeMap<String, String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect()
}

/// `case<TAB>...` rows of a data file, comments and blanks skipped.
fn data(name: &str) -> BTreeMap<String, Vec<String>> {
    let path = repo_root().join("tests/data").join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split('\t').map(str::to_owned);
            (f.next().unwrap(), f.collect())
        })
        .collect()
}

#[test]
fn no_driver_codes_match_nvidia_case_by_case() {
    let exe = program("nodriver");
    let nv = results(&run_on_nvidia(&exe, &[]).stdout);
    let ours = results(
        &run(
            &exe,
            &[],
            &[
                ("LD_LIBRARY_PATH".into(), target_dir().display().to_string()),
                ("CUDART_SHIM_DRIVER".into(), "/nonexistent/libcuda.so.1".into()),
                ("CUDART_SHIM_LOG".into(), "off".into()),
            ],
        )
        .stdout,
    );
    assert!(nv.len() > 1500, "only {} cases ran with NVIDIA's library", nv.len());
    let diffs: Vec<String> =
        nv.iter().filter(|(k, v)| ours.get(*k) != Some(v)).map(|(k, v)| format!("{k}: NVIDIA {v}, ours {:?}", ours.get(k))).collect();
    assert!(diffs.is_empty(), "{} of {} cases differ, e.g.:\n{}", diffs.len(), nv.len(), diffs[..diffs.len().min(30)].join("\n"));
    eprintln!("{} cases, all equal", nv.len());
}

#[test]
fn fake_driver_no_case_crashes_or_hangs() {
    let exe = program("fake");
    let out = run(&exe, &[], &fake_env(&[("FAKE_CUDA_DEVICES", "2"), ("CUDART_SHIM_LOG", "off")]));
    let ours = results(&out.stdout);
    assert!(ours.len() > 1500, "only {} cases ran", ours.len());
    let ub = data("bad_input_ub.tsv");
    let bad: Vec<String> = ours
        .iter()
        .filter(|(k, v)| (v.starts_with("CRASH") || v.starts_with("TIMEOUT") || v.starts_with("EXIT")) && !ub.contains_key(*k))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    assert!(bad.is_empty(), "{} cases crashed, hung or exited:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
    let unknown: Vec<_> = ours.values().filter(|v| v.starts_with("unrecognized")).collect();
    assert!(unknown.is_empty(), "codes outside cudaError: {unknown:?}");
}

/// The GPU run's agreements stay agreements: every case where ours on an
/// H100 returned NVIDIA's code (tests/data/bad_input_gpu.tsv) must return
/// that code over the fake driver too, unless the fake driver is known to
/// answer differently from the real one (tests/data/bad_input_fake_diffs.tsv).
#[test]
fn fake_driver_keeps_every_code_that_matched_nvidia_on_the_gpu() {
    let exe = program("gpu-agreement");
    // One device, as on the H100 machine.
    let out = run(&exe, &[], &fake_env(&[("FAKE_CUDA_DEVICES", "1"), ("CUDART_SHIM_LOG", "off")]));
    let ours = results(&out.stdout);
    let gpu = data("bad_input_gpu.tsv");
    let fake_diffs = data("bad_input_fake_diffs.tsv");
    let agreed: Vec<(&String, &String)> =
        gpu.iter().filter(|(_, v)| v.len() == 2 && v[0] == v[1]).map(|(k, v)| (k, &v[0])).collect();
    assert!(agreed.len() > 1400, "only {} agreeing cases in the GPU data", agreed.len());
    let regressed: Vec<String> = agreed
        .iter()
        .filter(|(k, nv)| ours.get(*k) != Some(*nv) && !fake_diffs.contains_key(*k))
        .map(|(k, nv)| format!("{k}: NVIDIA {nv}, ours over the fake {:?}", ours.get(*k)))
        .collect();
    assert!(regressed.is_empty(), "{} cases no longer match NVIDIA:\n{}", regressed.len(), regressed.join("\n"));
}

/// NULL out-parameters of the getters where the H100 run found ours
/// answering differently from NVIDIA (tests/data/bad_input_gpu.tsv, the
/// NVIDIA column) and the runtime now follows NVIDIA's check order:
/// cudaMemGetInfo accepts either NULL (and writes the other, see
/// tests/memory.rs); the array getters check the handle first;
/// cudaDeviceGetTexture1DLinearMaxWidth checks the channel descriptor
/// before the device and the out-pointer. Over the
/// fake driver, ours must give NVIDIA's code for each.
#[test]
fn getters_with_a_null_out_parameter_answer_like_nvidia() {
    const FIXED: &[&str] = &[
        "cudaMemGetInfo#free=NULL",
        "cudaMemGetInfo#total=NULL",
        "cudaArrayGetPlane#pPlaneArray=NULL",
        "cudaGetMipmappedArrayLevel#levelArray=NULL",
        "cudaDeviceGetTexture1DLinearMaxWidth#maxWidthInElements=NULL",
        "cudaDeviceGetTexture1DLinearMaxWidth#device=-1",
        "cudaDeviceGetTexture1DLinearMaxWidth#device=99",
    ];
    let exe = program("null-getters");
    let out = run(&exe, &[], &fake_env(&[("FAKE_CUDA_DEVICES", "1"), ("CUDART_SHIM_LOG", "off")]));
    let ours = results(&out.stdout);
    let gpu = data("bad_input_gpu.tsv");
    for case in FIXED {
        let nvidia = &gpu.get(*case).unwrap_or_else(|| panic!("{case} is not in the GPU data"))[0];
        assert_eq!(ours.get(*case), Some(nvidia), "{case}: NVIDIA on the H100 answers {nvidia}");
    }
}
