//! cudart-shim's own C API (trace control, counters, subscribers), declared
//! in `include/cudart_shim.h` next to the CUDA runtime API.
