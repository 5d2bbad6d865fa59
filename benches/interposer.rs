//! Cost the driver interposer adds to a driver call, on the CPU over the
//! fake driver: benches/cpu/driver_cost.c (cuCtxGetCurrent, cuStreamQuery,
//! cuLaunchKernel, ns per call, best of 7 rounds) run with the fake driver
//! alone, then with the interposer in front of it with tracing off, in
//! `summary` mode, and in `summary` with 1 call in 16 timed; the four
//! interleaved A B C D, `CUDART_SHIM_BENCH_REPEATS` times (default 3).
//! Figures: the best over the repeats; "added" = mode - fake alone.
//!
//! `cargo build --release --workspace && cargo bench --bench interposer`.
//! The GPU counterpart (real driver) is the interposer GPU check (gpu/checks/interposer.py).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

fn target_dir() -> PathBuf {
    // target/<profile>/deps/interposer-<hash>
    std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf()
}

fn main() {
    let t = target_dir();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let interposer = t.join("driver");
    let fake = t.join("libfake_cuda.so");
    for p in [interposer.join("libcuda.so.1"), fake.clone(), t.join("libcudart_shim.so")] {
        assert!(p.exists(), "{} is missing: cargo build --release --workspace", p.display());
    }
    let dir = std::env::temp_dir().join(format!("cudart-shim-bench-interposer-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("fake")).unwrap();
    // The fake driver alone, under its SONAME.
    std::os::unix::fs::symlink(&fake, dir.join("fake/libcuda.so.1")).unwrap();
    let exe = dir.join("driver_cost");
    let o = Command::new("cc").args(["-O2", "-o"]).arg(&exe).arg(root.join("benches/cpu/driver_cost.c")).arg("-ldl").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let modes: [(&str, Vec<(&str, String)>); 4] = [
        ("fake driver alone", vec![("LD_LIBRARY_PATH", dir.join("fake").display().to_string())]),
        ("interposer, tracing off", vec![("LD_LIBRARY_PATH", interposer.display().to_string())]),
        ("interposer, summary", vec![("LD_LIBRARY_PATH", interposer.display().to_string()), ("CUDART_SHIM_TRACE", "summary".into())]),
        (
            "interposer, summary/16",
            vec![("LD_LIBRARY_PATH", interposer.display().to_string()), ("CUDART_SHIM_TRACE", "summary".into()), ("CUDART_SHIM_TRACE_SAMPLE", "16".into())],
        ),
    ];
    let repeats: usize = std::env::var("CUDART_SHIM_BENCH_REPEATS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let mut best: BTreeMap<(usize, String), f64> = BTreeMap::new();
    for _ in 0..repeats {
        for (i, (_, env)) in modes.iter().enumerate() {
            let o = Command::new(&exe)
                .arg("200000")
                .env("CUDART_SHIM_DRIVER", &fake)
                .env("CUDART_SHIM_TRACE_FILE", dir.join("summary.txt"))
                .env_remove("CUDART_SHIM_TRACE")
                .env_remove("LD_PRELOAD")
                .envs(env.iter().map(|(k, v)| (k, v)))
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            for l in String::from_utf8_lossy(&o.stdout).lines() {
                let mut w = l.split_whitespace();
                let (Some(f), Some(v)) = (w.next(), w.next().and_then(|v| v.parse::<f64>().ok())) else { continue };
                let e = best.entry((i, f.to_owned())).or_insert(f64::MAX);
                *e = e.min(v);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("ns per call, best of {repeats} interleaved runs (added = mode - fake driver alone):");
    for f in ["cuCtxGetCurrent", "cuStreamQuery", "cuLaunchKernel"] {
        let base = best[&(0, f.to_owned())];
        print!("{f:16} fake {base:7.1}");
        for (i, (name, _)) in modes.iter().enumerate().skip(1) {
            let v = best[&(i, f.to_owned())];
            print!(" | {name}: {v:7.1} ({:+.1})", v - base);
        }
        println!();
    }
}
