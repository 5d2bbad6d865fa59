//! Fuzz the flight recorder's dump decoder: calls with any function id,
//! result, times and typed arguments, kept in a ring and decoded into call
//! log lines and timeline events (`trace::recorder::dump::fuzzing::one_input`,
//! built with `--cfg fuzzing`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cudart_shim::trace::recorder::dump::fuzzing::one_input(data));
