#!/usr/bin/env python3
"""Hooks and faults from Python (issue #29 on top of #24) on a GPU, one command.

usage:
  gpu/checks/pyhooks/pyhooks.py --prepare DIR        # here, after `cargo build --release`:
        # DIR gets the command, both runtimes, the interposer and its driver/
        # links (as `scripts/gpu prepare DIR`'s DIR/lib, which serves as well)
  gpu/checks/pyhooks/pyhooks.py --lib DIR [--out OUT]  # on the GPU machine, from the repository
        # root (the module is python/cudart_shim of this checkout, PYTHONPATH)

Or as the check `pyhooks` of the runner: `scripts/gpu run DIR --out OUT pyhooks`.

Each check runs gpu/checks/pyhooks/pyhooks_torch.py MODE under `DIR/cudart-shim
trace` in a fresh process and prints PASS or FAIL with what it saw:
 1. readme: the README's example: cudart_shim.fail("cudaMalloc", ...) around
    a 1 GiB allocation -> torch.OutOfMemoryError, after 2 refused cudaMalloc
    (the first and the caching allocator's retry); once the block is left the
    same allocation works.
 2. from_third: a hook refusing the 3rd cudaMalloc and every later one (docs/WHEEL.md)
    -> torch.OutOfMemoryError at the third allocation.
 3. nth3: fail(nth=3) alone -> no error reaches Python (the allocator frees
    its cache and retries; the retry works), fired 1, seen >= 4.
 4. launch: typed launch parameters (__cudaLaunchKernel, cudaLaunchKernel)
    of PyTorch's launches (grid and block sizes in range), as many as the
    counters say; a handler that raises is reported once and the result is
    still right.
 5. sync: an after hook answering 700 for cudaDeviceSynchronize ->
    torch.cuda.synchronize() raises with "illegal memory access".
 6. cupy: fail("cuMemAlloc*", "CUDA_ERROR_OUT_OF_MEMORY") -> CuPy (NVIDIA's
    runtime, driver calls through the interposer) raises
    cupy.cuda.memory.OutOfMemoryError; a before hook saw the driver calls
    (layer driver) with their typed bytesize; afterwards the allocation works.
Closing line: `N passed, M failed`. Results in OUT/results.txt, each
process's output in OUT/MODE.log.
"""
import argparse, json, os, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/pyhooks/
ap = argparse.ArgumentParser()
ap.add_argument("--lib", metavar="DIR")
ap.add_argument("--out", default=os.environ.get("OUT", "gpu-pyhooks-out"))
a = ap.parse_args()

if not a.lib:
    ap.error("--lib DIR or --prepare DIR")
D = os.path.abspath(a.lib)
OUT = os.path.abspath(a.out)
os.makedirs(OUT, exist_ok=True)
log = open(os.path.join(OUT, "results.txt"), "w")
results = []


def say(*x):
    s = " ".join(str(v) for v in x)
    print(s, flush=True)
    log.write(s + "\n")
    log.flush()


def check(name, ok, detail):
    results.append(ok)
    say("PASS" if ok else "FAIL", name, "|", detail)


def traced(mode):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [os.path.join(D, "cudart-shim"), "trace", "--", sys.executable, os.path.join(ROOT, "gpu", "checks", "pyhooks", "pyhooks_torch.py"), mode]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=150)
        rc, o, e = p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as x:
        rc, o, e = 124, "", repr(x)
    with open(os.path.join(OUT, f"{mode}.log"), "w") as f:
        f.write(f"$ {' '.join(cmd)}\nexit {rc} in {time.time() - t0:.1f} s\n--- stdout\n{o}\n--- stderr\n{e}\n")
    res = next((json.loads(l[len("RESULT "):]) for l in o.splitlines() if l.startswith("RESULT ")), None)
    return rc, o, e, res


def tail(e, n=400):
    return e.strip().replace("\n", " / ")[-n:]


rc, o, e, r = traced("readme")
check("README example: fail() around a 1 GiB allocation -> torch.OutOfMemoryError",
      rc == 0 and r is not None and "OOM after 2 refused cudaMalloc calls: " in o and r["after_ok"] and not r["active"],
      f"exit {rc}; stdout {o.strip()[:200]!r}; {r}; {'' if r else tail(e)}")

rc, o, e, r = traced("from_third")
check("a hook refusing the 3rd cudaMalloc on -> torch.OutOfMemoryError",
      rc == 0 and r is not None and (r["raised"] or "").startswith("OutOfMemoryError") and r["calls"] >= 3,
      f"exit {rc}; {r}; {'' if r else tail(e)}")

rc, o, e, r = traced("nth3")
check("fail(nth=3) alone is absorbed by the caching allocator's retry",
      rc == 0 and r is not None and r["raised"] is None and r["fired"] == 1 and r["seen"] >= 4,
      f"exit {rc}; {r}; {'' if r else tail(e)}")

rc, o, e, r = traced("launch")
ok = rc == 0 and r is not None
if ok:
    ls = r["launches"]
    sane = all(1 <= g <= 2**31 - 1 and 1 <= b <= 1024 for l in ls for g, b in zip(l[2:5], l[5:8]))
    ok = bool(ls) and sane and len(ls) == r["counter_delta"] and r["ok"] and r["exceptions"] == len(ls)
    reported = e.count("after hook boom on '__cudaLaunchKernel*,cudaLaunchKernel*,-cudaLaunchKernelExC*' raised")
    ok = ok and reported == 1
    detail = f"{len(ls)} launches seen, counter delta {r['counter_delta']}, first {ls[:2]}, result right {r['ok']}, exceptions {r['exceptions']}, reported {reported}x"
else:
    detail = f"exit {rc}; {tail(e)}"
check("typed launch parameters from PyTorch; a raising handler is contained", ok, detail)

rc, o, e, r = traced("sync")
check("after hook: cudaDeviceSynchronize answers 700 -> torch raises 'illegal memory access'",
      rc == 0 and r is not None and "illegal memory access" in (r["raised"] or ""),
      f"exit {rc}; {r}; {'' if r else tail(e)}")

rc, o, e, r = traced("cupy")
check("CuPy: a driver-layer fault from Python (cuMemAlloc*) -> cupy OutOfMemoryError",
      rc == 0 and r is not None and (r["raised"] or "").startswith("OutOfMemoryError") and r["fired"] >= 1
      and any(s[1] == "driver" and s[0].startswith("cuMemAlloc") for s in r["seen"]) and r["after_ok"],
      f"exit {rc}; {r}; {'' if r else tail(e)}")

say(f"{sum(results)} passed, {len(results) - sum(results)} failed")
sys.exit(0 if all(results) else 1)
