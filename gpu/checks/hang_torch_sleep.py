"""A host-side stall named as one (issue #35): a PyTorch loop whose main
thread sleeps 15 s in Python inside NVTX range "step" (the issue's 20 s,
shortened: the report comes 5 s into the sleep), under `cudart-shim run
--watchdog 5`. PASS: a report within 10 s of the sleep's start that says no
GPU work is pending (no stream holds work; the verdict says so), the main
thread is not in CUDA, and its open NVTX ranges hold "step"; the loop ends
normally and `recovered` follows."""
import json, os

NAME = "hang_torch_sleep"
DESCRIPTION = "PyTorch main thread asleep in NVTX range 'step': report says no GPU work pending, not in CUDA, 'step' open"
EXPECTED_S = 24  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 120


def run(ctx):
    report = os.path.join(ctx.raw, "hang-report.json")
    stamp = os.path.join(ctx.raw, "sleep-start.txt")
    rc, out = ctx.sh([ctx.shim, "run", "--watchdog", "5", "--", ctx.python, os.path.join(ctx.src, "sleep_step.py"), "15", stamp],
                     env={"CUDART_SHIM_HANG_FILE": report}, timeout=110)
    ctx.write("ours.out", out)
    ctx.row("loop", rc == 0 and "loop done True" in out, f"exit {rc}", "ours.out")
    try:
        r = json.load(open(report))
        start = int(open(stamp).read())
    except Exception as e:
        ctx.row("report", False, f"no readable report or stamp: {e}", "ours.out")
        return
    delay = (r["time_unix_ns"] - start) / 1e9
    ctx.row("report within 10 s", 0 < delay <= 10.0, f"{delay:.1f} s into the sleep (watchdog 5 s)", "hang-report.json")
    pending = sum(s.get("not_complete", 0) for s in r.get("streams_pending", []))
    ctx.row("no GPU work pending", pending == 0 and "no GPU work pending" in r.get("verdict", ""), f"{pending} launches not complete; verdict: {r.get('verdict', '')[:200]}", "hang-report.json")
    pid = r["process"]["pid"]
    main = [t for t in r.get("threads", []) if t["tid"] == pid]
    ctx.row("main thread not in CUDA", bool(main) and main[0]["state"] == "not in CUDA" and main[0]["call"] is None,
            f"{main[0]['state']}" if main else "main thread not in the report", "hang-report.json")
    ctx.row("NVTX range 'step' open", bool(main) and "step" in main[0].get("nvtx", []), f"open ranges {main[0].get('nvtx') if main else None}", "hang-report.json")
    ctx.row("recovered", "watchdog: recovered after" in out, next((l for l in out.splitlines() if "recovered after" in l), "no recovered line")[:200], "ours.out")
