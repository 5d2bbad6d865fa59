//! Exports of the graph area.

#[allow(unused_imports)]
use crate::runtime;
#[allow(unused_imports)]
use crate::types::*;
