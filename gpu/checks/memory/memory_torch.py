"""Helper of gpu/checks/memory/memory.py: one PyTorch / CuPy check per run, its
figures as one JSON line on stdout (prefixed RESULT)."""
import ctypes, json, os, struct, sys

mode = sys.argv[1]
out = {}


def flush_shim():
    """Write the memory report now (the shim's cudartShimFlush)."""
    try:
        ctypes.CDLL(None).cudartShimFlush()
        return True
    except Exception:
        return False


if mode == "cupy":
    import cupy
    free, total = cupy.cuda.runtime.memGetInfo()
    out.update(free=free, total=total)
    try:
        cupy.empty(5 << 30, dtype=cupy.uint8)
        out["oom"] = None
    except cupy.cuda.memory.OutOfMemoryError as e:
        out["oom"] = str(e)[:300]
    a = cupy.ones(1 << 28, dtype=cupy.uint8)  # 256 MiB fits
    out["fits"] = int(a.sum())
    print("RESULT", json.dumps(out))
    sys.exit(0)

import torch

if mode == "meminfo":
    free, total = torch.cuda.mem_get_info()
    out.update(free=free, total=total, props_total=torch.cuda.get_device_properties(0).total_memory)
elif mode in ("oom5", "expandable"):
    keep = []
    if mode == "expandable":
        keep.append(torch.empty(3 << 30, dtype=torch.uint8, device="cuda"))
        out["allocated_3gib"] = True
    try:
        keep.append(torch.empty((5 if mode == "oom5" else 2) << 30, dtype=torch.uint8, device="cuda"))
        out["oom"] = None
    except torch.OutOfMemoryError as e:
        out["oom"] = str(e)[:600]
elif mode == "train":
    torch.manual_seed(0)
    torch.backends.cudnn.deterministic = True
    torch.use_deterministic_algorithms(True)
    m = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).cuda()
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    g = torch.Generator(device="cuda").manual_seed(1)
    losses = []
    for step in range(50):
        x = torch.randn(256, 512, device="cuda", generator=g)
        y = torch.randint(0, 10, (256,), device="cuda", generator=g)
        loss = torch.nn.functional.cross_entropy(m(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(struct.pack("<f", loss.item()).hex())
    out["losses"] = losses
elif mode == "nccl":
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
    # Warm-up: the first communicator, torch's kernels (modules load
    # lazily and take device memory the ledger does not count).
    t = torch.ones(1 << 20, device="cuda")
    dist.all_reduce(t)
    (t.view(1024, 1024) @ t.view(1024, 1024)).sum().item()
    torch.cuda.synchronize()
    mem = os.environ["CUDART_SHIM_TRACE_MEMORY_FILE"]
    flush_shim()
    os.replace(mem, mem + ".t0")
    f0, _ = torch.cuda.mem_get_info()
    # Measured: a second communicator and its buffers (libnccl), tensors
    # (PyTorch's caching allocator).
    g2 = dist.new_group([0])
    t2 = torch.ones(1 << 22, device="cuda")
    dist.all_reduce(t2, group=g2)
    big = [torch.empty(64 << 20, dtype=torch.uint8, device="cuda") for _ in range(4)]
    torch.cuda.synchronize()
    f1, _ = torch.cuda.mem_get_info()
    flush_shim()
    os.replace(mem, mem + ".t1")
    out.update(driver_used_change=f0 - f1, reserved=torch.cuda.memory_reserved(), keep=len(big))
    dist.destroy_process_group()
print("RESULT", json.dumps(out))
