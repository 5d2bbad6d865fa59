//! The one grammar of the capture-window values that name something
//! (`CUDART_SHIM_NVTX_CAPTURE` / `trace --nvtx-capture`,
//! `CUDART_SHIM_CAPTURE_RANGE_END` / `--capture-range-end`), read by the
//! library and checked by the command before the program starts: the
//! command refuses exactly what the library would warn about and ignore.
//! Error messages say what was given and what is accepted; the caller adds
//! the option or variable's name.

/// `NAME[@DOMAIN]`: the NVTX range that is a capture window, as (message,
/// domain; none: the default domain). The domain is what follows the last
/// `@` when that is not empty (`a@b@` is the range `a@b@` of the default
/// domain). A domain alone (`@torch`) names no range: refused (fuzz/capture
/// found `@ 0.5` taken as a window opened by a range with no name).
pub fn nvtx_range(v: &str) -> Result<(String, Option<String>), String> {
    let n = v.trim();
    let rule = match n.rsplit_once('@') {
        Some((name, dom)) if !dom.is_empty() => (name.to_owned(), Some(dom.to_owned())),
        _ => (n.to_owned(), None),
    };
    if rule.0.trim().is_empty() {
        return Err(format!("{n:?} names no range (NAME[@DOMAIN])"));
    }
    Ok(rule)
}

/// `stop` (one window, the default) or `repeat:N` (N windows, 0 = no
/// limit): how many windows the capture range opens.
pub fn range_end(v: &str) -> Result<u32, String> {
    match v.trim() {
        "" | "stop" => Ok(1),
        t => t
            .strip_prefix("repeat:")
            .and_then(|n| n.parse::<u32>().ok())
            .ok_or_else(|| format!("{t:?}; accepted: stop (one window, the default) or repeat:N (N windows, 0 = no limit)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvtx_ranges_and_domains() {
        assert_eq!(nvtx_range("step"), Ok(("step".into(), None)));
        assert_eq!(nvtx_range(" step@torch "), Ok(("step".into(), Some("torch".into()))));
        assert_eq!(nvtx_range("step@my lib"), Ok(("step".into(), Some("my lib".into()))));
        assert_eq!(nvtx_range("a@b@"), Ok(("a@b@".into(), None)));
        assert_eq!(nvtx_range(" @"), Ok(("@".into(), None)), "a trailing @ is part of the name");
        for bad in ["@torch", "@ 0.5", " @x", "", "  "] {
            let e = nvtx_range(bad).unwrap_err();
            assert!(e.ends_with("names no range (NAME[@DOMAIN])"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn range_ends() {
        assert_eq!(range_end("stop"), Ok(1));
        assert_eq!(range_end(""), Ok(1));
        assert_eq!(range_end("repeat:3"), Ok(3));
        assert_eq!(range_end("repeat:0"), Ok(0));
        for bad in ["repeat:x", "repeat:", "again", "repeat:-1"] {
            assert!(range_end(bad).unwrap_err().contains("repeat:N"), "{bad:?}");
        }
    }
}
