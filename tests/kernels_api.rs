//! Kernel-area exports in process over the fake driver: libraries loaded
//! from PTX, launches on cudaKernel_t handles, function attributes,
//! occupancy, driver entry points, the hidden API's registration and
//! configuration stack, and bad input.

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::entry_point::*;
use cudart_shim::api::error::*;
use cudart_shim::api::hidden::*;
use cudart_shim::api::launch::*;
use cudart_shim::api::library::*;
use cudart_shim::api::occupancy::*;
use cudart_shim::api::symbol::*;
use cudart_shim::types::*;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr::{null, null_mut};

const PTX: &CStr = c".version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 counter[2] = {7, 9};
.global .attribute(.managed) .align 8 .u64 m = 3;
.const .align 4 .b8 table[16];
.visible .entry axpb(
    .param .u64 .ptr .global .align 4 axpb_param_0,
    .param .u32 axpb_param_1,
    .param .align 4 .b8 axpb_param_2[12],
    .param .u16 axpb_param_3
)
{
    ret;
}
.visible .entry noargs()
{
    ret;
}
";

fn launches() -> Vec<String> {
    let lib = unsafe { libloading::Library::new(fake_driver()) }.unwrap();
    let count: libloading::Symbol<unsafe extern "C" fn() -> u64> = unsafe { lib.get(b"fake_cuda_launch_count\0") }.unwrap();
    let get: libloading::Symbol<unsafe extern "C" fn(u64, *mut c_char, usize) -> usize> =
        unsafe { lib.get(b"fake_cuda_launch_get\0") }.unwrap();
    let n = unsafe { count() };
    let out = (0..n)
        .map(|i| {
            let mut buf = vec![0u8; 4096];
            let len = unsafe { get(i, buf.as_mut_ptr().cast(), buf.len()) };
            String::from_utf8_lossy(&buf[..len.min(4095)]).into_owned()
        })
        .collect();
    std::mem::forget(lib);
    out
}

fn load() -> cudaLibrary_t {
    let mut lib = null_mut();
    unsafe {
        assert_eq!(cudaLibraryLoadData(&mut lib, PTX.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0), cudaSuccess);
    }
    assert!(!lib.is_null());
    lib
}

fn kernel(lib: cudaLibrary_t, name: &CStr) -> cudaKernel_t {
    let mut k = null_mut();
    unsafe { assert_eq!(cudaLibraryGetKernel(&mut k, lib, name.as_ptr()), cudaSuccess) };
    k
}

const ONE: dim3 = dim3 { x: 1, y: 1, z: 1 };

#[test]
fn library_from_ptx_kernels_globals_and_launch() {
    use_fake_driver(&[]);
    let lib = load();
    unsafe {
        let mut n: c_uint = 0;
        assert_eq!(cudaLibraryGetKernelCount(&mut n, lib), cudaSuccess);
        assert_eq!(n, 2);
        let mut ks = [null_mut(); 2];
        assert_eq!(cudaLibraryEnumerateKernels(ks.as_mut_ptr(), 2, lib), cudaSuccess);
        let k = kernel(lib, c"axpb");
        assert_eq!(ks[0], k);
        let mut name: *const c_char = null();
        assert_eq!(cudaFuncGetName(&mut name, k as *const c_void), cudaSuccess);
        assert_eq!(CStr::from_ptr(name), c"axpb");

        // Globals: initial bytes from the image, then real copies.
        let (mut p, mut sz) = (null_mut(), 0usize);
        assert_eq!(cudaLibraryGetGlobal(&mut p, &mut sz, lib, c"counter".as_ptr()), cudaSuccess);
        assert_eq!(sz, 8);
        assert_eq!(*(p as *const [u32; 2]), [7, 9]);
        assert_eq!(cudaLibraryGetManaged(&mut p, &mut sz, lib, c"m".as_ptr()), cudaSuccess);
        assert_eq!((sz, *(p as *const u64)), (8, 3));
        assert_eq!(cudaLibraryGetGlobal(&mut p, &mut sz, lib, c"table".as_ptr()), cudaSuccess);
        assert_eq!(sz, 16);
        assert_eq!(cudaLibraryGetGlobal(&mut p, &mut sz, lib, c"nope".as_ptr()), cudaErrorSymbolNotFound);
        let mut f = null_mut();
        assert_eq!(cudaLibraryGetUnifiedFunction(&mut f, lib, c"nope".as_ptr()), cudaErrorSymbolNotFound);

        // Launch on the cudaKernel_t: pointer, u32, 12-byte struct, u16.
        let mut ptr: u64 = 0x1122_3344_5566_7788;
        let mut a: u32 = 5;
        let mut s: [u8; 12] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
        let mut h: u16 = 0xabcd;
        let mut args = [
            (&mut ptr as *mut u64).cast::<c_void>(),
            (&mut a as *mut u32).cast(),
            s.as_mut_ptr().cast(),
            (&mut h as *mut u16).cast(),
        ];
        let grid = dim3 { x: 4, y: 2, z: 1 };
        let block = dim3 { x: 128, y: 1, z: 1 };
        assert_eq!(cudaLaunchKernel(k as *const c_void, grid, block, args.as_mut_ptr(), 256, cudaStreamPerThread), cudaSuccess);
        assert_eq!(cudaLaunchKernel_ptsz(k as *const c_void, ONE, ONE, args.as_mut_ptr(), 0, null_mut()), cudaSuccess);
        let l = launches();
        assert_eq!(l.len(), 2, "{l:?}");
        // pointer 0x1122334455667788, u32 5, 12 bytes 1..=12, u16 0xabcd.
        assert_eq!(
            l[0],
            "kind=plain name=axpb grid=4,2,1 block=128,1,1 shared=256 stream=0x2 \
             args=8877665544332211050000000102030405060708090a0b0ccdab attrs="
        );
        assert!(l[1].starts_with("kind=plain_ptsz name=axpb"), "{}", l[1]);

        // Parameter layout as the driver reports it.
        let (mut off, mut size) = (0usize, 0usize);
        assert_eq!(cudaFuncGetParamInfo(k as *const c_void, 2, &mut off, &mut size), cudaSuccess);
        assert_eq!((off, size), (12, 12));
        assert_eq!(cudaFuncGetParamInfo(k as *const c_void, 3, &mut off, &mut size), cudaSuccess);
        assert_eq!((off, size), (24, 2));
        assert_eq!(cudaFuncGetParamInfo(k as *const c_void, 4, &mut off, &mut size), cudaErrorInvalidValue);

        assert_eq!(cudaLibraryUnload(lib), cudaSuccess);
        assert_eq!(cudaLibraryUnload(lib), cudaErrorInvalidResourceHandle);
        // The kernel died with its library.
        assert_eq!(cudaLaunchKernel(k as *const c_void, ONE, ONE, args.as_mut_ptr(), 0, null_mut()), cudaErrorInvalidResourceHandle);
    }
}

#[test]
fn library_bad_input() {
    use_fake_driver(&[]);
    unsafe {
        let mut lib = null_mut();
        let none = null_mut();
        assert_eq!(cudaLibraryLoadData(null_mut(), PTX.as_ptr().cast(), none, null_mut(), 0, null_mut(), null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaLibraryLoadData(&mut lib, null(), none, null_mut(), 0, null_mut(), null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaLibraryLoadData(&mut lib, PTX.as_ptr().cast(), none, null_mut(), 2, null_mut(), null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaLibraryLoadData(&mut lib, c"garbage".as_ptr().cast(), none, null_mut(), 0, null_mut(), null_mut(), 0), cudaErrorInvalidKernelImage);
        assert_eq!(
            cudaLibraryLoadFromFile(&mut lib, c"/nonexistent.ptx".as_ptr(), none, null_mut(), 0, null_mut(), null_mut(), 0),
            cudaErrorFileNotFound
        );
        let lib = load();
        let mut k = null_mut();
        assert_eq!(cudaLibraryGetKernel(&mut k, lib, c"missing".as_ptr()), cudaErrorSymbolNotFound);
        assert_eq!(cudaLibraryGetKernel(null_mut(), lib, c"axpb".as_ptr()), cudaErrorInvalidValue);
        assert_eq!(cudaLibraryGetKernel(&mut k, null_mut(), c"axpb".as_ptr()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaLibraryGetKernel(&mut k, lib, null()), cudaErrorInvalidValue);
        assert_eq!(cudaLibraryGetKernelCount(null_mut(), lib), cudaErrorInvalidValue);
        let mut ks = [null_mut(); 3];
        assert_eq!(cudaLibraryEnumerateKernels(ks.as_mut_ptr(), 3, lib), cudaErrorInvalidValue);
        assert_eq!(cudaLibraryUnload(null_mut()), cudaErrorInvalidResourceHandle);
    }
}

#[test]
fn library_from_file() {
    use_fake_driver(&[]);
    let path = scratch("kernels_api_file").join("k.ptx");
    std::fs::write(&path, PTX.to_bytes()).unwrap();
    let c = std::ffi::CString::new(path.display().to_string()).unwrap();
    unsafe {
        let mut lib = null_mut();
        assert_eq!(cudaLibraryLoadFromFile(&mut lib, c.as_ptr(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0), cudaSuccess);
        let mut n = 0;
        assert_eq!(cudaLibraryGetKernelCount(&mut n, lib), cudaSuccess);
        assert_eq!(n, 2);
    }
}

#[test]
fn launch_ex_cooperative_and_configuration_errors() {
    use_fake_driver(&[]);
    let lib = load();
    let k = kernel(lib, c"noargs") as *const c_void;
    unsafe {
        let mut attr: cudaLaunchAttribute = std::mem::zeroed();
        attr.id = cudaLaunchAttributePriority;
        attr.val.priority = -3;
        let cfg = cudaLaunchConfig_t {
            gridDim: dim3 { x: 7, y: 1, z: 1 },
            blockDim: dim3 { x: 32, y: 4, z: 1 },
            dynamicSmemBytes: 1024,
            stream: cudaStreamLegacy,
            attrs: &mut attr,
            numAttrs: 1,
        };
        assert_eq!(cudaLaunchKernelExC(&cfg, k, null_mut()), cudaSuccess);
        assert_eq!(cudaLaunchKernelExC_ptsz(&cfg, k, null_mut()), cudaSuccess);
        assert_eq!(cudaLaunchCooperativeKernel(k, ONE, ONE, null_mut(), 0, null_mut()), cudaSuccess);
        assert_eq!(cudaLaunchCooperativeKernel_ptsz(k, ONE, ONE, null_mut(), 0, null_mut()), cudaSuccess);
        let l = launches();
        assert_eq!(l[0], "kind=ex name=noargs grid=7,1,1 block=32,4,1 shared=1024 stream=0x1 args= attrs=8:-3");
        assert!(l[1].starts_with("kind=ex_ptsz "), "{}", l[1]);
        assert!(l[2].starts_with("kind=cooperative "), "{}", l[2]);
        assert_eq!(l.len(), 4);

        // Bad configurations: dimensions go to the driver, whose
        // cudaErrorInvalidValue NVIDIA's runtime reports (H100, CUDA 13.0);
        // a shared size beyond 32 bits and junk pointers never reach it.
        let mut bad = cfg;
        bad.numAttrs = 2;
        bad.attrs = null_mut();
        assert_eq!(cudaLaunchKernelExC(&bad, k, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaLaunchKernelExC(null(), k, null_mut()), cudaErrorInvalidValue);
        let zero = dim3 { x: 0, y: 1, z: 1 };
        assert_eq!(cudaLaunchKernel(k, zero, ONE, null_mut(), 0, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaLaunchKernel(k, ONE, zero, null_mut(), 0, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaLaunchKernel(k, ONE, ONE, null_mut(), 1 << 33, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaLaunchKernel(k, ONE, dim3 { x: 1025, y: 1, z: 1 }, null_mut(), 0, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidValue);
        assert_eq!(cudaLaunchKernel(null(), ONE, ONE, null_mut(), 0, null_mut()), cudaErrorInvalidDeviceFunction);
        let junk = 0x1234usize as *const c_void;
        assert_eq!(cudaLaunchKernel(junk, ONE, ONE, null_mut(), 0, null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(launches().len(), 4, "no bad launch reached the driver");
    }
}

#[test]
fn function_attributes_and_occupancy() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
    let lib = load();
    let k = kernel(lib, c"axpb");
    let f = k as *const c_void;
    unsafe {
        let mut a: cudaFuncAttributes = std::mem::zeroed();
        assert_eq!(cudaFuncGetAttributes(&mut a, f), cudaSuccess);
        assert_eq!((a.maxThreadsPerBlock, a.numRegs, a.ptxVersion, a.maxDynamicSharedSizeBytes), (1024, 16, 90, 49152));
        assert_eq!(cudaFuncGetAttributes(null_mut(), f), cudaErrorInvalidValue);
        assert_eq!(cudaFuncGetAttributes(&mut a, null()), cudaErrorInvalidDeviceFunction);

        assert_eq!(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536), cudaSuccess);
        assert_eq!(cudaFuncGetAttributes(&mut a, f), cudaSuccess);
        assert_eq!(a.maxDynamicSharedSizeBytes, 65536);
        assert_eq!(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 30), cudaErrorInvalidValue);
        assert_eq!(cudaFuncSetAttribute(f, cudaFuncAttribute(0), 1), cudaErrorInvalidValue, "read-only attribute");
        assert_eq!(cudaFuncSetAttribute(f, cudaFuncAttribute(99), 1), cudaErrorInvalidValue);

        // Per device: setting it for device 1 leaves device 0 alone.
        assert_eq!(cudaKernelSetAttributeForDevice(k, cudaFuncAttributePreferredSharedMemoryCarveout, 50, 1), cudaSuccess);
        assert_eq!(cudaFuncGetAttributes(&mut a, f), cudaSuccess);
        assert_eq!(a.preferredShmemCarveout, -1);
        assert_eq!(cudaSetDevice(1), cudaSuccess);
        assert_eq!(cudaFuncGetAttributes(&mut a, f), cudaSuccess);
        assert_eq!(a.preferredShmemCarveout, 50);
        assert_eq!(cudaKernelSetAttributeForDevice(k, cudaFuncAttributePreferredSharedMemoryCarveout, 50, 2), cudaErrorInvalidDevice);
        assert_eq!(cudaKernelSetAttributeForDevice(k, cudaFuncAttributePreferredSharedMemoryCarveout, 50, -1), cudaErrorInvalidDevice);

        assert_eq!(cudaFuncSetCacheConfig(f, cudaFuncCachePreferShared), cudaSuccess);
        assert_eq!(cudaFuncSetCacheConfig(f, cudaFuncCache(9)), cudaErrorInvalidValue);
        assert_eq!(cudaFuncSetSharedMemConfig(f, cudaSharedMemBankSizeFourByte), cudaSuccess);
        assert_eq!(cudaFuncSetSharedMemConfig(f, cudaSharedMemConfig(7)), cudaErrorInvalidValue);

        let mut func = null_mut();
        assert_eq!(cudaGetFuncBySymbol(&mut func, f), cudaSuccess);
        assert_eq!(func as usize, k as usize, "the fake's function is its kernel");
        assert_eq!(cudaGetFuncBySymbol(null_mut(), f), cudaErrorInvalidValue);
        let mut kk = null_mut();
        assert_eq!(cudaGetKernel(&mut kk, f), cudaSuccess);
        assert_eq!(kk, k);

        // Occupancy (the fake's model: 2048 threads, 32 blocks, 228 KiB per SM).
        let mut n = 0;
        assert_eq!(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, 256, 0), cudaSuccess);
        assert_eq!(n, 8);
        assert_eq!(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut n, f, 64, 56 * 1024, cudaOccupancyDisableCachingOverride), cudaSuccess);
        assert_eq!(n, 4);
        assert_eq!(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut n, f, 64, 0, 4), cudaErrorInvalidValue);
        assert_eq!(cudaOccupancyMaxActiveBlocksPerMultiprocessor(null_mut(), f, 64, 0), cudaErrorInvalidValue);
        let mut smem = 0usize;
        assert_eq!(cudaOccupancyAvailableDynamicSMemPerBlock(&mut smem, f, 2, 256), cudaSuccess);
        assert_eq!(smem, 114 * 1024 - 1024);
        let cfg = cudaLaunchConfig_t {
            gridDim: dim3 { x: 16, y: 1, z: 1 },
            blockDim: dim3 { x: 128, y: 1, z: 1 },
            dynamicSmemBytes: 0,
            stream: null_mut(),
            attrs: null_mut(),
            numAttrs: 0,
        };
        let mut c = 0;
        assert_eq!(cudaOccupancyMaxPotentialClusterSize(&mut c, f, &cfg), cudaSuccess);
        assert_eq!(c, 8);
        assert_eq!(cudaOccupancyMaxActiveClusters(&mut c, f, &cfg), cudaSuccess);
        assert_eq!(c, 66);
        assert_eq!(cudaOccupancyMaxActiveClusters(&mut c, f, null()), cudaErrorInvalidValue);
    }
}

#[test]
fn driver_entry_points() {
    use_fake_driver(&[]);
    unsafe {
        let mut p = null_mut();
        let mut st = cudaDriverEntryPointQueryResult(-1);
        assert_eq!(cudaGetDriverEntryPoint(c"cuLaunchKernel".as_ptr(), &mut p, cudaEnableDefault, &mut st), cudaSuccess);
        assert_eq!(st, cudaDriverEntryPointSuccess);
        assert_eq!(p, fake::proc("cuLaunchKernel"));
        // Unknown: success, NULL, status not found.
        p = std::ptr::dangling_mut();
        assert_eq!(cudaGetDriverEntryPointByVersion(c"cuNoSuchThing".as_ptr(), &mut p, 13000, cudaEnableDefault, &mut st), cudaSuccess);
        assert!(p.is_null());
        assert_eq!(st, cudaDriverEntryPointSymbolNotFound);
        assert_eq!(cudaGetDriverEntryPointByVersion(c"cuNoSuchThing".as_ptr(), &mut p, 13000, cudaEnableDefault, null_mut()), cudaSuccess);
        // The per-thread flavour (the fake registers cuLaunchKernel@ptds).
        let mut q = null_mut();
        assert_eq!(cudaGetDriverEntryPointByVersion_ptsz(c"cuLaunchKernel".as_ptr(), &mut q, 13000, cudaEnableDefault, &mut st), cudaSuccess);
        assert!(!q.is_null());
        assert_ne!(q, fake::proc("cuLaunchKernel"));
        let mut r = null_mut();
        assert_eq!(cudaGetDriverEntryPoint(c"cuLaunchKernel".as_ptr(), &mut r, cudaEnablePerThreadDefaultStream, &mut st), cudaSuccess);
        assert_eq!(q, r);
        assert_eq!(cudaGetDriverEntryPoint_ptsz(c"cuLaunchKernel".as_ptr(), &mut r, cudaEnableLegacyStream, &mut st), cudaSuccess);
        assert_eq!(r, fake::proc("cuLaunchKernel"));
        // Bad input.
        assert_eq!(cudaGetDriverEntryPoint(null(), &mut p, 0, &mut st), cudaErrorInvalidValue);
        assert_eq!(cudaGetDriverEntryPoint(c"cuInit".as_ptr(), null_mut(), 0, &mut st), cudaErrorInvalidValue);
        assert_eq!(cudaGetDriverEntryPoint(c"cuInit".as_ptr(), &mut p, 8, &mut st), cudaErrorInvalidValue);

        let id = cudaUUID_t { bytes: [1; 16] };
        let mut t = null();
        assert_eq!(cudaGetExportTable(&mut t, &id), cudaSuccess);
        assert!(!t.is_null());
        assert_eq!(fake::calls("cuGetExportTable"), 1);
        assert_eq!(cudaGetExportTable(&mut t, null()), cudaErrorInvalidValue);
        assert!(__cudaGetProcAddress().is_null());
    }
}

#[test]
fn call_configuration_stack_is_per_thread() {
    use_fake_driver(&[]);
    unsafe {
        let (mut g, mut b, mut s, mut st) = (dim3::default(), dim3::default(), 0usize, null_mut::<CUstream_st>());
        let pop = |g: &mut dim3, b: &mut dim3, s: &mut usize, st: &mut cudaStream_t| {
            __cudaPopCallConfiguration(g, b, s, (st as *mut cudaStream_t).cast())
        };
        assert_eq!(pop(&mut g, &mut b, &mut s, &mut st), cudaErrorMissingConfiguration);
        assert_eq!(cudaGetLastError(), cudaErrorMissingConfiguration);
        assert_eq!(__cudaPushCallConfiguration(dim3 { x: 1, y: 2, z: 3 }, dim3 { x: 4, y: 5, z: 6 }, 7, cudaStreamLegacy), 0);
        assert_eq!(__cudaPushCallConfiguration(dim3 { x: 9, y: 9, z: 9 }, ONE, 0, null_mut()), 0);
        std::thread::spawn(|| {
            let (mut g, mut b, mut s, mut st) = (dim3::default(), dim3::default(), 0usize, null_mut::<CUstream_st>());
            assert_eq!(
                __cudaPopCallConfiguration(&mut g, &mut b, &mut s, (&mut st as *mut cudaStream_t).cast()),
                cudaErrorMissingConfiguration
            );
        })
        .join()
        .unwrap();
        assert_eq!(pop(&mut g, &mut b, &mut s, &mut st), cudaSuccess);
        assert_eq!(g, dim3 { x: 9, y: 9, z: 9 });
        assert_eq!(pop(&mut g, &mut b, &mut s, &mut st), cudaSuccess);
        assert_eq!((g, b, s, st), (dim3 { x: 1, y: 2, z: 3 }, dim3 { x: 4, y: 5, z: 6 }, 7, cudaStreamLegacy));
        assert_eq!(pop(&mut g, &mut b, &mut s, &mut st), cudaErrorMissingConfiguration);
    }
}

#[test]
fn hidden_registration_lazy_load_and_launch() {
    use_fake_driver(&[]);
    static STUB: u8 = 0;
    static VAR: [u8; 8] = [0; 8];
    static mut MANAGED: *mut c_void = null_mut();
    let w = fatbin_wrapper(PTX);
    unsafe {
        let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
        assert!(!h.is_null());
        let stub = (&STUB as *const u8).cast::<c_char>();
        __cudaRegisterFunction(h, stub, c"axpb".as_ptr() as *mut c_char, c"axpb".as_ptr(), -1, null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        __cudaRegisterVar(h, VAR.as_ptr() as *mut c_char, c"counter".as_ptr() as *mut c_char, c"counter".as_ptr(), 0, 8, 0, 0);
        __cudaRegisterManagedVar(h, &raw mut MANAGED, c"m".as_ptr() as *mut c_char, c"m".as_ptr(), 0, 8, 0, 0);
        __cudaRegisterFatBinaryEnd(h);
        assert_eq!(fake::calls("cuLibraryLoadData"), 0, "registration must not load");

        // The managed host pointer is set by __cudaInitModule.
        assert_eq!(__cudaInitModule(h), 1);
        assert_eq!(fake::calls("cuLibraryLoadData"), 1);
        assert!(!MANAGED.is_null());
        assert_eq!(*(MANAGED as *const u64), 3);

        let mut k = null_mut();
        assert_eq!(__cudaGetKernel(&mut k, stub.cast()), cudaSuccess);
        assert_eq!(__cudaGetKernel(&mut k, VAR.as_ptr().cast()), cudaErrorInvalidDeviceFunction);
        let mut name: *const c_char = null();
        assert_eq!(cudaFuncGetName(&mut name, stub.cast()), cudaSuccess);
        assert_eq!(CStr::from_ptr(name), c"axpb");

        // __cudaLaunchKernel with a handle from __cudaGetKernel.
        let mut ptr = 0u64;
        let mut a = 1u32;
        let mut s = [0u8; 12];
        let mut h16 = 2u16;
        let mut args = [(&mut ptr as *mut u64).cast::<c_void>(), (&mut a as *mut u32).cast(), s.as_mut_ptr().cast(), (&mut h16 as *mut u16).cast()];
        assert_eq!(__cudaLaunchKernel(k, ONE, ONE, args.as_mut_ptr(), 0, null_mut()), cudaSuccess);
        assert_eq!(__cudaLaunchKernel_ptsz(k, ONE, ONE, args.as_mut_ptr(), 0, null_mut()), cudaSuccess);
        assert_eq!(__cudaLaunchKernel(null_mut(), ONE, ONE, args.as_mut_ptr(), 0, null_mut()), cudaErrorInvalidDeviceFunction);
        assert_eq!(launches().len(), 2);

        // Symbols by host shadow; managed by its managed address.
        let mut sz = 0;
        assert_eq!(cudaGetSymbolSize(&mut sz, VAR.as_ptr().cast()), cudaSuccess);
        assert_eq!(sz, 8);
        let mut back = [0u32; 2];
        assert_eq!(cudaMemcpyFromSymbol(back.as_mut_ptr().cast(), VAR.as_ptr().cast(), 8, 0, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_eq!(back, [7, 9]);
        let v = 0xfeed_u64;
        assert_eq!(cudaMemcpyToSymbol(MANAGED, (&v as *const u64).cast(), 8, 0, cudaMemcpyDefault), cudaSuccess);
        assert_eq!(*(MANAGED as *const u64), 0xfeed);
        assert_eq!(cudaMemcpyToSymbol_ptds(VAR.as_ptr().cast(), (&v as *const u64).cast(), 4, 4, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(cudaMemcpyFromSymbol_ptds(back.as_mut_ptr().cast(), VAR.as_ptr().cast(), 8, 0, cudaMemcpyDefault), cudaSuccess);
        assert_eq!(back, [7, 0xfeed]);
        assert_eq!(cudaMemcpyToSymbolAsync_ptsz(VAR.as_ptr().cast(), (&v as *const u64).cast(), 4, 0, cudaMemcpyHostToDevice, null_mut()), cudaSuccess);
        assert_eq!(cudaMemcpyFromSymbolAsync_ptsz(back.as_mut_ptr().cast(), VAR.as_ptr().cast(), 8, 0, cudaMemcpyDeviceToHost, null_mut()), cudaSuccess);
        assert_eq!(back, [0xfeed, 0xfeed]);
        assert_eq!(cudaMemcpyToSymbol(VAR.as_ptr().cast(), null(), 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpyToSymbol(VAR.as_ptr().cast(), (&v as *const u64).cast(), 0, 8, cudaMemcpyHostToDevice), cudaSuccess);
        assert_eq!(cudaMemcpyToSymbol(VAR.as_ptr().cast(), (&v as *const u64).cast(), 1, usize::MAX, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        assert_eq!(cudaMemcpyFromSymbol(back.as_mut_ptr().cast(), VAR.as_ptr().cast(), 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidMemcpyDirection);
        let mut addr = null_mut();
        assert_eq!(cudaGetSymbolAddress(&mut addr, null()), cudaErrorInvalidSymbol);
        assert_eq!(cudaGetSymbolAddress(null_mut(), VAR.as_ptr().cast()), cudaErrorInvalidValue);

        // Modules survive cudaDeviceReset (libraries are context-free).
        assert_eq!(cudaDeviceReset(), cudaSuccess);
        assert_eq!(__cudaLaunchKernel(k, ONE, ONE, args.as_mut_ptr(), 0, null_mut()), cudaSuccess);
        assert_eq!(fake::calls("cuLibraryLoadData"), 1);

        // Unregistration forgets the module; stale handles stay harmless.
        __cudaUnregisterFatBinary(h);
        assert_eq!(fake::calls("cuLibraryUnload"), 1);
        __cudaUnregisterFatBinary(h);
        assert_eq!(fake::calls("cuLibraryUnload"), 1);
        // An unregistered stub is no kernel: NVIDIA's code for a pointer that is not one.
        assert_eq!(cudaLaunchKernel(stub.cast(), ONE, ONE, args.as_mut_ptr(), 0, null_mut()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaGetSymbolSize(&mut sz, VAR.as_ptr().cast()), cudaErrorInvalidSymbol);
        __cudaRegisterFatBinaryEnd(null_mut());
        __cudaUnregisterFatBinary(null_mut());
        assert_eq!(__cudaInitModule(null_mut()), 0);
    }
}

#[test]
fn load_failure_reaches_every_launch_through_the_stub_handle() {
    use_fake_driver(&[("FAKE_CUDA_FAIL", "cuLibraryLoadData:0:209")]);
    static STUB: u8 = 0;
    let w = fatbin_wrapper(PTX);
    unsafe {
        let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
        let stub = (&STUB as *const u8).cast::<c_char>();
        __cudaRegisterFunction(h, stub, null_mut(), c"axpb".as_ptr(), -1, null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        __cudaRegisterFatBinaryEnd(h);
        let mut k = null_mut();
        assert_eq!(__cudaGetKernel(&mut k, stub.cast()), cudaSuccess);
        assert!(!k.is_null());
        assert_eq!(__cudaLaunchKernel(k, ONE, ONE, null_mut(), 0, null_mut()), cudaErrorNoKernelImageForDevice);
        assert_eq!(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
        assert_eq!(__cudaLaunchKernel(k, ONE, ONE, null_mut(), 0, null_mut()), cudaErrorNoKernelImageForDevice);
        assert_eq!(cudaLaunchKernel(stub.cast(), ONE, ONE, null_mut(), 0, null_mut()), cudaErrorNoKernelImageForDevice);
        assert_eq!(launches().len(), 0);
    }
}

#[test]
fn no_driver_gives_insufficient_driver() {
    unsafe {
        std::env::set_var("CUDART_SHIM_DRIVER", "/nonexistent/libcuda.so.1");
        let mut lib = null_mut();
        assert_eq!(cudaLibraryLoadData(&mut lib, PTX.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0), cudaErrorInsufficientDriver);
        let mut p = null_mut();
        assert_eq!(cudaGetDriverEntryPoint(c"cuInit".as_ptr(), &mut p, 0, null_mut()), cudaErrorInsufficientDriver);
        let _: c_int = 0;
    }
}

#[test]
fn registered_kernels_work_on_every_device() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2")]);
    static STUB: u8 = 0;
    let w = fatbin_wrapper(PTX);
    unsafe {
        let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
        let stub = (&STUB as *const u8).cast::<c_char>();
        __cudaRegisterFunction(h, stub, null_mut(), c"noargs".as_ptr(), -1, null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        __cudaRegisterFatBinaryEnd(h);
        assert_eq!(cudaLaunchKernel(stub.cast(), ONE, ONE, null_mut(), 0, null_mut()), cudaSuccess);
        assert_eq!(cudaSetDevice(1), cudaSuccess);
        assert_eq!(cudaLaunchKernel(stub.cast(), ONE, ONE, null_mut(), 0, null_mut()), cudaSuccess);
        assert_eq!(cudaSetDevice(0), cudaSuccess);
        assert_eq!(cudaDeviceReset(), cudaSuccess);
        assert_eq!(cudaLaunchKernel(stub.cast(), ONE, ONE, null_mut(), 0, null_mut()), cudaSuccess);
        assert_eq!(launches().len(), 3);
        assert_eq!(fake::calls("cuLibraryLoadData"), 1, "one library for every device and across resets");
    }
}

#[test]
fn kernel_handles_map_back_to_stubs_and_names() {
    use cudart_shim::internals::registry;
    use_fake_driver(&[]);
    static STUB: u8 = 0;
    let w = fatbin_wrapper(PTX);
    unsafe {
        let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
        let stub = (&STUB as *const u8).cast::<c_char>();
        __cudaRegisterFunction(h, stub, null_mut(), c"axpb".as_ptr(), -1, null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        __cudaRegisterFatBinaryEnd(h);
        let k = registry::resolve(stub.cast()).unwrap();
        assert_eq!(registry::stub_for_kernel(k), stub.cast());
        assert_eq!(CStr::from_ptr(registry::function_of_kernel(k).unwrap().name), c"axpb");
        // A library kernel has no stub: the handle stands for itself.
        let lib = load();
        let lk = kernel(lib, c"noargs");
        assert_eq!(registry::stub_for_kernel(lk), lk as *const c_void);
        assert!(registry::function_of_kernel(lk).is_none());
        let mut name: *const c_char = null();
        assert_eq!(cudaFuncGetName(&mut name, lk as *const c_void), cudaSuccess);
        assert_eq!(CStr::from_ptr(name), c"noargs");
    }
}

/// Registration stores pointers only: thousands of kernels (PyTorch) cost
/// no driver call, not even initialization.
#[test]
fn registering_thousands_of_kernels_touches_no_driver() {
    use_fake_driver(&[]);
    static STUBS: [u8; 5000] = [0; 5000];
    let names: Vec<std::ffi::CString> = (0..5000).map(|i| std::ffi::CString::new(format!("k{i}")).unwrap()).collect();
    let w = fatbin_wrapper(PTX);
    let t0 = std::time::Instant::now();
    unsafe {
        for chunk in 0..5 {
            let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
            for (i, name) in names.iter().enumerate().skip(chunk * 1000).take(1000) {
                let stub = STUBS.as_ptr().add(i).cast::<c_char>();
                __cudaRegisterFunction(h, stub, null_mut(), name.as_ptr(), -1, null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
            }
            __cudaRegisterFatBinaryEnd(h);
        }
    }
    let took = t0.elapsed();
    for f in ["cuGetProcAddress", "cuInit", "cuLibraryLoadData", "cuLibraryGetKernel"] {
        assert_eq!(fake::calls(f), 0, "{f} during registration");
    }
    eprintln!("5000 registrations: {took:?}");
    // Generous bound (debug build, shared CI machine): microseconds each.
    assert!(took.as_millis() < 2000, "{took:?}");
}
