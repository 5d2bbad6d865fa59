//! Fuzz the fatbinary container parser: any bytes give a parse or an
//! error, never a panic, and what parses is self-consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;

// The parser has no dependency on the rest of the crate, so it is compiled
// here as is (the fake driver includes it the same way).
#[path = "../../src/fatbin.rs"]
#[allow(dead_code)]
mod fatbin;

fuzz_target!(|data: &[u8]| {
    if let Ok(c) = fatbin::parse(data) {
        assert!(c.total_size as usize <= data.len());
        let mut covered = fatbin::CONTAINER_HEADER_SIZE;
        for e in &c.entries {
            covered += e.payload.len();
            let _ = e.ptx_text();
            let _ = e.to_string();
        }
        assert!(covered <= data.len());
        let _ = c.summary();
        let _ = c.runs_on(90);
    }
    if data.len() >= fatbin::CONTAINER_HEADER_SIZE {
        let _ = fatbin::container_size(data);
    }
});
