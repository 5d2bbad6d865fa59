"""delay= faults make a straggler (issue #24, two GPUs): the README's
torchrun recipe traced, rank 1's launches delayed 1 ms each through
CUDART_SHIM_FAULTS; one timeline per rank; `cudart-shim report` of both
names rank 1 the slowest on its launches. Program: straggler/straggler.sh
(tests/torch/ddp.py). Was scripts/gpu-straggler."""
import os

NAME = "straggler"
DESCRIPTION = "a delayed rank is the one `report` shows slowest on its launches (two GPUs, torchrun)"
EXPECTED_S = 25  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 180
GPUS = 2


def run(ctx):
    rc, out = ctx.sh(["bash", os.path.join(ctx.src, "straggler.sh"), "--lib", ctx.lib, "--out", ctx.raw], timeout=TIMEOUT_S)
    ctx.write("straggler.log", out)
    ctx.rows_from(out, "straggler.log", rc=rc)
