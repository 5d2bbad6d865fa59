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
    // The expected failures: the two NULL out-parameters, then the bad
    // multi-device lists, the values 13.x added to enums, the node type
    // 13.x added, the bad batches and the events without timing (the
    // answers where ours and NVIDIA's 12.9 differed on the H100 until fixed:
    // a cudaKernel_t in a multi-device list, 13.x's device attributes and
    // P2P attribute, junk past a 12.9 node member).
    let want_failed = [
        "cudaRuntimeGetVersion(NULL) -> cudaErrorInvalidValue",
        "cudaGetDeviceProperties(NULL, 0) -> cudaErrorInvalidValue",
        "cudaLaunchCooperativeKernelMultiDevice(&p, 1, 0) -> cudaErrorInvalidDeviceFunction",
        "cudaLaunchCooperativeKernelMultiDevice(&p, 1, cudaCooperativeLaunchMultiDeviceNoPreSync | cudaCooperativeLaunchMultiDeviceNoPostSync) -> cudaErrorInvalidDeviceFunction",
        "cudaLaunchCooperativeKernelMultiDevice(NULL, 1, 0) -> cudaErrorInvalidValue",
        "cudaLaunchCooperativeKernelMultiDevice(&p, 0, 0) -> cudaErrorInvalidValue",
        "numDevices = device count + 1: cudaLaunchCooperativeKernelMultiDevice(many, (unsigned)ndev + 1, 0) -> cudaErrorInvalidValue",
        "cudaLaunchCooperativeKernelMultiDevice(&p, 1, 4) -> cudaErrorInvalidDeviceFunction",
        "NULL stream: cudaLaunchCooperativeKernelMultiDevice(&q, 1, 0) -> cudaErrorInvalidDeviceFunction",
        "cudaStreamPerThread: cudaLaunchCooperativeKernelMultiDevice(&q, 1, 0) -> cudaErrorInvalidDeviceFunction",
        "NULL func: cudaLaunchCooperativeKernelMultiDevice(&q, 1, 0) -> cudaErrorInvalidDeviceFunction",
        "two entries on device 0: cudaLaunchCooperativeKernelMultiDevice(twice, 2, 0) -> cudaErrorInvalidValue",
        "cudaDeviceGetAttribute(148) -> cudaErrorInvalidValue",
        "cudaDeviceGetAttribute(160) -> cudaErrorInvalidValue",
        "cudaDeviceGetLimit(&lim, (enum cudaLimit)10) -> cudaErrorInvalidValue",
        "cudaDeviceSetLimit((enum cudaLimit)10, 4096) -> cudaErrorInvalidValue",
        "cudaDeviceGetP2PAttribute(&v, (enum cudaDeviceP2PAttr)5, 0, 0) -> cudaErrorInvalidDevice",
        "cudaMemPoolGetAttribute(9) -> cudaErrorInvalidValue",
        "cudaMemPoolGetAttribute(10) -> cudaErrorInvalidValue",
        "cudaMemPoolGetAttribute(11) -> cudaErrorInvalidValue",
        "cudaMemPoolGetAttribute(12) -> cudaErrorInvalidValue",
        "cudaMemPoolGetAttribute(13) -> cudaErrorInvalidValue",
        "cudaMemPoolGetAttribute(14) -> cudaErrorInvalidValue",
        "cudaMemPoolGetAttribute(15) -> cudaErrorInvalidValue",
        "cudaStreamGetAttribute(14) -> cudaErrorInvalidValue",
        "cudaStreamGetAttribute(15) -> cudaErrorInvalidValue",
        "cudaStreamGetAttribute(16) -> cudaErrorInvalidValue",
        "cudaStreamGetAttribute(17) -> cudaErrorInvalidValue",
        "cudaStreamGetAttribute(18) -> cudaErrorInvalidValue",
        "cudaMemPrefetchAsync_v2(location type 3) -> cudaErrorInvalidValue",
        "cudaMemPrefetchAsync_v2(location type 4) -> cudaErrorInvalidValue",
        "cudaMemPrefetchAsync_v2(location type 5) -> cudaErrorInvalidValue",
        "cudaMemPrefetchAsync_v2(location type 6) -> cudaErrorInvalidValue",
        "allocation type 2: cudaMemPoolCreate(&p2, &props) -> cudaErrorInvalidValue",
        "location type 5: cudaMemPoolCreate(&p2, &props) -> cudaErrorInvalidValue",
        "kernel node, junk past 12.9's member: cudaGraphAddNode(&n, g, NULL, 0, &p) -> cudaErrorInvalidValue",
        "node type 14: cudaGraphAddNode(&n, g, NULL, 0, &q) -> cudaErrorInvalidValue",
        "cudaMemcpyBatchAsync (2nd dst NULL) -> cudaErrorInvalidValue failIdx 1",
        "cudaMemcpyBatchAsync (legacy stream) -> cudaErrorInvalidValue failIdx SIZE_MAX",
        "cudaMemcpyBatchAsync (good) -> cudaSuccess failIdx untouched",
        "never recorded: cudaEventElapsedTime(&ms, a, b) -> cudaErrorInvalidResourceHandle",
        "never recorded, _v2: cudaEventElapsedTime_v2(&ms, a, b) -> cudaErrorInvalidResourceHandle",
        "timing disabled: cudaEventElapsedTime(&ms, a, t) -> cudaErrorInvalidResourceHandle",
        "timing disabled, _v2: cudaEventElapsedTime_v2(&ms, a, t) -> cudaErrorInvalidResourceHandle",
    ];
    assert_eq!(failed, want_failed, "{text}");
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
        "cudaMemcpyBatchAsync (2nd dst NULL) -> cudaErrorInvalidValue failIdx 1\n",
        "cudaMemcpyBatchAsync (legacy stream) -> cudaErrorInvalidValue failIdx SIZE_MAX\n",
        "cudaMemcpyBatchAsync (good) -> cudaSuccess failIdx untouched\n",
        "kernel node, junk past 12.9's member: cudaGraphAddNode(&n, g, NULL, 0, &p) -> cudaErrorInvalidValue\n",
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

/// The fake driver's launch log (kernels_api.rs reads it the same way).
fn launches() -> Vec<String> {
    let count: unsafe extern "C" fn() -> u64 = fake::control("fake_cuda_launch_count");
    let get: unsafe extern "C" fn(u64, *mut std::ffi::c_char, usize) -> usize = fake::control("fake_cuda_launch_get");
    (0..unsafe { count() })
        .map(|i| {
            let mut buf = vec![0u8; 4096];
            let len = unsafe { get(i, buf.as_mut_ptr().cast(), buf.len()) };
            String::from_utf8_lossy(&buf[..len.min(4095)]).into_owned()
        })
        .collect()
}

const COOP_PTX: &std::ffi::CStr = c".version 8.0
.target sm_90
.address_size 64
.visible .entry coop(
    .param .u64 coop_param_0,
    .param .u32 coop_param_1
)
{
    ret;
}
";

/// 12.9's `cudaLaunchCooperativeKernelMultiDevice` over two fake devices:
/// a host stub's kernel reaches the driver's multi-device launch once per
/// device, each on its own stream with its grid, block, shared size and
/// argument bytes, and the flags pass through (the fake names them in the
/// launch kind). Each entry's function was looked up in its stream's
/// device's context: `cuKernelGetFunction` runs once per entry, between a
/// push and a pop, so the calling thread's context is unchanged.
#[test]
fn cooperative_multi_device_launch_reaches_each_device() {
    use cudart_shim::api::abi12::cudaLaunchCooperativeKernelMultiDevice;
    use cudart_shim::api::device::{cudaGetDevice, cudaSetDevice};
    use cudart_shim::api::error::cudaGetLastError;
    use cudart_shim::api::hidden::*;
    use cudart_shim::api::stream::{cudaStreamCreate, cudaStreamSynchronize};
    use cudart_shim::types::abi12::{cudaCooperativeLaunchMultiDeviceNoPostSync, cudaCooperativeLaunchMultiDeviceNoPreSync, cudaLaunchParams};
    use cudart_shim::types::*;
    use std::ffi::{c_char, c_void};
    use std::ptr::null_mut;
    assert_eq!((size_of::<cudaLaunchParams>(), size_of::<cudart_shim::driver::api::CUDA_LAUNCH_PARAMS>()), (56, 56));
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
    static STUB: u8 = 0;
    let stub = (&STUB as *const u8).cast::<c_char>();
    let w = fatbin_wrapper(COOP_PTX);
    unsafe {
        let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
        __cudaRegisterFunction(h, stub, null_mut(), c"coop".as_ptr(), -1, null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        __cudaRegisterFatBinaryEnd(h);
    }
    let mut streams = [null_mut(); 2];
    for (d, s) in streams.iter_mut().enumerate() {
        assert_eq!(unsafe { cudaSetDevice(d as i32) }, cudaSuccess);
        assert_eq!(unsafe { cudaStreamCreate(s) }, cudaSuccess);
    }
    assert_eq!(unsafe { cudaSetDevice(0) }, cudaSuccess);
    let (mut p0, mut n0, mut p1, mut n1) = (0x1111u64, 7u32, 0x2222u64, 9u32);
    let mut a0 = [(&raw mut p0).cast::<c_void>(), (&raw mut n0).cast()];
    let mut a1 = [(&raw mut p1).cast::<c_void>(), (&raw mut n1).cast()];
    let entry = |s, args: *mut *mut c_void| cudaLaunchParams {
        func: stub as *mut c_void,
        gridDim: dim3 { x: 4, y: 2, z: 1 },
        blockDim: dim3 { x: 64, y: 1, z: 1 },
        args,
        sharedMem: 256,
        stream: s,
    };
    let mut list = [entry(streams[0], a0.as_mut_ptr()), entry(streams[1], a1.as_mut_ptr())];
    let before = fake::calls("cuKernelGetFunction");
    let pushes = fake::calls("cuCtxPushCurrent");
    let r = unsafe { cudaLaunchCooperativeKernelMultiDevice(list.as_mut_ptr(), 2, cudaCooperativeLaunchMultiDeviceNoPostSync) };
    assert_eq!(r, cudaSuccess);
    assert_eq!(fake::calls("cuLaunchCooperativeKernelMultiDevice"), 1);
    assert_eq!(fake::calls("cuKernelGetFunction") - before, 2);
    assert_eq!(fake::calls("cuCtxPushCurrent") - pushes, 2);
    let mut dev = -1;
    assert_eq!(unsafe { cudaGetDevice(&mut dev) }, cudaSuccess);
    assert_eq!(dev, 0, "the thread's device is unchanged");
    for s in streams {
        assert_eq!(unsafe { cudaStreamSynchronize(s) }, cudaSuccess);
    }
    let l = launches();
    let want = |s: cudaStream_t, p: u64, n: u32| {
        let args: String = p.to_le_bytes().iter().chain(n.to_le_bytes().iter()).map(|b| format!("{b:02x}")).collect();
        format!("kind=multi_device_no_post_sync name=coop grid=4,2,1 block=64,1,1 shared=256 stream={:#x} args={args} attrs=", s as usize)
    };
    assert_eq!(l, [want(streams[0], 0x1111, 7), want(streams[1], 0x2222, 9)]);

    // Both flags.
    let r = unsafe { cudaLaunchCooperativeKernelMultiDevice(list.as_mut_ptr(), 2, cudaCooperativeLaunchMultiDeviceNoPreSync | cudaCooperativeLaunchMultiDeviceNoPostSync) };
    assert_eq!(r, cudaSuccess);
    for s in streams {
        assert_eq!(unsafe { cudaStreamSynchronize(s) }, cudaSuccess);
    }
    assert!(launches()[2..].iter().all(|l| l.starts_with("kind=multi_device_no_pre_no_post_sync name=coop ")), "{:?}", launches());
    assert_eq!(launches().len(), 4);

    // Bad input: the runtime's own checks (a NULL list, no entry, more
    // entries than devices: never read) and the driver's (unknown flags,
    // the NULL stream, one device twice, shapes that differ); bad kernels
    // as cudaLaunchCooperativeKernel answers them. Nothing is launched.
    let calls = fake::calls("cuLaunchCooperativeKernelMultiDevice");
    let bad = |list: &mut [cudaLaunchParams], n: u32, flags: u32| unsafe { cudaLaunchCooperativeKernelMultiDevice(list.as_mut_ptr(), n, flags) };
    assert_eq!(unsafe { cudaLaunchCooperativeKernelMultiDevice(null_mut(), 2, 0) }, cudaErrorInvalidValue);
    assert_eq!(bad(&mut list, 0, 0), cudaErrorInvalidValue);
    assert_eq!(bad(&mut list, 3, 0), cudaErrorInvalidValue);
    assert_eq!(bad(&mut list, u32::MAX, 0), cudaErrorInvalidValue);
    assert_eq!(fake::calls("cuLaunchCooperativeKernelMultiDevice"), calls, "the runtime's own refusals reach no driver");
    assert_eq!(bad(&mut list, 2, 4), cudaErrorInvalidValue);
    let mut null_stream = list;
    null_stream[1].stream = null_mut();
    assert_eq!(bad(&mut null_stream, 2, 0), cudaErrorInvalidResourceHandle);
    let mut twice = list;
    twice[1].stream = streams[0];
    assert_eq!(bad(&mut twice, 2, 0), cudaErrorInvalidValue);
    let mut shapes = list;
    shapes[1].gridDim.x = 5;
    assert_eq!(bad(&mut shapes, 2, 0), cudaErrorInvalidValue);
    let mut no_func = list;
    no_func[0].func = null_mut();
    assert_eq!(bad(&mut no_func, 2, 0), cudaErrorInvalidDeviceFunction);
    // Only a registered host stub is a function here: anything else, a
    // cudaKernel_t included, is cudaErrorInvalidDeviceFunction, judged
    // before the streams (12.9 on an H100, abi12_probe.c).
    let mut junk = list;
    junk[1].func = 0x1234 as *mut c_void;
    assert_eq!(bad(&mut junk, 2, 0), cudaErrorInvalidDeviceFunction);
    junk[0].stream = null_mut();
    assert_eq!(bad(&mut junk, 2, 4), cudaErrorInvalidDeviceFunction);
    let mut huge = list;
    huge[0].sharedMem = 1 << 33;
    assert_eq!(bad(&mut huge, 2, 0), cudaErrorInvalidValue);
    assert_eq!(unsafe { cudaGetLastError() }, cudaErrorInvalidValue);
    assert_eq!(launches().len(), 4, "no bad launch was recorded");
}

/// 12.9's plain `cudaEventElapsedTime` asks the driver for the plain
/// `cuEventElapsedTime` below CUDA 12.8 (`_v2000`, which the fake counts as
/// `cuEventElapsedTime_v1`); `_v2`, like 13's, for `cuEventElapsedTime_v2`.
/// Both judge their arguments alike.
#[test]
fn plain_event_elapsed_time_is_the_pre_12_8_driver_call() {
    use cudart_shim::api::abi12::{cudaEventElapsedTime, cudaEventElapsedTime_v2};
    use cudart_shim::api::event::{cudaEventCreate, cudaEventRecord, cudaEventSynchronize};
    use cudart_shim::types::*;
    use std::ptr::null_mut;
    use_fake_driver(&[]);
    let (mut a, mut b) = (null_mut(), null_mut());
    unsafe {
        assert_eq!(cudaEventCreate(&mut a), cudaSuccess);
        assert_eq!(cudaEventCreate(&mut b), cudaSuccess);
        assert_eq!(cudaEventRecord(a, null_mut()), cudaSuccess);
        assert_eq!(cudaEventRecord(b, null_mut()), cudaSuccess);
        assert_eq!(cudaEventSynchronize(b), cudaSuccess);
    }
    let (v1, v2) = (fake::calls("cuEventElapsedTime_v1"), fake::calls("cuEventElapsedTime"));
    let mut ms = -1.0f32;
    assert_eq!(unsafe { cudaEventElapsedTime(&mut ms, a, b) }, cudaSuccess);
    assert!(ms >= 0.0);
    assert_eq!((fake::calls("cuEventElapsedTime_v1") - v1, fake::calls("cuEventElapsedTime") - v2), (1, 0));
    ms = -1.0;
    assert_eq!(unsafe { cudaEventElapsedTime_v2(&mut ms, a, b) }, cudaSuccess);
    assert!(ms >= 0.0);
    assert_eq!((fake::calls("cuEventElapsedTime_v1") - v1, fake::calls("cuEventElapsedTime") - v2), (1, 1));
    for f in [cudaEventElapsedTime, cudaEventElapsedTime_v2] {
        assert_eq!(unsafe { f(null_mut(), a, b) }, cudaErrorInvalidValue);
        assert_eq!(unsafe { f(&mut ms, null_mut(), b) }, cudaErrorInvalidResourceHandle);
    }
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

/// Values 13.x added to enums the 12 forms take are values a CUDA 12
/// program cannot mean: the 12 library refuses them (cudaErrorInvalidValue)
/// where 13's forms accept them, and the values both know still work.
#[test]
fn enumerators_added_after_12_9_are_refused_by_the_12_forms() {
    use cudart_shim::api::abi12 as v12;
    use cudart_shim::api::device::cudaDeviceGetAttribute as get13;
    use cudart_shim::api::graph::{cudaGraphAddKernelNode, cudaGraphCreate};
    use cudart_shim::api::memory::cudaMallocManaged;
    use cudart_shim::api::pool::cudaDeviceGetDefaultMemPool;
    use cudart_shim::types::*;
    use std::ffi::c_void;
    use std::ptr::{null, null_mut};
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
    let mut v = 0;
    unsafe {
        // Device and P2P attributes have no 12 form: 12.9 passes 13.x's
        // attributes 144, 145 and 147 to driver 580, which answers them, and
        // judges the devices before a P2P attribute (H100, abi12_probe.c);
        // so does the one export both libraries share.
        assert_eq!(get13(&mut v, cudaDevAttrHostMemoryPoolsSupported, 0), cudaSuccess, "144 goes to the driver");
        assert_eq!(get13(&mut v, cudaDeviceAttr(96), 0), cudaSuccess, "12.9's cudaDevAttrCooperativeMultiDeviceLaunch");
        let mut size = 0usize;
        assert_eq!(v12::cudaDeviceGetLimit(&mut size, cudaLimitStackSize), cudaSuccess);
        assert_eq!(v12::cudaDeviceGetLimit(&mut size, cudaLimit(10)), cudaErrorInvalidValue);
        assert_eq!(v12::cudaDeviceSetLimit(cudaLimit(10), 4096), cudaErrorInvalidValue);
        assert_eq!(v12::cudaThreadGetLimit(&mut size, cudaLimit(10)), cudaErrorInvalidValue);
        assert_eq!(v12::cudaThreadSetLimit(cudaLimit(10), 4096), cudaErrorInvalidValue);
        let mut pool = null_mut();
        assert_eq!(cudaDeviceGetDefaultMemPool(&mut pool, 0), cudaSuccess);
        let mut u = 0u64;
        assert_eq!(v12::cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, (&raw mut u).cast()), cudaSuccess);
        for a in 9..=15 {
            assert_eq!(v12::cudaMemPoolGetAttribute(pool, cudaMemPoolAttr(a), (&raw mut u).cast()), cudaErrorInvalidValue, "pool attribute {a}");
            assert_eq!(v12::cudaMemPoolSetAttribute(pool, cudaMemPoolAttr(a), (&raw mut u).cast()), cudaErrorInvalidValue, "pool attribute {a}");
        }
        let mut val: cudaLaunchAttributeValue = std::mem::zeroed();
        assert_eq!(v12::cudaStreamGetAttribute(null_mut(), cudaLaunchAttributePriority, &mut val), cudaSuccess);
        for a in 16..=18 {
            let a = cudaLaunchAttributeID(a);
            assert_eq!(v12::cudaStreamGetAttribute(null_mut(), a, &mut val), cudaErrorInvalidValue);
            assert_eq!(v12::cudaStreamGetAttribute_ptsz(null_mut(), a, &mut val), cudaErrorInvalidValue);
            assert_eq!(v12::cudaStreamSetAttribute(null_mut(), a, &val), cudaErrorInvalidValue);
            assert_eq!(v12::cudaStreamSetAttribute_ptsz(null_mut(), a, &val), cudaErrorInvalidValue);
        }
        // A kernel node's attributes.
        let mut g = null_mut();
        assert_eq!(cudaGraphCreate(&mut g, 0), cudaSuccess);
        let (k, _lib) = coop_kernel();
        let mut p0 = 0u64;
        let mut n0 = 0u32;
        let mut args = [(&raw mut p0).cast::<c_void>(), (&raw mut n0).cast()];
        let kp = cudaKernelNodeParams {
            func: k,
            gridDim: dim3 { x: 1, y: 1, z: 1 },
            blockDim: dim3 { x: 1, y: 1, z: 1 },
            sharedMemBytes: 0,
            kernelParams: args.as_mut_ptr(),
            extra: null_mut(),
        };
        let mut node = null_mut();
        assert_eq!(cudaGraphAddKernelNode(&mut node, g, null(), 0, &kp), cudaSuccess);
        assert_eq!(v12::cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &mut val), cudaSuccess);
        assert_eq!(v12::cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeID(17), &mut val), cudaErrorInvalidValue);
        assert_eq!(v12::cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeID(18), &val), cudaErrorInvalidValue);
        // Locations of the _v2 forms: 5 and 6 are 13.x's.
        let mut m: *mut c_void = null_mut();
        assert_eq!(cudaMallocManaged(&mut m, 4096, cudaMemAttachGlobal), cudaSuccess);
        let dev0 = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 0 };
        assert_eq!(v12::cudaMemPrefetchAsync_v2(m, 4096, dev0, 0, null_mut()), cudaSuccess);
        for t in [5, 6] {
            let loc = cudaMemLocation { r#type: cudaMemLocationType(t), id: 0 };
            assert_eq!(v12::cudaMemPrefetchAsync_v2(m, 4096, loc, 0, null_mut()), cudaErrorInvalidValue);
            assert_eq!(v12::cudaMemPrefetchAsync_v2_ptsz(m, 4096, loc, 0, null_mut()), cudaErrorInvalidValue);
            assert_eq!(v12::cudaMemAdvise_v2(m, 4096, cudaMemAdviseSetPreferredLocation, loc), cudaErrorInvalidValue);
        }
        assert_eq!(v12::cudaMemAdvise_v2(m, 4096, cudaMemAdviseSetPreferredLocation, dev0), cudaSuccess);
        // Pools: 13.x's location types (13.0's managed allocation type goes
        // to the driver, as 12.9 lets it: H100, abi12_probe.c).
        let props = cudaMemPoolProps { allocType: cudaMemAllocationTypePinned, location: dev0, ..Default::default() };
        let mut p2 = null_mut();
        assert_eq!(v12::cudaMemPoolCreate(&mut p2, &props), cudaSuccess);
        let invisible = cudaMemPoolProps { location: cudaMemLocation { r#type: cudaMemLocationType(5), id: 0 }, ..props };
        assert_eq!(v12::cudaMemPoolCreate(&mut p2, &invisible), cudaErrorInvalidValue);
        assert_eq!(v12::cudaMemPoolCreate(&mut p2, null()), cudaErrorInvalidValue);
        let mut flags = cudaMemAccessFlags(0);
        let mut loc = dev0;
        assert_eq!(v12::cudaMemPoolGetAccess(&mut flags, pool, &mut loc), cudaSuccess);
        loc.r#type = cudaMemLocationType(6);
        assert_eq!(v12::cudaMemPoolGetAccess(&mut flags, pool, &mut loc), cudaErrorInvalidValue);
    }
}

/// A host stub registered for COOP_PTX's `coop`, and its fatbinary handle.
fn coop_kernel() -> (*mut std::ffi::c_void, *mut *mut std::ffi::c_void) {
    use cudart_shim::api::hidden::*;
    use std::ffi::{c_char, c_void};
    use std::ptr::null_mut;
    static STUB: u8 = 0;
    let stub = (&STUB as *const u8).cast::<c_char>();
    let w = fatbin_wrapper(COOP_PTX);
    unsafe {
        let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
        __cudaRegisterFunction(h, stub, null_mut(), c"coop".as_ptr(), -1, null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        __cudaRegisterFatBinaryEnd(h);
        (stub as *mut c_void, h)
    }
}

/// 12.9's `cudaKernelNodeParamsV2` is 56 bytes; 13.5's has a context and a
/// function type after them, in what is spare union space of a CUDA 12
/// program's `cudaGraphNodeParams`. The 12 forms refuse junk there, as
/// 12.9 does (it would be a bogus context for the driver), and leave the
/// program's bytes as they were; a node type 13.x added is refused.
#[test]
fn graph_node_params_are_read_in_12_9_layout() {
    use cudart_shim::api::abi12::{cudaGraphAddNode, cudaGraphAddNode_v2, cudaGraphExecNodeSetParams, cudaGraphNodeSetParams};
    use cudart_shim::api::graph::{cudaGraphAddNode as add13, cudaGraphCreate, cudaGraphInstantiate};
    use cudart_shim::types::*;
    use std::ffi::c_void;
    use std::ptr::{null, null_mut};
    use_fake_driver(&[]);
    let (k, _) = coop_kernel();
    let mut p0 = 0u64;
    let mut n0 = 0u32;
    let mut args = [(&raw mut p0).cast::<c_void>(), (&raw mut n0).cast()];
    let mut g = null_mut();
    assert_eq!(unsafe { cudaGraphCreate(&mut g, 0) }, cudaSuccess);
    // A CUDA 12 program's struct: type, then the 56-byte kernel member,
    // then junk where 13.5 has `ctx` and `functionType`.
    let mut p = cudaGraphNodeParams::zeroed(cudaGraphNodeTypeKernel);
    unsafe {
        std::ptr::write_bytes((&raw mut p).cast::<u8>().add(16 + 56), 0x5A, 16);
        let kp = &mut p._u.kernel;
        kp.func = k;
        kp.gridDim = dim3 { x: 2, y: 1, z: 1 };
        kp.blockDim = dim3 { x: 32, y: 1, z: 1 };
        kp.kernelParams = args.as_mut_ptr();
    }
    let junk = |p: &cudaGraphNodeParams| unsafe { std::slice::from_raw_parts((p as *const cudaGraphNodeParams).cast::<u8>().add(72), 16).to_vec() };
    let mut node = null_mut();
    assert_ne!(unsafe { add13(&mut node, g, null(), null(), 0, &mut p) }, cudaSuccess, "13's form reads the junk as a context");
    // 12.9 answers junk there with invalid value (H100, abi12_probe.c), and
    // the junk never reaches the runtime as a context.
    assert_eq!(unsafe { cudaGraphAddNode(&mut node, g, null(), 0, &mut p) }, cudaErrorInvalidValue);
    assert!(junk(&p).iter().all(|&b| b == 0x5A), "the program's bytes are left as they were");
    unsafe { std::ptr::write_bytes((&raw mut p).cast::<u8>().add(16 + 56), 0, 16) };
    assert_eq!(unsafe { cudaGraphAddNode(&mut node, g, null(), 0, &mut p) }, cudaSuccess);
    let mut node2 = null_mut();
    assert_eq!(unsafe { cudaGraphAddNode_v2(&mut node2, g, null(), null(), 0, &mut p) }, cudaSuccess);
    assert_eq!(unsafe { cudaGraphNodeSetParams(node, &mut p) }, cudaSuccess);
    let mut exec = null_mut();
    assert_eq!(unsafe { cudaGraphInstantiate(&mut exec, g, 0) }, cudaSuccess);
    assert_eq!(unsafe { cudaGraphExecNodeSetParams(exec, node, &mut p) }, cudaSuccess);
    // Node types 14.. are 13.x's.
    for t in [14, 16, 17] {
        let mut q = cudaGraphNodeParams::zeroed(cudaGraphNodeType(t));
        assert_eq!(unsafe { cudaGraphAddNode(&mut node, g, null(), 0, &mut q) }, cudaErrorInvalidValue, "node type {t}");
    }
    assert_eq!(unsafe { cudaGraphAddNode(&mut node, g, null(), 0, null_mut()) }, cudaErrorInvalidValue);

    // What the add call writes (a memory allocation node's address) comes back.
    let mut a = cudaGraphNodeParams::zeroed(cudaGraphNodeTypeMemAlloc);
    unsafe {
        let al = &mut a._u.alloc;
        al.poolProps.allocType = cudaMemAllocationTypePinned;
        al.poolProps.location = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 0 };
        al.bytesize = 1 << 20;
    }
    assert_eq!(unsafe { cudaGraphAddNode(&mut node, g, null(), 0, &mut a) }, cudaSuccess);
    assert!(!unsafe { a._u.alloc.dptr }.is_null(), "the allocation's address was written back");
}

/// 12.9's batched copies report which copy failed: the 12 forms call the
/// driver's 12.8 entry points (counted by the fake as `..._v1`), whose
/// `failIdx` is the failing copy's index, or SIZE_MAX when the failure is
/// not one copy's (12.9's documentation).
#[test]
fn batched_copies_report_the_failing_copy() {
    use cudart_shim::api::abi12::{cudaMemcpy3DBatchAsync, cudaMemcpyBatchAsync, cudaMemcpyBatchAsync_ptsz};
    use cudart_shim::api::memory::{cudaFree, cudaMalloc};
    use cudart_shim::api::stream::{cudaStreamCreate, cudaStreamSynchronize};
    use cudart_shim::types::*;
    use std::ffi::c_void;
    use std::ptr::null_mut;
    use_fake_driver(&[]);
    let mut s = null_mut();
    assert_eq!(unsafe { cudaStreamCreate(&mut s) }, cudaSuccess);
    let mut d: *mut c_void = null_mut();
    assert_eq!(unsafe { cudaMalloc(&mut d, 4096) }, cudaSuccess);
    let src = [7u8; 64];
    let mut attrs = cudaMemcpyAttributes { srcAccessOrder: cudaMemcpySrcAccessOrderStream, ..unsafe { std::mem::zeroed() } };
    let mut idx = [0usize];
    let dst_ok = d;
    // Past the end of the allocation: the fake refuses that copy.
    let dst_bad = unsafe { d.cast::<u8>().add(4090) }.cast::<c_void>();
    let mut dsts = [dst_ok, dst_bad, dst_ok];
    let srcs = [src.as_ptr().cast::<c_void>(); 3];
    let sizes = [64usize; 3];
    let v1 = fake::calls("cuMemcpyBatchAsync_v1");
    let mut fail = 0usize;
    let r = unsafe { cudaMemcpyBatchAsync(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 3, &mut attrs, idx.as_mut_ptr(), 1, &mut fail, s) };
    assert_ne!(r, cudaSuccess);
    assert_eq!(fail, 1, "the second copy failed");
    assert_eq!(fake::calls("cuMemcpyBatchAsync_v1") - v1, 1);
    // The legacy stream is refused for the whole batch: SIZE_MAX.
    fail = 0;
    let r = unsafe { cudaMemcpyBatchAsync(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 3, &mut attrs, idx.as_mut_ptr(), 1, &mut fail, null_mut()) };
    assert_eq!(r, cudaErrorInvalidValue);
    assert_eq!(fail, usize::MAX);
    // A good batch, per-thread form.
    dsts[1] = dst_ok;
    fail = 5;
    let r = unsafe { cudaMemcpyBatchAsync_ptsz(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 3, &mut attrs, idx.as_mut_ptr(), 1, &mut fail, s) };
    assert_eq!(r, cudaSuccess);
    assert_eq!(unsafe { cudaStreamSynchronize(s) }, cudaSuccess);
    // 3D: no operation at all is the whole batch's failure.
    fail = 0;
    assert_eq!(unsafe { cudaMemcpy3DBatchAsync(0, null_mut(), &mut fail, 0, s) }, cudaErrorInvalidValue);
    assert_eq!(fail, usize::MAX);
    assert_eq!(fake::calls("cuMemcpy3DBatchAsync_v1"), 1);
    assert_eq!(unsafe { cudaFree(d) }, cudaSuccess);
}

/// 12.9's plain `cudaStreamGetCaptureInfo` has 3 arguments (status, id):
/// it answers what the 6-argument `_v2` answers, and writes nothing else.
#[test]
fn plain_capture_info_has_three_arguments() {
    use cudart_shim::api::abi12::{cudaStreamGetCaptureInfo, cudaStreamGetCaptureInfo_ptsz, cudaStreamGetCaptureInfo_v2};
    use cudart_shim::api::capture::{cudaStreamBeginCapture, cudaStreamEndCapture};
    use cudart_shim::api::stream::cudaStreamCreate;
    use cudart_shim::types::*;
    use std::ptr::null_mut;
    use_fake_driver(&[]);
    let mut s = null_mut();
    assert_eq!(unsafe { cudaStreamCreate(&mut s) }, cudaSuccess);
    let (mut st, mut id) = (cudaStreamCaptureStatus(99), 0u64);
    assert_eq!(unsafe { cudaStreamGetCaptureInfo(s, &mut st, &mut id) }, cudaSuccess);
    assert_eq!(st, cudaStreamCaptureStatusNone);
    assert_eq!(unsafe { cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) }, cudaSuccess);
    assert_eq!(unsafe { cudaStreamGetCaptureInfo(s, &mut st, &mut id) }, cudaSuccess);
    assert_eq!(st, cudaStreamCaptureStatusActive);
    let (mut st2, mut id2, mut g, mut n) = (cudaStreamCaptureStatus(99), 0u64, null_mut(), 0usize);
    let mut deps = std::ptr::null();
    assert_eq!(unsafe { cudaStreamGetCaptureInfo_v2(s, &mut st2, &mut id2, &mut g, &mut deps, &mut n) }, cudaSuccess);
    assert_eq!((st2, id2), (st, id));
    assert!(id > 0);
    assert_eq!(unsafe { cudaStreamGetCaptureInfo_ptsz(s, &mut st, null_mut()) }, cudaSuccess, "the id is optional");
    assert_eq!(unsafe { cudaStreamGetCaptureInfo(s, null_mut(), &mut id) }, cudaErrorInvalidValue);
    let mut graph = null_mut();
    assert_eq!(unsafe { cudaStreamEndCapture(s, &mut graph) }, cudaSuccess);
}

/// The 12 forms are traced under their C names: the probe over the fake
/// driver with the call log on shows cudaLaunchCooperativeKernelMultiDevice
/// with its arguments and results (the probe's list holds a cudaKernel_t,
/// which 12.9 refuses, so nothing launches: cooperative_multi_device_launch_
/// reaches_each_device shows launches), and both elapsed-time forms.
#[test]
fn the_multi_device_launch_is_traced_and_logged() {
    let exe = probe("trace");
    let dir = scratch("abi12/trace");
    let (calls, launches) = (dir.join("calls.log"), dir.join("launches.log"));
    let _ = std::fs::remove_file(&calls);
    let _ = std::fs::remove_file(&launches);
    run_on_fake(
        &exe,
        &[],
        &[
            ("FAKE_CUDA_DEVICES", "1"),
            ("CUDART_SHIM_LOG", "off"),
            ("CUDART_SHIM_TRACE", "calls"),
            ("CUDART_SHIM_TRACE_FILE", calls.to_str().unwrap()),
            ("FAKE_CUDA_LAUNCH_LOG", launches.to_str().unwrap()),
        ],
    );
    let log = std::fs::read_to_string(&calls).unwrap();
    let multi: Vec<&str> = log.lines().filter(|l| l.contains(" cudaLaunchCooperativeKernelMultiDevice(")).collect();
    assert_eq!(multi.len(), 10, "{log}");
    assert!(multi[0].contains("numDevices=1, flags=0) = cudaErrorInvalidDeviceFunction"), "{}", multi[0]);
    assert!(multi[1].contains("numDevices=1, flags=3) = cudaErrorInvalidDeviceFunction"), "{}", multi[1]);
    assert!(multi[2].contains("(launchParamsList=0x0, numDevices=1, flags=0) = cudaErrorInvalidValue"), "{}", multi[2]);
    assert!(log.lines().any(|l| l.contains(" cudaEventElapsedTime(") && l.ends_with("ns)")), "the plain form under its name");
    assert!(log.lines().any(|l| l.contains(" cudaEventElapsedTime_v2(")));
    let l = std::fs::read_to_string(&launches).unwrap_or_default();
    assert!(!l.lines().any(|x| x.starts_with("kind=multi_device")), "a refused list launches nothing: {l}");
}

/// tests/cu12/enums12_probe.c: 13.x-only enum values inside a CUDA 12
/// program's structs and lists. On an H100 (2026-11-25) ours printed
/// exactly NVIDIA 12.9's answers (the driver judges them for both:
/// launch attributes 17, 18 and cluster scheduling policy 3 invalid value,
/// 16 accepted; location types 5, 6 in an access list not supported;
/// channel kinds 32..45 an invalid channel descriptor). Over the fake
/// driver, whose launch takes any attribute, the lines the fake answers as
/// the driver does are pinned to those GPU answers.
#[test]
fn enum_values_of_13_inside_structs_answer_as_on_the_gpu() {
    let c12 = cuda12();
    let dir = scratch("abi12/enums12");
    let exe = dir.join("enums12_probe");
    let cubin = dir.join("scale.cubin");
    let out = Command::new("cc")
        .args(["-Wall", "-Werror"])
        .arg(format!("-I{}", c12.join("nvidia/cuda_runtime/include").display()))
        .arg(format!("-I{}", c12.join("nvidia/cuda_nvcc/include").display()))
        .arg(repo_root().join("tests/cu12/enums12_probe.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", c12.join("linklib").display()))
        .arg("-lcudart")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(c12.join("nvidia/cuda_nvcc/bin/ptxas"))
        .args(["-arch=sm_90"])
        .arg(repo_root().join("tests/cu12/scale.ptx"))
        .arg("-o")
        .arg(&cubin)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = run_on_fake(&exe, &[cubin.to_str().unwrap()], &[("FAKE_CUDA_DEVICES", "1"), ("CUDART_SHIM_LOG", "off")]);
    for want in [
        "cudaLaunchKernelExC(launch attribute 8) -> cudaSuccess (last cudaSuccess)",
        "cudaLaunchKernelExC(launch attribute 16) -> cudaSuccess (last cudaSuccess)",
        "cudaFuncSetAttribute(k, 8, 1024) -> cudaSuccess (last cudaSuccess)",
        "cudaFuncSetAttribute(k, 16, 0) -> cudaErrorInvalidValue (last cudaErrorInvalidValue)",
        "cudaMemPoolSetAccess(location type 1) -> cudaSuccess (last cudaSuccess)",
        "cudaMallocArray(channel format kind 2) -> cudaSuccess (last cudaSuccess)",
        "cudaMallocArray(channel format kind 32) -> cudaErrorInvalidChannelDescriptor (last cudaErrorInvalidChannelDescriptor)",
        "cudaMallocArray(channel format kind 45) -> cudaErrorInvalidChannelDescriptor (last cudaErrorInvalidChannelDescriptor)",
        "done",
    ] {
        assert!(text.lines().any(|l| l == want), "missing {want:?} in:\n{text}");
    }
}
