//! The summary table: Nsight Systems' `cuda_api_sum` columns, as text, CSV
//! and JSON, and back from JSON. The library prints it at exit; the
//! `cudart-shim` command prints it from saved files (`report`, `trace`).
//!
//! Median: with an even number of durations, the lower of the two middle
//! ones, in both producers (the library's histogram median and
//! [`Row::from_samples`]), so the live summary and `report` of the same run
//! name the same call's duration.

use crate::process::Process;
use std::fmt::Write;

pub const COLUMNS: [&str; 9] =
    ["Time (%)", "Total Time (ns)", "Num Calls", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"];

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    pub calls: u64,
    pub total_ns: u64,
    pub med_ns: f64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub stddev_ns: f64,
}

/// Failed calls of one function with one error.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrRow {
    pub name: String,
    pub error: String,
    pub calls: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub rows: Vec<Row>,
    pub errors: Vec<ErrRow>,
    /// Durations measured on 1 call in this many (sampling); 0 or 1: every
    /// call, and every column is exact.
    pub timed_one_in: u32,
    /// Who wrote it (in summaries written to a file).
    pub process: Option<Process>,
}

impl Row {
    pub fn avg_ns(&self) -> f64 {
        if self.calls == 0 { 0.0 } else { self.total_ns as f64 / self.calls as f64 }
    }

    /// A row from every duration: exact median (the lower middle one for
    /// an even count, see the module note) and sample standard deviation.
    pub fn from_samples(name: &str, d: &mut [u64]) -> Row {
        d.sort_unstable();
        let n = d.len();
        let total: u64 = d.iter().sum();
        let med = if n == 0 { 0.0 } else { d[(n - 1) / 2] as f64 };
        let mean = if n == 0 { 0.0 } else { total as f64 / n as f64 };
        let ss: f64 = d.iter().map(|&x| (x as f64 - mean).powi(2)).sum();
        Row {
            name: name.to_owned(),
            calls: n as u64,
            total_ns: total,
            med_ns: med,
            min_ns: d.first().copied().unwrap_or(0),
            max_ns: d.last().copied().unwrap_or(0),
            stddev_ns: if n > 1 { (ss / (n - 1) as f64).sqrt() } else { 0.0 },
        }
    }
}

/// 1234567 -> "1,234,567" (Nsight's text tables group digits).
pub fn grouped(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn grouped_f(v: f64) -> String {
    let v = (v * 10.0).round() / 10.0;
    format!("{}.{}", grouped(v.trunc() as u64), ((v.fract() * 10.0).round() as u64).min(9))
}

impl Summary {
    /// Sort by total time, largest first (then by name), errors by count.
    pub fn sort(&mut self) {
        self.rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
        self.errors.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)).then_with(|| a.error.cmp(&b.error)));
    }

    fn grand_total(&self) -> u64 {
        self.rows.iter().map(|r| r.total_ns).sum()
    }

    fn pct(&self, r: &Row) -> f64 {
        let t = self.grand_total();
        if t == 0 { 0.0 } else { r.total_ns as f64 * 100.0 / t as f64 }
    }

    /// Cells of each row, as the text table shows them.
    fn cells(&self) -> Vec<[String; 9]> {
        self.rows
            .iter()
            .map(|r| {
                [
                    format!("{:.1}", self.pct(r)),
                    grouped(r.total_ns),
                    grouped(r.calls),
                    grouped_f(r.avg_ns()),
                    grouped_f(r.med_ns),
                    grouped(r.min_ns),
                    grouped(r.max_ns),
                    grouped_f(r.stddev_ns),
                    crate::text::fit_name(&r.name),
                ]
            })
            .collect()
    }

    pub fn to_text(&self) -> String {
        let cells = self.cells();
        let mut w: Vec<usize> = COLUMNS.iter().map(|c| c.len()).collect();
        for row in &cells {
            for (i, c) in row.iter().enumerate() {
                w[i] = w[i].max(c.len());
            }
        }
        let mut s = String::from("\n ** CUDA API Summary (cuda_api_sum), cudart-shim:\n\n");
        if let Some(p) = &self.process {
            let _ = writeln!(s, " Process: {}\n", p.to_line());
        }
        let line = |s: &mut String, row: &[String]| {
            for (i, c) in row.iter().enumerate() {
                if i == 8 {
                    let _ = write!(s, " {c}");
                } else {
                    let _ = write!(s, " {:>w$} ", c, w = w[i]);
                }
            }
            s.push('\n');
        };
        line(&mut s, &COLUMNS.map(str::to_owned));
        line(&mut s, &std::array::from_fn::<String, 9, _>(|i| "-".repeat(w[i])));
        for row in &cells {
            line(&mut s, row);
        }
        if crate::text::any_shortened(self.rows.iter().map(|r| r.name.as_str()).chain(self.errors.iter().map(|e| e.name.as_str()))) {
            s.push_str(crate::text::SHORTENED_NOTE);
        }
        if self.timed_one_in > 1 {
            let _ = writeln!(
                s,
                "\n Sampled (CUDART_SHIM_TRACE_SAMPLE={}): every call is counted; 1 in {} calls of each function on each thread is timed. Total Time is scaled to every call; Med, Min, Max and StdDev are of the timed calls.",
                self.timed_one_in, self.timed_one_in
            );
        }
        if !self.errors.is_empty() {
            let wn = self.errors.iter().map(|e| crate::text::fit_name(&e.name).chars().count()).max().unwrap_or(4).max(4);
            let we = self.errors.iter().map(|e| e.error.len()).max().unwrap_or(5).max(5);
            let _ = writeln!(s, "\n ** Failed calls by error:\n");
            let _ = writeln!(s, " {:>9}  {:<wn$}  Error", "Num Calls", "Name");
            let _ = writeln!(s, " {}  {}  {}", "-".repeat(9), "-".repeat(wn), "-".repeat(we));
            for e in &self.errors {
                let _ = writeln!(s, " {:>9}  {:<wn$}  {}", grouped(e.calls), crate::text::fit_name(&e.name), e.error);
            }
        }
        s
    }

    /// CSV: the function table with a header row; then, after an empty
    /// line, the failed calls (`Name,Error,Num Calls`).
    pub fn to_csv(&self) -> String {
        let mut s = COLUMNS.map(|c| format!("\"{c}\"")).join(",");
        s.push('\n');
        for r in &self.rows {
            let _ = writeln!(
                s,
                "{:.1},{},{},{:.1},{:.1},{},{},{:.1},{}",
                self.pct(r), r.total_ns, r.calls, r.avg_ns(), r.med_ns, r.min_ns, r.max_ns, r.stddev_ns, r.name
            );
        }
        if !self.errors.is_empty() {
            s.push_str("\n\"Name\",\"Error\",\"Num Calls\"\n");
            for e in &self.errors {
                let _ = writeln!(s, "{},{},{}", e.name, e.error, e.calls);
            }
        }
        s
    }

    /// JSON: `{"cuda_api_sum": [{column: value...}], "errors": [{"Name", "Error", "Num Calls"}]}`.
    pub fn to_json(&self) -> String {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "Time (%)": (self.pct(r) * 10.0).round() / 10.0,
                    "Total Time (ns)": r.total_ns,
                    "Num Calls": r.calls,
                    "Avg (ns)": (r.avg_ns() * 10.0).round() / 10.0,
                    "Med (ns)": (r.med_ns * 10.0).round() / 10.0,
                    "Min (ns)": r.min_ns,
                    "Max (ns)": r.max_ns,
                    "StdDev (ns)": (r.stddev_ns * 10.0).round() / 10.0,
                    "Name": r.name,
                })
            })
            .collect();
        let errors: Vec<serde_json::Value> = self
            .errors
            .iter()
            .map(|e| serde_json::json!({"Name": e.name, "Error": e.error, "Num Calls": e.calls}))
            .collect();
        let mut doc = serde_json::json!({"cuda_api_sum": rows, "errors": errors});
        if self.timed_one_in > 1 {
            doc["timed_one_call_in"] = self.timed_one_in.into();
        }
        if let Some(p) = &self.process {
            doc["process"] = p.to_json();
        }
        let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
        s.push('\n');
        s
    }

    /// A summary back from its JSON form ([`Summary::to_json`]).
    pub fn from_json(j: &serde_json::Value) -> Result<Summary, String> {
        let num = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
        let mut out = Summary {
            timed_one_in: j["timed_one_call_in"].as_u64().unwrap_or(1) as u32,
            process: Process::from_json(&j["process"]),
            ..Default::default()
        };
        for r in j["cuda_api_sum"].as_array().ok_or("no cuda_api_sum table")? {
            out.rows.push(Row {
                name: r["Name"].as_str().unwrap_or("?").to_owned(),
                calls: num(r, "Num Calls") as u64,
                total_ns: num(r, "Total Time (ns)") as u64,
                med_ns: num(r, "Med (ns)"),
                min_ns: num(r, "Min (ns)") as u64,
                max_ns: num(r, "Max (ns)") as u64,
                stddev_ns: num(r, "StdDev (ns)"),
            });
        }
        for e in j["errors"].as_array().into_iter().flatten() {
            out.errors.push(ErrRow {
                name: e["Name"].as_str().unwrap_or("?").to_owned(),
                error: e["Error"].as_str().unwrap_or("?").to_owned(),
                calls: num(e, "Num Calls") as u64,
            });
        }
        out.sort();
        Ok(out)
    }

    /// The format a file name asks for: `.csv`, `.json`, else text.
    pub fn render_for(&self, path: Option<&str>) -> String {
        match path {
            Some(p) if p.ends_with(".csv") => self.to_csv(),
            Some(p) if p.ends_with(".json") => self.to_json(),
            _ => self.to_text(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_rows_and_formats() {
        let mut s = Summary {
            rows: vec![Row::from_samples("cudaA", &mut [10, 30, 20]), Row::from_samples("cudaB", &mut [1000, 3000])],
            errors: vec![ErrRow { name: "cudaA".into(), error: "cudaErrorInvalidValue".into(), calls: 2 }],
            ..Default::default()
        };
        s.sort();
        assert_eq!(s.rows[0].name, "cudaB");
        assert_eq!(s.rows[1].med_ns, 20.0);
        assert_eq!(s.rows[0].med_ns, 1000.0, "even count: the lower middle value");
        assert!((s.rows[1].stddev_ns - 10.0).abs() < 1e-9);
        let t = s.to_text();
        assert!(t.contains("Time (%)  Total Time (ns)"), "{t}");
        assert!(t.contains("4,000") && t.contains("cudaErrorInvalidValue"), "{t}");
        let c = s.to_csv();
        assert!(c.starts_with("\"Time (%)\",\"Total Time (ns)\""));
        assert!(c.contains("98.5,4000,2,2000.0,1000.0,1000,3000,1414.2,cudaB"), "{c}");
        let j: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
        assert_eq!(j["cuda_api_sum"][1]["Num Calls"], 3);
        // Back from JSON: the same table (JSON keeps one decimal), and the process record.
        s.process = Some(Process { rank: Some(2), host: "n".into(), pid: 9, ..Default::default() });
        let j: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
        let back = Summary::from_json(&j).unwrap();
        assert_eq!(back.to_json(), s.to_json());
        assert_eq!(back.process, s.process);
        assert!(s.to_text().contains(" Process: rank 2 (n, pid 9)"), "{}", s.to_text());
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(grouped_f(1234.56), "1,234.6");
    }
}
