//! The CUDA 12 library (cuda12/, `libcudart.so.12`) as a CUDA 12 program
//! sees it: tests/cu12/abi12_probe.c, compiled against NVIDIA's 12.9 headers
//! and linked to libcudart.so.12, calls every kind of 12-only form (12.9's
//! structs, device numbers for locations, edge-less graph calls, the 6-
//! argument capture info, the legacy calls).
//!
//! - With no driver it prints the same, line for line, on NVIDIA's 12.9
//!   library and on ours (versions, return codes, last error).
//! - Over the fake driver, on ours, every call succeeds and the values sit
//!   at 12.9's offsets, with nothing written past what each form writes.
//!
//! Needs scripts/setup-cuda12 (scripts/test runs it); fails without it.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::Command;

/// The probe, built for CUDA 12 (12.9 headers, `-lcudart` = libcudart.so.12).
fn probe(test: &str) -> PathBuf {
    let c12 = cuda12();
    let exe = scratch(&format!("abi12/{test}")).join("abi12_probe");
    let out = Command::new("cc")
        .args(["-Wall", "-Werror", "-Wno-deprecated-declarations"])
        .arg(format!("-I{}", c12.join("nvidia/cuda_runtime/include").display()))
        .arg(format!("-I{}", c12.join("nvidia/cuda_nvcc/include").display()))
        .arg(repo_root().join("tests/cu12/abi12_probe.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", c12.join("linklib").display()))
        .args(["-lcudart", "-ldl"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    exe
}

fn stdout_of(what: &str, out: std::process::Output) -> String {
    assert!(out.status.success(), "{what}: {}\n{}{}", out.status, String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn with_no_driver_ours_answers_as_nvidias_12_9_does() {
    let exe = probe("nodriver");
    let nv = stdout_of("NVIDIA 12.9", run(&exe, &[], &[("LD_LIBRARY_PATH".into(), cuda12().join("nvidia/cuda_runtime/lib").display().to_string())]));
    // Ours through the libcudart.so.12 name in target/<profile>.
    let ours = stdout_of("ours", run_on_ours_without_driver(&exe, &[]));
    assert!(nv.contains("  runtime 12090\n") && nv.ends_with("done\n"), "{nv}");
    assert!(nv.matches("-> cudaErrorInsufficientDriver").count() >= 20, "{nv}");
    assert_eq!(ours, nv);
}

#[test]
fn over_the_fake_driver_the_12_forms_work_in_12_9_layouts() {
    let exe = probe("fake");
    let text = run_on_fake(&exe, &[], &[("FAKE_CUDA_DEVICES", "1"), ("CUDART_SHIM_LOG", "off")]);
    let failed: Vec<_> = text.lines().filter(|l| l.contains(" -> ") && !l.ends_with("-> cudaSuccess")).collect();
    // The expected failures: the two NULL out-parameters.
    assert_eq!(
        failed,
        ["cudaRuntimeGetVersion(NULL) -> cudaErrorInvalidValue", "cudaGetDeviceProperties(NULL, 0) -> cudaErrorInvalidValue"],
        "{text}"
    );
    for want in [
        "  runtime 12090\n",
        "sizeof(cudaDeviceProp) 1032\n",
        // 12.9's fields at 12.9's offsets: the shared ones and the ones 13.0
        // dropped, filled from the fake's device attributes.
        "  name Fake CUDA Device 0 cc 9.0 sms 132 mem 85899345920\n",
        "  clockRate 1980000 memoryClockRate 2619000 computeMode 0 deviceOverlap 1 kernelExecTimeoutEnabled 0\n",
        "  maxTexture1DLinear 268435456 singleToDoublePrecisionPerfRatio 2 cooperativeMultiDeviceLaunch 0\n",
        "  warpSize 32 l2CacheSize 52428800 clusterLaunch 1 unifiedFunctionPointers 1\n",
        // _v2 writes up to `reserved`; the plain symbol stops at 728.
        "  first byte written past 780: -1\n",
        "  name Fake CUDA Device 0 reservedSharedMemPerBlock 1024 first byte written past 728: -1\n",
        "sizeof(cudaPointerAttributes) 24\n",
        "  type 3 device 0 devicePointer==m 1 first byte written past 24: -1\n",
        "  status 1 id>0 1 graph 1 deps 0\n",
        "  edges 1 a->b 1\n",
        "  deps of b 1 is a 1\n",
        "  dependents of a 1 is b 1\n",
        "  edges 0\n",
        "  stack 4096\n",
        "done\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
}

/// The same device through the 13 library's cudaGetDeviceProperties and
/// cudaDeviceGetAttribute: the 12 library's dropped fields are those
/// attributes (so the fake's numbers above are not the 12 path's own).
#[test]
fn dropped_fields_are_the_device_attributes() {
    use cudart_shim::api::device::cudaDeviceGetAttribute;
    use cudart_shim::types::*;
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "1")]);
    let get = |a: cudaDeviceAttr| {
        let mut v = -1;
        assert_eq!(unsafe { cudaDeviceGetAttribute(&mut v, a, 0) }, cudaSuccess);
        v
    };
    assert_eq!(get(cudaDevAttrClockRate), 1980000);
    assert_eq!(get(cudaDevAttrMemoryClockRate), 2619000);
    assert_eq!(get(cudaDevAttrMaxTexture1DLinearWidth), 268435456);
    assert_eq!(get(cudaDevAttrSingleToDoublePrecisionPerfRatio), 2);
    assert_eq!(get(cudaDevAttrGpuOverlap), 1);
}

/// 12.9's plain semaphore calls take arrays of the 32- and 40-byte `_v1`
/// structs: each element reaches the driver as 13's struct, with its value.
#[test]
fn v1_semaphore_params_reach_the_driver_element_by_element() {
    use cudart_shim::api::abi12::{cudaSignalExternalSemaphoresAsync, cudaWaitExternalSemaphoresAsync_ptsz};
    use cudart_shim::api::external::cudaImportExternalSemaphore;
    use cudart_shim::types::abi12::{cudaExternalSemaphoreSignalParams_v1, cudaExternalSemaphoreWaitParams_v1};
    use cudart_shim::types::*;
    use std::ptr::null_mut;
    assert_eq!((size_of::<cudaExternalSemaphoreSignalParams_v1>(), size_of::<cudaExternalSemaphoreWaitParams_v1>()), (32, 40));
    use_fake_driver(&[]);
    let control: unsafe extern "C" fn(usize) -> u64 = fake::control("fake_cuda_semaphore_value");
    let value = |s: cudaExternalSemaphore_t| unsafe { control(s as usize) };
    let import = |ty| {
        let fd = unsafe { libc::memfd_create(c"abi12-sem".as_ptr(), 0) };
        assert!(fd >= 0);
        let desc = cudaExternalSemaphoreHandleDesc { r#type: ty, handle: cudaExternalSemaphoreHandleUnion { fd }, flags: 0, reserved: [0; 16] };
        let mut s = null_mut();
        assert_eq!(unsafe { cudaImportExternalSemaphore(&mut s, &desc) }, cudaSuccess);
        s
    };
    let (t1, t2, bin) = (
        import(cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd),
        import(cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd),
        import(cudaExternalSemaphoreHandleTypeOpaqueFd),
    );
    let sig = |v| cudaExternalSemaphoreSignalParams_v1 { params: [v, 0, 0], flags: 0 };
    let sems = [t1, t2, bin];
    let params = [sig(5), sig(9), sig(0)];
    assert_eq!(unsafe { cudaSignalExternalSemaphoresAsync(sems.as_ptr(), params.as_ptr(), 3, null_mut()) }, cudaSuccess);
    assert_eq!((value(t1), value(t2), value(bin)), (5, 9, 1));
    let wait = [cudaExternalSemaphoreWaitParams_v1 { params: [0; 4], flags: 0 }];
    assert_eq!(unsafe { cudaWaitExternalSemaphoresAsync_ptsz(&bin, wait.as_ptr(), 1, cudaStreamPerThread) }, cudaSuccess);
    assert_eq!(value(bin), 0, "the wait consumed the binary semaphore's signal");
    assert_eq!(unsafe { cudaSignalExternalSemaphoresAsync(&t1, std::ptr::null(), 1, null_mut()) }, cudaErrorInvalidValue);
}

#[test]
fn cooperative_multi_device_launch_is_not_supported_and_says_so() {
    use cudart_shim::api::abi12::cudaLaunchCooperativeKernelMultiDevice;
    use cudart_shim::types::*;
    use_fake_driver(&[]);
    assert_eq!(unsafe { cudaLaunchCooperativeKernelMultiDevice(std::ptr::null_mut(), 1, 0) }, cudaErrorNotSupported);
    assert_eq!(unsafe { cudart_shim::api::error::cudaGetLastError() }, cudaErrorNotSupported);
}

/// 12.9's `cudaResourceDesc` (64 bytes) and `cudaResourceViewDesc` (48):
/// what a CUDA 12 program passes is read for 12.9's size only (bytes past it
/// are garbage here and must not matter), and the getters write 12.9's size
/// only (the guard bytes after it stay).
#[test]
fn texture_descriptors_in_12_9_sizes_round_trip() {
    use cudart_shim::api::abi12::{cudaCreateTextureObject, cudaGetTextureObjectResourceDesc, cudaGetTextureObjectResourceViewDesc};
    use cudart_shim::api::texture::cudaCreateChannelDesc;
    use cudart_shim::types::*;
    use std::ffi::c_void;
    use_fake_driver(&[]);
    let mut buf = vec![0f32; 128];
    let desc = unsafe { cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat) };
    // 13's structs, then garbage where 13 has fields 12.9 lacks: as a CUDA 12
    // program's stack would hold after its 64- and 48-byte structs.
    let mut res = cudaResourceDesc {
        resType: cudaResourceTypePitch2D,
        res: cudaResourceDescRes {
            pitch2D: cudaResourceDescPitch2D { devPtr: buf.as_mut_ptr().cast(), desc, width: 16, height: 8, pitchInBytes: 64 },
        },
        flags: 0,
    };
    let mut view = cudaResourceViewDesc {
        format: cudaResViewFormatFloat1,
        width: 16,
        height: 8,
        depth: 0,
        firstMipmapLevel: 0,
        lastMipmapLevel: 0,
        firstLayer: 0,
        lastLayer: 0,
        reserved: [0; 16],
    };
    unsafe {
        std::ptr::write_bytes((&raw mut res).cast::<u8>().add(64), 0x5A, size_of::<cudaResourceDesc>() - 64);
        std::ptr::write_bytes((&raw mut view).cast::<u8>().add(48), 0x5A, size_of::<cudaResourceViewDesc>() - 48);
    }
    let tex = cudaTextureDesc { addressMode: [cudaAddressModeClamp; 3], filterMode: cudaFilterModePoint, readMode: cudaReadModeElementType, ..Default::default() };
    let mut t = 0;
    let r = unsafe { cudaCreateTextureObject(&mut t, (&raw const res).cast(), &tex, (&raw const view).cast()) };
    assert_eq!(r, cudaSuccess, "the bytes past 12.9's structs were read");

    let mut back = [0xABu8; 144 + 16];
    assert_eq!(unsafe { cudaGetTextureObjectResourceDesc(back.as_mut_ptr().cast::<c_void>(), t) }, cudaSuccess);
    assert!(back[64..].iter().all(|&b| b == 0xAB), "written past 64 bytes");
    let got: cudaResourceDesc = unsafe { std::ptr::read_unaligned(back.as_ptr().cast()) };
    assert_eq!(got.resType, cudaResourceTypePitch2D);
    let p = unsafe { got.res.pitch2D };
    assert_eq!((p.devPtr, p.width, p.height, p.pitchInBytes), (buf.as_mut_ptr().cast(), 16, 8, 64));

    let mut vback = [0xABu8; 112 + 16];
    assert_eq!(unsafe { cudaGetTextureObjectResourceViewDesc(vback.as_mut_ptr().cast::<c_void>(), t) }, cudaSuccess);
    assert!(vback[48..].iter().all(|&b| b == 0xAB), "written past 48 bytes");
    let v: cudaResourceViewDesc = unsafe { std::ptr::read_unaligned(vback.as_ptr().cast()) };
    assert_eq!((v.format, v.width, v.height), (cudaResViewFormatFloat1, 16, 8));
}

/// tests/data/abi/answers-12.9.tsv on ours: scripts/gen-abi-diff.py's own
/// probe (taken from the script, not copied) dlopens our libcudart.so.12
/// with no driver: every error code's name and string (-1, 0..1000), the
/// version answers (12090), and the last-error rule, as NVIDIA's 12.9 gave.
#[test]
fn error_names_strings_and_versions_are_12_9s() {
    let dir = scratch("abi12/answers");
    let src = dir.join("answers.c");
    let py = format!(
        "import importlib.util, sys\ns = importlib.util.spec_from_file_location('g', '{}')\nm = importlib.util.module_from_spec(s)\ns.loader.exec_module(m)\nopen(sys.argv[1], 'w').write(m.ANSWERS_C)",
        repo_root().join("scripts/gen-abi-diff.py").display()
    );
    let st = Command::new("python3").args(["-c", &py]).arg(&src).status().unwrap();
    assert!(st.success());
    let exe = dir.join("answers");
    let out = Command::new("cc").arg(&src).arg("-o").arg(&exe).arg("-ldl").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lib = target_dir().join("libcudart.so.12");
    let ours = stdout_of(
        "answers on ours",
        run(&exe, &[lib.to_str().unwrap()], &[("CUDART_SHIM_DRIVER".into(), "/nonexistent/libcuda.so.1".into()), ("CUDART_SHIM_LOG".into(), "off".into())]),
    );
    let want: Vec<String> = std::fs::read_to_string(repo_root().join("tests/data/abi/answers-12.9.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    assert_eq!(want.len(), 1010);
    assert!(want.contains(&"call\tcudaRuntimeGetVersion\t0\t12090".to_owned()));
    let got: Vec<&str> = ours.lines().collect();
    let diff: Vec<_> = want.iter().zip(&got).filter(|(w, g)| w != g).collect();
    assert!(diff.is_empty() && got.len() == want.len(), "{} lines differ from 12.9's (want, ours): {diff:?}", diff.len());
}

/// tests/data/abi/no-driver-12.9.tsv on ours: scripts/gen-bad-input.py's
/// 1,759 cases (every cudaError_t export of 12.9, hostile arguments),
/// generated from 12.9's headers and built as scripts/gen-abi-diff.py builds
/// them for NVIDIA's library (`__CUDA_API_VERSION_INTERNAL`, so each case
/// calls the symbol it names), run on our libcudart.so.12 with no driver:
/// the same code, case by case.
#[test]
fn bad_input_suite_answers_as_12_9_with_no_driver() {
    let c12 = cuda12();
    let dir = scratch("abi12/bad_input");
    let made = Command::new("python3")
        .arg(repo_root().join("scripts/gen-bad-input.py"))
        .arg(c12.join("nvidia/cuda_runtime/include"))
        .arg(repo_root().join("tests/data/abi/libcudart12-exports.txt"))
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let src = dir.join("bad12.c");
    std::fs::write(&src, &made.stdout).unwrap();
    // Linked against our library under the link-time name.
    let link = dir.join("libcudart.so");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(target_dir().join("libcudart.so.12"), &link).unwrap();
    let exe = dir.join("bad12");
    let out = Command::new("cc")
        .args(["-w", "-D__CUDA_API_VERSION_INTERNAL"])
        .arg(format!("-I{}", c12.join("nvidia/cuda_runtime/include").display()))
        .arg(format!("-I{}", c12.join("nvidia/cuda_nvcc/include").display()))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", dir.display()))
        .arg("-lcudart")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ours = stdout_of("bad-input suite on ours", run_on_ours_without_driver(&exe, &[]));
    let mut got: Vec<&str> = ours.lines().filter(|l| l.contains('\t')).collect();
    got.sort_unstable();
    let text = std::fs::read_to_string(repo_root().join("tests/data/abi/no-driver-12.9.tsv")).unwrap();
    let want: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(want.len(), 1759);
    let wrong: Vec<_> = want.iter().zip(&got).filter(|(w, g)| w != g).collect();
    assert!(wrong.is_empty() && got.len() == want.len(), "{} of {} cases differ (12.9, ours): {wrong:?}", wrong.len(), want.len());
}
