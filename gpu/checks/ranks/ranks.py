#!/usr/bin/env python3
"""Registration is not work, and launchers take no rank's name (issue #27
points 2 and 3), with PyTorch on a GPU machine; one command, about a minute.

usage: gpu/checks/coexist/coexist.py --lib DIR [--out OUT]
  DIR: the release build as carried for gpu/checks/conformance/conformance.py (the `cudart-shim`
  command with libcudart_shim.so, libcudart_shim12.so and the driver
  interposer beside it). Runs, each under `cudart-shim trace --timeline`:
  1. python -c "import torch": no timeline, no call log, no summary; the
     same after torch.cuda.device_count() and is_available() (setup calls,
     as torchrun's launcher makes: not work);
  2. a TestCuda-like run: a parent that imports torch and starts four child
     processes, two of which only import torch and two of which do CUDA work:
     files only for the two that worked (and none for the parent);
  3. the README's torchrun recipe on this machine's GPUs (one rank per GPU,
     at most 2, CUDA work on each; gloo, no NCCL needed): one timeline per
     rank under the documented names, none for the launcher, and `report`
     naming every rank.
Prints PASS/FAIL lines; writes OUT/results.txt ($OUT by default).
"""
import argparse, glob, os, shutil, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--lib", required=True)
ap.add_argument("--out", default=os.environ.get("OUT", "gpu-coexist-out"))
a = ap.parse_args()
CLI = os.path.join(os.path.abspath(a.lib), "cudart-shim")
os.makedirs(a.out, exist_ok=True)
log = open(os.path.join(a.out, "results.txt"), "w")
failed = 0


def say(*x):
    s = " ".join(str(v) for v in x)
    print(s, flush=True)
    log.write(s + "\n")
    log.flush()


def verdict(ok, what):
    global failed
    failed += 0 if ok else 1
    say(("PASS " if ok else "FAIL ") + what)


def trace(work, args, program, timeout=300):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDART_SHIM_") and k != "LD_PRELOAD"}
    p = subprocess.run([CLI, "trace"] + args + ["--"] + program, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def files(work, prefix):
    return sorted(os.path.basename(f) for f in glob.glob(os.path.join(work, prefix + "*")))


say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
say(subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip())
py = sys.executable

# 1. import torch alone
w = tempfile.mkdtemp(prefix="coexist-import-")
rc, o, e = trace(w, ["--timeline", "tl-%p.json", "--calls-file", "calls-%p.txt"], [py, "-c", "import torch; print(torch.__version__)"])
say("\n== 1. import torch:", o.strip(), "| files:", os.listdir(w))
say("   stderr (last lines):", " / ".join(e.strip().splitlines()[-3:]))
verdict(rc == 0 and os.listdir(w) == [], "a traced `import torch` writes no file")
verdict("Time (%)" not in e, "and prints no summary table")
# 1b. the device count torchrun's launcher makes (setup calls are not work)
w = tempfile.mkdtemp(prefix="coexist-count-")
rc, o, e = trace(w, ["--timeline", "tl-%p.json", "--calls-file", "calls-%p.txt"],
                 [py, "-c", "import torch; print(torch.cuda.device_count(), torch.cuda.is_available())"])
say("\n== 1b. import torch, count the GPUs:", o.strip(), "| files:", os.listdir(w))
say("   stderr (last lines):", " / ".join(e.strip().splitlines()[-3:]))
verdict(rc == 0 and os.listdir(w) == [], "a traced device count (torch.cuda.device_count, is_available) writes no file")
verdict("Time (%)" not in e, "and prints no summary table (the count)")

# 2. a TestCuda-like run: a parent and four children, two of which work
w = tempfile.mkdtemp(prefix="coexist-testcuda-")
script = os.path.join(w, "suite.py")
open(script, "w").write(
    "import subprocess, sys, torch\n"
    "if len(sys.argv) > 1:\n"
    "    if sys.argv[1] == 'work':\n"
    "        x = torch.ones(1 << 20, device='cuda'); torch.cuda.synchronize(); print('sum', float(x.sum()))\n"
    "    sys.exit(0)\n"
    "kids = [subprocess.Popen([sys.executable, __file__, m]) for m in ('idle', 'work', 'idle', 'work')]\n"
    "sys.exit(max(k.wait() for k in kids))\n"
)
rc, o, e = trace(w, ["--timeline", "tl-%p.json"], [py, script], timeout=600)
tls = files(w, "tl-")
say("\n== 2. TestCuda-like (parent + 2 idle + 2 working children):", o.strip().replace("\n", " "), "| timelines:", tls)
verdict(rc == 0 and len(tls) == 2, f"timelines only for the 2 processes that did CUDA work (got {len(tls)})")
verdict(e.count("Time (%)") == 2, f"summaries only for them ({e.count('Time (%)')} printed)")

# 3. the README's torchrun recipe
torchrun = shutil.which("torchrun")
n = int(subprocess.run([py, "-c", "import torch; print(min(2, torch.cuda.device_count()))"], capture_output=True, text=True).stdout.strip() or 0)
w = tempfile.mkdtemp(prefix="coexist-torchrun-")
open(os.path.join(w, "train.py"), "w").write(
    "import os, torch, torch.distributed as dist\n"
    "dist.init_process_group('gloo')\n"
    "r = dist.get_rank(); torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
    "x = torch.full((1 << 20,), float(r + 1), device='cuda'); y = (x * 2).sum(); torch.cuda.synchronize()\n"
    "t = torch.tensor([float(y)]); dist.all_reduce(t); print('rank', r, 'sum', float(t)); dist.destroy_process_group()\n"
)
if not torchrun or n < 1:
    verdict(False, f"torchrun recipe: torchrun {torchrun}, {n} GPU(s)")
else:
    # README, "Many ranks (torchrun)", with --nproc-per-node set to the GPUs here.
    rc, o, e = trace(w, ["--timeline", "trace-rank%r.json"], ["torchrun", "--nproc-per-node", str(n), "train.py"], timeout=600)
    got = files(w, "trace-rank")
    want = [f"trace-rank{r}.json" for r in range(n)]
    say(f"\n== 3. torchrun --nproc-per-node {n}:", o.strip().replace("\n", " "), "| files:", got)
    verdict(rc == 0 and got == want, f"one timeline per rank under the documented names, none for the launcher: {got}")
    p = subprocess.run([CLI, "report", "--merge", "all-ranks.json"] + want, cwd=w, capture_output=True, text=True)
    named = [f"== rank {r} (" in p.stdout for r in range(n)]
    verdict(p.returncode == 0 and all(named), f"`cudart-shim report` names every rank ({sum(named)} of {n})")
    if os.path.exists(os.path.join(w, "all-ranks.json")):
        shutil.copy(os.path.join(w, "all-ranks.json"), a.out)
say(f"\n{failed} failed")
sys.exit(1 if failed else 0)
