#!/usr/bin/env python3
"""A small PyTorch training loop for tracing and overhead runs on a GPU.

    python3 docs/examples/torch_train_step.py [--steps N] [--warmup N]

Trains a small convolutional network on random data (forward, backward,
optimizer step, a copy back of the loss each step). Prints the mean time
per step over the measured steps (after warm-up), on the last line:
    step_ms <value>
Run it untraced with NVIDIA's runtime and under `cudart-shim trace` to
compare (docs/PERFORMANCE.md).
"""
import argparse, time
import torch
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=50)
ap.add_argument("--warmup", type=int, default=10)
ap.add_argument("--batch", type=int, default=64)
a = ap.parse_args()

dev = torch.device("cuda")
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.Conv2d(64, 128, 3, padding=1, stride=2), nn.BatchNorm2d(128), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10),
).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
x = torch.randn(a.batch, 3, 64, 64, device=dev)
y = torch.randint(0, 10, (a.batch,), device=dev)

def step():
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()  # a device-to-host copy and a sync, every step

for _ in range(a.warmup):
    step()
torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(a.steps):
    loss = step()
torch.cuda.synchronize()
ms = (time.perf_counter() - t) * 1000 / a.steps
print(f"device {torch.cuda.get_device_name()} torch {torch.__version__} cuda {torch.version.cuda}")
print(f"final loss {loss:.4f}")
print(f"step_ms {ms:.3f}")
