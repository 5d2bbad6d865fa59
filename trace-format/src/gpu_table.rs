//! The GPU tables: Nsight Systems' `cuda_gpu_kern_sum`,
//! `cuda_gpu_mem_time_sum` and `cuda_gpu_mem_size_sum`, as text, CSV and
//! JSON. Self-contained (std, serde_json and [`crate::table`]) so the
//! `cudart-shim` command includes this same file for `report`.

use crate::table::Row;
use std::fmt::Write;

pub const KERN_COLUMNS: [&str; 9] =
    ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"];
pub const MEM_TIME_COLUMNS: [&str; 9] =
    ["Time (%)", "Total Time (ns)", "Count", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Operation"];
pub const MEM_SIZE_COLUMNS: [&str; 8] =
    ["Total (MB)", "Count", "Avg (MB)", "Med (MB)", "Min (MB)", "Max (MB)", "StdDev (MB)", "Operation"];

/// The operation name of a copy of CUPTI kind `k` (`CUpti_ActivityMemcpyKind`)
/// as Nsight writes it; memsets are [`MEMSET`].
pub fn copy_operation(k: u8) -> &'static str {
    match k {
        1 => "[CUDA memcpy Host-to-Device]",
        2 => "[CUDA memcpy Device-to-Host]",
        3 => "[CUDA memcpy Host-to-Array]",
        4 => "[CUDA memcpy Array-to-Host]",
        5 => "[CUDA memcpy Array-to-Array]",
        6 => "[CUDA memcpy Array-to-Device]",
        7 => "[CUDA memcpy Device-to-Array]",
        8 => "[CUDA memcpy Device-to-Device]",
        9 => "[CUDA memcpy Host-to-Host]",
        10 => "[CUDA memcpy Peer-to-Peer]",
        _ => "[CUDA memcpy Unknown]",
    }
}
pub const MEMSET: &str = "[CUDA memset]";

/// The three tables. Rows hold nanoseconds, except `mem_size`, whose rows
/// hold bytes (in the `*_ns` fields) shown as MB (10^6 bytes, as Nsight).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuSummary {
    pub kernels: Vec<Row>,
    pub mem_time: Vec<Row>,
    pub mem_size: Vec<Row>,
}

fn sort(rows: &mut [Row]) {
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
}

fn pct(rows: &[Row], r: &Row) -> f64 {
    let t: u64 = rows.iter().map(|r| r.total_ns).sum();
    if t == 0 { 0.0 } else { r.total_ns as f64 * 100.0 / t as f64 }
}

fn mb(v: f64) -> f64 {
    v / 1e6
}

/// The numbers of one row in column order (the name apart).
fn values(rows: &[Row], r: &Row, size: bool) -> Vec<f64> {
    if size {
        vec![mb(r.total_ns as f64), r.calls as f64, mb(r.avg_ns()), mb(r.med_ns), mb(r.min_ns as f64), mb(r.max_ns as f64), mb(r.stddev_ns)]
    } else {
        vec![pct(rows, r), r.total_ns as f64, r.calls as f64, r.avg_ns(), r.med_ns, r.min_ns as f64, r.max_ns as f64, r.stddev_ns]
    }
}

/// Decimals of column `i`: Nsight shows time percentages with 1, averages
/// and deviations with 1, whole counts with none, MB with 3.
fn decimals(i: usize, size: bool) -> usize {
    match (size, i) {
        (true, 1) => 0,
        (true, _) => 3,
        (false, 0 | 3 | 4 | 7) => 1,
        _ => 0,
    }
}

fn grouped(v: f64, dec: usize) -> String {
    let s = format!("{v:.dec$}");
    let (int, frac) = s.split_once('.').map_or((s.as_str(), None), |(a, b)| (a, Some(b)));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

struct Table<'a> {
    key: &'static str,
    title: &'static str,
    columns: &'a [&'a str],
    rows: &'a [Row],
    size: bool,
}

impl GpuSummary {
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty() && self.mem_time.is_empty()
    }

    pub fn sort(&mut self) {
        sort(&mut self.kernels);
        sort(&mut self.mem_time);
        sort(&mut self.mem_size);
    }

    fn tables(&self) -> [Table<'_>; 3] {
        [
            Table { key: "cuda_gpu_kern_sum", title: "CUDA GPU Kernel Summary", columns: &KERN_COLUMNS, rows: &self.kernels, size: false },
            Table {
                key: "cuda_gpu_mem_time_sum",
                title: "CUDA GPU MemOps Summary (by Time)",
                columns: &MEM_TIME_COLUMNS,
                rows: &self.mem_time,
                size: false,
            },
            Table {
                key: "cuda_gpu_mem_size_sum",
                title: "CUDA GPU MemOps Summary (by Size)",
                columns: &MEM_SIZE_COLUMNS,
                rows: &self.mem_size,
                size: true,
            },
        ]
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for t in self.tables() {
            let _ = writeln!(s, "\n ** {} ({}), cudart-shim:\n", t.title, t.key);
            if t.rows.is_empty() {
                s.push_str(" (none)\n");
                continue;
            }
            let cells: Vec<Vec<String>> = t
                .rows
                .iter()
                .map(|r| {
                    let mut c: Vec<String> =
                        values(t.rows, r, t.size).iter().enumerate().map(|(i, v)| grouped(*v, decimals(i, t.size))).collect();
                    c.push(crate::text::fit_name(&r.name));
                    c
                })
                .collect();
            let mut w: Vec<usize> = t.columns.iter().map(|c| c.len()).collect();
            for row in &cells {
                for (i, c) in row.iter().enumerate() {
                    w[i] = w[i].max(c.len());
                }
            }
            let last = t.columns.len() - 1;
            let line = |s: &mut String, row: &[String]| {
                for (i, c) in row.iter().enumerate() {
                    if i == last {
                        let _ = write!(s, " {c}");
                    } else {
                        let _ = write!(s, " {:>w$} ", c, w = w[i]);
                    }
                }
                s.push('\n');
            };
            line(&mut s, &t.columns.iter().map(|c| c.to_string()).collect::<Vec<_>>());
            line(&mut s, &w.iter().map(|&n| "-".repeat(n)).collect::<Vec<_>>());
            for row in &cells {
                line(&mut s, row);
            }
            if crate::text::any_shortened(t.rows.iter().map(|r| r.name.as_str())) {
                s.push_str(crate::text::SHORTENED_NOTE);
            }
        }
        s
    }

    /// CSV: the three tables, each with its header row, an empty line
    /// between them.
    pub fn to_csv(&self) -> String {
        let mut s = String::new();
        for (n, t) in self.tables().into_iter().enumerate() {
            if n > 0 {
                s.push('\n');
            }
            s.push_str(&t.columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(","));
            s.push('\n');
            for r in t.rows {
                for (i, v) in values(t.rows, r, t.size).iter().enumerate() {
                    let _ = write!(s, "{v:.d$},", d = decimals(i, t.size));
                }
                let _ = writeln!(s, "\"{}\"", r.name.replace('"', "\"\""));
            }
        }
        s
    }

    /// The tables as JSON members (`cuda_gpu_kern_sum`...: arrays of
    /// {column: value}), to add to the summary's JSON object.
    pub fn json_members(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        for t in self.tables() {
            let rows: Vec<serde_json::Value> = t
                .rows
                .iter()
                .map(|r| {
                    let mut o = serde_json::Map::new();
                    for (i, v) in values(t.rows, r, t.size).iter().enumerate() {
                        let d = decimals(i, t.size);
                        let p = 10f64.powi(d as i32);
                        let v = if d == 0 { serde_json::json!(v.round() as u64) } else { serde_json::json!((v * p).round() / p) };
                        o.insert(t.columns[i].to_owned(), v);
                    }
                    o.insert(t.columns[t.columns.len() - 1].to_owned(), r.name.clone().into());
                    serde_json::Value::Object(o)
                })
                .collect();
            m.insert(t.key.to_owned(), rows.into());
        }
        m
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(&serde_json::Value::Object(self.json_members())).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The tables back from their JSON members (None: none there). Sizes
    /// come back rounded to the byte.
    pub fn from_json(j: &serde_json::Value) -> Option<GpuSummary> {
        j.get("cuda_gpu_kern_sum")?;
        // Keys: total, then median, min, max, deviation; unit scale.
        let rows = |key: &str, count: &str, name: &str, keys: [&str; 5], scale: f64| -> Vec<Row> {
            let num = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap_or(0.0) * scale;
            let rows = j[key].as_array().into_iter().flatten();
            rows.map(|r| Row {
                name: r[name].as_str().unwrap_or("?").to_owned(),
                calls: r[count].as_u64().unwrap_or(0),
                total_ns: num(r, keys[0]).round() as u64,
                med_ns: num(r, keys[1]),
                min_ns: num(r, keys[2]).round() as u64,
                max_ns: num(r, keys[3]).round() as u64,
                stddev_ns: num(r, keys[4]),
            })
            .collect()
        };
        let time = ["Total Time (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"];
        let size = ["Total (MB)", "Med (MB)", "Min (MB)", "Max (MB)", "StdDev (MB)"];
        let mut g = GpuSummary {
            kernels: rows("cuda_gpu_kern_sum", "Instances", "Name", time, 1.0),
            mem_time: rows("cuda_gpu_mem_time_sum", "Count", "Operation", time, 1.0),
            mem_size: rows("cuda_gpu_mem_size_sum", "Count", "Operation", size, 1e6),
        };
        g.sort();
        Some(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GpuSummary {
        let mut g = GpuSummary {
            kernels: vec![Row::from_samples("void add<float>(float*)", &mut [1000, 3000]), Row::from_samples("k2", &mut [500])],
            mem_time: vec![Row::from_samples(copy_operation(1), &mut [2000]), Row::from_samples(MEMSET, &mut [100, 300])],
            mem_size: vec![Row::from_samples(copy_operation(1), &mut [4_000_000]), Row::from_samples(MEMSET, &mut [1000, 3000])],
        };
        g.sort();
        g
    }

    #[test]
    fn nsight_columns_in_three_formats() {
        let g = sample();
        let t = g.to_text();
        assert!(t.contains("cuda_gpu_kern_sum") && t.contains("cuda_gpu_mem_time_sum") && t.contains("cuda_gpu_mem_size_sum"), "{t}");
        assert!(t.contains(" Time (%)  Total Time (ns)  Instances  Avg (ns)"), "{t}");
        assert!(t.contains("88.9") && t.contains("4,000") && t.contains("void add<float>(float*)"), "{t}");
        assert!(t.contains("4.000") && t.contains("[CUDA memcpy Host-to-Device]"), "{t}");
        let c = g.to_csv();
        assert!(c.contains("88.9,4000,2,2000.0,1000.0,1000,3000,1414.2,\"void add<float>(float*)\""), "{c}");
        assert!(c.contains("4.000,1,4.000,4.000,4.000,4.000,0.000,\"[CUDA memcpy Host-to-Device]\""), "{c}");
        let j: serde_json::Value = serde_json::from_str(&g.to_json()).unwrap();
        assert_eq!(j["cuda_gpu_kern_sum"][0]["Instances"], 2);
        assert_eq!(j["cuda_gpu_mem_size_sum"][1]["Total (MB)"], 0.004);
        assert_eq!(GpuSummary::from_json(&j).unwrap().to_text(), g.to_text());
    }

    /// Issue #33: a PyTorch job's demangled names are thousands of
    /// characters; the text table stays within a terminal's reach, the CSV
    /// and JSON keep them whole.
    #[test]
    fn long_kernel_names_are_shortened_in_text_only() {
        let long = format!("void at::native::vectorized_elementwise_kernel<4, {}>(int, F, A)", "at::native::Op<float>, ".repeat(200));
        let g = GpuSummary { kernels: vec![Row::from_samples(&long, &mut [10]), Row::from_samples("k2", &mut [5])], ..Default::default() };
        let t = g.to_text();
        let widest = t.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest < 250, "{widest}: {t}");
        assert!(t.contains("void at::native::vectorized_elementwise_kernel<4, ") && t.contains(">(int, F, A)") && t.contains("..."), "{t}");
        assert!(t.contains(crate::text::SHORTENED_NOTE.trim()), "{t}");
        assert!(!sample().to_text().contains(crate::text::SHORTENED_NOTE.trim()));
        assert!(g.to_csv().contains(&format!("\"{long}\"")));
        let j: serde_json::Value = serde_json::from_str(&g.to_json()).unwrap();
        assert_eq!(j["cuda_gpu_kern_sum"][0]["Name"], long.as_str());
    }
}
