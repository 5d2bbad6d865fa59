"""Live metrics of two ranks (issue #36): torchrun starts two ranks of
metrics_torch/train.py (60 s, NCCL over two GPUs) under `cudart-shim trace
--gpu --metrics-listen 127.0.0.1:PORT --metrics final-%r.prom --step-range
step`; each rank listens on PORT + LOCAL_RANK (the launcher, which only
imports torch, takes no port), and a Prometheus server on this machine
scrapes both every second. From its API after the last step: each metric
has two series told apart by `rank`, with two different `gpu_uuid`s on the
device series; and for each rank metrics_torch's rows (step histogram count
= steps made, PyTorch's memory row = memory_reserved(), GPU busy per class,
NCCL all-reduces, final textfile = exit summary). SKIP with fewer than 2
GPUs."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_torch as mt  # noqa: E402

NAME = "metrics_ranks"
DESCRIPTION = "two ranks' /metrics on PORT + LOCAL_RANK, series told apart by rank and gpu_uuid"
EXPECTED_S = 85  # not yet run on a GPU: 60 s of training, two torch start-ups
TIMEOUT_S = 240
GPUS = 2
NEEDS = ["metrics_torch"]
TRAIN_S = 60


def prepare(ctx):
    pass  # the Prometheus binary is metrics_torch's (NEEDS)


def run(ctx):
    if ctx.gpus < 2:
        ctx.skip("two ranks", f"{ctx.gpus} GPU(s): needs 2")
        return
    port = mt.free_port(2)
    targets = [f"127.0.0.1:{port}", f"127.0.0.1:{port + 1}"]
    prom = mt.Prometheus(ctx, os.path.join(os.path.dirname(ctx.data), "metrics_torch"), targets)
    stop = os.path.join(ctx.raw, "stop")
    out_json = os.path.join(ctx.raw, "train-{rank}.json")
    textfile = os.path.join(ctx.raw, "final-%r.prom")
    cmd = [ctx.shim, "trace", "--gpu", "--metrics-listen", targets[0], "--metrics", textfile, "--metrics-interval", "2", "--step-range", "step", "--",
           ctx.python, "-m", "torch.distributed.run",
           "--nproc_per_node", "2", "--master_port", str(mt.free_port()), os.path.join(os.path.dirname(ctx.src), "metrics_torch", "train.py"),
           "--seconds", str(TRAIN_S), "--out", out_json, "--stop", stop]
    log = open(os.path.join(ctx.raw, "job.log"), "w")
    # The watchdog keeps the progress state the NCCL series read (metrics_torch).
    env = dict(os.environ, CUDART_SHIM_WATCHDOG="600", **ctx.ours())
    job = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True, cwd=ctx.raw, env=env)
    q, done, ok_scrape = {}, [], False
    try:
        done, _ = mt.done_lines(job.stdout, 2)
        ok_scrape = all(d.startswith("DONE") for d in done) and prom.scrape_after(time.time() + 0.1)
        q = {k: prom.query(k) for k in mt.QUERIES}
        ctx.write("prometheus-api.json", json.dumps(q, indent=1))
    finally:
        open(stop, "w").close()
        job.communicate(timeout=120)
        log.close()
        prom.stop()
    err = open(os.path.join(ctx.raw, "job.log")).read()
    addrs = sorted(set(l.split("metrics at ")[1].split("/metrics")[0][7:] for l in err.splitlines() if "metrics at http://" in l))
    ctx.row("PORT + LOCAL_RANK", addrs == targets, f"{addrs}", "job.log")
    up = sorted(x["metric"]["instance"] for x in q.get('up{job="shim"}', []) if x["value"][1] == "1")
    ctx.row("both scraped", ok_scrape and up == targets, f"up: {up}", "prometheus-api.json")
    ranks = {x["metric"].get("rank") for x in q.get("cudart_shim_calls_total", [])}
    ctx.row("two series by rank", ranks == {"0", "1"}, f"ranks {sorted(r or '-' for r in ranks)}", "prometheus-api.json")
    by_rank = {}
    for x in q.get("cudart_shim_memory_used_bytes", []):
        if x["metric"].get("device", "host") != "host":
            by_rank.setdefault(x["metric"].get("rank"), set()).add(x["metric"].get("gpu_uuid"))
    uu = [u for s in by_rank.values() for u in s]
    ctx.row("gpu_uuid per rank", sorted(by_rank) == ["0", "1"] and len(set(uu)) == 2 and all(len(s) == 1 for s in by_rank.values()), json.dumps({k: sorted(v) for k, v in by_rank.items()}), "prometheus-api.json")
    steps = {x["metric"].get("rank"): int(float(x["value"][1])) for x in q.get("cudart_shim_step_seconds_count", [])}
    made = {d.split()[1]: int(d.split()[2]) for d in done if len(d.split()) == 3}
    ctx.row("step count per rank", steps == made and len(made) == 2, f"histogram {steps} vs steps made {made}", "prometheus-api.json")
    for r in ("0", "1"):
        train = os.path.join(ctx.raw, f"train-{r}.json")
        if not os.path.exists(train):
            ctx.row(f"rank {r}: job", False, "no train-{r}.json (the rank did not finish)", "job.log")
            continue
        mt.verify_rank(ctx, q, r, json.load(open(train)), textfile.replace("%r", r), err, tag=f"rank {r}: ")
