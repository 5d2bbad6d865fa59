//! Fuzz the fault spec (`CUDART_SHIM_FAULTS`, `--fault`; src/control/faults.rs):
//! any text parses to specs or to one message, never a panic; parsing is
//! deterministic; every spec parsed re-parses alone from its own text, and
//! a message names the spec it refuses.
#![no_main]

use cudart_shim::control::faults::{parse, parse_one};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let a = parse(text);
    let b = parse(text);
    assert_eq!(a.is_ok(), b.is_ok());
    match a {
        Ok(specs) => {
            assert_eq!(specs.len(), text.split(';').filter(|s| !s.trim().is_empty()).count());
            for s in &specs {
                let again = parse_one(&s.text).expect("a parsed spec parses again");
                assert_eq!((&again.glob, again.nth, again.every, again.count, again.sticky), (&s.glob, s.nth, s.every, s.count, s.sticky));
                assert!(s.p.is_none_or(|p| (0.0..=1.0).contains(&p)), "{:?}", s.p);
                assert!(s.after.is_none_or(|t| t.is_finite() && t >= 0.0), "{:?}", s.after);
            }
        }
        Err(m) => assert!(m.starts_with("bad fault spec"), "{m}"),
    }
});
