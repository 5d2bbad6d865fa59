//! Shared test equipment: where the built libraries are, the fake driver,
//! compiling and running C and CUDA programs.
//!
//! Tests run under `cargo nextest` (one process per test), after
//! `cargo build --workspace` has built the shim and the fake driver; the
//! README's test command does both. In-process tests pick the fake driver
//! with [`use_fake_driver`] before their first CUDA call.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod programs;

/// `target/<profile>`, found from the test executable (`.../deps/<test>`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A reference list under `tests/data/abi/` (NVIDIA's export lists, PyTorch's
/// imports; each file's `#` lines say where it came from): its names, one per
/// whitespace-separated word, comment lines skipped.
#[allow(dead_code)]
pub fn abi_list(file: &str) -> Vec<String> {
    let p = repo_root().join("tests/data/abi").join(file);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines().filter(|l| !l.starts_with('#')).flat_map(str::split_whitespace).map(str::to_owned).collect()
}

fn built(name: &str) -> PathBuf {
    let p = target_dir().join(name);
    assert!(
        p.exists(),
        "{} is missing: run `cargo build --workspace` first (scripts/test does)",
        p.display()
    );
    p
}

/// The shim as built (`libcudart_shim.so`).
pub fn shim_lib() -> PathBuf {
    built("libcudart_shim.so")
}

/// The CUDA 12 library as built (`libcudart_shim12.so`, package cuda12/).
pub fn shim12_lib() -> PathBuf {
    built("libcudart_shim12.so")
}

/// The fake driver (`libfake_cuda.so`, SONAME libcuda.so.1).
pub fn fake_driver() -> PathBuf {
    built("libfake_cuda.so")
}

/// Point this process's shim at the fake driver, with fake-driver knobs
/// (`FAKE_CUDA_*`). Call before the first CUDA call of the test.
pub fn use_fake_driver(knobs: &[(&str, &str)]) {
    // SAFETY: nextest runs each test in its own process; this runs before
    // any thread of ours reads the environment.
    unsafe {
        std::env::set_var("CUDART_SHIM_DRIVER", fake_driver());
        for (k, v) in knobs {
            std::env::set_var(k, v);
        }
    }
}

/// Environment for a child process that runs on the shim over the fake driver.
pub fn fake_env(knobs: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut env = vec![
        ("CUDART_SHIM_DRIVER".to_owned(), fake_driver().display().to_string()),
        ("LD_LIBRARY_PATH".to_owned(), target_dir().display().to_string()),
    ];
    env.extend(knobs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    env
}

/// The pinned CUDA 12.9 wheels (scripts/setup-cuda12); a test that needs
/// them fails, never skips, without them.
pub fn cuda12() -> PathBuf {
    let p = std::env::var_os("CUDART_SHIM_CUDA12_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".cache/cuda12"));
    assert!(p.join(".installed").exists(), "the pinned CUDA 12.9 wheels are not installed: run scripts/setup-cuda12 (scripts/test does)");
    p
}

/// The pinned CUDA 13.0 wheels (scripts/setup-cuda), or None if not installed.
pub fn cuda_cache() -> Option<PathBuf> {
    let p = std::env::var_os("CUDART_SHIM_CUDA_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".cache/cuda"));
    p.join(".installed").exists().then_some(p)
}

/// The CUDA cache, or a panic that says how to get it. Tests that need
/// NVIDIA's headers, library or nvcc fail (never skip) without it.
pub fn require_cuda() -> PathBuf {
    cuda_cache().expect("the pinned CUDA 13.0 wheels are not installed: run scripts/setup-cuda (scripts/test does)")
}

/// NVIDIA's NVTX3 headers (`nvidia-nvtx`, installed by scripts/setup-cuda
/// into .cache/cuda/nvtx, or `CUDART_SHIM_NVTX_CACHE`): the folder holding
/// `nvtx3/`. A test that needs them fails, never skips, without them.
#[allow(dead_code)] // not every test binary uses it
pub fn nvtx_include() -> PathBuf {
    let p = std::env::var_os("CUDART_SHIM_NVTX_CACHE").map(PathBuf::from).unwrap_or_else(|| require_cuda().join("nvtx"));
    assert!(p.join(".installed").exists(), "NVIDIA's NVTX3 headers are not installed in {}: run scripts/setup-cuda (scripts/test does)", p.display());
    p.join("nvidia/cu13/include")
}

pub fn cuda_include() -> PathBuf {
    require_cuda().join("nvidia/cu13/include")
}

/// NVIDIA's libcudart.so.13 folder, for differential runs.
pub fn nvidia_lib_dir() -> PathBuf {
    require_cuda().join("nvidia/cu13/lib")
}

pub fn nvcc() -> PathBuf {
    require_cuda().join("nvidia/cu13/bin/nvcc")
}

/// A scratch folder for this test's build products.
pub fn scratch(test: &str) -> PathBuf {
    let d = target_dir().join("test-scratch").join(test);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn check(what: &str, out: Output) -> Output {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Extra flags for every C program linked to the shim, from
/// `CUDART_SHIM_TEST_CFLAGS` (scripts/tsan builds them with ThreadSanitizer,
/// as the library is).
fn test_cflags() -> Vec<String> {
    std::env::var("CUDART_SHIM_TEST_CFLAGS").unwrap_or_default().split_whitespace().map(str::to_owned).collect()
}

/// Compile a C program against `include/cudart_shim.h` and link it to the
/// shim (`-lcudart_shim`, rpath to the target folder).
pub fn compile_c_shim(src: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    let t = target_dir();
    let o = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Werror", "-g"])
        .args(test_cflags())
        .arg("-I")
        .arg(repo_root().join("include"))
        .arg(src)
        .arg("-o")
        .arg(out)
        .arg(format!("-L{}", t.display()))
        .arg(format!("-Wl,-rpath,{}", t.display()))
        .args(extra)
        .arg("-lcudart_shim")
        .output()
        .unwrap();
    check(&format!("cc {}", src.display()), o);
    out.to_path_buf()
}

/// Compile a C program against NVIDIA's headers and link it to
/// `libcudart.so.13` (NVIDIA's at link time; the library path picks which
/// one runs).
pub fn compile_c_cudart(src: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    compile_c_cudart_with(&require_cuda(), src, out, extra)
}

/// [`compile_c_cudart`] with the headers and link library of the wheels in
/// `cuda` (the 13.0 folder, or [`cuda135`]).
pub fn compile_c_cudart_with(cuda: &Path, src: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    let o = Command::new("cc")
        .args(["-Wall", "-g"])
        .arg("-I")
        .arg(cuda.join("nvidia/cu13/include"))
        .arg(src)
        .arg("-o")
        .arg(out)
        .arg(format!("-L{}", cuda.join("linklib").display()))
        .args(extra)
        .arg("-lcudart")
        .output()
        .unwrap();
    check(&format!("cc {}", src.display()), o);
    out.to_path_buf()
}

/// The pinned CUDA 13.5 wheels (scripts/setup-cuda installs them in
/// `13.5/` beside 13.0): headers, NVIDIA's 13.5 libcudart.so.13, an nvcc.
/// CUDA 13.5's headers (the pinned 13.5 wheels): the authority for the
/// types and constants ours declares.
#[allow(dead_code)]
pub fn cuda135_include() -> PathBuf {
    cuda135().join("nvidia/cu13/include")
}

pub fn cuda135() -> PathBuf {
    let p = require_cuda().join("13.5");
    assert!(p.join(".installed").exists(), "the pinned CUDA 13.5 wheels are not installed: run scripts/setup-cuda (scripts/test does)");
    p
}

/// Compile a CUDA program with the pinned nvcc (`-cudart shared`, sm_90).
pub fn compile_cu(srcs: &[&Path], out: &Path, extra: &[&str]) -> PathBuf {
    compile_cu_with(&require_cuda(), srcs, out, extra)
}

/// [`compile_cu`] of one source, once per version of its text: the program
/// is built in `scratch(name)` under a name of its own (with the source's
/// hash) and renamed into place, never run while it is written, so the
/// tests of several processes (nextest) that use it build it at most once
/// each and share it after.
pub fn compile_cu_once(name: &str, src: &Path, extra: &[&str]) -> PathBuf {
    let dir = scratch(name);
    let text = std::fs::read(src).unwrap();
    let hash = text.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let exe = dir.join(format!("{name}-{hash:016x}"));
    if !exe.exists() {
        let tmp = dir.join(format!("{name}-{hash:016x}.{}", std::process::id()));
        compile_cu(&[src], &tmp, extra);
        std::fs::rename(&tmp, &exe).unwrap();
    }
    exe
}

/// Compile a CUDA program with the nvcc of the wheels in `cuda` (the 13.0
/// folder, or [`cuda135`]).
pub fn compile_cu_with(cuda: &Path, srcs: &[&Path], out: &Path, extra: &[&str]) -> PathBuf {
    let o = Command::new(cuda.join("nvidia/cu13/bin/nvcc"))
        .args(["-cudart", "shared", "-arch=sm_90", "-O1"])
        .args(srcs)
        .arg("-o")
        .arg(out)
        .arg(format!("-L{}", cuda.join("linklib").display()))
        .arg(format!("-L{}", cuda.join("nvidia/cu13/lib").display()))
        .args(extra)
        .output()
        .unwrap();
    check(&format!("nvcc {:?}", srcs), o);
    out.to_path_buf()
}

/// Run a program with extra environment; returns its output (no check).
pub fn run(program: &Path, args: &[&str], env: &[(String, String)]) -> Output {
    Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap()
}

/// Run a program on the shim over the fake driver; asserts success.
pub fn run_on_fake(program: &Path, args: &[&str], knobs: &[(&str, &str)]) -> String {
    let out = check(&format!("{}", program.display()), run(program, args, &fake_env(knobs)));
    String::from_utf8(out.stdout).unwrap()
}

/// Run a program linked to libcudart.so.13 with NVIDIA's library and no
/// driver reachable.
pub fn run_on_nvidia(program: &Path, args: &[&str]) -> Output {
    run(
        program,
        args,
        &[("LD_LIBRARY_PATH".to_owned(), nvidia_lib_dir().display().to_string())],
    )
}

/// Run a program linked to libcudart.so.13 with NVIDIA's library of the
/// wheels in `cuda` (the 13.0 folder, or [`cuda135`]) and no driver.
pub fn run_on_nvidia_with(cuda: &Path, program: &Path, args: &[&str]) -> Output {
    run(program, args, &[("LD_LIBRARY_PATH".to_owned(), cuda.join("nvidia/cu13/lib").display().to_string())])
}

/// Run a program linked to libcudart.so.13 with ours by library path and a
/// driver path that cannot load: "no driver".
pub fn run_on_ours_without_driver(program: &Path, args: &[&str]) -> Output {
    run(
        program,
        args,
        &[
            ("LD_LIBRARY_PATH".into(), target_dir().display().to_string()),
            ("CUDART_SHIM_DRIVER".into(), "/nonexistent/libcuda.so.1".into()),
            ("CUDART_SHIM_LOG".into(), "off".into()),
        ],
    )
}

/// `ours` printed what NVIDIA's run printed (`nv`): line by line, the
/// first differing line named, then the line counts.
pub fn assert_same_lines(nv: &str, ours: &str) {
    for (i, (a, b)) in nv.lines().zip(ours.lines()).enumerate() {
        assert_eq!(a, b, "line {} differs (left: NVIDIA, right: cudart-shim)", i + 1);
    }
    assert_eq!(nv.lines().count(), ours.lines().count(), "line counts differ");
}

#[path = "fatbin.rs"]
mod fatbin;
#[allow(unused_imports)] // not every test binary uses it
pub use fatbin::fatbin_wrapper;

/// The fake driver's control API, reached through the copy the shim loaded.
pub mod fake {
    use std::ffi::{CString, c_char, c_int};

    /// Same path as CUDART_SHIM_DRIVER, so dlopen returns the copy the shim
    /// uses (or loads the one it will use). Kept open for the whole test:
    /// closing the last reference would unload it and lose its state.
    fn lib() -> &'static libloading::Library {
        static LIB: std::sync::OnceLock<libloading::Library> = std::sync::OnceLock::new();
        LIB.get_or_init(|| unsafe { libloading::Library::new(super::fake_driver()) }.unwrap())
    }

    /// A driver entry point, as `cuGetProcAddress(name, 13000)` returns it.
    pub fn proc(name: &str) -> *mut std::ffi::c_void {
        type Gpa = unsafe extern "C" fn(*const c_char, *mut *mut std::ffi::c_void, c_int, u64, *mut c_int) -> c_int;
        let f: libloading::Symbol<Gpa> = unsafe { lib().get(b"cuGetProcAddress_v2\0") }.unwrap();
        let n = CString::new(name).unwrap();
        let mut p = std::ptr::null_mut();
        let mut status = 0;
        assert_eq!(
            unsafe { f(n.as_ptr(), &mut p, 13000, 0, &mut status) },
            0,
            "fake driver has no {name}"
        );
        p
    }

    /// A test-control function of the fake driver (`fake_cuda_*`), by name;
    /// `F` is its `unsafe extern "C" fn` type.
    pub fn control<F: Copy>(name: &str) -> F {
        let n = CString::new(name).unwrap();
        let f: libloading::Symbol<F> = unsafe { lib().get(n.as_bytes_with_nul()) }.unwrap();
        *f
    }

    /// Calls of driver entry point `name` so far.
    pub fn calls(name: &str) -> u64 {
        let l = lib();
        let f: libloading::Symbol<unsafe extern "C" fn(*const c_char) -> u64> = unsafe { l.get(b"fake_cuda_calls\0") }.unwrap();
        let n = CString::new(name).unwrap();
        unsafe { f(n.as_ptr()) }
    }

    /// Make the nth next call of `name` (0: every call) return `code`.
    pub fn fail(name: &str, nth: u64, code: c_int) {
        let l = lib();
        let f: libloading::Symbol<unsafe extern "C" fn(*const c_char, u64, c_int)> = unsafe { l.get(b"fake_cuda_fail\0") }.unwrap();
        let n = CString::new(name).unwrap();
        unsafe { f(n.as_ptr(), nth, code) }
    }
}

/// The `cudart-shim` command over the fake driver (`CUDART_SHIM_DRIVER`,
/// which our runtimes and the interposer read), with none of the caller's
/// tracing, preload, library-path or library choice inherited.
pub fn cli_on_fake() -> Command {
    let exe = target_dir().join("cudart-shim");
    assert!(exe.exists(), "{} is missing: run `cargo build --workspace`", exe.display());
    let mut c = Command::new(exe);
    c.env("CUDART_SHIM_DRIVER", fake_driver());
    for v in ["CUDART_SHIM_TRACE", "CUDART_SHIM_TRACE_DRIVER", "LD_PRELOAD", "LD_LIBRARY_PATH", "CUDART_SHIM_LIBRARY"] {
        c.env_remove(v);
    }
    c
}

/// A finished command's stdout and stderr as text.
pub fn output_text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// `Num Calls` of `name` in a text summary.
pub fn summary_calls(table: &str, name: &str) -> Option<u64> {
    let l = table.lines().find(|l| l.ends_with(&format!("  {name}")))?;
    l.split_whitespace().nth(2)?.replace(',', "").parse().ok()
}

/// Wait for `child` at most `secs` seconds; past that, kill it and fail
/// with `what` (a test of something that must not hang fails, not stalls).
pub fn wait_or_fail(child: &mut std::process::Child, secs: u64, what: &str) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not finish in {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Perfetto's Python classes' reading of a protobuf timeline
/// (tests/perfetto_check.py); the package is installed by
/// scripts/setup-perfetto-py (scripts/test runs it).
pub fn perfetto_check(file: &Path) -> serde_json::Value {
    let py = std::env::var_os("CUDART_SHIM_PERFETTO_PY").map_or_else(|| repo_root().join(".cache/perfetto-py"), PathBuf::from);
    assert!(py.join("perfetto").is_dir(), "{} is missing: run scripts/setup-perfetto-py", py.display());
    let o = std::process::Command::new("python3")
        .arg(repo_root().join("tests/perfetto_check.py"))
        .arg(file)
        .env("PYTHONPATH", &py)
        .env("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")
        .output()
        .unwrap();
    assert!(o.status.success(), "Perfetto's classes failed on {}:\n{}", file.display(), String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}
