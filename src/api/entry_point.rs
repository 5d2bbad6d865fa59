//! Exports of the entry_point area.

#[allow(unused_imports)]
use crate::runtime;
#[allow(unused_imports)]
use crate::types::*;
