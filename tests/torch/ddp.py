#!/usr/bin/env python3
"""A small DistributedDataParallel training run for two (or more) GPUs.

usage: torchrun --standalone --nproc-per-node 2 tests/torch/ddp.py [--steps N] [--warmup N] [--out DIR]

Each rank trains the same small transformer-style MLP on its own shard of
synthetic data, gradients all-reduced by NCCL. Everything is seeded and
deterministic (torch.use_deterministic_algorithms; set
CUBLAS_WORKSPACE_CONFIG=:4096:8), so two runs on one machine give the same
losses bit for bit, whichever CUDA runtime is underneath.

Prints, per rank (stdout, one line each, whole lines):
  rank R step S loss 0x1.8e3c...p-1      (float.hex: bitwise)
  rank R params sha256 HEX               (every parameter after training)
  rank R STEP_TIME_MEDIAN_S 0.001234     (steps after the warm-up)
  rank R devices [d] nccl VERSION
With --out, also writes DIR/rank{R}.txt with the same lines.
gpu/checks/multi/multi.py runs it A/B with NVIDIA's runtime and with cudart-shim.
"""
import argparse, hashlib, os, statistics, sys, time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60, help="training steps (default 60)")
    ap.add_argument("--warmup", type=int, default=10, help="steps left out of the step time (default 10)")
    ap.add_argument("--out", default="", help="also write DIR/rank{R}.txt")
    ap.add_argument("--width", type=int, default=512, help="model width (default 512)")
    a = ap.parse_args()

    rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False

    torch.manual_seed(1234)  # the same initial weights on every rank
    d = a.width
    model = torch.nn.Sequential(*[Block(d) for _ in range(4)], torch.nn.Linear(d, 10)).cuda()
    model = DDP(model, device_ids=[local])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    # Each rank its own shard: a generator seeded by rank.
    g = torch.Generator(device="cuda").manual_seed(100 + rank)
    batch = 256
    lines, times = [], []
    for step in range(a.steps):
        x = torch.randn(batch, d, device="cuda", generator=g)
        y = torch.randint(0, 10, (batch,), device="cuda", generator=g)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        lines.append(f"rank {rank} step {step} loss {loss.item().hex()}")
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().float().cpu().numpy().tobytes())
    lines.append(f"rank {rank} params sha256 {h.hexdigest()}")
    lines.append(f"rank {rank} STEP_TIME_MEDIAN_S {statistics.median(times[a.warmup:]):.6f}")
    v = torch.cuda.nccl.version()
    v = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    lines.append(f"rank {rank} devices [{torch.cuda.current_device()}] nccl {v}")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    sys.stdout.flush()
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, f"rank{rank}.txt"), "w") as f:
            f.write(text)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
