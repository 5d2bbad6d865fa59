//! Runtime semantics of the memory area.
