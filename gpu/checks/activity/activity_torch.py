#!/usr/bin/env python3
"""A PyTorch training step for the GPU-activity measurements (gpu/checks/activity/activity.py).

usage: gpu-activity-torch.py MODE STEPS [KERNELS_JSON]
  MODE plain: run the steps (cudart-shim's tracing, if any, comes from the
              environment: LD_PRELOAD and CUDART_SHIM_TRACE)
  MODE prof:  the same under PyTorch's profiler with CUDA activities
              (torch.profiler, Kineto, CUPTI), started before any CUDA work
              and stopped after the last step; writes every GPU kernel,
              copy and memset it recorded, summed by name, to KERNELS_JSON
Prints `STEP wall_us=<median> cpu_us=<median>` over STEPS steps after 5
warm-up steps, each step ended by a device synchronize.
GA_SIZE=small (default: batch 128, width 2048, bound by the host's launch
rate) or large (batch 1024, width 4096, bound by the GPU).
"""
import json, os, statistics, sys, time

import torch
import torch.nn.functional as F

mode, steps = sys.argv[1], int(sys.argv[2])
prof = None
if mode == "prof":
    from torch.profiler import ProfilerActivity, profile
    prof = profile(activities=[ProfilerActivity.CUDA])
    prof.__enter__()

batch, width = (1024, 4096) if os.environ.get("GA_SIZE") == "large" else (128, 2048)
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(1024, width), torch.nn.GELU(), torch.nn.LayerNorm(width),
    torch.nn.Linear(width, width), torch.nn.GELU(), torch.nn.Dropout(0.1),
    torch.nn.Linear(width, 1000),
).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(batch, 1024, device="cuda")
y = torch.randint(0, 1000, (batch,), device="cuda")


def step():
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


for _ in range(5):
    step()
torch.cuda.synchronize()
wall, cpu = [], []
for _ in range(steps):
    w0, c0 = time.perf_counter(), time.process_time()
    step()
    torch.cuda.synchronize()
    wall.append(time.perf_counter() - w0)
    cpu.append(time.process_time() - c0)
print(f"STEP wall_us={statistics.median(wall) * 1e6:.1f} cpu_us={statistics.median(cpu) * 1e6:.1f}", flush=True)

if prof is not None:
    prof.__exit__(None, None, None)
    path = sys.argv[3]
    prof.export_chrome_trace(path + ".trace")
    with open(path + ".trace") as f:
        events = json.load(f)["traceEvents"]
    out = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            r = out.setdefault(e["cat"] + ":" + e["name"], [0, 0])
            r[0] += 1
            r[1] += round(e["dur"] * 1000)
    with open(path, "w") as f:
        json.dump(out, f)
