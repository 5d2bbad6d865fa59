//! Fuzz the environment configuration parser (`src/config.rs`): arbitrary
//! values of every `CUDART_SHIM_*` variable (and `RANK`/`LOCAL_RANK`), a pid
//! and a function name, split from the input at NUL bytes. Parsing never
//! panics; trace file names are the user's templates with only digits
//! expanded into them (no value adds a directory, `.` or `..`); the filter
//! decides like a reference glob matcher. The checks are
//! `config::fuzzing::one_input`, which a unit test also runs over the
//! committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

// Compiled here as is, like the fatbin parser: it needs only env_logger
// and log from the rest of the crate's dependencies.
#[path = "../../src/config.rs"]
#[allow(dead_code)]
mod config;

fuzz_target!(|data: &[u8]| config::fuzzing::one_input(data));
