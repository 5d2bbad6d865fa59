//! The exposition: a `prometheus-client` registry whose one collector
//! reads the process's state at each scrape ([`View`]), encoded as
//! OpenMetrics text by the crate and, for Prometheus' own text format
//! (node_exporter's textfile, a scraper that does not ask for OpenMetrics),
//! turned into it by [`to_prometheus_text`].
//!
//! Names follow Prometheus' rules: prefix `cudart_shim_`, base units
//! (`_seconds`, `_bytes`), `_total` on counters (added by the encoder).
//! Labels: the process's `rank`, `local_rank`, `world_size`, `hostname`,
//! `pid` on every series (those known), and per series only bounded sets:
//! function names (the API's), layers, error names, device ordinals and
//! their `gpu_uuid`, library names (loaded objects), memory kinds, GPU
//! work classes. Kernel names are never label values.

use crate::trace;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeCounterValue, EncodeGaugeValue, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use std::borrow::Cow;

/// The metrics as text: OpenMetrics (`open_metrics`) or Prometheus' text
/// format 0.0.4.
pub fn render(open_metrics: bool) -> String {
    let mut reg = Registry::with_prefix_and_labels("cudart_shim", process_labels().into_iter());
    reg.register_collector(Box::new(View));
    let mut out = String::with_capacity(16 << 10);
    if prometheus_client::encoding::text::encode(&mut out, &reg).is_err() {
        out.clear();
    }
    if open_metrics { out } else { to_prometheus_text(&out) }
}

/// OpenMetrics text -> Prometheus text 0.0.4: a counter's `# HELP` and
/// `# TYPE` name its samples (`x_total`, where OpenMetrics names the
/// family `x`), and there is no `# UNIT` or `# EOF`. Samples are the same.
pub fn to_prometheus_text(om: &str) -> String {
    let mut out = String::with_capacity(om.len());
    let mut help: Option<&str> = None;
    for line in om.lines() {
        if let Some(h) = line.strip_prefix("# HELP ") {
            help = Some(h);
            continue;
        }
        if let Some(t) = line.strip_prefix("# TYPE ") {
            let (name, kind) = t.split_once(' ').unwrap_or((t, "untyped"));
            let suffix = if kind == "counter" { "_total" } else { "" };
            if let Some(h) = help.take() {
                let text = h.split_once(' ').map_or("", |x| x.1);
                out.push_str(&format!("# HELP {name}{suffix} {text}\n"));
            }
            out.push_str(&format!("# TYPE {name}{suffix} {kind}\n"));
            continue;
        }
        if line.starts_with("# UNIT ") || line == "# EOF" {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A label value as written: the exposition escapes nothing, so a
/// backslash, a quote or a line break (possible in a host or library
/// name) becomes `_`.
fn clean(v: &str) -> String {
    v.chars().map(|c| if matches!(c, '\\' | '"' | '\n' | '\r') { '_' } else { c }).collect()
}

/// The labels every series carries: who this process is in its job.
fn process_labels() -> Vec<(Cow<'static, str>, Cow<'static, str>)> {
    let p = crate::config::process_identity(crate::config::env_var, std::process::id());
    let mut l: Vec<(Cow<'static, str>, Cow<'static, str>)> = Vec::new();
    for (k, v) in [("rank", p.rank), ("local_rank", p.local_rank), ("world_size", p.world_size)] {
        if let Some(v) = v {
            l.push((k.into(), v.to_string().into()));
        }
    }
    l.push(("hostname".into(), clean(&p.host).into()));
    l.push(("pid".into(), p.pid.to_string().into()));
    l
}

type Labels = Vec<(&'static str, String)>;

/// The collector: reads everything at each scrape.
///
/// **A scrape never blocks a CUDA call, and never waits on one** (issue
/// #36; tests/metrics.rs stops a thread inside a call and scrapes). Every
/// figure is a load of what program threads write without a lock: the
/// per-thread call statistics (`trace::stats`: one writer each, relaxed
/// loads and stores), the ledger's memory table (atomics per library,
/// device and kind), the GPU busy counters, the step histogram, the
/// progress state's NCCL counters and the watchdog's last progress (one
/// atomic each). No lock of a call's path is taken here. The three locks a
/// scrape takes that a program thread may also take are each held, on
/// both sides, for a copy or an append and never across anything that can
/// wait, so a thread stopped anywhere inside a call (the driver, a fault's
/// delay, a hook) holds none of them:
/// - the list of thread states (`trace::summary`): a thread appends
///   itself at its first traced call (and the forking thread holds it
///   across `fork`); the scrape copies the pointers, once per scrape;
/// - the library names (a reader lock): written at the first allocation
///   from a library not seen before, to append its name;
/// - the ledger's list of OOM reports: appended at a kind's first failed
///   allocation, after its report was made.
///
/// The one outside call is the driver's, for a device's UUID ([`uuid`]):
/// once per device, from our thread, as our own work (never counted or
/// observed), never at exit.
#[derive(Debug)]
struct View;

fn family<V>(enc: &mut DescriptorEncoder, name: &str, help: &str, kind: MetricType, rows: &[(Labels, V)], put: impl Fn(&mut prometheus_client::encoding::MetricEncoder, &V) -> std::fmt::Result) -> std::fmt::Result {
    if rows.is_empty() {
        return Ok(());
    }
    let mut m = enc.encode_descriptor(name, help, None, kind)?;
    for (labels, v) in rows {
        let mut f = m.encode_family(labels)?;
        put(&mut f, v)?;
    }
    Ok(())
}

fn counters<V: EncodeCounterValue>(enc: &mut DescriptorEncoder, name: &str, help: &str, rows: &[(Labels, V)]) -> std::fmt::Result {
    family(enc, name, help, MetricType::Counter, rows, |f, v| f.encode_counter::<NoLabelSet, _, u64>(v, None))
}

fn gauges<V: EncodeGaugeValue>(enc: &mut DescriptorEncoder, name: &str, help: &str, rows: &[(Labels, V)]) -> std::fmt::Result {
    family(enc, name, help, MetricType::Gauge, rows, |f, v| f.encode_gauge(v))
}

impl Collector for View {
    fn encode(&self, mut enc: DescriptorEncoder) -> std::fmt::Result {
        let enc = &mut enc;
        calls(enc)?;
        memory(enc)?;
        gpu_busy(enc)?;
        steps(enc)?;
        progress(enc)?;
        gauges(enc, "info", "What writes these metrics: the cudart-shim runtime and its version (always 1)", &[(
            vec![("runtime", crate::trace::event::process::runtime_soname().unwrap_or("cudart-shim").to_owned()), ("version", env!("CARGO_PKG_VERSION").to_owned())],
            1u64,
        )])?;
        Ok(())
    }
}

/// Calls, failures and time per function and layer; sticky errors; the
/// estimated cost of tracing. All from `trace::summary()`, the exit
/// summary's own source.
fn calls(enc: &mut DescriptorEncoder) -> std::fmt::Result {
    let s = trace::summary();
    let driver: std::collections::HashSet<&'static str> = (0..trace::site_count()).filter(|&i| trace::is_driver(i)).map(trace::site_name).collect();
    let layer = |name: &str| if driver.contains(name) { "driver" } else { "runtime" };
    let base = |name: &str| -> Labels { vec![("function", clean(name)), ("layer", layer(name).to_owned())] };
    let calls: Vec<(Labels, u64)> = s.rows.iter().map(|r| (base(&r.name), r.calls)).collect();
    let secs: Vec<(Labels, f64)> = s.rows.iter().map(|r| (base(&r.name), r.total_ns as f64 / 1e9)).collect();
    let errors: Vec<(Labels, u64)> = s
        .errors
        .iter()
        .map(|e| {
            let mut l = base(&e.name);
            l.push(("error", clean(&e.error)));
            (l, e.calls)
        })
        .collect();
    counters(enc, "calls", "CUDA calls the program made, per function and API layer (the exit summary's Num Calls)", &calls)?;
    counters(enc, "call_seconds", "Time spent in CUDA calls, per function and API layer (the exit summary's Total Time; scaled from the timed calls when sampling)", &secs)?;
    counters(enc, "call_errors", "CUDA calls that returned an error, per function, API layer and error (the exit summary's error rows)", &errors)?;
    counters(enc, "sticky_errors", "Calls that returned a sticky error (the process can run no more CUDA work)", &[(vec![], trace::sticky_errors())])?;
    let all: u64 = s.rows.iter().map(|r| r.calls).sum();
    let per_call = super::cost::per_call_ns(trace::flags(), s.timed_one_in.max(1));
    counters(enc, "estimated_overhead_seconds", "Estimated time tracing added to the program's calls: calls times the measured cost per call of the modes on (docs/METRICS.md)", &[(
        vec![],
        all as f64 * per_call / 1e9,
    )])
}

/// Device memory from the ledger's memory table (per device, library and
/// kind): in use and peak; each device's limit when one is set.
fn memory(enc: &mut DescriptorEncoder) -> std::fmt::Result {
    let r = crate::ledger::report::snapshot();
    let dev = |d: i32| -> Labels {
        if d < 0 { vec![("device", "host".to_owned()), ("gpu_uuid", String::new())] } else { vec![("device", d.to_string()), ("gpu_uuid", uuid(d as u32))] }
    };
    let row = |x: &trace_format::memory::Row| -> Labels {
        let mut l = dev(x.device);
        l.push(("library", clean(&x.library)));
        l.push(("kind", x.kind.clone()));
        l
    };
    let used: Vec<(Labels, u64)> = r.rows.iter().map(|x| (row(x), x.live_bytes)).collect();
    let peak: Vec<(Labels, u64)> = r.rows.iter().map(|x| (row(x), x.peak_bytes)).collect();
    let allocs: Vec<(Labels, u64)> = r.rows.iter().map(|x| (row(x), x.allocations)).collect();
    let limits: Vec<(Labels, u64)> = r.limits.iter().map(|&(d, l)| (dev(d), l)).collect();
    gauges(enc, "memory_used_bytes", "Device memory in use, per device, calling library and kind (the ledger's memory table: live bytes)", &used)?;
    gauges(enc, "memory_peak_bytes", "Highest device memory in use so far, per device, calling library and kind (the memory table's peak)", &peak)?;
    counters(enc, "memory_allocations", "Allocations made, per device, calling library and kind (the memory table's allocations)", &allocs)?;
    gauges(enc, "memory_limit_bytes", "The device-memory limit set (CUDART_SHIM_MEMORY_LIMIT), per device", &limits)
}

/// GPU busy time per device and class of work (GPU activity on).
fn gpu_busy(enc: &mut DescriptorEncoder) -> std::fmt::Result {
    use trace::gpu::{busy_ns, Class, BUSY_DEVICES};
    if !trace::gpu::on() {
        return Ok(());
    }
    let mut rows: Vec<(Labels, f64)> = Vec::new();
    for d in 0..BUSY_DEVICES as u32 {
        let ns: Vec<u64> = Class::ALL.iter().map(|&c| busy_ns(d, c)).collect();
        if ns.iter().all(|&n| n == 0) {
            continue;
        }
        for (c, n) in Class::ALL.iter().zip(ns) {
            rows.push((vec![("device", d.to_string()), ("gpu_uuid", uuid(d)), ("class", c.name().to_owned())], n as f64 / 1e9));
        }
    }
    counters(enc, "gpu_busy_seconds", "GPU time of the work this process ran, per device and class (gemm, nccl, memcpy, memset, other), from CUPTI's records", &rows)
}

/// The step-time histogram (a step range named).
fn steps(enc: &mut DescriptorEncoder) -> std::fmt::Result {
    if !trace::step::named() {
        return Ok(());
    }
    let (counts, sum) = trace::step::snapshot();
    let count: u64 = counts.iter().sum();
    let buckets: Vec<(f64, u64)> = trace::step::BOUNDS_S.iter().copied().chain([f64::MAX]).zip(counts).collect();
    let mut m = enc.encode_descriptor("step_seconds", "Duration of each step: the NVTX range named by --step-range (CUDART_SHIM_STEP_RANGE)", None, MetricType::Histogram)?;
    m.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)
}

/// The progress state (kept by the watchdog): the last progress time, the
/// watchdog's notion (published at its ticks), and the NCCL operations.
fn progress(enc: &mut DescriptorEncoder) -> std::fmt::Result {
    use trace::progress as p;
    if !p::on() {
        return Ok(());
    }
    if let Some(t) = crate::watchdog::last_progress_wall_ns() {
        gauges(enc, "last_progress_timestamp_seconds", "When the program last made progress as the watchdog sees it, Unix time: now minus the longest stretch it watches without progress (a thread in one CUDA call, a stream holding work with nothing completed, no kernel launched and no GPU work completed), as of its last tick", &[(vec![], t as f64 / 1e9)])?;
    }
    let ops = p::nccl_ops();
    let launched: Vec<(Labels, u64)> = ops.iter().map(|(op, l, _)| (vec![("op", clean(op))], *l)).collect();
    let completed: Vec<(Labels, u64)> = ops.iter().map(|(op, _, c)| (vec![("op", clean(op))], *c)).collect();
    counters(enc, "nccl_ops_launched", "NCCL operations launched (their kernels), per operation", &launched)?;
    counters(enc, "nccl_ops_completed", "NCCL operations completed, per operation, as far as the progress state knows (the watchdog's probe moves it)", &completed)
}

// ---- GPU UUIDs ----------------------------------------------------------

/// Set when the process exits: the driver is asked nothing more (it may be
/// torn down under us).
static EXITING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The process is exiting (see [`EXITING`]).
pub fn exiting() {
    EXITING.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// DCGM's form of a device's UUID (`GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`),
/// so device series join DCGM exporter's `UUID` label. Asked of the driver
/// once per device, from our thread (as our own work: `progress::internal`,
/// neither observed nor counted), only once the program initialized the
/// driver (a device shows up only after it did), never at exit; until then
/// empty.
fn uuid(device: u32) -> String {
    use parking_lot::Mutex;
    static KNOWN: Mutex<Vec<(u32, String)>> = Mutex::new(Vec::new());
    if let Some((_, u)) = KNOWN.lock().iter().find(|(d, _)| *d == device) {
        return u.clone();
    }
    if EXITING.load(std::sync::atomic::Ordering::Relaxed) || !crate::driver::loader::opened() {
        return String::new();
    }
    let Some(bytes) = trace::progress::internal(|| {
        let mut dev = crate::driver::CUdevice::default();
        crate::driver::cu!(cuDeviceGet(&mut dev, device as i32)).ok()?;
        let mut u = crate::driver::CUuuid::default();
        crate::driver::cu!(cuDeviceGetUuid(&mut u, dev)).ok()?;
        Some(u)
    }) else {
        return String::new();
    };
    let s = format_uuid(&bytes.bytes.map(|b| b as u8));
    KNOWN.lock().push((device, s.clone()));
    s
}

/// `GPU-` and the 16 bytes in lowercase hex, grouped 8-4-4-4-12 (as
/// nvidia-smi and DCGM write them).
pub fn format_uuid(b: &[u8; 16]) -> String {
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("GPU-{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_as_dcgm_writes_it() {
        let b: [u8; 16] = std::array::from_fn(|i| (i as u8) * 17);
        assert_eq!(format_uuid(&b), "GPU-00112233-4455-6677-8899-aabbccddeeff");
    }

    #[test]
    fn prometheus_text_names_counters_by_their_samples() {
        let om = "# HELP cudart_shim_calls CUDA calls.\n# TYPE cudart_shim_calls counter\ncudart_shim_calls_total{function=\"cudaMalloc\"} 3\n# HELP cudart_shim_memory_used_bytes In use.\n# TYPE cudart_shim_memory_used_bytes gauge\n# UNIT cudart_shim_memory_used_bytes bytes\ncudart_shim_memory_used_bytes 5\n# EOF\n";
        assert_eq!(
            to_prometheus_text(om),
            "# HELP cudart_shim_calls_total CUDA calls.\n# TYPE cudart_shim_calls_total counter\ncudart_shim_calls_total{function=\"cudaMalloc\"} 3\n# HELP cudart_shim_memory_used_bytes In use.\n# TYPE cudart_shim_memory_used_bytes gauge\ncudart_shim_memory_used_bytes 5\n"
        );
    }

    #[test]
    fn label_values_never_break_the_exposition() {
        assert_eq!(clean("a\"b\\c\nd"), "a_b_c_d");
    }
}
