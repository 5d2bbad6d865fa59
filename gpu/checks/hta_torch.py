"""Issue #37 on a GPU, PyTorch: one small training job (20 steps) traced at
once by torch.profiler (its Kineto JSON) and by `cudart-shim trace --gpu
--format kineto --step-range step` (NVTX "step" ranges): two traces of the
same kernel executions. Holistic Trace Analysis (carried wheels,
docs/HTA.md) loads both; its temporal breakdown and GPU kernel breakdown
answer for both; the kernels HTA puts in steps: the same kernels, the same
counts, and each kernel's total time within 2% (kernels with at least 1% of
the kernel time; the others' counts only). A second run traced by ours
alone (no profiler in the process, the usual case): HTA answers on it too,
and its kernels and counts are those of the profiler's trace (its times
are another run's: a figure, not a verdict).
Program: hta_torch/train.py; analysis: tests/hta_check.py."""
import importlib.util
import os

NAME = "hta_torch"
DESCRIPTION = "HTA on torch.profiler's trace and ours of one job: same kernels and counts, kernel time within 2%"
ON_DEMAND = "the issue 37 proof (docs/HTA.md): run when named, with the other hta_* checks; the two parts are full"
EXPECTED_S = 40  # 32 s measured (H200, 2026-11-28) with two runs; the both-at-once run adds the profiler's export
TIMEOUT_S = 300

_spec = importlib.util.spec_from_file_location("gpu_checks_hta", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hta.py"))
hta = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hta)


def prepare(ctx):
    hta.prepare_wheels(ctx)


def compare(t, s):
    """(kernels differ, worst relative time difference, its kernel) of the
    step kernels of HTA answers t and s (rank 0)."""
    tk, sk = t["step_kernels"]["0"], s["step_kernels"]["0"]
    tu, su = t["step_kernel_us"]["0"], s["step_kernel_us"]["0"]
    diff = sorted(set(tk) ^ set(sk)) + [n for n in tk if n in sk and tk[n] != sk[n]]
    total = sum(tu.values()) or 1
    worst, name = 0.0, ""
    for n, us in tu.items():
        if us >= 0.01 * total and n in su:
            d = abs(su[n] - us) / us
            if d >= worst:
                worst, name = d, n
    return diff, tk, worst, name


def run(ctx):
    train = os.path.join(ctx.src, "train.py")
    prof, ours, alone = (os.path.join(ctx.raw, d) for d in ("torch", "shim", "shim-alone"))
    for d in (prof, ours, alone):
        os.makedirs(d, exist_ok=True)
    trace = [ctx.shim, "trace", "--gpu", "--format", "kineto", "--step-range", "step", "--timeline"]
    rc, out = ctx.sh(trace + [os.path.join(ours, "rank0.json"), "--", ctx.python, train, "--profile", prof], env=ctx.ours(), timeout=200)
    ctx.write("both-run.txt", out)
    ctx.row("both_traces_of_one_run", rc == 0 and all(os.path.exists(os.path.join(d, "rank0.json")) for d in (prof, ours)), f"rc={rc}", "both-run.txt")
    rc, out = ctx.sh(trace + [os.path.join(alone, "rank0.json"), "--", ctx.python, train], env=ctx.ours(), timeout=200)
    ctx.write("alone-run.txt", out)
    ctx.row("cudart_shim_trace_alone", rc == 0 and os.path.exists(os.path.join(alone, "rank0.json")), f"rc={rc}", "alone-run.txt")
    got = {}
    for who, d in (("torch", prof), ("shim", ours), ("shim_alone", alone)):
        h, ev = hta.analyse(ctx, d, who)
        got[who] = (h, ev)
        if h is None:
            ctx.row(f"hta_loads_{who}", False, "HTA failed (traceback in the evidence)", ev)
            continue
        bad = [b for b in hta.answered(h, [0]) if b.split(":")[0] in ("get_temporal_breakdown", "get_gpu_kernel_breakdown")]
        neg = h.get("negative_durations", {}).get("0", 0)
        ctx.row(f"hta_answers_{who}", not bad and h["steps"]["0"] == list(range(20)),
                "; ".join(bad) or f"steps {h['steps']['0'][:3]}..{h['steps']['0'][-1:]}, {neg} durations < 0 us set to 0 (HTA's rounding)", ev)
    (t, _), (s, sev), (a, aev) = got["torch"], got["shim"], got["shim_alone"]
    if t is not None and s is not None:
        diff, tk, worst, name = compare(t, s)
        ctx.row("same_kernels_and_counts", not diff and bool(tk), f"{len(tk)} kernels, {sum(tk.values())} instances" if not diff else f"differ: {diff[:4]}", sev)
        ctx.row("kernel_time_within_2pct", worst <= 0.02 and bool(tk), f"largest difference {100 * worst:.2f}% ({name[:60]})", sev)
    if t is not None and a is not None:
        diff, tk, worst, name = compare(t, a)
        ctx.row("alone_run_same_kernels_and_counts", not diff and bool(tk),
                (f"{len(tk)} kernels, {sum(tk.values())} instances" if not diff else f"differ: {diff[:4]}") +
                f"; another run's times: largest difference {100 * worst:.2f}% ({name[:50]})", aev)
