//! Hang reports (`cudart-shim-hang`, version 1, written by the runtime's
//! watchdog) read back across ranks: which rank holds the others up
//! (`cudart-shim report --hang FILE...`), and the watchdog's option values,
//! which the runtime (variables) and the command (options) both parse here.
//!
//! The rule, per NCCL operation (from `ncclDevKernel_<Op>_...` names):
//! the rank that launched fewest of an operation that other ranks launched
//! more of is behind; ranks with launched > completed are waiting on it.
//! Without an NCCL difference: the rank with fewest kernel launches, else
//! the rank whose main thread is not in CUDA while the others wait in a
//! call.

use serde_json::Value;

/// A watchdog period: a positive number of seconds (decimals allowed), at
/// most a week.
pub fn parse_watchdog_seconds(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 604_800.0 => Ok(s),
        _ => Err(format!("{v:?} is not a number of seconds above 0 (at most 604800), e.g. 300 or 2.5")),
    }
}

/// The signals a hang report may be asked with (Linux numbers): USR1,
/// USR2, HUP, URG, WINCH, PWR, with or without `SIG`, any case, or their
/// numbers. Not a crash signal, not one that cannot be caught.
pub fn parse_dump_signal(v: &str) -> Result<i32, String> {
    let u = v.trim().to_ascii_uppercase();
    let name = u.strip_prefix("SIG").unwrap_or(&u);
    const KNOWN: [(&str, i32); 6] = [("USR1", 10), ("USR2", 12), ("HUP", 1), ("URG", 23), ("WINCH", 28), ("PWR", 30)];
    KNOWN
        .iter()
        .find(|(n, s)| *n == name || name.parse::<i32>().ok() == Some(*s))
        .map(|(_, s)| *s)
        .ok_or_else(|| format!("{v:?} is not a signal a hang report may be asked with; accepted: USR1, USR2, HUP, URG, WINCH, PWR"))
}

/// One rank's report, as the comparison reads it.
#[derive(Clone, Debug, Default)]
pub struct RankReport {
    pub file: String,
    pub rank: Option<u64>,
    pub pid: u64,
    pub host: String,
    pub verdict: String,
    /// (op, launched, completed).
    pub nccl: Vec<(String, u64, u64)>,
    /// (stream, launched, completed).
    pub streams: Vec<(String, u64, u64)>,
    /// The streams with a pending kernel of each NCCL op: (op, stream).
    pub nccl_pending: Vec<(String, String)>,
    /// The main thread: (state, call, open NVTX ranges).
    pub main: Option<(String, Option<String>, Vec<String>)>,
}

impl RankReport {
    /// Read one report; an error names what is wrong.
    pub fn from_json(file: &str, v: &Value) -> Result<RankReport, String> {
        if v["format"] != "cudart-shim-hang" {
            return Err(format!("{file}: not a cudart-shim hang report (no \"format\": \"cudart-shim-hang\")"));
        }
        if v["version"].as_u64() != Some(1) {
            return Err(format!("{file}: hang report version {} is not one this command reads (1)", v["version"]));
        }
        let u = |x: &Value| x.as_u64().unwrap_or(0);
        let s = |x: &Value| x.as_str().unwrap_or("").to_owned();
        let list = |x: &Value| x.as_array().cloned().unwrap_or_default();
        let pid = u(&v["process"]["pid"]);
        let main = list(&v["threads"]).into_iter().find(|t| u(&t["tid"]) == pid).map(|t| {
            (s(&t["state"]), t["call"].as_str().map(str::to_owned), list(&t["nvtx"]).iter().map(s).collect())
        });
        let mut nccl_pending = Vec::new();
        for st in list(&v["streams_pending"]) {
            for p in list(&st["pending"]) {
                let k = s(&p["kernel"]);
                if let Some(op) = nccl_op(&k) {
                    let e = (op.to_owned(), s(&st["stream"]));
                    if !nccl_pending.contains(&e) {
                        nccl_pending.push(e);
                    }
                }
            }
        }
        Ok(RankReport {
            file: file.to_owned(),
            rank: v["process"]["rank"].as_u64(),
            pid,
            host: s(&v["process"]["host"]),
            verdict: s(&v["verdict"]),
            nccl: list(&v["nccl"]).iter().map(|o| (s(&o["op"]), u(&o["launched"]), u(&o["completed"]))).collect(),
            streams: list(&v["streams"]).iter().map(|o| (s(&o["stream"]), u(&o["launched"]), u(&o["completed"]))).collect(),
            nccl_pending,
            main,
        })
    }

    /// `rank N`, or `pid P` for a process with no rank.
    pub fn name(&self) -> String {
        match self.rank {
            Some(r) => format!("rank {r}"),
            None => format!("pid {}", self.pid),
        }
    }

    fn launched(&self, op: &str) -> u64 {
        self.nccl.iter().find(|o| o.0 == op).map_or(0, |o| o.1)
    }

    fn waiting(&self, op: &str) -> bool {
        self.nccl.iter().any(|o| o.0 == op && o.1 > o.2)
    }

    fn kernels(&self) -> (u64, u64) {
        self.streams.iter().fold((0, 0), |(l, c), s| (l + s.1, c + s.2))
    }

    /// "main thread is not in CUDA (open NVTX range "step 57")".
    fn main_state(&self) -> String {
        match &self.main {
            None => "main thread made no CUDA call".to_owned(),
            Some((state, call, nvtx)) => {
                let what = match call {
                    Some(c) => format!("main thread is in {}", c.split('(').next().unwrap_or(c)),
                    None => format!("main thread is {state}"),
                };
                if nvtx.is_empty() {
                    what
                } else {
                    format!("{what} (open NVTX range {})", nvtx.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>().join(" > "))
                }
            }
        }
    }
}

/// The NCCL operation of a kernel name (`ncclDevKernel_AllReduce_Sum_f32_RING_LL`
/// -> `AllReduce`; older `ncclKernel_...` too), as written or as the driver
/// names the function: mangled (Itanium C++ ABI: `_Z`, the name's length,
/// the name, its parameters; NCCL's kernels take an
/// `ncclDevKernelArgsStorage<4096>`, so their names are mangled, and on
/// the 2 x H200 DDP run of 2026-11-28 no operation was counted).
pub fn nccl_op(name: &str) -> Option<&str> {
    let name = name.strip_prefix("_Z").map_or(name, |m| m.trim_start_matches(|c: char| c.is_ascii_digit()));
    let rest = name.strip_prefix("ncclDevKernel_").or_else(|| name.strip_prefix("ncclKernel_"))?;
    let op = rest.split('_').next()?;
    (!op.is_empty()).then_some(op)
}

/// The comparison: the verdict line, then the table.
pub fn compare(mut ranks: Vec<RankReport>) -> String {
    ranks.sort_by_key(|r| (r.rank.is_none(), r.rank.unwrap_or(0), r.pid));
    let verdict = verdict(&ranks);
    let mut ops: Vec<String> = Vec::new();
    for r in &ranks {
        for o in &r.nccl {
            if !ops.contains(&o.0) {
                ops.push(o.0.clone());
            }
        }
    }
    let mut head = vec!["Rank".to_owned(), "Kernels launched".to_owned(), "Completed".to_owned()];
    head.extend(ops.iter().map(|o| format!("{o} launched/completed")));
    head.push("Main thread".to_owned());
    let mut rows = vec![head];
    for r in &ranks {
        let (l, c) = r.kernels();
        let mut row = vec![format!("{} ({}, pid {})", r.name(), r.host, r.pid), l.to_string(), c.to_string()];
        row.extend(ops.iter().map(|o| r.nccl.iter().find(|x| &x.0 == o).map_or("-".to_owned(), |x| format!("{}/{}", x.1, x.2))));
        row.push(r.main_state().trim_start_matches("main thread ").trim_start_matches("is ").to_owned());
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len()).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    let mut out = verdict + "\n\n";
    for (n, row) in rows.iter().enumerate() {
        let line: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if n == 0 {
            out.push_str(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
            out.push('\n');
        }
    }
    out.push('\n');
    for r in &ranks {
        out.push_str(&format!("{}: {} ({})\n", r.name(), r.verdict, r.file));
    }
    out
}

fn verdict(ranks: &[RankReport]) -> String {
    if ranks.len() < 2 {
        return match ranks.first() {
            Some(r) => format!("one report ({}): nothing to compare; its verdict: {}", r.name(), r.verdict),
            None => "no report".to_owned(),
        };
    }
    // NCCL: the operation whose launch counts differ, preferring one that
    // some rank waits on.
    let mut best: Option<(bool, u64, String)> = None;
    for r in ranks {
        for (op, _, _) in &r.nccl {
            let counts: Vec<u64> = ranks.iter().map(|x| x.launched(op)).collect();
            let (lo, hi) = (*counts.iter().min().unwrap_or(&0), *counts.iter().max().unwrap_or(&0));
            if hi > lo {
                let waited = ranks.iter().any(|x| x.waiting(op));
                let key = (waited, hi - lo, op.clone());
                if best.as_ref().is_none_or(|b| (b.0, b.1) < (key.0, key.1)) {
                    best = Some(key);
                }
            }
        }
    }
    if let Some((_, _, op)) = best {
        let lo = ranks.iter().map(|r| r.launched(&op)).min().unwrap_or(0);
        let behind: Vec<&RankReport> = ranks.iter().filter(|r| r.launched(&op) == lo).collect();
        let others: Vec<u64> = ranks.iter().map(|r| r.launched(&op)).filter(|&n| n != lo).collect();
        let mut other_counts: Vec<u64> = others.clone();
        other_counts.sort_unstable();
        other_counts.dedup();
        let stream = ranks.iter().filter(|r| r.waiting(&op)).flat_map(|r| r.nccl_pending.iter().filter(|p| p.0 == op).map(move |p| format!(" ({} waits on stream {})", r.name(), p.1))).next().unwrap_or_default();
        let names: Vec<String> = behind.iter().map(|r| r.name()).collect();
        let first = behind[0];
        return format!(
            "{} {} behind: {lo} ncclDevKernel_{op}* launched, the others {}{stream}; {}'s {}",
            names.join(", "),
            if behind.len() > 1 { "are" } else { "is" },
            other_counts.iter().map(u64::to_string).collect::<Vec<_>>().join("/"),
            first.name(),
            first.main_state()
        );
    }
    // No NCCL difference: kernel launches, then the calls.
    let totals: Vec<u64> = ranks.iter().map(|r| r.kernels().0).collect();
    let (lo, hi) = (*totals.iter().min().unwrap_or(&0), *totals.iter().max().unwrap_or(&0));
    if hi > lo {
        let behind: Vec<&RankReport> = ranks.iter().filter(|r| r.kernels().0 == lo).collect();
        let names: Vec<String> = behind.iter().map(|r| r.name()).collect();
        return format!(
            "{} {} behind: {lo} kernels launched, the others up to {hi}; {}'s {}",
            names.join(", "),
            if behind.len() > 1 { "are" } else { "is" },
            behind[0].name(),
            behind[0].main_state()
        );
    }
    let in_cuda = |r: &RankReport| r.main.as_ref().is_some_and(|m| m.1.is_some());
    let idle: Vec<&RankReport> = ranks.iter().filter(|r| !in_cuda(r)).collect();
    if !idle.is_empty() && idle.len() < ranks.len() {
        let names: Vec<String> = idle.iter().map(|r| r.name()).collect();
        return format!(
            "{} {} behind: the same kernel launches as the others, but its {} while the others wait in CUDA calls",
            names.join(", "),
            if idle.len() > 1 { "are" } else { "is" },
            idle[0].main_state()
        );
    }
    "no rank stands out: every rank launched the same kernels and is in the same state".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(rank: u64, allreduce: (u64, u64), main_call: Option<&str>, nvtx: &[&str]) -> Value {
        json!({
            "format": "cudart-shim-hang", "version": 1,
            "process": {"rank": rank, "pid": 100 + rank, "host": "h"},
            "verdict": "v",
            "nccl": [{"op": "AllReduce", "launched": allreduce.0, "completed": allreduce.1}],
            "streams": [{"stream": "0x10", "launched": allreduce.0 + 7, "completed": allreduce.1 + 7}],
            "streams_pending": [{"stream": "0x10", "pending": if allreduce.0 > allreduce.1 { json!([{"kernel": "ncclDevKernel_AllReduce_Sum_f32_RING_LL"}]) } else { json!([]) }}],
            "threads": [{"tid": 100 + rank, "state": if main_call.is_some() { "in CUDA" } else { "not in CUDA" }, "call": main_call, "nvtx": nvtx}],
        })
    }

    #[test]
    fn the_rank_that_launched_fewer_all_reduces_is_behind() {
        let r = |v: &Value, f: &str| RankReport::from_json(f, v).unwrap();
        let a = report(0, (205, 204), Some("cudaStreamSynchronize(stream=0x10)"), &[]);
        let b = report(1, (204, 204), None, &["step 57"]);
        let c = report(2, (205, 204), Some("cudaStreamSynchronize(stream=0x10)"), &[]);
        let out = compare(vec![r(&c, "c"), r(&b, "b"), r(&a, "a")]);
        let first = out.lines().next().unwrap();
        assert_eq!(
            first,
            "rank 1 is behind: 204 ncclDevKernel_AllReduce* launched, the others 205 (rank 0 waits on stream 0x10); rank 1's main thread is not in CUDA (open NVTX range \"step 57\")"
        );
        // The table lists ranks in rank order.
        let rows: Vec<&str> = out.lines().filter(|l| l.contains("(h, pid")).collect();
        assert!(rows[0].starts_with("rank 0 (h, pid 100)") && rows[1].starts_with("rank 1") && rows[2].starts_with("rank 2"), "{out}");
        assert!(rows[1].contains("204/204") && rows[0].contains("205/204"), "{out}");
    }

    #[test]
    fn without_nccl_the_rank_not_in_cuda_while_the_others_wait_is_behind() {
        let mut a = report(0, (0, 0), Some("cudaDeviceSynchronize()"), &[]);
        let mut b = report(1, (0, 0), None, &["load"]);
        a["nccl"] = json!([]);
        b["nccl"] = json!([]);
        let out = compare(vec![RankReport::from_json("a", &a).unwrap(), RankReport::from_json("b", &b).unwrap()]);
        assert!(out.starts_with("rank 1 is behind: the same kernel launches as the others, but its main thread is not in CUDA (open NVTX range \"load\")"), "{out}");
    }

    #[test]
    fn bad_files_and_values_are_named() {
        assert!(RankReport::from_json("x.json", &json!({"format": "other"})).unwrap_err().contains("x.json: not a cudart-shim hang report"));
        assert!(RankReport::from_json("x.json", &json!({"format": "cudart-shim-hang", "version": 9})).unwrap_err().contains("version 9"));
        for bad in ["0", "-1", "abc", "", "nan", "inf", "1e9"] {
            assert!(parse_watchdog_seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_watchdog_seconds(" 2.5 "), Ok(2.5));
        assert_eq!(parse_dump_signal("usr2"), Ok(12));
        assert_eq!(parse_dump_signal("SIGUSR1"), Ok(10));
        assert_eq!(parse_dump_signal("12"), Ok(12));
        for bad in ["SEGV", "KILL", "9", "", "USR3"] {
            assert!(parse_dump_signal(bad).is_err(), "{bad}");
        }
    }
}
