"""Issue #37 on a GPU, no PyTorch: a CUDA C program with NVTX steps
(tests/cu/hta_steps.cu: 20 steps of copies, a memset, three compute
kernels and an NCCL-named kernel on a second stream) traced with
`cudart-shim trace --gpu --step-range step` to `rank0.kineto.json`;
Holistic Trace Analysis (carried wheels) loads it and each of temporal
breakdown, idle time, comm/comp overlap, kernel launch statistics and GPU
kernel breakdown answers; its kernel counts are the program's (60 compute,
20 communication). What no PyTorch-only tool offers such a program."""
import importlib.util
import os

NAME = "hta_nontorch"
DESCRIPTION = "HTA's analyses run on a CUDA C program's trace (NVTX steps -> ProfilerStep)"
ON_DEMAND = "the issue 37 proof (docs/HTA.md): run when named, with the other hta_* checks; the two parts are full"
EXPECTED_S = 5  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 200
NEEDS = ["hta_torch"]

_spec = importlib.util.spec_from_file_location("gpu_checks_hta", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hta.py"))
hta = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hta)
STEPS = 20


def prepare(ctx):
    cache = os.environ.get("CUDART_SHIM_CUDA_CACHE") or os.path.join(ctx.root, ".cache", "cuda")
    inc = os.path.join(cache, "nvtx", "nvidia", "cu13", "include")
    ctx.nvcc_build("hta_steps", [os.path.join(ctx.root, "tests", "cu", "hta_steps.cu")], flags=["-I" + inc, "-ldl"])


def run(ctx):
    d = os.path.join(ctx.raw, "traces")
    os.makedirs(d, exist_ok=True)
    rc, out = ctx.sh([ctx.shim, "trace", "--gpu", "--timeline", os.path.join(d, "rank0.kineto.json"), "--step-range", "step", "--",
                      os.path.join(ctx.bin, "hta_steps"), str(STEPS), "0"], env=ctx.ours(), timeout=120)
    ctx.write("trace.txt", out)
    ctx.row("traced", rc == 0 and "hta_steps done" in out, f"rc={rc}", "trace.txt")
    h, ev = hta.analyse(ctx, d, "steps")
    if h is None:
        ctx.row("hta_loads", False, "HTA failed (traceback in the evidence)", ev)
        return
    bad = hta.answered(h, [0])
    ctx.row("analyses_answer", not bad, "; ".join(bad) or f"{len(h['analyses'])} analyses, steps {len(h['steps']['0'])}", ev)
    k = h["kernels"]["0"]
    want = {"gemm_like(float*, int)": 3 * STEPS, "ncclKernel_AllReduce_RING_LL_Sum_float(float*, int)": STEPS}
    ctx.row("kernel_counts", k == want, str(k), ev)
