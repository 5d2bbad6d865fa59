#!/usr/bin/env python3
"""DDP on two GPUs for gpu/checks/hta_ddp.py: 12 steps, each an NVTX range
"step"; rank 1 sleeps 10 ms before its backward pass, so it reaches every
all-reduce late (the straggler). One 256 MB gradient bucket: one all-reduce
per step, long enough for HTA's straggler analysis (it ignores
communication kernels shorter than 1% of a step)."""
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
torch.manual_seed(0)
d = 4096
model = DDP(torch.nn.Sequential(*[torch.nn.Linear(d, d) for _ in range(4)]).cuda(), device_ids=[local], bucket_cap_mb=512)
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(512, d, device="cuda")
y = torch.randn(512, d, device="cuda")
for s in range(12):
    torch.cuda.nvtx.range_push("step")
    loss = torch.nn.functional.mse_loss(model(x), y)
    if rank == 1:
        torch.cuda.synchronize()
        time.sleep(0.01)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
dist.destroy_process_group()
print(f"rank {rank} done")
