"""Hooks and faults on a GPU (issue #24): sticky errors injected vs real
(shared and static runtime, and the driver's own answers after one), the
3rd cudaMalloc refused in a C program, driver-level OOM for a static-runtime
program and CuPy, --memory-limit, PyTorch OOM after the caching allocator's
retry, PyTorch's sticky illegal address injected vs a real Triton one.
Program: control/control.py (tests/gpu_control/control_probe.cu).
Was scripts/gpu-control."""
import os

NAME = "control"
DESCRIPTION = "faults and limits act on real programs as real failures do (C, static runtime, CuPy, PyTorch)"
EXPECTED_S = 29  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 150


def prepare(ctx):
    probe = os.path.join(ctx.root, "tests/gpu_control/control_probe.cu")
    ctx.nvcc_build("probe_shared", [probe], ["-O1"])
    ctx.nvcc_build("probe_static", [probe], ["-O1"], cudart="static")


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "control.py"), "--lib", ctx.lib, "--bin", ctx.bin, "--out", ctx.raw],
                     env=ctx.nvidia(), timeout=TIMEOUT_S)
    ctx.rows_from(out, "summary.txt", rc=rc)
