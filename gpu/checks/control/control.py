#!/usr/bin/env python3
"""Hooks and faults on a GPU machine (issue #24), in one run.

usage: gpu/checks/control/control.py --lib DIR [--out DIR]
  --lib: folder holding release builds of libcudart_shim.so, the `cudart-shim`
         command and driver/libcuda.so.1 (cargo build --release --workspace;
         copy target/release/{libcudart_shim.so,libcudart_shim12.so,cudart-shim,driver/})
  --out: results (default $OUT or ./gpu-out)

Cases, each a PASS/FAIL line in summary.txt (and printed):
1. sticky: tests/gpu_control/control_probe.cu with a real out-of-bounds write
   under NVIDIA's runtime, and with a harmless kernel under ours with
   --fault cudaDeviceSynchronize:nth=1:error=cudaErrorIllegalAddress:sticky;
   the codes of the fixed list of later calls are compared line by line
   (sticky-nvidia.txt, sticky-ours.txt: read the differences to adjust
   control::faults::STICKY_EXEMPT). The same with the static runtime (real
   vs --fault cuCtxSynchronize:nth=1:error=CUDA_ERROR_ILLEGAL_ADDRESS:sticky).
2. C program (-cudart shared): --fault cudaMalloc:nth=3:error=cudaErrorMemoryAllocation
   -> "cudaMalloc 3: cudaErrorMemoryAllocation", its error path, exit 3.
3. static runtime (nvcc default) and CuPy: --fault cuMemAlloc*:nth=3 /
   cuMemAlloc*:after=...:error=CUDA_ERROR_OUT_OF_MEMORY -> cudaErrorMemoryAllocation
   at the 3rd cudaMalloc; cupy.cuda.memory.OutOfMemoryError.
4. PyTorch OOM: cudaMalloc:after=1:error=cudaErrorMemoryAllocation under
   trace -> torch.OutOfMemoryError, with at least 2 injected cudaMalloc
   failures (the caching allocator freed its cache and retried).
5. PyTorch sticky illegal address: a real out-of-bounds Triton store vs
   cudaStreamSynchronize:nth=1:error=cudaErrorIllegalAddress:sticky: the same
   exception type and first line of message.
"""
import argparse, os, re, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/control/
RESULTS = []


def sh(cmd, env=None, timeout=180):
    e = dict(os.environ)
    for k in ("CUDART_SHIM_TRACE", "CUDART_SHIM_FAULTS", "LD_PRELOAD", "CUDART_SHIM_DRIVER"):
        e.pop(k, None)
    e.update(env or {})
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as x:
        return 124, x.stdout or "", f"{x.stderr or ''}\nTIMEOUT"
    except OSError as x:
        return 127, "", str(x)


def result(name, ok, detail):
    line = f"{'PASS' if ok else 'FAIL'} {name}: {detail}"
    print(line, flush=True)
    RESULTS.append(line)


def codes(text):
    return [l for l in text.splitlines() if re.match(r"^\S.* -?\d+ \w+$", l)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    ap.add_argument("--bin", help="a folder holding probe_shared and probe_static already built (gpu/checks/control.py's prepare)")
    a = ap.parse_args()
    lib, out = os.path.abspath(a.lib), os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    cli = os.path.join(lib, "cudart-shim")
    probe_src = os.path.join(ROOT, "tests/gpu_control/control_probe.cu")
    shared, static = os.path.join(a.bin or out, "probe_shared"), os.path.join(a.bin or out, "probe_static")
    for exe, flags in ((shared, ["-cudart", "shared"]), (static, [])) if not a.bin else ():
        rc, o, e = sh(["nvcc", "-O1", *flags, probe_src, "-o", exe], timeout=300)
        if rc != 0:
            result(f"build {os.path.basename(exe)}", False, e[-400:])
            return finish(out)

    # 1. sticky: NVIDIA's real illegal address vs our injected one.
    for label, exe, spec in (
        ("sticky (runtime, -cudart shared)", shared, "cudaDeviceSynchronize:nth=1:error=cudaErrorIllegalAddress:sticky"),
        ("sticky (static runtime, driver fault)", static, "cuCtxSynchronize*:nth=1:error=CUDA_ERROR_ILLEGAL_ADDRESS:sticky"),
    ):
        _, real, _ = sh([exe, "sticky", "real"])
        _, ours, err = sh([cli, "run", "--fault", spec, "--", exe, "sticky", "inject"])
        tag = "runtime" if exe == shared else "static"
        open(os.path.join(out, f"sticky-nvidia-{tag}.txt"), "w").write(real)
        open(os.path.join(out, f"sticky-ours-{tag}.txt"), "w").write(ours + err)
        r, o = codes(real), codes(ours)
        diff = [f"{x!r} vs {y!r}" for x, y in zip(r, o) if x != y]
        result(label, bool(r) and len(r) == len(o) and not diff, f"{len(r)} calls, {len(diff)} differ: {'; '.join(diff[:6])}")

    # 1b. the driver calls NVIDIA's static runtime makes after a real
    # illegal address, and what the driver answers (the driver's sticky
    # rules), against ours with the injected driver fault.
    def driver_results(text):
        rows, seen = [], False
        for l in text.splitlines():
            m = re.search(r"\] tid=\d+\s+(cu\w+)\(.*\) = (\w+)", l)
            if m:
                seen = seen or m.group(2) == "CUDA_ERROR_ILLEGAL_ADDRESS"
                if seen:
                    rows.append((m.group(1), m.group(2)))
        return rows
    _, _, real_log = sh([cli, "trace", "--calls", "--no-summary", "--", static, "sticky", "real"])
    _, _, ours_log = sh([cli, "trace", "--calls", "--no-summary", "--fault", "cuCtxSynchronize*:nth=1:error=CUDA_ERROR_ILLEGAL_ADDRESS:sticky", "--", static, "sticky", "inject"])
    open(os.path.join(out, "driver-calls-real.txt"), "w").write(real_log)
    open(os.path.join(out, "driver-calls-ours.txt"), "w").write(ours_log)
    rr, orr = driver_results(real_log), driver_results(ours_log)
    for f, r in sorted(set(rr)):
        print(f"DRIVER after sticky, NVIDIA: {f} = {r}")
    diff = sorted(set(orr) - set(rr))
    result("driver answers after a sticky error (static runtime)", bool(rr) and not diff, f"{len(rr)} real driver calls after the error; ours differ: {diff[:12]}")

    # 2. the 3rd cudaMalloc of a -cudart shared program.
    rc, o, e = sh([cli, "run", "--fault", "cudaMalloc:nth=3:error=cudaErrorMemoryAllocation", "--", shared, "mallocs"])
    result("C program, 3rd cudaMalloc", rc == 3 and "cudaMalloc 3: cudaErrorMemoryAllocation" in o and "error path" in o, f"exit {rc}: {o.strip()[-200:]}")

    # 3. static runtime and CuPy: the driver's allocation.
    rc, o, e = sh([cli, "run", "--fault", "cuMemAlloc*:nth=3:error=CUDA_ERROR_OUT_OF_MEMORY", "--", static, "mallocs"])
    result("static runtime, driver OOM", rc == 3 and "cudaErrorMemoryAllocation" in o, f"exit {rc}: {o.strip()[-200:]} {e.strip()[-200:]}")
    # CuPy's pool frees its cache and retries a failed allocation: every
    # allocation after the first second fails (x is made before, y after).
    cupy = "import time, cupy\nx = cupy.ones(1 << 20)\ncupy.cuda.Device().synchronize()\ntime.sleep(1.5)\ntry:\n    y = cupy.ones(1 << 28)\n    print('no error')\nexcept cupy.cuda.memory.OutOfMemoryError as e:\n    print('OOM', type(e).__name__, e)\n"
    rc, o, e = sh([cli, "run", "--fault", "cuMemAlloc*:after=1:error=CUDA_ERROR_OUT_OF_MEMORY", "--", sys.executable, "-c", cupy])
    result("CuPy, driver OOM", "OOM OutOfMemoryError" in o, f"exit {rc}: {o.strip()[-200:]} {e.strip()[-300:]}")
    # The same program under `run --memory-limit`: 1 GiB (its 2nd array) past 512 MiB.
    rc, o, e = sh([cli, "run", "--memory-limit", "512MiB", "--", sys.executable, "-c", cupy])
    result("CuPy, run --memory-limit 512MiB", "OOM OutOfMemoryError" in o, f"exit {rc}: {o.strip()[-300:]} {e.strip()[-300:]}")
    # Five 1 MiB cudaMalloc of NVIDIA's static runtime under a 2.5 MiB limit: the 3rd fails.
    rc, o, e = sh([cli, "run", "--memory-limit", "2560KiB", "--", static, "mallocs"])
    result("static runtime, run --memory-limit 2560KiB", rc == 3 and "cudaMalloc 3: cudaErrorMemoryAllocation" in o, f"exit {rc}: {o.strip()[-200:]} {e.strip()[-200:]}")

    # 4. PyTorch OOM after the caching allocator's free-and-retry.
    torch_oom = (
        "import time, torch\nx = torch.ones(1 << 20, device='cuda')\ntorch.cuda.synchronize()\ntime.sleep(1.5)\n"
        "try:\n    y = torch.ones(1 << 28, device='cuda')\n    print('no error')\nexcept torch.OutOfMemoryError as e:\n    print('OOM', type(e).__name__, str(e).splitlines()[0][:120])\n"
    )
    rc, o, e = sh([cli, "trace", "--fault", "cudaMalloc:after=1:error=cudaErrorMemoryAllocation", "--", sys.executable, "-c", torch_oom], timeout=240)
    injected = sum(int(m) for m in re.findall(r"^\s*(\d+)\s+cudaMalloc\s+cudaErrorMemoryAllocation \(injected\)", e, re.M))
    result("PyTorch OOM", "OOM OutOfMemoryError" in o and injected >= 2, f"exit {rc}; injected cudaMalloc failures {injected}; {o.strip()[-200:]} | {e.strip()[-600:]}")

    # 5. PyTorch sticky illegal address: real vs injected.
    torch_sticky = (
        "import sys, torch\nx = torch.zeros(4, device='cuda')\n"
        "if sys.argv[1] == 'real':\n    import triton, triton.language as tl\n"
        "    @triton.jit\n    def bad(p):\n        tl.store(p + (1 << 36), 1.0)\n    bad[(1,)](x)\n"
        "try:\n    torch.cuda.current_stream().synchronize()\n    print('no error')\nexcept Exception as e:\n    print('EXC', type(e).__name__, str(e).splitlines()[0])\n"
        "try:\n    y = torch.ones(4, device='cuda') + 1\n    torch.cuda.synchronize()\n    print('after: no error')\nexcept Exception as e:\n    print('AFTER', type(e).__name__, str(e).splitlines()[0])\n"
    )
    path = os.path.join(out, "torch_sticky.py")
    open(path, "w").write(torch_sticky)
    _, real, e1 = sh([sys.executable, path, "real"], timeout=240)
    _, ours, e2 = sh([cli, "run", "--fault", "cudaStreamSynchronize:nth=1:error=cudaErrorIllegalAddress:sticky", "--", sys.executable, path, "inject"], timeout=240)
    open(os.path.join(out, "torch-sticky.txt"), "w").write(f"--- NVIDIA, real\n{real}{e1[-2000:]}\n--- ours, injected\n{ours}{e2[-2000:]}\n")
    rl = [l for l in real.splitlines() if l.startswith(("EXC", "AFTER"))]
    ol = [l for l in ours.splitlines() if l.startswith(("EXC", "AFTER"))]
    result("PyTorch sticky illegal address", bool(rl) and rl == ol, f"real {rl} ours {ol}")
    return finish(out)


def finish(out):
    open(os.path.join(out, "summary.txt"), "w").write("\n".join(RESULTS) + "\n")
    fails = sum(1 for r in RESULTS if r.startswith("FAIL"))
    print(f"{len(RESULTS) - fails} PASS, {fails} FAIL")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
