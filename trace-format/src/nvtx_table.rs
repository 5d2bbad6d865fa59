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
                    r.name.clone(),
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
