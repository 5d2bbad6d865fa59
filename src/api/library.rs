//! Exports of the library area.

#[allow(unused_imports)]
use crate::runtime;
#[allow(unused_imports)]
use crate::types::*;
