//! The CUDA 12 GPU suite (issue #20; docs/CUDA12.md, "The GPU suite for
//! CUDA 12"), checked without a GPU:
//!
//! - every tests/gpu and tests/gpu12 program builds with scripts/nvcc12 as
//!   `gpu/checks/conformance/conformance.py --abi 12 --prepare` builds it, records NEEDED
//!   libcudart.so.12 (never .so.13), and imports only 12.9 exports, each
//!   `@libcudart.so.12`; the -rdc=true programs are the only ones left out;
//!   together the tests/gpu12 programs call every export only 12.9 has
//!   (apart from the per-thread twins);
//! - the tests/gpu12 programs that the fake driver can run do so on our
//!   libcudart.so.12 and print what they must;
//! - the tests/gpu programs that the fake can run print, built for 12, what
//!   their CUDA 13 build prints on our libcudart.so.13, apart from the lines of
//!   13-only calls.
//!
//! The fake runs no kernel code, so programs that check a kernel's results
//! are built and checked here but run only on a GPU. coop_multi_device12 is
//! one of them: once the call launches, its kernel must really run.
//!
//! Needs scripts/setup-cuda and scripts/setup-cuda12 (scripts/test runs both).

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A program of tests/gpu or tests/gpu12: name, sources, flags of its
/// `// nvcc:` first line.
struct Prog {
    name: String,
    srcs: Vec<PathBuf>,
    flags: Vec<String>,
}

fn programs(dir: &str) -> Vec<Prog> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(repo_root().join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let srcs: Vec<PathBuf> = if p.extension().is_some_and(|e| e == "cu") {
            vec![p.clone()]
        } else if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()).filter(|f| f.extension().is_some_and(|e| e == "cu")).collect();
            v.sort();
            v
        } else {
            continue;
        };
        if srcs.is_empty() {
            continue;
        }
        let first = std::fs::read_to_string(&srcs[0]).unwrap().lines().next().unwrap_or("").to_owned();
        let flags = first.split_once("nvcc:").map(|(_, f)| f.split_whitespace().map(str::to_owned).collect()).unwrap_or_default();
        out.push(Prog { name, srcs, flags });
    }
    out
}

fn find(name: &str) -> Prog {
    programs("tests/gpu").into_iter().chain(programs("tests/gpu12")).find(|p| p.name == name).unwrap_or_else(|| panic!("no program {name}"))
}

/// Build for CUDA 12 as the conformance12 GPU check's prepare does (scripts/nvcc12,
/// sm_90, the unbuffered-stdout header, the program's own flags).
fn build12(p: &Prog, dir: &Path) -> Result<PathBuf, String> {
    let exe = dir.join(&p.name);
    let out = Command::new(repo_root().join("scripts/nvcc12"))
        .args(["-arch=sm_90", "-O1", "-Xcompiler", "-Wno-deprecated-declarations", "-include"])
        .arg(repo_root().join("tests/gpu/unbuffered.h"))
        .args(&p.flags)
        .args(&p.srcs)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    if out.status.success() { Ok(exe) } else { Err(format!("{}: {}", p.name, String::from_utf8_lossy(&out.stderr))) }
}

/// The same program built by the pinned nvcc 13 (what the conformance GPU check builds on a
/// CUDA 13 machine, for sm_90).
fn build13(p: &Prog, dir: &Path) -> PathBuf {
    let mut extra: Vec<&str> = vec!["-Xcompiler", "-Wno-deprecated-declarations", "-include"];
    let unbuffered = repo_root().join("tests/gpu/unbuffered.h");
    extra.push(unbuffered.to_str().unwrap());
    extra.extend(p.flags.iter().map(String::as_str));
    let srcs: Vec<&Path> = p.srcs.iter().map(PathBuf::as_path).collect();
    compile_cu(&srcs, &dir.join(format!("{}-13", p.name)), &extra)
}

fn tool(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The program's undefined CUDA runtime symbols (cuda*, __cuda*), as NAME@VERSION.
fn cuda_imports(exe: &Path) -> Vec<String> {
    tool(Command::new("nm").args(["-D", "--undefined-only"]).arg(exe))
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|s| s.starts_with("cuda") || s.starts_with("__cuda"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_gpu_program_builds_for_cuda12_and_imports_only_12_9() {
    cuda12();
    require_cuda();
    let all: Vec<Prog> = programs("tests/gpu").into_iter().chain(programs("tests/gpu12")).collect();
    assert!(all.len() >= 30, "only {} programs", all.len());
    // The -rdc=true programs cannot be CUDA 12 programs (scripts/nvcc12
    // refuses them); the conformance12 check reports them as not buildable.
    let (rdc, progs): (Vec<&Prog>, Vec<&Prog>) = all.iter().partition(|p| p.flags.iter().any(|f| f == "-rdc=true"));
    assert_eq!(rdc.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["kernels_rdc"]);

    let dir = scratch("gpu12_programs/all");
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    // Two builders: the machine this runs on may have two cores.
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = progs.get(i) else { break };
                    let r = build12(p, &dir);
                    results.lock().unwrap().push((p.name.clone(), r));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let failed: Vec<&String> = results.iter().filter_map(|(_, r)| r.as_ref().err()).collect();
    assert!(failed.is_empty(), "not built for CUDA 12:\n{}", failed.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"));
    assert_eq!(results.len(), progs.len());

    let exports12: BTreeSet<String> = abi_list("libcudart12-exports.txt").into_iter().collect();
    let exports13: BTreeSet<String> = abi_list("libcudart13-exports.txt").into_iter().collect();
    let mut imported_by_gpu12 = BTreeSet::new();
    for (name, r) in &results {
        let exe = r.as_ref().unwrap();
        let dynamic = tool(Command::new("readelf").arg("-d").arg(exe));
        assert!(dynamic.contains("Shared library: [libcudart.so.12]"), "{name}: {dynamic}");
        assert!(!dynamic.contains("libcudart.so.13"), "{name}: {dynamic}");
        let imports = cuda_imports(exe);
        assert!(!imports.is_empty(), "{name} imports no CUDA runtime symbol");
        for s in &imports {
            let (sym, ver) = s.split_once('@').unwrap_or_else(|| panic!("{name}: {s} carries no version"));
            assert_eq!(ver, "libcudart.so.12", "{name}: {s}");
            assert!(exports12.contains(sym), "{name}: {sym} is not one of 12.9's exports");
            if programs("tests/gpu12").iter().any(|p| &p.name == name) {
                imported_by_gpu12.insert(sym.to_owned());
            }
        }
    }
    // Together the tests/gpu12 programs call every export only 12.9 has,
    // apart from the per-thread twins of calls they make on created streams.
    let only12: Vec<&String> = exports12.difference(&exports13).filter(|s| !s.ends_with("_ptsz") && !s.ends_with("_ptds")).collect();
    assert!(only12.len() >= 20, "{only12:?}");
    let missing: Vec<&&String> = only12.iter().filter(|s| !imported_by_gpu12.contains(s.as_str())).collect();
    assert!(missing.is_empty(), "12-only exports no tests/gpu12 program calls: {missing:?}");
    // And the plain forms whose 12 signature differs from 13's (12.9's
    // header hides some of them behind their _v2 forms; check12.h names them).
    for plain in [
        "cudaGetDeviceProperties",
        "cudaStreamGetCaptureInfo",
        "cudaMemPrefetchAsync",
        "cudaMemAdvise",
        "cudaGraphGetEdges",
        "cudaGraphNodeGetDependencies",
        "cudaGraphNodeGetDependentNodes",
        "cudaGraphAddDependencies",
        "cudaGraphRemoveDependencies",
        "cudaGraphAddNode",
        "cudaStreamUpdateCaptureDependencies",
        "cudaEventElapsedTime",
        "cudaPointerGetAttributes",
        "cudaSignalExternalSemaphoresAsync",
        "cudaWaitExternalSemaphoresAsync",
        "cudaImportExternalSemaphore",
    ] {
        assert!(imported_by_gpu12.contains(plain), "no tests/gpu12 program calls plain {plain}");
    }
}

/// Build a program for 12 in this test's own folder and run it on our
/// libcudart.so.12 over the fake driver (one device): its stdout, after
/// asserting it exits 0 and finishes.
fn run12_on_fake(name: &str) -> String {
    let dir = scratch(&format!("gpu12_programs/run-{name}"));
    let exe = build12(&find(name), &dir).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&exe, &[], &fake_env(&[("FAKE_CUDA_DEVICES", "1"), ("CUDART_SHIM_LOG", "off")]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{name}: {}\n{text}{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(text.ends_with("done\n"), "{name}:\n{text}");
    text
}

fn has(text: &str, lines: &[&str]) {
    for l in lines {
        assert!(text.lines().any(|t| t == *l), "missing line {l:?} in:\n{text}");
    }
}

#[test]
fn device_props12_over_the_fake_driver() {
    let t = run12_on_fake("device_props12");
    has(
        &t,
        &[
            "sizeof(cudaDeviceProp) 1032",
            "plain: first byte written past 728: -1",
            "_v2: first byte written past 780: -1",
            "plain: name set 1, totalGlobalMem is cudaMemGetInfo's total 1, 0 field(s) differ from their attribute",
            "_v2: name set 1, totalGlobalMem is cudaMemGetInfo's total 1, 0 field(s) differ from their attribute",
            "plain and _v2 agree on the first 728 bytes: 1",
        ],
    );
    // The fields 13 dropped carry the device's values (the fake's attributes).
    for form in ["plain", "_v2"] {
        has(&t, &[&format!("{form}: clockRate 1980000"), &format!("{form}: memoryClockRate 2619000"), &format!("{form}: deviceOverlap 1")]);
    }
    assert!(t.contains("cudaGetDeviceProperties(plain, 99)                               -> cudaErrorInvalidDevice"), "{t}");
}

#[test]
fn managed12_over_the_fake_driver() {
    let t = run12_on_fake("managed12");
    has(
        &t,
        &[
            "prefetch to device 0: last prefetch location device 0",
            "prefetch to cudaCpuDeviceId: last prefetch location host",
            "after the device's memset, the host reads 0 wrong bytes",
            "advise preferred location cudaCpuDeviceId: host",
            "unset preferred location: none",
            "read mostly: 1",
            "accessed by: device 0 none",
            "_v2 prefetch to the host: host, type 2",
        ],
    );
    assert!(t.contains("cudaMemPrefetchAsync(m, n, 99, s)") && t.contains("-> cudaErrorInvalidDevice"), "{t}");
}

#[test]
fn graphs12_over_the_fake_driver() {
    let t = run12_on_fake("graphs12");
    has(
        &t,
        &[
            "plain, not capturing: status 0 id 0",
            "plain: status 1 id set 1",
            "_v2: status 1 same id 1 graph set 1 dependencies 1",
            "plain update, add: 2 dependencies",
            "plain update, set: 1 dependencies, the first node 1",
            "captured graph ran 3 host nodes",
            "plain get edges: 2, from a 1 1",
            "plain dependencies of b: 1, is a 1",
            "added nodes: 4 edges, y after x 1",
            "graph ran 5 host nodes",
            "after removing a's edges: 2 edges",
        ],
    );
}

#[test]
fn legacy12_over_the_fake_driver() {
    let t = run12_on_fake("legacy12");
    has(
        &t,
        &[
            "cudaRuntimeGetVersion 12090",
            "cudaThreadSetLimit(stack, 4096): thread 4096 device 4096",
            "cudaSetDoubleForDevice/Host leave the value: 1.5",
            "after cudaThreadExit: stack limit back to the default 1",
            "elapsed time plain valid 1, _v2 valid 1",
            "sizeof(cudaPointerAttributes) 24",
            "sizeof handle desc 32, signal params _v1 32, wait params _v1 40",
        ],
    );
    assert_eq!(t.matches("first byte written past 24: -1").count(), 4, "{t}");
}

/// Lines only one ABI's build prints: the 13-only calls' lines (13) and the
/// line that stands for them (12); and lines whose answer 12.9 gives
/// differently from 13.0: kernels_launch's bad launch configurations
/// (NVIDIA's 12.9 answers cudaErrorInvalidConfiguration, 13.0
/// cudaErrorInvalidValue; H100, 2026-11-25), compared on a GPU only.
fn without_abi_only_lines(text: &str) -> String {
    const DIFFER_BY_ABI: &[&str] = &["block of 2048:", "empty grid:", "empty block:", "grid y 70000:", "block z 128:"];
    const ONLY13: &[&str] = &[
        "cudaMemPrefetchBatchAsync",
        "cudaMemDiscardBatchAsync",
        "cudaMemDiscardAndPrefetchBatchAsync",
        "(no concurrent managed access: prefetch batches skipped)",
        "cudaMemGetDefaultMemPool",
        "cudaLogs",
        "cudaDeviceGetP2PAtomicCapabilities",
    ];
    text.lines()
        .filter(|l| !ONLY13.iter().chain(DIFFER_BY_ABI).any(|p| l.starts_with(p)) && !l.starts_with("(CUDA 12: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The tests/gpu programs whose checks the fake driver can satisfy (no
/// kernel results, one device): the 12 build on libcudart.so.12 prints what
/// the 13 build prints on libcudart.so.13.
#[test]
fn gpu_programs_built_for_12_print_what_their_13_build_prints_over_the_fake_driver() {
    cuda12();
    let runnable = [
        "cache_capture",
        "device_basics",
        "kernels_launch",
        "kernels_ptsz",
        "kernels_symbols",
        "memory_arrays",
        "memory_batch",
        "memory_peer",
        "pools_edge_cases",
        "streams_basic",
        "streams_capture",
    ];
    let dir = scratch("gpu12_programs/both");
    let env = fake_env(&[("FAKE_CUDA_DEVICES", "1"), ("CUDART_SHIM_LOG", "off")]);
    for name in runnable {
        let p = find(name);
        let exe12 = build12(&p, &dir).unwrap_or_else(|e| panic!("{e}"));
        let exe13 = build13(&p, &dir);
        let o12 = run(&exe12, &[], &env);
        let o13 = run(&exe13, &[], &env);
        let (t12, t13) = (String::from_utf8_lossy(&o12.stdout), String::from_utf8_lossy(&o13.stdout));
        assert!(o13.status.success() && o12.status.success(), "{name}: 13 {} 12 {}\n--- 13\n{t13}\n--- 12\n{t12}", o13.status, o12.status);
        assert!(t12.lines().count() >= 2, "{name}: {t12}");
        assert_eq!(without_abi_only_lines(&t12), without_abi_only_lines(&t13), "{name}: the 12 build (left) and the 13 build (right) differ");
    }
}

/// A shape the device cannot run is cudaErrorInvalidConfiguration on every
/// launch path of the 12 library, as 12.9 answers (the 13 library gives
/// the driver's invalid value, as 13.x does); too much shared memory stays
/// the driver's invalid value in both.
#[test]
fn launch12_over_the_fake_driver() {
    let t = run12_on_fake("launch12");
    let paths = ["<<<>>>                     ", "cudaLaunchKernel           ", "cudaLaunchCooperativeKernel", "cudaLaunchKernelExC        "];
    for shape in ["block of 2048", "empty grid", "empty block", "grid y 70000", "grid z 70000", "block z 128", "block 32x32x2"] {
        for path in paths {
            let line = t.lines().find(|l| l.starts_with(&format!("{shape:<14} {path}"))).unwrap_or_else(|| panic!("no line for {shape} {path}:\n{t}"));
            assert!(line.contains("-> cudaErrorInvalidConfiguration"), "{line}");
        }
    }
    for path in paths {
        let line = t.lines().find(|l| l.starts_with(&format!("1 MiB shared   {path}"))).unwrap();
        assert!(line.contains("-> cudaErrorInvalidValue"), "{line}");
    }
    has(&t, &["not a kernel, empty grid cudaLaunchKernel -> cudaErrorInvalidResourceHandle (last cudaErrorInvalidResourceHandle)"]);
}
