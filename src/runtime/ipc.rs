//! Runtime semantics of the ipc area.
