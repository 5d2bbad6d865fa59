//! The hang report: one JSON object (format `cudart-shim-hang`, version 1;
//! read back by `cudart-shim report --hang`, `trace_format::hang`), written
//! whole to a temporary file and renamed over the report's path, so a
//! reader never sees half a report.
//!
//! Made from snapshots only (see the module note of `crate::watchdog`); the
//! kernel names were taken at each function's first launch.

use super::Stuck;
use crate::trace::progress::{self, StreamView, ThreadView};
use serde_json::{json, Value};
use std::collections::HashMap;

pub enum Why {
    Watchdog,
    Signal,
}

/// What the tick measured, for the report.
pub struct Context<'a> {
    /// Per thread in a call: ns in it (to within a tick).
    pub in_call: &'a HashMap<i32, u64>,
    /// Per stream holding work: ns since it last completed any.
    pub held: &'a HashMap<u64, u64>,
    /// ns since a kernel was last launched.
    pub idle_ns: u64,
    /// The watchdog's period (0: none).
    pub period_ns: u64,
    /// How completion is known at this tick.
    pub completion: Completion,
}

/// How the tick knows which launches completed.
#[derive(Clone, Copy, Debug)]
pub enum Completion {
    /// The probe alone (`gpu` off, or its CUPTI cannot tie records to launches).
    Probe,
    /// CUPTI's kernel records, flushed at this tick (`super::exact`).
    Exact,
    /// `gpu` is on but this tick's flush did not return in time: the probe.
    FlushLate(super::exact::Flush),
}

impl Completion {
    fn exact(&self) -> bool {
        matches!(self, Completion::Exact)
    }
}

/// The last report written (its text), kept for the recovery record.
static LAST: parking_lot::Mutex<Option<(String, Value)>> = parking_lot::Mutex::new(None);

fn secs(ns: u64) -> f64 {
    (ns as f64 / 1e6).round() / 1e3
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

/// A stream's name in a report.
pub fn stream_name(key: u64) -> String {
    match key {
        progress::LEGACY => "default (legacy)".to_owned(),
        k if k & 0xffff_ffff == progress::PER_THREAD && k >> 32 != 0 => format!("per-thread default of thread {}", k >> 32),
        k => hex(k),
    }
}

/// A kernel's name, demangled, for a launch record's function word.
pub fn kernel_name(func: u64) -> String {
    let raw = progress::func_name(func).filter(|n| !n.is_empty());
    match raw {
        Some(n) => demangle(n),
        None if func & progress::GRAPH_BIT != 0 => format!("(graph launch {})", hex(func & !progress::GRAPH_BIT)),
        None => format!("(kernel {})", hex(func)),
    }
}

fn demangle(n: &str) -> String {
    if n.starts_with("_Z") && let Ok(s) = cpp_demangle::Symbol::new(n) {
        return s.to_string();
    }
    n.to_owned()
}

/// A thread's name (`/proc`, no lock); "main" for the process's first thread.
fn thread_name(tid: i32) -> String {
    let comm = std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).map(|s| s.trim_end().to_owned()).unwrap_or_default();
    if tid as u32 == std::process::id() {
        return if comm.is_empty() { "main".to_owned() } else { format!("main ({comm})") };
    }
    comm
}

/// The precision of completion for a stream, as the report states it.
fn precision(s: &StreamView, c: Completion) -> String {
    let n = s.launched - s.completed;
    // Exact when CUPTI's records were all taken this tick and the oldest
    // launch not complete is tied to its record: then every launch before
    // it finished, and it has not.
    if c.exact() && n > 0 && s.rec.linked(s.completed + 1) {
        return match n {
            1 => "exact (CUPTI): this launch has not finished; every launch before it on the stream has".to_owned(),
            n => format!("exact (CUPTI): the first of these {n} launches has not finished (the others wait behind it); every launch before them on the stream has"),
        };
    }
    if progress::stream_handle(s.key).is_none() {
        return format!("unknown: a per-thread default stream is probed by its own thread only; {n} launches not seen complete");
    }
    match n {
        0 => "all complete".to_owned(),
        1 => "the probe sees this launch not complete".to_owned(),
        n => format!("one of these {n} launches is running (the probe sees a stream only as idle or busy: the earlier ones may be complete)"),
    }
}

const PROBE_ABOUT: &str = "cuStreamQuery from the watchdog's thread at each tick (every stream holding work, skipped while it captures): a stream idle at a tick has completed everything launched before; a busy one has at least one of its launches not complete";

/// The report's `completion` record.
fn completion_json(c: Completion) -> Value {
    use super::exact::Flush;
    match c {
        Completion::Probe => json!({"method": "probe", "about": PROBE_ABOUT}),
        Completion::Exact => json!({
            "method": "cupti",
            "about": "CUPTI's kernel records, flushed at each tick on a thread of ours: each launch carries an id CUPTI ties to its kernel's record; a kernel record marks its launch and the launches before it on the stream complete (a graph launch's records mark those before it). Per stream, precision says where that applies; elsewhere the probe's answer stands",
        }),
        Completion::FlushLate(f) => {
            let why = match f {
                Flush::Late { waited_ms } => format!("CUPTI's flush did not return within {waited_ms:.0} ms"),
                Flush::Running { running_s } => format!("CUPTI's flush asked {running_s:.1} s ago has not returned"),
                Flush::NoThread => "the thread that flushes CUPTI could not start".to_owned(),
                Flush::Done { .. } => "CUPTI's flush returned".to_owned(),
            };
            json!({"method": "probe", "about": PROBE_ABOUT, "cupti": format!("{why} (the GPU or CUPTI may be stuck): completion is the probe's")})
        }
    }
}

fn stream_json(s: &StreamView, ctx: &Context) -> Value {
    let pending: Vec<Value> = s
        .pending
        .iter()
        .map(|o| {
            json!({
                "seq": o.seq,
                "kernel": kernel_name(o.func),
                "grid": o.grid,
                "block": o.block,
                "launched_unix_ns": o.wall_ns,
                "age_s": secs(progress::wall_ns().saturating_sub(o.wall_ns)),
                "thread": o.tid,
            })
        })
        .collect();
    let waits: Vec<Value> = s
        .waits
        .iter()
        .filter(|w| w.at_seq >= s.completed)
        .map(|w| {
            json!({
                "event": hex(w.event),
                "recorded_on": if w.from == 0 { Value::Null } else { stream_name(w.from).into() },
                "after_launch": w.from_seq,
                "before_launch": w.at_seq + 1,
                "thread": w.tid,
            })
        })
        .collect();
    let n = s.launched - s.completed;
    json!({
        "stream": stream_name(s.key),
        "launched": s.launched,
        "completed": s.completed,
        "not_complete": n,
        "held_s": ctx.held.get(&s.key).map(|&d| secs(d)),
        "precision": precision(s, ctx.completion),
        "pending": pending,
        "pending_not_shown": n.saturating_sub(s.pending.len() as u64),
        "waits": waits,
    })
}

fn thread_json(t: &ThreadView, ctx: &Context) -> Value {
    json!({
        "tid": t.tid,
        "name": thread_name(t.tid),
        "call": t.call.as_ref().map(|(_, c)| c.clone()),
        "in_call_s": ctx.in_call.get(&t.tid).map(|&d| secs(d)),
        "state": if t.call.is_some() { "in CUDA" } else { "not in CUDA" },
        "nvtx": t.nvtx,
    })
}

/// The ledger's live bytes per device and library (when it is on).
fn memory_json() -> Value {
    use std::collections::BTreeMap;
    let mut by: BTreeMap<(i32, String), u64> = BTreeMap::new();
    for (lib, device, _kind, v) in crate::ledger::book::rows() {
        let name = crate::trace::event::names::try_library(lib).unwrap_or_else(|| format!("library {lib}"));
        *by.entry((device, name)).or_default() += v[4];
    }
    by.into_iter().filter(|(_, b)| *b > 0).map(|((device, library), live)| json!({"device": device, "library": library, "live_bytes": live})).collect()
}

/// The one-line verdict.
fn verdict(why: &Why, stuck: Option<&Stuck>, threads: &[ThreadView], streams: &[StreamView], ctx: &Context) -> String {
    let mut parts = Vec::new();
    if let Some(h) = stuck {
        for (key, _) in &h.streams {
            if let Some(s) = streams.iter().find(|s| s.key == *key) {
                let held = ctx.held.get(key).copied().unwrap_or(0);
                let oldest = s.pending.first().map(|o| format!(", oldest {} (launch {})", kernel_name(o.func), o.seq)).unwrap_or_default();
                parts.push(format!("stream {} has {} launches not complete and completed nothing for {:.0} s{oldest}", stream_name(*key), s.launched - s.completed, secs(held)));
            }
        }
        for (tid, _) in &h.threads {
            if let Some(t) = threads.iter().find(|t| t.tid == *tid) {
                let d = ctx.in_call.get(tid).copied().unwrap_or(0);
                let call = t.call.as_ref().map_or("a CUDA call", |(id, _)| progress::function_name(*id));
                parts.push(format!("thread {tid} ({}) in {call} for {:.0} s", thread_name(*tid), secs(d)));
            }
        }
        if h.host_stall && parts.is_empty() {
            parts.push(format!("host-side stall: no kernel launched and no GPU work completed for {:.0} s", secs(ctx.idle_ns)));
        }
    } else if let Why::Signal = why {
        parts.push("on request".to_owned());
    }
    let pending: u64 = streams.iter().map(|s| s.launched - s.completed).sum();
    if pending == 0 {
        parts.push("no GPU work pending".to_owned());
    }
    let pid = std::process::id() as i32;
    if let Some(main) = threads.iter().find(|t| t.tid == pid) {
        let ranges = if main.nvtx.is_empty() { String::new() } else { format!(" (open NVTX range{} {})", if main.nvtx.len() > 1 { "s" } else { "" }, main.nvtx.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>().join(" > ")) };
        match &main.call {
            None => parts.push(format!("main thread not in CUDA{ranges}")),
            Some((id, _)) if !stuck.is_some_and(|h| h.threads.iter().any(|(t, _)| *t == pid)) => parts.push(format!("main thread in {}{ranges}", progress::function_name(*id))),
            _ if !ranges.is_empty() => parts.push(format!("main thread{ranges}")),
            _ => {}
        }
    }
    parts.join("; ")
}

/// Build and write the report; print the stderr line.
pub fn write(why: Why, ctx: &Context, threads: &[ThreadView], streams: &[StreamView], stuck: Option<&Stuck>, hang_number: u64) {
    let c = crate::config::watchdog_config();
    let v = verdict(&why, stuck, threads, streams, ctx);
    let mut shown: Vec<&StreamView> = streams.iter().filter(|s| s.launched > s.completed).collect();
    shown.sort_by_key(|s| std::cmp::Reverse(ctx.held.get(&s.key).copied().unwrap_or(0)));
    let all_streams: Vec<Value> = streams.iter().map(|s| json!({"stream": stream_name(s.key), "launched": s.launched, "completed": s.completed})).collect();
    let nccl: Vec<Value> = progress::nccl_ops().into_iter().map(|(op, l, d)| json!({"op": op, "launched": l, "completed": d})).collect();
    let recorder = recorder_dump();
    let process = crate::config::process_identity(crate::config::env_var, std::process::id()).to_json();
    let report = json!({
        "format": "cudart-shim-hang",
        "version": 1,
        "process": process,
        "time_unix_ns": progress::wall_ns(),
        "trigger": match why { Why::Watchdog => "watchdog", Why::Signal => "signal" },
        "watchdog_s": (ctx.period_ns > 0).then(|| secs(ctx.period_ns)),
        "hang_number": hang_number,
        "verdict": v,
        "completion": completion_json(ctx.completion),
        "since_last_launch_s": secs(ctx.idle_ns),
        "streams_pending": shown.iter().map(|s| stream_json(s, ctx)).collect::<Vec<_>>(),
        "streams": all_streams,
        "nccl": nccl,
        "threads": threads.iter().map(|t| thread_json(t, ctx)).collect::<Vec<_>>(),
        "memory": memory_json(),
        "recorder": recorder,
        "recovered": Value::Null,
    });
    let text = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
    let ok = write_file(&c.file, &text);
    let what = match why {
        Why::Watchdog => format!("watchdog: no progress for {:.0} s", secs(ctx.period_ns)),
        Why::Signal => "hang report on request".to_owned(),
    };
    let line = if ok { format!("cudart-shim: {what}: {v}; report in {}\n", c.file) } else { format!("cudart-shim: {what}: {v}; cannot write the report to {}\n", c.file) };
    crate::trace::output::write_all(2, line.as_bytes());
    if matches!(why, Why::Watchdog) {
        *LAST.lock() = Some((c.file.clone(), report));
    }
}

/// Progress resumed after a hang: the record in the report, the line.
pub fn recovered(after_s: f64) {
    let c = crate::config::watchdog_config();
    if let Some((file, mut report)) = LAST.lock().take() {
        report["recovered"] = json!({"after_s": (after_s * 10.0).round() / 10.0, "time_unix_ns": progress::wall_ns()});
        write_file(&file, &(serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"));
    }
    let line = format!("cudart-shim: watchdog: recovered after {after_s:.1} s ({})\n", c.file);
    crate::trace::output::write_all(2, line.as_bytes());
}

/// The recorder's rings, when it is on: dumped now, named in the report.
fn recorder_dump() -> Value {
    if !crate::trace::recorder::started() {
        return Value::Null;
    }
    crate::trace::recorder::dump::dump("a hang report");
    let c = crate::config::trace_config();
    let file = c.recorder_file.clone().unwrap_or_default();
    let protobuf = c.timeline_format == crate::config::TimelineFormat::Perfetto;
    json!({"call_log": file, "timeline": crate::trace::recorder::dump::timeline_name(&file, protobuf)})
}

fn write_file(path: &str, text: &str) -> bool {
    let tmp = format!("{path}.tmp{}", std::process::id());
    let ok = std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = &ok {
        let _ = std::fs::remove_file(&tmp);
        log::warn!("watchdog: cannot write the hang report {path:?} ({e})");
    }
    ok.is_ok()
}

/// `--watchdog-action abort`: after the report, SIGABRT (the recorder
/// dumps on it when on; the process ends as by `abort()`).
pub fn abort() {
    crate::trace::output::write_all(2, b"cudart-shim: watchdog: raising SIGABRT (--watchdog-action abort)\n");
    // SAFETY: a plain system call; SIGABRT is not blocked on this thread.
    unsafe { libc::raise(libc::SIGABRT) };
}
