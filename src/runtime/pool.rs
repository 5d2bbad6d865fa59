//! Runtime semantics of the pool area.
