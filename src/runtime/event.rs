//! Runtime semantics of the event area.
