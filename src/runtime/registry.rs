//! The fatbinary/kernel registry behind nvcc's hidden API.
//!
//! nvcc's host code registers, from a constructor before `main`, each
//! translation unit's (or, with `-rdc`, each device-linked) fatbinary,
//! then its kernels (by host stub address and device name), variables and
//! managed variables. Importing PyTorch registers thousands of kernels, so
//! registration only stores pointers: no driver call, no parsing, no copy
//! of any name (the strings live in the program's read-only data).
//!
//! Loading is lazy, as NVIDIA's runtime does by default: the first need of
//! a fatbinary (a launch, an attribute query, a symbol copy) loads it with
//! `cuLibraryLoadData(wrapper->data)`; `CUDA_MODULE_LOADING=EAGER` loads at
//! `__cudaRegisterFatBinaryEnd`. A library is context-independent: its
//! `CUkernel` handles work on every device and survive `cudaDeviceReset`
//! (the driver loads the module into each context at first use).
//!
//! Records are leaked (`&'static`): handles given to the program stay
//! valid in every teardown order. Lookups by host address or kernel handle
//! take no lock ([`AddrMap`]): `cudaLaunchKernel` from many threads costs
//! what the `<<<>>>` path does plus a few atomic loads. Only registration
//! and a kernel's first resolution take the maps' writer mutex, never
//! across a driver call.

use crate::driver::api::*;
use crate::driver::{CUdeviceptr, CUkernel, CUlibrary};
use crate::types::*;
use super::addr_map::AddrMap;
use parking_lot::Mutex;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::OnceLock;

/// C: `__fatBinC_Wrapper_t` (`fatbinary_section.h`).
#[repr(C)]
pub struct Wrapper {
    pub magic: c_int,
    pub version: c_int,
    pub data: *const u64,
    pub filename_or_fatbins: *mut c_void,
}

/// One registered fatbinary. The address of `handle` is what
/// `__cudaRegisterFatBinary` returns (`void **`); the stub hands it back.
pub struct FatBinary {
    /// Must stay the first field: the handle given to nvcc's code is the
    /// address of the record.
    handle: *mut c_void,
    wrapper: *const Wrapper,
    /// The loaded library, or why loading failed (computed once; a failure
    /// is permanent, as in NVIDIA's runtime).
    library: OnceLock<Result<usize, cudaError_t>>,
    managed: Mutex<Vec<&'static Var>>,
    unregistered: AtomicBool,
}

// SAFETY: the raw pointers point to the program's static data, read-only.
unsafe impl Send for FatBinary {}
unsafe impl Sync for FatBinary {}

/// A registered kernel.
pub struct Function {
    pub module: &'static FatBinary,
    /// The host stub's address (what the program calls the kernel by).
    pub host_fun: usize,
    /// The device (mangled) name, in the program's read-only data.
    pub name: *const c_char,
    kernel: AtomicPtr<crate::types::CUkern_st>,
}

unsafe impl Send for Function {}
unsafe impl Sync for Function {}

/// A registered `__device__`, `__constant__` or `__managed__` variable.
pub struct Var {
    pub module: &'static FatBinary,
    pub name: *const c_char,
    /// `__managed__`: where the program's host pointer to it lives.
    pub managed_host_ptr: *mut *mut c_void,
}

unsafe impl Send for Var {}
unsafe impl Sync for Var {}

/// Registered kernels by host stub address.
static FUNCTIONS: AddrMap<Function> = AddrMap::new();
/// Registered variables by host shadow address (and, for `__managed__`
/// ones, by managed address too).
static VARS: AddrMap<Var> = AddrMap::new();
/// Kernel handles of registered functions, so `cudaLaunchKernel` and
/// friends can tell a `cudaKernel_t` from a host stub, and names and stubs
/// can be found from a handle.
static KERNELS: AddrMap<Function> = AddrMap::new();
/// Other kernel handles the runtime handed out (library kernels).
static OTHER_KERNELS: AddrMap<()> = AddrMap::new();

fn eager() -> bool {
    static EAGER: OnceLock<bool> = OnceLock::new();
    *EAGER.get_or_init(|| crate::config::env_var("CUDA_MODULE_LOADING").is_some_and(|v| v.eq_ignore_ascii_case("EAGER")))
}

/// `__cudaRegisterFatBinary`: record the wrapper; load nothing.
pub fn register_fat_binary(wrapper: *mut c_void) -> *mut *mut c_void {
    let w = wrapper.cast::<Wrapper>();
    let rec: &'static mut FatBinary = Box::leak(Box::new(FatBinary {
        handle: null_mut(),
        wrapper: w,
        library: OnceLock::new(),
        managed: Mutex::new(Vec::new()),
        unregistered: AtomicBool::new(false),
    }));
    let p: *mut FatBinary = rec;
    rec.handle = p.cast();
    p.cast()
}

/// The record behind a handle from [`register_fat_binary`].
fn record(handle: *mut *mut c_void) -> Option<&'static FatBinary> {
    // SAFETY: handles are only ever produced by register_fat_binary, whose
    // records are leaked; a NULL handle is rejected. The self-pointer check
    // rejects most foreign pointers.
    let r = unsafe { handle.cast::<FatBinary>().as_ref() }?;
    (r.handle == handle.cast()).then_some(r)
}

/// `__cudaRegisterFatBinaryEnd`: with `CUDA_MODULE_LOADING=EAGER`, load now.
pub fn register_end(handle: *mut *mut c_void) {
    let Some(fb) = record(handle) else { return };
    if eager()
        && let Err(e) = fb.library()
    {
        log::warn!("CUDA_MODULE_LOADING=EAGER: loading a fatbinary failed with {}", super::error::name(e));
    }
}

/// `__cudaUnregisterFatBinary` (from `atexit`, or when a library holding
/// kernels is unloaded): forget its functions and variables, and unload the
/// driver library if it was loaded. The records stay (leaked), so a stale
/// handle or a late launch finds an unregistered module, never freed memory.
pub fn unregister(handle: *mut *mut c_void) {
    let Some(fb) = record(handle) else { return };
    if fb.unregistered.swap(true, Ordering::AcqRel) {
        return;
    }
    FUNCTIONS.retain(|f| !std::ptr::eq(f.module, fb));
    VARS.retain(|v| !std::ptr::eq(v.module, fb));
    if let Some(Ok(lib)) = fb.library.get() {
        // The driver may already be tearing down at exit; it answers
        // CUDA_ERROR_DEINITIALIZED then, which is fine to ignore.
        let _ = cu!(cuLibraryUnload(*lib as CUlibrary));
    }
}

/// `__cudaRegisterFunction`.
pub fn register_function(handle: *mut *mut c_void, host_fun: *const c_char, device_name: *const c_char) {
    let Some(module) = record(handle) else { return };
    if host_fun.is_null() || device_name.is_null() {
        return;
    }
    // Traces name kernels through this registry (the first registration
    // hands them the lookup; later calls find it set).
    crate::trace::set_symbol_namer(trace_name);
    let f: &'static Function = Box::leak(Box::new(Function { module, host_fun: host_fun as usize, name: device_name, kernel: AtomicPtr::new(null_mut()) }));
    FUNCTIONS.insert(host_fun as usize, f);
}

/// `__cudaRegisterVar` / `__cudaRegisterManagedVar`. The registered size is
/// not kept: the driver reports a variable's size when it is looked up
/// (`cuLibraryGetGlobal` / `cuLibraryGetManaged`).
pub fn register_var(handle: *mut *mut c_void, host_var: *const c_void, name: *const c_char, managed: bool) {
    let Some(module) = record(handle) else { return };
    if host_var.is_null() || name.is_null() {
        return;
    }
    let managed_host_ptr = if managed { host_var as *mut *mut c_void } else { null_mut() };
    let v: &'static Var = Box::leak(Box::new(Var { module, name, managed_host_ptr }));
    if managed {
        module.managed.lock().push(v);
        // Loaded already (eager, or registered late): fill it in now.
        if let Some(Ok(lib)) = module.library.get() {
            fill_managed(*lib as CUlibrary, v);
        }
    }
    VARS.insert(host_var as usize, v);
}

/// `__cudaInitModule`: load the module so `__managed__` host pointers are
/// set. Returns whether it worked.
pub fn init_module(handle: *mut *mut c_void) -> bool {
    record(handle).is_some_and(|fb| fb.library().is_ok())
}

fn fill_managed(lib: CUlibrary, v: &'static Var) {
    let mut dptr: CUdeviceptr = 0;
    let mut bytes = 0usize;
    match cu!(cuLibraryGetManaged(&mut dptr, &mut bytes, lib, v.name)) {
        Ok(()) => {
            // SAFETY: nvcc passes the address of the host shadow pointer.
            unsafe { *v.managed_host_ptr = dptr as *mut c_void };
            // Host code names a managed variable by its managed address
            // (`cudaMemcpyToSymbol(mv, ...)` dereferences the shadow).
            VARS.insert(dptr as usize, v);
        }
        Err(e) => log::warn!("__managed__ variable {}: cuLibraryGetManaged failed with {}", name_of(v.name), super::error::name(e)),
    }
}

fn name_of(p: *const c_char) -> String {
    // SAFETY: registered names are NUL-terminated strings from nvcc.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

impl FatBinary {
    /// The driver library, loaded on first call.
    pub fn library(&'static self) -> CudaResult<CUlibrary> {
        if self.unregistered.load(Ordering::Acquire) {
            return Err(cudaErrorInvalidDeviceFunction);
        }
        let r = self.library.get_or_init(|| self.load());
        r.map(|l| l as CUlibrary)
    }

    fn load(&'static self) -> Result<usize, cudaError_t> {
        super::state::runtime()?;
        // SAFETY: the wrapper is the program's static __fatDeviceText.
        let w = unsafe { self.wrapper.as_ref() }.ok_or(cudaErrorInvalidKernelImage)?;
        if w.magic as u32 != crate::fatbin::WRAPPER_MAGIC || !(1..=2).contains(&w.version) {
            log::error!("a registered fatbinary wrapper has magic {:#x}, version {}: not nvcc's; its kernels cannot run", w.magic as u32, w.version);
            return Err(cudaErrorInvalidKernelImage);
        }
        let data = w.data.cast::<u8>();
        // SAFETY: nvcc's wrapper points to a complete container in .nv_fatbin.
        match unsafe { crate::fatbin::parse_ptr(data) } {
            Ok(c) => {
                log::debug!("loading fatbinary v{} at {:p}: {}", w.version, data, c.summary());
                check_arch(&c);
            }
            Err(e) => log::warn!("fatbinary at {data:p}: {e}; handing it to the driver anyway"),
        }
        let mut lib: CUlibrary = null_mut();
        // The image is static data that outlives the library: no copy. The
        // option's value is the integer 1 in a pointer-sized slot.
        let mut opt = [CU_LIBRARY_BINARY_IS_PRESERVED];
        let mut val = [std::ptr::without_provenance_mut::<c_void>(1)];
        cu!(cuLibraryLoadData(&mut lib, data.cast(), null_mut(), null_mut(), 0, opt.as_mut_ptr(), val.as_mut_ptr(), 1))
            .inspect_err(|e| log::warn!("cuLibraryLoadData of a registered fatbinary failed with {}", super::error::name(*e)))?;
        // Copied out: no lock is held across the driver calls.
        let managed: Vec<&'static Var> = self.managed.lock().clone();
        for v in managed {
            fill_managed(lib, v);
        }
        Ok(lib as usize)
    }
}

/// Warn (once per fatbinary) when it has no code for the current device.
fn check_arch(c: &crate::fatbin::Container<'_>) {
    let Ok((_, dev)) = super::context::enter() else { return };
    let Ok(rt) = super::state::runtime() else { return };
    let cu_dev = rt.devices[dev as usize].cu;
    let (mut major, mut minor) = (0, 0);
    // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR.
    if cu!(cuDeviceGetAttribute(&mut major, 75, cu_dev)).is_err() || cu!(cuDeviceGetAttribute(&mut minor, 76, cu_dev)).is_err() {
        return;
    }
    let sm = (major * 10 + minor) as u32;
    if !c.runs_on(sm) {
        log::warn!(
            "this binary has no code for sm_{sm} (device {dev}); it has: {}. Its kernels fail with cudaErrorNoKernelImageForDevice; rebuild with -gencode for sm_{sm} or include PTX.",
            c.summary()
        );
    }
}

impl Function {
    /// The kernel handle, resolved (and the library loaded) on first call.
    pub fn kernel(&'static self) -> CudaResult<CUkernel> {
        let k = self.kernel.load(Ordering::Acquire);
        if !k.is_null() {
            return Ok(k);
        }
        let lib = self.module.library()?;
        let mut k = null_mut();
        cu!(cuLibraryGetKernel(&mut k, lib, self.name))?;
        self.kernel.store(k, Ordering::Release);
        if !k.is_null() {
            KERNELS.insert(k as usize, self);
        }
        Ok(k)
    }
}

/// The registered function whose host stub is `host_fun`.
pub fn function(host_fun: *const c_void) -> Option<&'static Function> {
    FUNCTIONS.get(host_fun as usize)
}

/// The registered variable whose host shadow is `host_var`.
pub fn var(host_var: *const c_void) -> Option<&'static Var> {
    VARS.get(host_var as usize)
}

/// Note a kernel handle given to the program (`cudaGetKernel`,
/// `cudaLibraryGetKernel`, ...).
pub fn remember_kernel(k: CUkernel) {
    if !k.is_null() && KERNELS.get(k as usize).is_none() && OTHER_KERNELS.get(k as usize).is_none() {
        OTHER_KERNELS.insert(k as usize, &());
    }
}

/// The registered function behind a kernel handle, if the program
/// registered one (nvcc code); `None` for library kernels and unknown
/// handles.
pub fn function_of_kernel(k: CUkernel) -> Option<&'static Function> {
    KERNELS.get(k as usize)
}

/// The host stub the program knows a kernel by (graph kernel-node queries
/// report it, as NVIDIA's runtime does); the handle itself when the kernel
/// has no stub (library kernels).
pub fn stub_for_kernel(k: CUkernel) -> *const c_void {
    function_of_kernel(k).map_or(k as *const c_void, |f| f.host_fun as *const c_void)
}

/// A `const void *func` of the runtime API (host stub or `cudaKernel_t`) as
/// a kernel handle. NULL is `cudaErrorInvalidDeviceFunction`; a pointer
/// that is neither a registered stub nor a kernel the runtime handed out is
/// `cudaErrorInvalidResourceHandle` (both as NVIDIA's runtime answers,
/// measured on H100 / CUDA 13.0 for cudaLaunchKernel and
/// cudaFuncGetAttributes); it is never passed to the driver, which may not
/// survive a bogus handle.
pub fn resolve(func: *const c_void) -> CudaResult<CUkernel> {
    if func.is_null() {
        return Err(cudaErrorInvalidDeviceFunction);
    }
    let key = func as usize;
    if let Some(f) = FUNCTIONS.get(key) {
        return f.kernel();
    }
    if KERNELS.get(key).is_some() || OTHER_KERNELS.get(key).is_some() {
        return Ok(func as CUkernel);
    }
    super::state::runtime()?;
    Err(cudaErrorInvalidResourceHandle)
}

/// Tag of a `__cudaGetKernel` handle whose loading failed: the stub caches
/// it, and each launch through it retries and reports the real error.
/// Records are 8-aligned and driver handles are aligned, so bit 0 is free.
const UNRESOLVED_TAG: usize = 1;

/// `__cudaGetKernel`: the kernel of a host stub. On a load failure the
/// handle is a tagged pointer to the record, so the launch (whose error the
/// program sees) retries and reports why.
pub fn get_kernel_for_stub(out: Option<&mut CUkernel>, host_fun: *const c_void) -> CudaResult {
    super::out_first(out, || {
        let f = function(host_fun).ok_or(cudaErrorInvalidDeviceFunction)?;
        match f.kernel() {
            Ok(k) => Ok(k),
            Err(_) => Ok((f as *const Function as usize | UNRESOLVED_TAG) as CUkernel),
        }
    })
}

/// The kernel a `__cudaLaunchKernel` handle stands for.
#[inline(always)]
pub fn stub_kernel(k: CUkernel) -> CudaResult<CUkernel> {
    if k as usize & UNRESOLVED_TAG == 0 {
        return if k.is_null() { Err(cudaErrorInvalidDeviceFunction) } else { Ok(k) };
    }
    unresolved(k)
}

#[cold]
fn unresolved(k: CUkernel) -> CudaResult<CUkernel> {
    let p = (k as usize & !UNRESOLVED_TAG) as *const Function;
    // SAFETY: only get_kernel_for_stub makes tagged handles, from leaked
    // records; the program got it from there.
    let f: &'static Function = unsafe { &*p };
    f.kernel()
}

/// The device name of a host stub or kernel (`cudaFuncGetName`).
pub fn func_name(func: *const c_void) -> CudaResult<*const c_char> {
    if let Some(f) = function(func) {
        return Ok(f.name);
    }
    let k = resolve(func)?;
    let mut name = std::ptr::null();
    cu!(cuKernelGetName(&mut name, k))?;
    Ok(name)
}

/// Address and size of a variable in the current context.
pub fn var_address(host_var: *const c_void) -> CudaResult<(CUdeviceptr, usize)> {
    let v = var(host_var).ok_or(cudaErrorInvalidSymbol)?;
    let lib = v.module.library()?;
    super::context::enter()?;
    let (mut dptr, mut bytes) = (0, 0);
    if v.managed_host_ptr.is_null() {
        cu!(cuLibraryGetGlobal(&mut dptr, &mut bytes, lib, v.name))?;
    } else {
        cu!(cuLibraryGetManaged(&mut dptr, &mut bytes, lib, v.name))?;
    }
    Ok((dptr, bytes))
}

/// The device ordinal's driver handle.
pub fn cu_device(ordinal: c_int) -> CudaResult<crate::driver::CUdevice> {
    Ok(super::state::runtime()?.device(ordinal)?.cu)
}

/// For traces: the kernel name of a host stub or kernel handle (see
/// `trace::set_symbol_namer`, registered at initialization).
pub fn trace_name(addr: u64, out: &mut String) -> bool {
    let f = function(addr as usize as *const c_void).or_else(|| function_of_kernel(addr as usize as CUkernel));
    match f {
        Some(f) if !f.name.is_null() => {
            // SAFETY: registered names are NUL-terminated strings from nvcc.
            out.push_str(&unsafe { std::ffi::CStr::from_ptr(f.name) }.to_string_lossy());
            true
        }
        _ => false,
    }
}
