//! The memory ledger's files: the device-memory limit spec
//! (`CUDART_SHIM_MEMORY_LIMIT`, `--memory-limit`), and the memory report
//! (the table by device, library and kind, the leak report, the OOM
//! reports) as the library writes it and `cudart-shim report` reads it.
//!
//! One parser and one renderer, here, so that the command rejects exactly
//! the specs the library would warn about, and prints a saved report
//! exactly as the program printed it.

use crate::process::Process;
pub use crate::size::human;
use crate::size::parse as parse_size;
use crate::table::grouped;
use serde_json::{Value, json};
use std::fmt::Write as _;

/// Devices a limit can name (`0=...` up to `63=...`).
pub const MAX_DEVICES: usize = 64;

/// A parsed limit: one value for every device, and per-device values that
/// override it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LimitSpec {
    pub all: Option<u64>,
    pub devices: Vec<(u32, u64)>,
}

impl LimitSpec {
    /// The limit of device `dev` in bytes, if any.
    pub fn of(&self, dev: u32) -> Option<u64> {
        self.devices.iter().rev().find(|(d, _)| *d == dev).map(|(_, b)| *b).or(self.all)
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_none() && self.devices.is_empty()
    }
}

/// `64MiB` (every device) or `0=8GiB,1=4GiB` (per device), or both
/// (`2GiB,1=4GiB`: device 1 gets 4 GiB, every other 2 GiB); sizes in the
/// one grammar of [`crate::size`]. Err names the bad part.
pub fn parse_limit_spec(spec: &str) -> Result<LimitSpec, String> {
    let mut out = LimitSpec::default();
    if spec.trim().is_empty() {
        return Err(format!("an empty memory limit: expected e.g. 64MiB or 0=8GiB,1=4GiB; {}", crate::size::UNITS));
    }
    for part in spec.split(',').map(str::trim) {
        if part.is_empty() {
            return Err(format!("an empty item in {spec:?}: expected e.g. 64MiB or 0=8GiB,1=4GiB"));
        }
        match part.split_once('=') {
            Some((dev, size)) => {
                let dev = dev.trim();
                let d: u32 = dev
                    .parse()
                    .ok()
                    .filter(|&d| (d as usize) < MAX_DEVICES)
                    .ok_or_else(|| format!("unknown device {dev:?} in {part:?}: expected a device ordinal from 0 to {}", MAX_DEVICES - 1))?;
                out.devices.push((d, parse_size(size)?));
            }
            None => {
                if out.all.is_some() {
                    return Err(format!("{part:?}: only one limit for every device may be given"));
                }
                out.all = Some(parse_size(part)?);
            }
        }
    }
    Ok(out)
}

/// One row of the memory table: one device, library and kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// Device ordinal; -1 for host memory (pinned, registered).
    pub device: i32,
    pub library: String,
    pub kind: String,
    pub allocations: u64,
    pub frees: u64,
    /// Bytes live at this row's peak, and when (ns since the trace began).
    pub peak_bytes: u64,
    pub peak_ns: u64,
    pub live_bytes: u64,
    pub live_count: u64,
}

/// Allocations never freed, of one library, call site and size.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Leak {
    pub device: i32,
    pub library: String,
    pub kind: String,
    /// The symbolized return address (`function+0x1c (library)`).
    pub site: String,
    /// Sizes of the leaked allocations, in the order made.
    pub sizes: Vec<u64>,
    /// The native backtrace of the first of them
    /// (`CUDART_SHIM_MEMORY_BACKTRACE=N`), symbolized.
    pub backtrace: Vec<String>,
}

/// The state at the first failed allocation of one kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Oom {
    pub function: String,
    pub device: i32,
    pub kind: String,
    pub requested: u64,
    /// "limit" (refused by the ledger) or "driver" (the driver's own OOM).
    pub cause: String,
    pub limit: Option<u64>,
    pub used: u64,
    pub driver_free: Option<u64>,
    pub driver_total: Option<u64>,
    pub library: String,
    pub time_ns: u64,
    /// What was live then, per library and kind (rows with live bytes).
    pub live: Vec<Row>,
}

/// The memory report of one process.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub process: Option<Process>,
    /// Per-device limits in force (device, bytes).
    pub limits: Vec<(i32, u64)>,
    pub rows: Vec<Row>,
    pub leaks: Vec<Leak>,
    pub ooms: Vec<Oom>,
}

const COLUMNS: [&str; 9] = ["Device", "Library", "Kind", "Allocs", "Frees", "Peak Bytes", "Peak Time (ns)", "Live Bytes", "Live Allocs"];

fn dev_name(d: i32) -> String {
    if d < 0 { "host".to_owned() } else { d.to_string() }
}

fn row_json(r: &Row) -> Value {
    json!({
        "Device": r.device, "Library": r.library, "Kind": r.kind, "Allocs": r.allocations,
        "Frees": r.frees, "Peak Bytes": r.peak_bytes, "Peak Time (ns)": r.peak_ns,
        "Live Bytes": r.live_bytes, "Live Allocs": r.live_count,
    })
}

fn row_from(v: &Value) -> Row {
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    Row {
        device: v["Device"].as_i64().unwrap_or(-1) as i32,
        library: v["Library"].as_str().unwrap_or("?").to_owned(),
        kind: v["Kind"].as_str().unwrap_or("?").to_owned(),
        allocations: n("Allocs"),
        frees: n("Frees"),
        peak_bytes: n("Peak Bytes"),
        peak_ns: n("Peak Time (ns)"),
        live_bytes: n("Live Bytes"),
        live_count: n("Live Allocs"),
    }
}

fn table_text(s: &mut String, rows: &[Row], indent: &str) {
    let cells: Vec<[String; 9]> = rows
        .iter()
        .map(|r| {
            [
                dev_name(r.device),
                r.library.clone(),
                r.kind.clone(),
                grouped(r.allocations),
                grouped(r.frees),
                grouped(r.peak_bytes),
                grouped(r.peak_ns),
                grouped(r.live_bytes),
                grouped(r.live_count),
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
        s.push_str(indent);
        for (i, c) in row.iter().enumerate() {
            if i == 1 || i == 2 {
                let _ = write!(s, " {:<w$} ", c, w = w[i]);
            } else {
                let _ = write!(s, " {:>w$} ", c, w = w[i]);
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
    };
    line(s, &COLUMNS.map(str::to_owned));
    line(s, &std::array::from_fn::<String, 9, _>(|i| "-".repeat(w[i])));
    for row in &cells {
        line(s, row);
    }
}

impl Report {
    /// Rows in a stable order: device, then live bytes, then peak, largest first.
    pub fn sort(&mut self) {
        self.rows.sort_by(|a, b| {
            (a.device, std::cmp::Reverse(a.peak_bytes), &a.library, &a.kind).cmp(&(b.device, std::cmp::Reverse(b.peak_bytes), &b.library, &b.kind))
        });
    }

    pub fn to_text(&self) -> String {
        let mut s = String::from("\n ** CUDA Memory by Device, Library and Kind (cudart-shim):\n\n");
        if let Some(p) = &self.process {
            let _ = writeln!(s, " Process: {}\n", p.to_line());
        }
        for (d, b) in &self.limits {
            let _ = writeln!(s, " Limit: device {d}: {} ({} bytes)", human(*b), grouped(*b));
        }
        if !self.limits.is_empty() {
            s.push('\n');
        }
        table_text(&mut s, &self.rows, "");
        if !self.leaks.is_empty() {
            let n: usize = self.leaks.iter().map(|l| l.sizes.len()).sum();
            let b: u64 = self.leaks.iter().flat_map(|l| &l.sizes).sum();
            let _ = writeln!(s, "\n ** Leaks: {n} allocation(s), {} never freed, by library and call site:\n", human(b));
            for l in &self.leaks {
                let total: u64 = l.sizes.iter().sum();
                let sizes: Vec<String> = l.sizes.iter().take(16).map(|v| grouped(*v)).collect();
                let more = if l.sizes.len() > 16 { format!(" ... ({} more)", l.sizes.len() - 16) } else { String::new() };
                let _ = writeln!(
                    s,
                    " {} | device {} {} | {} x, {} bytes: {}{more}\n     at {}",
                    l.library,
                    dev_name(l.device),
                    l.kind,
                    l.sizes.len(),
                    grouped(total),
                    sizes.join(", "),
                    l.site
                );
                for f in &l.backtrace {
                    let _ = writeln!(s, "        {f}");
                }
            }
        }
        for o in &self.ooms {
            s.push_str(&o.to_text());
        }
        s
    }

    /// CSV: the table with a header row; then, after an empty line, the
    /// leaks (`Library,Device,Kind,Site,Size`, one line per allocation).
    pub fn to_csv(&self) -> String {
        let mut s = COLUMNS.map(|c| format!("\"{c}\"")).join(",");
        s.push('\n');
        let q = |v: &str| format!("\"{}\"", v.replace('"', "\"\""));
        for r in &self.rows {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{}",
                r.device,
                q(&r.library),
                q(&r.kind),
                r.allocations,
                r.frees,
                r.peak_bytes,
                r.peak_ns,
                r.live_bytes,
                r.live_count
            );
        }
        if !self.leaks.is_empty() {
            s.push_str("\n\"Library\",\"Device\",\"Kind\",\"Site\",\"Size\"\n");
            for l in &self.leaks {
                for z in &l.sizes {
                    let _ = writeln!(s, "{},{},{},{},{z}", q(&l.library), l.device, q(&l.kind), q(&l.site));
                }
            }
        }
        s
    }

    pub fn to_value(&self) -> Value {
        let leaks: Vec<Value> = self
            .leaks
            .iter()
            .map(|l| json!({"Device": l.device, "Library": l.library, "Kind": l.kind, "Site": l.site, "Sizes": l.sizes, "Backtrace": l.backtrace}))
            .collect();
        let mut doc = json!({
            "cuda_memory": self.rows.iter().map(row_json).collect::<Vec<_>>(),
            "limits": self.limits.iter().map(|(d, b)| json!({"Device": d, "Bytes": b})).collect::<Vec<_>>(),
            "leaks": leaks,
            "ooms": self.ooms.iter().map(Oom::to_value).collect::<Vec<_>>(),
        });
        if let Some(p) = &self.process {
            doc["process"] = p.to_json();
        }
        doc
    }

    /// JSON: `{"cuda_memory": [row...], "limits", "leaks", "ooms", "process"}`.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.to_value()).unwrap_or_default();
        s.push('\n');
        s
    }

    /// A report back from its JSON form ([`Report::to_json`]).
    pub fn from_json(j: &Value) -> Result<Report, String> {
        let mut r = Report { process: Process::from_json(&j["process"]), ..Default::default() };
        for v in j["cuda_memory"].as_array().ok_or("no cuda_memory table")? {
            r.rows.push(row_from(v));
        }
        for v in j["limits"].as_array().into_iter().flatten() {
            r.limits.push((v["Device"].as_i64().unwrap_or(0) as i32, v["Bytes"].as_u64().unwrap_or(0)));
        }
        for v in j["leaks"].as_array().into_iter().flatten() {
            let strs = |k: &str| v[k].as_array().into_iter().flatten().filter_map(|x| x.as_str().map(str::to_owned)).collect();
            r.leaks.push(Leak {
                device: v["Device"].as_i64().unwrap_or(-1) as i32,
                library: v["Library"].as_str().unwrap_or("?").to_owned(),
                kind: v["Kind"].as_str().unwrap_or("?").to_owned(),
                site: v["Site"].as_str().unwrap_or("?").to_owned(),
                sizes: v["Sizes"].as_array().into_iter().flatten().filter_map(Value::as_u64).collect(),
                backtrace: strs("Backtrace"),
            });
        }
        for v in j["ooms"].as_array().into_iter().flatten() {
            r.ooms.push(Oom::from_value(v));
        }
        Ok(r)
    }

    /// The format a file name asks for: `.csv`, `.json`, else text.
    pub fn render_for(&self, path: Option<&str>) -> String {
        match path.and_then(|p| p.rsplit_once('.')).map(|(_, e)| e.to_ascii_lowercase()) {
            Some(e) if e == "csv" => self.to_csv(),
            Some(e) if e == "json" => self.to_json(),
            _ => self.to_text(),
        }
    }
}

impl Oom {
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let opt = |v: Option<u64>| v.map_or_else(|| "unknown".to_owned(), |b| format!("{} ({} bytes)", human(b), grouped(b)));
        let _ = writeln!(
            s,
            "\n ** Out of memory: {} of {} ({} bytes) on device {} ({}) failed, {}:",
            self.function,
            human(self.requested),
            grouped(self.requested),
            dev_name(self.device),
            self.kind,
            if self.cause == "limit" { "refused by the memory limit" } else { "the driver is out of memory" }
        );
        let _ = writeln!(s, "    called from {} at {} ns", self.library, grouped(self.time_ns));
        let _ = writeln!(s, "    limit: {}; in use under the limit: {}", opt(self.limit), opt(Some(self.used)));
        let _ = writeln!(s, "    driver: free {}, total {}", opt(self.driver_free), opt(self.driver_total));
        if self.live.is_empty() {
            let _ = writeln!(s, "    nothing live");
        } else {
            let _ = writeln!(s, "    live then, by library and kind:");
            table_text(&mut s, &self.live, "   ");
        }
        s
    }

    pub fn to_value(&self) -> Value {
        json!({
            "Function": self.function, "Device": self.device, "Kind": self.kind, "Requested": self.requested,
            "Cause": self.cause, "Limit": self.limit, "Used": self.used, "Driver Free": self.driver_free,
            "Driver Total": self.driver_total, "Library": self.library, "Time (ns)": self.time_ns,
            "Live": self.live.iter().map(row_json).collect::<Vec<_>>(),
        })
    }

    pub fn from_value(v: &Value) -> Oom {
        Oom {
            function: v["Function"].as_str().unwrap_or("?").to_owned(),
            device: v["Device"].as_i64().unwrap_or(-1) as i32,
            kind: v["Kind"].as_str().unwrap_or("?").to_owned(),
            requested: v["Requested"].as_u64().unwrap_or(0),
            cause: v["Cause"].as_str().unwrap_or("?").to_owned(),
            limit: v["Limit"].as_u64(),
            used: v["Used"].as_u64().unwrap_or(0),
            driver_free: v["Driver Free"].as_u64(),
            driver_total: v["Driver Total"].as_u64(),
            library: v["Library"].as_str().unwrap_or("?").to_owned(),
            time_ns: v["Time (ns)"].as_u64().unwrap_or(0),
            live: v["Live"].as_array().into_iter().flatten().map(row_from).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_per_device_and_for_all() {
        let s = parse_limit_spec("0=8GiB,1=4GiB").unwrap();
        assert_eq!((s.of(0), s.of(1), s.of(2)), (Some(8 << 30), Some(4 << 30), None));
        let s = parse_limit_spec("64MiB").unwrap();
        assert_eq!((s.of(0), s.of(7)), (Some(64 << 20), Some(64 << 20)));
        let s = parse_limit_spec("2GiB, 1=4GiB").unwrap();
        assert_eq!((s.of(0), s.of(1)), (Some(2 << 30), Some(4 << 30)));
        assert!(parse_limit_spec("x=4GiB").unwrap_err().contains("unknown device \"x\""));
        assert!(parse_limit_spec("64=4GiB").unwrap_err().contains("unknown device \"64\""));
        assert!(parse_limit_spec("0=4TB").unwrap_err().contains("unknown unit \"TB\""));
        assert!(parse_limit_spec("1MB").unwrap_err().contains("did you mean 1MiB?"));
        assert_eq!(parse_limit_spec("0=8G,1=1T").unwrap().of(1), Some(1 << 40));
        assert!(parse_limit_spec("1GiB,2GiB").unwrap_err().contains("only one limit"));
        assert!(parse_limit_spec("").is_err());
        assert!(parse_limit_spec("0=1GiB,,").unwrap_err().contains("empty item"));
    }

    #[test]
    fn a_report_reads_back_from_json_unchanged() {
        let row = Row { device: 0, library: "libnccl.so.2".into(), kind: "device".into(), allocations: 3, frees: 1, peak_bytes: 3 << 20, peak_ns: 42, live_bytes: 2 << 20, live_count: 2 };
        let r = Report {
            process: None,
            limits: vec![(0, 4 << 30)],
            rows: vec![row.clone()],
            leaks: vec![Leak { device: 0, library: "leaky".into(), kind: "device".into(), site: "leak_three+0x10 (leaky)".into(), sizes: vec![1, 2, 3], backtrace: vec![] }],
            ooms: vec![Oom { function: "cudaMalloc".into(), device: 0, kind: "device".into(), requested: 5 << 30, cause: "limit".into(), limit: Some(4 << 30), used: 0, driver_free: None, driver_total: None, library: "p".into(), time_ns: 7, live: vec![row] }],
        };
        let back = Report::from_json(&serde_json::from_str(&r.to_json()).unwrap()).unwrap();
        assert_eq!(back, r);
        let t = r.to_text();
        assert!(t.contains("libnccl.so.2") && t.contains("leak_three+0x10") && t.contains("1, 2, 3"), "{t}");
        assert!(t.contains("refused by the memory limit") && t.contains("4.00 GiB"), "{t}");
        let c = r.to_csv();
        assert!(c.lines().nth(1).unwrap().starts_with("0,\"libnccl.so.2\",\"device\",3,1,3145728,42,2097152,2"), "{c}");
    }
}
