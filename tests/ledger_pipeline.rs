//! The ledger plugged into the interception pipeline, over the fake
//! driver: a C program's allocations through our runtime and the driver
//! interposer (`cudart-shim trace`), counted once; the leak report, the
//! limit and the OOM report as the program's user sees them.

mod common;
use common::*;
use cudart_shim::ledger;
use std::path::PathBuf;

fn leak_three(test: &str) -> PathBuf {
    let dir = scratch(test);
    compile_c_cudart(&repo_root().join("tests/c/leak_three.c"), &dir.join("leak_three"), &[])
}

#[test]
fn the_leak_report_names_the_function_and_the_sizes_and_nothing_is_counted_twice() {
    let exe = leak_three("ledger_leak");
    let mem = scratch("ledger_leak").join("memory.json");
    let _ = std::fs::remove_file(&mem);
    let o = cli_on_fake().args(["trace", "--no-summary", "--memory", "--"]).arg(&exe).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "leaked 3\n");
    assert!(err.contains("Leaks: 3 allocation(s)") && err.contains("1,000, 20,000, 300,000"), "{err}");
    assert!(err.contains("leak_three_buffers"), "{err}");
    // The same run into a JSON file: one row, the program's, with the
    // runtime's allocations and not the interposer's driver calls under them.
    let o = cli_on_fake().args(["trace", "--no-summary", "--memory-file"]).arg(&mem).arg("--").arg(&exe).output().unwrap();
    assert!(o.status.success(), "{}", output_text(&o).1);
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&mem).unwrap()).unwrap();
    let rows = j["cuda_memory"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!((r["Library"].as_str().unwrap(), r["Kind"].as_str().unwrap()), ("leak_three", "device"), "{r}");
    assert_eq!((r["Allocs"].as_u64(), r["Frees"].as_u64(), r["Live Bytes"].as_u64()), (Some(4), Some(1), Some(321_000)), "{r}");
}

#[test]
fn the_limit_refuses_without_reaching_the_driver_and_prints_the_oom_report() {
    let exe = leak_three("ledger_oom");
    let o = cli_on_fake().args(["trace", "--no-summary", "--memory", "--memory-limit", "0=1MiB", "--"]).arg(&exe).args(["oom", "2000000"]).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "oom: cudaErrorMemoryAllocation\nleaked 3\n");
    assert!(err.contains("Out of memory: cudaMalloc") && err.contains("refused by the memory limit") && err.contains("limit: 1.00 MiB"), "{err}");
    assert!(err.contains("memory limit: cudaMalloc of 2000000 bytes on device 0 refused"), "{err}");
    // Without the limit the same allocation reaches the (fake) driver.
    let o = cli_on_fake().args(["trace", "--no-summary", "--"]).arg(&exe).args(["oom", "2000000"]).output().unwrap();
    assert_eq!(output_text(&o).0, "oom: cudaSuccess\nleaked 3\n");
}

#[test]
fn run_takes_the_limit_too() {
    let exe = leak_three("ledger_run");
    let o = cli_on_fake().args(["run", "--memory-limit", "1MiB", "--"]).arg(&exe).args(["oom", "2000000"]).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "oom: cudaErrorMemoryAllocation\nleaked 3\n", "{err}");
    let o = cli_on_fake().args(["run", "--memory-limit", "1MB", "--"]).arg(&exe).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).1.contains("unknown unit \"MB\""));
}

#[test]
fn a_bad_limit_in_the_variable_is_one_warning_and_no_limit() {
    let exe = leak_three("ledger_badvar");
    let mut c = std::process::Command::new(&exe);
    c.args(["oom", "2000000"]);
    for (k, v) in fake_env(&[]) {
        c.env(k, v);
    }
    let o = c.env("CUDART_SHIM_MEMORY_LIMIT", "0=1MB").output().unwrap();
    let (out, err) = output_text(&o);
    assert_eq!(out, "oom: cudaSuccess\nleaked 3\n", "{err}");
    assert_eq!(err.matches("CUDART_SHIM_MEMORY_LIMIT").count(), 1, "{err}");
    assert!(err.contains("unknown unit \"MB\"") && err.contains("no memory limit is applied"), "{err}");
}

#[test]
fn every_function_the_ledger_acts_on_has_its_parameters_listed() {
    let missing: Vec<&str> = cudart_shim::control::params::NAMES
        .iter()
        .enumerate()
        .filter(|(_, n)| ledger::decode::op_of(n).is_some())
        .filter(|(i, _)| !ledger::fields::known(*i as u32))
        .map(|(_, n)| *n)
        .collect();
    // The legacy 32-bit driver entry points (cuMemAlloc before _v2 ...)
    // are left to the driver: no program built since CUDA 3.2 calls them.
    let legacy = ["cuMemAlloc", "cuMemAllocPitch", "cuMemFree", "cuArrayCreate", "cuArray3DCreate", "cuMemAllocHost", "cuMemHostRegister", "cuIpcOpenMemHandle", "cuMemGetInfo", "cuDeviceTotalMem", "cudaGetDeviceProperties_v2"];
    let missing: Vec<&str> = missing.into_iter().filter(|n| !legacy.contains(n)).collect();
    assert!(missing.is_empty(), "functions op_of knows without a field list in src/ledger/fields.rs: {missing:?}");
}
