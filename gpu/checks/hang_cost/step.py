"""A launch-bound PyTorch training step, measured in rounds on request
(gpu/checks/hang_cost.py): each line "go" on stdin runs one round of
STEPS steps and prints "round WALL_US CPU_US" (medians per step: wall
clock, and the process's CPU time per step over the round); "quit" ends.
Small tensors: the step's time is the host's launch path."""
import os, statistics, sys, time
import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
os.sched_setaffinity(0, {int(os.environ.get("PIN_CPU", "2"))})
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(64, 64) for _ in range(8)]).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(32, 64, device="cuda")


def step():
    opt.zero_grad(set_to_none=True)
    model(x).square().mean().backward()
    opt.step()


for _ in range(20):
    step()
torch.cuda.synchronize()
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() != "go":
        break
    walls = []
    c0 = time.process_time()
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        walls.append(time.perf_counter() - t0)
    cpu = (time.process_time() - c0) / steps
    print(f"round {statistics.median(walls) * 1e6:.1f} {cpu * 1e6:.1f}", flush=True)
