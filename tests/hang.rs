//! The watchdog and the hang report (docs/HANGS.md) over the fake driver,
//! with tests/cu/hang.cu: a call blocked by a fault is reported while it is
//! blocked, then recovered; a kernel the fake driver never completes is
//! named with its stream; two ranks, one a launch of
//! `ncclDevKernel_AllReduce_Sum_f32_RING_LL` behind: `report --hang` names
//! it; the signal dump (and the program's own handler still runs); fork;
//! exit while the watchdog ticks; a thread stopped inside our own code (a
//! hook that blocks) still gives a report; bad values. With `gpu` on (the
//! fake CUPTI, which holds back the record of the kernel the fake driver
//! hangs): completion is exact, and a CUPTI flush that never returns
//! leaves the report to the probe.

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

/// tests/cu/hang.cu, compiled once per version of its source (each test
/// runs in a process of its own).
fn program() -> PathBuf {
    static EXE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| compile_cu_once("hang", &repo_root().join("tests/cu/hang.cu"), &[&format!("-I{}", nvtx_include().display()), "-ldl", "-lpthread"])).clone()
}

/// A fresh working folder for one test.
fn work(test: &str) -> PathBuf {
    let d = scratch(&format!("hang-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The program on the shim over the fake driver, in `dir`, with `vars`.
fn spawn(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Child {
    Command::new(program())
        .args(args)
        .current_dir(dir)
        .env_remove("CUDART_SHIM_TRACE")
        .envs(fake_env(vars))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The report at `path` once it exists and parses (a report is written
/// whole and renamed into place); fails after 60 s.
fn report_at(path: &Path, child: &mut Child) -> Value {
    for _ in 0..1200 {
        if let Ok(t) = std::fs::read_to_string(path) {
            return serde_json::from_str(&t).unwrap_or_else(|e| panic!("{}: {e}: {t}", path.display()));
        }
        if let Some(s) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("the program ended ({s}) with no report at {}: {err}", path.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("no report at {} after 60 s", path.display());
}

/// The program ends as it would (status 0, `done`) after its hang was
/// followed by a `recovered` line; its stderr.
fn ends_recovered(child: Child, what: &str) -> String {
    let (status, out, err) = finish(child, what);
    assert!(status.success(), "{err}");
    assert_eq!(out, "done\n");
    assert!(err.contains("cudart-shim: watchdog: recovered after "), "{err}");
    err
}

fn finish(mut child: Child, what: &str) -> (std::process::ExitStatus, String, String) {
    let status = wait_or_fail(&mut child, 60, what);
    let o = child.wait_with_output().unwrap();
    (status, String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn kill(mut child: Child) -> String {
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn main_thread(r: &Value, pid: u32) -> &Value {
    r["threads"].as_array().unwrap().iter().find(|t| t["tid"] == pid).unwrap_or_else(|| panic!("no main thread {pid}: {r:#}"))
}

#[test]
fn a_call_blocked_4s_is_reported_while_blocked_then_recovered() {
    let dir = work("blocked");
    let file = dir.join("hang.json");
    let mut child = spawn(
        &dir,
        &["sync"],
        &[("CUDART_SHIM_WATCHDOG", "1"), ("CUDART_SHIM_FAULTS", "cudaDeviceSynchronize:nth=1:delay=4000"), ("CUDART_SHIM_HANG_FILE", file.to_str().unwrap())],
    );
    let pid = child.id();
    let r = report_at(&file, &mut child);
    // Written while the call is still blocked: the program has not ended.
    assert!(child.try_wait().unwrap().is_none(), "the report came after the call returned");
    assert_eq!(r["format"], "cudart-shim-hang");
    assert_eq!(r["trigger"], "watchdog");
    assert_eq!(r["recovered"], Value::Null, "{r:#}");
    let main = main_thread(&r, pid);
    assert_eq!(main["state"], "in CUDA", "{r:#}");
    assert_eq!(main["call"], "cudaDeviceSynchronize()", "{r:#}");
    assert!(main["in_call_s"].as_f64().unwrap() >= 1.0, "{r:#}");
    let v = r["verdict"].as_str().unwrap();
    assert!(v.contains(&format!("thread {pid} (main")) && v.contains("in cudaDeviceSynchronize for"), "{v}");
    let err = ends_recovered(child, "the blocked program");
    // The stderr lines: the report, then the recovery, in that order.
    let report_line = err.find("cudart-shim: watchdog: no progress for 1 s: ").unwrap_or_else(|| panic!("{err}"));
    let recovered = err.find("cudart-shim: watchdog: recovered after ").unwrap_or_else(|| panic!("{err}"));
    assert!(report_line < recovered, "{err}");
    assert!(err[report_line..].lines().next().unwrap().ends_with(&format!("; report in {}", file.display())), "{err}");
    let r = serde_json::from_str::<Value>(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let after = r["recovered"]["after_s"].as_f64().unwrap_or_else(|| panic!("{r:#}"));
    assert!(after > 0.0, "{r:#}");
}

#[test]
fn a_kernel_that_never_completes_is_named_with_its_stream() {
    let dir = work("never");
    let file = dir.join("hang-%p.json");
    let mut child = spawn(&dir, &["stuck"], &[("CUDART_SHIM_WATCHDOG", "1"), ("CUDART_SHIM_HANG_FILE", file.to_str().unwrap()), ("FAKE_CUDA_HANG_KERNEL", "stuck_kernel")]);
    let pid = child.id();
    let path = dir.join(format!("hang-{pid}.json"));
    let r = report_at(&path, &mut child);
    let err = kill(child);
    let pending = r["streams_pending"].as_array().unwrap_or_else(|| panic!("{r:#} {err}"));
    assert_eq!(pending.len(), 1, "{r:#}");
    let s = &pending[0];
    let stream = s["stream"].as_str().unwrap();
    assert!(stream.starts_with("0x"), "a created stream: {r:#}");
    assert_eq!((s["launched"].as_u64(), s["completed"].as_u64()), (Some(1), Some(0)), "{r:#}");
    let op = &s["pending"][0];
    assert_eq!(op["kernel"], "stuck_kernel", "{r:#}");
    assert_eq!((op["grid"].clone(), op["block"].clone(), op["seq"].as_u64()), (serde_json::json!([2, 1, 1]), serde_json::json!([32, 1, 1]), Some(1)), "{r:#}");
    assert_eq!(op["thread"], pid, "{r:#}");
    assert!(s["precision"].as_str().unwrap().contains("this launch not complete"), "{r:#}");
    // The main thread waits on that very stream.
    let main = main_thread(&r, pid);
    assert_eq!(main["call"], format!("cudaStreamSynchronize(stream={stream})"), "{r:#}");
    let v = r["verdict"].as_str().unwrap();
    assert!(v.contains(&format!("stream {stream} has 1 launches not complete")) && v.contains("oldest stuck_kernel (launch 1)"), "{v}");
}

#[test]
fn a_kernel_that_completes_late_gives_a_report_then_recovered_and_the_program_is_unchanged() {
    let dir = work("late");
    let mut child = spawn(&dir, &["stuck"], &[("CUDART_SHIM_WATCHDOG", "1"), ("FAKE_CUDA_HANG_KERNEL", "stuck_kernel:3000")]);
    let path = dir.join(format!("cudart-shim-hang-{}.json", child.id()));
    let r = report_at(&path, &mut child);
    assert_eq!(r["streams_pending"][0]["pending"][0]["kernel"], "stuck_kernel", "{r:#}");
    let err = ends_recovered(child, "the late kernel");
    assert!(!err.contains("error"), "{err}");
}

#[test]
fn report_hang_names_the_rank_that_launched_one_all_reduce_fewer() {
    let dir = work("ranks");
    let file = dir.join("hang-rank%r.json");
    let f = file.to_str().unwrap();
    let mut r0 = spawn(&dir, &["nccl", "5"], &[("CUDART_SHIM_WATCHDOG", "1"), ("CUDART_SHIM_HANG_FILE", f), ("RANK", "0"), ("FAKE_CUDA_HANG_KERNEL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL@5")]);
    // NVTX ranges reach the runtime through NVTX's injection (as `trace` and `run` set it).
    let nvtx = shim_lib();
    let mut r1 = spawn(&dir, &["nccl", "4", "sleep", "60"], &[("CUDART_SHIM_WATCHDOG", "1"), ("CUDART_SHIM_HANG_FILE", f), ("RANK", "1"), ("NVTX_INJECTION64_PATH", nvtx.to_str().unwrap())]);
    let (p0, p1) = (dir.join("hang-rank0.json"), dir.join("hang-rank1.json"));
    let a = report_at(&p0, &mut r0);
    let b = report_at(&p1, &mut r1);
    let (e0, e1) = (kill(r0), kill(r1));
    // Rank 0 waits: its pending list names the all-reduce.
    let pending = &a["streams_pending"][0]["pending"];
    assert!(pending.as_array().unwrap().iter().any(|o| o["kernel"] == "ncclDevKernel_AllReduce_Sum_f32_RING_LL"), "{a:#} {e0}");
    assert_eq!(a["nccl"][0], serde_json::json!({"op": "AllReduce", "launched": 5, "completed": 0}), "{a:#}");
    assert_eq!(b["nccl"][0], serde_json::json!({"op": "AllReduce", "launched": 4, "completed": 4}), "{b:#} {e1}");
    assert_eq!(main_thread(&b, b["process"]["pid"].as_u64().unwrap() as u32)["nvtx"], serde_json::json!(["step 57"]), "{b:#}");
    // Given in either order.
    let o = cli_on_fake().args(["report", "--hang"]).arg(&p1).arg(&p0).output().unwrap();
    let (out, err) = output_text(&o);
    assert!(o.status.success(), "{err}");
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("rank 1 is behind: 4 ncclDevKernel_AllReduce* launched, the others 5 (rank 0 waits on stream 0x"), "{out}");
    assert!(first.ends_with("rank 1's main thread is not in CUDA (open NVTX range \"step 57\")"), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("rank 0 (") || l.starts_with("rank 1 (")).collect();
    assert!(rows.len() == 2 && rows[0].starts_with("rank 0") && rows[0].contains("5/0") && rows[1].contains("4/4"), "{out}");
}

#[test]
fn driver_launches_of_nccl_kernels_are_counted_once_through_the_interposer() {
    let dir = work("driver");
    let file = dir.join("hang.json");
    let mut child = cli_on_fake()
        .args(["run", "--watchdog", "1", "--"])
        .arg(program())
        .args(["nccl", "5", "driver"])
        .current_dir(&dir)
        .env("CUDART_SHIM_HANG_FILE", &file)
        .env("FAKE_CUDA_HANG_KERNEL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL@5")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let r = report_at(&file, &mut child);
    // The command and the program it runs (its child) go together.
    // SAFETY: a signal to the process group this test made.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    let err = kill(child);
    // Five cuLaunchKernelEx calls: five launches (the driver layer alone saw them).
    assert_eq!(r["nccl"], serde_json::json!([{"op": "AllReduce", "launched": 5, "completed": 0}]), "{r:#} {err}");
    let s = &r["streams_pending"][0];
    assert_eq!(s["launched"], 5, "{r:#}");
    let kernels: Vec<&str> = s["pending"].as_array().unwrap().iter().map(|o| o["kernel"].as_str().unwrap()).collect();
    assert_eq!(kernels, ["ncclDevKernel_AllReduce_Sum_f32_RING_LL"; 5], "{r:#}");
}

#[test]
fn the_dump_signal_writes_a_report_and_the_program_goes_on_with_its_own_handler_called() {
    let dir = work("signal");
    let child = spawn(&dir, &["signal"], &[("CUDART_SHIM_DUMP_SIGNAL", "USR2")]);
    let pid = child.id();
    let (status, out, err) = finish(child, "the signal program");
    assert!(status.success(), "{err}");
    assert_eq!(out, "program handler ran\ndone\n");
    let path = dir.join(format!("cudart-shim-hang-{pid}.json"));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}: {err}"))).unwrap();
    assert_eq!(r["trigger"], "signal");
    assert_eq!(r["watchdog_s"], Value::Null);
    assert!(r["verdict"].as_str().unwrap().starts_with("on request"), "{r:#}");
    assert!(err.contains("cudart-shim: hang report on request: on request"), "{err}");
    // Without a watchdog, nothing else is reported.
    assert!(!err.contains("watchdog:"), "{err}");
}

#[test]
fn a_forked_child_runs_no_watchdog_and_both_exit_as_they_would() {
    let dir = work("fork");
    let child = spawn(&dir, &["fork"], &[("CUDART_SHIM_WATCHDOG", "0.5")]);
    let pid = child.id();
    let (status, out, err) = finish(child, "the forking program");
    assert!(status.success(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let cpid: u32 = lines[0].strip_prefix("child ").and_then(|l| l.strip_suffix(" exited 7")).unwrap_or_else(|| panic!("{out}")).parse().unwrap();
    assert_eq!(lines[1], "done");
    // The parent waited 1.5 s outside CUDA: its watchdog saw a host stall.
    // The child, which inherited the setting, wrote nothing.
    assert!(dir.join(format!("cudart-shim-hang-{pid}.json")).exists(), "{err}");
    assert!(!dir.join(format!("cudart-shim-hang-{cpid}.json")).exists(), "{err}");
    assert!(err.contains("host-side stall"), "{err}");
}

#[test]
fn exit_while_the_watchdog_ticks_ends_the_program_as_it_would() {
    let dir = work("exit");
    for _ in 0..10 {
        let child = spawn(&dir, &["exit"], &[("CUDART_SHIM_WATCHDOG", "0.1")]);
        let (status, out, err) = finish(child, "the exiting program");
        assert_eq!(status.code(), Some(0), "{err}");
        assert_eq!(out, "done\n", "{err}");
    }
}

#[test]
fn device_reset_while_the_watchdog_probes_changes_nothing_the_program_sees() {
    let dir = work("reset");
    for _ in 0..3 {
        let child = spawn(&dir, &["reset"], &[("CUDART_SHIM_WATCHDOG", "0.1")]);
        let (status, out, err) = finish(child, "the resetting program");
        assert!(status.success(), "{err}");
        assert_eq!(out, "done\n", "{err}");
    }
}

#[test]
fn watchdog_action_abort_raises_sigabrt_after_the_report_and_the_recorder_dumps() {
    use std::os::unix::process::ExitStatusExt;
    let dir = work("abort");
    let child = spawn(&dir, &["stuck"], &[("CUDART_SHIM_WATCHDOG", "1"), ("CUDART_SHIM_WATCHDOG_ACTION", "abort"), ("FAKE_CUDA_HANG_KERNEL", "stuck_kernel"), ("CUDART_SHIM_TRACE", "recorder")]);
    let pid = child.id();
    let (status, out, err) = finish(child, "the aborted program");
    assert_eq!(status.signal(), Some(libc::SIGABRT), "{err}");
    assert_eq!(out, "");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(format!("cudart-shim-hang-{pid}.json"))).unwrap()).unwrap();
    assert_eq!(r["streams_pending"][0]["pending"][0]["kernel"], "stuck_kernel", "{r:#}");
    // The recorder dumped for the report (its rings named in it) and on the SIGABRT.
    assert!(r["recorder"]["call_log"].as_str().is_some_and(|f| dir.join(f).exists()), "{r:#} {err}");
    let report = err.find("cudart-shim: watchdog: no progress").unwrap_or_else(|| panic!("{err}"));
    let abort = err.find("raising SIGABRT").unwrap_or_else(|| panic!("{err}"));
    assert!(report < abort, "{err}");
}

#[test]
fn a_thread_stopped_inside_our_code_still_gives_a_report() {
    let dir = work("hook");
    let file = dir.join("hang.json");
    let mut child = spawn(&dir, &["hook"], &[("CUDART_SHIM_WATCHDOG", "1"), ("CUDART_SHIM_HANG_FILE", file.to_str().unwrap())]);
    let pid = child.id();
    let r = report_at(&file, &mut child);
    assert!(child.try_wait().unwrap().is_none(), "the report came after the hook returned");
    let main = main_thread(&r, pid);
    let call = main["call"].as_str().unwrap_or_else(|| panic!("{r:#}"));
    assert!(call.starts_with("cudaMemset(devPtr=0x") && call.ends_with(", value=0, count=4096)"), "{r:#}");
    // The other thread goes on calling: it is never shown stuck.
    assert!(r["threads"].as_array().unwrap().len() >= 2, "{r:#}");
    ends_recovered(child, "the hooked program");
}

#[test]
fn bad_values_from_the_environment_warn_once_and_the_program_runs_without_a_watchdog() {
    let dir = work("bad-env");
    for (var, value) in [("CUDART_SHIM_WATCHDOG", "0"), ("CUDART_SHIM_WATCHDOG", "-3"), ("CUDART_SHIM_WATCHDOG", "soon"), ("CUDART_SHIM_DUMP_SIGNAL", "KILL")] {
        let child = spawn(&dir, &["sync"], &[(var, value), ("CUDART_SHIM_FAULTS", "cudaDeviceSynchronize:nth=1:delay=1500")]);
        let pid = child.id();
        let (status, out, err) = finish(child, "the program with a bad value");
        assert!(status.success(), "{var}={value}: {err}");
        assert_eq!(out, "done\n");
        assert_eq!(err.matches(var).count(), 1, "{var}={value}: one warning: {err}");
        assert!(!dir.join(format!("cudart-shim-hang-{pid}.json")).exists(), "{var}={value}: {err}");
    }
}

#[test]
fn bad_values_on_the_command_line_exit_2_with_a_message() {
    for args in [&["--watchdog", "0"][..], &["--watchdog=-1"], &["--watchdog", "x"], &["--dump-signal", "SEGV"], &["--watchdog-action", "abort"]] {
        let o = cli_on_fake().arg("run").args(args).args(["--", "true"]).output().unwrap();
        let (_, err) = output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(args[0].split('=').next().unwrap()), "{args:?}: {err}");
    }
}

#[test]
fn report_hang_refuses_a_file_that_is_not_a_hang_report() {
    let dir = work("refuse");
    let f = dir.join("x.json");
    std::fs::write(&f, "{\"format\": \"something\"}").unwrap();
    let o = cli_on_fake().args(["report", "--hang"]).arg(&f).output().unwrap();
    let (_, err) = output_text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("x.json: not a cudart-shim hang report"), "{err}");
}

// ---- exact completion: `gpu` on (the fake CUPTI) ------------------------------

/// `gpu` on over the fake CUPTI, with `vars`.
fn with_gpu<'a>(vars: &[(&'a str, &'a str)], cupti: &'a str) -> Vec<(&'a str, &'a str)> {
    let mut v = vec![("CUDART_SHIM_TRACE", "gpu"), ("CUDART_SHIM_CUPTI", cupti)];
    v.extend_from_slice(vars);
    v
}

fn fake_cupti() -> String {
    let p = target_dir().join("libfake_cupti.so");
    assert!(p.exists(), "{} is missing: run `cargo build --workspace` first", p.display());
    p.display().to_string()
}

/// `hang queue 6`: six kernels, then `stuck_kernel` (which never finishes),
/// on one stream: its report, and the stream's record in it.
fn queue_report(test: &str, vars: &[(&str, &str)]) -> (Value, Value) {
    let dir = work(test);
    let file = dir.join("hang.json");
    let mut all = vec![("CUDART_SHIM_WATCHDOG", "1"), ("CUDART_SHIM_HANG_FILE", file.to_str().unwrap()), ("FAKE_CUDA_HANG_KERNEL", "stuck_kernel")];
    all.extend_from_slice(vars);
    let mut child = spawn(&dir, &["queue", "6"], &all);
    let r = report_at(&file, &mut child);
    let err = kill(child);
    let pending = r["streams_pending"].as_array().unwrap_or_else(|| panic!("{r:#} {err}"));
    assert_eq!(pending.len(), 1, "{r:#} {err}");
    let s = pending[0].clone();
    assert_eq!(s["launched"], 7, "{r:#} {err}");
    (r, s)
}

fn kernels(s: &Value) -> Vec<(u64, String)> {
    s["pending"].as_array().unwrap().iter().map(|o| (o["seq"].as_u64().unwrap(), o["kernel"].as_str().unwrap().to_owned())).collect()
}

#[test]
fn with_gpu_on_completion_is_exact_the_pending_list_is_the_hung_kernel_alone() {
    let cupti = fake_cupti();
    let (r, s) = queue_report("exact", &with_gpu(&[], &cupti));
    assert_eq!(r["completion"]["method"], "cupti", "{r:#}");
    // The six kernels before it finished (their records came): not listed.
    assert_eq!(s["completed"], 6, "{r:#}");
    assert_eq!(kernels(&s), [(7, "stuck_kernel".to_owned())], "{r:#}");
    assert!(s["stream"].as_str().unwrap().starts_with("0x"), "{r:#}");
    assert!(s["precision"].as_str().unwrap().starts_with("exact (CUPTI): this launch has not finished"), "{r:#}");
    let v = r["verdict"].as_str().unwrap();
    assert!(v.contains("has 1 launches not complete") && v.contains("oldest stuck_kernel (launch 7)"), "{v}");

    // With the timeline too, the traced call pushes its own id inside ours
    // (for the launch arrows): the innermost is the one CUPTI ties to the
    // kernel, and completion is as exact.
    let (r, s) = queue_report("exact-timeline", &with_gpu(&[("CUDART_SHIM_TRACE", "gpu,timeline")], &cupti));
    assert_eq!((r["completion"]["method"].as_str(), s["completed"].as_u64()), (Some("cupti"), Some(6)), "{r:#}");
    assert_eq!(kernels(&s), [(7, "stuck_kernel".to_owned())], "{r:#}");

    // The probe alone (no `gpu`): the stream was busy at every tick, so all
    // seven are within its precision window.
    let (r, s) = queue_report("exact-probe", &[]);
    assert_eq!(r["completion"]["method"], "probe", "{r:#}");
    assert_eq!(s["completed"], 0, "{r:#}");
    let listed = kernels(&s);
    assert_eq!(listed.len(), 7, "{r:#}");
    assert_eq!(listed[6], (7, "stuck_kernel".to_owned()), "{r:#}");
    assert!(s["precision"].as_str().unwrap().starts_with("one of these 7 launches"), "{r:#}");
}

#[test]
fn a_cupti_flush_that_never_returns_leaves_completion_to_the_probe_and_the_report_is_still_written() {
    let cupti = fake_cupti();
    // Every cuptiActivityFlushAll blocks for ever: the report is written
    // all the same (the watchdog's thread never waits on the flush beyond
    // its bound), and it says completion is the probe's.
    let (r, s) = queue_report("flush-blocks", &with_gpu(&[("FAKE_CUPTI_FLUSH_BLOCK", "1")], &cupti));
    assert_eq!(r["completion"]["method"], "probe", "{r:#}");
    let why = r["completion"]["cupti"].as_str().unwrap_or_else(|| panic!("{r:#}"));
    assert!(why.starts_with("CUPTI's flush") && why.ends_with("completion is the probe's"), "{r:#}");
    assert_eq!(s["completed"], 0, "{r:#}");
    assert_eq!(kernels(&s).len(), 7, "{r:#}");
    assert!(s["precision"].as_str().unwrap().starts_with("one of these 7 launches"), "{r:#}");
}

#[test]
fn with_gpu_on_a_late_kernel_is_reported_exactly_then_recovered() {
    let cupti = fake_cupti();
    let dir = work("exact-late");
    let mut child = spawn(&dir, &["queue", "3"], &with_gpu(&[("CUDART_SHIM_WATCHDOG", "1"), ("FAKE_CUDA_HANG_KERNEL", "stuck_kernel:3000")], &cupti));
    let path = dir.join(format!("cudart-shim-hang-{}.json", child.id()));
    let r = report_at(&path, &mut child);
    let s = &r["streams_pending"][0];
    assert_eq!((s["launched"].as_u64(), s["completed"].as_u64()), (Some(4), Some(3)), "{r:#}");
    assert_eq!(kernels(s), [(4, "stuck_kernel".to_owned())], "{r:#}");
    ends_recovered(child, "the late kernel with gpu on");
}

#[test]
fn with_gpu_on_fork_exit_during_ticks_and_device_reset_change_nothing_the_program_sees() {
    let cupti = fake_cupti();
    let dir = work("exact-lifecycle");
    for (mode, seconds) in [("exit", "0.1"), ("reset", "0.1"), ("fork", "0.5")] {
        for _ in 0..3 {
            let child = spawn(&dir, &[mode], &with_gpu(&[("CUDART_SHIM_WATCHDOG", seconds)], &cupti));
            let (status, out, err) = finish(child, mode);
            assert_eq!(status.code(), Some(0), "{mode}: {err}");
            assert!(out.ends_with("done\n"), "{mode}: {out} {err}");
            if mode == "fork" {
                assert!(out.starts_with("child ") && out.contains(" exited 7\n"), "{out}");
            }
        }
    }
}

#[test]
fn with_gpu_on_a_stream_busy_at_every_tick_but_finishing_work_is_not_reported() {
    let cupti = fake_cupti();
    // Ten kernels of 300 ms each, back to back on one stream: it is busy
    // for 3 s and finishes a kernel every 300 ms; the host sleeps 3.2 s
    // outside CUDA, then synchronizes.
    let busy = |test: &str, vars: &[(&str, &str)]| {
        let dir = work(test);
        let mut all = vec![("CUDART_SHIM_WATCHDOG", "1"), ("FAKE_CUDA_HANG_KERNEL", "_Z11step_kernelPi:300")];
        all.extend_from_slice(vars);
        let child = spawn(&dir, &["busy", "10", "3200"], &all);
        let pid = child.id();
        let (status, out, err) = finish(child, test);
        assert!(status.success(), "{err}");
        assert_eq!(out, "done\n");
        (dir.join(format!("cudart-shim-hang-{pid}.json")), err)
    };
    // The probe sees the stream busy at every tick, never what finished:
    // after 1 s it reports the stream as holding its work.
    let (file, err) = busy("busy-probe", &[]);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}: {err}"))).unwrap();
    assert_eq!((r["completion"]["method"].as_str(), r["streams_pending"][0]["completed"].as_u64()), (Some("probe"), Some(0)), "{r:#}");
    // With CUPTI's records, the stream is seen finishing work: no report.
    let (file, err) = busy("busy-exact", &with_gpu(&[], &cupti));
    assert!(!file.exists(), "{err}\n{}", std::fs::read_to_string(&file).unwrap_or_default());
    assert!(!err.contains("watchdog: no progress"), "{err}");
}
