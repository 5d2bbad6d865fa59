"""Issue #37 on two GPUs: DDP under torchrun (hta_ddp/ddp_steps.py, rank 1
late to every all-reduce) traced with `cudart-shim trace --gpu --format
kineto --step-range step`, one file per rank; Holistic Trace Analysis loads
both, its analyses answer for both ranks, and get_potential_stragglers
names rank 1. HTA 0.5 finds communication kernels by NCCL's names before
2.19 (`ncclKernel_*`); this NCCL's are `ncclDevKernel_*`, renamed in HTA's
symbol table first (tests/hta_check.py --nccl-dev): a limit of HTA's, the
same for PyTorch's own traces."""
import importlib.util
import os

NAME = "hta_ddp"
DESCRIPTION = "HTA's straggler analysis on our two-rank DDP trace names the delayed rank (two GPUs)"
ON_DEMAND = "the issue 37 proof (docs/HTA.md): run when named, with the other hta_* checks; the two parts are full"
EXPECTED_S = 32  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 240
GPUS = 2
NEEDS = ["hta_torch"]

_spec = importlib.util.spec_from_file_location("gpu_checks_hta", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hta.py"))
hta = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hta)


def run(ctx):
    d = os.path.join(ctx.raw, "traces")
    os.makedirs(d, exist_ok=True)
    env = dict(ctx.ours(), NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
    rc, out = ctx.sh([ctx.shim, "trace", "--gpu", "--format", "kineto", "--timeline", os.path.join(d, "rank%r.json"), "--step-range", "step", "--",
                      ctx.python, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", os.path.join(ctx.src, "ddp_steps.py")],
                     env=env, timeout=180)
    ctx.write("ddp.txt", out)
    files = sorted(os.listdir(d))
    ctx.row("one_trace_per_rank", rc == 0 and files == ["rank0.json", "rank1.json"], f"rc={rc}, {files}", "ddp.txt")
    h, ev = hta.analyse(ctx, d, "ddp", ["--nccl-dev"])
    if h is None:
        ctx.row("hta_loads", False, "HTA failed (traceback in the evidence)", ev)
        return
    bad = hta.answered(h, [0, 1])
    ctx.row("analyses_answer_both_ranks", h["ranks"] == [0, 1] and not bad, "; ".join(bad) or f"ranks {h['ranks']}", ev)
    ctx.row("straggler_is_rank_1", h["stragglers"] == [1], f"get_potential_stragglers: {h['stragglers'] if isinstance(h['stragglers'], list) else h['stragglers'].get('error')}", ev)
