"""Memory limits and accounting (issue #25): PyTorch under --memory-limit
0=4GiB (mem_get_info, OOM showing the limit, bitwise-identical losses,
expandable segments), CuPy through the interposer alone, a one-rank NCCL
communicator's memory table against the driver and PyTorch, a leak report, an
OOM report, and the ledger's cost per call (benchmark, when prepared).
Program: memory/memory.py (+ memory_torch.py, tests/c/leak_three.c).
Was scripts/gpu-memory."""
import os

NAME = "memory"
DESCRIPTION = "memory limits and the memory table with PyTorch, CuPy, NCCL and C programs"
EXPECTED_S = 63  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 150


def prepare(ctx):
    ctx.link_lib(ctx.data)  # leak_three finds libcudart_shim.so beside it ($ORIGIN)
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "memory.py"), "--prepare", ctx.data], env={"GPU_TARGET": ctx.target})
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "memory.py"), "--lib", ctx.data, "--out", ctx.raw], timeout=TIMEOUT_S)
    ctx.rows_from(out, "results.txt", rc=rc)
