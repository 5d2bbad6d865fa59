#!/usr/bin/env python3
"""GPU-activity measurements on a CUDA 13 machine (issue #18), one command.

usage: activity.py DIR [--out OUT] [--rounds N] [--steps N] [--prog PATH]
  DIR holds libcudart_shim.so (and a copy named libcudart.so.13) and the
  `cudart-shim` command; --prog (default DIR/gpu_activity) is
  tests/cu/gpu_activity.cu built with nvcc -cudart shared -arch=sm_90
  (gpu/checks/activity.py's prepare); the PyTorch step is activity_torch.py
  beside this file.

1. The GPU tables and the timeline of `gpu_activity basic` (ours,
   CUDART_SHIM_TRACE=summary,gpu,timeline).
2. The added host cost per launch of an empty kernel: NVIDIA's runtime,
   ours untraced, ours with gpu, gpu+timeline and timeline, interleaved.
3. PyTorch: our GPU tables (gpu,timeline) against PyTorch's profiler (CUDA
   activities) for the same training run: per-kernel instances and totals.
5. Ours with gpu and PyTorch's profiler in one process (CUPTI contended).
4. PyTorch: the training step's time (a small, host-bound step and a
   large, GPU-bound one), NVIDIA's runtime untraced, ours with
   gpu+timeline, PyTorch's profiler: interleaved rounds, pinned to one CPU.
Writes results.txt and the JSON files under OUT ($OUT by default).
"""
import argparse, gzip, json, os, shutil, statistics, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--out", default=os.environ.get("OUT", "gpu-activity-out"))
ap.add_argument("--rounds", type=int, default=4)
ap.add_argument("--steps", type=int, default=150)
ap.add_argument("--skip-bench", action="store_true")
ap.add_argument("--prog", help="the built tests/cu/gpu_activity.cu (default DIR/gpu_activity)")
a = ap.parse_args()
D = os.path.abspath(a.dir)
OUT = os.path.abspath(a.out)
os.makedirs(OUT, exist_ok=True)
work = "/tmp/gpu-activity"
os.makedirs(work, exist_ok=True)
log = open(os.path.join(OUT, "results.txt"), "w")


def say(*x):
    s = " ".join(str(v) for v in x)
    print(s, flush=True)
    log.write(s + "\n")
    log.flush()


def sh(cmd, env=None, timeout=240):
    e = dict(os.environ, PYTHONUNBUFFERED="1")
    e.update(env or {})
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as x:
        return 127, "", repr(x), time.time() - t0
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def nvidia_lib():
    try:
        import nvidia.cu13
        d = os.path.join(os.path.dirname(nvidia.cu13.__file__), "lib")
        if os.path.exists(os.path.join(d, "libcudart.so.13")):
            return d
    except Exception:
        pass
    return "/usr/local/cuda/lib64"


NV = nvidia_lib()
SHIM = os.path.join(D, "libcudart_shim.so")
say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
say(sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])[1].strip())
say("NVIDIA libcudart:", NV)
rc, o, _, _ = sh(["bash", "-c", "ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so* " + NV + "/libcupti.so* 2>/dev/null"])
say("CUPTI libraries:", o.split())
prog = a.prog or os.path.join(D, "gpu_activity")
ours = {"LD_LIBRARY_PATH": D}
nvenv = {"LD_LIBRARY_PATH": NV}

# 1. the test program
say("\n== 1. gpu_activity basic, ours, summary,gpu,timeline")
rc, o, e, _ = sh([prog, "basic"], dict(ours, CUDART_SHIM_TRACE="summary,gpu,timeline", CUDART_SHIM_LOG="warn,cudart_shim::trace::gpu=debug",
                                      CUDART_SHIM_TRACE_TIMELINE_FILE=os.path.join(OUT, "basic_trace.json")))
say("rc", rc, o.strip())
say(e)
rc, o, e, _ = sh([prog, "basic"], dict(ours, CUDART_SHIM_TRACE="gpu", CUDART_SHIM_TRACE_SUMMARY_FILE=os.path.join(OUT, "basic_summary.json")))
say("json summary rc", rc, e.strip()[-2000:])

# 2. empty-kernel launch cost
say("\n== 2. host time per empty-kernel launch (median of 200 batches of 256; 5 interleaved rounds)")
variants = {
    "nvidia": nvenv,
    "ours": ours,
    "ours gpu": dict(ours, CUDART_SHIM_TRACE="gpu"),
    "ours timeline": dict(ours, CUDART_SHIM_TRACE="timeline", CUDART_SHIM_TRACE_TIMELINE_FILE=work + "/b.json"),
    "ours gpu,timeline": dict(ours, CUDART_SHIM_TRACE="gpu,timeline", CUDART_SHIM_TRACE_TIMELINE_FILE=work + "/b.json"),
}
bench = {k: [] for k in variants}
for r in range(0 if a.skip_bench else 5):
    for k, env in variants.items():
        rc, o, e, _ = sh([prog, "bench", "200", "256"], env)
        if rc == 0 and "launch_ns" in o:
            bench[k].append(float(o.split()[-1]))
        else:
            say("bench", k, "rc", rc, e[-500:])
for k, v in bench.items():
    if v:
        say(f"  {k:20s} median {statistics.median(v):8.1f} ns/launch  rounds {v}")
base = statistics.median(bench["ours"]) if bench["ours"] else 0
for k in ("ours gpu", "ours timeline", "ours gpu,timeline"):
    if bench[k] and base:
        say(f"  added by {k[5:]:13s}: {statistics.median(bench[k]) - base:+.1f} ns per launch over ours untraced")

# 3. PyTorch: ours vs PyTorch's profiler, same run
TORCH = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "activity_torch.py")]
say(f"\n== 3. PyTorch training run ({a.steps} steps + 5 warm-up): our GPU tables vs PyTorch's profiler")
ours_sum = os.path.join(OUT, "torch_ours.json")
ours_tl = work + "/torch_trace.json"
rc, o, e, _ = sh(TORCH + ["plain", str(a.steps)], dict(LD_PRELOAD=SHIM, CUDART_SHIM_TRACE="gpu,timeline",
                 CUDART_SHIM_TRACE_SUMMARY_FILE=ours_sum, CUDART_SHIM_TRACE_TIMELINE_FILE=ours_tl))
say("ours rc", rc, o.strip(), e.strip()[-1500:])
prof_k = os.path.join(OUT, "torch_prof_kernels.json")
rc, o, e, _ = sh(TORCH + ["prof", str(a.steps), prof_k])
say("profiler rc", rc, o.strip(), e.strip()[-1500:])
try:
    with open(ours_tl, "rb") as f, gzip.open(os.path.join(OUT, "torch_trace.json.gz"), "wb") as g:
        shutil.copyfileobj(f, g)
    j = json.load(open(ours_sum))
    p = json.load(open(prof_k))
    mine = {"kernel:" + r["Name"]: (r["Instances"], r["Total Time (ns)"]) for r in j["cuda_gpu_kern_sum"]}
    theirs = {k: tuple(v) for k, v in p.items() if k.startswith("kernel:")}
    tot_m = sum(v[1] for v in mine.values())
    tot_t = sum(v[1] for v in theirs.values())
    say(f"  kernels: ours {len(mine)} names, {sum(v[0] for v in mine.values())} instances, {tot_m} ns;"
        f" profiler {len(theirs)} names, {sum(v[0] for v in theirs.values())} instances, {tot_t} ns")
    same_n, within = 0, 0
    worst = []
    for k in sorted(set(mine) | set(theirs), key=lambda k: -max(mine.get(k, (0, 0))[1], theirs.get(k, (0, 0))[1])):
        m, t = mine.get(k, (0, 0)), theirs.get(k, (0, 0))
        dev = abs(m[1] - t[1]) / max(t[1], 1)
        same_n += m[0] == t[0]
        within += dev <= 0.02
        say(f"  {m[0]:6d} {t[0]:6d}  {m[1]:12d} {t[1]:12d}  {dev * 100:6.2f}%  {k[7:][:110]}")
    n = len(set(mine) | set(theirs))
    say(f"  same instance count: {same_n}/{n} kernels; total within 2%: {within}/{n}; all kernels' total: {100 * (tot_m - tot_t) / max(tot_t, 1):+.2f}%")
except Exception as x:
    say("  comparison failed:", repr(x))

# 5. ours (gpu) and PyTorch's profiler in one process
say("\n== 5. ours with gpu + PyTorch's profiler in the same process")
rc, o, e, _ = sh(TORCH + ["prof", "5", work + "/k2.json"], dict(LD_PRELOAD=SHIM, CUDART_SHIM_TRACE="gpu"))
say("rc", rc, o.strip())
say(e[-3000:])
try:
    p2 = json.load(open(work + "/k2.json"))
    say("  profiler saw", sum(v[0] for k, v in p2.items() if k.startswith("kernel:")), "kernels")
except Exception as x:
    say("  profiler output:", repr(x))
# 4. PyTorch step cost, interleaved
say(f"\n== 4. PyTorch training step, {a.rounds} interleaved rounds ({a.steps} steps each, median per process, pinned to one CPU)")
tv = {
    "nvidia": {},
    "ours gpu,timeline": dict(LD_PRELOAD=SHIM, CUDART_SHIM_TRACE="gpu,timeline", CUDART_SHIM_TRACE_TIMELINE_FILE=work + "/t.json"),
    "pytorch profiler": None,
}
sizes = ["large", "small"]
CPU = sorted(os.sched_getaffinity(0))[min(3, len(os.sched_getaffinity(0)) - 1)]
res = {(z, k): ([], []) for z in sizes for k in tv}
for r in range(a.rounds):
    for z in sizes:
        for k, env in tv.items():
            cmd = ["taskset", "-c", str(CPU)] + TORCH + (["prof", str(a.steps), work + "/k.json"] if env is None else ["plain", str(a.steps)])
            rc, o, e, _ = sh(cmd, dict(env or {}, GA_SIZE=z))
            line = [l for l in o.splitlines() if l.startswith("STEP ")]
            if rc == 0 and line:
                f = dict(x.split("=") for x in line[0].split()[1:])
                res[(z, k)][0].append(float(f["wall_us"]))
                res[(z, k)][1].append(float(f["cpu_us"]))
            else:
                say("round", r, z, k, "rc", rc, e[-800:])
        say(f"  round {r} {z}: " + ", ".join(f"{k} {res[(z, k)][0][-1]:.0f}" for k in tv if res[(z, k)][0]))
    for z in sizes:
        nvw = statistics.median(res[(z, "nvidia")][0]) if res[(z, "nvidia")][0] else 0
        nvc = statistics.median(res[(z, "nvidia")][1]) if res[(z, "nvidia")][1] else 0
        for k in tv:
            w, c = res[(z, k)]
            if w and nvw:
                say(f"    after {r + 1} rounds, {z:5s} {k:20s} step wall {statistics.median(w):8.1f} us ({statistics.median(w) / nvw:.3f}x NVIDIA)"
                    f"  cpu {statistics.median(c):8.1f} us ({statistics.median(c) / nvc:.3f}x)")

say("\ndone")
