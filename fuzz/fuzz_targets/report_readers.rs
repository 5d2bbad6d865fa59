//! Fuzz the readers `cudart-shim report` uses on a file (cli/src/report.rs
//! `read`): Perfetto's protobuf (`trace_format::perfetto::packets`, then
//! `to_chrome`) and JSON (the summary, GPU, NVTX, memory and process
//! readers of trace-format). Any bytes: a reading or an error, no panic;
//! protobuf packets that read are written back to the same packets; the
//! Chrome events from protobuf read back through `from_chrome`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trace_format::{gpu_table, memory, nvtx_table, perfetto, process, table};

fuzz_target!(|data: &[u8]| {
    if perfetto::looks_like_protobuf(data)
        && let Ok(packets) = perfetto::packets(data)
    {
        let mut again = Vec::new();
        for p in &packets {
            perfetto::put_packet(p, &mut again);
        }
        assert_eq!(perfetto::packets(&again).map(|p| p.len()), Ok(packets.len()));
        let events = perfetto::to_chrome(&packets);
        let _ = perfetto::from_chrome(&events);
    }
    if let Ok(j) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = table::Summary::from_json(&j);
        let _ = gpu_table::GpuSummary::from_json(&j);
        let _ = nvtx_table::NvtxSummary::from_json(&j);
        let _ = nvtx_table::NvtxGpuProj::from_json(&j);
        let _ = memory::Report::from_json(&j);
        let _ = process::Process::from_json(&j["otherData"]["process"]);
        if let Some(events) = j.get("traceEvents").and_then(|e| e.as_array()) {
            let _ = perfetto::from_chrome(events);
        }
    }
});
