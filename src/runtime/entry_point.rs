//! Runtime semantics of the entry_point area.
