"""Hooks and faults from Python (issue #29 on #24): the cudart_shim module
inside PyTorch under `cudart-shim trace`: the README's fail() example, a
hook refusing the 3rd cudaMalloc, fail(nth=3) absorbed by the caching
allocator's retry, typed launch parameters, an after hook's sticky error,
CuPy's driver-layer fault. Program: pyhooks/pyhooks.py (+ pyhooks_torch.py;
the module from the carried python/). Was scripts/gpu-pyhooks."""
import os

NAME = "pyhooks"
DESCRIPTION = "Python hooks and faults act inside PyTorch and CuPy as the README says"
EXPECTED_S = 33  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 150


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "pyhooks.py"), "--lib", ctx.lib, "--out", ctx.raw], timeout=TIMEOUT_S)
    ctx.rows_from(out, "results.txt", rc=rc)
