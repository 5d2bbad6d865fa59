//! The C programs of c_examples/ and tests/c/ that the suite runs on the
//! shim over the fake driver, with what each run must print. One place for
//! those checks: the plain tests (c_examples.rs, memory_c.rs,
//! kernels_programs.rs, stream_c.rs, lifecycle.rs) and tests/sanitizers.rs,
//! which runs the same programs under AddressSanitizer and valgrind, assert
//! the same things.

use super::*;

/// A C program built against include/cudart_shim.h and linked to the shim.
pub struct Program {
    /// Source, relative to the repository root.
    pub src: &'static str,
    /// Extra libraries it needs.
    pub libs: &'static [&'static str],
}

impl Program {
    /// Build it into `dir` (named after the source), with extra compiler
    /// flags (e.g. `-fsanitize=address`).
    pub fn build(&self, dir: &Path, cflags: &[&str]) -> PathBuf {
        let stem = Path::new(self.src).file_stem().unwrap();
        let flags: Vec<&str> = cflags.iter().chain(self.libs).copied().collect();
        compile_c_shim(&repo_root().join(self.src), &dir.join(stem), &flags)
    }
}

/// Known memory errors and a data race, each of which a checker must
/// report (tests/sanitizers.rs, tests/tsan.rs).
pub const SANITIZER_CANARY: Program = Program { src: "tests/c/sanitizer_canary.c", libs: &["-lpthread"] };

pub mod device_query {
    pub const PROGRAM: super::Program = super::Program { src: "c_examples/device_query.c", libs: &[] };
    pub const KNOBS: &[(&str, &str)] = &[("FAKE_CUDA_DEVICES", "2")];

    pub fn check(out: &str) {
        assert!(out.contains("runtime 13000, driver 13000"), "{out}");
        assert!(out.contains("2 device(s)"), "{out}");
        assert!(out.contains("device 1: Fake CUDA Device 1 (00000000:11:00.0)"), "{out}");
        let lines_per_device = out.lines().filter(|l| l.trim_start().starts_with("multiProcessorCount")).count();
        assert_eq!(lines_per_device, 2);
        assert!(out.contains("  maxThreadsDim                            1024 1024 64"), "{out}");
        assert!(out.contains("device flags 0x8"), "{out}");
        // One line per field of cudaDeviceProp (90 values) plus headers, per device.
        assert!(out.lines().count() > 2 * 90, "{out}");
    }
}

/// c_examples/hooks.c: a `before` handler counts bytes per copy kind, an
/// `instead` handler fails allocations above 1 MiB.
pub mod hooks {
    pub const PROGRAM: super::Program = super::Program { src: "c_examples/hooks.c", libs: &[] };

    pub fn check(out: &str) {
        assert!(out.contains("cudaMalloc(4096 bytes): cudaSuccess\ncudaMalloc(2097152 bytes): cudaErrorMemoryAllocation\n"), "{out}");
        assert!(out.contains("copied back correctly"), "{out}");
        assert!(out.contains("HostToDevice    4096 bytes\nDeviceToHost    4096 bytes\nDeviceToDevice  2048 bytes"), "{out}");
        assert!(out.ends_with("after unregistering, cudaMalloc(2097152 bytes): cudaSuccess\n"), "{out}");
    }
}

pub mod memory_copies {
    pub const PROGRAM: super::Program = super::Program { src: "c_examples/memory_copies.c", libs: &[] };

    pub fn check(out: &str) {
        assert!(out.contains("1D  65536 bytes checked, 0 wrong"), "{out}");
        assert!(out.contains("2D  3700 bytes checked, 0 wrong"), "{out}");
        assert!(out.contains("3D  1080 bytes checked, 0 wrong"), "{out}");
        assert!(out.ends_with("all copies correct\n"), "{out}");
    }
}

/// PTX loaded with cudaLibraryLoadData and launched. The fake runs no
/// code, so the program runs with `--no-check` and the launch is checked
/// in the fake driver's launch log (`FAKE_CUDA_LAUNCH_LOG`).
pub mod library_ptx {
    pub const PROGRAM: super::Program = super::Program { src: "c_examples/library_ptx.c", libs: &[] };
    pub const ARGS: &[&str] = &["--no-check"];

    /// `out`: the program's output; `launches`: the launch log.
    pub fn check(out: &str, launches: &str) {
        assert!(out.contains("kernels 1, kernel axpb, out 256 bytes"), "{out}");
        assert!(out.contains("launched axpb<<<2, 32>>>(out, 3, 7, 64)"), "{out}");
        assert!(out.ends_with("ok\n"), "{out}");
        let l: Vec<&str> = launches.lines().filter(|l| l.starts_with("kind=plain")).collect();
        assert_eq!(l.len(), 1, "{launches}");
        assert!(l[0].starts_with("kind=plain name=axpb grid=2,1,1 block=32,1,1 shared=0 stream=0x0 args="), "{}", l[0]);
        // out pointer (8 bytes), then a=3, b=7, n=64.
        assert!(l[0].ends_with("030000000700000040000000 attrs="), "{}", l[0]);
    }
}

/// Streams, events, callbacks and capture from C (tests/c/streams_fake.c).
pub mod streams_fake {
    pub const PROGRAM: super::Program = super::Program { src: "tests/c/streams_fake.c", libs: &[] };
    pub const OUTPUT: &str = "\
priority -1
host work in order, callback ok
elapsed with a no-timing event: cudaErrorInvalidResourceHandle
elapsed same event: 0.0
capturing 1, dependencies 2, edge type 0
b joined: 1
synchronize in capture: cudaErrorStreamCaptureUnsupported
end capture: cudaErrorStreamCaptureInvalidated, graph NULL
last error: cudaErrorStreamCaptureInvalidated
previous mode 0
destroyed stream query: cudaErrorInvalidResourceHandle
PASS
";
}

/// Process lifecycle cases (tests/c/lifecycle.c), one per argv[1].
pub mod lifecycle {
    pub const PROGRAM: super::Program = super::Program { src: "tests/c/lifecycle.c", libs: &["-ldl", "-lpthread"] };

    /// What case `case` prints, and its exit status.
    pub fn expected(case: &str) -> (&'static str, i32) {
        match case {
            "fork" => (
                "\
cudaGetDeviceCount(&n) cudaSuccess
cudaSetDevice(0) cudaSuccess
cudaGetDeviceCount(&n) cudaErrorInitializationError
cudaSetDevice(0) cudaErrorInitializationError
cudaGetLastError() cudaErrorInitializationError
child initialization error
child exit 0
cudaDeviceSynchronize() cudaSuccess
",
                0,
            ),
            "atexit" => ("cudaSetDevice(0) cudaSuccess\natexit cudaGetDeviceCount ok\n", 0),
            "thread-dtor" => ("cudaSetDevice(0) cudaSuccess\nthread destructor cudaGetDevice ok\n", 0),
            // Run with the shim's path as argv[2].
            "dlclose" => ("round 0 count 0 set 0\nround 1 count 0 set 0\nround 2 count 0 set 0\n", 0),
            "exit-in-callback" => (
                "cudaStreamCreate(&s) cudaSuccess\ncudaLaunchHostFunc(s, exit_from_callback, NULL) cudaSuccess\ncallback exits\n",
                7,
            ),
            _ => panic!("no lifecycle case {case}"),
        }
    }
}
