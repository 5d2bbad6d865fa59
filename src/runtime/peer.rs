//! Runtime semantics of the peer area.
