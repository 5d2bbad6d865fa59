//! Driver entry points of the misc area. Add entries with the CUDA 13.0
//! signature of the plain name.

#[allow(unused_imports)]
use super::table::driver_table;
#[allow(unused_imports)]
use super::types::*;

driver_table! {}
