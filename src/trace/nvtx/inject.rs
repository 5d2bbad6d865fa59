//! NVIDIA's NVTX3 injection interface: `InitializeInjectionNvtx2` and the
//! callback tables it fills.
//!
//! Every library that embeds NVTX3 (the program, libtorch, CuPy...) holds
//! its own copy of NVTX's globals. On its first NVTX call each copy loads
//! the library named by `NVTX_INJECTION64_PATH` and calls
//! `InitializeInjectionNvtx2(getExportTable)` once; we then ask that copy,
//! through its export table, for its per-module tables of function-pointer
//! slots and write our callbacks into the slots we implement (the others
//! stay no-ops). So the function is called once per copy, from any thread,
//! and each call fills a different set of tables: it keeps no state of its
//! own beyond what [`super`] shares, and answers 1 (success) every time.
//!
//! Layouts and ids (NVIDIA's nvtxDetail/nvtxTypes.h): export table id 1
//! is `{size_t struct_size; int (*GetModuleFunctionTable)(module, NvtxFunctionTable*, unsigned*)}`;
//! a module's table is an array of pointers to function-pointer slots,
//! indexed by callback id, slot 0 unused, `*out_size` the last valid id.

use super::{Attr, Domain, Kind};
use std::ffi::{c_char, c_int, c_void};

type GetExportTable = unsafe extern "C" fn(id: u32) -> *const c_void;
type Slot = *mut *const c_void;
type GetModule = unsafe extern "C" fn(module: c_int, out_table: *mut *mut Slot, out_size: *mut u32) -> c_int;

#[repr(C)]
struct Callbacks {
    struct_size: usize,
    get_module_function_table: Option<GetModule>,
}

const ETID_CALLBACKS: u32 = 1;
const MODULE_CORE: c_int = 1;
const MODULE_CUDA: c_int = 2;
const MODULE_CUDART: c_int = 4;
const MODULE_CORE2: c_int = 5;

type Wide = *const i32;
type EvAttr = *const Attr;
type Dom = *const Domain;

// ---- the callbacks (each a panic boundary) -------------------------------

fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(on_panic)
}

unsafe extern "C" fn mark_ex(a: EvAttr) {
    guard((), || super::mark(None, unsafe { super::attr(a) }))
}
unsafe extern "C" fn mark_a(m: *const c_char) {
    guard((), || super::mark(None, super::Info::text(unsafe { super::cstr(m) })))
}
unsafe extern "C" fn mark_w(m: Wide) {
    guard((), || super::mark(None, super::Info::text(unsafe { super::wstr(m) })))
}
unsafe extern "C" fn start_ex(a: EvAttr) -> u64 {
    guard(0, || super::start(None, unsafe { super::attr(a) }))
}
unsafe extern "C" fn start_a(m: *const c_char) -> u64 {
    guard(0, || super::start(None, super::Info::text(unsafe { super::cstr(m) })))
}
unsafe extern "C" fn start_w(m: Wide) -> u64 {
    guard(0, || super::start(None, super::Info::text(unsafe { super::wstr(m) })))
}
unsafe extern "C" fn end(id: u64) {
    guard((), || super::end(id))
}
unsafe extern "C" fn push_ex(a: EvAttr) -> c_int {
    guard(-1, || super::push(None, unsafe { super::attr(a) }))
}
unsafe extern "C" fn push_a(m: *const c_char) -> c_int {
    guard(-1, || super::push(None, super::Info::text(unsafe { super::cstr(m) })))
}
unsafe extern "C" fn push_w(m: Wide) -> c_int {
    guard(-1, || super::push(None, super::Info::text(unsafe { super::wstr(m) })))
}
unsafe extern "C" fn pop() -> c_int {
    guard(-1, || super::pop(None))
}
unsafe extern "C" fn name_category_a(cat: u32, m: *const c_char) {
    guard((), || super::name_category(None, cat, unsafe { super::cstr(m) }))
}
unsafe extern "C" fn name_category_w(cat: u32, m: Wide) {
    guard((), || super::name_category(None, cat, unsafe { super::wstr(m) }))
}
unsafe extern "C" fn name_thread_a(tid: u32, m: *const c_char) {
    guard((), || super::name(Kind::Thread, tid as u64, unsafe { super::cstr(m) }))
}
unsafe extern "C" fn name_thread_w(tid: u32, m: Wide) {
    guard((), || super::name(Kind::Thread, tid as u64, unsafe { super::wstr(m) }))
}

unsafe extern "C" fn d_mark_ex(d: Dom, a: EvAttr) {
    guard((), || super::mark(unsafe { d.as_ref() }, unsafe { super::attr(a) }))
}
unsafe extern "C" fn d_start_ex(d: Dom, a: EvAttr) -> u64 {
    guard(0, || super::start(unsafe { d.as_ref() }, unsafe { super::attr(a) }))
}
unsafe extern "C" fn d_end(_d: Dom, id: u64) {
    guard((), || super::end(id))
}
unsafe extern "C" fn d_push_ex(d: Dom, a: EvAttr) -> c_int {
    guard(-1, || super::push(unsafe { d.as_ref() }, unsafe { super::attr(a) }))
}
unsafe extern "C" fn d_pop(d: Dom) -> c_int {
    guard(-1, || super::pop(unsafe { d.as_ref() }))
}
unsafe extern "C" fn d_name_category_a(d: Dom, cat: u32, m: *const c_char) {
    guard((), || super::name_category(unsafe { d.as_ref() }, cat, unsafe { super::cstr(m) }))
}
unsafe extern "C" fn d_name_category_w(d: Dom, cat: u32, m: Wide) {
    guard((), || super::name_category(unsafe { d.as_ref() }, cat, unsafe { super::wstr(m) }))
}
unsafe extern "C" fn d_register_a(d: Dom, m: *const c_char) -> *const c_void {
    guard(std::ptr::null(), || super::register_string(unsafe { d.as_ref() }, unsafe { super::cstr(m) }))
}
unsafe extern "C" fn d_register_w(d: Dom, m: Wide) -> *const c_void {
    guard(std::ptr::null(), || super::register_string(unsafe { d.as_ref() }, unsafe { super::wstr(m) }))
}
unsafe extern "C" fn d_create_a(m: *const c_char) -> Dom {
    guard(std::ptr::null(), || super::domain(unsafe { super::cstr(m) }))
}
unsafe extern "C" fn d_create_w(m: Wide) -> Dom {
    guard(std::ptr::null(), || super::domain(unsafe { super::wstr(m) }))
}
/// Domains live as long as the process: a destroyed domain's handle may
/// still sit in a range another thread has open.
unsafe extern "C" fn d_destroy(_d: Dom) {}
unsafe extern "C" fn initialize(_reserved: *const c_void) {}

macro_rules! namer {
    ($a:ident, $w:ident, $kind:expr, $t:ty, $to:expr) => {
        unsafe extern "C" fn $a(h: $t, m: *const c_char) {
            guard((), || super::name($kind, $to(h), unsafe { super::cstr(m) }))
        }
        unsafe extern "C" fn $w(h: $t, m: Wide) {
            guard((), || super::name($kind, $to(h), unsafe { super::wstr(m) }))
        }
    };
}
namer!(cu_device_a, cu_device_w, Kind::Device, c_int, |d: c_int| d as u64);
namer!(cu_context_a, cu_context_w, Kind::Context, *const c_void, |p: *const c_void| p as u64);
namer!(cu_stream_a, cu_stream_w, Kind::Stream, *const c_void, |p: *const c_void| p as u64);
namer!(cu_event_a, cu_event_w, Kind::Event, *const c_void, |p: *const c_void| p as u64);

/// (module, [(callback id, our function)]): NVIDIA's callback ids
/// (NVTX_CBID_CORE_*, _CORE2_*, _CUDA_*, _CUDART_*).
fn modules() -> [(c_int, Vec<(usize, *const c_void)>); 4] {
    macro_rules! f {
        ($f:expr) => {
            $f as *const c_void
        };
    }
    [
        (
            MODULE_CORE,
            vec![
                (1, f!(mark_ex as unsafe extern "C" fn(_))),
                (2, f!(mark_a as unsafe extern "C" fn(_))),
                (3, f!(mark_w as unsafe extern "C" fn(_))),
                (4, f!(start_ex as unsafe extern "C" fn(_) -> _)),
                (5, f!(start_a as unsafe extern "C" fn(_) -> _)),
                (6, f!(start_w as unsafe extern "C" fn(_) -> _)),
                (7, f!(end as unsafe extern "C" fn(_))),
                (8, f!(push_ex as unsafe extern "C" fn(_) -> _)),
                (9, f!(push_a as unsafe extern "C" fn(_) -> _)),
                (10, f!(push_w as unsafe extern "C" fn(_) -> _)),
                (11, f!(pop as unsafe extern "C" fn() -> _)),
                (12, f!(name_category_a as unsafe extern "C" fn(_, _))),
                (13, f!(name_category_w as unsafe extern "C" fn(_, _))),
                (14, f!(name_thread_a as unsafe extern "C" fn(_, _))),
                (15, f!(name_thread_w as unsafe extern "C" fn(_, _))),
            ],
        ),
        (
            MODULE_CORE2,
            vec![
                (1, f!(d_mark_ex as unsafe extern "C" fn(_, _))),
                (2, f!(d_start_ex as unsafe extern "C" fn(_, _) -> _)),
                (3, f!(d_end as unsafe extern "C" fn(_, _))),
                (4, f!(d_push_ex as unsafe extern "C" fn(_, _) -> _)),
                (5, f!(d_pop as unsafe extern "C" fn(_) -> _)),
                (8, f!(d_name_category_a as unsafe extern "C" fn(_, _, _))),
                (9, f!(d_name_category_w as unsafe extern "C" fn(_, _, _))),
                (10, f!(d_register_a as unsafe extern "C" fn(_, _) -> _)),
                (11, f!(d_register_w as unsafe extern "C" fn(_, _) -> _)),
                (12, f!(d_create_a as unsafe extern "C" fn(_) -> _)),
                (13, f!(d_create_w as unsafe extern "C" fn(_) -> _)),
                (14, f!(d_destroy as unsafe extern "C" fn(_))),
                (15, f!(initialize as unsafe extern "C" fn(_))),
            ],
        ),
        (
            MODULE_CUDA,
            vec![
                (1, f!(cu_device_a as unsafe extern "C" fn(_, _))),
                (2, f!(cu_device_w as unsafe extern "C" fn(_, _))),
                (3, f!(cu_context_a as unsafe extern "C" fn(_, _))),
                (4, f!(cu_context_w as unsafe extern "C" fn(_, _))),
                (5, f!(cu_stream_a as unsafe extern "C" fn(_, _))),
                (6, f!(cu_stream_w as unsafe extern "C" fn(_, _))),
                (7, f!(cu_event_a as unsafe extern "C" fn(_, _))),
                (8, f!(cu_event_w as unsafe extern "C" fn(_, _))),
            ],
        ),
        (
            // The runtime's handles are the driver's (docs/DESIGN.md), so
            // a cudaStream_t and a CUstream name the same track.
            MODULE_CUDART,
            vec![
                (1, f!(cu_device_a as unsafe extern "C" fn(_, _))),
                (2, f!(cu_device_w as unsafe extern "C" fn(_, _))),
                (3, f!(cu_stream_a as unsafe extern "C" fn(_, _))),
                (4, f!(cu_stream_w as unsafe extern "C" fn(_, _))),
                (5, f!(cu_event_a as unsafe extern "C" fn(_, _))),
                (6, f!(cu_event_w as unsafe extern "C" fn(_, _))),
            ],
        ),
    ]
}

/// Fill one NVTX copy's tables. 1: success (NVTX then uses the slots we
/// wrote), 0: its export table is not one we understand (NVTX then makes
/// every call a no-op, as with no tool).
///
/// # Safety
/// `get` is NVTX's `nvtxGetExportTable` of the calling copy (or NULL).
pub unsafe fn initialize_injection(get: Option<GetExportTable>) -> c_int {
    let Some(get) = get else { return 0 };
    // SAFETY: NVTX's function, per the contract.
    let cb = unsafe { get(ETID_CALLBACKS) } as *const Callbacks;
    // SAFETY: NULL or NVTX's table, whose first member says its size.
    let Some(cb) = (unsafe { cb.as_ref() }) else { return 0 };
    if cb.struct_size < std::mem::size_of::<Callbacks>() {
        return 0;
    }
    let Some(get_module) = cb.get_module_function_table else { return 0 };
    super::started();
    for (module, fns) in modules() {
        let mut table: *mut Slot = std::ptr::null_mut();
        let mut size: u32 = 0;
        // SAFETY: out-pointers to locals.
        if unsafe { get_module(module, &mut table, &mut size) } == 0 || table.is_null() {
            continue;
        }
        for (id, f) in fns {
            if id > size as usize {
                continue;
            }
            // SAFETY: ids 1..=size index the copy's array of slot pointers.
            let slot = unsafe { *table.add(id) };
            if !slot.is_null() {
                // SAFETY: a slot of the copy's globals, written before NVTX
                // publishes its initialization (nvtxInitOnce's barrier).
                unsafe { *slot = f };
            }
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicPtr, Ordering::Relaxed};

    // One fake copy of NVTX: its slots, its table of slot pointers (slot 0
    // unused), its callbacks export table.
    const N: usize = 16;
    static SLOTS: [AtomicPtr<c_void>; N] = [const { AtomicPtr::new(std::ptr::null_mut()) }; N];
    static SIZE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(std::mem::size_of::<Callbacks>());

    unsafe extern "C" fn get_module(module: c_int, out: *mut *mut Slot, size: *mut u32) -> c_int {
        thread_local! { static TABLE: std::cell::RefCell<Vec<Slot>> = const { std::cell::RefCell::new(Vec::new()) }; }
        if module != MODULE_CORE {
            return 0;
        }
        TABLE.with(|t| {
            let mut t = t.borrow_mut();
            *t = (0..N).map(|i| if i == 0 { std::ptr::null_mut() } else { SLOTS[i].as_ptr() as Slot }).collect();
            unsafe {
                *out = t.as_mut_ptr();
                *size = (N - 1) as u32;
            }
        });
        1
    }

    unsafe extern "C" fn export_table(id: u32) -> *const c_void {
        static CB: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let p = *CB.get_or_init(|| {
            Box::leak(Box::new(Callbacks { struct_size: SIZE.load(Relaxed), get_module_function_table: Some(get_module) })) as *const Callbacks as usize
        });
        unsafe { (*(p as *mut Callbacks)).struct_size = SIZE.load(Relaxed) };
        if id == ETID_CALLBACKS { p as *const c_void } else { std::ptr::null() }
    }

    #[test]
    fn init_fills_the_tables_of_every_caller_every_time() {
        for round in 0..2 {
            for s in &SLOTS {
                s.store(std::ptr::null_mut(), Relaxed);
            }
            assert_eq!(unsafe { initialize_injection(Some(export_table)) }, 1, "round {round}");
            // Every core callback id is filled, with our functions.
            for (id, slot) in SLOTS.iter().enumerate().skip(1) {
                assert!(!slot.load(Relaxed).is_null(), "round {round}: slot {id}");
            }
            assert_eq!(SLOTS[9].load(Relaxed) as usize, push_a as unsafe extern "C" fn(_) -> _ as usize);
        }
        // A table smaller than the layout we know: refused, nothing written.
        for s in &SLOTS {
            s.store(std::ptr::null_mut(), Relaxed);
        }
        SIZE.store(8, Relaxed);
        assert_eq!(unsafe { initialize_injection(Some(export_table)) }, 0);
        assert!(SLOTS[1].load(Relaxed).is_null());
        SIZE.store(std::mem::size_of::<Callbacks>(), Relaxed);
        assert_eq!(unsafe { initialize_injection(None) }, 0);
    }
}
