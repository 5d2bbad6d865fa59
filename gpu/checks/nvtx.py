"""NVTX ranges and capture windows (issue #26): nvtx_gpu_proj_sum of a C++
program's ranges against our own GPU rows; PyTorch's emit_nvtx() and
torch.cuda.nvtx.range (nvtx_sum instances = pushes, op ranges nest their
launches, projection within 1%); CuPy's RangePush through the interposer
alone; a 100-step loop with torch.cuda.profiler.start()/stop() under
--capture-range=cudaProfilerApi: only the 10 window steps traced, the step
time outside the window within noise of untraced. Program: nvtx/nvtx.py
(tests/cu/nvtx_gpu.cu). Was scripts/gpu-nvtx (run then with --rounds 10:
235 s; 2 rounds here)."""
import os

NAME = "nvtx"
DESCRIPTION = "NVTX ranges, their GPU projection, PyTorch emit_nvtx, CuPy via the interposer, capture windows"
EXPECTED_S = 66  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 240


def prepare(ctx):
    ctx.link_lib(ctx.data)
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "nvtx.py"), "--prepare", ctx.data])
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "nvtx.py"), "--lib", ctx.data, "--out", ctx.raw, "--rounds", "2"],
                     env=ctx.nvidia(), timeout=TIMEOUT_S)
    ctx.rows_from(out, "results.txt", rc=rc)
