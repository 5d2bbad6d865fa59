//! The NULL-argument probe of the getters (tests/cu/null_args.cu, built by
//! nvcc) on the shim over the fake driver. On a GPU, `gpu/checks/null_args.py`
//! runs the same program with NVIDIA's runtime and ours and writes both
//! columns; here it must run to the end, and the answers this runtime
//! takes from NVIDIA's (H100, tests/data/bad_input_gpu.tsv) must hold.

mod common;
use common::*;
use std::collections::BTreeMap;

#[test]
fn probe_runs_and_memory_info_accepts_null() {
    let dir = scratch("null_args");
    let exe = compile_cu(&[&repo_root().join("tests/cu/null_args.cu")], &dir.join("null_args"), &["-w"]);
    let out = run_on_fake(&exe, &[], &[("FAKE_CUDA_DEVICES", "1"), ("CUDART_SHIM_LOG", "off")]);
    assert!(out.ends_with("done\n"), "{out}");
    let lines: BTreeMap<&str, &str> = out.lines().filter_map(|l| l.split_once('\t')).collect();
    assert!(lines.len() > 40, "{out}");
    // cudaMemGetInfo: NULL out-pointers are allowed, the other is written,
    // and nothing lands in the last error; also as the process's first call.
    for case in ["cudaMemGetInfo(NULL,NULL) first call", "cudaMemGetInfo(NULL,NULL)"] {
        assert_eq!(lines[case], "cudaSuccess last=cudaSuccess", "{case}");
    }
    for case in ["cudaMemGetInfo(&free,NULL)", "cudaMemGetInfo(NULL,&total)"] {
        assert_eq!(lines[case], "cudaSuccess last=cudaSuccess out=written", "{case}");
    }
    // A NULL out-pointer of the other getters is cudaErrorInvalidValue and
    // becomes the last error (the code is NVIDIA's in the GPU data).
    for case in [
        "cudaDeviceGetAttribute(NULL,warpSize,0)",
        "cudaDeviceGetLimit(NULL,stackSize)",
        "cudaPointerGetAttributes(NULL,device)",
        "cudaFuncGetAttributes(NULL,kernel)",
        "cudaMemPoolGetAttribute(pool,releaseThreshold,NULL)",
        "cudaStreamGetPriority(s,NULL)",
        "cudaEventElapsedTime(NULL,a,b)",
    ] {
        assert_eq!(lines[case], "cudaErrorInvalidValue last=cudaErrorInvalidValue", "{case}");
    }
    // Either priority may be NULL (GPU data: both cudaSuccess).
    assert_eq!(lines["cudaDeviceGetStreamPriorityRange(NULL,NULL)"], "cudaSuccess last=cudaSuccess");
}
