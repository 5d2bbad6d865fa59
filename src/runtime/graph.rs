//! Runtime semantics of the graph area.
