//! What the cudart-shim library writes and the `cudart-shim` command reads,
//! in one place so that both sides agree: the summary table ([`table`]), the
//! GPU activity tables ([`gpu_table`]) and the record of the process that
//! wrote a trace file ([`process`]).
//!
//! A crate of its own (std and serde_json only) so the command uses it
//! without linking the runtime.

pub mod gpu_table;
pub mod nvtx_table;
pub mod process;
pub mod table;
