//! The record of the process that wrote a trace file: which rank of which
//! job, on which host, with which devices, and how its trace clock maps to
//! the wall clock.
//!
//! Every output file carries it (the timeline in `otherData.process` and in
//! a `cudart_shim_process` metadata event at each flush, the summary JSON as
//! `process`, the text summary and the call log as a line), so the files of
//! many ranks can be told apart and put on one time axis.
//!
//! Clock: trace timestamps count nanoseconds from the trace clock's zero (a
//! monotonic clock local to the process). A [`ClockSample`] pairs a
//! trace-clock reading with the wall clock (`CLOCK_REALTIME`) read at the
//! same instant. One is taken when tracing starts and one at every flush, so
//! the drift between the two clocks over the run is known, and a timestamp
//! maps to the wall clock by interpolating between the first and the last
//! sample ([`Process::wall_ns`]). Within a host that is exact to a
//! microsecond or so; across hosts it is as good as the hosts' wall-clock
//! synchronisation (NTP: about a millisecond; PTP: microseconds).

use serde_json::{Value, json};

/// A trace-clock reading and the wall clock at the same instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockSample {
    /// Nanoseconds since the trace clock's zero.
    pub trace_ns: u64,
    /// Nanoseconds since the Unix epoch.
    pub wall_ns: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Process {
    /// `RANK`, else `LOCAL_RANK` (as `%r`); None when neither is set.
    pub rank: Option<u32>,
    pub local_rank: Option<u32>,
    pub world_size: Option<u32>,
    pub host: String,
    pub pid: u32,
    /// `CUDA_VISIBLE_DEVICES` as the process saw it (None: unset).
    pub visible_devices: Option<String>,
    /// Runtime ordinals of the devices the process used, as of the last
    /// sample.
    pub devices: Vec<i32>,
    /// The sample taken at start, then the latest one (at the last flush).
    pub clock: Vec<ClockSample>,
    /// The SONAME of the cudart-shim runtime that wrote the file
    /// (`libcudart.so.13`, `libcudart.so.12`): a process that uses both
    /// writes one set of files per runtime. None: not known (the runtime
    /// linked into a test, or a file from an older version).
    pub runtime: Option<String>,
}

impl Process {
    /// `rank N (host, pid P)`, or `pid P (host)` outside a distributed job;
    /// followed by ` on RUNTIME` when the runtime is known.
    pub fn label(&self) -> String {
        let mut s = match self.rank {
            Some(r) => format!("rank {r} ({}, pid {})", self.host, self.pid),
            None => format!("pid {} ({})", self.pid, self.host),
        };
        if let Some(rt) = &self.runtime {
            s.push_str(" on ");
            s.push_str(rt);
        }
        s
    }

    /// The wall clock at trace time 0 (ns since the epoch), by the first
    /// sample.
    pub fn zero_wall_ns(&self) -> Option<i128> {
        self.clock.first().map(|c| c.wall_ns as i128 - c.trace_ns as i128)
    }

    /// The wall-clock time of trace time `trace_ns`, in ns after `base` (ns
    /// since the epoch; relative, so an f64 keeps nanoseconds): linear
    /// between the first and last samples, the nearest offset outside
    /// them. None without a sample.
    pub fn wall_after(&self, trace_ns: f64, base: i128) -> Option<f64> {
        let (a, b) = (self.clock.first()?, self.clock.last()?);
        let off = |s: &ClockSample| s.wall_ns as i128 - s.trace_ns as i128;
        let start = (off(a) - base) as f64;
        if b.trace_ns <= a.trace_ns {
            return Some(trace_ns + start);
        }
        let f = ((trace_ns - a.trace_ns as f64) / (b.trace_ns - a.trace_ns) as f64).clamp(0.0, 1.0);
        Some(trace_ns + start + f * (off(b) - off(a)) as f64)
    }

    /// How far the wall clock moved against the trace clock between the
    /// first and last samples (ns; positive: the wall clock ran faster).
    pub fn drift_ns(&self) -> Option<i64> {
        let (a, b) = (self.clock.first()?, self.clock.last()?);
        Some((b.wall_ns as i64 - a.wall_ns as i64) - (b.trace_ns as i64 - a.trace_ns as i64))
    }

    pub fn to_json(&self) -> Value {
        let clock: Vec<Value> = self.clock.iter().map(|c| json!({"trace_ns": c.trace_ns, "wall_ns": c.wall_ns})).collect();
        json!({
            "rank": self.rank,
            "local_rank": self.local_rank,
            "world_size": self.world_size,
            "host": self.host,
            "pid": self.pid,
            "cuda_visible_devices": self.visible_devices,
            "devices": self.devices,
            "clock": clock,
            "runtime": self.runtime,
        })
    }

    pub fn from_json(v: &Value) -> Option<Process> {
        let u32_of = |k: &str| v[k].as_u64().and_then(|n| u32::try_from(n).ok());
        let clock = v["clock"]
            .as_array()?
            .iter()
            .filter_map(|c| Some(ClockSample { trace_ns: c["trace_ns"].as_u64()?, wall_ns: c["wall_ns"].as_u64()? }))
            .collect();
        Some(Process {
            rank: u32_of("rank"),
            local_rank: u32_of("local_rank"),
            world_size: u32_of("world_size"),
            host: v["host"].as_str()?.to_owned(),
            pid: u32_of("pid")?,
            visible_devices: v["cuda_visible_devices"].as_str().map(str::to_owned),
            devices: v["devices"].as_array().into_iter().flatten().filter_map(|d| d.as_i64()).map(|d| d as i32).collect(),
            clock,
            runtime: v["runtime"].as_str().map(str::to_owned),
        })
    }

    /// One line for text outputs (the text summary, the call log).
    pub fn to_line(&self) -> String {
        let mut s = format!("{}; devices {:?}", self.label(), self.devices);
        if let Some(v) = &self.visible_devices {
            s.push_str(&format!(" (CUDA_VISIBLE_DEVICES={v})"));
        }
        if let Some(w) = self.world_size {
            s.push_str(&format!("; world size {w}"));
        }
        if let Some(c) = self.clock.first() {
            s.push_str(&format!("; trace clock 0 = wall clock {} ns since the epoch", c.wall_ns as i128 - c.trace_ns as i128));
        }
        if self.clock.len() > 1
            && let (Some(d), Some(l)) = (self.drift_ns(), self.clock.last())
        {
            s.push_str(&format!(", drift {d:+} ns at trace time {} ns", l.trace_ns));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(clock: &[(u64, u64)]) -> Process {
        Process {
            rank: Some(1),
            host: "node7".into(),
            pid: 42,
            devices: vec![1],
            clock: clock.iter().map(|&(trace_ns, wall_ns)| ClockSample { trace_ns, wall_ns }).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn json_round_trip_and_label() {
        let a = p(&[(10, 1_000_010), (5_000, 1_005_002)]);
        assert_eq!(Process::from_json(&a.to_json()).as_ref(), Some(&a));
        assert_eq!(a.label(), "rank 1 (node7, pid 42)");
        assert_eq!(Process { rank: None, ..a.clone() }.label(), "pid 42 (node7)");
        let twelve = Process { runtime: Some("libcudart.so.12".into()), ..a.clone() };
        assert_eq!(twelve.label(), "rank 1 (node7, pid 42) on libcudart.so.12");
        assert_eq!(Process::from_json(&twelve.to_json()).as_ref(), Some(&twelve));
        assert!(twelve.to_line().starts_with("rank 1 (node7, pid 42) on libcudart.so.12; "), "{}", twelve.to_line());
        assert!(a.to_line().contains("drift +2 ns"), "{}", a.to_line());
    }

    #[test]
    fn wall_clock_interpolates_between_samples() {
        // Offset 1000 at trace 0, 1100 at trace 1000 (the wall clock ran
        // 10% fast): halfway, the offset is 1050.
        let a = p(&[(0, 1000), (1000, 2100)]);
        assert_eq!(a.wall_after(500.0, 0), Some(1550.0));
        assert_eq!(a.wall_after(0.0, 0), Some(1000.0));
        assert_eq!(a.wall_after(2000.0, 0), Some(3100.0), "beyond the last sample, its offset");
        assert_eq!(a.wall_after(500.0, 1000), Some(550.0));
        assert_eq!(a.drift_ns(), Some(100));
        assert_eq!(a.zero_wall_ns(), Some(1000));
        assert_eq!(p(&[(0, 7)]).wall_after(3.0, 0), Some(10.0));
        assert_eq!(p(&[]).wall_after(3.0, 0), None);
        // Real epoch times keep nanoseconds when taken relative to a base.
        let e = p(&[(0, 1_764_000_000_123_456_789), (10, 1_764_000_000_123_456_799)]);
        assert_eq!(e.wall_after(5.0, 1_764_000_000_000_000_000), Some(123_456_794.0));
    }
}
