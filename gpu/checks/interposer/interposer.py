#!/usr/bin/env python3
"""The driver interposer on a GPU machine (issue #17), in one run.

usage: gpu/checks/interposer/interposer.py --lib DIR [--out DIR] [--deadline SECONDS] [--pairs N]
  --lib: folder holding release builds of libcudart_shim.so,
         libcudart_shim_driver.so and the `cudart-shim` command (the
         interposer's folder driver/libcuda.so.1 is made there if missing)
  --out: results (default $OUT or ./gpu-out)

Steps, each recorded as PASS/FAIL lines in summary.txt (and printed):
1. cost: benches/cpu/driver_cost.c (cuCtxGetCurrent, cuStreamQuery,
   cuLaunchKernel) with the real driver alone, through the interposer with
   tracing off, in summary mode and summary/16, interleaved A B C D x pairs;
2. every tests/gpu program built with nvcc's defaults (-cudart static): run
   without and with the interposer first on LD_LIBRARY_PATH (same stdout and
   exit status), then under `cudart-shim trace --` (its summary lists driver
   calls);
3. a cuda-python (cuda.bindings.driver) program and a CuPy program under
   `cudart-shim trace --`;
4. PyTorch's MLP training step (tests/torch/checks.py mlp) with our runtime
   preloaded and the interposer first on the library path, summary and
   timeline: driver calls nested under runtime calls, and the program's
   (cuBLAS's, PyTorch's) own driver calls.
Stops starting new steps past --deadline seconds (default 270).
"""
import argparse, concurrent.futures as cf, glob, json, os, re, shutil, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/interposer/
T0 = time.time()


def sh(cmd, env=None, timeout=120, cwd=None):
    e = dict(os.environ)
    for k in ("CUDART_SHIM_TRACE", "LD_PRELOAD", "CUDART_SHIM_DRIVER"):
        e.pop(k, None)
    e.update(env or {})
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as x:
        return 124, x.stdout or "", f"{x.stderr or ''}\nTIMEOUT"
    except OSError as x:
        return 127, "", str(x)


def rows(text):
    """Function names and call counts of a text summary's first table."""
    out, on = {}, False
    for l in text.splitlines():
        if "Num Calls" in l and "Name" in l and "Time (%)" in l:
            on = True
            continue
        if on and l.strip().startswith("---"):
            continue
        if on and not l.strip():
            if out:
                break
            continue
        if on:
            w = l.split()
            if len(w) >= 9:
                out[w[-1]] = int(w[2].replace(",", ""))
    return out


class Run:
    def __init__(self, a):
        self.a = a
        self.out = a.out
        os.makedirs(os.path.join(self.out, "build"), exist_ok=True)
        self.lib = os.path.abspath(a.lib)
        self.drv = os.path.join(self.lib, "driver")
        os.makedirs(self.drv, exist_ok=True)
        link = os.path.join(self.drv, "libcuda.so.1")
        if not os.path.exists(link):
            os.symlink("../libcudart_shim_driver.so", link)
        for n in ("libcudart.so.13",):
            p = os.path.join(self.lib, n)
            if not os.path.exists(p):
                os.symlink("libcudart_shim.so", p)
        self.cli = os.path.join(self.lib, "cudart-shim")
        self.nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        self.results = []
        self.summary = open(os.path.join(self.out, "summary.txt"), "w")

    def left(self):
        return self.a.deadline - (time.time() - T0)

    def record(self, ok, name, detail=""):
        line = f"{'PASS' if ok else 'FAIL'} {name} {detail}".rstrip()
        print(line, flush=True)
        self.summary.write(line + "\n")
        self.summary.flush()
        self.results.append(ok)

    def note(self, text):
        print(text, flush=True)
        self.summary.write(text + "\n")
        self.summary.flush()

    def interposer_env(self, extra=None):
        e = {"LD_LIBRARY_PATH": self.drv + (":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")}
        e.update(extra or {})
        return e

    # ---- 1. cost ---------------------------------------------------------
    def cost(self):
        exe = os.path.join(self.out, "build", "driver_cost")
        rc, o, e = sh(["cc", "-O2", os.path.join(ROOT, "benches/cpu/driver_cost.c"), "-o", exe, "-ldl"])
        if rc:
            return self.record(False, "cost/build", e.strip()[-200:])
        modes = [
            ("driver alone", {}),
            ("interposer off", self.interposer_env()),
            ("interposer summary", self.interposer_env({"CUDART_SHIM_TRACE": "summary", "CUDART_SHIM_TRACE_FILE": "/dev/null"})),
            ("interposer summary/16", self.interposer_env({"CUDART_SHIM_TRACE": "summary", "CUDART_SHIM_TRACE_SAMPLE": "16", "CUDART_SHIM_TRACE_FILE": "/dev/null"})),
        ]
        vals = {}
        for r in range(self.a.pairs):
            for name, env in modes:
                rc, o, e = sh([exe, "200000"], env, timeout=60)
                if rc:
                    return self.record(False, f"cost/{name}", e.strip()[-200:])
                for l in o.splitlines():
                    f, v = l.split()
                    vals.setdefault((name, f), []).append(float(v))
        self.note(f"cost: ns per call, median of {self.a.pairs} interleaved runs (each the best of 7 rounds); added = mode - driver alone")
        table = {}
        for f in ("cuCtxGetCurrent", "cuStreamQuery", "cuLaunchKernel"):
            base = statistics.median(vals[("driver alone", f)])
            cells = [f"{f:16} driver alone {base:8.2f}"]
            for name, _ in modes[1:]:
                v = statistics.median(vals[(name, f)])
                cells.append(f"{name} {v:8.2f} ({v - base:+.2f})")
                table[(f, name)] = v - base
            self.note("  " + " | ".join(cells))
        json.dump({f"{k[0]} {k[1]}": v for k, v in vals.items()}, open(os.path.join(self.out, "cost.json"), "w"), indent=1)
        self.record(True, "cost/measured")

    # ---- 2. static programs ---------------------------------------------
    def build(self, name, srcs):
        first = open(srcs[0]).readline()
        flags = first.split("nvcc:", 1)[1].split() if "nvcc:" in first else []
        exe = os.path.join(self.out, "build", name)
        # nvcc's defaults: the static runtime (no -cudart shared).
        cmd = [self.nvcc, "-arch=native", "-O2", "-Xcompiler", "-Wno-deprecated-declarations", "-include",
               os.path.join(ROOT, "tests/gpu/unbuffered.h"), "-o", exe] + flags + srcs
        if any("<cuda.h>" in open(s).read() for s in srcs):
            cmd.append("-lcuda")
        rc, o, e = sh(cmd, timeout=180)
        return (exe if rc == 0 else None), e

    def static_programs(self):
        progs = []
        for p in sorted(glob.glob(os.path.join(ROOT, "tests/gpu/*"))):
            b = os.path.basename(p)
            if p.endswith(".cu"):
                progs.append((b[:-3], [p]))
            elif os.path.isdir(p):
                progs.append((b, sorted(glob.glob(os.path.join(p, "*.cu")))))
        progs.append(("static_app", [os.path.join(ROOT, "tests/cu/static_app.cu")]))
        with cf.ThreadPoolExecutor(16) as ex:
            built = dict(zip([n for n, _ in progs], ex.map(lambda p: self.build(*p), progs)))

        def one(name):
            exe, err = built[name]
            if not exe:
                return (False, f"static/{name}", "build: " + (err.strip().splitlines() or [""])[-1][:200])
            plain = sh([exe], timeout=60)
            inter = sh([exe], self.interposer_env(), timeout=60)
            traced = sh([self.cli, "trace", "--", exe], timeout=60)
            r = rows(traced[2])
            cu = {k: v for k, v in r.items() if k.startswith("cu") and not k.startswith("cuda")}
            same = plain[0] == inter[0] == traced[0] and plain[1] == inter[1] == traced[1]
            with open(os.path.join(self.out, f"static_{name}.txt"), "w") as f:
                f.write(f"plain rc={plain[0]}\n{plain[1]}{plain[2]}\n--- interposer rc={inter[0]}\n{inter[1]}{inter[2]}\n--- trace rc={traced[0]}\n{traced[1]}{traced[2]}")
            ok = same and len(cu) > 0
            top = ", ".join(f"{k} {v}" for k, v in sorted(cu.items(), key=lambda kv: -kv[1])[:4])
            return (ok, f"static/{name}", f"rc={plain[0]}/{inter[0]}/{traced[0]} same_stdout={plain[1] == inter[1] == traced[1]} driver_rows={len(cu)} calls={sum(cu.values())} [{top}]")

        # Two at a time: the GPU is shared by the runs, not their outcome.
        with cf.ThreadPoolExecutor(4) as ex:
            for ok, name, detail in ex.map(one, [n for n, _ in progs]):
                self.record(ok, name, detail)

    # ---- 3. cuda-python and CuPy ----------------------------------------
    def python_programs(self):
        cuda_python = (
            "from cuda.bindings import driver as d\n"
            "import numpy as np\n"
            "def ck(r):\n"
            "    e = r[0] if isinstance(r, tuple) else r\n"
            "    assert int(e) == 0, e\n"
            "    return r[1:] if isinstance(r, tuple) and len(r) > 2 else (r[1] if isinstance(r, tuple) and len(r) == 2 else None)\n"
            "ck(d.cuInit(0)); dev = ck(d.cuDeviceGet(0)); ctx = ck(d.cuDevicePrimaryCtxRetain(dev)); ck(d.cuCtxSetCurrent(ctx))\n"
            "a = np.arange(1 << 16, dtype=np.float32); p = ck(d.cuMemAlloc(a.nbytes))\n"
            "ck(d.cuMemcpyHtoD(p, a, a.nbytes)); b = np.zeros_like(a); ck(d.cuMemcpyDtoH(b, p, a.nbytes))\n"
            "s = ck(d.cuStreamCreate(0))\n"
            "for _ in range(50): d.cuStreamQuery(s)\n"
            "ck(d.cuStreamDestroy(s)); ck(d.cuMemFree(p)); print('cuda-python ok', bool((a == b).all()))\n"
        )
        cupy = (
            "import cupy as cp\n"
            "x = cp.arange(1 << 20, dtype=cp.float32)\n"
            "k = cp.ElementwiseKernel('float32 x', 'float32 y', 'y = x * 2', 'dbl')\n"
            "y = k(x); s = float(y.sum()); cp.cuda.Stream.null.synchronize()\n"
            "print('cupy ok', s == float((1 << 20) * ((1 << 20) - 1)))\n"
        )
        for name, src in (("cuda-python", cuda_python), ("cupy", cupy)):
            if self.left() < 30:
                return self.record(False, f"python/{name}", "skipped: out of time")
            # Not named like the module it imports (cupy.py would shadow cupy).
            path = os.path.join(self.out, "build", name.replace("-", "_") + "_check.py")
            open(path, "w").write(src)
            plain = sh([sys.executable, path], timeout=90)
            traced = sh([self.cli, "trace", "--", sys.executable, path], timeout=90)
            r = rows(traced[2])
            cu = {k: v for k, v in r.items() if k.startswith("cu") and not k.startswith("cuda")}
            rt = {k: v for k, v in r.items() if k.startswith("cuda")}
            with open(os.path.join(self.out, f"python_{name}.txt"), "w") as f:
                f.write(f"plain rc={plain[0]}\n{plain[1]}{plain[2]}\n--- trace rc={traced[0]}\n{traced[1]}{traced[2]}")
            ok = plain[0] == 0 and traced[0] == 0 and plain[1] == traced[1] and len(cu) > 0
            top = ", ".join(f"{k} {v}" for k, v in sorted(cu.items(), key=lambda kv: -kv[1])[:6])
            self.record(ok, f"python/{name}", f"rc={plain[0]}/{traced[0]} out={traced[1].strip()!r} driver_rows={len(cu)} runtime_rows={len(rt)} [{top}]")

    # ---- 4. PyTorch ------------------------------------------------------
    def torch(self):
        if self.left() < 60:
            return self.record(False, "torch/mlp", "skipped: out of time")
        tl = os.path.join(self.out, "torch_mlp_timeline.json")
        env = self.interposer_env({
            "LD_PRELOAD": os.path.join(self.lib, "libcudart_shim.so"),
            "CUDART_SHIM_TRACE": "summary,timeline",
            "CUDART_SHIM_TRACE_SUMMARY_FILE": os.path.join(self.out, "torch_mlp_summary.txt"),
            "CUDART_SHIM_TRACE_TIMELINE_FILE": tl,
            "PYTHONUNBUFFERED": "1",
        })
        plain = sh([sys.executable, os.path.join(ROOT, "tests/torch/checks.py"), "mlp"], timeout=150)
        rc, o, e = sh([sys.executable, os.path.join(ROOT, "tests/torch/checks.py"), "mlp"], env, timeout=150)
        with open(os.path.join(self.out, "torch_mlp.txt"), "w") as f:
            f.write(f"plain rc={plain[0]}\n{plain[1]}{plain[2][-3000:]}\n--- traced rc={rc}\n{o}{e[-5000:]}")
        try:
            summary = open(os.path.join(self.out, "torch_mlp_summary.txt")).read()
        except OSError:
            summary = ""
        r = rows(summary)
        cu = {k: v for k, v in r.items() if k.startswith("cu") and not k.startswith("cuda")}
        detail = f"rc={plain[0]}/{rc} same_stdout={plain[1] == o} runtime_rows={sum(1 for k in r if k.startswith('cuda'))} own_driver_rows={len(cu)}"
        nested, own, parents, libs = 0, 0, {}, {}
        try:
            ev = json.load(open(tl))["traceEvents"]
            calls = [x for x in ev if x.get("ph") == "X"]
            by_tid = {}
            for x in calls:
                by_tid.setdefault(x["tid"], []).append(x)
            for tid, xs in by_tid.items():
                xs.sort(key=lambda x: x["ts"])
                stack = []
                for x in xs:
                    while stack and stack[-1]["ts"] + stack[-1]["dur"] < x["ts"]:
                        stack.pop()
                    name = x["name"]
                    if name.startswith("cu") and not name.startswith("cuda"):
                        if x["args"].get("depth", 0) > 0:
                            nested += 1
                            if stack:
                                parents[stack[-1]["name"] + " > " + name] = parents.get(stack[-1]["name"] + " > " + name, 0) + 1
                        else:
                            own += 1
                            libs[name] = libs.get(name, 0) + 1
                    stack.append(x)
        except Exception as ex:  # noqa
            detail += f" timeline: {ex}"
        top = ", ".join(f"{k} {v}" for k, v in sorted(parents.items(), key=lambda kv: -kv[1])[:6])
        topown = ", ".join(f"{k} {v}" for k, v in sorted(libs.items(), key=lambda kv: -kv[1])[:6])
        detail += f" timeline: nested_driver_events={nested} own_driver_events={own} | nested: {top} | own: {topown}"
        self.record(plain[0] == 0 and rc == 0 and nested > 0 and own > 0, "torch/mlp", detail)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    ap.add_argument("--deadline", type=float, default=270)
    ap.add_argument("--pairs", type=int, default=3)
    a = ap.parse_args()
    r = Run(a)
    rc, o, e = sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    r.note(f"device: {o.strip()}; date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    for step in (r.cost, r.static_programs, r.python_programs, r.torch):
        if r.left() < 20:
            r.record(False, step.__name__, "skipped: out of time")
            continue
        t = time.time()
        try:
            step()
        except Exception as ex:  # noqa
            r.record(False, step.__name__, f"error: {ex!r}")
        r.note(f"  ({step.__name__}: {time.time() - t:.0f} s)")
    n = len(r.results)
    r.note(f"{sum(r.results)} passed, {n - sum(r.results)} failed")


if __name__ == "__main__":
    main()
