#!/usr/bin/env python3
"""The flight recorder on a GPU machine (issue #28 part 1), in one run.

usage: the checks `recorder` (steps 1-2) and `recorder_cost` (step 3) of
`scripts/gpu` run it; by hand, on the GPU machine (nvcc 13, PyTorch):
  gpu/checks/recorder/recorder.py --lib DIR/lib [--out OUT] [--rounds 10] [--steps 50]
      # DIR: `scripts/gpu prepare DIR`; OUT defaults to $OUT

Steps, each ending in PASS/FAIL lines (also in OUT/summary.txt):
1. tests/cu/recorder_oob.cu (built here with nvcc -cudart shared): a kernel
   writes far out of bounds, then cudaDeviceSynchronize fails with a sticky
   error. Run with NVIDIA's libcudart and under `cudart-shim trace
   --recorder` (runtime and driver calls), both as `return` (exit 1) and
   `abort` (SIGABRT). PASS: the recorder's stderr lines and its call log
   end with the launch and the failing synchronize, the timeline (the
   default Perfetto protobuf `.pftrace`, read by `cudart-shim report
   --merge`) holds as many calls as the call log, and the exit status
   equals NVIDIA's.
2. PyTorch hitting a real illegal address (a view far larger than its
   allocation, written): the same checks, the exit status against plain
   PyTorch.
3. Cost: PyTorch's launch-bound training step (gpu/checks/activity/activity_torch.py,
   GA_SIZE=small), 10 interleaved rounds of 50 steps pinned to one CPU:
   ours untraced, ours with the recorder (runtime calls), the
   command's untraced run (ours + the interposer) and `trace --recorder`
   (runtime and driver calls). PASS: each recorder's median step within the
   noise of its untraced twin (noise: half the spread of the untraced
   rounds, at least 1%); the same for the CPU time per step (the process's
   CPU time, which whole-process noise on these hosts disturbs less).
"""
import argparse, collections, glob, json, os, shutil, statistics, subprocess, sys, textwrap, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/recorder/
ap = argparse.ArgumentParser()
ap.add_argument("--lib", metavar="DIR")
ap.add_argument("--out", default=os.environ.get("OUT", "gpu-recorder-out"))
ap.add_argument("--rounds", type=int, default=10)
ap.add_argument("--steps", type=int, default=50)
ap.add_argument("--cost-only", action="store_true", help="only step 3, with the two preload variants (ours untraced, ours recorder)")
ap.add_argument("--no-cost", action="store_true", help="steps 1 and 2 only")
ap.add_argument("--prog", help="tests/cu/recorder_oob.cu already built (gpu/checks/recorder.py's prepare): not built here")
a = ap.parse_args()

if not a.lib:
    sys.exit("gpu-recorder: --lib DIR (scripts/gpu prepare's DIR/lib)")

D = os.path.abspath(a.lib)
OUT = os.path.abspath(a.out)
os.makedirs(OUT, exist_ok=True)
WORK = os.path.join(OUT, "work")
os.makedirs(WORK, exist_ok=True)
log = open(os.path.join(OUT, "summary.txt"), "w")
results = []


def say(*x):
    s = " ".join(str(v) for v in x)
    print(s, flush=True)
    log.write(s + "\n")
    log.flush()


def verdict(ok, what):
    results.append(ok)
    say(("PASS " if ok else "FAIL ") + what)


def sh(cmd, env=None, timeout=240, cwd=None):
    e = dict(os.environ, PYTHONUNBUFFERED="1")
    for k in ("CUDART_SHIM_TRACE", "LD_PRELOAD", "CUDART_SHIM_DRIVER", "CUDART_SHIM_TRACE_FILE"):
        e.pop(k, None)
    e.update(env or {})
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as x:
        return 124, str(x.stdout or ""), str(x.stderr or "") + "\nTIMEOUT"
    except OSError as x:
        # A missing program (nvidia-smi, nvcc on a machine without them: a
        # dry run) is a failed step, not the end of the check.
        return 127, "", repr(x)


def nvidia_lib():
    try:
        import nvidia.cu13
        d = os.path.join(os.path.dirname(nvidia.cu13.__file__), "lib")
        if os.path.exists(os.path.join(d, "libcudart.so.13")):
            return d
    except Exception:
        pass
    for d in ["/usr/local/cuda/lib64"] + glob.glob("/usr/local/cuda-13*/lib64"):
        if os.path.exists(os.path.join(d, "libcudart.so.13")):
            return d
    return "/usr/local/cuda/lib64"


SHIM = os.path.join(D, "libcudart_shim.so")
CMD = os.path.join(D, "cudart-shim")
NV = nvidia_lib()
say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
say(sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])[1].strip())
say("NVIDIA libcudart:", NV, " ours:", D)

LAUNCH = ("cudaLaunchKernel", "__cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx")


def calls_of(text):
    """(tid, nested, name, result) of each call line."""
    out = []
    for l in text.splitlines():
        if not l.startswith("[cudart-shim] tid="):
            continue
        rest = l[len("[cudart-shim] tid="):]
        tid, rest = rest.split(" ", 1)
        nested = rest.startswith("nested=")
        if nested:
            rest = rest.split(" ", 1)[1]
        name = rest.split("(", 1)[0]
        result = rest.rsplit(") = ", 1)[1].rsplit(" (", 1)[0] if ") = " in rest else "?"
        out.append((int(tid), nested, name, result))
    return out


STICKY = ("cudaErrorIllegalAddress", "cudaErrorLaunchFailure", "cudaErrorMisalignedAddress", "cudaErrorAssert",
          "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_ASSERT")


def is_launch(name):
    return name in LAUNCH or "LaunchKernel" in name


def check_dump(label, rc, rc_nvidia, err, cwd, via_command=True):
    """The recorder's dump after a sticky error: stderr lines, call log, timeline."""
    say(f"  {label}: exit {rc} (NVIDIA's: {rc_nvidia})")
    # stderr: the sticky error's dump (a crash signal may add a second one).
    lines = err.splitlines()
    heads = [i for i, l in enumerate(lines) if l.startswith("cudart-shim recorder: ") and " on thread " in l]
    sticky = [i for i in heads if "(a sticky error)" in lines[i]]
    for i in heads:
        say("  " + lines[i][:300])
    ok = bool(sticky)
    tid = None
    if sticky:
        i = sticky[0]
        tid = int(lines[i].split(" on thread ")[1].split(";")[0])
        nxt = min([h for h in heads if h > i] + [len(lines)])
        listed = calls_of("\n".join(lines[i:nxt]))
        for c in listed[-10:]:
            say(f"    {'  ' if c[1] else ''}{c[2]} = {c[3]}")
        top = [c for c in listed if not c[1]]
        ok = bool(top) and top[-1][3] in STICKY and any(is_launch(c[2]) for c in listed)
    verdict(ok, f"{label}: stderr shows the failing thread's last calls, a launch then the failing call (sticky error)")
    # The files: every thread's ring, as a call log and a timeline beside
    # it: `<stem>.pftrace` (Perfetto protobuf, the default format) or
    # `<stem>.json` (CUDART_SHIM_TRACE_TIMELINE_FORMAT=json).
    logs = sorted(glob.glob(os.path.join(cwd, "cudart-shim-recorder-*.log")))
    parsed, events, ends, kind = False, 0, False, "timeline"
    if logs:
        try:
            text = open(logs[-1]).read()
            # "# cudart-shim recorder dump: REASON (pid P, thread T)"
            reason = text.split("\n", 1)[0].removeprefix("# cudart-shim recorder dump: ").rsplit(" (pid ", 1)[0]
            stem = logs[-1][:-4]
            timeline = next((stem + x for x in (".pftrace", ".json") if os.path.exists(stem + x)), None)
            if timeline is None:
                raise FileNotFoundError(f"no {stem}.pftrace or .json beside the call log")
            kind = "Perfetto protobuf timeline" if timeline.endswith(".pftrace") else "JSON timeline"
            # Our own reader turns either format into Chrome JSON: `report
            # --merge` copies every event (nested driver calls included;
            # `report`'s summary would leave those out), so its X events are
            # the timeline's calls.
            merged = stem + ".merged.json"
            rc_m, o_m, e_m = sh([CMD, "report", "--merge", merged, timeline])
            if rc_m != 0:
                raise RuntimeError(f"cudart-shim report --merge {os.path.basename(timeline)}: exit {rc_m}: {e_m.strip()[-300:]}")
            j = json.load(open(merged))
            xs = [e for e in j["traceEvents"] if e.get("ph") == "X"]
            events = len(xs)
            file_calls = calls_of(text)
            parsed = events == len(file_calls) and events > 0
            # Not a verdict (the count is): which calls differ, if any.
            diff = collections.Counter((c[0], c[2], c[3]) for c in file_calls)
            diff.subtract(collections.Counter((e.get("tid"), e.get("name"), e.get("args", {}).get("result")) for e in xs))
            diff = {k: v for k, v in diff.items() if v}
            if diff:
                say(f"  calls of the log (+) and the timeline (-) that differ: {sorted(diff.items(), key=str)[:12]}")
            mine = [c for c in file_calls if c[0] == tid]
            fail = max((k for k, c in enumerate(mine) if not c[1] and c[3] in STICKY), default=None)
            if fail is not None:
                first_fail = min(k for k, c in enumerate(mine) if not c[1] and c[3] in STICKY)
                launch = max((k for k, c in enumerate(mine[:first_fail]) if is_launch(c[2])), default=None)
                ends = launch is not None
                if ends:
                    say("  call log, failing thread, from the last launch to the first failing call:")
                    for c in mine[launch:first_fail + 1][-12:]:
                        say(f"    {'  ' if c[1] else ''}{c[2]} = {c[3]}")
            # The reason is an annotation of the protobuf's dump instant (an
            # `otherData.reason` in JSON); its text is stored as is in either.
            named = reason.encode() in open(timeline, "rb").read()
            say(f"  dump: {logs[-1]} ({len(file_calls)} call lines, {events} timeline events in {os.path.basename(timeline)}; "
                f"reason: {reason}{'' if named else ' (not found in the timeline)'})")
        except Exception as x:
            say("  dump unreadable:", repr(x))
    else:
        say("  no dump file in", cwd)
    verdict(ends, f"{label}: the call log has the failing thread's launch and the failing call")
    verdict(parsed, f"{label}: call log and {kind} parse, same number of calls ({events})")
    # The command answers a death by signal S as a shell does: 128 + S.
    want = 128 - rc_nvidia if (via_command and rc_nvidia < 0) else rc_nvidia
    verdict(rc == want, f"{label}: exit status {rc} equals NVIDIA's {rc_nvidia}" + (" (the command: 128 + signal)" if want != rc_nvidia else ""))


if not a.cost_only:
    # 1. the out-of-bounds program
    say("\n== 1. out-of-bounds kernel under trace --recorder")
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    prog = a.prog or os.path.join(OUT, "recorder_oob")
    rc, o, e = (0, "", "") if a.prog else sh([nvcc, "-cudart", "shared", "-arch=sm_90", "-O1", os.path.join(ROOT, "tests/cu/recorder_oob.cu"), "-o", prog], timeout=180)
    if rc != 0:
        verdict(False, f"nvcc recorder_oob.cu: {e[-800:]}")
    else:
        for mode in ("return", "abort"):
            rc_nv, o_nv, e_nv = sh(["bash", "-c", f"ulimit -c 0; exec {prog} {mode}"], {"LD_LIBRARY_PATH": NV})
            say(f"  NVIDIA ({mode}): exit {rc_nv}: {o_nv.strip()}")
            cwd = os.path.join(WORK, "oob-" + mode)
            shutil.rmtree(cwd, ignore_errors=True)
            os.makedirs(cwd)
            rc, o, e = sh(["bash", "-c", f"ulimit -c 0; exec {CMD} trace --recorder --library {SHIM} -- {prog} {mode}"], cwd=cwd)
            say(f"  ours, trace --recorder ({mode}): {o.strip()}")
            open(os.path.join(OUT, f"oob-{mode}.stderr"), "w").write(e)
            check_dump(f"oob {mode}, trace --recorder", rc, rc_nv, e, cwd)
            # By library path, the recorder from the environment: the process's
            # own exit status, signal included.
            cwd = os.path.join(WORK, "oob-direct-" + mode)
            shutil.rmtree(cwd, ignore_errors=True)
            os.makedirs(cwd)
            rc, o, e = sh(["bash", "-c", f"ulimit -c 0; exec {prog} {mode}"], {"LD_LIBRARY_PATH": D, "CUDART_SHIM_TRACE": "recorder"}, cwd=cwd)
            say(f"  ours by library path, CUDART_SHIM_TRACE=recorder ({mode}): {o.strip()}")
            open(os.path.join(OUT, f"oob-direct-{mode}.stderr"), "w").write(e)
            check_dump(f"oob {mode}, by library path", rc, rc_nv, e, cwd, via_command=False)

    # 2. PyTorch with a real illegal address
    say("\n== 2. PyTorch: a write far past an allocation, under trace --recorder")
    torch_crash = os.path.join(OUT, "torch_crash.py")
    open(torch_crash, "w").write(textwrap.dedent('''
    import torch
    base = torch.zeros(4, device="cuda")
    torch.cuda.synchronize()
    class Far:
        """A 64 GiB view of a 16-byte allocation (PyTorch does not check the extent)."""
        __cuda_array_interface__ = {"shape": (1 << 34,), "typestr": "<f4", "data": (base.data_ptr(), False), "version": 3}
    view = torch.as_tensor(Far(), device="cuda")
    view[(1 << 34) - 1024:].fill_(1.0)
    torch.cuda.synchronize()
    print("no error")
    '''))
    rc_nv, o_nv, e_nv = sh([sys.executable, torch_crash])
    say(f"  plain PyTorch: exit {rc_nv}: {(e_nv.strip().splitlines() or [''])[-1][:200]}")
    cwd = os.path.join(WORK, "torch")
    shutil.rmtree(cwd, ignore_errors=True)
    os.makedirs(cwd)
    rc, o, e = sh([CMD, "trace", "--recorder", "--library", SHIM, "--", sys.executable, torch_crash], cwd=cwd)
    open(os.path.join(OUT, "torch.stderr"), "w").write(e)
    say(f"  ours: last line: {(e.strip().splitlines() or [''])[-1][:200]}")
    check_dump("pytorch", rc, rc_nv, e, cwd)

# 3. cost on a launch-bound step
if a.no_cost:
    say(f"\n{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if all(results) else 1)
say(f"\n== 3. PyTorch launch-bound step (GA_SIZE=small), {a.rounds} interleaved rounds of {a.steps} steps, pinned to one CPU")
step = os.path.join(ROOT, "gpu/checks/activity/activity_torch.py")
cpus = sorted(os.sched_getaffinity(0))
CPU = cpus[min(3, len(cpus) - 1)]
variants = {
    "ours untraced": ([], {"LD_PRELOAD": SHIM}),
    "ours recorder": ([], {"LD_PRELOAD": SHIM, "CUDART_SHIM_TRACE": "recorder"}),
}
if not a.cost_only:
    variants["trace (interposer), untraced"] = ([CMD, "trace", "--no-summary", "--library", SHIM, "--"], {})
    variants["trace --recorder"] = ([CMD, "trace", "--recorder", "--library", SHIM, "--"], {})
res = {k: [] for k in variants}
cpu = {k: [] for k in variants}
for r in range(a.rounds):
    for k, (pre, env) in variants.items():
        rc, o, e = sh(["taskset", "-c", str(CPU)] + pre + [sys.executable, step, "plain", str(a.steps)], dict(env, GA_SIZE="small"), cwd=WORK)
        line = [l for l in o.splitlines() if l.startswith("STEP ")]
        if rc == 0 and line:
            fields = dict(x.split("=") for x in line[0].split()[1:])
            res[k].append(float(fields["wall_us"]))
            cpu[k].append(float(fields["cpu_us"]))
        else:
            say(f"  round {r} {k}: rc {rc} {e[-600:]}")
    say(f"  round {r}: " + ", ".join(f"{k} {v[-1]:.0f}" for k, v in res.items() if v))
med = {k: statistics.median(v) for k, v in res.items() if v}
for k, v in res.items():
    if v:
        say(f"  {k:30s} median {med[k]:9.1f} us/step  min {min(v):9.1f}  max {max(v):9.1f}  ({med[k] / med.get('ours untraced', med[k]):.3f}x ours untraced)")
for what, table in (("wall", res), ("CPU", cpu)):
    m = {k: statistics.median(v) for k, v in table.items() if v}
    for rec, base in (("ours recorder", "ours untraced"), ("trace --recorder", "trace (interposer), untraced")):
        if a.cost_only and rec not in variants:
            continue
        if rec in m and base in m:
            noise = max((max(table[base]) - min(table[base])) / 2, 0.01 * m[base])
            d = m[rec] - m[base]
            say(f"  {what} time per step, rounds: {base} {', '.join(f'{x:.0f}' for x in table[base])}; {rec} {', '.join(f'{x:.0f}' for x in table[rec])}")
            verdict(abs(d) <= noise, f"cost ({what} time): {rec} {m[rec]:.1f} us/step vs {base} {m[base]:.1f}: {d:+.1f} us ({100 * d / m[base]:+.2f}%), noise {noise:.1f} us")
        else:
            verdict(False, f"cost ({what} time): {rec} or {base} did not run")

say(f"\n{sum(results)} passed, {len(results) - sum(results)} failed")
sys.exit(0 if all(results) else 1)
