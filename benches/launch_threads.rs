//! Kernel launches from 1, 8 and 32 threads, each on its own non-blocking
//! stream, over the fake driver: `cudaLaunchKernel` by host stub (which
//! looks the stub up in the kernel registry on every call) against
//! `__cudaLaunchKernel` with the handle from `__cudaGetKernel` (the `<<<>>>`
//! path: no lookup), `cudaFuncGetAttributes`, and the registry lookup
//! alone (many more calls per round: it is short). Any lock on the lookup
//! shows up as a cost that grows with the thread count.
//!
//! The `<<<>>>` path is also measured with progress state kept (the
//! watchdog's: `trace::progress`), interleaved with it off, so the row
//! "progress kept (added)" is what a launch pays for it: the stream's
//! launch count, its ring record (with a clock read), the kernel's class.
//!
//! `cargo bench --bench launch_threads`. Figures: best of
//! `CUDART_SHIM_BENCH_REPEATS` (default 5) interleaved rounds, wall-clock
//! ns per call (wall time / calls of all threads). The fake driver itself
//! takes locks (its launch log, its stream queues) and dominates the launch
//! rows, which on a shared machine vary by more than the lookup costs; the
//! row that isolates the lookup is "registry lookup alone".

use cudart_shim::api::hidden::{__cudaGetKernel, __cudaLaunchKernel, __cudaRegisterFatBinary, __cudaRegisterFatBinaryEnd, __cudaRegisterFunction};
use cudart_shim::api::launch::{cudaFuncGetAttributes, cudaLaunchKernel};
use cudart_shim::api::stream::{cudaStreamCreateWithFlags, cudaStreamDestroy, cudaStreamSynchronize};
use cudart_shim::internals::registry::resolve;
use cudart_shim::types::*;
use std::ffi::{c_char, c_void};
use std::hint::black_box;
use std::path::PathBuf;
use std::ptr::null_mut;
use std::sync::Barrier;
use std::time::Instant;

const PTX: &std::ffi::CStr = c".version 8.0
.target sm_90
.address_size 64
.visible .entry empty()
{
    ret;
}
";

const ONE: dim3 = dim3 { x: 1, y: 1, z: 1 };

fn target_dir() -> PathBuf {
    // target/<profile>/deps/launch_threads-<hash>
    std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf()
}

#[path = "../tests/common/fatbin.rs"]
mod fatbin;
use fatbin::fatbin_wrapper;

static STUB: u8 = 0;

#[derive(Clone, Copy)]
enum Path {
    /// `cudaLaunchKernel(stub, ...)`: registry lookup, then the launch.
    ByStub,
    /// `__cudaLaunchKernel(kernel, ...)`: the `<<<>>>` path.
    Chevron,
    /// `cudaFuncGetAttributes(stub)`: the lookup, then the driver's
    /// attribute queries.
    Attributes,
    /// The registry lookup alone (what the launch by stub adds to `<<<>>>`),
    /// no driver call: the figure that shows a lock.
    Lookup,
}

/// Wall-clock ns per operation (wall time / operations, all threads
/// together): flat when the calls serialize, falling with the thread count
/// (down to 1/cores) when they run in parallel.
fn run(path: Path, threads: usize, per_thread: usize, kernel: cudaKernel_t) -> f64 {
    let stub = (&STUB as *const u8).cast::<c_void>() as usize;
    let kernel = kernel as usize;
    let barrier = Barrier::new(threads + 1);
    let elapsed = std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut stream = null_mut();
                assert_eq!(unsafe { cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking) }, cudaSuccess);
                barrier.wait();
                for _ in 0..per_thread {
                    let r = unsafe {
                        match path {
                            Path::ByStub => cudaLaunchKernel(black_box(stub as *const c_void), ONE, ONE, null_mut(), 0, stream),
                            Path::Chevron => __cudaLaunchKernel(black_box(kernel as cudaKernel_t), ONE, ONE, null_mut(), 0, stream),
                            Path::Attributes => {
                                let mut a = std::mem::MaybeUninit::<cudaFuncAttributes>::zeroed();
                                cudaFuncGetAttributes(a.as_mut_ptr(), black_box(stub as *const c_void))
                            }
                            Path::Lookup => match resolve(black_box(stub as *const c_void)) {
                                Ok(_) => cudaSuccess,
                                Err(e) => e,
                            },
                        }
                    };
                    debug_assert_eq!(r, cudaSuccess);
                    black_box(r);
                }
                assert_eq!(unsafe { cudaStreamSynchronize(stream) }, cudaSuccess);
                barrier.wait();
                assert_eq!(unsafe { cudaStreamDestroy(stream) }, cudaSuccess);
            });
        }
        barrier.wait();
        let t = Instant::now();
        barrier.wait();
        t.elapsed()
    });
    elapsed.as_nanos() as f64 / (threads * per_thread) as f64
}

fn main() {
    // SAFETY: no other thread of ours runs yet.
    unsafe { std::env::set_var("CUDART_SHIM_DRIVER", target_dir().join("libfake_cuda.so")) };
    let fake = unsafe { libloading::Library::new(target_dir().join("libfake_cuda.so")) }.unwrap();
    let clear: libloading::Symbol<extern "C" fn()> = unsafe { fake.get(b"fake_cuda_launch_clear\0") }.unwrap();
    let w = fatbin_wrapper(PTX);
    let mut kernel = null_mut();
    unsafe {
        let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
        let stub = (&STUB as *const u8).cast::<c_char>();
        __cudaRegisterFunction(h, stub, c"empty".as_ptr() as *mut c_char, c"empty".as_ptr(), -1, null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        __cudaRegisterFatBinaryEnd(h);
        assert_eq!(__cudaGetKernel(&mut kernel, stub.cast()), cudaSuccess);
        assert_eq!(cudaLaunchKernel(stub.cast(), ONE, ONE, null_mut(), 0, null_mut()), cudaSuccess);
    }
    let repeats: usize = std::env::var("CUDART_SHIM_BENCH_REPEATS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let total = 128 * 1024;
    let counts = [1usize, 8, 32];
    let paths = [
        ("__cudaLaunchKernel (<<<>>>)", Path::Chevron, total),
        ("cudaLaunchKernel(stub)", Path::ByStub, total),
        ("cudaFuncGetAttributes", Path::Attributes, total),
        ("registry lookup alone", Path::Lookup, total * 16),
    ];
    let mut best = vec![[f64::MAX; 3]; paths.len()];
    // The <<<>>> path with progress kept, and again with it off right
    // before (the same conditions, interleaved).
    let (mut kept, mut plain) = ([f64::MAX; 3], [f64::MAX; 3]);
    for _ in 0..repeats {
        for (ti, &t) in counts.iter().enumerate() {
            for (pi, &(_, p, calls)) in paths.iter().enumerate() {
                let ns = run(p, t, calls / t, kernel);
                best[pi][ti] = best[pi][ti].min(ns);
                clear();
            }
            plain[ti] = plain[ti].min(run(Path::Chevron, t, total / t, kernel));
            clear();
            cudart_shim::watchdog::keep_progress();
            kept[ti] = kept[ti].min(run(Path::Chevron, t, total / t, kernel));
            cudart_shim::trace::progress::pause();
            clear();
        }
    }
    println!("wall-clock ns per call (wall / calls of all threads; {} cores), best of {repeats} interleaved rounds, {total} calls per round (the lookup alone 16 times more), fake driver", std::thread::available_parallelism().map_or(0, |n| n.get()));
    println!("{:<30} {:>12} {:>12} {:>12}", "path", "1 thread", "8 threads", "32 threads");
    for (pi, (name, _, _)) in paths.iter().enumerate() {
        println!("{:<30} {:>12.1} {:>12.1} {:>12.1}", name, best[pi][0], best[pi][1], best[pi][2]);
    }
    println!("{:<30} {:>12.1} {:>12.1} {:>12.1}", "<<<>>>, progress off", plain[0], plain[1], plain[2]);
    println!("{:<30} {:>12.1} {:>12.1} {:>12.1}", "<<<>>>, progress kept", kept[0], kept[1], kept[2]);
    println!("{:<30} {:>12.1} {:>12.1} {:>12.1}", "progress kept (added)", kept[0] - plain[0], kept[1] - plain[1], kept[2] - plain[2]);
    std::mem::forget(fake);
}
