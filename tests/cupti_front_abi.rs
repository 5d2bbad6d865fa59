//! The CUPTI front (`libcudart_shim_cupti.so`, cupti-front/) and the
//! multiplexer in the runtime (src/trace/gpu/mux.rs) share one ABI file,
//! src/trace/gpu/front_abi.rs: the built front exports the same layout the
//! runtime was compiled with, and each side refuses the other's of another
//! version (docs/GPU-ACTIVITY.md, "Sharing CUPTI").
//!
//! Each test loads the built front into its own process (nextest runs each
//! test in a process of its own), as the program's preload would.

mod common;
use common::target_dir;
use cudart_shim::trace::gpu::front_abi::{self as abi, AppState, Completed, Layout, MuxTable, Requested, Timestamp};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

fn front() -> libloading::Library {
    let p = target_dir().join("libcudart_shim_cupti.so");
    assert!(p.exists(), "{} is missing: run `cargo build --workspace` first", p.display());
    // SAFETY: the front's initializers do nothing.
    unsafe { libloading::Library::new(&p) }.unwrap()
}

#[test]
fn the_built_front_exports_the_runtime_s_layout() {
    let lib = front();
    // SAFETY: the front's exported static (a Layout of some version).
    let theirs = unsafe { lib.get::<*const Layout>(abi::LAYOUT_SYMBOL.to_bytes()) }.unwrap();
    let theirs: *const Layout = *theirs;
    // SAFETY: the symbol's address, a static of the front's.
    assert_eq!(unsafe { theirs.read() }, abi::LAYOUT);
    assert_eq!(unsafe { abi::check_layout(theirs) }, Ok(()));
    assert_eq!(abi::LAYOUT.abi, abi::ABI_VERSION);
    // Sizes and offsets as the C side would see them: pointers and words.
    assert_eq!((abi::LAYOUT.state_size, abi::LAYOUT.table_size), (1064, 88));
    assert_eq!(abi::LAYOUT.state_offsets, [0, 8, 16, 24, 40, 552]);
    assert_eq!(abi::LAYOUT.table_offsets, [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80]);
}

#[test]
fn a_layout_of_another_version_or_shape_is_refused_with_the_reason() {
    let null = unsafe { abi::check_layout(std::ptr::null()) }.unwrap_err();
    assert!(null.contains("exports no cudart_shim_cupti_layout"), "{null}");
    // A front of another version: only its first word is read.
    let old: u32 = abi::ABI_VERSION + 7;
    let e = unsafe { abi::check_layout((&old as *const u32).cast()) }.unwrap_err();
    assert!(e.contains(&format!("its ABI is {old}, here {}", abi::ABI_VERSION)), "{e}");
    let mut other = abi::LAYOUT;
    other.table_offsets[10] += 8;
    let e = unsafe { abi::check_layout(&other) }.unwrap_err();
    assert!(e.contains("another layout"), "{e}");
}

// ---- a multiplexer of our own, to see where the front sends a call -------

static ENABLED: AtomicU32 = AtomicU32::new(u32::MAX);
const MARK: c_int = 777;

unsafe extern "C" fn register_callbacks(_: Option<Requested>, _: Option<Completed>) -> c_int {
    MARK
}
unsafe extern "C" fn register_timestamp(_: Option<Timestamp>) -> c_int {
    MARK
}
unsafe extern "C" fn enable(kind: u32) -> c_int {
    ENABLED.store(kind, Relaxed);
    MARK
}
unsafe extern "C" fn with_u32(_: u32) -> c_int {
    MARK
}
unsafe extern "C" fn api(_: u32, _: u8) -> c_int {
    MARK
}
unsafe extern "C" fn next_record(_: *mut u8, _: usize, _: *mut *mut u8) -> c_int {
    MARK
}
unsafe extern "C" fn dropped(_: *mut c_void, _: u32, _: *mut usize) -> c_int {
    MARK
}
unsafe extern "C" fn finalize() -> c_int {
    MARK
}

fn table(abi: u32) -> MuxTable {
    MuxTable {
        abi,
        register_callbacks,
        register_timestamp,
        enable,
        disable: with_u32,
        enable_driver_api: api,
        enable_runtime_api: api,
        flush_all: with_u32,
        next_record,
        dropped,
        finalize,
    }
}

#[test]
fn the_front_refuses_a_table_of_another_version_and_takes_one_of_its_own() {
    let lib = front();
    // SAFETY: the front's exports, of the shared file's types.
    let install = *unsafe { lib.get::<abi::InstallFn>(abi::INSTALL_SYMBOL.to_bytes()) }.unwrap();
    let activity_enable = *unsafe { lib.get::<unsafe extern "C" fn(u32) -> c_int>(b"cuptiActivityEnable") }.unwrap();

    let mut out = AppState::EMPTY;
    out.kinds = [5, 5];
    let old = table(abi::ABI_VERSION - 1);
    // SAFETY: a table and a writable state.
    assert_eq!(unsafe { install(&old, &mut out) }, abi::NOT_COMPATIBLE);
    assert_eq!(out.kinds, [5, 5], "a refused install writes nothing");
    assert_eq!(unsafe { install(std::ptr::null(), &mut out) }, abi::INVALID_PARAMETER);
    // Still forwarding to the real CUPTI (none here, or whichever is found),
    // not to the refused table.
    assert_ne!(unsafe { activity_enable(3) }, MARK);
    assert_eq!(ENABLED.load(Relaxed), u32::MAX);

    let ours: &'static MuxTable = Box::leak(Box::new(table(abi::ABI_VERSION)));
    assert_eq!(unsafe { install(ours, &mut out) }, 0);
    assert_eq!(out.requested.map(|f| f as usize), None, "the program registered nothing");
    assert_eq!(unsafe { activity_enable(9) }, MARK);
    assert_eq!(ENABLED.load(Relaxed), 9, "the program's call reached our table");
}

/// A `libcudart_shim_cupti.so` of another build, preloaded beside this
/// runtime: one warning naming the mismatch, the front treated as absent
/// (its install never called; our GPU tracing goes on, unshared).
#[test]
fn a_front_of_another_build_is_refused_with_one_warning() {
    let dir = common::scratch("cupti_front_other_build");
    let exe = common::compile_cu(&[&common::repo_root().join("tests/cu/gpu_activity.cu")], &dir.join("gpu_activity"), &[]);
    // Its install, if ever called, fails the run.
    let install = "#include <stdlib.h>\n#include <stdio.h>\nint cudart_shim_cupti_install(const void *t, void *o) { (void)t; (void)o; fputs(\"FOREIGN INSTALL CALLED\\n\", stderr); abort(); }\n";
    let fronts = [
        // A front of before the checks (ABI 1): no layout exported.
        ("old", String::new(), "it exports no cudart_shim_cupti_layout".to_owned()),
        ("newer", format!("const unsigned cudart_shim_cupti_layout[2] = {{ {}, 0 }};\n", abi::ABI_VERSION + 1), format!("its ABI is {}, here {}", abi::ABI_VERSION + 1, abi::ABI_VERSION)),
    ];
    for (tag, layout, why) in fronts {
        let sub = dir.join(tag);
        std::fs::create_dir_all(&sub).unwrap();
        let src = sub.join("front.c");
        std::fs::write(&src, format!("{install}{layout}")).unwrap();
        let so = sub.join("libcudart_shim_cupti.so");
        let o = std::process::Command::new("cc").args(["-shared", "-fPIC", "-Wall", "-Werror", "-Wl,-soname,libcudart_shim_cupti.so", "-o"]).arg(&so).arg(&src).output().unwrap();
        assert!(o.status.success(), "cc: {}", String::from_utf8_lossy(&o.stderr));
        let mut env = common::fake_env(&[]);
        env.push(("CUDART_SHIM_CUPTI".into(), target_dir().join("libfake_cupti.so").display().to_string()));
        env.push(("CUDART_SHIM_TRACE".into(), "summary,gpu".into()));
        env.push(("LD_PRELOAD".into(), so.display().to_string()));
        let out = common::run(&exe, &[], &env);
        let (stdout, stderr) = common::output_text(&out);
        assert!(out.status.success() && stdout.contains("basic done"), "{tag}: {}\n{stderr}", out.status);
        let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("libcudart_shim_cupti.so")).collect();
        assert_eq!(lines.len(), 1, "{tag}: one line about the front: {stderr}");
        assert!(lines[0].contains("is of another cudart-shim build") && lines[0].contains(&why) && lines[0].contains("not shared"), "{tag}: {}", lines[0]);
        assert!(stderr.contains("cuda_gpu_kern_sum") && stderr.contains("void fill<float>(float*, float)"), "{tag}: GPU tracing goes on: {stderr}");
    }
}
