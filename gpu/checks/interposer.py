"""The driver interposer (issue #17): its cost per driver call (tracing off,
summary, summary/16); every tests/gpu program built with nvcc's defaults
(static runtime) gives the same output with and without the interposer and
under `cudart-shim trace` (whose summary lists driver calls); cuda-python
and CuPy programs traced; PyTorch's MLP step with driver calls nested under
runtime calls. Program: interposer/interposer.py. Its programs are built on
the GPU machine with its nvcc (-arch=native, 16 at a time): about 30
static-runtime programs would not fit the carried folder.
Was scripts/gpu-interposer."""
import os
import shutil

NAME = "interposer"
DESCRIPTION = "driver interposer: cost per call, static-runtime programs unchanged and traced, cuda-python, CuPy, PyTorch nesting"
EXPECTED_S = 92  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 150


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "interposer.py"), "--lib", ctx.lib, "--out", ctx.raw,
                      "--deadline", str(TIMEOUT_S - 30), "--pairs", "2"], timeout=TIMEOUT_S)
    ctx.rows_from(out, "summary.txt", rc=rc)
    shutil.rmtree(os.path.join(ctx.raw, "build"), ignore_errors=True)  # ~30 static binaries: not evidence
