//! Fake driver: the misc area.

/// Entry points this module provides, by the name cuGetProcAddress is asked.
pub static SYMBOLS: crate::Symbols = &[];
