//! The project's own API (`cudartShim*`, include/cudart_shim_ext.h) and the
//! caching allocator in the CUDA 12 library: a program built on NVIDIA's
//! 12.9 headers, linked to our `libcudart.so.12`, over the fake driver
//! (tests/header.rs and tests/cache.rs do the same for 13).
//!
//! Needs scripts/setup-cuda12 (scripts/test runs it); fails without it.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::Command;

/// 12.9's runtime headers and nvcc's `crt/` beside them.
fn nvidia12_includes() -> [String; 2] {
    let c = cuda12();
    [format!("-I{}", c.join("nvidia/cuda_runtime/include").display()), format!("-I{}", c.join("nvidia/cuda_nvcc/include").display())]
}

fn syntax_check(compiler: &str, std: &str, text: &str, file: &str) {
    let dir = scratch("abi12_own_api/syntax");
    let src = dir.join(file);
    std::fs::write(&src, text).unwrap();
    let out = Command::new(compiler)
        .args(["-fsyntax-only", "-Wall", "-Wextra", "-Werror", std])
        .args(nvidia12_includes())
        .arg(format!("-I{}", repo_root().join("include").display()))
        .arg(&src)
        .output()
        .unwrap();
    assert!(out.status.success(), "{compiler} {std} {file}:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// `cudart_shim_ext.h` after 12.9's `cuda_runtime_api.h` or
/// `cuda_runtime.h`, and alone (it then includes `cuda_runtime_api.h`,
/// here 12.9's), in C and C++.
#[test]
fn ext_header_compiles_after_nvidia_12_9_headers() {
    let use_it = "static cudaError_t counted(void) {\n  cudartShimCounter c;\n  cudartShimPoolStats s;\n  (void)cudartShimGetPoolStats(0, 0, &s);\n  return cudartShimGetCounter(\"cudaMalloc\", &c);\n}\nint main(void) { return counted() == cudaSuccess ? 0 : 1; }\n";
    for first in ["#include <cuda_runtime_api.h>\n", "#include <cuda_runtime.h>\n", ""] {
        // 12.9's headers: CUDART_VERSION 12090 proves which ones were read.
        let text = format!("{first}#include <cudart_shim_ext.h>\n_Static_assert(CUDART_VERSION == 12090, \"12.9\");\n{use_it}");
        syntax_check("cc", "-std=c11", &text, "ext12.c");
        syntax_check("c++", "-std=c++17", &text.replace("_Static_assert", "static_assert"), "ext12.cpp");
    }
}

/// tests/cu12/own_api12.c, built on 12.9's headers and linked to our
/// `libcudart.so.12` (the name in target/<profile>, found by rpath).
fn own_api_program(test: &str) -> PathBuf {
    let t = target_dir();
    let exe = scratch(&format!("abi12_own_api/{test}")).join("own_api12");
    let out = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Werror"])
        .args(nvidia12_includes())
        .arg(format!("-I{}", repo_root().join("include").display()))
        .arg(repo_root().join("tests/cu12/own_api12.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", t.display()))
        .arg(format!("-Wl,-rpath,{}", t.display()))
        .arg("-l:libcudart.so.12")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let needed = Command::new("readelf").arg("-dW").arg(&exe).output().unwrap();
    let needed = String::from_utf8_lossy(&needed.stdout);
    assert!(needed.contains("Shared library: [libcudart.so.12]") && !needed.contains("libcudart.so.13"), "{needed}");
    exe
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn subscriber_counters_and_flush_work_in_a_cuda_12_program() {
    let exe = own_api_program("counters");
    let out = run_on_fake(&exe, &[], &[("CUDART_SHIM_LOG", "off")]);
    let l = lines(&out);
    assert!(l.contains(&"runtime 12090 header 12090"), "{out}");
    assert!(l.contains(&"subscribe 0") && l.contains(&"counters 0") && l.contains(&"unsubscribe 0") && l.contains(&"flush 0"), "{out}");
    // Runtime calls seen by the subscriber: 1 device count, 5 mallocs, 5
    // frees, 1 synchronize before the print (the version call came before
    // the subscription; the shim's own calls are never delivered).
    assert!(l.contains(&"devices 1 subscriber entered 12 exited 12 depth 0 malloc 5"), "{out}");
    assert!(l.contains(&"counter 0 cudaMalloc calls 5 failed 0"), "{out}");
    assert!(l.contains(&"after unsubscribe entered 12"), "{out}");
    // Without CUDART_SHIM_POOL the allocator is off: all-zero statistics.
    assert!(l.contains(&"pool stats 0 held>0 0 active 0 hits 0 misses 0"), "{out}");
}

#[test]
fn caching_allocator_serves_a_cuda_12_program() {
    let exe = own_api_program("pool");
    let out = run_on_fake(&exe, &[], &[("CUDART_SHIM_LOG", "off"), ("CUDART_SHIM_POOL", "1")]);
    let l = lines(&out);
    // Four misses share one 2 MiB segment; the fifth malloc, after the frees
    // and a synchronize, is served from the cache.
    assert!(l.contains(&"pool stats 0 held>0 1 active 1 hits 4 misses 1"), "{out}");
    assert!(l.contains(&"counter 0 cudaMalloc calls 5 failed 0"), "{out}");
}
