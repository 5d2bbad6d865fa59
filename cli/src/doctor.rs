//! `cudart-shim doctor`: which driver, GPUs, runtime versions and libraries
//! are found (libcudart.so.13 and libcudart.so.12 each: which one the loader
//! gives, ours or NVIDIA's, and our two libraries), and why anything is
//! missing. Errors are shown by name; each
//! root cause counts as one problem (a missing driver also makes the
//! library's runtime fail: that is said, not counted again).

use crate::library::{self, Abi};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type CuInt = unsafe extern "C" fn(c_int) -> c_int;
type CuPInt = unsafe extern "C" fn(*mut c_int) -> c_int;

fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Option<T> {
    // SAFETY: T is the C signature of `name` (CUDA 13.0 headers).
    unsafe { lib.get::<T>(name.as_bytes()).ok().map(|s| *s) }
}

/// A driver function as the runtime gets it: `cuGetProcAddress_v2(name,
/// 13000)`, else the plain symbol.
fn drv<T: Copy>(lib: &libloading::Library, name: &str) -> Option<T> {
    type Gpa = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> c_int;
    if let Some(gpa) = sym::<Gpa>(lib, "cuGetProcAddress_v2") {
        let n = std::ffi::CString::new(name).ok()?;
        let (mut p, mut st) = (std::ptr::null_mut(), 0);
        // SAFETY: valid arguments; p receives a function of type T.
        if unsafe { gpa(n.as_ptr(), &mut p, 13000, 0, &mut st) } == 0 && !p.is_null() {
            assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
            // SAFETY: T is a function pointer type (same size, checked).
            return Some(unsafe { std::mem::transmute_copy(&p) });
        }
    }
    sym(lib, name)
}

/// Path of a loaded library whose file name contains `needle` (from /proc/self/maps).
fn loaded_path(needle: &str) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().filter_map(|l| l.split_whitespace().nth(5)).find(|p| p.contains(needle)).map(str::to_owned)
}

/// Path of the loaded file that maps `addr` (from /proc/self/maps): the
/// file behind a SONAME link.
fn path_of_address(addr: usize) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|l| {
        let mut f = l.split_whitespace();
        let (a, b) = f.next()?.split_once('-')?;
        let (a, b) = (usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?);
        let path = f.nth(4)?;
        (a <= addr && addr < b).then(|| path.to_owned())
    })
}

/// `NAME (code)` from a `*GetErrorName`-style function, or the code alone.
fn error_name(code: c_int, name: Option<&dyn Fn(c_int) -> *const c_char>) -> String {
    let p = name.map_or(std::ptr::null(), |f| f(code));
    if p.is_null() {
        return known_cu_name(code).map_or_else(|| format!("error {code}"), |n| format!("{n} ({code})"));
    }
    // SAFETY: the error-name functions return static C strings.
    format!("{} ({code})", unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// The `CUresult` names `cuInit` answers with (CUDA 13.0's cuda.h), for a
/// driver whose `cuGetErrorName` is missing or does not know the code.
fn known_cu_name(code: c_int) -> Option<&'static str> {
    Some(match code {
        1 => "CUDA_ERROR_INVALID_VALUE",
        2 => "CUDA_ERROR_OUT_OF_MEMORY",
        3 => "CUDA_ERROR_NOT_INITIALIZED",
        4 => "CUDA_ERROR_DEINITIALIZED",
        34 => "CUDA_ERROR_STUB_LIBRARY",
        46 => "CUDA_ERROR_DEVICE_UNAVAILABLE",
        100 => "CUDA_ERROR_NO_DEVICE",
        101 => "CUDA_ERROR_INVALID_DEVICE",
        102 => "CUDA_ERROR_DEVICE_NOT_LICENSED",
        304 => "CUDA_ERROR_OPERATING_SYSTEM",
        800 => "CUDA_ERROR_NOT_PERMITTED",
        801 => "CUDA_ERROR_NOT_SUPPORTED",
        802 => "CUDA_ERROR_SYSTEM_NOT_READY",
        803 => "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        804 => "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        999 => "CUDA_ERROR_UNKNOWN",
        _ => return None,
    })
}

/// What was found wrong, one entry per root cause.
#[derive(Default)]
struct Problems {
    count: usize,
    /// The driver is missing or unusable: the library's runtime fails for
    /// the same reason.
    driver: bool,
}

pub fn run(library: Option<PathBuf>, python: Option<PathBuf>) -> ExitCode {
    // A library named and missing (or not a runtime) is a usage error,
    // before anything else.
    let libs = library::find_all(library);
    if let Err(e) = &libs
        && e.exit_code == ExitCode::from(2)
    {
        eprintln!("cudart-shim: {}", e.message);
        return ExitCode::from(2);
    }
    // A bare name (`--python python3`) is looked up on the PATH, as a shell would.
    let python = python.map(|p| on_path(&p).unwrap_or(p));
    if let Some(p) = &python
        && !p.is_file()
    {
        eprintln!("cudart-shim: --python {}: no such file", p.display());
        return ExitCode::from(2);
    }
    let mut problems = Problems::default();
    println!("cudart-shim doctor");
    check_driver(&mut problems);
    // SAFETY: single-threaded here. Set before any runtime is loaded (the
    // loader-path check may load ours): tracing off, this process only asks
    // for versions; with the driver's problem shown, the library's own
    // warning would only repeat it.
    unsafe {
        std::env::remove_var("CUDART_SHIM_TRACE");
        if problems.driver {
            std::env::set_var("CUDART_SHIM_LOG", "off");
        }
    }
    check_loader_path(Abi::V13);
    check_loader_path(Abi::V12);
    match libs {
        Err(e) => {
            problems.count += 1;
            println!("library:  NOT FOUND: {}", e.message);
        }
        Ok(libs) => {
            // The 13 library is the main one (its absence is a problem);
            // the 12 one serves CUDA 12 programs beside it.
            match &libs.v13 {
                Some(p) => check_library(p, Abi::V13, &mut problems),
                None => {
                    problems.count += 1;
                    println!("library:  NOT FOUND: {} beside {}", Abi::V13.file_name(), libs.primary().display());
                }
            }
            match &libs.v12 {
                Some(p) => check_library(p, Abi::V12, &mut problems),
                None => println!(
                    "library:  {} not built beside {}: CUDA 12 programs (libcudart.so.12) are not served or traced (cargo build --release builds it)",
                    Abi::V12.file_name(),
                    libs.primary().display()
                ),
            }
        }
    }
    check_python(python);
    if problems.count == 0 {
        println!("ok");
        ExitCode::SUCCESS
    } else {
        println!("{} problem{} found", problems.count, if problems.count == 1 { "" } else { "s" });
        ExitCode::from(1)
    }
}

fn check_driver(problems: &mut Problems) {
    let driver_name = std::env::var("CUDART_SHIM_DRIVER").unwrap_or_else(|_| "libcuda.so.1".to_owned());
    // SAFETY: loading the CUDA driver runs its initializers, as any CUDA program does.
    let lib = match unsafe { libloading::Library::new(&driver_name) } {
        Err(e) => {
            problems.count += 1;
            problems.driver = true;
            println!("driver:   NOT FOUND: {driver_name} ({e})");
            println!("          Install the NVIDIA driver (it provides libcuda.so.1), or set CUDART_SHIM_DRIVER to its path.");
            return;
        }
        Ok(lib) => lib,
    };
    let path = loaded_path(driver_name.rsplit('/').next().unwrap_or(&driver_name)).unwrap_or(driver_name.clone());
    println!("driver:   {path}");
    let get_name: Option<unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int> = drv(&lib, "cuGetErrorName");
    let cu_name = |code: c_int| -> *const c_char {
        let mut p = std::ptr::null();
        // SAFETY: valid out-pointer; the driver returns a static string.
        get_name.map_or(std::ptr::null(), |f| if unsafe { f(code, &mut p) } == 0 { p } else { std::ptr::null() })
    };
    let mut v = 0;
    if let Some(f) = drv::<CuPInt>(&lib, "cuDriverGetVersion") {
        // SAFETY: valid out-pointer.
        unsafe { f(&mut v) };
        let old = v < 13000;
        println!(
            "          CUDA driver API version {}.{} ({v}){}",
            v / 1000,
            v % 1000 / 10,
            if old { "  -- too old: cudart-shim needs a CUDA 13.0 driver (580 or newer)" } else { "" }
        );
        if old {
            problems.count += 1;
            problems.driver = true;
            std::mem::forget(lib);
            return;
        }
    }
    // SAFETY: cuInit(0) is the documented first call.
    let r = drv::<CuInt>(&lib, "cuInit").map_or(-1, |f| unsafe { f(0) });
    if r != 0 {
        problems.count += 1;
        problems.driver = true;
        let hint = match r {
            100 => "no GPU visible: check CUDA_VISIBLE_DEVICES and nvidia-smi",
            34 => "this libcuda.so.1 is the toolkit's stub, not the driver: put the driver's library first on the path",
            803 => "the driver library and the kernel module differ in version: reboot, or reinstall the driver",
            999 => "check dmesg, nvidia-smi and /dev/nvidia*",
            _ => "check nvidia-smi",
        };
        println!("          cuInit failed: {} ({hint})", error_name(r, Some(&cu_name)));
        std::mem::forget(lib);
        return;
    }
    let count: Option<CuPInt> = drv(&lib, "cuDeviceGetCount");
    let get: Option<unsafe extern "C" fn(*mut c_int, c_int) -> c_int> = drv(&lib, "cuDeviceGet");
    let name: Option<unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int> = drv(&lib, "cuDeviceGetName");
    let attr: Option<unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int> = drv(&lib, "cuDeviceGetAttribute");
    let mem: Option<unsafe extern "C" fn(*mut usize, c_int) -> c_int> = drv(&lib, "cuDeviceTotalMem");
    let mut n = 0;
    if let Some(f) = count {
        // SAFETY: valid out-pointer.
        unsafe { f(&mut n) };
    }
    println!("gpus:     {n}");
    for i in 0..n {
        let mut d = 0;
        let mut buf = [0 as c_char; 256];
        let (mut major, mut minor, mut bytes) = (0, 0, 0usize);
        // SAFETY: valid out-pointers and buffer length throughout.
        unsafe {
            if let Some(f) = get {
                f(&mut d, i);
            }
            if let Some(f) = name {
                f(buf.as_mut_ptr(), 256, d);
            }
            if let Some(f) = attr {
                f(&mut major, 75, d);
                f(&mut minor, 76, d);
            }
            if let Some(f) = mem {
                f(&mut bytes, d);
            }
        }
        // SAFETY: cuDeviceGetName NUL-terminates within the buffer (zeroed otherwise).
        let nm = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
        println!("          {i}: {nm}, compute capability {major}.{minor}, {} MiB", bytes >> 20);
    }
    if n == 0 {
        problems.count += 1;
        problems.driver = true;
        println!("          no GPU visible (check CUDA_VISIBLE_DEVICES and nvidia-smi)");
    }
    std::mem::forget(lib);
}

/// Which library of `abi`'s SONAME the loader would give a program, ours
/// or NVIDIA's, and the runtime version it reports (asked before ours is
/// loaded here: the loader matches an already-loaded SONAME).
fn check_loader_path(abi: Abi) {
    let name = abi.soname();
    // SAFETY: loading a runtime library; only its version is read.
    match unsafe { libloading::Library::new(name) } {
        Ok(lib) => {
            let ours = sym::<unsafe extern "C" fn() -> c_int>(&lib, "cudartShimFlush").is_some();
            let version = sym::<CuPInt>(&lib, "cudaRuntimeGetVersion");
            let path = version.and_then(|f| path_of_address(f as usize)).or_else(|| loaded_path(name)).unwrap_or_else(|| name.into());
            let mut v = 0;
            if let Some(f) = version {
                // SAFETY: valid out-pointer.
                unsafe { f(&mut v) };
            }
            println!("{name} on the loader path: {path} ({}, runtime {v})", if ours { "cudart-shim" } else { "NVIDIA's" });
            std::mem::forget(lib);
        }
        Err(_) => println!("{name} on the loader path: none (programs linked to it need LD_LIBRARY_PATH or `cudart-shim trace`)"),
    }
}

/// One shim library, and the runtime it presents.
fn check_library(p: &Path, abi: Abi, problems: &mut Problems) {
    let so = library::soname(p).unwrap_or_else(|| "no SONAME".into());
    println!("library:  {} ({so})", p.display());
    if so != abi.soname() {
        problems.count += 1;
        println!("          expected {}: this file is not the {} runtime", abi.soname(), abi.soname());
        return;
    }
    if abi == Abi::V13 {
        // A private folder, as `trace` makes one per run, to check that
        // the wheel's unlinked interposer can be linked there.
        let private = library::private_dir("doctor").ok();
        let linked = crate::api_layers::doctor(p, private.as_deref());
        if let Some(d) = private {
            let _ = std::fs::remove_dir_all(d);
        }
        if !linked {
            problems.count += 1;
        }
    }
    // SAFETY: loading our own library; its initializers only read the environment.
    let lib = match unsafe { libloading::Library::new(p) } {
        Err(e) => {
            problems.count += 1;
            println!("          cannot load it: {e}");
            return;
        }
        Ok(lib) => lib,
    };
    let (mut rv, mut dv, mut n) = (0, 0, 0);
    let get_name: Option<unsafe extern "C" fn(c_int) -> *const c_char> = sym(&lib, "cudaGetErrorName");
    // SAFETY: cudaGetErrorName takes any value and returns a static string.
    let rt_name = |code: c_int| get_name.map_or(std::ptr::null(), |f| unsafe { f(code) });
    // SAFETY: valid out-pointers.
    unsafe {
        if let Some(f) = sym::<CuPInt>(&lib, "cudaRuntimeGetVersion") {
            f(&mut rv);
        }
        if let Some(f) = sym::<CuPInt>(&lib, "cudaDriverGetVersion") {
            f(&mut dv);
        }
    }
    // SAFETY: valid out-pointer.
    let r = sym::<CuPInt>(&lib, "cudaGetDeviceCount").map_or(-1, |f| unsafe { f(&mut n) });
    let result = if r == 0 { format!("{n} device{}", if n == 1 { "" } else { "s" }) } else { error_name(r, Some(&rt_name)) };
    println!("          runtime {}.{} ({rv}); driver seen through it: {dv}; cudaGetDeviceCount: {result}", rv / 1000, rv % 1000 / 10);
    if r != 0 {
        if problems.driver {
            println!("          (because of the driver problem above)");
        } else {
            problems.count += 1;
            println!("          the runtime cannot use the driver; run with CUDART_SHIM_LOG=debug for the library's reasons");
        }
    }
    std::mem::forget(lib);
}

// ---------------------------------------------------------------------------
// The Python interpreter in view (issue #33): can it `import cudart_shim`?

/// The interpreter doctor asks, and where it came from: `--python`, the
/// active virtual environment's, the active conda environment's, the one
/// beside this command (the environment the wheel was installed into),
/// else `python3` on the PATH.
fn python_in_view(named: Option<PathBuf>) -> Option<(PathBuf, &'static str)> {
    if let Some(p) = named {
        return Some((p, "--python"));
    }
    let env_python = |var: &str| {
        let root = std::env::var_os(var).filter(|v| !v.is_empty())?;
        ["python", "python3"].iter().map(|n| Path::new(&root).join("bin").join(n)).find(|p| p.is_file())
    };
    if let Some(p) = env_python("VIRTUAL_ENV") {
        return Some((p, "$VIRTUAL_ENV"));
    }
    if let Some(p) = env_python("CONDA_PREFIX") {
        return Some((p, "$CONDA_PREFIX"));
    }
    let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    if let Some(p) = exe_dir.and_then(|d| ["python", "python3"].iter().map(|n| d.join(n)).find(|p| p.is_file())) {
        return Some((p, "beside this command"));
    }
    on_path(Path::new("python3")).map(|p| (p, "python3 on the PATH"))
}

/// `name` found on the PATH when it is a bare name (no `/`).
fn on_path(name: &Path) -> Option<PathBuf> {
    if name.components().count() != 1 || name.to_str().is_some_and(|s| s.contains('/')) {
        return None;
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Says whether the interpreter in view can import the module, which copy
/// it gets and its version. Informational, not a problem: `trace` runs any
/// interpreter whether or not it can import the module.
fn check_python(named: Option<PathBuf>) {
    let Some((python, whence)) = python_in_view(named) else {
        println!("python:   none in view (no --python, $VIRTUAL_ENV, $CONDA_PREFIX, python beside this command or python3 on the PATH)");
        return;
    };
    const PROBE: &str = "import sys\nprint(sys.version.split()[0])\ntry:\n    import os, cudart_shim\n    print('ok', cudart_shim.__version__, os.path.dirname(cudart_shim.__file__))\nexcept Exception as e:\n    print('no', type(e).__name__ + ':', e)\n";
    let out = std::process::Command::new(&python).args(["-c", PROBE]).stdin(std::process::Stdio::null()).stderr(std::process::Stdio::null()).output();
    let text = match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => {
            println!("python:   {} ({whence}) cannot be run: {e}", python.display());
            return;
        }
    };
    let mut lines = text.lines();
    let version = lines.next().unwrap_or("?");
    let answer = lines.next().unwrap_or("no: the interpreter printed nothing");
    print!("python:   {} (Python {version}, {whence}): ", python.display());
    match answer.strip_prefix("ok ") {
        Some(rest) => {
            let (v, at) = rest.split_once(' ').unwrap_or((rest, "?"));
            let ours = env!("CARGO_PKG_VERSION");
            let note = if v == ours { String::new() } else { format!("; its version differs from this command's {ours}") };
            println!("imports cudart_shim {v} from {at}{note}");
        }
        None => {
            let why = answer.strip_prefix("no ").unwrap_or(answer);
            println!(
                "cannot import cudart_shim ({why}); `cudart-shim trace` still traces it; for the module, install the wheel into its environment: {} -m pip install cudart_shim-*.whl",
                python.display()
            );
        }
    }
}
