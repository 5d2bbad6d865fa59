"""Registration is not work, and launchers take no rank's name (issue #27
points 2 and 3): a traced `import torch` writes nothing; a TestCuda-like run
writes files only for the children that did CUDA work; the README's torchrun
recipe (one rank per GPU, at most 2) writes one timeline per rank under the
documented names and `report` names every rank. Program: ranks/ranks.py.
Was scripts/gpu-ranks. On one GPU the recipe has one rank; run it on two."""
import os

NAME = "ranks"
DESCRIPTION = "no files for registration-only and device-count-only processes; one timeline per torchrun rank, report names each"
EXPECTED_S = 36  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*), before part 1b (one more `import torch`, a few seconds: not yet measured)
TIMEOUT_S = 150
GPUS = 2  # the torchrun recipe needs two ranks to show its names (one GPU: "0 of 1" FAIL in h100-call1)


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "ranks.py"), "--lib", ctx.lib, "--out", ctx.raw], timeout=TIMEOUT_S)
    ctx.rows_from(out, "results.txt", rc=rc)
