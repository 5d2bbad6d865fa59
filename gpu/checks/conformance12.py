"""CUDA 12 conformance (docs/CUDA12.md, "The GPU suite for CUDA 12"): the
tests/gpu and tests/gpu12 programs and the C examples built for CUDA 12 by
prepare (scripts/nvcc12, sm_90; -rdc=true programs are N/A, never a pass),
each run with NVIDIA's 12.9 libcudart.so.12 (carried), ours by library path
and ours by LD_PRELOAD: PASS when all three exit 0 and print the same.
Program: conformance/conformance.py --abi 12 (was `scripts/gpu-check --abi
12 --prepare DIR` here and `--prebuilt DIR --skip-bench` there)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance  # noqa: E402

NAME = "conformance12"
DESCRIPTION = "CUDA 12 programs: ours (libcudart_shim12.so) prints and exits as NVIDIA's 12.9 runtime"
EXPECTED_S = 96  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 240


def prepare(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.root, "gpu/checks/conformance/conformance.py"), "--abi", "12", "--prepare", ctx.data,
                      "--lib", ctx.lib], timeout=3600)
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])
    ctx.link_lib(os.path.join(ctx.data, "ours"))  # our libraries, not a second copy


def conformance12(ctx, *args, timeout):
    data = os.path.join(ctx.dir, "data", "conformance12")
    return ctx.sh([ctx.python, os.path.join(ctx.root, "gpu/checks/conformance/conformance.py"), "--abi", "12", "--prebuilt", data,
                   "--out", ctx.raw] + list(args), timeout=timeout)


def run(ctx):
    rc, out = conformance12(ctx, "--skip-bench", timeout=TIMEOUT_S)
    ctx.write("conformance12.log", out)
    ctx.rows_from(out, "conformance12.log", rc=rc)
    conformance.skips(ctx, out)
