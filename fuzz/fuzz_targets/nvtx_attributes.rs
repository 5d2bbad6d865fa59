//! Fuzz the NVTX event attributes a program hands us
//! (`nvtxEventAttributes_t`: wrong sizes, NULL and unterminated-looking
//! strings, unknown message, color and payload types): the decoder's
//! checks are `trace::nvtx::fuzzing::one_input` (built with `--cfg fuzzing`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cudart_shim::trace::nvtx::fuzzing::one_input(data));
