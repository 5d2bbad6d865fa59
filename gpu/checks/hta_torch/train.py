#!/usr/bin/env python3
"""A small training job for gpu/checks/hta_torch.py:
  train.py                : each step inside an NVTX range "step" (for
                            `cudart-shim trace --step-range step`);
  train.py --profile DIR  : also torch.profiler around the same STEPS steps
                            (every step active: ProfilerStep#0..), its
                            Kineto JSON in DIR/rank0.json. Under `cudart-shim
                            trace --gpu` this gives two traces of the same
                            kernel executions (CUPTI shared: docs/CUPTI.md).
Deterministic: the same kernels in the same order each run."""
import argparse
import os

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--profile", default="")
    a = ap.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(512, 1024, device=dev)
    y = torch.randn(512, 1024, device=dev)
    torch.cuda.synchronize()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()

    if a.profile:
        os.makedirs(a.profile, exist_ok=True)
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        sched = torch.profiler.schedule(wait=0, warmup=0, active=a.steps, repeat=1)
        out = os.path.join(a.profile, "rank0.json")
        with torch.profiler.profile(activities=acts, schedule=sched, on_trace_ready=lambda p: p.export_chrome_trace(out)) as p:
            for _ in range(a.steps):
                torch.cuda.nvtx.range_push("step")
                step()
                torch.cuda.nvtx.range_pop()
                p.step()
    else:
        for _ in range(a.steps):
            torch.cuda.nvtx.range_push("step")
            step()
            torch.cuda.nvtx.range_pop()
    print("train done")


main()
