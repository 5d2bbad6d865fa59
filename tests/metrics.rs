//! Prometheus metrics (issue #36), over the fake driver: a program built
//! on NVIDIA's headers (tests/c/metrics_app.c) runs with ours preloaded and
//! the metrics on; a real Prometheus server (Debian's `prometheus`, which
//! scripts/test installs, with `promtool`) scrapes its endpoint, and the
//! values it stored are checked against the program's own exit summary.

mod common;
use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const STEPS: u64 = 6;

fn app(dir: &Path) -> PathBuf {
    compile_c_cudart(&repo_root().join("tests/c/metrics_app.c"), &dir.join("metrics_app"), &["-Werror", &format!("-I{}", nvtx_include().display())])
}

/// A running program: its stderr and stdout as they come.
struct Running {
    child: Child,
    err: Arc<Mutex<String>>,
    out: Arc<Mutex<String>>,
    stop: PathBuf,
}

/// Start `metrics_app STEPS SLEEP_MS STOP [extra]` with ours preloaded,
/// the summary in `dir/summary.json`, and `env` (the metrics variables).
fn start(dir: &Path, steps: u64, sleep_ms: u64, extra: &[&str], env: &[(&str, String)]) -> Running {
    let exe = app(dir);
    let stop = dir.join("stop");
    let _ = std::fs::remove_file(&stop);
    let shim = std::fs::canonicalize(shim_lib()).unwrap();
    let mut c = Command::new(exe);
    c.args([steps.to_string(), sleep_ms.to_string(), stop.display().to_string()]).args(extra);
    for v in ["CUDART_SHIM_TRACE", "RANK", "LOCAL_RANK", "WORLD_SIZE", "CUDART_SHIM_METRICS_FILE", "CUDART_SHIM_METRICS_LISTEN", "CUDART_SHIM_METRICS_INTERVAL"] {
        c.env_remove(v);
    }
    c.env("LD_PRELOAD", &shim)
        .env("LD_LIBRARY_PATH", nvidia_lib_dir())
        .env("CUDART_SHIM_DRIVER", fake_driver())
        .env("NVTX_INJECTION64_PATH", &shim)
        .env("CUDART_SHIM_TRACE", "summary")
        .env("CUDART_SHIM_TRACE_SUMMARY_FILE", dir.join("summary.json"))
        .env("CUDART_SHIM_STEP_RANGE", "step");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pump = |r: Box<dyn Read + Send>| {
        let buf = Arc::new(Mutex::new(String::new()));
        let b = buf.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(r).lines().map_while(Result::ok) {
                b.lock().unwrap().push_str(&(l + "\n"));
            }
        });
        buf
    };
    let err = pump(Box::new(child.stderr.take().unwrap()));
    let out = pump(Box::new(child.stdout.take().unwrap()));
    Running { child, err, out, stop }
}

impl Running {
    /// Wait until `what` holds of (stdout, stderr), at most `secs`.
    fn wait_for(&mut self, secs: u64, what: &str, cond: impl Fn(&str, &str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if cond(&self.out.lock().unwrap(), &self.err.lock().unwrap()) {
                return;
            }
            if let Some(s) = self.child.try_wait().unwrap() {
                panic!("the program ended ({s}) before {what}:\n{}", self.err.lock().unwrap());
            }
            assert!(Instant::now() < deadline, "no {what} in {secs} s:\n{}", self.err.lock().unwrap());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The endpoint's address, from the line printed once.
    fn address(&mut self) -> SocketAddr {
        self.wait_for(30, "metrics address", |_, e| e.contains("metrics at http://"));
        let e = self.err.lock().unwrap().clone();
        assert_eq!(e.matches("metrics at http://").count(), 1, "printed once: {e}");
        let at = &e[e.find("metrics at http://").unwrap() + 18..];
        at[..at.find("/metrics").unwrap()].parse().unwrap()
    }

    fn done(&mut self) {
        self.wait_for(60, "DONE", |o, _| o.contains("DONE"));
    }

    /// Let it end; returns its stderr.
    fn finish(mut self) -> String {
        std::fs::write(&self.stop, "").unwrap();
        let s = wait_or_fail(&mut self.child, 60, "metrics_app");
        std::thread::sleep(Duration::from_millis(100));
        let err = self.err.lock().unwrap().clone();
        assert!(s.success(), "{s}\n{err}");
        err
    }
}

/// One HTTP/1.1 request; the whole answer (the server closes).
fn http(addr: SocketAddr, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn get(addr: SocketAddr, path: &str, accept: Option<&str>) -> (String, String) {
    let accept = accept.map(|a| format!("Accept: {a}\r\n")).unwrap_or_default();
    let r = http(addr, format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{accept}\r\n").as_bytes());
    let (head, body) = r.split_once("\r\n\r\n").unwrap_or((&r, ""));
    (head.to_owned(), body.to_owned())
}

/// A free loopback port (and, with `two`, the next one free too).
fn free_port(two: bool) -> u16 {
    loop {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let p = l.local_addr().unwrap().port();
        if !two || (p < 65535 && TcpListener::bind(("127.0.0.1", p + 1)).is_ok()) {
            return p;
        }
    }
}

/// The exit summary the program wrote.
fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// (function -> calls, total seconds) and ((function, error) -> calls) of a summary.
type Calls = std::collections::BTreeMap<String, (u64, f64)>;
type Errors = std::collections::BTreeMap<(String, String), u64>;

fn summary_figures(s: &Value) -> (Calls, Errors) {
    let calls = s["cuda_api_sum"].as_array().unwrap().iter().map(|r| (r["Name"].as_str().unwrap().to_owned(), (r["Num Calls"].as_u64().unwrap(), r["Total Time (ns)"].as_u64().unwrap() as f64 / 1e9))).collect();
    let errors = s["errors"].as_array().unwrap().iter().map(|e| ((e["Name"].as_str().unwrap().to_owned(), e["Error"].as_str().unwrap().to_owned()), e["Num Calls"].as_u64().unwrap())).collect();
    (calls, errors)
}

/// Samples of a Prometheus text exposition: (name, labels, value).
fn samples(text: &str) -> Vec<(String, std::collections::BTreeMap<String, String>, f64)> {
    let mut out = Vec::new();
    for l in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (series, value) = l.rsplit_once(' ').unwrap();
        let (name, labels) = match series.split_once('{') {
            Some((n, rest)) => (n, rest.trim_end_matches('}')),
            None => (series, ""),
        };
        let labels = labels
            .split("\",")
            .filter(|x| !x.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once("=\"").unwrap();
                (k.to_owned(), v.trim_end_matches('"').to_owned())
            })
            .collect();
        out.push((name.to_owned(), labels, value.parse().unwrap()));
    }
    out
}

/// Every counter of the exposition equals the summary's figure, and every
/// summary row has its series.
fn assert_counters_equal_summary(text: &str, s: &Value) {
    let (calls, errors) = summary_figures(s);
    let got = samples(text);
    let of = |name: &'static str| got.iter().filter(move |x| x.0 == name);
    let mut seen = 0;
    for (_, l, v) in of("cudart_shim_calls_total") {
        let f = &l["function"];
        assert_eq!(Some(*v as u64), calls.get(f).map(|c| c.0), "calls of {f}");
        seen += 1;
    }
    assert_eq!(seen, calls.len(), "a series per summary row:\n{text}");
    for (_, l, v) in of("cudart_shim_call_seconds_total") {
        let want = calls[&l["function"]].1;
        assert!((v - want).abs() <= 1e-9 * want.max(1.0), "{}: {v} vs {want}", l["function"]);
    }
    let errs: Errors = of("cudart_shim_call_errors_total").map(|(_, l, v)| ((l["function"].clone(), l["error"].clone()), *v as u64)).collect();
    assert_eq!(errs, errors);
}

fn metrics_env(addr: Option<&str>, file: Option<&Path>) -> Vec<(&'static str, String)> {
    let mut e = Vec::new();
    if let Some(a) = addr {
        e.push(("CUDART_SHIM_METRICS_LISTEN", a.to_owned()));
    }
    if let Some(f) = file {
        e.push(("CUDART_SHIM_METRICS_FILE", f.display().to_string()));
    }
    e
}

fn require(tool: &str) -> PathBuf {
    let p = ["/usr/bin", "/usr/local/bin", "/bin"].iter().map(|d| Path::new(d).join(tool)).find(|p| p.exists());
    p.unwrap_or_else(|| panic!("{tool} is missing: scripts/test installs Debian's prometheus package (apt-get install prometheus)"))
}

fn promtool_check(file: &Path) {
    let o = Command::new(require("promtool")).args(["check", "metrics"]).stdin(std::fs::File::open(file).unwrap()).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success() && out.trim().is_empty() && err.trim().is_empty(), "promtool check metrics {}: {}\n{out}{err}", file.display(), o.status);
}

/// Prometheus scrapes the endpoint every 500 ms while the program runs;
/// its HTTP API then holds each `cudart_shim_*` series with the values of
/// the program's exit summary (the last scrape came after the last call).
#[test]
fn a_real_prometheus_scrapes_the_endpoint_and_stores_the_summarys_values() {
    let prometheus = require("prometheus");
    let dir = scratch("metrics_prometheus");
    let mut run = start(&dir, STEPS, 50, &[], &metrics_env(Some("127.0.0.1:0"), None));
    let addr = run.address();
    let web = free_port(false);
    // A fresh database: series of earlier runs would answer the queries.
    let _ = std::fs::remove_dir_all(dir.join("data"));
    std::fs::write(
        dir.join("prometheus.yml"),
        format!("global:\n  scrape_interval: 500ms\n  scrape_timeout: 450ms\nscrape_configs:\n  - job_name: shim\n    static_configs:\n      - targets: ['{addr}']\n"),
    )
    .unwrap();
    struct Kill(Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _prom = Kill(Command::new(prometheus)
        .arg(format!("--config.file={}", dir.join("prometheus.yml").display()))
        .arg(format!("--storage.tsdb.path={}", dir.join("data").display()))
        .arg(format!("--web.listen-address=127.0.0.1:{web}"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("prometheus.log")).unwrap())
        .spawn()
        .unwrap());
    let api = SocketAddr::from(([127, 0, 0, 1], web));
    let query = |q: &str| -> Vec<Value> {
        let enc: String = q.bytes().map(|b| if b.is_ascii_alphanumeric() || b"_-.".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect();
        let Ok(mut s) = TcpStream::connect(api) else { return vec![] };
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let _ = s.write_all(format!("GET /api/v1/query?query={enc} HTTP/1.1\r\nHost: {api}\r\nConnection: close\r\n\r\n").as_bytes());
        let mut r = String::new();
        let _ = s.read_to_string(&mut r);
        let body = r.split_once("\r\n\r\n").map_or("", |x| x.1);
        // Chunked or not, the JSON document is the one object in the body.
        let json = body.find('{').and_then(|a| body.rfind('}').map(|b| &body[a..=b])).unwrap_or("{}");
        serde_json::from_str::<Value>(json).ok().and_then(|v| v["data"]["result"].as_array().cloned()).unwrap_or_default()
    };
    run.done();
    // A scrape that began after the last call: its samples are final.
    let after = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64() + 0.3;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = query(&format!("timestamp(up{{instance=\"{addr}\"}})"));
        let t = r.first().and_then(|x| x["value"][1].as_str()).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        if t > after {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus took no scrape after the program's last call ({after}): last {t}, up {:?}\n{}",
            query("up"),
            std::fs::read_to_string(dir.join("prometheus.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let up = query(&format!("up{{instance=\"{addr}\"}}"));
    assert_eq!(up[0]["value"][1], "1", "the scrape failed: {up:?}");
    let series = |name: &str| -> Vec<(Value, f64)> { query(&format!("{name}{{instance=\"{addr}\"}}")).into_iter().map(|r| (r["metric"].clone(), r["value"][1].as_str().unwrap().parse().unwrap())).collect() };
    let calls = series("cudart_shim_calls_total");
    let errors = series("cudart_shim_call_errors_total");
    let secs = series("cudart_shim_call_seconds_total");
    let step_count = series("cudart_shim_step_seconds_count");
    let mem = series("cudart_shim_memory_used_bytes");
    let info = series("cudart_shim_info");
    let err = run.finish();
    let s = summary(&dir);
    let (want_calls, want_errors) = summary_figures(&s);
    let pid = s["process"]["pid"].as_u64().unwrap().to_string();
    assert_eq!(calls.len(), want_calls.len(), "{calls:?}\n{err}");
    for (m, v) in &calls {
        let f = m["function"].as_str().unwrap();
        assert_eq!(Some(*v as u64), want_calls.get(f).map(|c| c.0), "calls of {f}");
        assert_eq!((m["layer"].as_str(), m["pid"].as_str()), (Some("runtime"), Some(pid.as_str())), "{m}");
        assert!(m["hostname"].as_str().is_some_and(|h| !h.is_empty()), "{m}");
    }
    for (m, v) in &secs {
        let want = want_calls[m["function"].as_str().unwrap()].1;
        assert!((v - want).abs() <= 1e-6 * want.max(1e-3), "{m}: {v} vs {want}");
    }
    let got_errors: Errors = errors.iter().map(|(m, v)| ((m["function"].as_str().unwrap().to_owned(), m["error"].as_str().unwrap().to_owned()), *v as u64)).collect();
    assert_eq!(got_errors, want_errors);
    assert_eq!(want_errors.get(&("cudaSetDevice".into(), "cudaErrorInvalidDevice".into())), Some(&STEPS));
    assert_eq!(want_calls["cudaMalloc"].0, STEPS);
    assert_eq!(step_count.len(), 1);
    assert_eq!(step_count[0].1 as u64, STEPS, "one histogram observation per step");
    // The program's own allocations: 1 MiB per step, kept.
    let own = mem.iter().find(|(m, _)| m["library"] == "metrics_app" && m["kind"] == "device").unwrap_or_else(|| panic!("{mem:?}"));
    assert_eq!((own.1 as u64, own.0["device"].as_str()), (STEPS << 20, Some("0")));
    assert!(own.0["gpu_uuid"].as_str().is_some_and(|u| u.starts_with("GPU-") && u.len() == 40), "{:?}", own.0);
    assert_eq!(info.len(), 1);
}

/// `promtool check metrics` passes on the endpoint's text and on the
/// textfile, and the final textfile's counters equal the exit summary.
#[test]
fn promtool_passes_the_textfile_and_the_endpoint_and_the_textfile_ends_equal_to_the_summary() {
    require("promtool");
    let dir = scratch("metrics_promtool");
    let file = dir.join("m.prom");
    let mut run = start(&dir, STEPS, 0, &[], &metrics_env(Some("127.0.0.1:0"), Some(&file)));
    let addr = run.address();
    run.done();
    let (head, body) = get(addr, "/metrics", None);
    // No progress series: the metrics never switch the progress state on
    // (the watchdog does; its cost per call is past the metrics' budget).
    assert!(!body.contains("last_progress") && !body.contains("nccl_ops"), "{body}");
    assert!(head.starts_with("HTTP/1.1 200") && head.contains("text/plain; version=0.0.4"), "{head}");
    std::fs::write(dir.join("endpoint.prom"), &body).unwrap();
    promtool_check(&dir.join("endpoint.prom"));
    let (head, om) = get(addr, "/metrics", Some("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"));
    assert!(head.contains("application/openmetrics-text") && om.ends_with("# EOF\n"), "{head}\n{om}");
    // The periodic file, written at start, is whole and passes too.
    promtool_check(&file);
    run.finish();
    let text = std::fs::read_to_string(&file).unwrap();
    promtool_check(&file);
    assert_counters_equal_summary(&text, &summary(&dir));
    // The endpoint's counters after the last call equal the summary too.
    assert_counters_equal_summary(&body, &summary(&dir));
    assert!(!std::fs::read_dir(&dir).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp")), "a temporary file was left");
}

/// A reader looping on the textfile while it is rewritten every 100 ms
/// never sees half a file.
#[test]
fn the_textfile_is_never_seen_half_written() {
    let dir = scratch("metrics_atomic");
    let file = dir.join("m.prom");
    let mut env = metrics_env(None, Some(&file));
    env.push(("CUDART_SHIM_METRICS_INTERVAL", "0.1".into()));
    let run = start(&dir, 40, 25, &[], &env);
    let (mut reads, mut versions) = (0, std::collections::HashSet::new());
    let deadline = Instant::now() + Duration::from_secs(60);
    while !run.out.lock().unwrap().contains("DONE") {
        assert!(Instant::now() < deadline, "the program did not finish");
        let Ok(t) = std::fs::read_to_string(&file) else { continue };
        reads += 1;
        assert!(t.ends_with('\n') && t.contains("# TYPE cudart_shim_info gauge\ncudart_shim_info{"), "a partial file ({} bytes):\n{t}", t.len());
        assert_eq!(t.matches("# HELP").count(), t.matches("# TYPE").count());
        versions.insert(t);
    }
    run.finish();
    assert!(reads > 50 && versions.len() > 3, "{reads} reads, {} versions", versions.len());
}

/// Two ranks on one host: each listens on PORT + LOCAL_RANK, prints its
/// address once, and labels its series with its rank.
#[test]
fn each_rank_listens_on_port_plus_local_rank() {
    let base = free_port(true);
    let mut runs: Vec<Running> = (0..2)
        .map(|r| {
            let dir = scratch(&format!("metrics_rank{r}"));
            let mut env = metrics_env(Some(&base.to_string()), None);
            env.extend([("RANK", r.to_string()), ("LOCAL_RANK", r.to_string()), ("WORLD_SIZE", "2".into())]);
            start(&dir, 2, 0, &[], &env)
        })
        .collect();
    for (r, run) in runs.iter_mut().enumerate() {
        let a = run.address();
        assert_eq!(a, SocketAddr::from(([127, 0, 0, 1], base + r as u16)));
        assert!(run.err.lock().unwrap().contains(&format!("(rank {r}, pid ")));
        run.done();
        let (_, body) = get(a, "/metrics", None);
        let calls: Vec<_> = samples(&body).into_iter().filter(|x| x.0 == "cudart_shim_calls_total").collect();
        assert!(!calls.is_empty());
        for (_, l, _) in calls {
            assert_eq!((l["rank"].as_str(), l["local_rank"].as_str(), l["world_size"].as_str()), (&*r.to_string(), &*r.to_string(), "2"));
        }
    }
    for run in runs {
        run.finish();
    }
}

/// A port in use: one warning, no endpoint, the program runs to its end.
#[test]
fn a_busy_port_is_one_warning_and_the_program_runs_on() {
    let dir = scratch("metrics_busy");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let mut run = start(&dir, 2, 0, &[], &metrics_env(Some(&format!("127.0.0.1:{port}")), None));
    run.done();
    let err = run.finish();
    assert_eq!(err.matches("warn").count(), 1, "{err}");
    assert!(err.contains(&format!("cannot listen on 127.0.0.1:{port} (the port is in use)")) && !err.contains("metrics at"), "{err}");
    assert_eq!(summary_figures(&summary(&dir)).0["cudaMalloc"].0, 2);
}

/// Garbage requests get a 400 and the connection closed; the endpoint
/// keeps serving.
#[test]
fn malformed_requests_get_400_and_the_connection_closed() {
    let dir = scratch("metrics_malformed");
    let mut run = start(&dir, 1, 0, &[], &metrics_env(Some("127.0.0.1:0"), None));
    let addr = run.address();
    run.done();
    for bad in [&b"hello\r\n\r\n"[..], b"GET /metrics\r\n\r\n", b"GET /metrics HTTP/9.9\r\n\r\n", b"GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n", &[b'A'; 9000][..]] {
        let r = http(addr, bad);
        assert!(r.starts_with("HTTP/1.1 400 Bad Request\r\n") && r.contains("Connection: close"), "{:?} -> {r:?}", String::from_utf8_lossy(&bad[..bad.len().min(40)]));
    }
    // A client that sends half a request and stops: closed by the timeout.
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /met").unwrap();
    let mut r = String::new();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.read_to_string(&mut r).unwrap();
    assert!(r.starts_with("HTTP/1.1 400"), "{r}");
    assert!(get(addr, "/nothing", None).0.starts_with("HTTP/1.1 404"));
    assert!(http(addr, b"DELETE /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
    assert!(get(addr, "/metrics", None).0.starts_with("HTTP/1.1 200"));
    run.finish();
}

/// A forked child starts nothing and closes the inherited socket; the
/// parent keeps serving, and both end normally.
#[test]
fn a_forked_child_starts_nothing_and_the_parent_serves_on() {
    let dir = scratch("metrics_fork");
    let file = dir.join("m.prom");
    let mut run = start(&dir, 2, 0, &["fork"], &metrics_env(Some("127.0.0.1:0"), Some(&file)));
    let addr = run.address();
    run.done();
    let (head, body) = get(addr, "/metrics", None);
    assert!(head.starts_with("HTTP/1.1 200") && body.contains("cudart_shim_calls_total"), "{head}");
    let err = run.finish();
    assert_eq!(err.matches("metrics at").count(), 1, "{err}");
    assert_counters_equal_summary(&std::fs::read_to_string(&file).unwrap(), &summary(&dir));
}

/// Bad values: from the command, exit 2 with a message; from a variable,
/// one warning, no metrics, and the program runs on.
#[test]
fn bad_values_exit_2_from_the_command_and_warn_from_a_variable() {
    for (opt, val) in [("--metrics-listen", "localhost:x"), ("--metrics-listen", "70000"), ("--metrics-interval", "0"), ("--metrics", "")] {
        let mut c = cli_on_fake();
        c.arg("trace").arg(format!("{opt}={val}"));
        if opt == "--metrics-interval" {
            c.arg("--metrics=x.prom");
        }
        let o = c.args(["--", "true"]).output().unwrap();
        let (_, err) = output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{opt}={val}: {err}");
        assert!(err.contains(opt) && err.contains("accepted"), "{opt}={val}: {err}");
    }
    let dir = scratch("metrics_badvar");
    let run = start(&dir, 1, 0, &[], &[("CUDART_SHIM_METRICS_LISTEN", "nowhere:1".into()), ("CUDART_SHIM_METRICS_FILE", dir.join("m.prom").display().to_string())]);
    let err = run.finish();
    assert_eq!(err.matches("CUDART_SHIM_METRICS_LISTEN").count(), 1, "{err}");
    assert!(err.contains("no metrics") && !err.contains("metrics at") && !dir.join("m.prom").exists(), "{err}");
    assert_eq!(summary_figures(&summary(&dir)).0["cudaMalloc"].0, 1);
}

/// torchrun's shape (tests/c/coexist.c `launcher quiet`): a launcher with
/// no rank that only registers kernels and counts the devices (setup
/// calls, not work: torch's launcher made them on the GPU and took rank
/// 0's port) takes no port and writes no textfile; its two ranks take
/// PORT and PORT + 1, each printing its address once, and write a
/// textfile each.
#[test]
fn a_launcher_that_only_registers_takes_no_port() {
    let dir = scratch("metrics_launcher");
    let exe = compile_c_shim(&repo_root().join("tests/c/coexist.c"), &dir.join("coexist"), &[]);
    let base = free_port(true);
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "prom") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let file = dir.join("m.prom");
    let o = cli_on_fake()
        .env("LD_LIBRARY_PATH", target_dir())
        .arg("trace")
        .arg(format!("--metrics-listen={base}"))
        .arg(format!("--metrics={}", file.display()))
        .arg("--")
        .arg(exe)
        .args(["launcher", "quiet"])
        .output()
        .unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let mut lines: Vec<&str> = err.lines().filter(|l| l.contains("metrics at http://")).collect();
    lines.sort();
    assert_eq!(lines.len(), 2, "{err}");
    for (r, l) in lines.iter().enumerate() {
        assert!(l.starts_with(&format!("cudart-shim: metrics at http://127.0.0.1:{}/metrics (rank {r}, pid ", base + r as u16)), "{l}");
    }
    assert!(!err.contains("in use"), "{err}");
    // One textfile per rank: the second process of the run to claim the
    // name writes m.<pid>.prom (the trace files' rule), with a warning.
    let mut ranks: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "prom"))
        .map(|p| {
            let s = samples(&std::fs::read_to_string(&p).unwrap());
            s.iter().find(|x| x.0 == "cudart_shim_info").map(|x| x.1.get("rank").cloned().unwrap_or_default()).unwrap()
        })
        .collect();
    ranks.sort();
    assert_eq!(ranks, ["0", "1"], "{err}");
    assert_eq!(err.matches("is already written by another process of this run").count(), 1, "{err}");
}
