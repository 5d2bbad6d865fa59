//! Exports of the memory area.

#[allow(unused_imports)]
use crate::runtime;
#[allow(unused_imports)]
use crate::types::*;
