//! The runtime version rule (issue #27 point 4, docs/COMPATIBILITY.md):
//! with a driver, `cudaRuntimeGetVersion` never answers more than
//! `cudaDriverGetVersion` (the lower of ours and the driver's); with no
//! driver, our own version; `CUDART_SHIM_RUNTIME_VERSION` forces an
//! answer. Both libraries (13: 13050, 12: 12090), each in a fresh process
//! (the driver's version is read once), over the fake driver at the
//! version each case sets.

mod common;
use common::*;
use std::path::{Path, PathBuf};

/// The probe, built into a folder of the calling test's own (tests run at
/// once: one test rewriting the program another runs fails that run).
fn probe(test: &str) -> PathBuf {
    let dir = scratch(&format!("coexist_version_{test}"));
    let exe = dir.join("versions");
    let o = std::process::Command::new("cc")
        .args(["-std=c11", "-Wall", "-Werror"])
        .arg(repo_root().join("tests/c/versions.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-ldl")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    exe
}

/// What `lib` answers (runtime, driver), with `env` added to a clean
/// environment, and its stderr.
fn answers(exe: &Path, lib: &Path, env: &[(&str, &str)]) -> ((i32, i32), String) {
    let o = std::process::Command::new(exe)
        .arg(lib)
        .env_remove("CUDART_SHIM_RUNTIME_VERSION")
        .env_remove("CUDART_SHIM_TRACE")
        .env_remove("LD_PRELOAD")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}{err}");
    let w: Vec<&str> = out.split_whitespace().collect();
    assert_eq!((w[0], w[2], w[4], w[5]), ("runtime", "driver", "(results", "0"), "{out}");
    ((w[1].parse().unwrap(), w[3].parse().unwrap()), err)
}

fn on_driver(version: &str) -> Vec<(&'static str, String)> {
    vec![("CUDART_SHIM_DRIVER", fake_driver().display().to_string()), ("FAKE_CUDA_DRIVER_VERSION", version.to_owned())]
}

fn env<'a>(v: &'a [(&'static str, String)], more: &[(&'static str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    v.iter().map(|(k, v)| (*k, v.as_str())).chain(more.iter().copied()).collect()
}

#[test]
fn the_runtime_version_never_exceeds_the_drivers() {
    let exe = probe("driver");
    // (driver, what the 13 library answers, what the 12 library answers)
    for (driver, v13, v12) in [(13000, 13000, 12090), (13050, 13050, 12090), (13060, 13050, 12090), (12090, 12090, 12090), (12040, 12040, 12040)] {
        let d = on_driver(&driver.to_string());
        assert_eq!(answers(&exe, &shim_lib(), &env(&d, &[])).0, (v13, driver), "13 library on driver {driver}");
        assert_eq!(answers(&exe, &shim12_lib(), &env(&d, &[])).0, (v12, driver), "12 library on driver {driver}");
    }
}

#[test]
fn with_no_driver_the_runtime_answers_its_own_version() {
    let exe = probe("none");
    let none = [("CUDART_SHIM_DRIVER", "/nonexistent/libcuda.so.1"), ("CUDART_SHIM_LOG", "off")];
    assert_eq!(answers(&exe, &shim_lib(), &none).0, (13050, 0));
    assert_eq!(answers(&exe, &shim12_lib(), &none).0, (12090, 0));
}

#[test]
fn the_variable_forces_an_answer_and_a_bad_value_is_one_warning() {
    let exe = probe("variable");
    let d = on_driver("13000");
    for (value, want) in [("13050", 13050), ("12.8", 12080), ("13.0", 13000)] {
        for lib in [shim_lib(), shim12_lib()] {
            let (got, err) = answers(&exe, &lib, &env(&d, &[("CUDART_SHIM_RUNTIME_VERSION", value)]));
            assert_eq!(got, (want, 13000), "{value} on {}", lib.display());
            assert!(!err.contains("warn"), "{err}");
        }
    }
    let none = [("CUDART_SHIM_DRIVER", "/nonexistent/libcuda.so.1"), ("CUDART_SHIM_RUNTIME_VERSION", "12.9")];
    assert_eq!(answers(&exe, &shim_lib(), &none).0, (12090, 0), "forced without a driver too");
    let (got, err) = answers(&exe, &shim_lib(), &env(&d, &[("CUDART_SHIM_RUNTIME_VERSION", "thirteen")]));
    assert_eq!(got, (13000, 13000), "a bad value leaves the rule");
    assert_eq!(err.matches("CUDART_SHIM_RUNTIME_VERSION").count(), 1, "{err}");
    assert!(err.contains("\"thirteen\" is not understood"), "{err}");
}
