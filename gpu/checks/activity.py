"""GPU activity (issue #18): the GPU tables and timeline of
tests/cu/gpu_activity.cu; the host time added per empty-kernel launch by
gpu, timeline and both; PyTorch: our GPU kernel table against PyTorch's
profiler for the same training run (instances and totals per kernel); ours
and PyTorch's profiler in one process (CUPTI shared); the training step's
time with ours tracing against NVIDIA's runtime and PyTorch's profiler.
Program: activity/activity.py (+ activity_torch.py). Was
scripts/gpu-activity (4 rounds of 150 steps then; 1 round of 100 steps here).
The old program printed figures, no verdicts: the rows below are PASS when
the figure was measured, and for the kernel table when every kernel's
instance count equals the profiler's."""
import os
import re

NAME = "activity"
DESCRIPTION = "GPU activity: our kernel table = PyTorch profiler's; cost per launch and per training step"
EXPECTED_S = 80  # no timed run in docs/gpu-runs/ (docs/gpu-activity-h100.txt has its figures): ~30 processes of PyTorch
TIMEOUT_S = 300
ON_DEMAND = "figures (docs/GPU-ACTIVITY.md); coexist shows the profiler and our GPU rows agreeing in every run of the suite"


def prepare(ctx):
    ctx.nvcc_build("gpu_activity", [os.path.join(ctx.root, "tests/cu/gpu_activity.cu")], ["-O1"])


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "activity.py"), ctx.lib, "--out", ctx.raw, "--rounds", "1", "--steps", "100",
                      "--prog", os.path.join(ctx.bin, "gpu_activity")], timeout=TIMEOUT_S)
    ev = "results.txt"
    m = re.search(r"^rc (-?\d+)", out, re.M)
    ctx.row("basic", bool(m) and m.group(1) == "0", f"gpu_activity basic under summary,gpu,timeline: rc {m.group(1) if m else '?'}", ev)
    added = re.findall(r"added by (\S+)\s*: ([+-][0-9.]+) ns per launch", out)
    ctx.row("launch_cost", len(added) == 3, "; ".join(f"{k} {v} ns" for k, v in added) or "not measured", ev)
    m = re.search(r"same instance count: (\d+)/(\d+) kernels; total within 2%: (\d+)/(\d+); all kernels' total: (\S+)", out)
    ctx.row("kernels_vs_profiler", bool(m) and m.group(1) == m.group(2) and int(m.group(2)) > 0,
            m.group(0) if m else "no comparison (see results.txt)", ev)
    m = re.search(r"profiler saw (\d+) kernels", out)
    ctx.row("profiler_beside_ours", bool(m) and int(m.group(1)) > 0, m.group(0) if m else "the profiler's output is missing", ev)
    steps = re.findall(r"after 1 rounds, (\w+)\s+(.+?)\s+step wall\s+([0-9.]+) us \(([0-9.]+)x NVIDIA\)", out)
    ctx.row("step_cost", len(steps) == 6, "; ".join(f"{z} {k}: {w} us ({x}x)" for z, k, w, x in steps) or "not measured", ev)
