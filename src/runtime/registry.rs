//! Runtime semantics of the registry area.
