//! Runtime semantics of the launch area.
