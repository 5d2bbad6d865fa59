#!/usr/bin/env python3
"""NVTX ranges and capture windows on a CUDA 13 GPU (issue #26), one command.

Here (no GPU needed; after `cargo build --release --workspace` and
scripts/setup-cuda):
    gpu/checks/nvtx/nvtx.py --prepare DIR
  copies target/release's libcudart_shim.so, driver/libcuda.so.1 and the
  `cudart-shim` command to DIR and builds DIR/nvtx_gpu (tests/cu/nvtx_gpu.cu,
  nvcc -arch=sm_90 on NVIDIA's NVTX3 headers).
On the GPU machine:
    gpu/checks/nvtx/nvtx.py --lib DIR --out OUT [--rounds 10]
  1. nvtx_gpu under `trace --gpu --timeline`: nvtx_gpu_proj_sum of "step"
     against the sum, per instance, of our own GPU kernel rows launched
     inside it (within 1%).
  2. PyTorch under emit_nvtx() and torch.cuda.nvtx.range("step"): the
     timeline nests each op's launches in its range; nvtx_sum instances of
     "step" = the pushes made; nvtx_gpu_proj_sum of "step" within 1% of our
     own GPU kernel rows inside it. Saves OUT/torch_nvtx.json (render it
     with scripts/render-timeline for docs/).
  3. CuPy's cupy.cuda.nvtx.RangePush through the driver interposer alone
     (no runtime preloaded; NVTX_INJECTION64_PATH names the interposer).
  4. A 100-step PyTorch loop with torch.cuda.profiler.start()/stop() around
     steps 45..54 under --capture-range=cudaProfilerApi: only those 10 steps
     in the trace; the step time outside the window against untraced,
     --rounds interleaved rounds.
Prints PASS/FAIL lines and figures; writes OUT/results.txt.
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, textwrap, time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(os.path.dirname(here)))  # gpu/checks/nvtx/

TORCH = textwrap.dedent('''
    import json, sys, time, torch
    mode, steps = sys.argv[1], int(sys.argv[2])
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 1024)).cuda()
    opt = torch.optim.SGD(m.parameters(), lr=1e-3)
    x = torch.randn(256, 1024, device="cuda")
    def step():
        opt.zero_grad()
        loss = m(x).square().mean()
        loss.backward()
        opt.step()
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    pushes = 0
    times = []
    if mode == "emit":
        with torch.autograd.profiler.emit_nvtx():
            for i in range(steps):
                with torch.cuda.nvtx.range("step"):
                    pushes += 1
                    step()
                torch.cuda.synchronize()
    else:
        for i in range(steps):
            if mode == "window" and i == 45:
                torch.cuda.profiler.start()
            if mode == "window" and i == 55:
                torch.cuda.profiler.stop()
            t0 = time.perf_counter()
            with torch.cuda.nvtx.range("step"):
                pushes += 1
                step()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
    print(json.dumps({"pushes": pushes, "times": times}))
''')

CUPY = textwrap.dedent('''
    import cupy, json
    from cupy.cuda import nvtx
    x = cupy.arange(1 << 20, dtype=cupy.float32)
    for i in range(5):
        nvtx.RangePush("cupy range")
        y = (x * 2 + 1).sum()
        nvtx.RangePop()
    cupy.cuda.runtime.deviceSynchronize()
    # Where CuPy's NVTX comes from (diagnosis when its ranges are missing):
    # the extension module that holds RangePush, and NVTX libraries mapped.
    import sys
    mod = sys.modules.get(nvtx.RangePush.__module__) or nvtx
    maps = sorted({l.split()[-1] for l in open("/proc/self/maps") if "nvtx" in l.lower() or "nvtoolsext" in l.lower()})
    print(json.dumps({"pushes": 5, "sum": float(y), "cupy": cupy.__version__, "available": getattr(nvtx, "available", None),
                      "module": getattr(mod, "__file__", None), "maps": maps}))
''')


def prepare(d):
    # d already holds our libraries (gpu/checks/nvtx.py links them there).
    cuda = subprocess.run([os.path.join(root, "scripts", "setup-cuda")], capture_output=True, text=True, check=True).stdout.strip()
    nvtx = os.environ.get("CUDART_SHIM_NVTX_CACHE", os.path.join(cuda, "nvtx"))
    cmd = [os.path.join(cuda, "nvidia/cu13/bin/nvcc"), "-cudart", "shared", "-arch=sm_90", "-O1",
           "-I", os.path.join(nvtx, "nvidia/cu13/include"), os.path.join(root, "tests/cu/nvtx_gpu.cu"),
           "-o", os.path.join(d, "nvtx_gpu"), "-L" + os.path.join(cuda, "linklib"), "-L" + os.path.join(cuda, "nvidia/cu13/lib"), "-ldl"]
    subprocess.run(cmd, check=True)
    print(f"prepared {d}: carry it to the GPU machine and run gpu/checks/nvtx/nvtx.py --lib {d} --out OUT")


class Run:
    def __init__(self, a):
        self.d = os.path.abspath(a.lib)
        self.out = os.path.abspath(a.out)
        os.makedirs(self.out, exist_ok=True)
        self.log = open(os.path.join(self.out, "results.txt"), "w")
        self.failed = 0
        self.cli = os.path.join(self.d, "cudart-shim")
        self.work = os.path.join(self.out, "work")
        os.makedirs(self.work, exist_ok=True)
        for name, text in [("nvtx_torch.py", TORCH), ("nvtx_cupy.py", CUPY)]:
            with open(os.path.join(self.work, name), "w") as f:
                f.write(text)

    def say(self, *x):
        s = " ".join(str(v) for v in x)
        print(s, flush=True)
        self.log.write(s + "\n")
        self.log.flush()

    def check(self, what, ok, detail=""):
        self.say(("PASS " if ok else "FAIL ") + what + (f": {detail}" if detail else ""))
        if not ok:
            self.failed += 1

    def sh(self, cmd, env=None, timeout=300):
        e = dict(os.environ, PYTHONUNBUFFERED="1")
        for k in ["CUDART_SHIM_TRACE", "LD_PRELOAD", "NVTX_INJECTION64_PATH"]:
            e.pop(k, None)
        e.update(env or {})
        try:
            p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as x:
            return 127, "", repr(x)
        return p.returncode, p.stdout, p.stderr


# The rule under a table's column header: one run of dashes per column.
RULE = re.compile(r"^\s*-+(\s+-+)*\s*$")


def table(text, key):
    """Rows of a text table of ours (`(key)` title): lists of cells, split on
    2+ spaces. The rows follow the rule of dashes under the column header (a
    "Capture windows:" line may sit between the title and the header); its
    first run is as wide as the first column, which may be 5 ("Range" over
    short range names in nvtx_gpu_proj_sum: the rows were not found when
    the rule had to start with 8 dashes, GPU run 2026-11-28). They end at a
    blank line, the next title, or a line of the command's own (cudart-shim:
    ..., which starts at column 0 where every table line starts with a space)."""
    i = text.find(f"({key})")
    if i < 0:
        return []
    lines = text[i:].splitlines()
    start = next((k + 1 for k, l in enumerate(lines) if RULE.match(l)), None)
    if start is None:
        return []
    rows = []
    for line in lines[start:]:
        if not line.strip() or line.startswith(" **") or not line.startswith(" "):
            break
        rows.append([c.strip() for c in re.split(r"\s{2,}", line.strip()) if c.strip()])
    return rows


def num(s):
    return float(s.replace(",", ""))


def proj_from_rows(events, range_name):
    """Per instance of NVTX range `range_name`: our GPU kernel slices whose
    launching call (flow start) lies inside it, first start to last end; ns."""
    flows = [(e["ts"], e["id"]) for e in events if e.get("ph") == "s" and e.get("cat") == "gpu_launch"]
    by_launch = {}
    for e in events:
        if e.get("cat") in ("gpu_kernel", "gpu_memcpy", "gpu_memset") and e.get("args", {}).get("launch"):
            by_launch.setdefault(e["args"]["launch"], []).append(e)
    total = 0.0
    for r in events:
        if r.get("cat") != "nvtx" or r.get("ph") != "X" or r.get("name") != range_name:
            continue
        t0, t1 = r["ts"], r["ts"] + r["dur"]
        mine = [s for ts, i in flows if t0 <= ts <= t1 for s in by_launch.get(i, [])]
        if mine:
            total += (max(s["ts"] + s["dur"] for s in mine) - min(s["ts"] for s in mine)) * 1000.0
    return total


def part1(r):
    r.say("\n== 1. nvtx_gpu (C++ program, NVTX3) under trace --gpu --timeline")
    tl = os.path.join(r.out, "nvtx_gpu.json")
    rc, o, e = r.sh([r.cli, "trace", "--gpu", "--timeline", tl, "--", os.path.join(r.d, "nvtx_gpu"), "20", "8"])
    r.say(e[-3000:])
    if rc != 0:
        return r.check("nvtx_gpu ran", False, f"exit {rc}")
    proj = {row[0]: row for row in table(e, "nvtx_gpu_proj_sum")}
    ev = json.load(open(tl))["traceEvents"]
    ours = proj_from_rows(ev, "step")
    theirs = num(proj["step"][2]) if "step" in proj else -1
    r.check("nvtx_gpu_proj_sum 'step' instances = 20", "step" in proj and proj["step"][4] == "20", str(proj.get("step")))
    r.check("nvtx_gpu_proj_sum 'step' within 1% of our GPU rows", ours > 0 and abs(theirs - ours) <= 0.01 * ours,
            f"table {theirs:.0f} ns, our rows {ours:.0f} ns")


def part2(r):
    r.say("\n== 2. PyTorch: emit_nvtx() + torch.cuda.nvtx.range('step'), trace --gpu --timeline")
    tl = os.path.join(r.out, "torch_nvtx.json")
    rc, o, e = r.sh([r.cli, "trace", "--gpu", "--timeline", tl, "--", sys.executable, os.path.join(r.work, "nvtx_torch.py"), "emit", "20"])
    r.say(e[-4000:])
    if rc != 0:
        return r.check("PyTorch emit_nvtx ran", False, f"exit {rc}")
    pushes = json.loads(o.strip().splitlines()[-1])["pushes"]
    sums = {row[-1]: row for row in table(e, "nvtx_sum")}
    r.check("nvtx_sum 'step' instances = pushes made", "step" in sums and num(sums["step"][2]) == pushes, f"{sums.get('step')} pushes {pushes}")
    ev = json.load(open(tl))["traceEvents"]
    nv = [x for x in ev if x.get("cat") == "nvtx" and x.get("ph") == "X"]
    ops = [x for x in nv if x["name"] != "step"]
    r.say(f"NVTX ranges on the timeline: {len(nv)} ({len(ops)} op ranges from emit_nvtx)")
    # Each op range nests the launches its op made: calls with a flow start
    # on the range's thread inside it.
    flows = [x for x in ev if x.get("ph") == "s" and x.get("cat") == "gpu_launch"]
    nesting = sum(1 for x in ops if any(x["ts"] <= f["ts"] <= x["ts"] + x["dur"] for f in flows))
    r.check("emit_nvtx op ranges nest their launches", nesting > 0, f"{nesting} op ranges hold launches")
    proj = {row[0]: row for row in table(e, "nvtx_gpu_proj_sum")}
    ours = proj_from_rows(ev, "step")
    theirs = num(proj["step"][2]) if "step" in proj else -1
    r.check("nvtx_gpu_proj_sum 'step' within 1% of our GPU rows", ours > 0 and abs(theirs - ours) <= 0.01 * ours,
            f"table {theirs:.0f} ns, our rows {ours:.0f} ns")
    r.say(f"timeline for docs/: {tl} (scripts/render-timeline {tl} nvtx.png --last-ms 30)")


def part3(r):
    r.say("\n== 3. CuPy through the driver interposer alone")
    f = os.path.join(r.out, "cupy_summary.txt")
    drv = os.path.join(r.d, "driver")
    rc, o, e = r.sh([sys.executable, os.path.join(r.work, "nvtx_cupy.py")],
                    {"LD_LIBRARY_PATH": drv + ":" + os.environ.get("LD_LIBRARY_PATH", ""), "CUDART_SHIM_TRACE": "summary",
                     "CUDART_SHIM_TRACE_FILE": f, "NVTX_INJECTION64_PATH": os.path.join(drv, "libcuda.so.1")})
    if rc != 0:
        r.say(e[-3000:])
        return r.check("CuPy ran", False, f"exit {rc} (CuPy installed?)")
    s = open(f).read() if os.path.exists(f) else ""
    r.say(s[-3000:])
    sums = {row[-1]: row for row in table(s, "nvtx_sum")}
    ok = "cupy range" in sums and num(sums["cupy range"][2]) == 5
    r.check("CuPy RangePush ranges through the interposer", ok, str(sums.get("cupy range")))
    info = json.loads(o.strip().splitlines()[-1])
    r.say("CuPy:", json.dumps(info))
    if ok:
        return
    # Diagnosis: does CuPy's NVTX load the injection library at all, and
    # does the runtime route (trace, injection = our runtime) see them?
    mod = info.get("module")
    if mod:
        rc2, o2, _ = r.sh(["sh", "-c", f"nm -D --defined-only {mod} | grep -i nvtx | head; nm -D --undefined-only {mod} | grep -i nvtx | head; strings {mod} | grep -i -m5 'INJECTION\\|nvToolsExt'"])
        r.say("module's NVTX symbols/strings:\n" + o2)
    rc2, o2, e2 = r.sh([sys.executable, os.path.join(r.work, "nvtx_cupy.py")],
                       {"LD_LIBRARY_PATH": drv + ":" + os.environ.get("LD_LIBRARY_PATH", ""), "CUDART_SHIM_TRACE": "summary",
                        "CUDART_SHIM_TRACE_FILE": f + ".2", "NVTX_INJECTION64_PATH": os.path.join(drv, "libcuda.so.1"),
                        "LD_DEBUG": "bindings,files"})
    r.say("LD_DEBUG lines about NVTX/injection:\n" + "\n".join(
        l for l in e2.splitlines() if "InitializeInjection" in l or "nvToolsExt" in l.lower() or "nvtx" in l.lower())[-3000:])
    rc3, o3, e3 = r.sh([r.cli, "trace", "--", sys.executable, os.path.join(r.work, "nvtx_cupy.py")])
    sums3 = {row[-1]: row for row in table(e3, "nvtx_sum")}
    r.say(f"same program under `cudart-shim trace` (preloaded runtime, injection = runtime): rc {rc3}, nvtx_sum 'cupy range' = {sums3.get('cupy range')}")
    r.say("(no runtime preloaded: the interposer loads the trace machinery RTLD_LOCAL; CuPy calls none of our runtime's functions)")


def part4(r, rounds):
    r.say(f"\n== 4. 100-step PyTorch loop, profiler start/stop around steps 45..54, --capture-range=cudaProfilerApi; {rounds} interleaved rounds")
    script = os.path.join(r.work, "nvtx_torch.py")
    out_med, untraced_med = [], []
    first = True
    for i in range(rounds):
        for traced in (False, True):
            tl = os.path.join(r.out, "window.json")
            cmd = [sys.executable, script, "window", "100"]
            if traced:
                cmd = [r.cli, "trace", "--capture-range=cudaProfilerApi", "--timeline", tl, "--"] + cmd
            rc, o, e = r.sh(cmd)
            if rc != 0:
                r.say(e[-3000:])
                return r.check("window loop ran", False, f"exit {rc}")
            t = json.loads(o.strip().splitlines()[-1])["times"]
            outside = [x for k, x in enumerate(t) if k >= 60 or 10 <= k < 40]
            (out_med if traced else untraced_med).append(statistics.median(outside) * 1e6)
            if traced and first:
                first = False
                sums = {row[-1]: row for row in table(e, "nvtx_sum")}
                r.say(e[-2500:])
                r.check("only the 10 window steps in nvtx_sum", "step" in sums and num(sums["step"][2]) == 10, str(sums.get("step")))
                ev = json.load(open(tl))["traceEvents"]
                steps = [x for x in ev if x.get("cat") == "nvtx" and x.get("name") == "step"]
                r.check("only the 10 window steps on the timeline", len(steps) == 10, f"{len(steps)}")
    a, b = statistics.median(untraced_med), statistics.median(out_med)
    spread = (max(untraced_med) - min(untraced_med)) / a if a else 0
    r.say(f"step time outside the window: untraced median {a:.1f} us (rounds {', '.join(f'{x:.1f}' for x in untraced_med)})")
    r.say(f"                              traced   median {b:.1f} us (rounds {', '.join(f'{x:.1f}' for x in out_med)})")
    r.check("outside the window within noise of untraced", abs(b - a) <= max(0.02 * a, spread * a),
            f"ratio {b / a:.4f}, untraced spread {spread * 100:.1f}%")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prepare", metavar="DIR", help="here: copy the release build and build nvtx_gpu into DIR")
    ap.add_argument("--lib", metavar="DIR", help="on the GPU machine: the folder --prepare made")
    ap.add_argument("--out", metavar="DIR", default=os.environ.get("OUT", "gpu-nvtx-out"))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--only", metavar="N", help="run only parts N (comma list of 1-4)")
    a = ap.parse_args()
    if a.prepare:
        return prepare(os.path.abspath(a.prepare))
    if not a.lib:
        ap.error("--lib DIR (on the GPU machine) or --prepare DIR (here)")
    r = Run(a)
    r.say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    r.say(r.sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])[1].strip())
    parts = {1: lambda: part1(r), 2: lambda: part2(r), 3: lambda: part3(r), 4: lambda: part4(r, a.rounds)}
    only = [int(x) for x in a.only.split(",")] if a.only else [1, 2, 3, 4]
    for n in only:
        try:
            parts[n]()
        except Exception as x:  # a part that breaks is a failure, the others still run
            r.check(f"part {n}", False, repr(x))
    r.say(f"\n{'ALL PASS' if r.failed == 0 else f'{r.failed} FAILED'}; results in {r.out}/results.txt")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
