//! Action on calls (issue #24): hooks (`cudartShimHookRegister`), subscribers
//! as their observe-only case (`cudartShimSubscribe`) and faults
//! (`CUDART_SHIM_FAULTS`, `--fault`), on the fake driver. Each test runs in
//! its own process (nextest), so each reads its own environment.

mod common;
use common::*;
use cudart_shim::api::device::*;
use cudart_shim::api::error::*;
use cudart_shim::api::memory::*;
use cudart_shim::api::shim::*;
use cudart_shim::api::stream::*;
use cudart_shim::api::version::*;
use cudart_shim::control::{faults, params};
use cudart_shim::types::*;
use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::Mutex;

fn register(functions: &CStr, phase: c_int, f: unsafe extern "C" fn(*mut c_void, *mut cudartShimCall) -> c_int, user: *mut c_void) -> u64 {
    let mut h = 0;
    assert_eq!(unsafe { cudartShimHookRegister(functions.as_ptr(), phase, Some(f), user, &mut h) }, cudaSuccess);
    h
}

fn name(c: &cudartShimCall) -> String {
    unsafe { CStr::from_ptr(c.function_name) }.to_str().unwrap().to_owned()
}

static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Handlers told apart by their user data: a small number, never dereferenced.
fn tag(n: usize) -> *mut c_void {
    n as *mut c_void
}

unsafe extern "C" fn log_before(user: *mut c_void, c: *mut cudartShimCall) -> c_int {
    let c = unsafe { &*c };
    LOG.lock().unwrap().push(format!("{} before {} depth {}", user as usize, name(c), c.depth));
    0
}

unsafe extern "C" fn log_after(user: *mut c_void, c: *mut cudartShimCall) -> c_int {
    let c = unsafe { &*c };
    LOG.lock().unwrap().push(format!("{} after {} = {}", user as usize, name(c), c.result));
    c.result
}

/// A `before` handler doubles cudaMemset's value; the call uses it.
unsafe extern "C" fn change_value(_: *mut c_void, c: *mut cudartShimCall) -> c_int {
    let p = unsafe { &mut *((*c).params as *mut params::cudaMemset) };
    p.value *= 2;
    0
}

/// `instead` on cudaMalloc: sizes above 1000 fail, others go on.
unsafe extern "C" fn refuse_large(_: *mut c_void, c: *mut cudartShimCall) -> c_int {
    let p = unsafe { &*((*c).params as *const params::cudaMalloc) };
    if p.size > 1000 { cudaErrorMemoryAllocation.0 } else { CUDART_SHIM_HOOK_CONTINUE }
}

/// `after`: success becomes cudaErrorNotReady.
unsafe extern "C" fn replace_result(_: *mut c_void, c: *mut cudartShimCall) -> c_int {
    if unsafe { (*c).result } == 0 { cudaErrorNotReady.0 } else { unsafe { (*c).result } }
}

#[test]
fn each_phase_changes_the_call() {
    use_fake_driver(&[]);
    unsafe {
        register(c"cudaMemset", CUDART_SHIM_HOOK_BEFORE, change_value, std::ptr::null_mut());
        register(c"cudaMalloc", CUDART_SHIM_HOOK_INSTEAD, refuse_large, std::ptr::null_mut());
        let mut p = std::ptr::null_mut();
        // instead: refused without running (no pointer written), last error set as for a real failure.
        assert_eq!(cudaMalloc(&mut p, 4096), cudaErrorMemoryAllocation);
        assert!(p.is_null());
        assert_eq!(cudaGetLastError(), cudaErrorMemoryAllocation);
        // CONTINUE: the real call answers.
        assert_eq!(cudaMalloc(&mut p, 64), cudaSuccess);
        assert!(!p.is_null());
        // before: the changed argument is the one used.
        assert_eq!(cudaMemset(p, 21, 64), cudaSuccess);
        let mut host = [0u8; 64];
        assert_eq!(cudaMemcpy(host.as_mut_ptr().cast(), p, 64, cudaMemcpyDeviceToHost), cudaSuccess);
        assert!(host.iter().all(|&b| b == 42), "{host:?}");
        // after: the replaced result is what the caller sees.
        let h = register(c"cudaFree", CUDART_SHIM_HOOK_AFTER, replace_result, std::ptr::null_mut());
        assert_eq!(cudaFree(p), cudaErrorNotReady);
        assert_eq!(cudartShimHookUnregister(h), cudaSuccess);
        assert_eq!(cudartShimHookUnregister(h), cudaErrorInvalidValue);
    }
}

#[test]
fn handlers_chain_in_registration_order_and_globs_select() {
    use_fake_driver(&[]);
    unsafe {
        register(c"cudaGetDevice*,cudaSetDevice", CUDART_SHIM_HOOK_BEFORE, log_before, tag(1));
        register(c"cudaGet*,-cudaGetLastError", CUDART_SHIM_HOOK_BEFORE, log_before, tag(2));
        register(c"cudaGetDevice", CUDART_SHIM_HOOK_AFTER, log_after, tag(3));
        register(c"cudaGetDevice", CUDART_SHIM_HOOK_AFTER, log_after, tag(4));
        let mut d = -1;
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        cudaGetLastError();
        assert_eq!(
            *LOG.lock().unwrap(),
            ["1 before cudaGetDevice depth 0", "2 before cudaGetDevice depth 0", "3 after cudaGetDevice = 0", "4 after cudaGetDevice = 0"]
        );
        // Bad registrations.
        let mut h = 0;
        assert_eq!(cudartShimHookRegister(c"cudaNoSuchCall".as_ptr(), 0, Some(log_before), std::ptr::null_mut(), &mut h), cudaErrorInvalidValue);
        assert_eq!(cudartShimHookRegister(c"cuda*".as_ptr(), 3, Some(log_before), std::ptr::null_mut(), &mut h), cudaErrorInvalidValue);
        assert_eq!(cudartShimHookRegister(c"cuda(".as_ptr(), 0, Some(log_before), std::ptr::null_mut(), &mut h), cudaErrorInvalidValue);
        assert_eq!(cudartShimHookRegister(c"cuda*".as_ptr(), 0, None, std::ptr::null_mut(), &mut h), cudaErrorInvalidValue);
    }
}

static NESTED_SEEN: AtomicU64 = AtomicU64::new(0);

/// A handler that makes CUDA calls itself: they are answered, not delivered.
unsafe extern "C" fn calls_cuda(_: *mut c_void, _: *mut cudartShimCall) -> c_int {
    NESTED_SEEN.fetch_add(1, Relaxed);
    let mut d = -1;
    let r = unsafe { cudaGetDevice(&mut d) };
    assert_eq!((r, d), (cudaSuccess, 0));
    0
}

#[test]
fn a_handlers_own_calls_are_answered_not_delivered() {
    use_fake_driver(&[]);
    unsafe {
        register(c"cudaGetDevice", CUDART_SHIM_HOOK_BEFORE, calls_cuda, std::ptr::null_mut());
        let mut d = -1;
        for _ in 0..3 {
            assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        }
    }
    assert_eq!(NESTED_SEEN.load(Relaxed), 3);
}

/// The handler's data: `dead` is set once its registration is gone; the
/// handler must never see it set.
struct Guarded {
    dead: AtomicBool,
    calls: AtomicU64,
}
static RAN_DEAD: AtomicBool = AtomicBool::new(false);

unsafe extern "C" fn guarded(user: *mut c_void, _: *mut cudartShimCall) -> c_int {
    let g = unsafe { &*(user as *const Guarded) };
    if g.dead.load(SeqCst) {
        RAN_DEAD.store(true, SeqCst);
    }
    g.calls.fetch_add(1, Relaxed);
    std::thread::yield_now();
    if g.dead.load(SeqCst) {
        RAN_DEAD.store(true, SeqCst);
    }
    0
}

/// 8 threads call cudaGetDevice while the main thread, 200 times, adds a
/// handler with fresh user data (`add(round, data)` returns its handle),
/// removes it (`remove`), and frees the data at once. Returns (calls the
/// handlers counted, calls made); a handler that ran on freed data sets
/// RAN_DEAD.
fn churn_while_eight_threads_call(add: impl Fn(usize, *mut c_void) -> u64, remove: impl Fn(u64) -> cudaError_t) -> (u64, u64) {
    use_fake_driver(&[]);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Relaxed) {
                    let mut d = -1;
                    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaSuccess);
                    n += 1;
                }
                n
            })
        })
        .collect();
    let mut total = 0;
    for round in 0..200 {
        let g = Box::into_raw(Box::new(Guarded { dead: AtomicBool::new(false), calls: AtomicU64::new(0) }));
        let h = add(round, g.cast());
        std::thread::sleep(std::time::Duration::from_micros(200));
        assert_eq!(remove(h), cudaSuccess);
        // Once the removal returns the handler is not running: free its data.
        let g = unsafe { Box::from_raw(g) };
        g.dead.store(true, SeqCst);
        total += g.calls.load(Relaxed);
        drop(g);
    }
    stop.store(true, Relaxed);
    (total, threads.into_iter().map(|t| t.join().unwrap()).sum())
}

#[test]
fn unregister_while_eight_threads_call() {
    let (total, calls) = churn_while_eight_threads_call(
        |round, g| register(c"cudaGetDevice", [CUDART_SHIM_HOOK_BEFORE, CUDART_SHIM_HOOK_AFTER][round % 2], guarded, g),
        |h| unsafe { cudartShimHookUnregister(h) },
    );
    assert!(!RAN_DEAD.load(SeqCst), "a handler ran after its unregister returned");
    assert!(total > 0 && calls > total / 2, "handlers ran {total} times over {calls} calls");
}

/// Driver calls reach hooks through the interposer's report (the Hooks ABI),
/// with the driver's typed parameter block.
#[test]
fn driver_calls_reach_hooks_with_their_parameter_block() {
    use cudart_shim::intercept::driver::cudartShimInternalDriverHooks;
    use cudart_shim::trace::driver_abi::*;
    use_fake_driver(&[]);
    static FNS: [FnDesc; 0] = [];
    static ENUMS: [EnumDesc; 0] = [];
    static API: Api = Api { abi: ABI_VERSION, fns: FNS.as_ptr(), nfns: 0, enums: ENUMS.as_ptr(), nenums: 0, result_enum: 0 };
    let h = unsafe { &*cudartShimInternalDriverHooks(&API) };
    unsafe extern "C" fn grow(_: *mut c_void, c: *mut cudartShimCall) -> c_int {
        let c = unsafe { &mut *c };
        assert_eq!((c.layer, name(c).as_str()), (CUDART_SHIM_LAYER_DRIVER, "cuMemAlloc_v2"));
        unsafe { (*(c.params as *mut params::driver::cuMemAlloc_v2)).bytesize += 1 };
        0
    }
    register(c"cuMemAlloc*", CUDART_SHIM_HOOK_BEFORE, grow, std::ptr::null_mut());
    let mut p = params::driver::cuMemAlloc_v2 { dptr: std::ptr::null_mut(), bytesize: 100 };
    unsafe extern "C" fn run(ctx: *mut c_void) -> c_int {
        // The call reads its arguments from the block after the stages.
        (unsafe { (*(ctx as *const params::driver::cuMemAlloc_v2)).bytesize }) as c_int
    }
    let pp: *mut params::driver::cuMemAlloc_v2 = &mut p;
    let id = params::driver::cuMemAlloc_v2::ID - params::DRIVER_BASE;
    assert_eq!(unsafe { (h.call)(id, pp.cast(), std::ptr::null(), run, pp.cast()) }, 101);
}

// ---- subscribers: the observe-only case of hooks ---------------------------

fn subscribe(enter: cudartShimCallback, exit: cudartShimCallback, user: *mut c_void) -> u64 {
    let mut h = 0;
    assert_eq!(unsafe { cudartShimSubscribe(enter, exit, user, &mut h) }, cudaSuccess);
    h
}

fn data_name(d: &cudartShimCallbackData) -> String {
    unsafe { CStr::from_ptr(d.function_name) }.to_str().unwrap().to_owned()
}

unsafe extern "C" fn guarded_sub(user: *mut c_void, _: *const cudartShimCallbackData) {
    unsafe { guarded(user, std::ptr::null_mut()) };
}

/// As `unregister_while_eight_threads_call`, for subscribers (enter only,
/// exit only, both): once `cudartShimUnsubscribe` returns, the callback is
/// not running anywhere and its user data is freed. At the end, with no
/// subscriber left, observation is off again (the switch word is back to
/// "nothing on").
#[test]
fn unsubscribe_while_eight_threads_call() {
    let (total, calls) = churn_while_eight_threads_call(
        |round, g| {
            let cb: cudartShimCallback = Some(guarded_sub);
            let (enter, exit) = [(cb, None), (None, cb), (cb, cb)][round % 3];
            subscribe(enter, exit, g)
        },
        |h| unsafe { cudartShimUnsubscribe(h) },
    );
    assert!(!RAN_DEAD.load(SeqCst), "a subscriber ran after its unsubscribe returned");
    assert!(total > 0 && calls > total / 3, "subscribers ran {total} times over {calls} calls");
    use cudart_shim::control::switch;
    assert_eq!(switch::bits(), switch::CONFIGURED, "observation still on with no subscriber");
}

static IN_SLOW: AtomicBool = AtomicBool::new(false);
static SLOW_DONE: AtomicBool = AtomicBool::new(false);

unsafe extern "C" fn slow_enter(_: *mut c_void, _: *const cudartShimCallbackData) {
    if IN_SLOW.swap(true, SeqCst) {
        return;
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    SLOW_DONE.store(true, SeqCst);
}

/// A thread that calls cudaGetDevice, once `flag` is up (its callback runs).
fn call_on_another_thread_until(flag: &'static AtomicBool) -> std::thread::JoinHandle<()> {
    let t = std::thread::spawn(|| {
        let mut d = -1;
        assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaSuccess);
    });
    while !flag.load(SeqCst) {
        std::thread::yield_now();
    }
    t
}

/// `cudartShimUnsubscribe` called while the callback runs on another
/// thread returns only after the callback has returned.
#[test]
fn unsubscribe_waits_for_a_running_callback() {
    use_fake_driver(&[]);
    let h = subscribe(Some(slow_enter), None, std::ptr::null_mut());
    let t = call_on_another_thread_until(&IN_SLOW);
    assert_eq!(unsafe { cudartShimUnsubscribe(h) }, cudaSuccess);
    assert!(SLOW_DONE.load(SeqCst), "cudartShimUnsubscribe returned while its callback was running");
    t.join().unwrap();
    // Handles are not interchangeable between the two APIs.
    let s = subscribe(Some(slow_enter), None, std::ptr::null_mut());
    let k = register(c"cudaGetDevice", CUDART_SHIM_HOOK_BEFORE, log_before, tag(1));
    unsafe {
        assert_eq!(cudartShimHookUnregister(s), cudaErrorInvalidValue);
        assert_eq!(cudartShimUnsubscribe(k), cudaErrorInvalidValue);
        assert_eq!(cudartShimUnsubscribe(s), cudaSuccess);
        assert_eq!(cudartShimHookUnregister(k), cudaSuccess);
        assert_eq!(cudartShimUnsubscribe(s), cudaErrorInvalidValue);
    }
}

static HELD_IN: AtomicBool = AtomicBool::new(false);
static HELD_RELEASE: AtomicBool = AtomicBool::new(false);

unsafe extern "C" fn held_enter(_: *mut c_void, _: *const cudartShimCallbackData) {
    HELD_IN.store(true, SeqCst);
    while !HELD_RELEASE.load(SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// A process forks while another of its threads runs a callback: in the
/// child, which has no such thread, `cudartShimUnsubscribe` returns (it
/// does not wait for a callback that will never end).
#[test]
fn a_forked_child_unsubscribes_while_a_parent_thread_was_in_a_callback() {
    use_fake_driver(&[]);
    let h = subscribe(Some(held_enter), None, std::ptr::null_mut());
    let t = call_on_another_thread_until(&HELD_IN);
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let ok = unsafe { cudartShimUnsubscribe(h) } == cudaSuccess;
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    assert!(pid > 0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut status = 0;
    while unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } != pid {
        if std::time::Instant::now() > deadline {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            unsafe { libc::waitpid(pid, &mut status, 0) };
            panic!("the child hung in cudartShimUnsubscribe, waiting for a thread it does not have");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child status {status:#x}");
    HELD_RELEASE.store(true, SeqCst);
    t.join().unwrap();
    assert_eq!(unsafe { cudartShimUnsubscribe(h) }, cudaSuccess);
}

static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

unsafe extern "C" fn seen_enter(user: *mut c_void, d: *const cudartShimCallbackData) {
    let d = unsafe { &*d };
    SEEN.lock().unwrap().push(format!("{} enter {} depth {}", user as usize, data_name(d), d.depth));
}

unsafe extern "C" fn seen_exit(user: *mut c_void, d: *const cudartShimCallbackData) {
    let d = unsafe { &*d };
    SEEN.lock().unwrap().push(format!("{} exit {} = {}", user as usize, data_name(d), d.result.0));
}

unsafe extern "C" fn seen_before(user: *mut c_void, c: *mut cudartShimCall) -> c_int {
    let c = unsafe { &*c };
    SEEN.lock().unwrap().push(format!("{} before {}", user as usize, name(c)));
    0
}

/// `after`: the result becomes cudaErrorNotReady.
unsafe extern "C" fn seen_after(user: *mut c_void, c: *mut cudartShimCall) -> c_int {
    let c = unsafe { &*c };
    SEEN.lock().unwrap().push(format!("{} after {} = {}", user as usize, name(c), c.result));
    cudaErrorNotReady.0
}

/// A hook and a subscriber on one call both see it, tracing off: the
/// subscriber's entry before the hooks, its exit after them, with the
/// result the caller sees (the one the `after` hook made).
#[test]
fn a_hook_and_a_subscriber_on_the_same_call_both_see_it() {
    use_fake_driver(&[]);
    let s = subscribe(Some(seen_enter), Some(seen_exit), tag(1));
    register(c"cudaGetDevice", CUDART_SHIM_HOOK_BEFORE, seen_before, tag(2));
    register(c"cudaGetDevice", CUDART_SHIM_HOOK_AFTER, seen_after, tag(3));
    let mut d = -1;
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaErrorNotReady);
    let ready = cudaErrorNotReady.0;
    assert_eq!(
        *SEEN.lock().unwrap(),
        ["1 enter cudaGetDevice depth 0", "2 before cudaGetDevice", "3 after cudaGetDevice = 0", &format!("1 exit cudaGetDevice = {ready}")]
    );
    // Without the subscriber the hooks still run; the subscriber sees nothing more.
    assert_eq!(unsafe { cudartShimUnsubscribe(s) }, cudaSuccess);
    SEEN.lock().unwrap().clear();
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaErrorNotReady);
    assert_eq!(*SEEN.lock().unwrap(), ["2 before cudaGetDevice", "3 after cudaGetDevice = 0"]);
}

static OWN_CALLS: AtomicU64 = AtomicU64::new(0);

/// A subscriber (user 1) or a hook (user 2) that calls the runtime.
unsafe extern "C" fn sub_calls_cuda(user: *mut c_void, d: *const cudartShimCallbackData) {
    unsafe { seen_enter(user, d) };
    let mut n = -1;
    assert_eq!(unsafe { cudaGetDeviceCount(&mut n) }, cudaSuccess);
    OWN_CALLS.fetch_add(1, Relaxed);
}

unsafe extern "C" fn hook_calls_cuda(user: *mut c_void, c: *mut cudartShimCall) -> c_int {
    unsafe { seen_before(user, c) };
    let mut n = -1;
    assert_eq!(unsafe { cudaGetDeviceCount(&mut n) }, cudaSuccess);
    OWN_CALLS.fetch_add(1, Relaxed);
    0
}

/// A subscriber's own CUDA calls reach no hook and no subscriber (itself
/// included), nor does a hook's: each is answered, and counted.
#[test]
fn a_subscribers_own_calls_reach_no_hook_or_subscriber() {
    use_fake_driver(&[]);
    assert_eq!(unsafe { cudartShimEnableCounters(1) }, cudaSuccess);
    subscribe(Some(sub_calls_cuda), None, tag(1));
    subscribe(Some(seen_enter), Some(seen_exit), tag(3));
    register(c"cudaGetDevice*", CUDART_SHIM_HOOK_BEFORE, hook_calls_cuda, tag(2));
    let mut d = -1;
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaSuccess);
    assert_eq!(
        *SEEN.lock().unwrap(),
        ["1 enter cudaGetDevice depth 0", "3 enter cudaGetDevice depth 0", "2 before cudaGetDevice", "3 exit cudaGetDevice = 0"]
    );
    assert_eq!(OWN_CALLS.load(Relaxed), 2);
    let mut c = std::mem::MaybeUninit::<cudartShimCounter>::uninit();
    assert_eq!(unsafe { cudartShimGetCounter(c"cudaGetDeviceCount".as_ptr(), c.as_mut_ptr()) }, cudaSuccess);
    assert_eq!(unsafe { c.assume_init() }.calls, 2, "the callbacks' own calls are counted");
}

// ---- faults --------------------------------------------------------------

fn faults_env(spec: &str) {
    use_fake_driver(&[("CUDART_SHIM_FAULTS", spec)]);
}

#[test]
fn every_form_of_the_grammar() {
    let s = faults::parse("cudaMalloc:nth=3:error=cudaErrorMemoryAllocation").unwrap();
    assert_eq!((s[0].nth, s[0].error.unwrap().code), (Some(3), 2));
    let s = faults::parse(" cudaMemcpy*:every=2:count=3:error=cudaErrorInvalidValue ; cuMemAlloc_v2:after=0.5:error=CUDA_ERROR_OUT_OF_MEMORY").unwrap();
    assert_eq!((s[0].every, s[0].count), (Some(2), Some(3)));
    assert_eq!((s[1].after, s[1].error.unwrap().layer), (Some(0.5), CUDART_SHIM_LAYER_DRIVER));
    let s = faults::parse("cudaLaunch*:p=0.01:seed=9:device=1:delay=5").unwrap();
    assert_eq!((s[0].p, s[0].seed, s[0].device, s[0].delay_ms, s[0].error), (Some(0.01), 9, Some(1), Some(5), None));
    let s = faults::parse("cudaStreamSynchronize:error=cudaErrorIllegalAddress:sticky").unwrap();
    assert!(s[0].sticky);
    for (bad, part) in [
        ("", "no spec"),
        ("cuda(:error=cudaErrorInvalidValue", "\"cuda(\""),
        ("cudaNoSuch:error=cudaErrorInvalidValue", "matches no runtime or driver function"),
        ("cudaMalloc:nth=0:error=cudaErrorMemoryAllocation", "\"nth=0\""),
        ("cudaMalloc:every=x:error=cudaErrorMemoryAllocation", "\"every=x\""),
        ("cudaMalloc:count=-1:error=cudaErrorMemoryAllocation", "\"count=-1\""),
        ("cudaMalloc:after=-1:error=cudaErrorMemoryAllocation", "\"after=-1\""),
        ("cudaMalloc:p=2:error=cudaErrorMemoryAllocation", "\"p=2\""),
        ("cudaMalloc:seed=3:error=cudaErrorMemoryAllocation", "\"seed\" applies to p= only"),
        ("cudaMalloc:device=a:error=cudaErrorMemoryAllocation", "\"device=a\""),
        ("cudaMalloc:delay=soon", "\"delay=soon\""),
        ("cudaMalloc:error=cudaErrorNoSuchThing", "names no cudaError_t or CUresult"),
        ("cudaMalloc:error=cudaSuccess", "is not an error"),
        ("cudaMalloc:error", "needs a value"),
        ("cudaMalloc:sticky", "\"sticky\" needs error=NAME"),
        ("cudaMalloc:sticky=1:error=cudaErrorIllegalAddress", "takes no value"),
        ("cudaMalloc:nth=1", "says nothing to do"),
        ("cudaMalloc:nth=1:nth=2:error=cudaErrorMemoryAllocation", "is given twice"),
        ("cudaMalloc:often:error=cudaErrorMemoryAllocation", "\"often\" is not a key"),
        ("cudaMalloc:error=CUDA_ERROR_OUT_OF_MEMORY", "is a driver error, but the glob \"cudaMalloc\" also matches runtime functions"),
        ("cu*:error=cudaErrorMemoryAllocation", "also matches driver functions"),
    ] {
        if bad.is_empty() {
            assert_eq!(faults::parse(bad).unwrap().len(), 0);
            continue;
        }
        let e = faults::parse(bad).unwrap_err();
        assert!(e.contains(part) && e.contains("error=NAME (cudaError*"), "{bad}: {e}");
    }
}

#[test]
fn nth_every_and_count_pick_the_calls() {
    faults_env("cudaGetDevice:nth=2:error=cudaErrorInvalidValue;cudaSetDevice:every=2:count=2:error=cudaErrorInvalidDevice");
    let mut d = 0;
    let got: Vec<_> = (0..4).map(|_| unsafe { cudaGetDevice(&mut d) }).collect();
    assert_eq!(got, [cudaSuccess, cudaErrorInvalidValue, cudaSuccess, cudaSuccess]);
    let got: Vec<_> = (0..8).map(|_| unsafe { cudaSetDevice(0) }).collect();
    let bad = cudaErrorInvalidDevice;
    assert_eq!(got, [cudaSuccess, bad, cudaSuccess, bad, cudaSuccess, cudaSuccess, cudaSuccess, cudaSuccess]);
}

#[test]
fn a_seed_gives_the_same_calls_every_run() {
    faults_env("cudaGetDevice:p=0.3:seed=1234:error=cudaErrorInvalidValue");
    let mut d = 0;
    let failed: Vec<u64> = (1..=200).filter(|_| unsafe { cudaGetDevice(&mut d) } != cudaSuccess).collect();
    let expected: Vec<u64> = (1..=200).filter(|&n| faults::draw(1234, n) < 0.3).collect();
    assert_eq!(failed, expected);
    assert!((40..80).contains(&failed.len()), "{}", failed.len());
}

#[test]
fn after_and_delay() {
    faults_env("cudaGetDevice:after=0.3:error=cudaErrorInvalidValue;cudaSetDevice:nth=1:delay=150");
    let mut d = 0;
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaSuccess);
    let t = std::time::Instant::now();
    assert_eq!(unsafe { cudaSetDevice(0) }, cudaSuccess);
    assert!(t.elapsed() >= std::time::Duration::from_millis(150));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaErrorInvalidValue);
}

/// `after=`'s clock starts at the first call that is program work: kernel
/// registration (an `import torch`) does not start it.
#[test]
fn after_counts_from_the_first_call_that_is_not_registration() {
    use cudart_shim::api::hidden::*;
    faults_env("cudaGetDevice:after=0.3:error=cudaErrorInvalidValue");
    let w = fatbin_wrapper(c".version 8.0\n.target sm_90\n.address_size 64\n");
    let h = unsafe { __cudaRegisterFatBinary(w.as_ptr() as *mut c_void) };
    unsafe { __cudaRegisterFatBinaryEnd(h) };
    std::thread::sleep(std::time::Duration::from_millis(400));
    let mut d = 0;
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaSuccess, "registration started the clock");
    std::thread::sleep(std::time::Duration::from_millis(350));
    assert_eq!(unsafe { cudaGetDevice(&mut d) }, cudaErrorInvalidValue);
}

#[test]
fn device_selects_the_calling_device() {
    use_fake_driver(&[("FAKE_CUDA_DEVICES", "2"), ("CUDART_SHIM_FAULTS", "cudaMalloc:device=1:error=cudaErrorMemoryAllocation")]);
    let mut p = std::ptr::null_mut();
    unsafe {
        assert_eq!(cudaMalloc(&mut p, 16), cudaSuccess);
        assert_eq!(cudaSetDevice(1), cudaSuccess);
        assert_eq!(cudaMalloc(&mut p, 16), cudaErrorMemoryAllocation);
        assert_eq!(cudaSetDevice(0), cudaSuccess);
        assert_eq!(cudaMalloc(&mut p, 16), cudaSuccess);
    }
}

/// Sticky, as after a real illegal address (tests/device.rs sticky_errors_stay
/// has the real one from the fake driver): every later call on the device
/// fails with it, the last error cannot be cleared, on every thread;
/// calls that need no context still answer.
#[test]
fn sticky_fails_every_later_call_as_a_real_one() {
    faults_env("cudaStreamSynchronize:nth=1:error=cudaErrorIllegalAddress:sticky");
    let mut p = std::ptr::null_mut();
    unsafe {
        assert_eq!(cudaMalloc(&mut p, 64), cudaSuccess);
        assert_eq!(cudaStreamSynchronize(std::ptr::null_mut()), cudaErrorIllegalAddress);
        assert_eq!(cudaMalloc(&mut p, 64), cudaErrorIllegalAddress);
        assert_eq!(cudaMemset(p, 0, 64), cudaErrorIllegalAddress);
        assert_eq!(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
        // The rules measured on an H100 after a real out-of-bounds kernel
        // (gpu/checks/control/control.py): the last error is returned once, then
        // cleared; the next call that needs the device sets it again;
        // cudaSetDevice answers.
        assert_eq!(cudaGetLastError(), cudaErrorIllegalAddress);
        assert_eq!(cudaGetLastError(), cudaSuccess);
        assert_eq!(cudaPeekAtLastError(), cudaSuccess);
        assert_eq!(cudaSetDevice(0), cudaSuccess);
        assert_eq!(cudaMalloc(&mut p, 64), cudaErrorIllegalAddress);
        assert_eq!(cudaPeekAtLastError(), cudaErrorIllegalAddress);
        let (mut n, mut v, mut d) = (0, 0, -1);
        assert_eq!(cudaGetDeviceCount(&mut n), cudaSuccess);
        assert_eq!(cudaDriverGetVersion(&mut v), cudaSuccess);
        assert_eq!(cudaGetDevice(&mut d), cudaSuccess);
        // After a reset: cudaErrorDevicesUnavailable, as measured.
        assert_eq!(cudaDeviceReset(), cudaSuccess);
        assert_eq!(cudaMalloc(&mut p, 64), cudaErrorDevicesUnavailable);
    }
}

/// After a sticky error, a driver call our runtime makes inside a runtime
/// call (depth 1) is not refused: the runtime call was judged already
/// (cudaSetDevice answers, and so must the driver calls under it). The
/// program's own driver calls (depth 0) are refused.
#[test]
fn sticky_is_answered_by_the_programs_own_calls_only() {
    faults_env("cudaStreamSynchronize:nth=1:error=cudaErrorIllegalAddress:sticky");
    assert_eq!(unsafe { cudaStreamSynchronize(std::ptr::null_mut()) }, cudaErrorIllegalAddress);
    let id = |name| params::NAMES.iter().position(|n| *n == name).unwrap() as u32;
    let call = |name, depth| cudart_shim::control::Call {
        function_id: id(name),
        layer: cudart_shim::control::DRIVER,
        depth,
        thread_id: 0,
        function_name: std::ptr::null(),
        params: std::ptr::null_mut(),
        result: 0,
    };
    assert_eq!(faults::before(&call("cuMemAlloc_v2", 0)).fail, Some(700));
    assert_eq!(faults::before(&call("cuMemAlloc_v2", 1)).fail, None);
    // The driver's own answers after a real illegal address (H200, driver
    // 580, NVIDIA's static runtime: gpu/checks/control/control.py): these succeed,
    // these fail with it.
    for f in ["cuCtxGetApiVersion", "cuCtxGetCurrent", "cuCtxGetDevice_v2", "cuCtxSetCurrent", "cuDeviceGetAttribute"] {
        assert_eq!(faults::before(&call(f, 0)).fail, None, "{f}");
    }
    for f in ["cuCtxSynchronize_v2", "cuDevicePrimaryCtxRetain", "cuEventCreate", "cuLaunchKernel", "cuMemFree_v2", "cuMemcpyDtoH_v2", "cuMemsetD8_v2", "cuStreamCreate", "cuStreamSynchronize"] {
        assert_eq!(faults::before(&call(f, 0)).fail, Some(700), "{f}");
    }
    // After the device is reset (H100, same program: cudaDeviceReset makes
    // cuDevicePrimaryCtxReset, which succeeds): the driver still answers
    // the sticky error, cuLibraryUnload CUDA_ERROR_DEINITIALIZED; the
    // runtime answers cudaErrorDevicesUnavailable (gpu/checks/control/control.py,
    // 2026-11-26, both layers).
    assert_eq!(faults::before(&call("cuDevicePrimaryCtxReset_v2", 0)).fail, None);
    for f in ["cuDevicePrimaryCtxRetain", "cuMemAlloc_v2", "cuLaunchKernel"] {
        assert_eq!(faults::before(&call(f, 0)).fail, Some(700), "{f} after the reset");
    }
    assert_eq!(faults::before(&call("cuLibraryUnload", 0)).fail, Some(4));
    let runtime = cudart_shim::control::Call { layer: cudart_shim::control::RUNTIME, ..call("cudaMalloc", 0) };
    assert_eq!(faults::before(&runtime).fail, Some(46));
}

#[test]
fn a_bad_spec_in_the_variable_is_one_warning_and_no_fault() {
    let exe = programs::memory_copies::PROGRAM.build(&scratch("control_badvar"), &[]);
    let mut env = fake_env(&[]);
    env.push(("CUDART_SHIM_FAULTS".into(), "cudaMalloc:nth=1:error=cudaErrorMemoryAllocation;cudaMalloc:nth=zero".into()));
    let o = run(&exe, &[], &env);
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    programs::memory_copies::check(&out);
    assert_eq!(err.matches("CUDART_SHIM_FAULTS").count(), 1, "{err}");
    assert!(err.contains("\"nth=zero\" needs a whole number") && err.contains("No fault is injected"), "{err}");
}

#[test]
fn run_and_trace_inject_and_mark_faults() {
    let exe = programs::memory_copies::PROGRAM.build(&scratch("control_cli"), &[]);
    // run: no tracing output, the program's error path, its exit status.
    let o = cli_on_fake().args(["run", "--fault", "cudaMalloc:nth=2:error=cudaErrorMemoryAllocation", "--"]).arg(&exe).output().unwrap();
    let (out, err) = output_text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(err.contains("cudaErrorMemoryAllocation") && !err.contains("CUDA API Summary"), "{err}");
    let o = cli_on_fake().args(["run", "--"]).arg(&exe).output().unwrap();
    assert!(o.status.success());
    // trace: marked in the call log and the summary.
    let o = cli_on_fake().args(["trace", "--calls", "--fault", "cudaMalloc:nth=2:error=cudaErrorMemoryAllocation", "--"]).arg(&exe).output().unwrap();
    let (_, err) = output_text(&o);
    assert!(err.contains("fault=cudaMalloc:nth=2:error=cudaErrorMemoryAllocation) = cudaErrorMemoryAllocation"), "{err}");
    assert!(err.contains("cudaMalloc        cudaErrorMemoryAllocation (injected)") || err.contains("cudaErrorMemoryAllocation (injected)"), "{err}");
    // A bad spec stops the command: exit 2, the bad part named, what is allowed.
    for args in [["run", "--fault", "cudaMalloc:nth=x"], ["trace", "--fault", "cudaMalloc:when=now"]] {
        let o = cli_on_fake().args(args).arg(&exe).output().unwrap();
        let (_, err) = output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("bad fault spec") && err.contains("Which calls: nth=N"), "{err}");
    }
}

/// NVIDIA's static runtime under the interposer: a driver fault reaches it
/// (the interposer loads our runtime for the faults).
#[test]
fn static_runtime_program_gets_a_driver_fault() {
    let dir = scratch("control_static");
    let exe = dir.join("static_app");
    let o = std::process::Command::new(nvcc())
        .args(["-arch=sm_90", "-O1"])
        .arg(repo_root().join("tests/cu/static_app.cu"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", nvidia_lib_dir().display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let spec = "cuGetProcAddress_v2:nth=2:error=CUDA_ERROR_OUT_OF_MEMORY";
    let o = cli_on_fake().args(["trace", "--calls", "--fault", spec, "--"]).arg(&exe).output().unwrap();
    let (_, err) = output_text(&o);
    assert!(err.contains("cuGetProcAddress_v2(symbol=cuInit, ") && err.contains(&format!("fault={spec}) = CUDA_ERROR_OUT_OF_MEMORY")), "{err}");
    assert!(err.contains("CUDA_ERROR_OUT_OF_MEMORY (injected)"), "{err}");
}
