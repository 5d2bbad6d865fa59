"""Which rank holds the others up (issue #35, two GPUs): DDP under torchrun
where rank 1 sleeps 20 s before the all-reduce of step 30 (the issue's
60 s, shortened: the reports come 5 s in), under `cudart-shim run
--watchdog 5`, one report per rank (CUDART_SHIM_HANG_FILE=hang-rank%r.json).
PASS: rank 0's report lists a pending ncclDevKernel_AllReduce* launch;
`cudart-shim report --hang` of both names rank 1 in its first line; each
report within 10 s of the stall's start (rank 1's sleep; rank 0's entry
into that step); the job ends normally."""
import json, os

NAME = "hang_ddp"
DESCRIPTION = "DDP, rank 1 asleep before an all-reduce: rank 0 lists the pending all-reduce, report --hang names rank 1, both within 10 s"
EXPECTED_S = 40  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 180
GPUS = 2


def run(ctx):
    out = ctx.raw
    env = {"CUDART_SHIM_HANG_FILE": os.path.join(out, "hang-rank%r.json"), "NCCL_NVLS_ENABLE": "0",
           "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
    torchrun = [ctx.python, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    rc, log = ctx.sh([ctx.shim, "run", "--watchdog", "5", "--"] + torchrun + [os.path.join(ctx.src, "ddp_hang.py"), "--out", out],
                     env=env, timeout=170)
    ctx.write("run.log", log)
    ctx.row("job", rc == 0 and "rank 0 done" in log and "rank 1 done" in log, f"exit {rc}", "run.log")
    try:
        r0 = json.load(open(os.path.join(out, "hang-rank0.json")))
        r1 = json.load(open(os.path.join(out, "hang-rank1.json")))
        slept = int(open(os.path.join(out, "sleep-start.txt")).read())
        entered = int(open(os.path.join(out, "step-start-rank0.txt")).read())
    except Exception as e:
        ctx.row("reports", False, f"missing: {e}", "run.log")
        return
    pend = [(s["stream"], o["kernel"]) for s in r0.get("streams_pending", []) for o in s.get("pending", [])]
    ar = [p for p in pend if p[1].startswith("ncclDevKernel_AllReduce")]
    ctx.row("rank 0 lists the pending all-reduce", bool(ar), f"{ar[0][1]} on stream {ar[0][0]}" if ar else f"pending: {pend[:5]}", "hang-rank0.json")
    d0, d1 = (r0["time_unix_ns"] - entered) / 1e9, (r1["time_unix_ns"] - slept) / 1e9
    ctx.row("both within 10 s", 0 < d0 <= 10 and 0 < d1 <= 10, f"rank 0 {d0:.1f} s, rank 1 {d1:.1f} s (watchdog 5 s)", "run.log")
    rc, rep = ctx.sh([ctx.shim, "report", "--hang", os.path.join(out, "hang-rank1.json"), os.path.join(out, "hang-rank0.json")], timeout=30)
    ctx.write("report-hang.txt", rep)
    first = (rep.splitlines() or [""])[0]
    ctx.row("report --hang names rank 1", rc == 0 and first.startswith("rank 1 is behind"), first[:250], "report-hang.txt")
