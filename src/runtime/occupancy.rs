//! Runtime semantics of the occupancy area.
