//! `cudaLogs*` over the fake driver's log (messages are added with the
//! fake's `fake_cuda_log` control function, as the driver would log them).

mod common;
use common::*;
use cudart_shim::api::logs::*;
use cudart_shim::types::*;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::null_mut;
use std::sync::Mutex;

static SEEN: Mutex<Vec<(usize, c_int, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn on_log(data: *mut c_void, level: cudaLogLevel, msg: *mut c_char, len: usize) {
    let text = String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(msg.cast::<u8>(), len) }).into_owned();
    SEEN.lock().unwrap().push((data as usize, level.0, text));
}

fn log(level: c_int, msg: &CStr) {
    let f: unsafe extern "C" fn(c_int, *const c_char) = fake::control("fake_cuda_log");
    unsafe { f(level, msg.as_ptr()) };
}

#[test]
fn callback_sees_messages_until_unregistered() {
    use_fake_driver(&[]);
    unsafe {
        let mut h = null_mut();
        assert_eq!(cudaLogsRegisterCallback(Some(on_log), 0x77 as *mut c_void, &mut h), cudaSuccess);
        assert!(!h.is_null());
        log(0, c"first failure");
        log(1, c"a warning");
        assert_eq!(
            *SEEN.lock().unwrap(),
            vec![(0x77, 0, "first failure".to_owned()), (0x77, 1, "a warning".to_owned())]
        );
        assert_eq!(cudaLogsUnregisterCallback(h), cudaSuccess);
        log(0, c"not seen");
        assert_eq!(SEEN.lock().unwrap().len(), 2);
        assert_eq!(cudaLogsUnregisterCallback(h), cudaErrorInvalidValue, "unregistered twice");
        assert_eq!(cudaLogsUnregisterCallback(null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaLogsRegisterCallback(None, null_mut(), &mut h), cudaErrorInvalidValue);
        assert_eq!(cudaLogsRegisterCallback(Some(on_log), null_mut(), null_mut()), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuLogsRegisterCallback"), 1, "bad arguments stop before the driver");
    }
}

#[test]
fn dump_from_an_iterator_to_memory_and_file() {
    use_fake_driver(&[]);
    unsafe {
        log(0, c"before");
        let mut it: cudaLogIterator = 99;
        assert_eq!(cudaLogsCurrent(&mut it, 0), cudaSuccess);
        assert_eq!(it, 1);
        log(0, c"after one");
        log(1, c"after two");

        let mut buf = [0 as c_char; 256];
        let mut size = buf.len();
        let mut from = it;
        assert_eq!(cudaLogsDumpToMemory(&mut from, buf.as_mut_ptr(), &mut size, 0), cudaSuccess);
        let text = CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
        assert_eq!(text, "after one\nafter two\n");
        assert_eq!(size, text.len());

        // A NULL iterator dumps everything.
        let mut size = buf.len();
        assert_eq!(cudaLogsDumpToMemory(null_mut(), buf.as_mut_ptr(), &mut size, 0), cudaSuccess);
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), "before\nafter one\nafter two\n");

        let path = scratch("logs").join("dump.txt");
        let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        let mut from = it;
        assert_eq!(cudaLogsDumpToFile(&mut from, cpath.as_ptr(), 0), cudaSuccess);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "after one\nafter two\n");
    }
}

#[test]
fn logs_bad_input() {
    use_fake_driver(&[]);
    unsafe {
        let mut it: cudaLogIterator = 0;
        assert_eq!(cudaLogsCurrent(null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaLogsCurrent(&mut it, 1), cudaErrorInvalidValue);
        let mut buf = [0 as c_char; 8];
        let mut size = buf.len();
        assert_eq!(cudaLogsDumpToMemory(&mut it, null_mut(), &mut size, 0), cudaErrorInvalidValue);
        assert_eq!(cudaLogsDumpToMemory(&mut it, buf.as_mut_ptr(), null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaLogsDumpToFile(&mut it, std::ptr::null(), 0), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuLogsDumpToMemory") + fake::calls("cuLogsDumpToFile"), 0);
        // A small buffer gets a truncated, terminated dump.
        log(0, c"a long message that does not fit");
        assert_eq!(cudaLogsDumpToMemory(null_mut(), buf.as_mut_ptr(), &mut size, 0), cudaSuccess);
        assert_eq!(size, 7);
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), "a long ");
    }
}

#[test]
fn old_driver_without_logs() {
    use_fake_driver(&[("FAKE_CUDA_OLD", "cuLogsCurrent")]);
    let mut it: cudaLogIterator = 0;
    assert_eq!(unsafe { cudaLogsCurrent(&mut it, 0) }, cudaErrorCallRequiresNewerDriver);
}
