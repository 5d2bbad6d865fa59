//! Runtime semantics of the stream area.
