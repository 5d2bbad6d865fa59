"""The watchdog on a real hang (issue #35): a kernel spinning on a
host-mapped flag (hang_spin/spin.cu) while the host sleeps 12 s in no CUDA
call, under `cudart-shim run --watchdog 5`. PASS: the hang report appears
within 10 s of the launch, naming the kernel and its stream (the stream
the report says is the one the kernel was launched on); when the host
clears the flag, `recovered`; the program's output and exit status equal
those under NVIDIA's runtime (run with a 1 s spin: the output does not
depend on it)."""
import json, os

NAME = "hang_spin"
DESCRIPTION = "a spinning kernel: hang report within 10 s naming kernel and stream, recovered, output and exit status unchanged"
EXPECTED_S = 18  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 90


def prepare(ctx):
    ctx.nvcc_build("hang_spin", [os.path.join(ctx.src, "spin.cu")], ["-O1"])


def run(ctx):
    exe = os.path.join(ctx.bin, "hang_spin")
    rc_nv, out_nv = ctx.sh([exe, "1"], env=ctx.nvidia(), timeout=60)
    ctx.write("nvidia.out", out_nv)
    work = os.path.join(ctx.raw, "work")
    os.makedirs(work, exist_ok=True)
    report = os.path.join(ctx.raw, "hang-report.json")
    rc, out = ctx.sh([ctx.shim, "run", "--watchdog", "5", "--", exe, "12"], env={"CUDART_SHIM_HANG_FILE": report}, cwd=work, timeout=80)
    ctx.write("ours.out", out)
    lines = out.splitlines()
    prog = [l for l in lines if not l.startswith("cudart-shim")]
    ctx.row("output", prog == [l for l in out_nv.splitlines() if not l.startswith("cudart-shim")], f"{len(prog)} lines equal NVIDIA's", "ours.out")
    ctx.row("exit status", rc == rc_nv == 0, f"ours {rc}, NVIDIA {rc_nv}", "ours.out")
    try:
        r = json.load(open(report))
    except Exception as e:
        ctx.row("report", False, f"no readable report at {report}: {e}", "ours.out")
        return
    pend = r.get("streams_pending") or []
    ops = [(s["stream"], o) for s in pend for o in s.get("pending", [])]
    named = [(st, o) for st, o in ops if "spin_on_flag" in o.get("kernel", "")]
    ctx.row("kernel and stream named", bool(named) and named[0][0].startswith("0x"),
            f"{named[0][1]['kernel']} on stream {named[0][0]}, grid {named[0][1]['grid']}" if named else f"pending: {ops}", "hang-report.json")
    if named:
        delay = (r["time_unix_ns"] - named[0][1]["launched_unix_ns"]) / 1e9
        ctx.row("report within 10 s", delay <= 10.0, f"{delay:.1f} s after the launch (watchdog 5 s)", "hang-report.json")
    ctx.row("verdict", "spin_on_flag" in r.get("verdict", ""), r.get("verdict", "")[:250], "hang-report.json")
    rec = [l for l in lines if "watchdog: recovered after" in l]
    ctx.row("recovered", bool(rec) and r.get("recovered") is not None, (rec[0] if rec else "no recovered line")[:200], "ours.out")
