//! The memory reports, views of the ledger's tables: the memory table (per
//! device, by library and kind), the leak report (live allocations grouped
//! by library and call site) and the OOM report (at the first failed
//! allocation of each kind). Rendering is `trace_format::memory`'s, shared
//! with `cudart-shim report`.

use super::{book, caller, Kind};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use trace_format::memory::{Leak, Oom, Report, Row};

/// The OOM reports made so far (each also printed when it happened).
static OOMS: Mutex<Vec<Oom>> = Mutex::new(Vec::new());

fn table_rows() -> Vec<Row> {
    book::rows()
        .into_iter()
        .map(|(lib, device, kind, v)| Row {
            device,
            library: caller::name(lib),
            kind: kind.name().to_owned(),
            allocations: v[0],
            frees: v[1],
            peak_bytes: v[2],
            peak_ns: v[3],
            live_bytes: v[4],
            live_count: v[5],
        })
        .collect()
}

/// Live allocations grouped by library, device, kind and call site, sizes
/// in the order they were made.
fn leaks() -> Vec<Leak> {
    let mut live = book::live();
    live.sort_by_key(|e| e.seq);
    let mut groups: BTreeMap<(String, i32, Kind, usize), Leak> = BTreeMap::new();
    for e in live {
        let lib = caller::name(e.lib);
        let g = groups.entry((lib.clone(), e.device, e.kind, e.caller)).or_insert_with(|| Leak {
            device: e.device,
            library: lib,
            kind: e.kind.name().to_owned(),
            site: caller::symbolize(e.caller),
            sizes: Vec::new(),
            backtrace: e.backtrace.iter().flatten().map(|&a| caller::symbolize(a)).collect(),
        });
        g.sizes.push(e.size);
    }
    groups.into_values().collect()
}

/// The whole report as of now.
pub fn snapshot() -> Report {
    let mut r = Report {
        process: None,
        limits: (0..book::DEVICES as i32).filter_map(|d| book::limit(d).map(|l| (d, l))).collect(),
        rows: table_rows(),
        leaks: Vec::new(),
        ooms: OOMS.lock().clone(),
    };
    // With one limit for every device, show the devices that were used.
    if r.limits.len() == book::DEVICES {
        let used: Vec<i32> = r.rows.iter().map(|x| x.device).filter(|d| *d >= 0).collect();
        r.limits.retain(|(d, _)| used.contains(d) || *d == 0);
    }
    r.sort();
    r
}

/// The report at exit: the table plus the leak report.
pub fn at_exit() -> Report {
    let mut r = snapshot();
    r.leaks = leaks();
    r
}

/// Record and print the OOM report of a failed allocation.
#[cold]
pub fn oom(function: &str, device: i32, kind: Kind, requested: u64, cause: &str, library: String) {
    let info = if device >= 0 { (super::probe().mem_info)() } else { None };
    let o = Oom {
        function: function.to_owned(),
        device,
        kind: kind.name().to_owned(),
        requested,
        cause: cause.to_owned(),
        limit: book::limit(device).filter(|_| device >= 0),
        used: if device >= 0 { book::used(device) } else { 0 },
        driver_free: info.map(|i| i.0),
        driver_total: info.map(|i| i.1),
        library,
        time_ns: super::now_ns(),
        live: table_rows().into_iter().filter(|r| r.live_bytes > 0).collect(),
    };
    write_stderr(&o.to_text());
    OOMS.lock().push(o);
}

fn write_stderr(s: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}

/// What makes the record of this process that every output carries
/// (`trace::process_record`), set once by the interception pipeline's
/// setup (above both layers), before any allocation is booked.
static PROCESS_RECORD: std::sync::OnceLock<fn() -> trace_format::process::Process> = std::sync::OnceLock::new();

/// Register the maker of the process record (see [`PROCESS_RECORD`]).
pub fn set_process_record(make: fn() -> trace_format::process::Process) {
    let _ = PROCESS_RECORD.set(make);
}

/// Write the report where the configuration says (stderr, or the file in
/// the format its name asks for). `last`: at exit (with the leak report).
pub fn write(last: bool) {
    if !super::reporting() {
        return;
    }
    let mut r = if last { at_exit() } else { snapshot() };
    // The one process record every output carries (devices, runtime,
    // clock), made by the trace (registered by the pipeline's setup: this
    // layer does not import the trace's).
    r.process = Some(match PROCESS_RECORD.get() {
        Some(make) => make(),
        None => crate::config::process_identity(crate::config::env_var, std::process::id()),
    });
    let file = super::config().file;
    let text = r.render_for(file.as_deref());
    match file {
        Some(f) => {
            if let Err(e) = std::fs::write(&f, text) {
                crate::config::init_logging();
                log::warn!("memory report: cannot write {f}: {e}; the report goes to stderr");
                write_stderr(&r.to_text());
            }
        }
        None => write_stderr(&text),
    }
}
