//! Runtime semantics of the library area.
