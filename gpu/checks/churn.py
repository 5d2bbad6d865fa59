"""TestCuda-like churn (issue #34): 200 short PyTorch processes, 4 Python
threads each making CUDA calls, traced with summary,timeline (JSON for half,
Perfetto's protobuf for the other half), 8 at a time; for each process the
summary's count of each function (and failure) equals the timeline's count
of its events, read back by `cudart-shim report`. Program: churn/churn.py
(the comparison, also run over the fake driver by tests/stress.rs) with
churn/torch_worker.py. Figure: processes checked, processes differing
(target 0)."""
import os

NAME = "churn"
DESCRIPTION = "200 short PyTorch processes (4 threads each): every summary count equals its timeline's"
EXPECTED_S = 120  # not yet run: about 25 waves of 8 processes of 3-5 s
TIMEOUT_S = 400


def run(ctx):
    out = os.path.join(ctx.raw, "processes")
    cmd = [ctx.python, os.path.join(ctx.src, "churn.py"), "--lib", ctx.lib, "--out", out, "--runs", "200", "--parallel", "8",
           "--", ctx.python, os.path.join(ctx.src, "torch_worker.py")]
    rc, text = ctx.sh(cmd, timeout=TIMEOUT_S - 20)
    ctx.write("churn.log", text)
    ctx.rows_from(text, os.path.join("processes", "churn.txt"), rc=rc)
