"""The PyTorch program of gpu/checks/wheel/wheel.py: run under `cudart-shim trace`.

Some GPU work (matmuls through cuBLAS, an elementwise kernel, a reduction
copied back), then the module's counters are read and written to argv[1]
as JSON; then flush() writes the summary and os._exit(0) ends the process
without the interpreter's teardown, so the summary holds exactly the calls
the module read (the shim's own cudartShim* calls are not counted)."""

import json
import os
import sys

import torch

import cudart_shim

x = torch.randn(1024, 1024, device="cuda")
for _ in range(20):
    x = torch.relu(x @ x) / 1024
torch.cuda.synchronize()
total = x.sum().item()
read = {
    "runtimes": {k: v.path for k, v in cudart_shim.runtimes().items()},
    "version": cudart_shim.__version__,
    "counters": cudart_shim.counters(),
    "pool": cudart_shim.pool_stats(0),
    "total": total,
}
with open(sys.argv[1], "w") as f:
    json.dump(read, f)
cudart_shim.flush()
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
