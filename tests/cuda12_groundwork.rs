//! Groundwork for the CUDA 12 ABI (issue #20, docs/CUDA12.md):
//!
//! - the committed 12.9-vs-13.0 data under tests/data/abi/ is what
//!   scripts/gen-abi-diff.py derives from the pinned wheels today, and its
//!   struct sizes agree with the independently made struct-sizes-*.txt;
//! - scripts/nvcc12 builds CUDA 12 programs: NEEDED libcudart.so.12, only
//!   12.9 symbols, the same registration and launch calls as nvcc 13's build
//!   of the same source, nvcc's fatbin wrapper; NVIDIA's libcudart.so.12 runs
//!   them (no driver here: it answers 12090 and cudaErrorInsufficientDriver);
//! - both routes of docs/CUDA12.md (nvcc12, host-only C + cubin from 12.9's
//!   ptxas) run over the fake driver on our libcudart.so.12 (cuda12/), and
//!   the fake records their launches.
//!
//! Needs scripts/setup-cuda and scripts/setup-cuda12 (scripts/test runs both).

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn tool(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?} failed:\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn abi_data_is_what_the_wheels_say() {
    cuda12();
    require_cuda();
    let out = tool(Command::new("python3").arg(repo_root().join("scripts/gen-abi-diff.py")).arg("--check"));
    assert!(out.contains("match the wheels"), "{out}");
}

/// headers-V.txt (sizes read from DWARF) against struct-sizes-V.txt (made
/// earlier by a sizeof probe): every struct of the older list, same size.
#[test]
fn struct_sizes_agree_between_the_two_probes() {
    for v in ["12.9", "13.0"] {
        let data = |f: &str| std::fs::read_to_string(repo_root().join("tests/data/abi").join(f)).unwrap();
        let ours: std::collections::HashMap<String, String> = data(&format!("headers-{v}.txt"))
            .lines()
            .filter_map(|l| l.strip_prefix("struct "))
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                (f[0].to_owned(), f[1].to_owned())
            })
            .collect();
        let listed: Vec<(String, String)> = data(&format!("struct-sizes-{v}.txt"))
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f[0].to_owned(), f[1].to_owned())
            })
            .collect();
        assert!(listed.len() > 40, "{v}: only {} structs listed", listed.len());
        for (name, size) in listed {
            assert_eq!(ours.get(&name), Some(&size), "{v}: {name}");
        }
    }
}

/// Build `tests/cu12/hello12.cu` with scripts/nvcc12 (CUDA 12) or the pinned
/// nvcc 13 (CUDA 13), in the calling test's own folder (tests run at once).
fn hello(test: &str, abi: u32) -> PathBuf {
    let dir = scratch(&format!("cuda12_groundwork/{test}"));
    let src = repo_root().join("tests/cu12/hello12.cu");
    let exe = dir.join(format!("hello-{abi}"));
    if abi == 12 {
        tool(Command::new(repo_root().join("scripts/nvcc12")).args(["-arch=sm_90", "-O1"]).arg(&src).arg("-o").arg(&exe));
    } else {
        compile_cu(&[&src], &exe, &[]);
    }
    exe
}

fn undefined(exe: &Path) -> BTreeSet<String> {
    tool(Command::new("nm").args(["-D", "--undefined-only"]).arg(exe))
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|s| s.contains("cuda"))
        .map(str::to_owned)
        .collect()
}

fn section(exe: &Path, name: &str) -> Vec<u8> {
    let out = exe.with_extension(format!("{}.bin", name.trim_start_matches('.')));
    tool(Command::new("objcopy").args(["-O", "binary", "--only-section", name]).arg(exe).arg(&out));
    std::fs::read(out).unwrap()
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn nvcc12_builds_a_cuda12_program_nvidia_12_runs() {
    let c12 = cuda12();
    let exe12 = hello("nvidia", 12);
    let exe13 = hello("nvidia", 13);
    let dynamic = tool(Command::new("readelf").arg("-d").arg(&exe12));
    assert!(dynamic.contains("[libcudart.so.12]") && !dynamic.contains("libcudart.so.13"), "{dynamic}");

    let exports12: BTreeSet<String> = abi_list("libcudart12-exports.txt").into_iter().collect();
    let u12 = undefined(&exe12);
    for s in &u12 {
        let (name, ver) = s.split_once('@').unwrap_or_else(|| panic!("{s} carries no version"));
        assert_eq!(ver, "libcudart.so.12", "{s}");
        assert!(exports12.contains(name), "{name} is not a libcudart.so.12 export");
    }
    // Same source, same calls into the runtime: the registration constructor
    // and the <<<>>> stub are 12.9's crt/ macros, expanded as nvcc 13's are.
    let names = |set: &BTreeSet<String>| -> BTreeSet<String> { set.iter().map(|s| s.split('@').next().unwrap().to_owned()).collect() };
    let u13 = undefined(&exe13);
    assert_eq!(names(&u12), names(&u13));
    for hidden in ["__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaUnregisterFatBinary", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaGetKernel", "__cudaLaunchKernel"] {
        assert!(names(&u12).contains(hidden), "{hidden} not called: {u12:?}");
    }
    // nvcc's fatbin wrapper {magic, version 1, data, NULL} and its container.
    let wrapper = section(&exe12, ".nvFatBinSegment");
    assert_eq!((u32_at(&wrapper, 0), u32_at(&wrapper, 4)), (0x466243B1, 1));
    let fatbin = section(&exe12, ".nv_fatbin");
    assert_eq!(u32_at(&fatbin, 0), 0xBA55ED50);

    let out = run(&exe12, &[], &[("LD_LIBRARY_PATH".into(), c12.join("nvidia/cuda_runtime/lib").display().to_string())]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("CUDART_VERSION 12090, cudaRuntimeGetVersion 12090"), "{text}");
    assert!(text.contains("cudaGetDeviceCount(&n) -> cudaErrorInsufficientDriver"), "{text}");
}

/// Run a CUDA 12 program on our libcudart.so.12 (cuda12/, by its name in
/// target/<profile>) over the fake driver. (Until #20 built that library,
/// this ran on a relabelled copy of the 13 library.)
fn run_on_ours12(exe: &Path, args: &[&str], log: &Path) -> String {
    let soname = tool(Command::new("readelf").arg("-d").arg(target_dir().join("libcudart.so.12")));
    assert!(soname.contains("Library soname: [libcudart.so.12]"), "{soname}");
    let env = fake_env(&[("FAKE_CUDA_DEVICES", "1"), ("FAKE_CUDA_LAUNCH_LOG", log.to_str().unwrap()), ("CUDART_SHIM_LOG", "off")]);
    let out = run(exe, args, &env);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}: {}\n{text}{}", exe.display(), out.status, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("cudaRuntimeGetVersion 12090"), "not our 12 library: {text}");
    text
}

#[test]
fn nvcc12_program_runs_over_the_fake_driver() {
    let exe = hello("fake", 12);
    let log = scratch("cuda12_groundwork/fake").join("hello.launches");
    let _ = std::fs::remove_file(&log);
    let text = run_on_ours12(&exe, &[], &log);
    assert!(text.contains("cudaMemcpyToSymbol(cv, c, sizeof c) -> cudaSuccess") && text.ends_with("done\n"), "{text}");
    let launches = std::fs::read_to_string(&log).unwrap();
    // add<<<2, 4>>>(d, 40, 1.5): the int at offset 8, the double at 16.
    let line = launches.lines().find(|l| l.contains("name=_Z3addPiid")).unwrap_or_else(|| panic!("{launches}"));
    assert!(line.contains("grid=2,1,1 block=4,1,1"), "{line}");
    let args = line.split("args=").nth(1).unwrap().split(' ').next().unwrap();
    assert_eq!(&args[16..24], "28000000", "{line}");
    assert_eq!(&args[32..48], "000000000000f83f", "{line}");
}

#[test]
fn host_only_route_runs_over_the_fake_driver_and_on_nvidia_12() {
    let c12 = cuda12();
    let dir = scratch("cuda12_groundwork/host");
    let cubin = dir.join("scale.cubin");
    tool(Command::new(c12.join("nvidia/cuda_nvcc/bin/ptxas")).arg("-arch=sm_90").arg(repo_root().join("tests/cu12/scale.ptx")).arg("-o").arg(&cubin));
    let exe = dir.join("host_module12");
    tool(
        Command::new("cc")
            .args(["-Wall", "-Werror"])
            .arg(format!("-I{}", c12.join("nvidia/cuda_runtime/include").display()))
            .arg(format!("-I{}", c12.join("nvidia/cuda_nvcc/include").display()))
            .arg(repo_root().join("tests/cu12/host_module12.c"))
            .arg("-o")
            .arg(&exe)
            .arg(format!("-L{}", c12.join("linklib").display()))
            .arg("-lcudart"),
    );
    assert!(undefined(&exe).iter().all(|s| s.ends_with("@libcudart.so.12") && !s.starts_with("__cuda")));

    let log = dir.join("host.launches");
    let _ = std::fs::remove_file(&log);
    let text = run_on_ours12(&exe, &[cubin.to_str().unwrap()], &log);
    assert!(text.contains("cudaLibraryGetKernel(&k, lib, \"scale\") -> cudaSuccess") && text.ends_with("done\n"), "{text}");
    let launches = std::fs::read_to_string(&log).unwrap();
    assert!(launches.lines().any(|l| l.contains("name=scale grid=1,1,1 block=8,1,1")), "{launches}");

    let out = run(&exe, &[cubin.to_str().unwrap()], &[("LD_LIBRARY_PATH".into(), c12.join("nvidia/cuda_runtime/lib").display().to_string())]);
    let nv = String::from_utf8_lossy(&out.stdout);
    assert!(nv.contains("cudaRuntimeGetVersion 12090") && nv.contains("-> cudaErrorInsufficientDriver"), "{nv}");
}
