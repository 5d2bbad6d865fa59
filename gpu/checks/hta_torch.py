"""Issue #37 on a GPU, PyTorch: the same small training job (20 steps)
traced by torch.profiler (its Kineto JSON) and by `cudart-shim trace --gpu
--format kineto --step-range step` (NVTX "step" ranges); Holistic Trace
Analysis (carried wheels, docs/HTA.md) loads both; its temporal breakdown
and GPU kernel breakdown answer for both; the kernels HTA puts in steps:
the same kernels, the same counts, and each kernel's total time within 2%
(kernels with at least 1% of the kernel time; the others' counts only).
Program: hta_torch/train.py; analysis: tests/hta_check.py."""
import importlib.util
import os

NAME = "hta_torch"
DESCRIPTION = "HTA on torch.profiler's trace and ours of one job: same kernels and counts, kernel time within 2%"
ON_DEMAND = "the issue 37 proof (docs/HTA.md): run when named, with the other hta_* checks; the two parts are full"
EXPECTED_S = 32  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 300

_spec = importlib.util.spec_from_file_location("gpu_checks_hta", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hta.py"))
hta = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hta)


def prepare(ctx):
    hta.prepare_wheels(ctx)


def run(ctx):
    train = os.path.join(ctx.src, "train.py")
    prof, ours = os.path.join(ctx.raw, "torch"), os.path.join(ctx.raw, "shim")
    rc, out = ctx.sh([ctx.python, train, "--profile", prof], timeout=200)
    ctx.write("torch-run.txt", out)
    ctx.row("torch_profiler_trace", rc == 0 and os.path.exists(os.path.join(prof, "rank0.json")), f"rc={rc}", "torch-run.txt")
    os.makedirs(ours, exist_ok=True)
    rc, out = ctx.sh([ctx.shim, "trace", "--gpu", "--format", "kineto", "--timeline", os.path.join(ours, "rank0.json"), "--step-range", "step", "--",
                      ctx.python, train], env=ctx.ours(), timeout=200)
    ctx.write("shim-run.txt", out)
    ctx.row("cudart_shim_trace", rc == 0 and os.path.exists(os.path.join(ours, "rank0.json")), f"rc={rc}", "shim-run.txt")
    t, tev = hta.analyse(ctx, prof, "torch")
    s, sev = hta.analyse(ctx, ours, "shim")
    for who, h, ev in (("torch", t, tev), ("shim", s, sev)):
        if h is None:
            ctx.row(f"hta_loads_{who}", False, "HTA failed (traceback in the evidence)", ev)
            continue
        bad = [b for b in hta.answered(h, [0]) if b.split(":")[0] in ("get_temporal_breakdown", "get_gpu_kernel_breakdown")]
        ctx.row(f"hta_answers_{who}", not bad and h["steps"]["0"] == list(range(20)), "; ".join(bad) or f"steps {h['steps']['0'][:3]}..{h['steps']['0'][-1:]}", ev)
    if t is None or s is None:
        return
    tk, sk = t["step_kernels"]["0"], s["step_kernels"]["0"]
    tu, su = t["step_kernel_us"]["0"], s["step_kernel_us"]["0"]
    diff = sorted(set(tk) ^ set(sk)) + [n for n in tk if n in sk and tk[n] != sk[n]]
    ctx.row("same_kernels_and_counts", not diff and bool(tk), f"{len(tk)} kernels, {sum(tk.values())} instances" if not diff else f"differ: {diff[:4]}", sev)
    total = sum(tu.values()) or 1
    worst, name = 0.0, ""
    for n, us in tu.items():
        if us >= 0.01 * total and n in su:
            d = abs(su[n] - us) / us
            if d > worst:
                worst, name = d, n
    ctx.row("kernel_time_within_2pct", worst <= 0.02 and bool(tu), f"largest difference {100 * worst:.2f}% ({name[:60]})", sev)
