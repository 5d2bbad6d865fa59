//! Exports of the ipc area.

#[allow(unused_imports)]
use crate::runtime;
#[allow(unused_imports)]
use crate::types::*;
