//! The grammar of the metrics options, shared by the library (its
//! variables: one warning and no metrics when not understood) and the
//! `cudart-shim` command (its options: exit 2 with the message).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// What `--metrics-listen` / `CUDART_SHIM_METRICS_LISTEN` accepts.
pub const LISTEN_FORMS: &str = "PORT, :PORT, ADDR:PORT or [IPV6]:PORT (ADDR a numeric address; loopback when none is given; PORT from 0 to 65535, 0: any free port)";

/// The address to listen on for `value` and this process's `LOCAL_RANK`:
/// loopback (127.0.0.1) unless an address is given; the port is PORT +
/// LOCAL_RANK, so the ranks of a host each take their own (a port of 0
/// stays 0: the system picks a free one for each).
pub fn parse_listen(value: &str, local_rank: Option<u32>) -> Result<SocketAddr, String> {
    let v = value.trim();
    let bad = |why: &str| format!("{value:?}: {why}; accepted: {LISTEN_FORMS}");
    if v.is_empty() {
        return Err(bad("empty"));
    }
    let (addr, port) = match v.rsplit_once(':') {
        None => (None, v),
        Some((a, p)) => {
            let a = a.trim();
            let a = a.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(a);
            if a.is_empty() {
                (None, p)
            } else {
                match a.parse::<IpAddr>() {
                    Ok(ip) => (Some(ip), p),
                    Err(_) => return Err(bad(&format!("{a:?} is not a numeric IP address"))),
                }
            }
        }
    };
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) || port.len() > 5 {
        return Err(bad(&format!("{port:?} is not a port number")));
    }
    let base: u32 = port.parse().map_err(|_| bad("not a port number"))?;
    let port = if base == 0 { 0 } else { base + local_rank.unwrap_or(0) };
    if port > 65535 {
        return Err(bad(&format!("port {base} + LOCAL_RANK {} is past 65535", local_rank.unwrap_or(0))));
    }
    Ok(SocketAddr::new(addr.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST)), port as u16))
}

/// What `--metrics-interval` / `CUDART_SHIM_METRICS_INTERVAL` accepts.
pub const INTERVAL_FORMS: &str = "a number of seconds from 0.1 to 86400 (default 10)";

/// The textfile's rewrite period in seconds.
pub fn parse_interval(value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(s) if (0.1..=86400.0).contains(&s) => Ok(s),
        _ => Err(format!("{value:?}: accepted: {INTERVAL_FORMS}")),
    }
}

/// A textfile path: node_exporter's textfile collector reads `*.prom`
/// files only, and the rewrite needs a folder to put its temporary file
/// in: Err for an empty name, a name ending in `/`, or one with a NUL.
pub fn check_textfile(path: &str) -> Result<(), String> {
    if path.is_empty() || path.ends_with('/') || path.contains('\0') {
        return Err(format!("{path:?}: accepted: a file path (%p = pid, %r = rank), such as /var/lib/node_exporter/textfile/cudart-shim-%r.prom"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_forms() {
        assert_eq!(parse_listen("9400", None).unwrap().to_string(), "127.0.0.1:9400");
        assert_eq!(parse_listen(":9400", Some(3)).unwrap().to_string(), "127.0.0.1:9403");
        assert_eq!(parse_listen("0.0.0.0:9400", Some(1)).unwrap().to_string(), "0.0.0.0:9401");
        assert_eq!(parse_listen("[::1]:80", None).unwrap().to_string(), "[::1]:80");
        assert_eq!(parse_listen("0", Some(5)).unwrap().port(), 0);
        for bad in ["", "x", "host:1", "1.2.3.4:", "1.2.3.4:-1", "65536", "65535:x", "999999"] {
            let e = parse_listen(bad, None).unwrap_err();
            assert!(e.contains(&format!("{bad:?}")) && e.contains("accepted"), "{bad}: {e}");
        }
        assert!(parse_listen("65535", Some(1)).unwrap_err().contains("past 65535"));
    }

    #[test]
    fn interval_and_path() {
        assert_eq!(parse_interval(" 2.5 "), Ok(2.5));
        for bad in ["0", "-1", "x", "NaN", "1e9", ""] {
            assert!(parse_interval(bad).is_err(), "{bad}");
        }
        assert!(check_textfile("a/b.prom").is_ok());
        assert!(check_textfile("").is_err() && check_textfile("dir/").is_err());
    }
}
