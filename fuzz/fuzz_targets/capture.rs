//! Fuzz the capture-window options (`CUDART_SHIM_CAPTURE_RANGE`,
//! `_CAPTURE_RANGE_END`, `CUDART_SHIM_NVTX_CAPTURE`, `CUDART_SHIM_DELAY`,
//! `_DURATION`, `_CAPTURE_SIGNAL`; src/config.rs `parse_capture`): the six
//! values split from the input at NUL bytes (a field that is not UTF-8, or
//! past the end, leaves its variable unset). No panic; deterministic; a
//! warning only about a variable that is set; at least one window (unless `repeat:0`, no limit); finite,
//! non-negative seconds; an NVTX rule only with `CAPTURE_RANGE=nvtx` and a
//! name from the variable.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../src/config.rs"]
#[allow(dead_code)]
mod config;

const VARS: [&str; 6] = [
    "CUDART_SHIM_CAPTURE_RANGE",
    "CUDART_SHIM_CAPTURE_RANGE_END",
    "CUDART_SHIM_NVTX_CAPTURE",
    "CUDART_SHIM_DELAY",
    "CUDART_SHIM_DURATION",
    "CUDART_SHIM_CAPTURE_SIGNAL",
];

fuzz_target!(|data: &[u8]| {
    let fields: Vec<Option<String>> = data.split(|&b| b == 0).map(|f| std::str::from_utf8(f).ok().map(str::to_owned)).collect();
    let get = |name: &str| VARS.iter().position(|v| *v == name).and_then(|i| fields.get(i).cloned().flatten());
    let mut w1 = Vec::new();
    let c = config::parse_capture(&get, &mut w1);
    let mut w2 = Vec::new();
    assert_eq!(c, config::parse_capture(&get, &mut w2));
    assert_eq!(w1, w2);
    for w in &w1 {
        assert!(VARS.iter().any(|v| w.contains(v) && get(v).is_some()), "warning about an unset variable: {w}");
    }
    // 0 windows only from `repeat:0` (no limit).
    assert!(c.windows >= 1 || get("CUDART_SHIM_CAPTURE_RANGE_END").is_some_and(|v| v.trim().strip_prefix("repeat:").and_then(|n| n.parse::<u32>().ok()) == Some(0)));
    for s in [c.delay_s, c.duration_s].into_iter().flatten() {
        assert!(s.is_finite() && s >= 0.0, "{s}");
    }
    if let Some((name, domain)) = &c.nvtx {
        assert!(get("CUDART_SHIM_CAPTURE_RANGE").is_some_and(|v| v.trim().eq_ignore_ascii_case("nvtx")));
        let v = get("CUDART_SHIM_NVTX_CAPTURE").unwrap_or_default();
        assert!(!name.is_empty() && v.contains(name.as_str()), "{name:?} from {v:?}");
        assert!(domain.as_ref().is_none_or(|d| v.contains(d.as_str())), "{domain:?} from {v:?}");
    }
});
