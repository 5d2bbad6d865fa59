//! Runtime semantics of the logs area.
