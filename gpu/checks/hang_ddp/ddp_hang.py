"""DDP where rank 1 sleeps before an all-reduce (gpu/checks/hang_ddp.py).

usage: torchrun --standalone --nproc-per-node 2 ddp_hang.py --out DIR [--steps 40] [--at 30] [--sleep 20]

A small model under DistributedDataParallel; at step --at, rank 1 sleeps
--sleep seconds in Python (NVTX range "step N" open) before the step's
backward (whose gradient all-reduce the other rank then waits for), writing
the sleep's start (unix ns) to DIR/sleep-start.txt. Rank 0 writes the time
it entered that step to DIR/step-start-rank0.txt. Each rank prints
"rank R done" at the end."""
import argparse, os, time
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--steps", type=int, default=40)
ap.add_argument("--at", type=int, default=30)
ap.add_argument("--sleep", type=float, default=20)
a = ap.parse_args()

rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
torch.manual_seed(1)
model = DDP(torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 10)).cuda(), device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
x = torch.randn(64, 256, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
for step in range(a.steps):
    torch.cuda.nvtx.range_push(f"step {step}")
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    if step == a.at:
        torch.cuda.synchronize()
        if rank == 1:
            open(os.path.join(a.out, "sleep-start.txt"), "w").write(str(time.time_ns()))
            time.sleep(a.sleep)
        else:
            open(os.path.join(a.out, "step-start-rank0.txt"), "w").write(str(time.time_ns()))
    loss.backward()
    opt.step()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
dist.destroy_process_group()
print(f"rank {rank} done")
