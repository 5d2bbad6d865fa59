//! Runtime semantics of the external area.
