//! Opening the driver library and resolving entry points.

use super::types::*;
use crate::types::{cudaError_t, cudaErrorCallRequiresNewerDriver, cudaErrorNotSupported, CudaResult};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// The CUDA version we ask the driver for: every pointer we resolve has the
/// CUDA 13.0 ABI, except the entry points CUDA 13.1 and later added, which
/// are asked for with the version that introduced them, and the few the
/// CUDA 12 library asks for at a 12.x version (`driver/cuda12.rs`); both
/// through [`DriverFn::since`].
pub const CUDA_VERSION: c_int = 13000;

type GetProcAddress = unsafe extern "C" fn(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
    status: *mut CUdriverProcAddressQueryResult,
) -> CUresult;

/// The opened driver library. Never unloaded: function pointers into it live
/// in statics for the life of the process.
pub struct Driver {
    _lib: libloading::Library,
    get_proc_address: GetProcAddress,
    /// Where it was loaded from (for logs and `cudart-shim doctor`).
    pub path: String,
}

/// Why the driver could not be used; every runtime call then answers
/// `cudaErrorInsufficientDriver`, as NVIDIA's runtime does.
#[derive(Debug, Clone)]
pub struct LoadError(pub String);

static DRIVER: OnceLock<Result<Driver, LoadError>> = OnceLock::new();

/// The driver, opened on first call. `CUDART_SHIM_DRIVER` names another
/// library to load instead of `libcuda.so.1` (the test suite's fake driver).
pub fn driver() -> Result<&'static Driver, &'static LoadError> {
    DRIVER.get_or_init(open).as_ref()
}

/// Whether the driver was opened already (never opens it): for code that
/// may run while it is being opened (the faults stage judging the driver
/// calls made meanwhile) and must not wait for itself.
pub fn opened() -> bool {
    DRIVER.get().is_some_and(Result::is_ok)
}

fn open() -> Result<Driver, LoadError> {
    let path = interposer()
        .or_else(|| crate::config::env_var("CUDART_SHIM_DRIVER"))
        .unwrap_or_else(|| "libcuda.so.1".to_owned());
    // SAFETY: loading the driver runs its initializers; that is what the CUDA
    // runtime does too.
    let lib = unsafe { libloading::Library::new(&path) }.map_err(|e| {
        let msg = format!("cannot load the CUDA driver {path}: {e}");
        log::warn!("{msg}; every CUDA call will return cudaErrorInsufficientDriver. Install the NVIDIA driver or set CUDART_SHIM_DRIVER to its path.");
        LoadError(msg)
    })?;
    // SAFETY: the symbol has this signature since CUDA 12.0.
    let gpa: GetProcAddress = unsafe { lib.get::<GetProcAddress>(b"cuGetProcAddress_v2\0") }
        .map(|s| *s)
        .map_err(|e| {
            let msg = format!("{path} has no cuGetProcAddress_v2 ({e}): the driver is older than CUDA 12");
            log::warn!("{msg}; CUDA 13 needs driver 580 or newer.");
            LoadError(msg)
        })?;
    log::debug!("loaded CUDA driver from {path}");
    Ok(Driver { _lib: lib, get_proc_address: gpa, path })
}

/// The driver interposer built beside this library (`driver/libcuda.so.1`
/// in its folder), when tracing or the watchdog is on, driver-API tracing is not switched
/// off and the interposer is the first `libcuda.so.1` on `LD_LIBRARY_PATH`
/// (as `cudart-shim trace` and docs/INTERPOSER.md's environment route set it up).
/// Then it is loaded even when `CUDART_SHIM_DRIVER` names a driver (the
/// interposer loads that one), so the driver calls our runtime makes are
/// traced, nested under the runtime call that made them.
fn interposer() -> Option<String> {
    let c = crate::config::trace_config();
    // The watchdog counts the driver launches the program gets from us
    // (NCCL's entry points), so it wants the interposer too.
    if !(c.any() || crate::config::watchdog_config().any()) || !c.driver {
        return None;
    }
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: an address inside this library; info is an out-struct.
    if unsafe { libc::dladdr(interposer as *const c_void, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: the loader's C string.
    let me = std::fs::canonicalize(unsafe { CStr::from_ptr(info.dli_fname) }.to_str().ok()?).ok()?;
    let ours = std::fs::canonicalize(me.parent()?.join("driver/libcuda.so.1")).ok()?;
    let path = crate::config::env_var("LD_LIBRARY_PATH")?;
    let first = path.split(':').filter(|d| !d.is_empty()).map(|d| std::path::Path::new(d).join("libcuda.so.1")).find(|p| p.exists())?;
    (std::fs::canonicalize(&first).ok()? == ours).then(|| ours.to_string_lossy().into_owned())
}

impl Driver {
    /// Resolve `name` (NUL-terminated) for `mode`, with the ABI of CUDA
    /// `version`.
    fn resolve(&self, name: &'static str, mode: StreamMode, version: c_int) -> Result<*mut c_void, cudaError_t> {
        let shown = name.trim_end_matches('\0');
        // A driver older than the entry point does not know its name (driver
        // 580 answers "symbol not found") and refuses a version newer than
        // its own (CUDA_ERROR_INVALID_VALUE): NVIDIA's 13.5 runtime answers
        // cudaErrorCallRequiresNewerDriver for such calls (measured on H100,
        // driver 580), and so do we.
        if version > CUDA_VERSION {
            let have = self.version();
            if have < version {
                log::warn!(
                    "{shown} needs a CUDA {}.{} driver; {} is CUDA {}.{}: calls that need it return cudaErrorCallRequiresNewerDriver",
                    version / 1000, version % 1000 / 10, self.path, have / 1000, have % 1000 / 10
                );
                return Err(cudaErrorCallRequiresNewerDriver);
            }
        }
        let mut pfn = std::ptr::null_mut();
        let mut status = CUdriverProcAddressQueryResult(0);
        // SAFETY: name is NUL-terminated (DriverFn::new checks), out-pointers are valid.
        let r = unsafe {
            (self.get_proc_address)(name.as_ptr().cast(), &mut pfn, version, mode.flags(), &mut status)
        };
        if r.0 == 0 && !pfn.is_null() {
            return Ok(pfn);
        }
        // The driver is shutting down (a first use during process exit, e.g.
        // cuLibraryUnload from __cudaUnregisterFatBinary): not a missing
        // symbol, so no warning and nothing remembered.
        if r.0 == 4 {
            return Err(crate::types::cudaErrorCudartUnloading);
        }
        let err = if status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT {
            cudaErrorCallRequiresNewerDriver
        } else {
            cudaErrorNotSupported
        };
        log::warn!(
            "the CUDA driver {} does not provide {shown} ({mode:?}; cuGetProcAddress: result {}, status {}): calls that need it return {}",
            self.path, r.0, status.0, crate::types::error_names::name(err)
        );
        Err(err)
    }
}

impl Driver {
    /// The driver's CUDA version (`cuDriverGetVersion`), read once; 0 when
    /// it cannot say.
    pub fn version(&self) -> c_int {
        static VERSION: OnceLock<c_int> = OnceLock::new();
        *VERSION.get_or_init(|| {
            let mut v = 0;
            match super::api::cuDriverGetVersion.get() {
                // SAFETY: the CUDA 13.0 signature; v is a valid out-pointer.
                Ok(f) if unsafe { f(&mut v) }.0 == 0 => v,
                _ => 0,
            }
        })
    }
}

/// Which flavour of a stream-ordered entry point to resolve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamMode {
    /// Stream 0 means the legacy default stream (plain exports).
    Legacy = 0,
    /// Stream 0 means the per-thread default stream (`_ptds`/`_ptsz` exports).
    PerThread = 1,
}

impl StreamMode {
    fn flags(self) -> u64 {
        match self {
            StreamMode::Legacy => CU_GET_PROC_ADDRESS_LEGACY_STREAM,
            StreamMode::PerThread => CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
        }
    }
}

const UNRESOLVED: *mut c_void = std::ptr::null_mut();
/// Marks a symbol the driver lacks, so we log once and never ask again.
/// Sentinel addresses no function can have, never dereferenced.
const MISSING_NOT_SUPPORTED: *mut c_void = std::ptr::without_provenance_mut(1);
const MISSING_NEWER_DRIVER: *mut c_void = std::ptr::without_provenance_mut(2);

/// One driver entry point of type `F` (an `unsafe extern "C" fn`), resolved on
/// first use per [`StreamMode`] and cached in an atomic: the hot path is one
/// load and a branch, with no lock.
pub struct DriverFn<F> {
    name: &'static str,
    /// The CUDA version whose signature `F` is (and that we ask for).
    since: c_int,
    slots: [AtomicPtr<c_void>; 2],
    _f: PhantomData<F>,
}

// SAFETY: the slots are atomics; F is only a marker for a fn-pointer type.
unsafe impl<F> Sync for DriverFn<F> {}

impl<F: Copy> DriverFn<F> {
    /// `name` must end with a NUL; `F` is its CUDA 13.0 signature.
    pub const fn new(name: &'static str) -> Self {
        Self::since(name, CUDA_VERSION)
    }

    /// An entry point asked for at CUDA `version`, with that version's
    /// signature `F`: one that `version` (> 13.0) introduced, or (< 13.0)
    /// the older meaning of a name that 13.0 gives a newer version of.
    pub const fn since(name: &'static str, version: c_int) -> Self {
        assert!(name.as_bytes()[name.len() - 1] == 0);
        assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>());
        DriverFn { name, since: version, slots: [AtomicPtr::new(UNRESOLVED), AtomicPtr::new(UNRESOLVED)], _f: PhantomData }
    }

    /// The plain name, without the NUL.
    pub fn name(&self) -> &'static str {
        &self.name[..self.name.len() - 1]
    }

    /// The legacy-stream variant. Errors: `cudaErrorInsufficientDriver` when
    /// no driver could be loaded, `cudaErrorCallRequiresNewerDriver` when the
    /// driver is too old for this entry point, `cudaErrorNotSupported` when
    /// it does not know the name at all.
    #[inline(always)]
    pub fn get(&self) -> CudaResult<F> {
        self.get_mode(StreamMode::Legacy)
    }

    #[inline(always)]
    pub fn get_mode(&self, mode: StreamMode) -> CudaResult<F> {
        let p = self.slots[mode as usize].load(Ordering::Acquire);
        if p as usize > 2 {
            // SAFETY: F is a fn pointer of the size of a pointer (checked in
            // new) and p came from cuGetProcAddress for this name.
            return Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) });
        }
        self.slow(p, mode)
    }

    /// The raw pointer, if the driver has it (for `cudaGetDriverEntryPoint`).
    pub fn raw(&self, mode: StreamMode) -> Option<*mut c_void> {
        self.get_mode(mode).ok().map(|f| unsafe { std::mem::transmute_copy::<F, *mut c_void>(&f) })
    }

    #[cold]
    fn slow(&self, p: *mut c_void, mode: StreamMode) -> CudaResult<F> {
        match p {
            MISSING_NOT_SUPPORTED => return Err(cudaErrorNotSupported),
            MISSING_NEWER_DRIVER => return Err(cudaErrorCallRequiresNewerDriver),
            _ => {}
        }
        let drv = driver().map_err(|_| crate::types::cudaErrorInsufficientDriver)?;
        let slot = &self.slots[mode as usize];
        match drv.resolve(self.name, mode, self.since) {
            Ok(p) => {
                slot.store(p, Ordering::Release);
                // SAFETY: as in get_mode.
                Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
            }
            Err(e) if e == crate::types::cudaErrorCudartUnloading => Err(e),
            Err(e) => {
                let mark = if e == cudaErrorCallRequiresNewerDriver { MISSING_NEWER_DRIVER } else { MISSING_NOT_SUPPORTED };
                slot.store(mark, Ordering::Release);
                Err(e)
            }
        }
    }
}

/// Resolve any driver symbol by name (for `cudaGetDriverEntryPoint*`),
/// uncached. Returns the driver's result and query status unchanged.
pub fn get_proc_address(
    symbol: &CStr,
    version: c_int,
    flags: u64,
) -> Result<(CUresult, *mut c_void, CUdriverProcAddressQueryResult), &'static LoadError> {
    let drv = driver()?;
    let mut pfn = std::ptr::null_mut();
    let mut status = CUdriverProcAddressQueryResult(0);
    // SAFETY: valid C string and out-pointers.
    let r = unsafe { (drv.get_proc_address)(symbol.as_ptr(), &mut pfn, version, flags, &mut status) };
    Ok((r, pfn, status))
}
