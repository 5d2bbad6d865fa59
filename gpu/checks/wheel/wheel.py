#!/usr/bin/env python3
"""The wheel on a GPU machine (issue #29), one command.

usage:
  gpu/checks/wheel/wheel.py --prepare DIR        # here, no GPU: the release wheel (pip
        # wheel . -> DIR/wheel/), the repository build it came from
        # (target/release: the command, both runtimes, the interposer and its
        # driver/ links -> DIR/repo.tar.gz) and the PyTorch program
  gpu/checks/wheel/wheel.py --lib DIR [--out OUT]   # on the GPU machine (no network)

On the GPU machine:
1. a fresh virtual environment made with --system-site-packages (it sees
   the machine's torch), the wheel installed with `pip install --no-index`;
   `cudart-shim --version` and `doctor` from there;
2. the same PyTorch program (gpu/checks/wheel/wheel_torch.py: matmuls, relu,
   a sum; reads cudart_shim.counters() at the end, then flush() and
   os._exit(0), so the summary holds exactly the calls the module read)
   under `cudart-shim trace` of the repository build and of the wheel;
3. PASS lines: the two runs print the same summary rows (name and Num
   Calls; times differ), and in each the module's counters equal the
   summary's counts for the same calls.
Closing line: `N passed, M failed`. Results in OUT/results.txt.
"""
import argparse, json, os, shutil, subprocess, sys, tarfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/wheel/
TORCH = "wheel_torch.py"

ap = argparse.ArgumentParser()
ap.add_argument("--prepare", metavar="DIR")
ap.add_argument("--lib", metavar="DIR")
ap.add_argument("--out", default=os.environ.get("OUT", "gpu-wheel-out"))
ap.add_argument("--repo-lib", metavar="DIR", help="on the GPU machine: a folder already holding the repository build (cudart-shim, the libraries, driver/; `scripts/gpu prepare`'s DIR/lib) instead of DIR/repo.tar.gz")
ap.add_argument("--no-repo", action="store_true", help="with --prepare: leave the repository build out (use --repo-lib there)")
ap.add_argument("--program", help="the Python program to trace instead of gpu-wheel-torch.py (a dry run on the fake driver: python/tests/programs/counters_under_trace.py)")
a = ap.parse_args()


def sh(cmd, env=None, timeout=300, cwd=None):
    e = dict(os.environ, PYTHONUNBUFFERED="1")
    e.update(env or {})
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except (OSError, subprocess.TimeoutExpired) as x:
        return 124, "", repr(x), time.time() - t0


if a.prepare:
    d = os.path.abspath(a.prepare)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "wheel"))
    rc = subprocess.call([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-w", os.path.join(d, "wheel")], cwd=ROOT)
    if rc:
        sys.exit(f"gpu-wheel: pip wheel . failed ({rc})")
    rel = os.path.join(ROOT, "target", "release")
    if not a.no_repo:
        with tarfile.open(os.path.join(d, "repo.tar.gz"), "w:gz") as t:
            for f in ["cudart-shim", "libcudart_shim.so", "libcudart_shim12.so", "libcudart_shim_driver.so", "libcudart.so.13", "libcudart.so.12", "driver"]:
                t.add(os.path.join(rel, f), arcname=os.path.join("release", f))
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), TORCH), d)
    print("prepared", d, sorted(os.listdir(d)))
    sys.exit(0)

if not a.lib:
    ap.error("--prepare DIR or --lib DIR")
D = os.path.abspath(a.lib)
OUT = os.path.abspath(a.out)
os.makedirs(OUT, exist_ok=True)
log = open(os.path.join(OUT, "results.txt"), "w")
passed = failed = 0


def say(*x):
    s = " ".join(str(v) for v in x)
    print(s, flush=True)
    log.write(s + "\n")
    log.flush()


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    say(("PASS " if ok else "FAIL ") + name + (f": {detail}" if detail else ""))


def summary_rows(text):
    """Name -> Num Calls of the CUDA API summary table in `text`."""
    lines = text.splitlines()
    starts = [i for i, l in enumerate(lines) if "CUDA API Summary" in l]
    rows = {}
    for start in starts:
        dashes = False
        for l in lines[start + 1:]:
            if not dashes:
                dashes = l.strip().startswith("---")
                continue
            if not l.strip():
                break
            f = l.split(None, 8)
            rows[f[8].strip()] = rows.get(f[8].strip(), 0) + int(f[2].replace(",", ""))
    return rows


say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
say(sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])[1].strip())
py = sys.executable
rc, o, e, _ = sh([py, "-c", "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"])
say("python", py, "torch:", o.strip() or e.strip()[-300:])

# 1. the venv with only the wheel
wheel = [os.path.join(D, "wheel", f) for f in os.listdir(os.path.join(D, "wheel")) if f.endswith(".whl")][0]
say("wheel", os.path.basename(wheel), f"{os.path.getsize(wheel) >> 20} MiB")
venv = os.path.join("/tmp", "gpu-wheel-venv")
shutil.rmtree(venv, ignore_errors=True)
rc, o, e, _ = sh([py, "-m", "venv", "--system-site-packages", venv])
check("venv --system-site-packages", rc == 0, e[-300:])
rc, o, e, _ = sh([os.path.join(venv, "bin", "python"), "-c", "import torch"])
if rc != 0:
    # This python is itself a venv's: --system-site-packages gives the base
    # interpreter's packages, not this one's. Its site-packages on the path.
    import site
    rc, sp, _, _ = sh([os.path.join(venv, "bin", "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    with open(os.path.join(sp.strip(), "_gpu_wheel_outer.pth"), "w") as f:
        f.write("\n".join(site.getsitepackages()) + "\n")
    say("this python's site-packages added to the venv's path:", site.getsitepackages())
rc, o, e, _ = sh([os.path.join(venv, "bin", "python"), "-c", "import torch"])
check("the venv sees this machine's torch", rc == 0, e[-300:])
rc, o, e, t = sh([os.path.join(venv, "bin", "pip"), "install", "--no-index", "--disable-pip-version-check", wheel])
check("pip install --no-index the wheel", rc == 0, f"{t:.1f} s " + e[-500:])
vpy, vcmd = os.path.join(venv, "bin", "python"), os.path.join(venv, "bin", "cudart-shim")
rc, ver, e, _ = sh([vcmd, "--version"])
rc2, meta, _, _ = sh([vpy, "-c", "import cudart_shim; print(cudart_shim.__version__)"])
check("cudart-shim --version equals the wheel's version", rc == 0 and ver.strip() == f"cudart-shim {meta.strip()}", f"{ver.strip()!r} / {meta.strip()!r}")
rc, o, e, _ = sh([vcmd, "doctor"])
say("\n== cudart-shim doctor (the wheel)\n" + o + e)
check("doctor from the wheel: ok, libraries in the package", rc == 0 and "site-packages/cudart_shim/lib/libcudart_shim.so" in o and "link checked" in o)

# 2. the same PyTorch program under both builds
if a.repo_lib:
    rcmd = os.path.join(os.path.abspath(a.repo_lib), "cudart-shim")
else:
    repo = os.path.join("/tmp", "gpu-wheel-repo")
    shutil.rmtree(repo, ignore_errors=True)
    with tarfile.open(os.path.join(D, "repo.tar.gz")) as t:
        t.extractall(repo)
    rcmd = os.path.join(repo, "release", "cudart-shim")
prog = os.path.abspath(a.program) if a.program else os.path.join(D, TORCH)
runs = {}
for name, cmd in [("repository build", rcmd), ("wheel", vcmd)]:
    js = os.path.join(OUT, f"counters-{name.split()[0]}.json")
    rc, o, e, t = sh([cmd, "trace", "--", vpy, prog, js], timeout=400)
    with open(os.path.join(OUT, f"trace-{name.split()[0]}.txt"), "w") as f:
        f.write(o + "\n--- stderr ---\n" + e)
    say(f"\n== trace of the PyTorch program, {name} ({cmd}), rc {rc}, {t:.1f} s")
    say(e[-6000:])
    check(f"{name}: the program ran under trace", rc == 0 and os.path.exists(js), o[-300:])
    runs[name] = (summary_rows(e), json.load(open(js)) if os.path.exists(js) else {"counters": []})

# 3. the comparisons
ra, rb = runs["repository build"][0], runs["wheel"][0]
diff = {n: (ra.get(n), rb.get(n)) for n in sorted(set(ra) | set(rb)) if ra.get(n) != rb.get(n)}
check(f"the same summary rows from the repository build and the wheel ({len(rb)} rows)", bool(rb) and not diff, json.dumps(diff))
for name, (rows, read) in runs.items():
    counts = {}
    for c in read["counters"]:
        counts[c["name"]] = counts.get(c["name"], 0) + c["calls"]
    d = {n: (counts.get(n), rows.get(n)) for n in sorted(set(counts) | set(rows)) if counts.get(n) != rows.get(n)}
    say(f"\n{name}: module read {len(counts)} functions, {sum(counts.values())} calls (runtimes {read.get('runtimes')}); summary {len(rows)} rows, {sum(rows.values())} calls")
    check(f"{name}: cudart_shim.counters() inside PyTorch equal the summary's counts", bool(counts) and not d, json.dumps(d))
say(f"\n{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
