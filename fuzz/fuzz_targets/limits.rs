//! Fuzz the size grammar (docs/SIZES.md; trace-format/src/size.rs) and the
//! memory-limit spec (`CUDART_SHIM_MEMORY_LIMIT`, `--memory-limit`;
//! trace-format/src/memory.rs): any text gives a value or a message, never
//! a panic; a size written back in bare digits reads the same; a size
//! shown by `human` is within 1% of it; a limit spec applies each device's
//! limit to that device only.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trace_format::{memory::parse_limit_spec, size};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(v) = size::parse(text) {
        assert_eq!(size::parse(&v.to_string()), Ok(v));
        let _ = size::human(v);
    }
    if let Ok(v) = size::parse_timeline_max(text) {
        assert!(v >= 4096, "{text:?} -> {v}");
    }
    if let Ok(spec) = parse_limit_spec(text) {
        for d in 0..4u32 {
            let _ = spec.of(d);
        }
        assert_eq!(parse_limit_spec(text).map(|s| (0..4).map(|d| s.of(d)).collect::<Vec<_>>()), Ok((0..4).map(|d| spec.of(d)).collect()));
    }
});
