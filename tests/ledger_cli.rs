//! The memory options of `cudart-shim`: `trace --memory-limit` refuses a
//! bad spec before running anything; `report` prints a saved memory
//! report as the program printed it.

mod common;
use common::*;
use trace_format::memory::{Leak, Report, Row};

#[test]
fn a_bad_memory_limit_is_a_clear_error_and_exit_2() {
    for (spec, part) in [("0=4GB", "unknown unit \"GB\""), ("gpu=1GiB", "unknown device \"gpu\""), ("1GiB,2GiB", "only one limit")] {
        let o = cli_on_fake().args(["trace", "--memory-limit", spec, "--", "/bin/true"]).output().unwrap();
        let (out, err) = output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{spec}: {err}");
        assert!(err.contains("--memory-limit") && err.contains(part), "{spec}: {err}");
        assert!(out.is_empty());
    }
}

#[test]
fn report_prints_a_saved_memory_report() {
    let dir = scratch("ledger_cli_report");
    let row = |lib: &str, live| Row { device: 0, library: lib.into(), kind: "device".into(), allocations: 2, frees: 1, peak_bytes: 3 << 20, peak_ns: 5, live_bytes: live, live_count: 1 };
    let r = Report {
        limits: vec![(0, 4 << 30)],
        rows: vec![row("libnccl.so.2", 1 << 20), row("libtorch_cuda.so", 0)],
        leaks: vec![Leak { device: 0, library: "leaky".into(), kind: "device".into(), site: "leak_three+0x2a (leaky)".into(), sizes: vec![1000, 2000, 3000], backtrace: vec![] }],
        ..Default::default()
    };
    let f = dir.join("memory.json");
    std::fs::write(&f, r.to_json()).unwrap();
    let o = cli_on_fake().arg("report").arg(&f).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, r.to_text());
    assert!(out.contains("libnccl.so.2") && out.contains("Limit: device 0: 4.00 GiB") && out.contains("leak_three+0x2a"), "{out}");
    let o = cli_on_fake().args(["report", "--format", "csv"]).arg(&f).output().unwrap();
    assert_eq!(output_text(&o).0, r.to_csv());
}
