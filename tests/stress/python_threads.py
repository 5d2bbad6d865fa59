"""Python threads calling through cudart_shim hooks (scripts/stress, mode
`python`): the same mix and report lines as tests/c/stress.c, from T Python
threads through ctypes, with an `after` hook on every function of the mix
counting what it sees. The runtime is loaded first (CUDART_SHIM_LIBRARY,
RTLD_GLOBAL), as a preload would.

    python_threads.py T K
"""
import ctypes
import os
import sys
import threading

lib = ctypes.CDLL(os.environ["CUDART_SHIM_LIBRARY"], mode=os.RTLD_GLOBAL)
import cudart_shim  # noqa: E402  (after the runtime is loaded)

INVALID_DEVICE = 101
NAMES = ["cudaGetDevice", "cudaMalloc", "cudaMemset", "cudaFree", "cudaSetDevice", "cudaGetLastError"]
T, K = int(sys.argv[1]), int(sys.argv[2])
seen = {n: 0 for n in NAMES}
lock = threading.Lock()


def saw(call):
    with lock:
        seen[call.name] += 1


hook = cudart_shim.hook(",".join(NAMES), "after", saw)
lib.cudaGetLastError.restype = ctypes.c_int
gate = threading.Barrier(T)


def worker():
    gate.wait()
    d = ctypes.c_int(-1)
    p = ctypes.c_void_p()
    for _ in range(K):
        rs = [
            lib.cudaGetDevice(ctypes.byref(d)),
            lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(4096)),
            lib.cudaMemset(p, 0, ctypes.c_size_t(4096)),
            lib.cudaFree(p),
            lib.cudaSetDevice(99),
            lib.cudaGetLastError(),
        ]
        if rs != [0, 0, 0, 0, INVALID_DEVICE, INVALID_DEVICE]:
            print("results", rs, file=sys.stderr)
            os._exit(3)


threads = [threading.Thread(target=worker) for _ in range(T)]
for t in threads:
    t.start()
for t in threads:
    t.join()
hook.remove()
n = T * K
print("pid", os.getpid())
for name in NAMES:
    print("calls", name, n)
    if seen[name] != n:
        print(f"hook saw {seen[name]} calls of {name}, not {n}", file=sys.stderr)
        os._exit(4)
print("errors cudaSetDevice cudaErrorInvalidDevice", n)
print("errors cudaGetLastError cudaErrorInvalidDevice", n)
print("allocations", n)
