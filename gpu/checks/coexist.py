"""Profilers beside ours (issue #27 point 1): PyTorch's profiler in 8
scenarios (before our first call, after CUDA work, twice, graph replay, a
schedule of two windows, Chrome export, a child process, emit_nvtx) and
tests/cu/cupti_coexist.cu on the real CUPTI (7 cases), each run four ways
at once: NVIDIA's runtime, ours untraced, ours tracing `gpu`, ours without
the profiler. PASS per case: the profiler's kernel/copy/memset counts per
window as with NVIDIA's runtime, every count as with ours untraced, our GPU
rows and launch arrows the same with and without the profiler.
Program: coexist/coexist.py (+ coexist_torch.py). Was scripts/gpu-coexist."""
import os

NAME = "coexist"
DESCRIPTION = "PyTorch's profiler and a CUPTI client see the same GPU work with ours tracing as with NVIDIA's runtime"
EXPECTED_S = 142  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 300


def prepare(ctx):
    ctx.link_lib(ctx.data)
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "coexist.py"), "--prepare", ctx.data], timeout=600)
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "coexist.py"), "--lib", ctx.data, "--out", ctx.raw], timeout=TIMEOUT_S)
    ctx.rows_from(out, "results.txt", rc=rc)
