//! nvcc-built CUDA programs (tests/cu/) run on the shim over the fake
//! driver: registration, every launch path, argument bytes, symbols.
//! The fake records each launch (FAKE_CUDA_LAUNCH_LOG); kernels do not run.

mod common;
use common::*;
use std::path::Path;

/// One launch from the fake's log, split into its fields.
#[derive(Debug)]
struct Launch {
    kind: String,
    name: String,
    grid: String,
    block: String,
    shared: String,
    stream: String,
    args: String,
    attrs: String,
}

fn parse(line: &str) -> Launch {
    let f = |k: &str| {
        line.split(' ')
            .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{k} missing in {line}"))
            .to_owned()
    };
    Launch {
        kind: f("kind"),
        name: f("name"),
        grid: f("grid"),
        block: f("block"),
        shared: f("shared"),
        stream: f("stream"),
        args: f("args"),
        attrs: f("attrs"),
    }
}

/// Build `srcs` with nvcc, run on the fake, return (stdout, launches).
fn run_program(test: &str, srcs: &[&str], flags: &[&str], knobs: &[(&str, &str)]) -> (String, Vec<Launch>) {
    let dir = scratch(test);
    let paths: Vec<_> = srcs.iter().map(|s| repo_root().join("tests/cu").join(s)).collect();
    let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let exe = compile_cu(&refs, &dir.join(test), flags);
    let log = dir.join("launches.txt");
    let _ = std::fs::remove_file(&log);
    let log_s = log.display().to_string();
    let mut k = vec![("FAKE_CUDA_LAUNCH_LOG", log_s.as_str())];
    k.extend_from_slice(knobs);
    let out = run_on_fake(&exe, &[], &k);
    let launches = std::fs::read_to_string(&log).unwrap_or_default().lines().filter(|l| !l.starts_with("kind=library")).map(parse).collect();
    (out, launches)
}

/// `kind=library` lines of the fake's log: libraries the shim loaded.
fn libraries_loaded(test: &str) -> usize {
    let log = scratch(test).join("launches.txt");
    std::fs::read_to_string(log).unwrap_or_default().lines().filter(|l| l.starts_with("kind=library")).count()
}

#[test]
fn plain_program_launches_symbols_and_queries() {
    let (out, l) = run_program("kernels_basic", &["kernels_basic.cu"], &[], &[]);
    for want in [
        "dv size 16",
        "cv size 32",
        "too many threads: cudaErrorInvalidValue",
        "empty grid: cudaErrorInvalidValue",
        "not a kernel: cudaErrorInvalidResourceHandle",
        "cv roundtrip ok",
        "dv 0 0 41 42",
        "past the end: cudaErrorInvalidValue",
        "wrong direction: cudaErrorInvalidMemcpyDirection",
        "not a symbol: cudaErrorInvalidSymbol",
        "mv 5",
        "mv via symbol 9",
        "name _Z2k1idcPi",
        "name _Z2tkIfEvPT_S0_i",
        "maxThreadsPerBlock 1024 maxDynamicSharedSizeBytes 49152",
        "big shared after opt-in: cudaSuccess",
        "big shared without: cudaErrorInvalidValue",
        "k2 param 1 offset 16 size 8",
        "occupancy 8",
        "done",
    ] {
        assert!(out.lines().any(|x| x == want), "missing `{want}` in:\n{out}");
    }
    let names: Vec<&str> = l.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "_Z2k1idcPi", "_Z2k21Sx", "_Z2k0v", "_Z2tkIfEvPT_S0_i", "_Z2tkIiEvPT_S0_i", "_ZN2ns2nkEt",
            "_Z2k1idcPi", "_Z2k0v", "_Z2k0v", "_Z2k0v", "_Z2k0v"
        ],
        "{l:#?}"
    );
    // k1<<<dim3(2,3,4), dim3(32,2,1), 128>>>(7, 2.5, 'c', d): int at 0,
    // double at 8, char at 16, pointer at 24.
    let k1 = &l[0];
    assert_eq!((k1.kind.as_str(), k1.grid.as_str(), k1.block.as_str(), k1.shared.as_str(), k1.stream.as_str()), ("plain", "2,3,4", "32,2,1", "128", "0x0"));
    assert!(k1.args.starts_with("07000000000000000000000000000440" /* 7, pad, 2.5 */), "{}", k1.args);
    assert_eq!(&k1.args[32..34], "63");
    assert_eq!(k1.args.len(), 64);
    // k2<<<1, 1, 0, cudaStreamPerThread>>>(S{1, 2.0f, 3}, 0x1122334455667788).
    assert_eq!(l[1].stream, "0x2");
    // S's three padding bytes (after z) are whatever the program's stack
    // held (indeterminate in C; passed as given): not compared.
    let a = &l[1].args;
    assert_eq!((a.len(), &a[..18], &a[24..]), (48, "010000000000004003", "000000008877665544332211"), "{a}");
    assert_eq!((l[2].grid.as_str(), l[2].block.as_str(), l[2].args.as_str()), ("5,1,1", "64,1,1", ""));
    // tk<float>(p, 1.5f, 4) and tk<int>(p, -1, 8).
    assert!(l[3].args.ends_with("0000c03f04000000"), "{}", l[3].args);
    assert!(l[4].args.ends_with("ffffffff08000000"), "{}", l[4].args);
    assert_eq!(l[5].args, "efbe");
    // cudaLaunchKernel by hand on the stub, legacy stream.
    assert_eq!((l[6].grid.as_str(), l[6].block.as_str(), l[6].stream.as_str()), ("9,1,1", "10,1,1", "0x1"));
    assert!(l[6].args.starts_with("0b00000000000000000000000000e03f7a"), "{}", l[6].args);
    // cudaLaunchKernelExC with the cooperative attribute (id 2, value 1).
    assert_eq!((l[7].kind.as_str(), l[7].shared.as_str(), l[7].attrs.as_str()), ("ex", "64", "2:1"));
    assert_eq!(l[8].kind, "cooperative");
    // cudaGetKernel + cudaLaunchKernel on the cudaKernel_t.
    assert_eq!(l[9].grid, "4,1,1");
    // The opted-in launch with 100000 bytes of dynamic shared memory.
    assert_eq!(l[10].shared, "100000");
}

#[test]
fn per_thread_default_stream_program() {
    let (out, l) = run_program("kernels_ptsz", &["kernels_ptsz.cu"], &["--default-stream", "per-thread"], &[]);
    assert!(out.contains("counter 100 200"), "{out}");
    assert!(out.contains("cudaSuccess"), "{out}");
    assert_eq!(l.len(), 2, "{l:#?}");
    assert_eq!(l[0].kind, "plain_ptsz", "<<<>>> must reach cuLaunchKernel_ptsz");
    assert_eq!((l[0].stream.as_str(), l[0].args.as_str()), ("0x0", "0300000000000000"));
    assert_eq!((l[1].stream.as_str(), l[1].grid.as_str(), l[1].block.as_str()), ("0x1", "2,1,1", "16,1,1"));
}

#[test]
fn relocatable_device_code_two_units() {
    let (out, l) = run_program("kernels_rdc", &["kernels_rdc/a.cu", "kernels_rdc/b.cu"], &["-rdc=true"], &[]);
    assert!(out.contains("table 1 8"), "{out}");
    assert!(out.contains("cudaSuccess"), "{out}");
    let got: Vec<(&str, &str, &str)> = l.iter().map(|x| (x.name.as_str(), x.grid.as_str(), x.args.as_str())).collect();
    assert_eq!(got, [("_Z5use_bi", "1,1,1", "15000000"), ("_Z6from_bis", "3,1,1", "05000000feff")]);
}

#[test]
fn registration_is_lazy() {
    let (out, l) = run_program("kernels_lazy", &["kernels_unused.cu"], &[], &[]);
    assert_eq!(out.trim(), "cudaSuccess 1");
    assert!(l.is_empty());
    assert_eq!(libraries_loaded("kernels_lazy"), 0, "an unused fatbinary must not be loaded");
}

#[test]
fn eager_loading_loads_at_registration() {
    let (out, _) = run_program("kernels_eager", &["kernels_unused.cu"], &[], &[("CUDA_MODULE_LOADING", "EAGER")]);
    assert_eq!(out.trim(), "cudaSuccess 1");
    assert_eq!(libraries_loaded("kernels_eager"), 1);
}

#[test]
fn each_fatbinary_loads_once() {
    let (_, l) = run_program("kernels_once", &["kernels_basic.cu"], &[], &[]);
    assert_eq!(l.len(), 11);
    assert_eq!(libraries_loaded("kernels_once"), 1);
}

#[test]
fn missing_arch_is_reported_by_name() {
    // A compute capability 8.0 device and a program built for sm_90 only.
    let dir = scratch("kernels_noarch");
    let exe = compile_cu(&[&repo_root().join("tests/cu/kernels_ptsz.cu")], &dir.join("kernels_noarch"), &["-gencode", "arch=compute_90,code=sm_90"]);
    let env = fake_env(&[("FAKE_CUDA_ATTR", "75=8,76=0"), ("CUDART_SHIM_LOG", "warn")]);
    let out = run(&exe, &[], &env);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("this binary has no code for sm_80"), "{err}");
    assert!(err.contains("it has: sm_90 ELF"), "{err}");
    // With PTX for an older target it would JIT: no warning.
    let ok = compile_cu(&[&repo_root().join("tests/cu/kernels_ptsz.cu")], &dir.join("kernels_ptx75"), &["-gencode", "arch=compute_75,code=compute_75"]);
    let out = run(&ok, &[], &env);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("no code for"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// c_examples/library_ptx.c: PTX loaded with cudaLibraryLoadData, built
/// against include/cudart_shim.h alone.
#[test]
fn library_ptx_loads_and_launches() {
    use programs::library_ptx::*;
    let dir = scratch("library_ptx");
    let exe = PROGRAM.build(&dir, &[]);
    let log = dir.join("launches.txt");
    let _ = std::fs::remove_file(&log);
    let out = run_on_fake(&exe, ARGS, &[("FAKE_CUDA_LAUNCH_LOG", log.to_str().unwrap())]);
    check(&out, &std::fs::read_to_string(&log).unwrap());
    // Without --no-check the program verifies the results, which the fake
    // never computes: it must fail, proving the check is real.
    let bad = run(&exe, &[], &fake_env(&[]));
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stdout).contains("FAIL out[0] = 0, want 7"));
}
