//! The trace machinery's side of the driver interposer's C ABI
//! (`src/trace/driver_abi.rs`), in process: what `cudartShimInternalDriverHooks`
//! accepts, and how a reported call is run, counted, decoded and nested.
//! One process per test (nextest): each reads its own environment.

mod common;
use common::*;
use cudart_shim::intercept::driver::cudartShimInternalDriverHooks;
use cudart_shim::trace::driver_abi::{kind, Api, ArgDesc, EnumDesc, FnDesc, Hooks, Named, ABI_VERSION, OFF};
use std::ffi::{c_int, c_void};
use std::sync::atomic::Ordering::Relaxed;

static E_RESULT: [Named; 3] = [Named::new(0, "CUDA_SUCCESS"), Named::new(1, "CUDA_ERROR_INVALID_VALUE"), Named::new(101, "CUDA_ERROR_INVALID_DEVICE")];
static E_ATTR: [Named; 2] = [Named::new(10, "CU_DEVICE_ATTRIBUTE_WARP_SIZE"), Named::new(16, "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")];
static ENUMS: [EnumDesc; 2] = [EnumDesc::new("CUresult", &E_RESULT), EnumDesc::new("CUdevice_attribute", &E_ATTR)];
static ARGS: [ArgDesc; 3] = [ArgDesc::new("pi", kind::OUT32, 0), ArgDesc::new("attrib", kind::ENUM, 1), ArgDesc::new("dev", kind::INT, 0)];
static FNS: [FnDesc; 2] = [FnDesc::new("cuTestGetAttribute", &ARGS), FnDesc::new("cuTestOuter", &[])];
static API: Api = Api { abi: ABI_VERSION, fns: FNS.as_ptr(), nfns: 2, enums: ENUMS.as_ptr(), nenums: 2, result_enum: 0 };

fn env(vars: &[(&str, &str)]) {
    use_fake_driver(&[]);
    for (k, v) in vars {
        // SAFETY: one process per test, before any thread reads the environment.
        unsafe { std::env::set_var(k, v) };
    }
}

/// The hooks, switched on as the interposer switches on its primary
/// machinery.
fn hooks() -> &'static Hooks {
    let h = unsafe { &*hooks_inert() };
    unsafe { (h.activate)() };
    h
}

/// The hooks as the interposer first takes them: nothing switched on.
fn hooks_inert() -> *const Hooks {
    let h = unsafe { cudartShimInternalDriverHooks(&API) };
    assert!(!h.is_null(), "hooks refused");
    h
}

/// Taking the hooks leaves the runtime inert (a preloaded runtime the
/// program does not use: no outputs, no configuration); `activate` switches
/// it on; `depth` reads the thread's call depth without starting anything.
#[test]
fn taking_the_hooks_switches_nothing_on_until_activate() {
    let f = scratch("hooks_inert").join("summary.json");
    let _ = std::fs::remove_file(&f);
    env(&[("CUDART_SHIM_TRACE", "summary"), ("CUDART_SHIM_TRACE_SUMMARY_FILE", f.to_str().unwrap())]);
    let h = unsafe { &*hooks_inert() };
    assert_eq!(unsafe { &*h.flags }.load(Relaxed), 0, "not configured");
    assert_eq!(unsafe { (h.depth)() }, 0);
    assert!(!f.exists(), "no output opened");
    unsafe { (h.activate)() };
    assert!(unsafe { &*h.flags }.load(Relaxed) > OFF, "tracing is on");
    // Files are created at the first call that is program work (a
    // process that only registers kernels writes none): the call below.
    assert!(!f.exists(), "no output before the first call");
    // Inside a reported call, the depth reads 1.
    struct Seen(u32);
    unsafe extern "C" fn run(ctx: *mut c_void) -> c_int {
        let h = unsafe { &*hooks_inert() };
        unsafe { (*(ctx as *mut Seen)).0 = (h.depth)() };
        0
    }
    let mut seen = Seen(99);
    let mut v: i32 = 0;
    let args = [&mut v as *mut i32 as u64, 10, 0];
    assert_eq!(unsafe { (h.call)(0, std::ptr::null_mut(), args.as_ptr(), run, &mut seen as *mut Seen as *mut c_void) }, 0);
    assert_eq!(seen.0, 1);
    assert_eq!(unsafe { (h.depth)() }, 0);
    assert!(f.exists(), "the summary file is opened at the first call");
}

/// Report one call of function `id` with `args`; the call returns `result`
/// and writes `out` through the first argument when it is an out-pointer.
fn call(h: &Hooks, id: u32, args: &[u64], result: c_int) -> c_int {
    struct Ctx {
        result: c_int,
        runs: u32,
    }
    unsafe extern "C" fn run(ctx: *mut c_void) -> c_int {
        let c = unsafe { &mut *(ctx as *mut Ctx) };
        c.runs += 1;
        c.result
    }
    let mut c = Ctx { result, runs: 0 };
    let r = unsafe { (h.call)(id, std::ptr::null_mut(), args.as_ptr(), run, &mut c as *mut Ctx as *mut c_void) };
    assert_eq!(c.runs, 1, "the call runs exactly once");
    r
}

#[test]
fn calls_are_counted_and_decoded_with_driver_result_names() {
    let f = scratch("hooks_summary").join("calls.txt");
    let _ = std::fs::remove_file(&f);
    env(&[("CUDART_SHIM_TRACE", "summary,calls"), ("CUDART_SHIM_TRACE_CALLS_FILE", f.to_str().unwrap())]);
    let h = hooks();
    assert_eq!(h.abi, ABI_VERSION);
    assert!(unsafe { &*h.flags }.load(Relaxed) > OFF, "tracing is on");
    let mut v: i32 = 32;
    let p = &mut v as *mut i32 as u64;
    assert_eq!(call(h, 0, &[p, 10, 0], 0), 0);
    assert_eq!(call(h, 0, &[p, 16, -1i64 as u64], 101), 101);
    // An id past the list: run, untraced.
    assert_eq!(call(h, 7, &[], 1), 1);
    let s = cudart_shim::trace::summary();
    let row = s.rows.iter().find(|r| r.name == "cuTestGetAttribute").expect("a row");
    assert_eq!(row.calls, 2);
    assert!(s.errors.iter().any(|e| e.name == "cuTestGetAttribute" && e.error == "CUDA_ERROR_INVALID_DEVICE" && e.calls == 1), "{:?}", s.errors);
    let log = std::fs::read_to_string(&f).unwrap();
    // The file starts with the process record (a `#` line).
    let first = log.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(first.contains(&format!("cuTestGetAttribute(pi={p:#x}->32, attrib=CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev=0) = CUDA_SUCCESS (")), "{log}");
    // A failed call's out-parameter is not read; a negative int stays negative.
    assert!(log.contains(&format!("(pi={p:#x}, attrib=CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev=-1) = CUDA_ERROR_INVALID_DEVICE")), "{log}");
}

#[test]
fn a_driver_call_inside_another_call_is_nested_and_not_counted() {
    env(&[("CUDART_SHIM_TRACE", "summary")]);
    let h = hooks();
    struct Outer(&'static Hooks);
    unsafe extern "C" fn outer(ctx: *mut c_void) -> c_int {
        let h = unsafe { &*(ctx as *const Outer) }.0;
        let mut v = 0i32;
        call(h, 0, &[&mut v as *mut i32 as u64, 10, 0], 0)
    }
    let o = Outer(h);
    assert_eq!(unsafe { (h.call)(1, std::ptr::null_mut(), std::ptr::null(), outer, &o as *const Outer as *mut c_void) }, 0);
    let s = cudart_shim::trace::summary();
    assert_eq!(s.rows.iter().find(|r| r.name == "cuTestOuter").map(|r| r.calls), Some(1));
    assert!(s.rows.iter().all(|r| r.name != "cuTestGetAttribute"), "the nested call is not the program's own: {:?}", s.rows);
    // The same call at depth 0 counts.
    let mut v = 0i32;
    call(h, 0, &[&mut v as *mut i32 as u64, 10, 0], 0);
    let s = cudart_shim::trace::summary();
    assert_eq!(s.rows.iter().find(|r| r.name == "cuTestGetAttribute").map(|r| r.calls), Some(1));
}

#[test]
fn driver_tracing_off_takes_the_hooks_but_does_not_trace_the_calls() {
    env(&[("CUDART_SHIM_TRACE", "summary"), ("CUDART_SHIM_TRACE_DRIVER", "0")]);
    assert!(unsafe { cudartShimInternalDriverHooks(std::ptr::null()) }.is_null());
    // Taken all the same: faults, hooks and limits act on driver calls
    // whether or not they are traced (`cudart-shim run` traces nothing).
    let h = hooks();
    let mut v = 0i32;
    assert_eq!(call(h, 0, &[&mut v as *mut i32 as u64, 10, 0], 101), 101);
    let s = cudart_shim::trace::summary();
    assert!(s.rows.iter().all(|r| r.name != "cuTestGetAttribute"), "driver tracing is off: {:?}", s.rows);
}

#[test]
fn refused_for_another_abi_version() {
    env(&[("CUDART_SHIM_TRACE", "summary")]);
    static OTHER: Api = Api { abi: ABI_VERSION + 1, fns: FNS.as_ptr(), nfns: 2, enums: ENUMS.as_ptr(), nenums: 2, result_enum: 0 };
    assert!(unsafe { cudartShimInternalDriverHooks(&OTHER) }.is_null());
    // A second, different description (another interposer) after the first: refused.
    assert!(!unsafe { cudartShimInternalDriverHooks(&API) }.is_null());
    static SECOND: Api = Api { abi: ABI_VERSION, fns: FNS.as_ptr(), nfns: 1, enums: ENUMS.as_ptr(), nenums: 2, result_enum: 0 };
    assert!(unsafe { cudartShimInternalDriverHooks(&SECOND) }.is_null());
}
