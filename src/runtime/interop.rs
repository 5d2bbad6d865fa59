//! Runtime semantics of the interop area.
