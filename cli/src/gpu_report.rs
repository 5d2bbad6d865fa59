//! The GPU tables in `cudart-shim report` and `cudart-shim trace --gpu`:
//! from a saved timeline's GPU slices, or from a summary file the library
//! wrote.

use trace_format::gpu_table::{GpuSummary, MEMSET};
use trace_format::table::Row;
use serde_json::Value;
use std::collections::BTreeMap;

/// The tables over a timeline's GPU slices (categories `gpu_kernel`,
/// `gpu_memcpy`, `gpu_memset`); None when it has none.
pub fn from_events(events: &[Value]) -> Option<GpuSummary> {
    let mut kernels: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut mem: BTreeMap<String, (Vec<u64>, Vec<u64>)> = BTreeMap::new();
    let mut any = false;
    for e in events.iter().filter(|e| e["ph"] == "X") {
        let ns = (e["dur"].as_f64().unwrap_or(0.0) * 1000.0).round() as u64;
        match e["cat"].as_str() {
            Some("gpu_kernel") => kernels.entry(e["name"].as_str().unwrap_or("?").to_owned()).or_default().push(ns),
            Some(c @ ("gpu_memcpy" | "gpu_memset")) => {
                let op = e["args"]["operation"].as_str().unwrap_or(if c == "gpu_memset" { MEMSET } else { "?" });
                let m = mem.entry(op.to_owned()).or_default();
                m.0.push(ns);
                m.1.push(e["args"]["bytes"].as_u64().unwrap_or(0));
            }
            _ => continue,
        }
        any = true;
    }
    if !any {
        return None;
    }
    let mut g = GpuSummary::default();
    for (name, mut d) in kernels {
        g.kernels.push(Row::from_samples(&name, &mut d));
    }
    for (op, (mut d, mut b)) in mem {
        g.mem_time.push(Row::from_samples(&op, &mut d));
        g.mem_size.push(Row::from_samples(&op, &mut b));
    }
    g.sort();
    Some(g)
}

/// Whether a summary file written by the library holds GPU tables.
pub fn has_tables(file: &std::path::Path) -> bool {
    from_summary_file(file).is_some()
}

fn from_summary_file(file: &std::path::Path) -> Option<GpuSummary> {
    let text = std::fs::read_to_string(file).ok()?;
    GpuSummary::from_json(&serde_json::from_str::<Value>(&text).ok()?)
}

/// Print the GPU tables of a summary file written by the library, if it
/// has them (`trace --gpu`).
pub fn eprint_from_summary(file: &std::path::Path) {
    if let Some(g) = from_summary_file(file) {
        eprint!("{}", g.to_text());
    }
}

/// The capture windows of a summary file written by the library, as the
/// line that follows its API table, when it has windows and no NVTX table
/// (which states them itself).
pub fn windows_line_from_summary(file: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let j = serde_json::from_str::<Value>(&text).ok()?;
    if j.get("nvtx_sum").is_some() {
        return None;
    }
    j.get("capture_windows")?.as_str().map(|w| format!("\n Capture windows: {w}\n"))
}

/// Print the NVTX table (and capture windows) of a summary file written by
/// the library, if it has them.
pub fn eprint_nvtx_from_summary(file: &std::path::Path) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let Ok(j) = serde_json::from_str::<Value>(&text) else { return };
    if let Some(n) = trace_format::nvtx_table::NvtxSummary::from_json(&j) {
        eprint!("{}", n.to_text());
    }
    if let Some(p) = trace_format::nvtx_table::NvtxGpuProj::from_json(&j) {
        eprint!("{}", p.to_text());
    }
}

/// The report in `format`, the API table's and the GPU tables together.
pub fn render(api: &trace_format::table::Summary, gpu: Option<&GpuSummary>, format: &str) -> Option<String> {
    let Some(g) = gpu else {
        return Some(match format {
            "csv" => api.to_csv(),
            "json" => api.to_json(),
            "text" => api.to_text(),
            _ => return None,
        });
    };
    Some(match format {
        "csv" => api.to_csv() + "\n" + &g.to_csv(),
        "json" => {
            let mut j: Value = serde_json::from_str(&api.to_json()).unwrap_or_default();
            if let Some(m) = j.as_object_mut() {
                m.extend(g.json_members());
            }
            serde_json::to_string_pretty(&j).unwrap_or_default() + "\n"
        }
        "text" => api.to_text() + &g.to_text(),
        _ => return None,
    })
}
