//! The README's recipes, run as written (issue #33): each `sh` block is
//! read from README.md and every line runs in `sh -c` with `cudart-shim`
//! on the PATH, over the fake driver. What stands in for the user's
//! program: `./app` is tests/c/readme_app.c (four 32 MiB `cudaMalloc`s and
//! a synchronize) or, for the NVTX windows, tests/c/nvtx_app.c's
//! `profiler` mode; `python train.py` is the real python3 running a script
//! that calls the preloaded runtime through ctypes (the PyTorch script
//! itself runs on a GPU: gpu/checks/readme_pytorch.py). The install block
//! runs in python/tests/test_readme.py (it needs the wheel); the torchrun
//! recipe in tests/coexist.rs.

mod common;
use common::*;
use std::path::{Path, PathBuf};

/// The lines of the first fenced block of language `lang` after the
/// README line `heading` (before the next heading).
fn block(heading: &str, lang: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let mut lines = readme.lines().skip_while(|l| *l != heading);
    assert!(lines.next().is_some(), "README.md has no {heading:?}");
    let open = format!("```{lang}");
    let body: Vec<String> =
        lines.take_while(|l| !l.starts_with('#')).skip_while(|l| *l != open).skip(1).take_while(|l| *l != "```").map(str::to_owned).collect();
    assert!(!body.is_empty(), "no ```{lang} block under {heading:?}");
    body
}

/// A work folder holding `app` (a copy of `program`, or a script running
/// it with `args`).
fn work(test: &str, program: &Path, args: &[&str]) -> PathBuf {
    let dir = scratch(test).join("work");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    if args.is_empty() {
        std::fs::copy(program, dir.join("app")).unwrap();
    } else {
        let script = format!("#!/bin/sh\nexec {} {} \"$@\"\n", program.display(), args.join(" "));
        std::fs::write(dir.join("app"), script).unwrap();
        let mut p = std::fs::metadata(dir.join("app")).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut p, 0o755);
        std::fs::set_permissions(dir.join("app"), p).unwrap();
    }
    dir
}

/// One README line as a shell runs it in `dir`: `cudart-shim` (and a
/// `python`) on the PATH, the fake driver, none of the test's own tracing
/// variables; `extra` for what stands in for the GPU (a fault of the fake
/// driver). Returns (status, stdout, stderr).
fn sh(dir: &Path, line: &str, extra: &[(&str, &str)]) -> (i32, String, String) {
    let bin = dir.parent().unwrap().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let python = bin.join("python");
    if !python.exists() {
        let py3 = std::env::split_paths(&std::env::var_os("PATH").unwrap()).map(|d| d.join("python3")).find(|p| p.is_file()).expect("python3 on the PATH");
        std::os::unix::fs::symlink(py3, &python).unwrap();
    }
    let path = format!("{}:{}:{}", target_dir().display(), bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut c = std::process::Command::new("sh");
    c.arg("-c").arg(line).current_dir(dir).env("PATH", &path).env("CUDART_SHIM_DRIVER", fake_driver());
    for v in ["CUDART_SHIM_TRACE", "CUDART_SHIM_TRACE_DRIVER", "LD_PRELOAD", "LD_LIBRARY_PATH", "CUDART_SHIM_LIBRARY", "CUDART_SHIM_FAULTS"] {
        c.env_remove(v);
    }
    c.envs(extra.iter().copied());
    let o = c.output().unwrap();
    let (out, err) = output_text(&o);
    (o.status.code().unwrap_or(-1), out, err)
}

fn readme_app(test: &str) -> PathBuf {
    let dir = scratch(test);
    compile_c_cudart(&repo_root().join("tests/c/readme_app.c"), &dir.join("readme_app"), &[])
}

fn ok(dir: &Path, line: &str) -> (String, String) {
    let (code, out, err) = sh(dir, line, &[]);
    assert_eq!(code, 0, "{line}\n{out}\n{err}");
    (out, err)
}

#[test]
fn trace_a_program() {
    let lines = block("### Trace a program", "sh");
    assert_eq!(lines.len(), 3, "{lines:?}");
    let dir = work("readme_trace", &readme_app("readme_trace"), &[]);
    let (out, err) = ok(&dir, &lines[0]);
    assert!(out.contains("malloc 3: cudaSuccess"), "{out}");
    assert!(err.contains("CUDA API Summary") && summary_calls(&err, "cudaMalloc") == Some(4), "{err}");
    let (_, err) = ok(&dir, &lines[1]);
    assert!(err.lines().filter(|l| l.starts_with("[cudart-shim] tid=") && l.contains(" cudaMalloc(")).count() == 4, "the call log: {err}");
    assert!(dir.join("app.pftrace").is_file(), "{err}");
    let (out, _) = ok(&dir, &lines[2]);
    assert_eq!(summary_calls(&out, "cudaMalloc"), Some(4), "{out}");
}

#[test]
fn pytorch_recipe_with_a_stand_in_for_torch() {
    let lines = block("### PyTorch", "sh");
    assert_eq!(lines.len(), 2, "{lines:?}");
    // The README's train.py needs torch (the GPU check runs it); this one
    // calls the preloaded runtime, as torch would.
    assert!(block("### PyTorch", "python").iter().any(|l| l.contains("cudart_shim.counters()")));
    let dir = work("readme_pytorch", Path::new("/bin/true"), &[]);
    std::fs::write(
        dir.join("train.py"),
        "import ctypes\ncuda = ctypes.CDLL('libcudart.so.13')\np = ctypes.c_void_p()\nfor _ in range(3):\n    assert cuda.cudaMalloc(ctypes.byref(p), 1 << 20) == 0\n    assert cuda.cudaFree(p) == 0\nprint('trained')\n",
    )
    .unwrap();
    let (out, err) = ok(&dir, &lines[0]);
    assert!(out.contains("trained") && summary_calls(&err, "cudaMalloc") == Some(3), "{out}\n{err}");
    assert!(dir.join("train.pftrace").is_file(), "{err}");
    let (out, _) = ok(&dir, &lines[1]);
    assert_eq!(summary_calls(&out, "cudaFree"), Some(3), "{out}");
}

#[test]
fn limits_and_faults() {
    let lines = block("### Limits and faults", "sh");
    assert_eq!(lines.len(), 3, "{lines:?}");
    let dir = work("readme_limits", &readme_app("readme_limits"), &[]);
    // 64 MiB on device 0: two of the four 32 MiB allocations fit.
    let (out, _) = ok(&dir, &lines[0]);
    assert!(out.contains("malloc 1: cudaSuccess\nmalloc 2: cudaErrorMemoryAllocation\nmalloc 3: cudaErrorMemoryAllocation"), "{out}");
    // The third cudaMalloc fails, the fourth works.
    let (out, _) = ok(&dir, &lines[1]);
    assert!(out.contains("malloc 1: cudaSuccess\nmalloc 2: cudaErrorMemoryAllocation\nmalloc 3: cudaSuccess"), "{out}");
    let (_, err) = ok(&dir, &lines[2]);
    assert!(err.contains("CUDA Memory by Device, Library and Kind") && err.contains("Leaks: 4 allocation(s)"), "{err}");
}

#[test]
fn nvtx_windows() {
    let lines = block("### NVTX windows", "sh");
    assert_eq!(lines.len(), 2, "{lines:?}");
    let app = scratch("readme_nvtx").join("nvtx_app");
    compile_c_cudart(&repo_root().join("tests/c/nvtx_app.c"), &app, &[&format!("-I{}", nvtx_include().display()), "-lpthread", "-ldl"]);
    let dir = work("readme_nvtx", &app, &["profiler"]);
    for line in &lines {
        let (_, err) = ok(&dir, line);
        // The window: the 3 steps of `outer`, not the 2 after it nor `before`.
        let nvtx = err.split(" ** NVTX Range Summary (nvtx_sum)").nth(1).unwrap_or_else(|| panic!("{line}: no nvtx_sum table\n{err}"));
        let nvtx = nvtx.split("\n ** ").next().unwrap();
        assert!(nvtx.contains("outer") && !nvtx.contains("before"), "{line}\n{nvtx}");
        assert_eq!(summary_calls(nvtx, "step"), Some(3), "{line}\n{nvtx}");
    }
}

#[test]
fn the_flight_recorder() {
    let lines = block("### The flight recorder", "sh");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let dir = work("readme_recorder", &readme_app("readme_recorder"), &[]);
    // An illegal address, as the fake driver plays one.
    let (code, out, err) = sh(&dir, &lines[0], &[("FAKE_CUDA_FAIL", "cuCtxSynchronize:0:700")]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("synchronize: cudaErrorIllegalAddress"), "{out}");
    assert!(err.contains("cudart-shim recorder: cudaDeviceSynchronize returned cudaErrorIllegalAddress (a sticky error)"), "{err}");
    let mut files: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with("cudart-shim-recorder-")).collect();
    files.sort();
    assert!(files.len() == 2 && files[0].ends_with(".log") && files[1].ends_with(".pftrace"), "{files:?}");
}
