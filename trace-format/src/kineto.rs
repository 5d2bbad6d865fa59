//! The PyTorch profiler's (Kineto's) form of a Chrome trace, as Holistic
//! Trace Analysis (HTA) reads it (docs/HTA.md): what the library's Kineto
//! writer and `cudart-shim report` agree on.
//!
//! The form differs from our Chrome JSON in its categories (`cuda_runtime`,
//! `cuda_driver`, `kernel`, `gpu_memcpy`, `gpu_memset`, `cuda_sync`,
//! `user_annotation`, `ac2g` flows, `[memory]` instants), in its GPU rows
//! (process = device, thread = CUPTI stream id, every GPU row carries
//! `stream` >= 0 and `correlation`; host rows carry no `stream`), and in
//! the argument names HTA reads (`correlation`, `External id`, `bytes`,
//! `memory bandwidth (GB/s)`, `wait_on_stream`, ...). A call's own argument
//! whose name is one of those is written as `NAME (call)`, so that a call's
//! `stream` handle is never read as a GPU stream.
//!
//! [`to_chrome`] reads the form back into our Chrome events (what `report`
//! computes its tables from); [`from_chrome`] writes our Chrome events in
//! the form (`report --merge OUT.kineto.json`).

use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Argument names HTA reads from an event's `args` (hta/configs/
/// default_event_args.py): a call's own argument of one of these names is
/// renamed ([`call_arg_name`]).
pub const RESERVED: &[&str] = &[
    "stream",
    "correlation",
    "device",
    "context",
    "External id",
    "bytes",
    "memory bandwidth (GB/s)",
    "wait_on_stream",
    "wait_on_cuda_event_record_corr_id",
    "cbid",
    "queued",
    "grid",
    "block",
    "shared memory",
    "registers per thread",
];

/// Suffix of a renamed call argument.
pub const CALL_ARG: &str = " (call)";

/// The name a call's own argument gets in the Kineto form.
pub fn call_arg_name(name: &str) -> std::borrow::Cow<'_, str> {
    if RESERVED.contains(&name) { format!("{name}{CALL_ARG}").into() } else { name.into() }
}

/// The category of a host call: `cuda_driver` for a driver API function
/// (`cu*` but not `cuda*`), else `cuda_runtime`.
pub fn call_category(name: &str) -> &'static str {
    if name.starts_with("cu") && !name.starts_with("cuda") { "cuda_driver" } else { "cuda_runtime" }
}

/// The Kineto name of a copy, from the GPU tables' operation
/// (`[CUDA memcpy Host-to-Device]` -> `Memcpy HtoD`): HTA types a memory
/// kernel by the first 11 characters (`Memcpy HtoD`). Which kinds of
/// memory were at either end (Kineto's `(Pageable -> Device)`) is not
/// recorded.
pub fn copy_name(operation: &str) -> &'static str {
    match operation.trim_matches(['[', ']']).trim_start_matches("CUDA memcpy ") {
        "Host-to-Device" => "Memcpy HtoD",
        "Device-to-Host" => "Memcpy DtoH",
        "Host-to-Array" => "Memcpy HtoA",
        "Array-to-Host" => "Memcpy AtoH",
        "Array-to-Array" => "Memcpy AtoA",
        "Array-to-Device" => "Memcpy AtoD",
        "Device-to-Array" => "Memcpy DtoA",
        "Device-to-Device" => "Memcpy DtoD",
        "Host-to-Host" => "Memcpy HtoH",
        "Peer-to-Peer" => "Memcpy PtoP",
        _ => "Memcpy Unknown",
    }
}

/// The name a call has in the Kineto form: CUDA 13's nvcc launches a
/// `<<<...>>>` kernel through `__cudaLaunchKernel`, which is written as
/// `cudaLaunchKernel` (what HTA's launch statistics look for), with its
/// own name in the argument [`OUR_NAME`].
pub fn kineto_name(name: &str) -> &str {
    match name {
        "__cudaLaunchKernel" => "cudaLaunchKernel",
        n => n,
    }
}

/// The argument holding a call's own name when [`kineto_name`] changed it.
pub const OUR_NAME: &str = "cudart-shim name";

/// A memset's Kineto name.
pub const MEMSET_NAME: &str = "Memset (Device)";

/// The period of `baseTimeNanoseconds` (10^14 ns, about 28 hours).
const BASE_PERIOD: i128 = 100_000_000_000_000;

/// `otherData`'s member holding what was added to every timestamp (ns).
pub const TIME_OFFSET: &str = "time_offset_ns";

/// For a trace whose zero is at wall-clock `zero_wall_ns`: the
/// `baseTimeNanoseconds` its timestamps count from (the last multiple of
/// 10^14 ns: the same for every process of a job, unless they start on
/// either side of one, about once a day, so ranks line up as PyTorch's
/// traces do) and what is added to the trace's own times (ns; under
/// 10^14, so microseconds with three decimals stay exact in a double).
pub fn time_base(zero_wall_ns: i128) -> (i128, u64) {
    let base = zero_wall_ns - zero_wall_ns.rem_euclid(BASE_PERIOD);
    (base, (zero_wall_ns - base) as u64)
}

/// What [`to_chrome`] takes off every timestamp of the document `doc`
/// (microseconds): the offset the writer added (see [`time_base`]).
pub fn time_offset_us(doc: &Value) -> f64 {
    doc["otherData"][TIME_OFFSET].as_u64().unwrap_or(0) as f64 / 1000.0
}

/// Whether a parsed trace document is in the Kineto form (a PyTorch
/// profiler trace, or ours: both have `schemaVersion`; ours also
/// `otherData.format`).
pub fn is_kineto(doc: &Value) -> bool {
    doc.get("schemaVersion").is_some() || doc.get("distributedInfo").is_some() || doc["otherData"]["format"] == "kineto"
}

/// Kineto-form events read back as our Chrome events (`report`): calls
/// are `cuda_api`, kernels `gpu_kernel`, user annotations `nvtx` (a step
/// under its original range name), `ac2g` flows `gpu_launch`, `[memory]`
/// instants `alloc`/`free`, and timestamps back on the trace's own axis
/// (`offset_us` taken off: [`time_offset_us`]). `cuda_sync` events are
/// left out: they repeat the synchronizing calls, which are read as calls.
/// Events of other categories (a PyTorch trace's `cpu_op`, ...) pass
/// unchanged.
pub fn to_chrome(events: Vec<Value>, offset_us: f64) -> Vec<Value> {
    let mut out = Vec::with_capacity(events.len());
    for mut e in events {
        if offset_us != 0.0
            && let Some(ts) = e.get("ts").and_then(Value::as_f64)
        {
            // Microseconds with nanosecond decimals, as written.
            e["ts"] = json!(((ts - offset_us) * 1000.0).round() / 1000.0);
        }
        // Only objects are changed (a malformed file's other values pass).
        let cat = if e.is_object() { e["cat"].as_str().unwrap_or("").to_owned() } else { String::new() };
        match cat.as_str() {
            "cuda_runtime" | "cuda_driver" => {
                e["cat"] = "cuda_api".into();
                let mut own = None;
                if let Some(a) = e.get_mut("args").and_then(Value::as_object_mut) {
                    a.remove("correlation");
                    a.remove("External id");
                    own = a.remove(OUR_NAME);
                    let renamed: Vec<String> = a.keys().filter(|k| k.ends_with(CALL_ARG)).cloned().collect();
                    for k in renamed {
                        if let Some(v) = a.remove(&k) {
                            a.insert(k.trim_end_matches(CALL_ARG).to_owned(), v);
                        }
                    }
                }
                if let Some(n) = own {
                    e["name"] = n;
                }
            }
            "kernel" => e["cat"] = "gpu_kernel".into(),
            "gpu_memcpy" | "gpu_memset" => {
                if let Some(op) = e["args"]["operation"].as_str() {
                    e["name"] = op.trim_matches(['[', ']']).into();
                }
            }
            "user_annotation" => {
                e["cat"] = "nvtx".into();
                if let Some(r) = e["args"]["range"].as_str() {
                    e["name"] = r.into();
                }
                if let Some(a) = e.get_mut("args").and_then(Value::as_object_mut) {
                    a.remove("range");
                }
            }
            "cuda_sync" => continue,
            "ac2g" => {
                e["cat"] = "gpu_launch".into();
                e["name"] = "launch".into();
            }
            "cpu_instant_event" if e["name"] == "[memory]" => {
                e["cat"] = "memory".into();
                e["name"] = (if e["args"]["Bytes"].as_i64().unwrap_or(0) < 0 { "free" } else { "alloc" }).into();
            }
            _ => {}
        }
        out.push(e);
    }
    out
}

/// Our Chrome events written in the Kineto form (`report --merge
/// OUT.kineto.json`): the inverse of [`to_chrome`], with each call's
/// `correlation` the id of the launch arrow that starts at it, and each
/// GPU slice's the id of the arrow that ends at it (its `launch`).
pub fn from_chrome(events: &[Value]) -> Vec<Value> {
    // The arrow starting at each call: (pid, tid, ts) -> id.
    let key = |e: &Value| (e["pid"].as_i64().unwrap_or(0), e["tid"].as_i64().unwrap_or(0), e["ts"].to_string());
    let starts: HashMap<_, u64> =
        events.iter().filter(|e| e["ph"] == "s" && e["cat"] == "gpu_launch").map(|e| (key(e), e["id"].as_u64().unwrap_or(0))).collect();
    let mut out = Vec::with_capacity(events.len());
    for e in events {
        let mut e = e.clone();
        let cat = if e.is_object() { e["cat"].as_str().unwrap_or("").to_owned() } else { String::new() };
        match cat.as_str() {
            "cuda_api" => {
                let name = e["name"].as_str().unwrap_or("").to_owned();
                e["cat"] = call_category(&name).into();
                let mut args = Map::new();
                if let Some(a) = e["args"].as_object() {
                    for (k, v) in a {
                        args.insert(if k == "result" || k == "depth" { k.clone() } else { call_arg_name(k).into_owned() }, v.clone());
                    }
                }
                if kineto_name(&name) != name {
                    e["name"] = kineto_name(&name).into();
                    args.insert(OUR_NAME.into(), name.clone().into());
                }
                if let Some(id) = starts.get(&key(&e)) {
                    args.insert("correlation".into(), json!(id));
                    args.insert("External id".into(), json!(id));
                }
                e["args"] = Value::Object(args);
            }
            "gpu_kernel" | "gpu_memcpy" | "gpu_memset" => {
                if cat == "gpu_kernel" {
                    e["cat"] = "kernel".into();
                } else if cat == "gpu_memset" {
                    e["name"] = MEMSET_NAME.into();
                } else {
                    e["name"] = copy_name(e["args"]["operation"].as_str().unwrap_or("")).into();
                }
                let launch = e["args"]["launch"].as_u64().unwrap_or(0);
                if let Some(a) = e.get_mut("args").and_then(Value::as_object_mut) {
                    if launch != 0 {
                        a.insert("correlation".into(), json!(launch));
                        a.insert("External id".into(), json!(launch));
                    }
                    if let Some(bw) = a.remove("bandwidth (GB/s)") {
                        a.insert("memory bandwidth (GB/s)".into(), bw);
                    }
                }
            }
            "nvtx" => e["cat"] = "user_annotation".into(),
            "gpu_launch" => {
                e["cat"] = "ac2g".into();
                e["name"] = "ac2g".into();
            }
            "memory" if e["ph"] == "i" => {
                let bytes = e["args"]["bytes"].as_i64().unwrap_or(0);
                let signed = if e["name"] == "free" { -bytes } else { bytes };
                e["cat"] = "cpu_instant_event".into();
                e["name"] = "[memory]".into();
                if let Some(a) = e.get_mut("args").and_then(Value::as_object_mut) {
                    a.insert("Bytes".into(), json!(signed));
                }
            }
            _ => {}
        }
        out.push(e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our events written in the form and read back are the same events
    /// (the sync events the writer adds aside), and the form has what HTA
    /// reads: categories, `correlation` on both ends of a launch, a call's
    /// own `stream` renamed.
    #[test]
    fn the_form_round_trips_our_events() {
        let ours = vec![
            json!({"name":"launch","cat":"gpu_launch","ph":"s","id":9,"pid":1,"tid":2,"ts":1.5}),
            json!({"name":"cudaLaunchKernel","cat":"cuda_api","ph":"X","pid":1,"tid":2,"ts":1.5,"dur":2.0,"args":{"result":"cudaSuccess","depth":0,"stream":"0x0"}}),
            json!({"name":"__cudaLaunchKernel","cat":"cuda_api","ph":"X","pid":1,"tid":2,"ts":1.55,"dur":1.5,"args":{"result":"cudaSuccess","depth":1}}),
            json!({"name":"cuLaunchKernel","cat":"cuda_api","ph":"X","pid":1,"tid":2,"ts":1.6,"dur":1.0,"args":{"result":"CUDA_SUCCESS","depth":1,"hStream":"0x0"}}),
            json!({"name":"k()","cat":"gpu_kernel","ph":"X","pid":1,"tid":900,"ts":4.0,"dur":1.0,"args":{"device":0,"stream":7,"correlation":3,"launch":9}}),
            json!({"name":"CUDA memcpy Host-to-Device","cat":"gpu_memcpy","ph":"X","pid":1,"tid":900,"ts":5.0,"dur":1.0,"args":{"device":0,"stream":7,"correlation":4,"operation":"[CUDA memcpy Host-to-Device]","bytes":8,"bandwidth (GB/s)":8.0}}),
            json!({"name":"launch","cat":"gpu_launch","ph":"f","bp":"e","id":9,"pid":1,"tid":900,"ts":4.0}),
            json!({"name":"step","cat":"nvtx","ph":"X","pid":1,"tid":2,"ts":1.0,"dur":9.0,"args":{"level":0}}),
            json!({"name":"free","cat":"memory","ph":"i","s":"t","pid":1,"tid":2,"ts":7.0,"args":{"bytes":64,"kind":"device","device":0,"library":"app"}}),
        ];
        let k = from_chrome(&ours);
        let cats: Vec<&str> = k.iter().map(|e| e["cat"].as_str().unwrap()).collect();
        assert_eq!(cats, ["ac2g", "cuda_runtime", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy", "ac2g", "user_annotation", "cpu_instant_event"]);
        assert_eq!((k[2]["name"].as_str(), k[2]["args"][OUR_NAME].as_str()), (Some("cudaLaunchKernel"), Some("__cudaLaunchKernel")));
        assert_eq!(k[1]["args"]["correlation"], 9);
        assert_eq!(k[1]["args"]["stream (call)"], "0x0");
        assert!(k[1]["args"].get("stream").is_none());
        assert_eq!((k[4]["args"]["correlation"].as_u64(), k[4]["args"]["stream"].as_u64()), (Some(9), Some(7)));
        assert_eq!((k[5]["name"].as_str(), k[5]["args"]["memory bandwidth (GB/s)"].as_f64()), (Some("Memcpy HtoD"), Some(8.0)));
        assert_eq!(k[8]["args"]["Bytes"], -64);
        let mut back = to_chrome(k, 0.0);
        // What the form adds and reading takes away again.
        for e in &mut back {
            let api = e["cat"] == "cuda_api";
            if let Some(a) = e["args"].as_object_mut() {
                a.remove("memory bandwidth (GB/s)");
                a.remove("External id");
                a.remove("Bytes");
                if !api {
                    a.remove("correlation");
                }
            }
        }
        let mut expect = ours.clone();
        for e in &mut expect {
            let api = e["cat"] == "cuda_api";
            if let Some(a) = e["args"].as_object_mut() {
                a.remove("bandwidth (GB/s)");
                if !api {
                    a.remove("correlation");
                }
            }
        }
        assert_eq!(back, expect);
    }

    #[test]
    fn time_base_is_shared_and_keeps_nanoseconds() {
        let (b1, s1) = time_base(1_795_891_114_421_301_054);
        let (b2, s2) = time_base(1_795_891_114_421_301_054 + 5_000_000_000);
        assert_eq!((b1, b2), (1_795_800_000_000_000_000, b1));
        assert_eq!(s2 - s1, 5_000_000_000);
        assert!(((s1 as f64 / 1000.0 * 1000.0).round() as u64) == s1 && s1 < 100_000_000_000_000);
        let e = vec![json!({"ph":"X","ts":(s1 as f64 + 1500.0) / 1000.0})];
        let doc = json!({"otherData": {TIME_OFFSET: s1}});
        assert_eq!(to_chrome(e, time_offset_us(&doc))[0]["ts"].as_f64(), Some(1.5));
    }

    #[test]
    fn copy_names_keep_the_eleven_characters_hta_types_by() {
        for k in 1..=10u8 {
            let n = copy_name(crate::gpu_table::copy_operation(k));
            assert!(n.starts_with("Memcpy ") && n.len() == 11 && n != "Memcpy Unknown", "{k}: {n}");
        }
        assert_eq!(call_category("cuLaunchKernel"), "cuda_driver");
        assert_eq!(call_category("cudaMemcpyAsync"), "cuda_runtime");
    }
}
