#!/usr/bin/env python3
"""cudaProfilerStart/Stop capture windows in programs that never load our
runtime, through the driver interposer (issue #26), one command.

Here (no GPU needed; after `cargo build --release --workspace` and
scripts/setup-cuda):
    gpu/checks/profiler/profiler.py --prepare DIR
  copies target/release's libcudart_shim.so, driver/libcuda.so.1 and the
  `cudart-shim` command to DIR and builds DIR/profiler_static
  (tests/cu/profiler_static.cu with nvcc's defaults: NVIDIA's runtime
  linked statically).
On the GPU machine:
    gpu/checks/profiler/profiler.py --lib DIR --out OUT
  1. profiler_static (1 launch, cudaProfilerStart, 3 launches,
     cudaProfilerStop, 5 launches) under `cudart-shim trace`: unwindowed,
     cuProfilerStart/Stop are traced calls (1 each) and the launches total 9;
     under --capture-range=cudaProfilerApi: "Capture windows: 1 window", only
     the 3 launches inside and the cuProfilerStop that closed it.
  2. CuPy (cudart linked statically into CuPy): cupyx.profiler.profile()
     around 3 elementwise kernels, after a warm-up one and before 5 more,
     under --capture-range=cudaProfilerApi: 1 window, 3 launches.
Prints PASS/FAIL lines and the tables; writes OUT/results.txt. < 1 minute.
"""
import argparse, os, shutil, subprocess, sys, textwrap, time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(os.path.dirname(here)))  # gpu/checks/profiler/

CUPY = textwrap.dedent('''
    import cupy, cupyx.profiler
    x = cupy.arange(1 << 20, dtype=cupy.float32)
    def kernels(n):
        for _ in range(n):
            y = x * 2
        cupy.cuda.runtime.deviceSynchronize()
        return y
    kernels(1)  # compiles and loads the kernel outside the window
    with cupyx.profiler.profile():
        kernels(3)
    y = kernels(5)
    print("cupy done", float(y[3]))
''')


def prepare(d):
    # d already holds our libraries (gpu/checks/profiler.py links them there).
    cuda = subprocess.run([os.path.join(root, "scripts", "setup-cuda")], capture_output=True, text=True, check=True).stdout.strip()
    cmd = [os.path.join(cuda, "nvidia/cu13/bin/nvcc"), "-arch=sm_90", "-O1", os.path.join(root, "tests/cu/profiler_static.cu"),
           "-o", os.path.join(d, "profiler_static"), "-L" + os.path.join(cuda, "nvidia/cu13/lib")]
    subprocess.run(cmd, check=True)
    print(f"prepared {d}: carry it to the GPU machine and run gpu/checks/profiler/profiler.py --lib {d} --out OUT")


class Run:
    def __init__(self, a):
        self.d = os.path.abspath(a.lib)
        self.out = os.path.abspath(a.out)
        os.makedirs(self.out, exist_ok=True)
        self.log = open(os.path.join(self.out, "results.txt"), "w")
        self.failed = 0
        self.cli = os.path.join(self.d, "cudart-shim")
        self.cupy = os.path.join(self.out, "profiler_cupy.py")
        with open(self.cupy, "w") as f:
            f.write(CUPY)

    def say(self, *x):
        s = " ".join(str(v) for v in x)
        print(s, flush=True)
        self.log.write(s + "\n")
        self.log.flush()

    def check(self, what, ok, detail=""):
        self.say(("PASS " if ok else "FAIL ") + what + (f": {detail}" if detail else ""))
        if not ok:
            self.failed += 1

    def trace(self, args, cmd, timeout=180):
        e = dict(os.environ, PYTHONUNBUFFERED="1")
        for k in ["CUDART_SHIM_TRACE", "LD_PRELOAD", "CUDART_SHIM_DRIVER"]:
            e.pop(k, None)
        try:
            p = subprocess.run([self.cli, "trace"] + args + ["--"] + cmd, env=e, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as x:
            return 127, "", repr(x)
        return p.returncode, p.stdout, p.stderr


def calls(text):
    """{name: Num Calls} of the API summary table (cuda_api_sum)."""
    i = text.find("(cuda_api_sum)")
    out = {}
    if i < 0:
        return out
    for line in text[i:].splitlines()[4:]:
        w = line.split()
        if len(w) < 9:
            break
        out[w[-1]] = int(w[2].replace(",", ""))
    return out


def launches(rows):
    return sum(n for name, n in rows.items() if name.startswith("cuLaunch"))


def part1(r):
    exe = os.path.join(r.d, "profiler_static")
    r.say("\n== 1. profiler_static (nvcc defaults: static runtime) under cudart-shim trace")
    rc, o, e = r.trace([], [exe])
    r.say(o.strip())
    r.say(e[-3000:])
    if rc != 0:
        return r.check("profiler_static ran", False, f"exit {rc}")
    rows = calls(e)
    r.check("unwindowed: cuProfilerStart and cuProfilerStop traced once each",
            rows.get("cuProfilerStart") == 1 and rows.get("cuProfilerStop") == 1,
            f"cuProfilerStart {rows.get('cuProfilerStart')}, cuProfilerStop {rows.get('cuProfilerStop')}")
    r.check("unwindowed: no untraced cuProfilerStart entry point", "cuProfilerStart [entry point not traced" not in e)
    r.check("unwindowed: 9 launches", launches(rows) == 9, f"{launches(rows)}")
    r.say("\n-- under --capture-range=cudaProfilerApi")
    rc, o, e = r.trace(["--capture-range=cudaProfilerApi"], [exe])
    r.say(o.strip())
    r.say(e[-3000:])
    if rc != 0:
        return r.check("profiler_static ran windowed", False, f"exit {rc}")
    rows = calls(e)
    r.check("windowed: 'Capture windows: 1 window'", "Capture windows: 1 window:" in e)
    r.check("windowed: the 3 launches inside only", launches(rows) == 3, f"{launches(rows)}")
    r.check("windowed: cuProfilerStop recorded, cuProfilerStart (window closed then) not",
            rows.get("cuProfilerStop") == 1 and "cuProfilerStart" not in rows, str({k: rows.get(k) for k in ("cuProfilerStart", "cuProfilerStop")}))
    r.check("windowed: start-up calls (cuInit, cuGetProcAddress_v2) outside", "cuInit" not in rows and "cuGetProcAddress_v2" not in rows)


def part2(r):
    r.say("\n== 2. CuPy (static cudart): cupyx.profiler.profile() under --capture-range=cudaProfilerApi")
    rc, o, e = r.trace(["--capture-range=cudaProfilerApi"], [sys.executable, r.cupy])
    r.say(o.strip())
    r.say(e[-3000:])
    if rc != 0:
        return r.check("CuPy ran", False, f"exit {rc} (CuPy installed?)")
    rows = calls(e)
    r.check("CuPy: 'Capture windows: 1 window'", "Capture windows: 1 window:" in e)
    r.check("CuPy: the 3 launches inside only", launches(rows) == 3, f"{launches(rows)}")
    r.check("CuPy: cuProfilerStop recorded", rows.get("cuProfilerStop") == 1, str(rows.get("cuProfilerStop")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prepare", metavar="DIR", help="here: copy the release build and build profiler_static into DIR")
    ap.add_argument("--lib", metavar="DIR", help="on the GPU machine: the folder --prepare made")
    ap.add_argument("--out", metavar="DIR", default=os.environ.get("OUT", "gpu-profiler-out"))
    a = ap.parse_args()
    if a.prepare:
        return prepare(os.path.abspath(a.prepare))
    if not a.lib:
        ap.error("--lib DIR (on the GPU machine) or --prepare DIR (here)")
    r = Run(a)
    r.say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    try:
        r.say(subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip())
    except OSError as x:
        r.say(f"nvidia-smi: {x}")
    for n, part in [(1, part1), (2, part2)]:
        try:
            part(r)
        except Exception as x:  # a part that breaks is a failure, the other still runs
            r.check(f"part {n}", False, repr(x))
    r.say(f"\n{'ALL PASS' if r.failed == 0 else f'{r.failed} FAILED'}; results in {r.out}/results.txt")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
