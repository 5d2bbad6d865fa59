//! GPU activity for a fake CUPTI (tests/fake-cupti): the driver tells it
//! of every kernel launch, copy and memset as the call is made, on the
//! calling thread (where CUPTI would see the driver call), so the fake
//! CUPTI can write activity records for them.
//!
//! The two libraries find each other whichever loads first: `cuInit` looks
//! for a loaded `libcupti.so.13` with a `fake_cupti_driver_hook`, and the
//! fake CUPTI, when tracing is enabled, hands that hook to a loaded
//! `libcuda.so.1` through [`fake_cuda_set_activity_hook`].

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicPtr, Ordering};

/// What the driver reports (C layout, shared with tests/fake-cupti).
#[repr(C)]
pub struct FakeActivity {
    /// 0 kernel, 1 copy, 2 memset.
    pub kind: u32,
    pub name: *const c_char,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    /// The stream handle (0: the legacy stream).
    pub stream: usize,
    pub bytes: u64,
    /// CUPTI's copy kind (1 HtoD, 2 DtoH, 8 DtoD, 9 HtoH).
    pub copy_kind: u8,
    pub value: u32,
    pub device: c_int,
    /// The work does not finish for this many ms (`u64::MAX`: never): a
    /// kernel that `FAKE_CUDA_HANG_KERNEL` hangs. The fake CUPTI holds its
    /// record back (with the records after it on its stream) until then.
    pub hold_ms: u64,
}

type Hook = unsafe extern "C" fn(*const FakeActivity);

static HOOK: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

#[unsafe(no_mangle)]
pub extern "C" fn fake_cuda_set_activity_hook(hook: *mut c_void) {
    HOOK.store(hook, Ordering::Release);
}

/// Look for a fake CUPTI already loaded (from `cuInit`).
pub fn connect() {
    // SAFETY: RTLD_NOLOAD loads nothing; the symbol's type is `Hook`.
    unsafe {
        let h = libc::dlopen(c"libcupti.so.13".as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
        if !h.is_null() {
            let s = libc::dlsym(h, c"fake_cupti_driver_hook".as_ptr());
            if !s.is_null() {
                HOOK.store(s, Ordering::Release);
            }
            libc::dlclose(h);
        }
    }
}

fn report(a: FakeActivity) {
    let h = HOOK.load(Ordering::Acquire);
    if !h.is_null() {
        // SAFETY: set from the fake CUPTI's hook, of type `Hook`.
        unsafe { std::mem::transmute::<*mut c_void, Hook>(h)(&a) };
    }
}

fn device() -> c_int {
    crate::device::current().map_or(0, |c| c.device)
}

fn blank(kind: u32, stream: usize) -> FakeActivity {
    FakeActivity { kind, name: std::ptr::null(), grid: [0; 3], block: [0; 3], shared: 0, stream, bytes: 0, copy_kind: 0, value: 0, device: device(), hold_ms: 0 }
}

/// A kernel launch; `hang`: what `knobs::hang` said of it (None: it
/// finishes at once; Some(None): never; Some(Some(ms)): after ms).
pub fn kernel(name: &str, grid: [u32; 3], block: [u32; 3], shared: u32, stream: usize, hang: Option<Option<u64>>) {
    if HOOK.load(Ordering::Relaxed).is_null() {
        return;
    }
    let name = CString::new(name).unwrap_or_default();
    let hold_ms = match hang {
        None => 0,
        Some(None) => u64::MAX,
        Some(Some(ms)) => ms.max(1),
    };
    report(FakeActivity { name: name.as_ptr(), grid, block, shared, hold_ms, ..blank(0, stream) });
}

/// A copy of `runs` (dst, src, len) byte runs.
pub fn copy(runs: &[(usize, usize, usize)], stream: usize) {
    if HOOK.load(Ordering::Relaxed).is_null() {
        return;
    }
    let Some(&(d, s, _)) = runs.first() else { return };
    let copy_kind = match (crate::memory::on_device(s), crate::memory::on_device(d)) {
        (false, true) => 1,
        (true, false) => 2,
        (true, true) => 8,
        (false, false) => 9,
    };
    report(FakeActivity { bytes: runs.iter().map(|r| r.2 as u64).sum(), copy_kind, ..blank(1, stream) });
}

pub fn memset(bytes: u64, value: u8, stream: usize) {
    report(FakeActivity { bytes, value: value as u32, ..blank(2, stream) });
}
