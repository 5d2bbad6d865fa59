//! What the cudart-shim library writes and the `cudart-shim` command reads,
//! in one place so that both sides agree: the summary table ([`table`]), the
//! GPU activity tables ([`gpu_table`]) and the record of the process that
//! wrote a trace file ([`process`]), Perfetto's protobuf trace format
//! ([`perfetto`]), and the one grammar of the sizes both read ([`size`])
//! and of the capture-window values ([`capture`]).
//!
//! A crate of its own (std, serde_json and prost only) so the command uses
//! it without linking the runtime.

pub mod capture;
pub mod gpu_table;
pub mod hang;
pub mod kineto;
pub mod memory;
pub mod metrics;
pub mod perfetto;
pub mod nvtx_table;
pub mod process;
pub mod size;
pub mod table;
pub mod text;
