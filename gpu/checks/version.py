"""The runtime version rule (issue #27 point 4): what cudaRuntimeGetVersion
and cudaDriverGetVersion answer for NVIDIA's 13.0 (the machine's), NVIDIA's
13.5 and 12.9 (pinned wheels, carried), ours 13 and 12, and ours with
CUDART_SHIM_RUNTIME_VERSION; whether `driver >= runtime` holds; what a 13.2
call answers on this driver. Program: version/version.py (tests/c/versions.c).
Was scripts/gpu-version."""
import os

NAME = "version"
DESCRIPTION = "cudaRuntimeGetVersion = min(ours, driver); driver >= runtime; a 13.2 call answers as NVIDIA's 13.5"
EXPECTED_S = 3  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 60


def prepare(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "version.py"), "--prepare", ctx.data, "--lib", ctx.lib])
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])
    ctx.link_lib(os.path.join(ctx.data, "ours"))  # our libraries, not a second copy


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "version.py"), "--lib", ctx.data, "--out", ctx.raw], timeout=120)
    ctx.rows_from(out, "results.txt", rc=rc)
