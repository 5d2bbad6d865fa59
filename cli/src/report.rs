//! `cudart-shim report FILE...`: the summary table of saved traces; over
//! several files (one per rank), each rank's summary and the cross-rank
//! table (the straggler view); `--merge OUT.json` puts every file on one
//! timeline. Timelines are read in either format (Chrome JSON, Perfetto
//! protobuf: read as the Chrome events they hold; the Kineto form of
//! `trace --format kineto`), and merged into any of them (by OUT's
//! extension: `.pftrace`, `.perfetto-trace`: protobuf; `.kineto.json`:
//! Kineto).

use clap::Args;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use trace_format::nvtx_table::{NvtxGpuProj, NvtxSummary, ProjRow};
use trace_format::process::Process;
use trace_format::table::{ErrRow, Row, Summary, grouped};

#[derive(Args)]
pub struct Options {
    /// Timelines written by `trace --timeline` (Chrome trace JSON or
    /// Perfetto protobuf), or
    /// summary JSON files (CUDART_SHIM_TRACE_SUMMARY_FILE=*.json); one per
    /// rank for the cross-rank table.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// text (default), csv or json.
    #[arg(long, default_value = "text", value_parser = ["text", "csv", "json"])]
    format: String,
    /// Also write one Perfetto trace holding every timeline given, one
    /// process per file named `rank N (host, pid)`, timestamps aligned on
    /// the wall clock each file recorded. OUT.pftrace (or
    /// .perfetto-trace): Perfetto's protobuf; OUT.kineto.json: the
    /// PyTorch profiler's JSON (HTA); otherwise Chrome JSON.
    #[arg(long, value_name = "OUT.json|OUT.pftrace|OUT.kineto.json")]
    merge: Option<PathBuf>,
    /// The FILEs are hang reports (cudart-shim-hang-*.json, one per rank,
    /// from --watchdog or --dump-signal): name the rank that holds the
    /// others up (the verdict line first, then the table).
    #[arg(long, conflicts_with = "merge")]
    hang: bool,
}

/// One file read.
struct Input {
    file: PathBuf,
    process: Option<Process>,
    summary: Summary,
    /// The trace events (timelines only).
    events: Option<Vec<Value>>,
    /// The GPU activity tables (`gpu` traces only).
    gpu: Option<trace_format::gpu_table::GpuSummary>,
    /// The NVTX table (`nvtx_sum`), when the trace has NVTX ranges.
    nvtx: Option<NvtxSummary>,
    /// `nvtx_gpu_proj_sum`, when ranges launched GPU work that the trace
    /// holds (GPU activity with launch links).
    nvtx_proj: Option<NvtxGpuProj>,
}

impl Input {
    /// `rank N` (or `pid P`, or the file) for the cross-rank table.
    fn short_name(&self) -> String {
        match &self.process {
            Some(p) => p.rank.map_or_else(|| format!("pid {}", p.pid), |r| format!("rank {r}")),
            None => self.file.display().to_string(),
        }
    }

    fn label(&self) -> String {
        self.process.as_ref().map_or_else(|| self.file.display().to_string(), Process::label)
    }
}

pub fn run(o: Options) -> ExitCode {
    if o.hang {
        return hang_reports(&o.files);
    }
    if let Some(code) = memory_reports(&o) {
        return code;
    }
    let mut inputs = Vec::new();
    for f in &o.files {
        match read(f, o.merge.is_some()) {
            Ok(i) => inputs.push(i),
            Err(e) => {
                eprintln!("cudart-shim: {}: {e}", f.display());
                return ExitCode::from(1);
            }
        }
    }
    // By the rank each file records (never its name or the order given),
    // then pid; files without a rank after them, in the order given.
    inputs.sort_by_key(|i| i.process.as_ref().map_or((u32::MAX, u32::MAX), |p| (p.rank.unwrap_or(u32::MAX), p.pid)));
    let text = match (inputs.as_slice(), o.format.as_str()) {
        ([one], format) => match crate::gpu_report::render(&one.summary, one.gpu.as_ref(), format) {
            Some(text) => with_nvtx(text, one.nvtx.as_ref(), one.nvtx_proj.as_ref(), format),
            None => {
                eprintln!("cudart-shim: unknown format {format:?}; accepted: text, csv, json");
                return ExitCode::from(2);
            }
        },
        (all, "json") => several_json(all),
        (all, "csv") => several_csv(all),
        (all, _) => several_text(all),
    };
    print!("{text}");
    if let Some(out) = &o.merge
        && let Err(e) = merge(&inputs, out)
    {
        eprintln!("cudart-shim: cannot write {}: {e}", out.display());
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// Memory reports (`trace --memory-file F.json`): each printed as the
/// program printed it, in the format asked. None when a file is not one.
fn memory_reports(o: &Options) -> Option<ExitCode> {
    let mut reports = Vec::new();
    for f in &o.files {
        let j: Value = serde_json::from_slice(&std::fs::read(f).ok()?).ok()?;
        j.get("cuda_memory")?;
        match trace_format::memory::Report::from_json(&j) {
            Ok(r) => reports.push(r),
            Err(e) => {
                eprintln!("cudart-shim: {}: {e}", f.display());
                return Some(ExitCode::from(1));
            }
        }
    }
    for r in reports {
        match o.format.as_str() {
            "json" => print!("{}", r.to_json()),
            "csv" => print!("{}", r.to_csv()),
            _ => print!("{}", r.to_text()),
        }
    }
    Some(ExitCode::SUCCESS)
}

fn read(file: &Path, keep_events: bool) -> Result<Input, String> {
    let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
    let mut j: Value = if trace_format::perfetto::looks_like_protobuf(&bytes) {
        let packets = trace_format::perfetto::packets(&bytes).map_err(|e| format!("not a Perfetto protobuf trace ({e})"))?;
        Value::Array(trace_format::perfetto::to_chrome(&packets))
    } else {
        serde_json::from_slice(&bytes).map_err(|e| format!("not a complete JSON trace or summary ({e})"))?
    };
    if j.get("cuda_api_sum").is_some() {
        let summary = Summary::from_json(&j)?;
        let gpu = trace_format::gpu_table::GpuSummary::from_json(&j);
        let nvtx = NvtxSummary::from_json(&j);
        let nvtx_proj = NvtxGpuProj::from_json(&j).filter(|p| !p.is_empty());
        return Ok(Input { file: file.to_owned(), process: summary.process.clone(), summary, events: None, gpu, nvtx, nvtx_proj });
    }
    let mut process = Process::from_json(&j["otherData"]["process"]);
    let events = match j.get_mut("traceEvents") {
        Some(e) => e.take(),
        None => j.take(),
    };
    let Value::Array(mut events) = events else { return Err("no traceEvents and no cuda_api_sum: not a cudart-shim trace or summary".into()) };
    if trace_format::kineto::is_kineto(&j) {
        // The PyTorch profiler's form (`trace --format kineto`): read as
        // our own events.
        events = trace_format::kineto::to_chrome(events, trace_format::kineto::time_offset_us(&j));
    }
    // The last record written (at the last flush) has the latest clock sample.
    if let Some(p) = events.iter().rev().find(|e| e["ph"] == "M" && e["name"] == "cudart_shim_process").and_then(|e| Process::from_json(&e["args"])) {
        process = Some(p);
    }
    let mut summary = summary_of(&events);
    summary.process = process.clone();
    let gpu = crate::gpu_report::from_events(&events);
    let nvtx = nvtx_of(&events);
    let nvtx_proj = nvtx_proj_of(&events);
    Ok(Input { file: file.to_owned(), process, summary, events: keep_events.then_some(events), gpu, nvtx, nvtx_proj })
}

/// The `nvtx_gpu_proj_sum` table of a Chrome trace written by the library,
/// as the program computed it at exit: for each push/pop range instance,
/// the GPU work launched by its thread's calls inside it (the launch
/// flows that start there, matched to GPU slices by their `launch` id),
/// projected from the start of the first operation to the end of the last.
/// Instances that launched nothing are left out. None without any.
fn nvtx_proj_of(events: &[Value]) -> Option<NvtxGpuProj> {
    let ns = |e: &Value, k: &str| (e[k].as_f64().unwrap_or(0.0) * 1000.0).round() as u64;
    // Flow starts by (pid, thread): (time, launch id), in time order.
    let mut starts: HashMap<(i64, i64), Vec<(u64, u64)>> = HashMap::new();
    for e in events.iter().filter(|e| e["ph"] == "s" && e["cat"] == "gpu_launch") {
        starts.entry((e["pid"].as_i64().unwrap_or(0), e["tid"].as_i64().unwrap_or(0))).or_default().push((ns(e, "ts"), e["id"].as_u64().unwrap_or(0)));
    }
    if starts.is_empty() {
        return None;
    }
    for v in starts.values_mut() {
        v.sort_unstable();
    }
    // GPU operations by launch id: (start, end).
    let mut ops: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X" && e["cat"].as_str().is_some_and(|c| c.starts_with("gpu_"))) {
        if let Some(id) = e["args"]["launch"].as_u64() {
            let t = ns(e, "ts");
            ops.entry(id).or_default().push((t, t + ns(e, "dur")));
        }
    }
    // Per range (name with its domain): (projected ns, range ns, ops) per instance.
    let mut rows: BTreeMap<String, Vec<(u64, u64, u64)>> = BTreeMap::new();
    for r in events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "nvtx") {
        // The NVTX track of a thread (and domain) holds the thread id in its low 22 bits.
        let thread = r["tid"].as_i64().unwrap_or(0) & 0x3f_ffff;
        let Some(launches) = starts.get(&(r["pid"].as_i64().unwrap_or(0), thread)) else { continue };
        let (t0, t1) = (ns(r, "ts"), ns(r, "ts") + ns(r, "dur"));
        let i = launches.partition_point(|l| l.0 < t0);
        let (mut first, mut last, mut n) = (u64::MAX, 0, 0);
        for &(_, id) in launches[i..].iter().take_while(|l| l.0 <= t1) {
            for &(s, e) in ops.get(&id).into_iter().flatten() {
                (first, last, n) = (first.min(s), last.max(e), n + 1);
            }
        }
        if n > 0 {
            let name = match (r["name"].as_str(), r["args"]["domain"].as_str()) {
                (Some(m), Some(d)) => format!("{d}:{m}"),
                (m, _) => m.unwrap_or("?").to_owned(),
            };
            rows.entry(name).or_default().push((last - first, ns(r, "dur"), n));
        }
    }
    let mut t = NvtxGpuProj::default();
    for (name, v) in rows {
        let mut d: Vec<u64> = v.iter().map(|x| x.0).collect();
        t.rows.push(ProjRow {
            proj: Row::from_samples(&name, &mut d),
            style: "PushPop".into(),
            range_total_ns: v.iter().map(|x| x.1).sum(),
            gpu_ops: v.iter().map(|x| x.2).sum(),
        });
    }
    t.sort();
    (!t.is_empty()).then_some(t)
}

/// The `nvtx_sum` table of a Chrome trace written by the library: its
/// `nvtx` events (push/pop slices, start/end async pairs); None without any.
fn nvtx_of(events: &[Value]) -> Option<NvtxSummary> {
    let mut durs: BTreeMap<(String, &'static str), Vec<u64>> = BTreeMap::new();
    let mut begins: BTreeMap<(i64, u64), f64> = BTreeMap::new();
    let name = |e: &Value| {
        let m = e["name"].as_str().unwrap_or("?");
        match e["args"]["domain"].as_str() {
            Some(d) => format!("{d}:{m}"),
            None => m.to_owned(),
        }
    };
    for e in events.iter().filter(|e| e["cat"] == "nvtx") {
        let us = |k: &str| e[k].as_f64().unwrap_or(0.0);
        match e["ph"].as_str() {
            Some("X") => durs.entry((name(e), "PushPop")).or_default().push((us("dur") * 1000.0).round() as u64),
            Some("b") => {
                begins.insert((e["pid"].as_i64().unwrap_or(0), e["id"].as_u64().unwrap_or(0)), us("ts"));
            }
            Some("e") => {
                if let Some(t0) = begins.remove(&(e["pid"].as_i64().unwrap_or(0), e["id"].as_u64().unwrap_or(0))) {
                    durs.entry((name(e), "StartEnd")).or_default().push(((us("ts") - t0) * 1000.0).round().max(0.0) as u64);
                }
            }
            _ => {}
        }
    }
    if durs.is_empty() {
        return None;
    }
    let mut n = NvtxSummary::default();
    for ((range, style), mut d) in durs {
        n.rows.push(Row::from_samples(&range, &mut d));
        n.styles.push(style.to_owned());
    }
    n.sort();
    Some(n)
}

/// The report with the NVTX tables added in the same format (`nvtx_sum`,
/// then `nvtx_gpu_proj_sum`, as the program prints them).
fn with_nvtx(text: String, nvtx: Option<&NvtxSummary>, proj: Option<&NvtxGpuProj>, format: &str) -> String {
    let Some(n) = nvtx else { return text };
    match format {
        "csv" => text + "\n" + &n.to_csv() + &proj.map(|p| "\n".to_owned() + &p.to_csv()).unwrap_or_default(),
        "json" => {
            let mut j: Value = serde_json::from_str(&text).unwrap_or_default();
            if let Some(m) = j.as_object_mut() {
                m.extend(n.json_members());
                if let Some(p) = proj {
                    m.extend(p.json_members());
                }
            }
            serde_json::to_string_pretty(&j).unwrap_or_default() + "\n"
        }
        _ => text + &n.to_text() + &proj.map(NvtxGpuProj::to_text).unwrap_or_default(),
    }
}

/// The summary of a Chrome trace: every complete event of category
/// `cuda_api`, exact statistics from every duration.
fn summary_of(events: &[Value]) -> Summary {
    let mut durs: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut errs: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in events {
        if e["ph"] != "X" || e["cat"] != "cuda_api" || !crate::api_layers::counts_as_own(e) {
            continue;
        }
        let name = e["name"].as_str().unwrap_or("?").to_owned();
        let ns = (e["dur"].as_f64().unwrap_or(0.0) * 1000.0).round() as u64;
        if let Some(r) = e["args"]["result"].as_str()
            && !crate::api_layers::is_success(r)
        {
            *errs.entry((name.clone(), r.to_owned())).or_default() += 1;
        }
        durs.entry(name).or_default().push(ns);
    }
    let mut s = Summary::default();
    for (name, mut d) in durs {
        s.rows.push(Row::from_samples(&name, &mut d));
    }
    for ((name, error), calls) in errs {
        s.errors.push(ErrRow { name, error, calls });
    }
    s.sort();
    s
}

/// One function across ranks: its total time in each input (0 where it
/// was not called).
struct CrossRow<'a> {
    name: &'a str,
    totals: Vec<u64>,
    ranks_calling: usize,
    min: u64,
    median: u64,
    max: u64,
    slowest: usize,
}

/// Per function, the per-rank totals: min, median (the lower middle one
/// for an even count, as in the summaries), max and the rank with the
/// largest; the functions with the largest max first.
fn cross_rank(inputs: &[Input]) -> Vec<CrossRow<'_>> {
    let mut by_name: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for (i, input) in inputs.iter().enumerate() {
        for r in &input.summary.rows {
            by_name.entry(&r.name).or_insert_with(|| vec![0; inputs.len()])[i] += r.total_ns;
        }
    }
    let mut rows: Vec<CrossRow> = by_name
        .into_iter()
        .map(|(name, totals)| {
            let mut sorted = totals.clone();
            sorted.sort_unstable();
            // The first of equal maxima: the lowest rank.
            let slowest = totals.iter().enumerate().rev().max_by_key(|&(_, t)| *t).map_or(0, |(i, _)| i);
            CrossRow {
                name,
                ranks_calling: totals.iter().filter(|&&t| t > 0).count(),
                min: sorted[0],
                median: sorted[(sorted.len() - 1) / 2],
                max: sorted[sorted.len() - 1],
                slowest,
                totals,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.max.cmp(&a.max).then_with(|| a.name.cmp(b.name)));
    rows
}

/// max / median of the per-rank totals ("-" when the median is 0).
fn spread(r: &CrossRow) -> String {
    if r.median == 0 { "-".into() } else { format!("{:.2}", r.max as f64 / r.median as f64) }
}

fn several_text(inputs: &[Input]) -> String {
    let mut s = String::new();
    for i in inputs {
        let _ = writeln!(s, "\n== {} ({})", i.label(), i.file.display());
        let mut summary = i.summary.clone();
        summary.process = None;
        s.push_str(&summary.to_text());
        if let Some(g) = &i.gpu {
            s.push_str(&g.to_text());
        }
    }
    let rows = cross_rank(inputs);
    let head = ["Min Total (ns)", "Med Total (ns)", "Max Total (ns)", "Max/Med", "Ranks", "Slowest", "Name"];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            [
                grouped(r.min),
                grouped(r.median),
                grouped(r.max),
                spread(r),
                format!("{}/{}", r.ranks_calling, inputs.len()),
                inputs[r.slowest].short_name(),
                r.name.to_owned(),
            ]
        })
        .collect();
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for c in &cells {
        for (k, v) in c.iter().enumerate() {
            w[k] = w[k].max(v.len());
        }
    }
    let _ = writeln!(
        s,
        "\n ** Across {} ranks: per-rank total time of each function (Slowest: the rank with the largest total; Ranks: how many called it):\n",
        inputs.len()
    );
    let mut line = |row: &[String]| {
        for (k, v) in row.iter().enumerate() {
            match k {
                5 | 6 => {
                    let _ = write!(s, " {v:<w$} ", w = w[k]);
                }
                _ => {
                    let _ = write!(s, " {v:>w$} ", w = w[k]);
                }
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
    };
    line(&head.map(str::to_owned));
    line(&std::array::from_fn::<String, 7, _>(|k| "-".repeat(w[k])));
    for c in &cells {
        line(c);
    }
    s
}

fn several_csv(inputs: &[Input]) -> String {
    let mut s = String::new();
    for i in inputs {
        let _ = writeln!(s, "# {} ({})", i.label(), i.file.display());
        let mut summary = i.summary.clone();
        summary.process = None;
        s.push_str(&summary.to_csv());
        s.push('\n');
    }
    s.push_str("# across ranks\n\"Min Total (ns)\",\"Med Total (ns)\",\"Max Total (ns)\",\"Ranks\",\"Slowest\",\"Name\"\n");
    for r in cross_rank(inputs) {
        let _ = writeln!(s, "{},{},{},{},{},{}", r.min, r.median, r.max, r.ranks_calling, inputs[r.slowest].short_name(), r.name);
    }
    s
}

fn several_json(inputs: &[Input]) -> String {
    let ranks: Vec<Value> = inputs
        .iter()
        .map(|i| {
            let summary: Value = serde_json::from_str(&i.summary.to_json()).unwrap_or(Value::Null);
            json!({"file": i.file.display().to_string(), "name": i.label(), "summary": summary})
        })
        .collect();
    let cross: Vec<Value> = cross_rank(inputs)
        .iter()
        .map(|r| {
            json!({
                "Name": r.name,
                "Min Total (ns)": r.min,
                "Med Total (ns)": r.median,
                "Max Total (ns)": r.max,
                "Ranks": r.ranks_calling,
                "Slowest": inputs[r.slowest].short_name(),
                "Totals (ns)": r.totals,
            })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&json!({"ranks": ranks, "across_ranks": cross})).unwrap_or_default();
    s.push('\n');
    s
}

/// One Chrome trace of every input: each its own process (named by its
/// label, pids made unique), timestamps moved onto one wall-clock axis
/// whose zero is the earliest file's trace start.
fn merge(inputs: &[Input], out: &Path) -> std::io::Result<()> {
    let base = inputs.iter().filter_map(|i| i.process.as_ref()?.zero_wall_ns()).min().unwrap_or(0);
    let mut used = std::collections::HashSet::new();
    let mut events: Vec<Value> = Vec::new();
    let mut sources = Vec::new();
    for (n, i) in inputs.iter().enumerate() {
        let Some(list) = &i.events else {
            eprintln!("cudart-shim: {} is a summary, not a timeline: not in the merged trace", i.file.display());
            continue;
        };
        let own = i.process.as_ref().map(|p| p.pid as u64);
        let mut pid = own.unwrap_or(n as u64 + 1);
        while !used.insert(pid) {
            pid += 1_000_000;
        }
        let align = |us: f64| -> f64 {
            match &i.process {
                Some(p) => p.wall_after(us * 1000.0, base).map_or(us, |ns| ns / 1000.0),
                None => us,
            }
        };
        if i.process.as_ref().is_none_or(|p| p.clock.is_empty()) {
            eprintln!("cudart-shim: {} records no clock sample: its timestamps are not aligned", i.file.display());
        }
        events.push(json!({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": i.label()}}));
        events.push(json!({"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0, "args": {"sort_index": n}}));
        for e in list {
            if e["ph"] == "M" && (e["name"] == "process_name" || e["name"] == "cudart_shim_process") {
                continue;
            }
            let mut e = e.clone();
            e["pid"] = pid.into();
            if let Some(ts) = e["ts"].as_f64() {
                // Microseconds with nanosecond decimals, as the library writes.
                e["ts"] = json!((align(ts) * 1000.0).round() / 1000.0);
            }
            events.push(e);
        }
        sources.push(json!({"file": i.file.display().to_string(), "pid": pid, "process": i.process.as_ref().map(Process::to_json)}));
    }
    let doc = json!({
        "displayTimeUnit": "ns",
        "otherData": {
            "producer": "cudart-shim report --merge",
            "version": env!("CARGO_PKG_VERSION"),
            "alignment": "each file's trace clock mapped to the wall clock by the samples it recorded at start and at its last flush; across hosts as accurate as the hosts' clock synchronisation",
            "time_zero_wall_ns": base.to_string(),
            "inputs": sources,
        },
        "traceEvents": events,
    });
    let name = out.to_string_lossy();
    if name.ends_with(".pftrace") || name.ends_with(".perfetto-trace") {
        std::fs::write(out, trace_format::perfetto::from_chrome(doc["traceEvents"].as_array().map_or(&[][..], Vec::as_slice)))?;
    } else if name.ends_with(".kineto.json") {
        // The PyTorch profiler's form: every rank in one file (HTA reads a
        // file per rank: it takes this one as rank 0).
        let mut doc = doc;
        let events = trace_format::kineto::from_chrome(doc["traceEvents"].as_array().map_or(&[][..], Vec::as_slice));
        doc["traceEvents"] = Value::Array(events);
        doc["schemaVersion"] = 1.into();
        doc["otherData"]["format"] = "kineto".into();
        std::fs::write(out, serde_json::to_vec(&doc)?)?;
    } else {
        let f = std::fs::File::create(out)?;
        let mut w = std::io::BufWriter::new(f);
        serde_json::to_writer(&mut w, &doc)?;
        use std::io::Write;
        w.write_all(b"\n")?;
        w.flush()?;
    }
    eprintln!(
        "cudart-shim: merged {} timelines into {} (one process per file; timestamps aligned on the recorded wall clock, as accurate as the hosts' clock sync)",
        sources.len(),
        out.display()
    );
    Ok(())
}

/// `report --hang FILE...`: one hang report per rank compared
/// (`trace_format::hang`). A file that is not a hang report: exit 1 with
/// its name and what is wrong.
fn hang_reports(files: &[PathBuf]) -> ExitCode {
    let mut ranks = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let parsed = std::fs::read_to_string(f)
            .map_err(|e| format!("{name}: {e}"))
            .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| format!("{name}: not JSON ({e})")))
            .and_then(|v| trace_format::hang::RankReport::from_json(&name, &v));
        match parsed {
            Ok(r) => ranks.push(r),
            Err(e) => {
                eprintln!("cudart-shim: {e}");
                return ExitCode::from(1);
            }
        }
    }
    print!("{}", trace_format::hang::compare(ranks));
    ExitCode::SUCCESS
}
