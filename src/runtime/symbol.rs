//! Runtime semantics of device symbols (variables registered by nvcc code).
