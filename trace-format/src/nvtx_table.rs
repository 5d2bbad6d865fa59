//! Nsight Systems' `nvtx_sum` table (NVTX ranges by message and style) as
//! text, CSV and JSON, and back from JSON. Columns as Nsight's: Time (%),
//! Total Time (ns), Instances, Avg, Med, Min, Max, StdDev, Style, Range.
//! Style: `PushPop` (nvtxRangePush/Pop, per thread) or `StartEnd`
//! (nvtxRangeStart/End, may cross threads). Range: the message, prefixed
//! `DOMAIN:` for a range of a named domain, as Nsight shows it.

use crate::table::{grouped, Row};
use std::fmt::Write;

pub const COLUMNS: [&str; 10] =
    ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Style", "Range"];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NvtxSummary {
    /// `Row::name` is the range's name; `styles[i]` the style of `rows[i]`.
    pub rows: Vec<Row>,
    pub styles: Vec<String>,
    /// Which capture windows the table covers (None: the whole run).
    pub windows: Option<String>,
}

fn fixed(v: f64) -> String {
    let v = (v * 10.0).round() / 10.0;
    format!("{}.{}", grouped(v.trunc() as u64), ((v.fract() * 10.0).round() as u64).min(9))
}

impl NvtxSummary {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Largest total first, then by name.
    pub fn sort(&mut self) {
        let mut both: Vec<(Row, String)> = self.rows.drain(..).zip(self.styles.drain(..)).collect();
        both.sort_by(|a, b| b.0.total_ns.cmp(&a.0.total_ns).then_with(|| a.0.name.cmp(&b.0.name)).then_with(|| a.1.cmp(&b.1)));
        (self.rows, self.styles) = both.into_iter().unzip();
    }

    fn pct(&self, r: &Row) -> f64 {
        let t: u64 = self.rows.iter().map(|r| r.total_ns).sum();
        if t == 0 { 0.0 } else { r.total_ns as f64 * 100.0 / t as f64 }
    }

    pub fn to_text(&self) -> String {
        let mut s = String::from("\n ** NVTX Range Summary (nvtx_sum), cudart-shim:\n\n");
        if let Some(w) = &self.windows {
            let _ = writeln!(s, " Capture windows: {w}\n");
        }
        if self.rows.is_empty() {
            s.push_str(" (none)\n");
            return s;
        }
        let cells: Vec<[String; 10]> = self
            .rows
            .iter()
            .zip(&self.styles)
            .map(|(r, st)| {
                [
                    format!("{:.1}", self.pct(r)),
                    grouped(r.total_ns),
                    grouped(r.calls),
                    fixed(r.avg_ns()),
                    fixed(r.med_ns),
                    grouped(r.min_ns),
                    grouped(r.max_ns),
                    fixed(r.stddev_ns),
                    st.clone(),
                    crate::text::fit_name(&r.name),
                ]
            })
            .collect();
        let mut w: Vec<usize> = COLUMNS.iter().map(|c| c.len()).collect();
        for row in &cells {
            for (i, c) in row.iter().enumerate() {
                w[i] = w[i].max(c.len());
            }
        }
        let line = |s: &mut String, row: &[String]| {
            for (i, c) in row.iter().enumerate() {
                match i {
                    9 => {
                        let _ = write!(s, " {c}");
                    }
                    8 => {
                        let _ = write!(s, " {:<w$} ", c, w = w[i]);
                    }
                    _ => {
                        let _ = write!(s, " {:>w$} ", c, w = w[i]);
                    }
                }
            }
            s.push('\n');
        };
        line(&mut s, &COLUMNS.map(str::to_owned));
        line(&mut s, &w.iter().map(|&n| "-".repeat(n)).collect::<Vec<_>>());
        for row in &cells {
            line(&mut s, row);
        }
        if crate::text::any_shortened(self.rows.iter().map(|r| r.name.as_str())) {
            s.push_str(crate::text::SHORTENED_NOTE);
        }
        s
    }

    pub fn to_csv(&self) -> String {
        let mut s = COLUMNS.map(|c| format!("\"{c}\"")).join(",");
        s.push('\n');
        for (r, st) in self.rows.iter().zip(&self.styles) {
            let _ = writeln!(
                s,
                "{:.1},{},{},{:.1},{:.1},{},{},{:.1},{},\"{}\"",
                self.pct(r),
                r.total_ns,
                r.calls,
                r.avg_ns(),
                r.med_ns,
                r.min_ns,
                r.max_ns,
                r.stddev_ns,
                st,
                r.name.replace('"', "\"\"")
            );
        }
        s
    }

    /// `nvtx_sum`: an array of {column: value}; `nvtx_windows` when windowed.
    pub fn json_members(&self) -> serde_json::Map<String, serde_json::Value> {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .zip(&self.styles)
            .map(|(r, st)| {
                serde_json::json!({
                    "Time (%)": (self.pct(r) * 10.0).round() / 10.0,
                    "Total Time (ns)": r.total_ns,
                    "Instances": r.calls,
                    "Avg (ns)": (r.avg_ns() * 10.0).round() / 10.0,
                    "Med (ns)": r.med_ns,
                    "Min (ns)": r.min_ns,
                    "Max (ns)": r.max_ns,
                    "StdDev (ns)": (r.stddev_ns * 10.0).round() / 10.0,
                    "Style": st,
                    "Range": r.name,
                })
            })
            .collect();
        let mut m = serde_json::Map::new();
        m.insert("nvtx_sum".into(), rows.into());
        if let Some(w) = &self.windows {
            m.insert("nvtx_windows".into(), w.clone().into());
        }
        m
    }

    pub fn from_json(j: &serde_json::Value) -> Option<NvtxSummary> {
        let arr = j.get("nvtx_sum")?.as_array()?;
        let mut n = NvtxSummary { windows: j.get("nvtx_windows").and_then(|w| w.as_str()).map(str::to_owned), ..Default::default() };
        for r in arr {
            let f = |k: &str| r[k].as_f64().unwrap_or(0.0);
            n.rows.push(Row {
                name: r["Range"].as_str().unwrap_or("?").to_owned(),
                calls: r["Instances"].as_u64().unwrap_or(0),
                total_ns: f("Total Time (ns)") as u64,
                med_ns: f("Med (ns)"),
                min_ns: f("Min (ns)") as u64,
                max_ns: f("Max (ns)") as u64,
                stddev_ns: f("StdDev (ns)"),
            });
            n.styles.push(r["Style"].as_str().unwrap_or("PushPop").to_owned());
        }
        n.sort();
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nsight_columns_in_three_formats_and_back() {
        let mut n = NvtxSummary {
            rows: vec![Row::from_samples("step", &mut [1000, 3000]), Row::from_samples("lib:load", &mut [500])],
            styles: vec!["PushPop".into(), "StartEnd".into()],
            windows: Some("1 (0.100 s - 0.200 s)".into()),
        };
        n.sort();
        let t = n.to_text();
        assert!(t.contains("nvtx_sum") && t.contains(" Time (%)  Total Time (ns)  Instances"), "{t}");
        assert!(t.contains("88.9") && t.contains("PushPop") && t.contains(" step") && t.contains("Capture windows: 1"), "{t}");
        let c = n.to_csv();
        assert!(c.contains("88.9,4000,2,2000.0,1000.0,1000,3000,1414.2,PushPop,\"step\""), "{c}");
        let j = serde_json::Value::Object(n.json_members());
        assert_eq!(j["nvtx_sum"][1]["Style"], "StartEnd");
        assert_eq!(NvtxSummary::from_json(&j).unwrap().to_text(), t);
    }
}

/// Nsight Systems' `nvtx_gpu_proj_sum`: each NVTX range projected onto the
/// GPU work that the calls inside it launched (from the start of the first
/// such operation to the end of the last), by range and style. Columns as
/// Nsight's, less its nesting statistics (Avg Range Lvl, Avg Num Child).
pub const PROJ_COLUMNS: [&str; 12] = [
    "Range",
    "Style",
    "Total Proj Time (ns)",
    "Total Range Time (ns)",
    "Range Instances",
    "Proj Avg (ns)",
    "Proj Med (ns)",
    "Proj Min (ns)",
    "Proj Max (ns)",
    "Proj StdDev (ns)",
    "Total GPU Ops",
    "Avg GPU Ops",
];

#[derive(Clone, Debug, PartialEq)]
pub struct ProjRow {
    /// `proj.name` the range, `proj.calls` its instances that launched GPU
    /// work, the rest the projected times.
    pub proj: Row,
    pub style: String,
    pub range_total_ns: u64,
    pub gpu_ops: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NvtxGpuProj {
    pub rows: Vec<ProjRow>,
}

impl NvtxGpuProj {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn sort(&mut self) {
        self.rows.sort_by(|a, b| b.proj.total_ns.cmp(&a.proj.total_ns).then_with(|| a.proj.name.cmp(&b.proj.name)));
    }

    fn values(r: &ProjRow) -> [String; 12] {
        let p = &r.proj;
        [
            crate::text::fit_name(&p.name),
            r.style.clone(),
            p.total_ns.to_string(),
            r.range_total_ns.to_string(),
            p.calls.to_string(),
            format!("{:.1}", p.avg_ns()),
            format!("{:.1}", p.med_ns),
            p.min_ns.to_string(),
            p.max_ns.to_string(),
            format!("{:.1}", p.stddev_ns),
            r.gpu_ops.to_string(),
            format!("{:.1}", if p.calls == 0 { 0.0 } else { r.gpu_ops as f64 / p.calls as f64 }),
        ]
    }

    pub fn to_text(&self) -> String {
        let mut s = String::from("\n ** NVTX GPU Projection Summary (nvtx_gpu_proj_sum), cudart-shim:\n\n");
        if self.rows.is_empty() {
            s.push_str(" (none)\n");
            return s;
        }
        let cells: Vec<[String; 12]> = self.rows.iter().map(Self::values).collect();
        let mut w: Vec<usize> = PROJ_COLUMNS.iter().map(|c| c.len()).collect();
        for row in &cells {
            for (i, c) in row.iter().enumerate() {
                w[i] = w[i].max(c.len());
            }
        }
        let line = |s: &mut String, row: &[String]| {
            for (i, c) in row.iter().enumerate() {
                if i < 2 {
                    let _ = write!(s, " {:<w$} ", c, w = w[i]);
                } else {
                    let _ = write!(s, " {:>w$} ", c, w = w[i]);
                }
            }
            s.push('\n');
        };
        line(&mut s, &PROJ_COLUMNS.map(str::to_owned));
        line(&mut s, &w.iter().map(|&n| "-".repeat(n)).collect::<Vec<_>>());
        for row in &cells {
            line(&mut s, row);
        }
        if crate::text::any_shortened(self.rows.iter().map(|r| r.proj.name.as_str())) {
            s.push_str(crate::text::SHORTENED_NOTE);
        }
        s
    }

    pub fn to_csv(&self) -> String {
        let mut s = PROJ_COLUMNS.map(|c| format!("\"{c}\"")).join(",");
        s.push('\n');
        for r in &self.rows {
            let mut v = Self::values(r);
            // The whole name (the text form shortens long ones).
            v[0] = format!("\"{}\"", r.proj.name.replace('"', "\"\""));
            let _ = writeln!(s, "{}", v.join(","));
        }
        s
    }

    pub fn json_members(&self) -> serde_json::Map<String, serde_json::Value> {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                let p = &r.proj;
                serde_json::json!({
                    "Range": p.name,
                    "Style": r.style,
                    "Total Proj Time (ns)": p.total_ns,
                    "Total Range Time (ns)": r.range_total_ns,
                    "Range Instances": p.calls,
                    "Proj Avg (ns)": (p.avg_ns() * 10.0).round() / 10.0,
                    "Proj Med (ns)": p.med_ns,
                    "Proj Min (ns)": p.min_ns,
                    "Proj Max (ns)": p.max_ns,
                    "Proj StdDev (ns)": (p.stddev_ns * 10.0).round() / 10.0,
                    "Total GPU Ops": r.gpu_ops,
                })
            })
            .collect();
        let mut m = serde_json::Map::new();
        m.insert("nvtx_gpu_proj_sum".into(), rows.into());
        m
    }

    pub fn from_json(j: &serde_json::Value) -> Option<NvtxGpuProj> {
        let arr = j.get("nvtx_gpu_proj_sum")?.as_array()?;
        let mut n = NvtxGpuProj::default();
        for r in arr {
            let f = |k: &str| r[k].as_f64().unwrap_or(0.0);
            n.rows.push(ProjRow {
                proj: Row {
                    name: r["Range"].as_str().unwrap_or("?").to_owned(),
                    calls: r["Range Instances"].as_u64().unwrap_or(0),
                    total_ns: f("Total Proj Time (ns)") as u64,
                    med_ns: f("Proj Med (ns)"),
                    min_ns: f("Proj Min (ns)") as u64,
                    max_ns: f("Proj Max (ns)") as u64,
                    stddev_ns: f("Proj StdDev (ns)"),
                },
                style: r["Style"].as_str().unwrap_or("PushPop").to_owned(),
                range_total_ns: f("Total Range Time (ns)") as u64,
                gpu_ops: r["Total GPU Ops"].as_u64().unwrap_or(0),
            });
        }
        n.sort();
        Some(n)
    }
}

#[cfg(test)]
mod proj_tests {
    use super::*;

    #[test]
    fn projection_table_in_three_formats_and_back() {
        let n = NvtxGpuProj {
            rows: vec![ProjRow { proj: Row::from_samples("step", &mut [900, 1100]), style: "PushPop".into(), range_total_ns: 5000, gpu_ops: 6 }],
        };
        let t = n.to_text();
        assert!(t.contains("nvtx_gpu_proj_sum") && t.contains("Total Proj Time (ns)") && t.contains(" 2000 ") && t.contains(" 5000 "), "{t}");
        assert!(n.to_csv().contains("\"step\",PushPop,2000,5000,2,1000.0,900.0,900,1100,141.4,6,3.0"), "{}", n.to_csv());
        let j = serde_json::Value::Object(n.json_members());
        assert_eq!(NvtxGpuProj::from_json(&j).unwrap().to_text(), t);
    }
}
