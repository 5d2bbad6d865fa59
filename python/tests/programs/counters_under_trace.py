"""Run under `cudart-shim trace` on the fake driver: make known runtime
calls through the preloaded runtime, then write what the module reads
(counters, pool statistics, function names) as JSON to argv[1]."""

import ctypes
import json
import os
import sys

import cudart_shim

rt = cudart_shim.runtime()
# The runtime the command preloaded: a reference, nothing loaded.
cuda = ctypes.CDLL(rt.path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
n = ctypes.c_int()
assert cuda.cudaGetDeviceCount(ctypes.byref(n)) == 0 and n.value >= 1, n.value
ptr = ctypes.c_void_p()
assert cuda.cudaMalloc(ctypes.byref(ptr), ctypes.c_size_t(1 << 20)) == 0
assert cuda.cudaMemset(ptr, 0, ctypes.c_size_t(1 << 20)) == 0
pool_in_use = rt.pool_stats(0)
for _ in range(3):
    assert cuda.cudaDeviceSynchronize() == 0
assert cuda.cudaFree(ptr) == 0
assert cuda.cudaSetDevice(n.value + 7) != 0  # a failed call: counted as failed
counters = cudart_shim.counters()
out = {
    "runtimes": {k: v.path for k, v in cudart_shim.runtimes().items()},
    "counters": counters,
    "one": cudart_shim.counter("cudaDeviceSynchronize"),
    "never": cudart_shim.counter("cudaGraphLaunch"),
    "names": {c["name"]: cudart_shim.function_name(c["function_id"]) for c in counters},
    "pool_in_use": pool_in_use,
}
with open(sys.argv[1], "w") as f:
    json.dump(out, f)
cudart_shim.flush()
