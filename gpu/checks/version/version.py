#!/usr/bin/env python3
"""The runtime version rule on a GPU machine (issue #27 point 4), one command.

Here, no GPU needed (builds the probe, gathers the libraries):
  gpu/checks/version/version.py --prepare DIR [--lib target/release]
    DIR/versions       tests/c/versions.c (it dlopens the library it is given)
    DIR/ours/          our libcudart_shim.so and libcudart_shim12.so (--lib,
                       default target/release)
    DIR/nv135/         NVIDIA's 13.5 libcudart.so.13, from the pinned wheel
                       nvidia-cuda-runtime==13.5.37 in .cache/cuda/13.5
                       (scripts/setup-cuda); the GPU machine has only 13.0
    DIR/nv129/         NVIDIA's 12.9 libcudart.so.12 (.cache/cuda12), when there
  Carry DIR to the GPU machine with the working tree (it is small).

On the GPU machine:
  gpu/checks/version/version.py --lib DIR [--out OUT]
    For NVIDIA's 13.0 runtime (the machine's), NVIDIA's 13.5 runtime, NVIDIA's
    12.9, ours (13 and 12) and ours with CUDART_SHIM_RUNTIME_VERSION: what
    cudaRuntimeGetVersion and cudaDriverGetVersion answer, whether the common
    check `driver >= runtime` passes, and what a CUDA 13.1+ call
    (cudaFuncGetParamCount) answers on this driver. Prints PASS/FAIL lines and
    writes OUT/results.txt ($OUT by default).
"""
import argparse, glob, os, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/version/


def prepare(dir_, lib):
    os.makedirs(dir_, exist_ok=True)
    exe = os.path.join(dir_, "versions")
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", os.path.join(ROOT, "tests/c/versions.c"), "-o", exe, "-ldl"], check=True)
    ours = os.path.join(dir_, "ours")
    os.makedirs(ours, exist_ok=True)
    for name in ("libcudart_shim.so", "libcudart_shim12.so"):
        src = os.path.join(lib, name)
        if not os.path.exists(src):
            sys.exit(f"gpu-version: {src} is missing: build it (cargo build --release --workspace) or pass --lib")
        shutil.copy2(src, ours)
    cache = os.environ.get("CUDART_SHIM_CUDA_CACHE", os.path.join(ROOT, ".cache/cuda"))
    nv135 = os.path.join(cache, "13.5/nvidia/cu13/lib/libcudart.so.13")
    if not os.path.exists(nv135):
        sys.exit(f"gpu-version: {nv135} is missing: run scripts/setup-cuda (it installs the pinned 13.5 wheels)")
    os.makedirs(os.path.join(dir_, "nv135"), exist_ok=True)
    shutil.copy2(nv135, os.path.join(dir_, "nv135"))
    nv129 = os.path.join(os.environ.get("CUDART_SHIM_CUDA12_CACHE", os.path.join(ROOT, ".cache/cuda12")), "nvidia/cuda_runtime/lib/libcudart.so.12")
    if os.path.exists(nv129):
        os.makedirs(os.path.join(dir_, "nv129"), exist_ok=True)
        shutil.copy2(nv129, os.path.join(dir_, "nv129"))
    print(f"prepared {dir_}: run `gpu/checks/version/version.py --lib {dir_} --out OUT` on the GPU machine")


def nvidia_130():
    """The machine's NVIDIA libcudart.so.13 (PyTorch's wheel, or the toolkit's)."""
    cands = []
    try:
        import nvidia.cu13
        cands.append(os.path.join(os.path.dirname(nvidia.cu13.__file__), "lib"))
    except Exception:
        pass
    cands += ["/usr/local/cuda/lib64"] + sorted(glob.glob("/usr/local/cuda-13*/lib64"))
    for d in cands:
        p = os.path.join(d, "libcudart.so.13")
        if os.path.exists(p):
            return os.path.realpath(p)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prepare", metavar="DIR")
    ap.add_argument("--lib", metavar="DIR", help="with --prepare: our built libraries (default target/release); else the prepared DIR")
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-version-out"))
    a = ap.parse_args()
    if a.prepare:
        return prepare(os.path.abspath(a.prepare), a.lib or os.path.join(ROOT, "target/release"))
    if not a.lib:
        ap.error("give --prepare DIR (here) or --lib DIR (the prepared folder, on the GPU machine)")
    D = os.path.abspath(a.lib)
    os.makedirs(a.out, exist_ok=True)
    log = open(os.path.join(a.out, "results.txt"), "w")
    failed = 0

    def say(*x):
        s = " ".join(str(v) for v in x)
        print(s, flush=True)
        log.write(s + "\n")

    def verdict(ok, what):
        nonlocal failed
        failed += 0 if ok else 1
        say(("PASS " if ok else "FAIL ") + what)

    def ask(lib, env=None):
        # None of the caller's tracing or forced version (CUDART_SHIM_DRIVER
        # stays: a dry run on the fake driver sets it).
        e = {k: v for k, v in os.environ.items() if not k.startswith(("CUDART_SHIM_TRACE", "CUDART_SHIM_RUNTIME")) and k != "LD_PRELOAD"}
        e.update(env or {})
        p = subprocess.run([os.path.join(D, "versions"), lib, "new-call"], env=e, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            return None, p.stdout + p.stderr
        w = p.stdout.split()
        new = (p.stdout.split("new-call", 1)[1].split() if "new-call" in p.stdout else ["?"]) + [""]
        new = new[:2]
        return (int(w[1]), int(w[3]), new), p.stdout + p.stderr

    say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True)
        say("GPU:", smi.stdout.strip() or smi.stderr.strip())
    except OSError as e:
        say("GPU: nvidia-smi not found", e)
    runtimes = [
        ("NVIDIA 13.0 (the machine's)", nvidia_130(), None),
        ("NVIDIA 13.5 (pinned wheel, carried)", os.path.join(D, "nv135/libcudart.so.13"), None),
        ("NVIDIA 12.9 (pinned wheel, carried)", os.path.join(D, "nv129/libcudart.so.12"), None),
        ("ours 13 (libcudart_shim.so)", os.path.join(D, "ours/libcudart_shim.so"), None),
        ("ours 12 (libcudart_shim12.so)", os.path.join(D, "ours/libcudart_shim12.so"), None),
        ("ours 13, CUDART_SHIM_RUNTIME_VERSION=13050", os.path.join(D, "ours/libcudart_shim.so"), {"CUDART_SHIM_RUNTIME_VERSION": "13050"}),
    ]
    got = {}
    say(f"\n{'runtime':45} {'cudaRuntimeGetVersion':>22} {'cudaDriverGetVersion':>21}  driver>=runtime  cudaFuncGetParamCount (13.2 call)")
    for name, lib, env in runtimes:
        if not lib or not os.path.exists(lib):
            say(f"{name:45} not here ({lib})")
            continue
        r, text = ask(lib, env)
        if r is None:
            say(f"{name:45} failed: {text.strip()}")
            failed += 1
            continue
        got[name] = r
        rv, dv, new = r
        say(f"{name:45} {rv:>22} {dv:>21}  {'yes' if dv >= rv else 'NO':>15}  {new[0]} {new[1]}")
    say("")
    nv130, nv135 = got.get("NVIDIA 13.0 (the machine's)"), got.get("NVIDIA 13.5 (pinned wheel, carried)")
    o13, o12 = got.get("ours 13 (libcudart_shim.so)"), got.get("ours 12 (libcudart_shim12.so)")
    forced = got.get("ours 13, CUDART_SHIM_RUNTIME_VERSION=13050")
    driver = (o13 or nv130 or (0, 0, None))[1]
    verdict(bool(o13) and o13[0] == min(13050, driver), f"ours 13 answers min(13050, driver {driver}) = {min(13050, driver)}: {o13 and o13[0]}")
    verdict(bool(o13) and o13[1] >= o13[0], "ours 13 passes `driver >= runtime`")
    verdict(bool(o12) and o12[0] == min(12090, driver), f"ours 12 answers min(12090, driver {driver}) = {min(12090, driver)}: {o12 and o12[0]}")
    verdict(bool(forced) and forced[0] == 13050, f"CUDART_SHIM_RUNTIME_VERSION=13050 forces 13050: {forced and forced[0]}")
    if nv130:
        verdict(o13 is not None and o13[0] == nv130[0], f"ours 13 answers what NVIDIA's 13.0 answers on this driver ({nv130[0]})")
    if nv135 and o13:
        verdict(nv135[2] == o13[2], f"the 13.2 call answers as NVIDIA's 13.5 does: NVIDIA {' '.join(nv135[2])}, ours {' '.join(o13[2])}")
        say(f"measured: NVIDIA's 13.5 runtime on driver {nv135[1]} answers cudaRuntimeGetVersion {nv135[0]} "
            f"({'above' if nv135[0] > nv135[1] else 'not above'} the driver's)")
    say(f"\n{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
