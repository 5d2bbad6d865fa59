//! The `/metrics` endpoint: one thread of ours, a blocking `TcpListener`,
//! one connection at a time, one request per connection (`Connection:
//! close`). No async runtime and no pool inside someone else's process.
//!
//! The request parser is strict and small: a request line `METHOD SP
//! TARGET SP HTTP/1.0|1.1`, header lines `Name: value` (a token name),
//! an empty line, all within 8 KiB and 2 s. `GET` (or `HEAD`) of
//! `/metrics` is answered in Prometheus' text format, or in OpenMetrics
//! when the `Accept` header asks for `application/openmetrics-text` (as
//! Prometheus does); another path is 404, another method 405, and
//! anything else (garbage, a line without its parts, a header without a
//! colon, binary bytes, too long, too slow) 400, after which the
//! connection is closed.
//!
//! The bound address is printed once on stderr. A port in use is one
//! warning; the program runs on without the endpoint.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicI32, Ordering::Relaxed};
use std::time::Duration;

/// The listening socket's descriptor (-1: none), closed in a forked child.
static LISTEN_FD: AtomicI32 = AtomicI32::new(-1);

const MAX_REQUEST: usize = 8 << 10;
const TIMEOUT: Duration = Duration::from_secs(2);

/// Bind `addr` and serve it from a thread of ours.
pub fn start(addr: SocketAddr) {
    let listener = match TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            let why = if e.kind() == std::io::ErrorKind::AddrInUse { "the port is in use".to_owned() } else { e.to_string() };
            log::warn!("metrics: cannot listen on {addr} ({why}); no metrics endpoint, the program runs on");
            return;
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    LISTEN_FD.store(listener.as_raw_fd(), Relaxed);
    let spawned = std::thread::Builder::new().name("cudart-shim-metrics-http".into()).spawn(move || serve(listener));
    match spawned {
        Ok(_) => {
            let p = crate::config::process_identity(crate::config::env_var, std::process::id());
            let who = p.rank.map_or_else(|| format!("pid {}", p.pid), |r| format!("rank {r}, pid {}", p.pid));
            let line = format!("cudart-shim: metrics at http://{local}/metrics ({who})\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
        Err(e) => {
            LISTEN_FD.store(-1, Relaxed);
            log::warn!("metrics: cannot start the endpoint's thread ({e}); no metrics endpoint");
        }
    }
}

fn serve(listener: TcpListener) {
    for conn in listener.incoming() {
        let Ok(stream) = conn else { continue };
        // A panic in one answer never ends the endpoint, nor crosses
        // into the program.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer(stream)));
    }
}

/// What a request asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    Metrics { open_metrics: bool, head: bool },
    NotFound,
    MethodNotAllowed,
    Bad,
}

fn answer(mut stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(TIMEOUT));
    let _ = stream.set_write_timeout(Some(TIMEOUT));
    let req = read_request(&mut stream).map_or(Request::Bad, |head| parse(&head));
    let (status, ctype, body, head) = match req {
        Request::Metrics { open_metrics, head } => {
            let ctype = if open_metrics { "application/openmetrics-text; version=1.0.0; charset=utf-8" } else { "text/plain; version=0.0.4; charset=utf-8" };
            ("200 OK", ctype, super::render(open_metrics), head)
        }
        Request::NotFound => ("404 Not Found", "text/plain; charset=utf-8", "not found: the metrics are at /metrics\n".to_owned(), false),
        Request::MethodNotAllowed => ("405 Method Not Allowed", "text/plain; charset=utf-8", "only GET /metrics\n".to_owned(), false),
        Request::Bad => ("400 Bad Request", "text/plain; charset=utf-8", "bad request\n".to_owned(), false),
    };
    let mut out = format!("HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    if status.starts_with("405") {
        out.push_str("Allow: GET, HEAD\r\n");
    }
    out.push_str("\r\n");
    if !head {
        out.push_str(&body);
    }
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// The request's head (up to and without the empty line). None: closed,
/// too slow, too long.
fn read_request(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = find_end(&buf) {
            buf.truncate(end);
            return Some(buf);
        }
        if buf.len() >= MAX_REQUEST {
            return None;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Where the head ends: the first empty line (`\r\n\r\n`, or `\n\n`).
fn find_end(b: &[u8]) -> Option<usize> {
    let crlf = b.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = b.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Judge a request head (strictly; see the module note).
pub fn parse(head: &[u8]) -> Request {
    let Ok(text) = std::str::from_utf8(head) else { return Request::Bad };
    if text.bytes().any(|b| b.is_ascii_control() && b != b'\r' && b != b'\n' && b != b'\t') {
        return Request::Bad;
    }
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let Some(first) = lines.next() else { return Request::Bad };
    let parts: Vec<&str> = first.split(' ').collect();
    let [method, target, version] = parts[..] else { return Request::Bad };
    if !is_token(method) || !matches!(version, "HTTP/1.0" | "HTTP/1.1") || !target.starts_with('/') {
        return Request::Bad;
    }
    let mut open_metrics = false;
    // (The head ends at the first empty line: an empty one here is its end.)
    for l in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = l.split_once(':') else { return Request::Bad };
        if !is_token(name) {
            return Request::Bad;
        }
        if name.eq_ignore_ascii_case("accept") && value.contains("application/openmetrics-text") {
            open_metrics = true;
        }
    }
    let path = target.split('?').next().unwrap_or(target);
    match (method, path) {
        ("GET" | "HEAD", "/metrics") => Request::Metrics { open_metrics, head: method == "HEAD" },
        ("GET" | "HEAD", _) => Request::NotFound,
        _ => Request::MethodNotAllowed,
    }
}

/// A forked child: close the inherited listening socket (the port stays
/// its parent's; the child has no thread serving it).
pub fn in_forked_child() {
    let fd = LISTEN_FD.swap(-1, Relaxed);
    if fd >= 0 {
        // SAFETY: our listening socket, inherited; nothing in the child uses it.
        unsafe { libc::close(fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        assert_eq!(parse(b"GET /metrics HTTP/1.1\r\nHost: x\r\n"), Request::Metrics { open_metrics: false, head: false });
        let prom = b"GET /metrics?x=1 HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n";
        assert_eq!(parse(prom), Request::Metrics { open_metrics: true, head: false });
        assert_eq!(parse(b"HEAD /metrics HTTP/1.0"), Request::Metrics { open_metrics: false, head: true });
        assert_eq!(parse(b"GET / HTTP/1.1"), Request::NotFound);
        assert_eq!(parse(b"POST /metrics HTTP/1.1"), Request::MethodNotAllowed);
        for bad in [
            &b"hello"[..],
            b"GET /metrics",
            b"GET  /metrics HTTP/1.1",
            b"GET /metrics HTTP/2.0",
            b"GET metrics HTTP/1.1",
            b"GET /metrics HTTP/1.1\r\nno colon here",
            b"GET /metrics HTTP/1.1\r\nBad Name: x",
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
            b"G\0T /metrics HTTP/1.1",
            b"",
        ] {
            assert_eq!(parse(bad), Request::Bad, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn the_head_ends_at_the_first_empty_line() {
        assert_eq!(find_end(b"GET / HTTP/1.1\r\nA: b\r\n\r\nbody"), Some(20));
        assert_eq!(find_end(b"GET / HTTP/1.1\n\n"), Some(14));
        assert_eq!(find_end(b"GET / HTTP/1.1\r\n"), None);
    }
}
