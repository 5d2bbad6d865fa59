"""A ~60 s PyTorch training job for the metrics GPU check (gpu/checks/
metrics_torch.py), run under `cudart-shim trace --gpu --metrics-listen ...
--step-range step`: each step is the NVTX range "step" (forward, backward,
optimizer, an NCCL all-reduce of the gradients' norm over a one-rank group
(two ranks under torchrun), synchronized inside the range). The ranks stop
together: the all-reduce carries each rank's "time is up" flag, so no rank
enters an all-reduce the others never make. After the last
step: writes OUT (steps made, torch.cuda.memory_reserved()), prints DONE and
waits, making no CUDA call, until the file STOP exists (the check has its
last scrape then), at most 120 s.

    train.py --seconds S --out OUT --stop STOP   ({rank} in OUT: the rank)

stdout: `DONE RANK STEPS` after the last step.
"""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist

p = argparse.ArgumentParser()
p.add_argument("--seconds", type=float, default=60)
p.add_argument("--out", required=True)
p.add_argument("--stop", required=True)
a = p.parse_args()

rank = int(os.environ.get("RANK", "0"))
world = int(os.environ.get("WORLD_SIZE", "1"))
local = int(os.environ.get("LOCAL_RANK", "0"))
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29561")
torch.cuda.set_device(local)
dev = torch.device("cuda", local)
dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)
).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(256, 1024, device=dev)
y = torch.randn(256, 1024, device=dev)

steps = 0
t0 = time.time()
done = False
while not done:
    torch.cuda.nvtx.range_push("step")
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    norm = torch.stack([q.grad.norm() for q in model.parameters()]).norm().reshape(1)
    up = torch.full((1,), float(time.time() - t0 >= a.seconds), device=dev)
    both = torch.cat([norm, up])
    dist.all_reduce(both)
    batch = x.to("cpu", non_blocking=False)[:1]  # a copy back each step (memcpy class)
    done = both[1].item() > 0  # synchronizes: the all-reduce has ended
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    steps += 1
    del batch
torch.cuda.synchronize()
reserved = torch.cuda.memory_reserved(dev)
with open(a.out.replace("{rank}", str(rank)), "w") as f:
    json.dump({"steps": steps, "reserved": reserved, "rank": rank, "world": world, "seconds": time.time() - t0}, f)
print("DONE", rank, steps, flush=True)
for _ in range(2400):
    if os.path.exists(a.stop):
        break
    time.sleep(0.05)
dist.destroy_process_group()
