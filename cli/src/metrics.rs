//! The metrics options of `trace` (issue #36, docs/METRICS.md): judged
//! here with the library's own grammar (`trace_format::metrics`), so a bad
//! value exits 2 with a message before the program starts, and passed to
//! the library as its variables.

use clap::Args;

#[derive(Args)]
pub struct Metrics {
    /// Write Prometheus metrics to FILE (%p = pid, %r = rank) for
    /// node_exporter's textfile collector: rewritten every
    /// --metrics-interval seconds and at exit, each time whole (a
    /// temporary file renamed). CUDART_SHIM_METRICS_FILE.
    #[arg(long = "metrics", value_name = "FILE.prom", value_parser = textfile)]
    pub file: Option<String>,
    /// Seconds between rewrites of the --metrics file (default 10).
    /// CUDART_SHIM_METRICS_INTERVAL.
    #[arg(long = "metrics-interval", value_name = "SECONDS", value_parser = interval, requires = "file")]
    pub interval: Option<String>,
    /// Serve GET /metrics (Prometheus text; OpenMetrics when asked) on
    /// ADDR:PORT, loopback when only PORT (or :PORT) is given; each rank
    /// listens on PORT + LOCAL_RANK; the address is printed once.
    /// CUDART_SHIM_METRICS_LISTEN.
    #[arg(long = "metrics-listen", value_name = "ADDR:PORT", value_parser = listen)]
    pub listen: Option<String>,
}

fn textfile(v: &str) -> Result<String, String> {
    trace_format::metrics::check_textfile(v).map(|()| v.to_owned())
}

fn interval(v: &str) -> Result<String, String> {
    trace_format::metrics::parse_interval(v).map(|_| v.trim().to_owned())
}

fn listen(v: &str) -> Result<String, String> {
    trace_format::metrics::parse_listen(v, None).map(|_| v.trim().to_owned())
}

impl Metrics {
    /// The library's variables for these options.
    pub fn vars(&self) -> [(&'static str, Option<String>); 3] {
        [
            ("CUDART_SHIM_METRICS_FILE", self.file.clone()),
            ("CUDART_SHIM_METRICS_INTERVAL", self.interval.clone()),
            ("CUDART_SHIM_METRICS_LISTEN", self.listen.clone()),
        ]
    }
}
