//! CUDA 13.5's libcudart.so.13 (issue #16): all 458 exports, the 36 new
//! ones answering as NVIDIA's 13.5 runtime does, 13.5 layouts, and programs
//! built by nvcc 13.5.
//!
//! Expected codes on a 13.0 driver are NVIDIA's 13.5 runtime's on H100 /
//! driver 580 (tests/cu135/probe_new.cu, run 2026-11-25; the output is
//! tests/data/v135/probe_new.h100-driver580.nv135.txt; ours:
//! ...ours.txt, same but for the differences docs/compat/GPU.md lists). The fake driver
//! plays a 13.0 driver unless a test asks for 13.5.

mod common;
use common::*;
use cudart_shim::api::green_context::*;
use cudart_shim::api::{capture::*, event::*, graph::*, launch::*, memory::*, stream::*};
use cudart_shim::api::error::cudaGetLastError;
use cudart_shim::types::*;
use std::collections::BTreeSet;
use std::ffi::{c_uint, c_ulonglong, c_void};
use std::mem::{offset_of, size_of};
use std::process::Command;
use std::ptr::{null, null_mut};

/// Assert a call's code and that the thread's last error is the same.
macro_rules! code {
    ($call:expr, $want:expr) => {{
        let got = unsafe { $call };
        assert_eq!(got, $want, "{}", stringify!($call));
        let last = unsafe { cudaGetLastError() };
        let want_last = if $want == cudaSuccess { cudaSuccess } else { $want };
        assert_eq!(last, want_last, "last error after {}", stringify!($call));
    }};
}

#[test]
fn all_458_exports_of_nvidia_13_5_are_ours_and_versioned() {
    let nv: BTreeSet<String> = abi_list("libcudart13.5-exports.txt").into_iter().collect();
    assert_eq!(nv.len(), 458);
    let o = Command::new("nm").args(["-D", "--defined-only"]).arg(shim_lib()).output().unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    let ours: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter_map(|s| s.strip_suffix("@@libcudart.so.13"))
        .map(str::to_owned)
        .collect();
    let missing: Vec<_> = nv.difference(&ours).collect();
    assert!(missing.is_empty(), "not exported (or not versioned libcudart.so.13): {missing:?}");
    let v130: BTreeSet<String> = abi_list("libcudart13-exports.txt").into_iter().collect();
    assert_eq!(nv.difference(&v130).count(), 36);
}

/// The 36-function probe, built by nvcc 13.5, with no driver: NVIDIA's 13.5
/// library and ours print the same codes, last errors and out-values.
#[test]
fn probe_without_driver_matches_nvidia_13_5() {
    let c = cuda135();
    let dir = scratch("v135_probe");
    let exe = compile_cu_with(&c, &[&repo_root().join("tests/cu135/probe_new.cu")], &dir.join("probe_new"), &["-ldl"]);
    let nv = run_on_nvidia_with(&c, &exe, &[]);
    let ours = run_on_ours_without_driver(&exe, &[]);
    let (nv, ours) = (String::from_utf8(nv.stdout).unwrap(), String::from_utf8(ours.stdout).unwrap());
    assert!(nv.contains("runtime=13050") && nv.ends_with("== end\n"), "{nv}");
    assert!(nv.contains("cudaGreenCtxCreate(&g, desc, 0, 0)               rc=35 last=35"), "{nv}");
    assert_same_lines(&nv, &ours);
}

/// Sizes and offsets of the 13.5 types, from a probe built on the 13.5 headers.
#[test]
fn layouts_match_the_13_5_headers() {
    let c = cuda135();
    let dir = scratch("v135_layout");
    let src = dir.join("layout.c");
    std::fs::write(
        &src,
        r#"#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stddef.h>
#define S(t) printf(#t " %zu %zu\n", sizeof(t), _Alignof(t))
#define O(t, f) printf(#t "." #f " %zu\n", offsetof(t, f))
int main(void) {
    S(cudaDevResource); O(cudaDevResource, sm); O(cudaDevResource, nextResource);
    S(struct cudaDevSmResource); O(struct cudaDevSmResource, localityDomainId);
    S(struct cudaDevWorkqueueConfigResource); S(struct cudaDevWorkqueueResource);
    S(cudaDevSmResourceGroupParams); O(cudaDevSmResourceGroupParams, reserved);
    S(struct cudaGraphRecaptureCallbackData); O(struct cudaGraphRecaptureCallbackData, userData);
    S(enum cudaDevResourceType);
    return 0;
}
"#,
    )
    .unwrap();
    let exe = compile_c_cudart_with(&c, &src, &dir.join("layout"), &[]);
    let out = run_on_nvidia_with(&c, &exe, &[]);
    let got = String::from_utf8(out.stdout).unwrap();
    let want = format!(
        "cudaDevResource {} {}\ncudaDevResource.sm {}\ncudaDevResource.nextResource {}\n\
         struct cudaDevSmResource {} {}\nstruct cudaDevSmResource.localityDomainId {}\n\
         struct cudaDevWorkqueueConfigResource {} {}\nstruct cudaDevWorkqueueResource {} {}\n\
         cudaDevSmResourceGroupParams {} {}\ncudaDevSmResourceGroupParams.reserved {}\n\
         struct cudaGraphRecaptureCallbackData {} {}\nstruct cudaGraphRecaptureCallbackData.userData {}\n\
         enum cudaDevResourceType {} {}\n",
        size_of::<cudaDevResource>(), align_of::<cudaDevResource>(),
        offset_of!(cudaDevResource, sm), offset_of!(cudaDevResource, nextResource),
        size_of::<cudaDevSmResource>(), align_of::<cudaDevSmResource>(), offset_of!(cudaDevSmResource, localityDomainId),
        size_of::<cudaDevWorkqueueConfigResource>(), align_of::<cudaDevWorkqueueConfigResource>(),
        size_of::<cudaDevWorkqueueResource>(), align_of::<cudaDevWorkqueueResource>(),
        size_of::<cudaDevSmResourceGroupParams>(), align_of::<cudaDevSmResourceGroupParams>(), offset_of!(cudaDevSmResourceGroupParams, reserved),
        size_of::<cudaGraphRecaptureCallbackData>(), align_of::<cudaGraphRecaptureCallbackData>(), offset_of!(cudaGraphRecaptureCallbackData, userData),
        size_of::<cudaDevResourceType>(), align_of::<cudaDevResourceType>(),
    );
    assert_eq!(got, want);
    assert_eq!(size_of::<cudaDevResource>(), 144);
}

unsafe extern "C" fn count_call(p: *mut c_void) {
    unsafe { *(p as *mut u32) += 1 };
}

/// On a 13.0 driver (the fake's default; driver 580 on the GPU), the calls
/// whose driver entry point came later answer
/// cudaErrorCallRequiresNewerDriver whatever their arguments, except the
/// few checks NVIDIA's runtime makes first (measured).
#[test]
fn newer_driver_calls_on_a_13_0_driver() {
    use_fake_driver(&[]);
    let rnd = cudaErrorCallRequiresNewerDriver;
    let mut g = null_mut();
    let mut u = 0u32;
    let mut ull: c_ulonglong = 0;
    unsafe {
        assert_eq!(cudaGraphCreate(&mut g, 0), cudaSuccess);
    }
    code!(cudaGraphGetId(g, &mut u), rnd);
    code!(cudaGraphGetId(null_mut(), null_mut()), rnd);
    code!(cudaGraphExecGetId(null_mut(), &mut u), rnd);
    code!(cudaGraphNodeGetContainingGraph(null_mut(), null_mut()), rnd);
    code!(cudaGraphNodeGetLocalId(null_mut(), &mut u), rnd);
    code!(cudaGraphNodeGetToolsId(null_mut(), &mut ull), rnd);
    // A NULL out-pointer is checked before the driver.
    code!(cudaGraphNodeGetParams(null_mut(), null_mut()), cudaErrorInvalidValue);
    let mut p = std::mem::MaybeUninit::<cudaGraphNodeParams>::zeroed();
    code!(cudaGraphNodeGetParams(null_mut(), p.as_mut_ptr()), rnd);
    // A NULL function is checked first, then the driver.
    let mut n = 0usize;
    code!(cudaFuncGetParamCount(null(), &mut n), cudaErrorInvalidDeviceFunction);
    code!(cudaFuncGetParamCount(count_call as *const c_void, null_mut()), rnd);
    let mut calls = 0u32;
    let data = (&mut calls as *mut u32).cast();
    code!(cudaLaunchHostFunc_v2(null_mut(), Some(count_call), data, 0), rnd);
    code!(cudaLaunchHostFunc_v2(null_mut(), None, data, 7), rnd);
    code!(cudaLaunchHostFunc_v2_ptsz(null_mut(), Some(count_call), data, 1), rnd);
    assert_eq!(calls, 0);
    let mut attr = std::mem::MaybeUninit::<cudaMemcpyAttributes>::zeroed();
    code!(cudaMemcpyWithAttributesAsync(null_mut(), null(), 0, attr.as_mut_ptr(), null_mut()), rnd);
    code!(cudaMemcpyWithAttributesAsync_ptsz(null_mut(), null(), 64, null_mut(), null_mut()), rnd);
    code!(cudaMemcpy3DWithAttributesAsync(null_mut(), 0, null_mut()), rnd);
    code!(cudaMemcpy3DWithAttributesAsync_ptsz(null_mut(), 1, null_mut()), rnd);
    code!(cudaMemGetLocationInfo(null_mut(), 64, 0, 0, null_mut()), rnd);
    code!(cudaStreamBeginRecaptureToGraph(null_mut(), cudaStreamCaptureModeGlobal, g, null_mut()), rnd);
    code!(cudaStreamBeginRecaptureToGraph_ptsz(null_mut(), cudaStreamCaptureModeGlobal, null_mut(), null_mut()), rnd);
    let mut out = [std::mem::MaybeUninit::<cudaDevResource>::zeroed(); 2];
    code!(cudaDevSmResourceSplit(out[0].as_mut_ptr(), 2, null(), null_mut(), 0, null_mut()), rnd);
    code!(cudaSubgridCreate(), rnd);
    code!(cudaSubgridWorkerGridCreate(), rnd);
    code!(cudaSubgridWorksetCreate(), rnd);
}

fn sm(r: &cudaDevResource) -> (i32, u32, u32, u32) {
    let s = r.sm;
    (r.r#type.0, s.smCount, s.minSmPartitionSize, s.smCoscheduledAlignment)
}

fn zeroed<T>() -> T {
    unsafe { std::mem::MaybeUninit::zeroed().assume_init() }
}

/// Green and device execution contexts, resources and SM splits on a 13.0
/// driver (all of it exists there): NVIDIA's 13.5 argument checks.
#[test]
fn execution_contexts_on_a_13_0_driver() {
    use_fake_driver(&[]);
    let mut res: cudaDevResource = zeroed();
    code!(cudaDeviceGetDevResource(0, &mut res, cudaDevResourceTypeSm), cudaSuccess);
    assert_eq!(sm(&res), (1, 132, 8, 8));
    let mut r2: cudaDevResource = zeroed();
    code!(cudaDeviceGetDevResource(99, &mut r2, cudaDevResourceTypeSm), cudaErrorInvalidDevice);
    code!(cudaDeviceGetDevResource(-1, &mut r2, cudaDevResourceTypeSm), cudaErrorInvalidDevice);
    code!(cudaDeviceGetDevResource(0, null_mut(), cudaDevResourceTypeSm), cudaErrorInvalidValue);
    code!(cudaDeviceGetDevResource(0, &mut r2, cudaDevResourceTypeInvalid), cudaErrorInvalidResourceType);
    code!(cudaDeviceGetDevResource(0, &mut r2, cudaDevResourceTypeWorkqueueConfig), cudaErrorInvalidResourceType);

    let mut split: [cudaDevResource; 4] = zeroed();
    let mut rem: cudaDevResource = zeroed();
    let mut nb: c_uint = 4;
    code!(cudaDevSmResourceSplitByCount(split.as_mut_ptr(), &mut nb, &res, &mut rem, 0, 8), cudaSuccess);
    assert_eq!(nb, 4);
    assert_eq!(sm(&split[3]), (1, 8, 0, 0));
    assert_eq!(sm(&rem).1, 132 - 32);
    let mut count: c_uint = 0;
    code!(cudaDevSmResourceSplitByCount(null_mut(), &mut count, &res, null_mut(), 0, 8), cudaSuccess);
    assert!(count > 4, "{count}");
    code!(cudaDevSmResourceSplitByCount(split.as_mut_ptr(), &mut nb, null(), null_mut(), 0, 8), cudaErrorInvalidValue);
    code!(cudaDevSmResourceSplitByCount(split.as_mut_ptr(), null_mut(), &res, null_mut(), 0, 8), cudaErrorInvalidValue);
    nb = 4;
    code!(cudaDevSmResourceSplitByCount(split.as_mut_ptr(), &mut nb, &res, null_mut(), 99, 8), cudaErrorInvalidValue);
    code!(cudaDevSmResourceSplitByCount(split.as_mut_ptr(), &mut nb, &res, null_mut(), 0, 100000), cudaErrorInvalidResourceConfiguration);

    let mut desc = null_mut();
    code!(cudaDevResourceGenerateDesc(&mut desc, split.as_mut_ptr(), 1), cudaSuccess);
    assert!(!desc.is_null());
    let mut d2 = null_mut();
    code!(cudaDevResourceGenerateDesc(null_mut(), split.as_mut_ptr(), 1), cudaErrorInvalidValue);
    code!(cudaDevResourceGenerateDesc(&mut d2, null_mut(), 1), cudaErrorInvalidValue);
    // NVIDIA's 13.5 runtime crashes here; ours answers.
    code!(cudaDevResourceGenerateDesc(&mut d2, split.as_mut_ptr(), 0), cudaErrorInvalidValue);

    let mut g = null_mut();
    code!(cudaGreenCtxCreate(&mut g, desc, 0, 0), cudaSuccess);
    let mut g2 = null_mut();
    code!(cudaGreenCtxCreate(null_mut(), desc, 0, 0), cudaErrorInvalidValue);
    code!(cudaGreenCtxCreate(&mut g2, null_mut(), 0, 0), cudaErrorInvalidValue);
    code!(cudaGreenCtxCreate(&mut g2, desc, 99, 0), cudaErrorInvalidDevice);
    code!(cudaGreenCtxCreate(&mut g2, desc, 0, 5), cudaErrorInvalidValue);

    let mut dev = -1;
    code!(cudaExecutionCtxGetDevice(&mut dev, g), cudaSuccess);
    assert_eq!(dev, 0);
    code!(cudaExecutionCtxGetDevice(null_mut(), g), cudaErrorInvalidValue);
    code!(cudaExecutionCtxGetDevice(&mut dev, null_mut()), cudaErrorInvalidValue);
    let mut id: c_ulonglong = 0;
    code!(cudaExecutionCtxGetId(g, &mut id), cudaSuccess);
    assert_ne!(id, 0);
    code!(cudaExecutionCtxGetId(g, null_mut()), cudaErrorInvalidValue);
    code!(cudaExecutionCtxGetId(null_mut(), &mut id), cudaErrorInvalidValue);
    let mut gr: cudaDevResource = zeroed();
    code!(cudaExecutionCtxGetDevResource(g, &mut gr, cudaDevResourceTypeSm), cudaSuccess);
    assert_eq!(sm(&gr), (1, 8, 8, 8));
    code!(cudaExecutionCtxGetDevResource(null_mut(), &mut gr, cudaDevResourceTypeSm), cudaErrorInvalidValue);

    let mut s = null_mut();
    code!(cudaExecutionCtxStreamCreate(&mut s, g, cudaStreamNonBlocking, 0), cudaSuccess);
    let mut s2 = null_mut();
    code!(cudaExecutionCtxStreamCreate(null_mut(), g, 0, 0), cudaErrorInvalidValue);
    code!(cudaExecutionCtxStreamCreate(&mut s2, null_mut(), 0, 0), cudaErrorInvalidValue);
    code!(cudaExecutionCtxStreamCreate(&mut s2, g, 99, 0), cudaErrorInvalidValue);
    code!(cudaExecutionCtxStreamCreate(&mut s2, g, 0, 0), cudaSuccess);
    code!(cudaStreamDestroy(s2), cudaSuccess);
    // A green context's stream reports the green context's SMs; stream
    // 0 the device's.
    let mut sr: cudaDevResource = zeroed();
    code!(cudaStreamGetDevResource(s, &mut sr, cudaDevResourceTypeSm), cudaSuccess);
    assert_eq!(sm(&sr).1, 8);
    code!(cudaStreamGetDevResource_ptsz(null_mut(), &mut sr, cudaDevResourceTypeSm), cudaSuccess);
    assert_eq!(sm(&sr).1, 132);
    code!(cudaStreamGetDevResource(s, null_mut(), cudaDevResourceTypeSm), cudaErrorInvalidValue);

    let mut ev = null_mut();
    code!(cudaEventCreate(&mut ev), cudaSuccess);
    code!(cudaExecutionCtxRecordEvent(g, ev), cudaSuccess);
    code!(cudaExecutionCtxRecordEvent(null_mut(), ev), cudaErrorInvalidValue);
    code!(cudaExecutionCtxRecordEvent(g, null_mut()), cudaErrorInvalidResourceHandle);
    code!(cudaExecutionCtxWaitEvent(g, ev), cudaSuccess);
    code!(cudaExecutionCtxWaitEvent(null_mut(), ev), cudaErrorInvalidValue);
    code!(cudaExecutionCtxWaitEvent(g, null_mut()), cudaErrorInvalidResourceHandle);
    code!(cudaExecutionCtxSynchronize(g), cudaSuccess);
    code!(cudaExecutionCtxSynchronize(null_mut()), cudaErrorInvalidValue);
    code!(cudaStreamDestroy(s), cudaSuccess);

    // The device's own context: one handle, not destroyable.
    let (mut p, mut p2) = (null_mut(), null_mut());
    code!(cudaDeviceGetExecutionCtx(&mut p, 0), cudaSuccess);
    code!(cudaDeviceGetExecutionCtx(&mut p2, 0), cudaSuccess);
    assert!(!p.is_null() && p == p2);
    code!(cudaDeviceGetExecutionCtx(null_mut(), 0), cudaErrorInvalidValue);
    code!(cudaDeviceGetExecutionCtx(&mut p2, 99), cudaErrorInvalidDevice);
    code!(cudaExecutionCtxGetDevResource(p, &mut gr, cudaDevResourceTypeSm), cudaSuccess);
    assert_eq!(sm(&gr).1, 132);
    code!(cudaExecutionCtxStreamCreate(&mut s, p, cudaStreamNonBlocking, 0), cudaSuccess);
    code!(cudaStreamDestroy(s), cudaSuccess);
    code!(cudaExecutionCtxSynchronize(p), cudaSuccess);
    code!(cudaExecutionCtxDestroy(p), cudaErrorInvalidValue);
    code!(cudaExecutionCtxDestroy(null_mut()), cudaErrorInvalidValue);
    code!(cudaExecutionCtxDestroy(g), cudaSuccess);

    // Conditional handles bound to the current or a given context.
    let mut graph = null_mut();
    code!(cudaGraphCreate(&mut graph, 0), cudaSuccess);
    let mut h: cudaGraphConditionalHandle = 0;
    code!(cudaGraphConditionalHandleCreate_v2(&mut h, graph, null_mut(), 0, 0), cudaSuccess);
    code!(cudaGraphConditionalHandleCreate_v2(&mut h, graph, p, 1, 1), cudaSuccess);
    code!(cudaGraphConditionalHandleCreate_v2(null_mut(), graph, null_mut(), 0, 0), cudaErrorInvalidValue);
}

/// On a 13.5 driver the calls reach it: host functions run, copies copy.
#[test]
fn newer_calls_on_a_13_5_driver() {
    use_fake_driver(&[("FAKE_CUDA_DRIVER_VERSION", "13050")]);
    let mut calls = 0u32;
    let data = (&mut calls as *mut u32).cast();
    code!(cudaLaunchHostFunc_v2(null_mut(), Some(count_call), data, 0), cudaSuccess);
    code!(cudaLaunchHostFunc_v2_ptsz(null_mut(), Some(count_call), data, 1), cudaSuccess);
    code!(cudaLaunchHostFunc_v2(null_mut(), None, data, 0), cudaErrorInvalidValue);
    code!(cudaLaunchHostFunc_v2(null_mut(), Some(count_call), data, 2), cudaErrorInvalidValue);
    code!(cudaStreamSynchronize(null_mut()), cudaSuccess);
    code!(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    assert_eq!(calls, 2);

    let mut d = null_mut();
    code!(cudaMalloc(&mut d, 64), cudaSuccess);
    let src: Vec<u8> = (0..64).collect();
    let mut back = vec![0u8; 64];
    let mut attr: cudaMemcpyAttributes = zeroed();
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    code!(cudaMemcpyWithAttributesAsync(d, src.as_ptr().cast(), 64, &mut attr, null_mut()), cudaSuccess);
    code!(cudaMemcpyWithAttributesAsync_ptsz(back.as_mut_ptr().cast(), d, 64, &mut attr, null_mut()), cudaSuccess);
    code!(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    assert_eq!(back, src);
    code!(cudaMemcpyWithAttributesAsync(d, src.as_ptr().cast(), 64, null_mut(), null_mut()), cudaErrorInvalidValue);
    // A call the fake 13.5 driver does not have: not supported.
    let mut u = 0u32;
    let mut g = null_mut();
    code!(cudaGraphCreate(&mut g, 0), cudaSuccess);
    code!(cudaGraphGetId(g, &mut u), cudaErrorNotSupported);
}

/// Kernel arguments with host heap addresses (8-byte little-endian words
/// 0x000055xxxxxxxxxx / 0x000056xxxxxxxxxx, which differ from run to run)
/// written as `<heap>`.
fn mask_heap_addresses(line: &str) -> String {
    let Some((head, rest)) = line.split_once(" args=") else { return line.to_owned() };
    let (args, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let words: Vec<String> = args
        .as_bytes()
        .chunks(16)
        .map(|w| {
            let w = std::str::from_utf8(w).unwrap();
            if w.len() == 16 && w.ends_with("0000") && matches!(&w[10..12], "55" | "56") { "<heap>".to_owned() } else { w.to_owned() }
        })
        .collect();
    format!("{head} args={} {tail}", words.concat())
}

/// `cudaDevSmResourceSplit` on a 13.1 driver: groups by parameters, and
/// discovery with no result array (the driver fills in the SM counts).
#[test]
fn sm_split_on_a_13_1_driver() {
    use_fake_driver(&[("FAKE_CUDA_DRIVER_VERSION", "13010")]);
    let mut res: cudaDevResource = zeroed();
    code!(cudaDeviceGetDevResource(0, &mut res, cudaDevResourceTypeSm), cudaSuccess);
    let mut out: [cudaDevResource; 2] = zeroed();
    let mut rem: cudaDevResource = zeroed();
    let mut gp: [cudaDevSmResourceGroupParams; 2] = zeroed();
    gp[0].smCount = 8;
    gp[1].smCount = 16;
    code!(cudaDevSmResourceSplit(out.as_mut_ptr(), 2, &res, &mut rem, 0, gp.as_mut_ptr()), cudaSuccess);
    assert_eq!((sm(&out[0]).1, sm(&out[1]).1, sm(&rem).1), (8, 16, 132 - 24));
    let mut disc: [cudaDevSmResourceGroupParams; 2] = zeroed();
    code!(cudaDevSmResourceSplit(null_mut(), 2, &res, null_mut(), 0, disc.as_mut_ptr()), cudaSuccess);
    assert_eq!((disc[0].smCount, disc[1].smCount), (8, 8));
    code!(cudaDevSmResourceSplit(out.as_mut_ptr(), 2, null(), null_mut(), 0, gp.as_mut_ptr()), cudaErrorInvalidValue);
}

/// `cudaGetDriverEntryPointByVersion` with 13.x versions, as NVIDIA's 13.5
/// runtime answers on driver 580: a version newer than the driver is the
/// driver's CUDA_ERROR_INVALID_VALUE (status untouched); a 13.1 entry point
/// at 13000 is "not found" with success.
#[test]
fn entry_points_by_13x_version() {
    use cudart_shim::api::entry_point::cudaGetDriverEntryPointByVersion;
    use_fake_driver(&[]);
    let mut f = null_mut();
    let mut st = cudaDriverEntryPointQueryResult(-1);
    code!(cudaGetDriverEntryPointByVersion(c"cuMemAlloc".as_ptr(), &mut f, 13050, cudaEnableDefault, &mut st), cudaErrorInvalidValue);
    assert!(f.is_null());
    assert_eq!(st.0, -1);
    code!(cudaGetDriverEntryPointByVersion(c"cuGraphGetId".as_ptr(), &mut f, 13000, cudaEnableDefault, &mut st), cudaSuccess);
    assert!(f.is_null());
    assert_eq!(st, cudaDriverEntryPointSymbolNotFound);
    code!(cudaGetDriverEntryPointByVersion(c"cuMemAlloc".as_ptr(), &mut f, 13000, cudaEnableDefault, &mut st), cudaSuccess);
    assert!(!f.is_null());
}

/// CUDA 13.5's kernel node parameters (72 bytes): a `cudaKernel_t` named
/// by `functionType`, with an execution context, makes a kernel node that
/// reads back as that kernel.
#[test]
fn kernel_node_v2_with_a_kernel_handle_and_a_context() {
    use cudart_shim::api::library::{cudaLibraryGetKernel, cudaLibraryLoadData};
    use_fake_driver(&[]);
    let ptx = c".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n ret;\n}\n";
    let (mut lib, mut k) = (null_mut(), null_mut());
    code!(cudaLibraryLoadData(&mut lib, ptx.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0), cudaSuccess);
    code!(cudaLibraryGetKernel(&mut k, lib, c"k".as_ptr()), cudaSuccess);
    let mut ctx = null_mut();
    code!(cudaDeviceGetExecutionCtx(&mut ctx, 0), cudaSuccess);
    let mut g = null_mut();
    code!(cudaGraphCreate(&mut g, 0), cudaSuccess);
    let mut p = cudaGraphNodeParams::zeroed(cudaGraphNodeTypeKernel);
    p._u.kernel = cudaKernelNodeParamsV2 {
        func: k.cast(),
        gridDim: dim3 { x: 3, y: 1, z: 1 },
        blockDim: dim3 { x: 32, y: 1, z: 1 },
        sharedMemBytes: 0,
        kernelParams: null_mut(),
        extra: null_mut(),
        ctx,
        functionType: cudaKernelFunctionTypeKernel,
    };
    let mut n = null_mut();
    code!(cudaGraphAddNode(&mut n, g, null(), null(), 0, &mut p), cudaSuccess);
    let mut back: cudaKernelNodeParams = zeroed();
    code!(cudaGraphKernelNodeGetParams(n, &mut back), cudaSuccess);
    assert_eq!((back.func, back.gridDim.x), (k.cast(), 3));
}

/// One call of the recapture callback: (user data, node, original grid,
/// recaptured grid, original type, status).
type Mismatch = (usize, usize, u32, u32, i32, i32);
static SEEN: std::sync::Mutex<Vec<Mismatch>> = std::sync::Mutex::new(Vec::new());

unsafe extern "C" fn on_mismatch(
    data: *mut c_void,
    node: cudaGraphNode_t,
    a: *const cudaGraphNodeParams,
    b: *const cudaGraphNodeParams,
    status: cudaGraphRecaptureStatus,
) -> cudaError_t {
    let (a, b) = unsafe { (&*a, &*b) };
    let (ga, gb) = unsafe { (a._u.kernel.gridDim.x, b._u.kernel.gridDim.x) };
    SEEN.lock().unwrap().push((data as usize, node as usize, ga, gb, a.r#type.0, status.0));
    cudaSuccess
}

/// Recapture on a 13.3 driver: the mismatch callback gets the runtime's
/// node parameters (the fake reports one kernel node whose grid changed),
/// then capture goes on into the same graph.
#[test]
fn recapture_with_a_mismatch_callback_on_a_13_3_driver() {
    use_fake_driver(&[("FAKE_CUDA_DRIVER_VERSION", "13030")]);
    let (mut s, mut g) = (null_mut(), null_mut());
    code!(cudaStreamCreateWithFlags(&mut s, cudaStreamNonBlocking), cudaSuccess);
    code!(cudaGraphCreate(&mut g, 0), cudaSuccess);
    let mut cb = cudaGraphRecaptureCallbackData { callbackFunc: Some(on_mismatch), userData: 0x77 as *mut c_void };
    code!(cudaStreamBeginRecaptureToGraph(s, cudaStreamCaptureModeGlobal, g, &mut cb), cudaSuccess);
    let mut out = null_mut();
    code!(cudaStreamEndCapture(s, &mut out), cudaSuccess);
    assert_eq!(out, g);
    assert_eq!(*SEEN.lock().unwrap(), [(0x77, 0x4560, 7, 9, cudaGraphNodeTypeKernel.0, cudaGraphRecaptureIneligibleForUpdate.0)]);
    // Without a callback, and with a NULL graph.
    code!(cudaStreamBeginRecaptureToGraph(s, cudaStreamCaptureModeGlobal, g, null_mut()), cudaSuccess);
    code!(cudaStreamEndCapture(s, &mut out), cudaSuccess);
    code!(cudaStreamBeginRecaptureToGraph(s, cudaStreamCaptureModeGlobal, null_mut(), &mut cb), cudaErrorInvalidValue);
}

unsafe extern "C" fn host_node_fn(_: *mut c_void) {}

/// On a 13.2+ driver cudaGraphNodeGetParams reads each node type back in
/// the runtime's form.
#[test]
fn node_params_on_a_13_2_driver() {
    use_fake_driver(&[("FAKE_CUDA_DRIVER_VERSION", "13020")]);
    let mut g = null_mut();
    code!(cudaGraphCreate(&mut g, 0), cudaSuccess);
    let mut p = cudaGraphNodeParams::zeroed(cudaGraphNodeTypeEmpty);

    let mut empty = null_mut();
    code!(cudaGraphAddEmptyNode(&mut empty, g, null(), 0), cudaSuccess);
    code!(cudaGraphNodeGetParams(empty, &mut p), cudaSuccess);
    assert_eq!(p.r#type, cudaGraphNodeTypeEmpty);

    let mut tag = 7u32;
    let host = cudaHostNodeParams { r#fn: Some(host_node_fn), userData: (&mut tag as *mut u32).cast() };
    let mut hn = null_mut();
    code!(cudaGraphAddHostNode(&mut hn, g, &empty, 1, &host), cudaSuccess);
    code!(cudaGraphNodeGetParams(hn, &mut p), cudaSuccess);
    assert_eq!(p.r#type, cudaGraphNodeTypeHost);
    let got = unsafe { p._u.host };
    assert_eq!(got.userData, host.userData);
    assert_eq!(got.r#fn.map(|f| f as *const () as usize), Some(host_node_fn as *const () as usize));

    let mut ev = null_mut();
    code!(cudaEventCreate(&mut ev), cudaSuccess);
    let mut en = null_mut();
    code!(cudaGraphAddEventRecordNode(&mut en, g, null(), 0, ev), cudaSuccess);
    code!(cudaGraphNodeGetParams(en, &mut p), cudaSuccess);
    assert_eq!((p.r#type, unsafe { p._u.eventRecord.event }), (cudaGraphNodeTypeEventRecord, ev));

    let mut child = null_mut();
    code!(cudaGraphCreate(&mut child, 0), cudaSuccess);
    let mut cn = null_mut();
    code!(cudaGraphAddChildGraphNode(&mut cn, g, null(), 0, child), cudaSuccess);
    code!(cudaGraphNodeGetParams(cn, &mut p), cudaSuccess);
    assert_eq!(p.r#type, cudaGraphNodeTypeGraph);
    assert!(!unsafe { p._u.graph.graph }.is_null());

    code!(cudaGraphNodeGetParams(hn, null_mut()), cudaErrorInvalidValue);
}

/// A program's run over the fake: stdout and the launch log.
fn run_kernels(exe: &std::path::Path, log: &std::path::Path) -> (String, String) {
    let _ = std::fs::remove_file(log);
    let out = run_on_fake(exe, &[], &[("FAKE_CUDA_LAUNCH_LOG", &log.display().to_string())]);
    let launches = std::fs::read_to_string(log).unwrap_or_default();
    (out, launches.lines().map(mask_heap_addresses).map(|l| mask_struct_padding(&l)).collect::<Vec<_>>().join("\n"))
}

/// `k2(S{1, 2.0f, 3}, ...)`: the three padding bytes after `S::z` are
/// whatever the program's stack held (C leaves them indeterminate, and
/// both runtimes pass the bytes as given): not compared.
fn mask_struct_padding(line: &str) -> String {
    match line.find("name=_Z2k21Sx ").and_then(|_| line.find(" args=")) {
        Some(at) if line.len() >= at + 6 + 24 => format!("{}pppppp{}", &line[..at + 6 + 18], &line[at + 6 + 24..]),
        _ => line.to_owned(),
    }
}

/// Programs built by nvcc 13.5 register and launch over the fake exactly
/// as the same sources built by nvcc 13.0 do (fatbin, registration and
/// launch calls as 13.5 emits them).
#[test]
fn nvcc_13_5_programs_run_as_the_13_0_builds() {
    for (name, srcs, flags) in [
        ("kernels_basic", vec!["kernels_basic.cu"], vec![]),
        ("kernels_ptsz", vec!["kernels_ptsz.cu"], vec!["--default-stream", "per-thread"]),
        ("kernels_rdc", vec!["kernels_rdc/a.cu", "kernels_rdc/b.cu"], vec!["-rdc=true"]),
    ] {
        let dir = scratch(&format!("v135_{name}"));
        let paths: Vec<_> = srcs.iter().map(|s| repo_root().join("tests/cu").join(s)).collect();
        let refs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
        let old = compile_cu(&refs, &dir.join(format!("{name}_130")), &flags);
        let new = compile_cu_with(&cuda135(), &refs, &dir.join(format!("{name}_135")), &flags);
        let a = run_kernels(&old, &dir.join("launches130.txt"));
        let b = run_kernels(&new, &dir.join("launches135.txt"));
        assert!(a.1.lines().any(|l| l.starts_with("kind=")), "{name}: no launch logged: {}", a.1);
        assert_eq!(a.0, b.0, "{name}: stdout (left: nvcc 13.0, right: nvcc 13.5)");
        assert_eq!(a.1, b.1, "{name}: launches (left: nvcc 13.0, right: nvcc 13.5)");
    }
}
