//! The Kineto-form timeline (`trace --format kineto`, `*.kineto.json`) read
//! by Holistic Trace Analysis, over the fake driver and fake CUPTI: a
//! training-like job with NVTX steps, NCCL-named and compute kernels
//! (tests/cu/hta_steps.cu), two ranks; the same events as the JSON and
//! protobuf timelines; `report` and `--merge` read it; bad input.
//! HTA (pinned) is installed by scripts/setup-hta into .cache/hta
//! (`CUDART_SHIM_HTA_PY` to use another folder).

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn app(test: &str) -> PathBuf {
    let dir = scratch(&format!("kineto_app_{test}"));
    let inc = format!("-I{}", nvtx_include().display());
    compile_cu(&[&repo_root().join("tests/cu/hta_steps.cu")], &dir.join("hta_steps"), &[&inc, "-ldl"])
}

/// `cudart-shim trace --gpu ARGS -- hta_steps PROGRAM_ARGS` over the fake
/// driver and CUPTI, with `env`; (stdout, stderr), after checking success.
fn trace(exe: &Path, args: &[&str], program: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let mut c = cli_on_fake();
    c.env("CUDART_SHIM_CUPTI", target_dir().join("libfake_cupti.so"));
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.arg("trace").arg("--gpu").args(args).arg("--").arg(exe).args(program).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert_eq!(out, "hta_steps done\n", "{err}");
    (out, err)
}

fn events(p: &Path) -> Vec<Value> {
    let bytes = std::fs::read(p).unwrap();
    if trace_format::perfetto::looks_like_protobuf(&bytes) {
        return trace_format::perfetto::to_chrome(&trace_format::perfetto::packets(&bytes).unwrap());
    }
    let j: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    j["traceEvents"].as_array().unwrap().clone()
}

/// Events per (category, phase).
fn counts(ev: &[Value]) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for e in ev {
        *m.entry(format!("{} {}", e["cat"].as_str().unwrap_or("-"), e["ph"].as_str().unwrap_or("-"))).or_default() += 1;
    }
    m
}

/// The rows (instances, name) of a text table `title` (the GPU kernel
/// table: `cuda_gpu_kern_sum`).
fn kernel_rows(text: &str) -> BTreeMap<String, u64> {
    let t = &text[text.find("(cuda_gpu_kern_sum)").unwrap_or_else(|| panic!("no kernel table: {text}"))..];
    t.lines()
        .skip_while(|l| !l.trim_start().starts_with("---"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            // Time (%), Total, Instances, Avg, Med, Min, Max, StdDev, Name...
            (cols[8..].join(" "), cols[2].replace(',', "").parse().unwrap())
        })
        .collect()
}

/// HTA's answers on a folder of traces (tests/hta_check.py).
fn hta(dir: &Path, png: Option<&Path>) -> Value {
    let py = std::env::var_os("CUDART_SHIM_HTA_PY").map_or_else(|| repo_root().join(".cache/hta"), PathBuf::from);
    assert!(py.join("hta").is_dir(), "{} is missing: run scripts/setup-hta (scripts/test does)", py.display());
    let mut c = std::process::Command::new("python3");
    c.arg(repo_root().join("tests/hta_check.py")).arg(dir).env("PYTHONPATH", &py);
    if let Some(p) = png {
        c.arg("--png").arg(p);
    }
    let o = c.output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "HTA failed on {}:\n{out}\n{err}", dir.display());
    serde_json::from_str(out.lines().last().unwrap_or("")).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
}

/// Two ranks (rank 1 slower before its communication kernel): HTA loads
/// both, each analysis answers for both, its kernel counts are our GPU
/// tables', its steps are the NVTX ranges', and the straggler is rank 1.
#[test]
fn hta_analyses_answer_for_two_fake_ranks() {
    let exe = app("ranks");
    let dir = scratch("kineto_ranks");
    let traces = dir.join("traces");
    let _ = std::fs::remove_dir_all(&traces);
    std::fs::create_dir_all(&traces).unwrap();
    let steps = 5;
    // Both ranks run at once, as a job's do (HTA lines them up on the
    // wall clock), each step starting on both at the same time; rank 1
    // starts its communication kernel 20 ms late in each.
    let start_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() + 6000;
    let runs: Vec<std::process::Child> = (0..2)
        .map(|rank| {
            let file = traces.join(format!("rank{rank}.kineto.json"));
            let mut c = cli_on_fake();
            c.env("CUDART_SHIM_CUPTI", target_dir().join("libfake_cupti.so")).env("RANK", rank.to_string()).env("WORLD_SIZE", "2");
            c.args(["trace", "--gpu", "--timeline"]).arg(&file).args(["--step-range", "step", "--"]).arg(&exe);
            c.arg(steps.to_string()).arg((rank * 20_000).to_string()).arg("step").arg(start_ms.to_string());
            c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap()
        })
        .collect();
    let mut ours = Vec::new();
    for r in runs {
        let o = r.wait_with_output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success() && out == "hta_steps done\n", "{out}\n{err}");
        ours.push(kernel_rows(&err));
    }
    let h = hta(&traces, std::env::var_os("KINETO_TEST_PNG").map(PathBuf::from).as_deref());
    assert_eq!(h["ranks"], serde_json::json!([0, 1]), "{h}");
    for (rank, table) in ours.iter().enumerate() {
        let r = rank.to_string();
        let theirs: BTreeMap<String, u64> = serde_json::from_value(h["kernels"][&r].clone()).unwrap();
        assert_eq!(&theirs, table, "rank {rank}: HTA's kernels against our GPU table");
        assert_eq!(table.values().sum::<u64>(), 4 * steps, "{table:?}");
        assert_eq!(h["steps"][&r], serde_json::json!((0..steps).collect::<Vec<_>>()), "{h}");
        for (analysis, rows) in h["analyses"].as_object().unwrap() {
            assert!(rows.get("error").is_none(), "{analysis}: {}", rows["trace"].as_str().unwrap_or(""));
            assert!(rows[&r].as_u64().unwrap_or(0) > 0, "{analysis} has no answer for rank {rank}: {rows}");
        }
        // One launch-stats row per kernel (cudaLaunchKernel), async copy
        // and memset: 4 + 2 + 1 a step.
        assert_eq!(h["analyses"]["get_cuda_kernel_launch_stats"][&r].as_u64(), Some(7 * steps), "{h}");
    }
    assert_eq!(h["analyses"].as_object().unwrap().len(), 5);
    assert_eq!(h["stragglers"], serde_json::json!([1]), "{h}");
}

/// The same run written as JSON, protobuf and Kineto has the same events,
/// category by category; the Kineto file has what HTA reads (rank first,
/// GPU rows with streams and correlations, host rows without streams),
/// and `report` gives the same tables from it as from the JSON.
#[test]
fn kineto_has_the_events_of_the_json_and_protobuf_timelines() {
    let exe = app("formats");
    let dir = scratch("kineto_formats");
    let steps = 3;
    let mut files = Vec::new();
    for (name, extra) in [("t.json", None), ("t.pftrace", None), ("t.kineto.json", None), ("t.trace", Some("kineto"))] {
        let f = dir.join(name);
        let _ = std::fs::remove_file(&f);
        let mut args = vec!["--timeline", f.to_str().unwrap(), "--step-range", "step"];
        if let Some(fmt) = extra {
            args.extend(["--format", fmt]);
        }
        trace(&exe, &args, &[&steps.to_string()], &[]);
        files.push(f);
    }
    let (json, pb, kineto, by_format) = (events(&files[0]), events(&files[1]), events(&files[2]), events(&files[3]));
    let (cj, cp, ck) = (counts(&json), counts(&pb), counts(&kineto));
    let n = |m: &BTreeMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    for key in ["cuda_api X", "gpu_kernel X", "gpu_memcpy X", "gpu_memset X", "nvtx X", "memory i", "gpu_launch s", "gpu_launch f"] {
        assert_eq!(n(&cj, key), n(&cp, key), "{key}: JSON {cj:?}\nprotobuf {cp:?}");
    }
    assert_eq!(n(&cj, "cuda_api X"), n(&ck, "cuda_runtime X") + n(&ck, "cuda_driver X"), "{ck:?}");
    assert!(n(&ck, "cuda_driver X") > 0, "the interposer's driver calls: {ck:?}");
    assert_eq!(n(&cj, "gpu_kernel X"), n(&ck, "kernel X"));
    assert_eq!(n(&ck, "kernel X"), 4 * steps);
    for key in ["gpu_memcpy X", "gpu_memset X"] {
        assert_eq!(n(&cj, key), n(&ck, key), "{key}");
    }
    assert_eq!(n(&cj, "nvtx X"), n(&ck, "user_annotation X"));
    assert_eq!(n(&cj, "memory i"), n(&ck, "cpu_instant_event i"));
    assert_eq!((n(&cj, "gpu_launch s"), n(&cj, "gpu_launch f")), (n(&ck, "ac2g s"), n(&ck, "ac2g f")));
    // One sync event per wait the program made: a stream synchronize and
    // a stream-wait-event per step, one device synchronize.
    assert_eq!(n(&ck, "cuda_sync X"), 2 * steps + 1, "{ck:?}");
    // --format kineto with any name writes the same form.
    assert_eq!(counts(&by_format), ck);
    // Steps: ProfilerStep#0.. in order, the range's name kept.
    let step_names: Vec<&str> = kineto.iter().filter(|e| e["cat"] == "user_annotation").filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(step_names, (0..steps).map(|i| format!("ProfilerStep#{i}")).collect::<Vec<_>>());
    assert!(kineto.iter().filter(|e| e["cat"] == "user_annotation").all(|e| e["args"]["range"] == "step"));
    // Host rows carry no stream; GPU rows a stream >= 0 and a correlation,
    // which a cudaLaunchKernel (or async copy, memset) call carries too.
    let text = std::fs::read_to_string(&files[2]).unwrap();
    let rank_at = text.find("\"rank\": 0").expect("distributedInfo's rank with the space HTA's regex needs");
    assert!(rank_at < text.find("\"traceEvents\"").unwrap() && text.find("\"deviceProperties\"").unwrap() < text.find("\"traceEvents\"").unwrap());
    let mut launch_corr = std::collections::HashSet::new();
    for e in kineto.iter().filter(|e| e["ph"] == "X" && e["cat"].as_str().is_some_and(|c| c.starts_with("cuda_") && c != "cuda_sync")) {
        assert!(e["args"].get("stream").is_none(), "{e}");
        if let Some(c) = e["args"]["correlation"].as_u64() {
            assert_eq!(e["args"]["depth"], 0, "only the program's own call carries the launch: {e}");
            launch_corr.insert(c);
        }
    }
    for e in kineto.iter().filter(|e| e["ph"] == "X") {
        match e["cat"].as_str().unwrap() {
            "kernel" | "gpu_memcpy" | "gpu_memset" => {
                assert!(e["args"]["stream"].as_i64().unwrap() >= 0, "{e}");
                assert!(e["args"]["device"].as_i64().unwrap() >= 0, "{e}");
                assert_eq!(e["pid"], e["args"]["device"]);
                assert_eq!(e["tid"], e["args"]["stream"]);
                assert!(launch_corr.contains(&e["args"]["correlation"].as_u64().unwrap()), "no host call with this GPU row's correlation: {e}");
            }
            _ => {}
        }
    }
    let copies: Vec<&Value> = kineto.iter().filter(|e| e["cat"] == "gpu_memcpy").collect();
    assert!(copies.iter().all(|e| e["args"]["bytes"].as_u64() == Some(4 << 20) && e["args"]["memory bandwidth (GB/s)"].as_f64().unwrap() > 0.0));
    assert!(copies.iter().all(|e| ["Memcpy HtoD", "Memcpy DtoH"].contains(&e["name"].as_str().unwrap())));
    // `report` reads it as the JSON: the same tables (times aside).
    let report = |f: &Path| {
        let o = cli_on_fake().arg("report").arg("--format").arg("json").arg(f).output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{err}");
        let j: Value = serde_json::from_str(&out).unwrap();
        let mut calls = BTreeMap::new();
        for table in ["cuda_api_sum", "cuda_gpu_kern_sum", "nvtx_sum"] {
            for r in j[table].as_array().unwrap_or_else(|| panic!("no {table}: {out}")) {
                let name = r["Name"].as_str().or(r["Range"].as_str()).unwrap().to_owned();
                calls.insert(format!("{table} {name}"), r["Num Calls"].as_u64().or(r["Instances"].as_u64()).unwrap());
            }
        }
        calls
    };
    let from_json = report(&files[0]);
    assert!(from_json.contains_key("nvtx_sum step") && from_json.contains_key("cuda_api_sum __cudaLaunchKernel"), "{from_json:?}");
    assert_eq!(report(&files[2]), from_json);
}

/// `report --merge` reads Kineto files and writes Kineto (by the name)
/// or JSON; `report` reads the merged file.
#[test]
fn report_and_merge_read_and_write_the_kineto_form() {
    let exe = app("merge");
    let dir = scratch("kineto_merge");
    let mut inputs = Vec::new();
    for rank in 0..2 {
        let f = dir.join(format!("r{rank}.kineto.json"));
        let _ = std::fs::remove_file(&f);
        trace(&exe, &["--timeline", f.to_str().unwrap(), "--step-range", "step"], &["2"], &[("RANK", &rank.to_string()), ("WORLD_SIZE", "2")]);
        inputs.push(f);
    }
    for out in ["m.kineto.json", "m.json"] {
        let m = dir.join(out);
        let o = cli_on_fake().arg("report").arg("--merge").arg(&m).args(&inputs).output().unwrap();
        let (text, err) = output_text(&o);
        assert!(o.status.success(), "{err}");
        assert!(text.contains("Across 2 ranks"), "{text}");
        let doc: Value = serde_json::from_slice(&std::fs::read(&m).unwrap()).unwrap();
        assert_eq!(trace_format::kineto::is_kineto(&doc), out.ends_with(".kineto.json"));
        let c = counts(doc["traceEvents"].as_array().unwrap());
        let kernels = if out.ends_with(".kineto.json") { "kernel X" } else { "gpu_kernel X" };
        assert_eq!(c.get(kernels).copied(), Some(2 * 2 * 4), "{c:?}");
        let again = cli_on_fake().arg("report").arg(&m).output().unwrap();
        let (text, err) = output_text(&again);
        assert!(again.status.success(), "{err}");
        assert!(text.contains("cudaLaunchKernel") && text.contains("gemm_like"), "{text}");
    }
}

/// Bad input: an unknown format (exit 2 from the command), a step range
/// that never occurs (one line at exit, the trace still valid, no step),
/// a malformed Kineto file (`report` names the file and the position).
#[test]
fn bad_format_missing_step_range_and_malformed_file() {
    let exe = app("bad");
    let dir = scratch("kineto_bad");
    let f = dir.join("t.kineto.json");
    let o = cli_on_fake().args(["trace", "--timeline"]).arg(&f).args(["--format", "xml", "--"]).arg(&exe).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", output_text(&o).1);
    let _ = std::fs::remove_file(&f);
    let (_, err) = trace(&exe, &["--timeline", f.to_str().unwrap(), "--step-range", "no such range"], &["2"], &[]);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("no such range")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("ProfilerStep"), "{err}");
    let ev = events(&f);
    assert!(ev.iter().all(|e| !e["name"].as_str().unwrap_or("").starts_with("ProfilerStep")));
    assert_eq!(ev.iter().filter(|e| e["cat"] == "user_annotation" && e["name"] == "step").count(), 2);
    // The program's own ProfilerStep#N ranges pass through.
    let own = dir.join("own.kineto.json");
    let _ = std::fs::remove_file(&own);
    trace(&exe, &["--timeline", own.to_str().unwrap()], &["3", "0", "ProfilerStep"], &[]);
    let names: Vec<String> = events(&own).iter().filter(|e| e["cat"] == "user_annotation").map(|e| e["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]);
    // Malformed: cut short, and not JSON at all.
    let text = std::fs::read_to_string(&f).unwrap();
    let cut = dir.join("cut.kineto.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let junk = dir.join("junk.kineto.json");
    std::fs::write(&junk, "{\"schemaVersion\":1,\n\"traceEvents\":[{\"ph\":\"X\",}]}").unwrap();
    for bad in [&cut, &junk] {
        let o = cli_on_fake().arg("report").arg(bad).output().unwrap();
        let (_, err) = output_text(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(bad.to_str().unwrap()) && err.contains("line ") && err.contains("column "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
