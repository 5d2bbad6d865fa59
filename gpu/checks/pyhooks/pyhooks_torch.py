"""PyTorch (and CuPy) under `cudart-shim trace` with hooks and faults from
Python (gpu/checks/pyhooks/pyhooks.py runs it, one mode per process). Prints one line
`RESULT {json}` that the driver script judges."""

import json
import sys

import cudart_shim

mode = sys.argv[1]
if mode != "cupy":
    import torch
OOM = cudart_shim.error_code("cudaErrorMemoryAllocation")[0]


def emit(**kw):
    print("RESULT " + json.dumps(kw), flush=True)


def oom_text(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"


if mode == "readme":
    # The README's example, as written there.
    x = torch.ones(1 << 20, device="cuda")
    with cudart_shim.fail("cudaMalloc", "cudaErrorMemoryAllocation") as f:
        try:
            torch.empty(1 << 28, device="cuda")
        except torch.OutOfMemoryError as e:
            print("OOM after", f.fired, "refused cudaMalloc calls:", str(e).splitlines()[0])
    # Afterwards the hook is gone: the same allocation works.
    y = torch.empty(1 << 28, device="cuda")
    torch.cuda.synchronize()
    emit(fired=f.fired, seen=f.seen, after_ok=y.numel() == 1 << 28, active=f.active)

elif mode == "from_third":
    # docs/WHEEL.md: the 3rd cudaMalloc and every later one refused.
    x = torch.ones(1 << 20, device="cuda")
    n = 0

    def from_third(call):
        global n
        n += 1
        return OOM if n >= 3 else None

    raised = None
    with cudart_shim.hook("cudaMalloc", "instead", from_third):
        a = torch.empty(1 << 26, device="cuda")
        b = torch.empty(1 << 27, device="cuda")
        try:
            torch.empty(1 << 28, device="cuda")
        except torch.OutOfMemoryError as e:
            raised = oom_text(e)
    emit(raised=raised, calls=n)

elif mode == "nth3":
    # One refused cudaMalloc (the 3rd): the caching allocator frees its
    # cache, retries, and the retry works.
    x = torch.ones(1 << 20, device="cuda")
    raised = None
    with cudart_shim.fail("cudaMalloc", "cudaErrorMemoryAllocation", nth=3) as f:
        try:
            a = torch.empty(1 << 26, device="cuda")
            b = torch.empty(1 << 27, device="cuda")
            c = torch.empty(1 << 28, device="cuda")
            torch.cuda.synchronize()
        except torch.OutOfMemoryError as e:
            raised = oom_text(e)
    emit(raised=raised, fired=f.fired, seen=f.seen)

elif mode == "launch":
    # Typed launch parameters from PyTorch's own launches (nvcc 13's
    # <<<>>> stubs call __cudaLaunchKernel); a handler that raises does not
    # disturb the computation.
    x = torch.randn(1 << 20, device="cuda")
    torch.cuda.synchronize()
    launches = []

    def look(call):
        p = call.params
        launches.append([call.name, call.depth, p.gridDim.x, p.gridDim.y, p.gridDim.z, p.blockDim.x, p.blockDim.y, p.blockDim.z, p.sharedMem])

    def boom(call):
        raise ValueError("a handler that raises")

    cudart_shim.enable_counters()
    LAUNCHES = "__cudaLaunchKernel*,cudaLaunchKernel*,-cudaLaunchKernelExC*"
    names = cudart_shim.functions(LAUNCHES)
    count = lambda: sum(cudart_shim.counter(n)["calls"] for n in names)
    before = count()
    h = cudart_shim.hook(LAUNCHES, "before", look)
    bad = cudart_shim.hook(LAUNCHES, "after", boom)
    y = torch.relu(x) * 2 + 1
    s = (y.sum()).item()
    h.remove()
    bad.remove()
    after = count()
    want = (torch.relu(x) * 2 + 1).sum().item()
    emit(launches=launches, counter_delta=after - before, ok=abs(s - want) <= 1e-3 * max(1.0, abs(want)), exceptions=bad.exceptions)

elif mode == "sync":
    # An after hook makes cudaDeviceSynchronize answer cudaErrorIllegalAddress.
    x = torch.ones(1 << 20, device="cuda")
    raised = None
    with cudart_shim.hook("cudaDeviceSynchronize", "after", lambda call: 700 if call.result == 0 else None):
        try:
            torch.cuda.synchronize()
        except Exception as e:  # torch.AcceleratorError (a RuntimeError) in recent versions
            raised = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    emit(raised=raised)

elif mode == "cupy":
    # Driver-layer faults from Python: CuPy's allocations reach the driver
    # through the interposer; refusing cuMemAlloc* makes CuPy raise.
    import cupy

    x = cupy.ones(1 << 20)
    cupy.cuda.Device().synchronize()
    seen = []
    h = cudart_shim.hook("cuMemAlloc*", "before", lambda call: seen.append([call.name, call.layer, call.depth, call.params.bytesize if call.name == "cuMemAlloc_v2" else None]))
    raised = None
    with cudart_shim.fail("cuMemAlloc*", "CUDA_ERROR_OUT_OF_MEMORY") as f:
        try:
            cupy.ones(1 << 28)
        except cupy.cuda.memory.OutOfMemoryError as e:
            raised = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    h.remove()
    y = cupy.ones(1 << 28)
    cupy.cuda.Device().synchronize()
    emit(raised=raised, fired=f.fired, seen=seen[:4], after_ok=int(y.size) == 1 << 28)

else:
    sys.exit(f"unknown mode {mode}")
