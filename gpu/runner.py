"""The GPU check runner behind `scripts/gpu` (python3 standard library only).

    scripts/gpu list [--parts N]                 the checks, their expected device seconds, parts
    scripts/gpu prepare DIR [--from D] [CHECK..] here, no GPU: libraries, programs, data
    scripts/gpu run DIR --out OUT [--part K/N] [--budget S] [CHECK..]   there, on the GPU

A check is one module gpu/checks/NAME.py defining

    NAME = "NAME"                 # its file name without .py
    DESCRIPTION = "one line"      # what it proves
    EXPECTED_S = 30               # device seconds it took (docs/gpu-runs/ logs)
    TIMEOUT_S = 120               # optional (default max(60, 3 * EXPECTED_S))
    GPUS = 2                      # optional (default 1): fewer GPUs -> SKIP, stated
    NEEDS = ["other"]             # optional: checks whose prepared data it uses (prepared with it)
    ON_DEMAND = "why"             # optional: not in a run of all or of a part; runs when named
    def prepare(ctx): ...         # optional, here (no GPU): ctx.nvcc_build(...), files into ctx.data
    def run(ctx): ...             # there: ctx.sh(...), ctx.row(name, ok, figure, evidence)

Every check runs in its own process with its own time limit: a check that
raises, crashes or hangs is FAIL with its traceback (or the reason) in its
raw folder and the run goes on. Rows: PASS, FAIL, or SKIP with a stated
reason; a SKIP is never counted as a pass, and a check that records no row
at all is FAIL. OUT receives exactly two files: results.md (the one table,
also printed last) and raw.tar.gz (raw/NAME/ of every check: its log, the
commands it ran with their output, its evidence files).
"""
import argparse
import datetime
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKS = os.path.join(ROOT, "gpu", "checks")

# What `prepare` copies from the release build into DIR/lib (stripped of
# debug info so that the folder travels: the lead's carry limit is 64 MiB
# with the working tree).
LIBRARIES = ["libcudart_shim.so", "libcudart_shim12.so", "libcudart_shim_driver.so", "libcudart_shim_cupti.so", "cudart-shim"]
# Names the programs and the command look for, as links (a copied file under
# driver/ would look for our runtime in driver/: the interposer finds the
# runtime beside its real path).
LINKS = {"libcudart.so.13": "libcudart_shim.so", "libcudart.so.12": "libcudart_shim12.so",
         "driver/libcuda.so.1": "../libcudart_shim_driver.so", "driver/libcuda.so": "../libcudart_shim_driver.so"}
# The device returns at most 16 MiB per file: the tarball stays under it.
RAW_LIMIT = 15 * 2**20
# One device call runs at most 600 s; the run stops starting checks when
# what is left of its budget cannot hold them, and keeps time to write OUT.
DEFAULT_BUDGET = 560


class CheckError(Exception):
    """A check module that breaks the contract (no NAME, wrong NAME, no run)."""


def checks_dir():
    # GPU_CHECKS_DIR: the CI test's stub checks (tests/gpu_runner.rs).
    return os.environ.get("GPU_CHECKS_DIR") or CHECKS


def names():
    d = checks_dir()
    return sorted(f[:-3] for f in os.listdir(d) if f.endswith(".py") and not f.startswith("_"))


def load(name):
    """The check module gpu/checks/NAME.py, its contract verified."""
    path = os.path.join(checks_dir(), name + ".py")
    if not os.path.isfile(path):
        raise CheckError(f"no check {name!r} (no {path}); `scripts/gpu list` names them")
    spec = importlib.util.spec_from_file_location(f"gpu.checks.{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if getattr(mod, "NAME", None) != name:
        raise CheckError(f"{path}: NAME must be {name!r} (its file name), is {getattr(mod, 'NAME', None)!r}")
    if not isinstance(getattr(mod, "DESCRIPTION", None), str) or not mod.DESCRIPTION:
        raise CheckError(f"{path}: DESCRIPTION (one line) is missing")
    if not callable(getattr(mod, "run", None)):
        raise CheckError(f"{path}: run(ctx) is missing")
    if not isinstance(getattr(mod, "EXPECTED_S", None), (int, float)):
        raise CheckError(f"{path}: EXPECTED_S (device seconds, from docs/gpu-runs/) is missing")
    return mod


def suite(selected):
    """The checks a run of all (or of a part) takes: all but those marked
    ON_DEMAND (a reason string: run only when named)."""
    return [n for n in selected if not getattr(load(n), "ON_DEMAND", None)]


def _on_demand(n):
    try:
        return bool(getattr(load(n), "ON_DEMAND", None))
    except Exception:
        return False  # loads in run(), where its failure to load is a FAIL row


def timeout_of(mod):
    return int(getattr(mod, "TIMEOUT_S", 0) or max(60, 3 * mod.EXPECTED_S))


def parts(mods, n):
    """Split the checks into n parts of about equal expected seconds, the
    same way every time (longest first, each into the lightest part; ties
    by name), so `list --parts N` shows what `run --part K/N` runs."""
    bins = [[0.0, []] for _ in range(n)]
    for m in sorted(mods, key=lambda m: (-m.EXPECTED_S, m.NAME)):
        b = min(bins, key=lambda b: b[0])
        b[0] += m.EXPECTED_S
        b[1].append(m.NAME)
    return [(s, sorted(ns)) for s, ns in bins]


def _env(base, env):
    e = dict(base)
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = str(v)
    return e


class Context:
    """What a check's prepare(ctx) and run(ctx) get. Paths are absolute.

    dir    the prepared folder        lib   DIR/lib (our libraries, links)
    bin    DIR/bin (compiled programs: every check's, by name)
    data   DIR/data/NAME (this check's prepared files; created on demand)
    src    gpu/checks/NAME (this check's sources: .cu, .py helpers)
    root   the repository (on the GPU machine: the carried working tree)
    raw    run: OUT/raw/NAME (evidence, logs); prepare: DIR/logs/NAME
    nvcc   prepare: the CUDA 13.0 wheel's nvcc (.cache/cuda); run: the GPU
           machine's nvcc if any, else None
    nvlib  run: the folder holding NVIDIA's libcudart.so.13 there (the
           machine's toolkit or its nvidia-cuda-runtime package, else the
           13.0 one prepare copied to DIR/nvidia)
    python the interpreter running the suite (on the GPU machine: the one
           with PyTorch, CuPy, JAX, Triton)
    gpus   how many GPUs (run; 0 in prepare)
    target prepare: the build folder the libraries came from (--from,
           default target/release), for a check that needs another of its
           artefacts (a benchmark binary)
    """

    def __init__(self, mode, name, d, raw, rows_file=None):
        self.mode, self.name = mode, name
        self.dir = os.path.abspath(d)
        self.lib = os.path.join(self.dir, "lib")
        self.bin = os.path.join(self.dir, "bin")
        self.data = os.path.join(self.dir, "data", name)
        self.src = os.path.join(checks_dir(), name)
        self.root = ROOT
        self.raw = raw
        self.python = sys.executable
        os.makedirs(self.raw, exist_ok=True)
        self._rows_file = rows_file
        self._log = open(os.path.join(self.raw, "commands.log"), "a")
        self.rows = []
        if mode == "prepare":
            self.nvcc = find_wheel_nvcc()
            self.nvlib = None
            self.gpus = 0
        else:
            self.nvcc = find_device_nvcc()
            self.nvlib = find_nvidia_cudart(self.nvcc, self.dir)
            self.gpus = gpu_count()

    # -- running things -------------------------------------------------
    def sh(self, cmd, env=None, timeout=300, cwd=None, input=None):
        """Run cmd (a list, or a string for sh -c) with env over the
        environment (a None value removes a variable), in cwd (default: this
        check's raw folder). Returns (rc, output): stdout and stderr together,
        as text; 124 on a timeout. The command and its output go to
        raw/commands.log."""
        shell = isinstance(cmd, str)
        e = _env(os.environ, env)
        t0 = time.time()
        # Its own process group, so that a timeout ends the command's children
        # too; still in the check's session, which the runner ends as a whole.
        p = subprocess.Popen(cmd, shell=shell, env=e, cwd=cwd or self.raw, stdin=subprocess.PIPE if input else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=os.setpgrp)
        try:
            out, _ = p.communicate(input.encode() if isinstance(input, str) else input, timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                out, _ = p.communicate(timeout=10)
            except subprocess.TimeoutExpired:  # a grandchild outside the group holds the pipe
                p.kill()
                out = b""
            rc, out = 124, (out or b"") + f"\n[timeout after {timeout} s: killed]".encode()
        out = out.decode("utf-8", "replace") if isinstance(out, bytes) else (out or "")
        shown = cmd if shell else " ".join(str(c) for c in cmd)
        envs = " ".join(f"{k}={v}" for k, v in (env or {}).items())
        self._log.write(f"$ {envs + ' ' if envs else ''}{shown}\n[rc={rc} {time.time() - t0:.1f}s]\n{out}\n")
        self._log.flush()
        return rc, out

    def ours(self, **env):
        """The environment that runs a program on our runtime by library path
        (DIR/lib first, NVIDIA's after it), plus env."""
        path = ":".join(p for p in (self.lib, self.nvlib) if p)
        return dict({"LD_LIBRARY_PATH": path}, **env)

    def nvidia(self, **env):
        """The environment that runs a program on NVIDIA's libcudart.so.13."""
        return dict({"LD_LIBRARY_PATH": self.nvlib or ""}, **env)

    @property
    def shim(self):
        """The `cudart-shim` command in DIR/lib."""
        return os.path.join(self.lib, "cudart-shim")

    def write(self, name, text):
        """Write text to raw/name; returns its path (for ctx.row's evidence)."""
        p = os.path.join(self.raw, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    # -- results --------------------------------------------------------
    def row(self, name, ok, figure="", evidence=None):
        """One result row: ok True (PASS) or False (FAIL); figure: the number
        or short fact it rests on; evidence: a file in raw/ (path, absolute
        or relative to raw/) that shows it."""
        self._add(name, "PASS" if ok else "FAIL", figure, evidence)
        return bool(ok)

    def skip(self, name, reason):
        """A SKIP row: counted neither as pass nor fail; reason is required."""
        if not reason:
            raise ValueError("a SKIP needs its reason")
        self._add(name, "SKIP", reason, None)

    def _add(self, name, verdict, figure, evidence):
        if evidence:
            evidence = os.path.relpath(os.path.join(self.raw, evidence), os.path.dirname(os.path.dirname(self.raw)))
        r = {"check": self.name if not name or name == self.name else f"{self.name}/{name}",
             "verdict": verdict, "figure": str(figure), "evidence": evidence or ""}
        self.rows.append(r)
        print(f"{verdict} {r['check']} {r['figure']}", flush=True)
        if self._rows_file:
            with open(self._rows_file, "a") as f:
                f.write(json.dumps(r) + "\n")

    # -- building (prepare) ---------------------------------------------
    def nvcc_build(self, name, sources, flags=(), arch="sm_90", cudart="shared"):
        """Compile CUDA sources with the wheel's nvcc into bin/NAME (NVIDIA's
        runtime linked as cudart: "shared" or "static", nvcc's default; SASS
        for the GPU machines' H100/H200 and PTX for newer GPUs), stripped of
        debug info. Raises on a build failure."""
        os.makedirs(self.bin, exist_ok=True)
        exe = os.path.join(self.bin, name)
        num = arch.split("_")[1]
        opt = [] if any(f.startswith("-O") for f in flags) else ["-O2"]
        cmd = [self.nvcc, "-cudart", cudart, f"-gencode=arch=compute_{num},code=[sm_{num},compute_{num}]", "-w",
               "-Xcompiler", "-Wno-deprecated-declarations", "-o", exe] + opt + list(flags) + list(sources)
        cmd += ["-L" + os.path.join(cuda_cache(), "linklib"), "-L" + os.path.join(cuda_cache(), "nvidia", "cu13", "lib")]
        rc, out = self.sh(cmd, timeout=900, cwd=self.root)
        if rc != 0:
            raise RuntimeError(f"nvcc {name} failed: {out.strip().splitlines()[-1] if out.strip() else rc}")
        self.sh(["strip", "--strip-debug", exe])
        return exe

    def cc_build(self, name, sources, flags=(), compiler="cc"):
        """A host C/C++ program into bin/NAME (flags after the sources, so
        that -l options link)."""
        os.makedirs(self.bin, exist_ok=True)
        exe = os.path.join(self.bin, name)
        rc, out = self.sh([compiler] + list(sources) + ["-o", exe] + list(flags), timeout=600, cwd=self.root)
        if rc != 0:
            raise RuntimeError(f"{compiler} {name} failed: {out.strip()[-400:]}")
        self.sh(["strip", "--strip-debug", exe])
        return exe

    def rows_from(self, text, evidence=None, rc=None):
        """A row for each line of text that starts with PASS or FAIL (the
        forms a check's own program prints: `PASS what: figure`, `PASS
        what | figure`, `PASS group/name figure`, `PASS set:case figure`): the row's name
        is that group/name or set:case word, else what comes before the first ': ' or ' | ';
        its figure the rest. With rc (the program's exit status): a FAIL
        row when it printed no verdict at all, or exited non-zero with no
        FAIL among its rows (it stopped early: what it did not reach is not
        a pass). Returns how many rows it added."""
        n, failed = 0, False
        for line in text.splitlines():
            m = re.match(r"(PASS|FAIL)\b:?\s*(.*)", line.strip())
            if not m:
                continue
            what = m.group(2)
            first = what.split(" ", 1)[0]
            if re.fullmatch(r"[\w.-]+[/:][\w.:/-]*\w", first):  # `PASS group/name detail`, `PASS set:case detail`
                cut = len(first)
            else:
                cut = min([i for i in (what.find(": "), what.find(" | ")) if i > 0] or [len(what)])
            name, figure = what[:cut].strip(), what[cut:].lstrip(":| ").strip()
            self._add(name[:120] or "(unnamed)", m.group(1), figure[:300], evidence)
            n += 1
            failed = failed or m.group(1) == "FAIL"
        if rc is not None and (n == 0 or (rc != 0 and not failed)):
            last = (text.strip().splitlines() or [""])[-1][-200:]
            why = "timed out" if rc == 124 else f"exited {rc}"
            self._add("program", "FAIL", f"{why} after {n} verdicts: {last}", evidence)
            n += 1
        return n

    def link_lib(self, folder):
        """Make folder a view of DIR/lib: each entry of lib/ (libraries, the
        command, driver/) as a relative link, replacing a copy of the same
        name. A program that wants "its" folder to hold our libraries beside
        its own files gets one without a second copy of them (the command
        and the interposer find the rest beside their real paths)."""
        os.makedirs(folder, exist_ok=True)
        for f in os.listdir(self.lib):
            p = os.path.join(folder, f)
            if os.path.islink(p) or os.path.isfile(p):
                os.remove(p)
            elif os.path.isdir(p):
                shutil.rmtree(p)
            os.symlink(os.path.relpath(os.path.join(self.lib, f), folder), p)
        return folder

    def prepared_file(self, name):
        """Path of a file in data/ (for run: what prepare put there)."""
        return os.path.join(self.data, name)


# -- the machines ---------------------------------------------------------
def cuda_cache():
    return os.environ.get("CUDART_SHIM_CUDA_CACHE") or os.path.join(ROOT, ".cache", "cuda")


def find_wheel_nvcc():
    p = os.path.join(cuda_cache(), "nvidia", "cu13", "bin", "nvcc")
    return p if os.path.exists(p) else None


def find_device_nvcc():
    for c in [shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"]:
        if c and os.path.exists(c):
            return c
    return None


def find_nvidia_cudart(nvcc, d):
    cands = []
    if nvcc:
        top = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        cands += [os.path.join(top, x) for x in ("lib64", "lib", "targets/x86_64-linux/lib")]
    cands += ["/usr/local/cuda/lib64"]
    for mod in ("nvidia.cu13", "nvidia.cuda_runtime"):
        try:
            m = importlib.import_module(mod)
            for p in getattr(m, "__path__", []):
                cands.append(os.path.join(p, "lib"))
        except Exception:
            pass
    cands.append(os.path.join(d, "nvidia"))
    for c in cands:
        if os.path.exists(os.path.join(c, "libcudart.so.13")):
            return c
    return None


def gpu_count():
    # GPU_RUNNER_GPUS: a dry run where there is none (every check then runs
    # and fails on what it cannot do; a check's own errors show).
    if os.environ.get("GPU_RUNNER_GPUS", "").isdigit():
        return int(os.environ["GPU_RUNNER_GPUS"])
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
        return sum(1 for l in p.stdout.splitlines() if l.startswith("GPU "))
    except Exception:
        return 0


def machine():
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=60)
        gpus = [l.strip() for l in p.stdout.splitlines() if l.strip()]
        return f"{len(gpus)} x {gpus[0]}" if gpus else "no GPU (nvidia-smi lists none)"
    except Exception:
        return "no GPU (no nvidia-smi)"


def git_commit():
    try:
        p = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=30)
        return p.stdout.strip() or "?"
    except Exception:
        return "?"


# -- prepare --------------------------------------------------------------
def prepare(d, src, only, nolibs=False, part=None):
    d = os.path.abspath(d)
    if os.path.exists(os.path.join(d, "prepared.json")):
        shutil.rmtree(d)  # a folder this command made before: start clean
    elif os.path.exists(d) and os.listdir(d):
        sys.exit(f"gpu prepare: {d} exists and was not made by `scripts/gpu prepare`: name an empty or new folder")
    os.makedirs(os.path.join(d, "lib", "driver"))
    os.makedirs(os.path.join(d, "bin"))
    if not nolibs:
        missing = [f for f in LIBRARIES if not os.path.isfile(os.path.join(src, f))]
        if missing:
            shutil.rmtree(d)
            sys.exit(f"gpu prepare: {src} lacks {', '.join(missing)}: run `cargo build --release --workspace` first "
                     "(or name the build folder with --from)")
        for f in LIBRARIES:
            dst = os.path.join(d, "lib", f)
            shutil.copyfile(os.path.join(src, f), dst)
            os.chmod(dst, 0o755)
            subprocess.run(["strip", "--strip-debug", dst], check=False)
        for link, target in LINKS.items():
            os.symlink(target, os.path.join(d, "lib", link))
    # NVIDIA's 13.0 runtime, in case the GPU machine offers none of its own.
    nv = os.path.join(cuda_cache(), "nvidia", "cu13", "lib", "libcudart.so.13")
    if os.path.exists(nv):
        os.makedirs(os.path.join(d, "nvidia"))
        shutil.copyfile(nv, os.path.join(d, "nvidia", "libcudart.so.13"))
    done, failed = [], {}
    selected = only or names()
    if part:
        # One part's checks only: a smaller folder to carry with that part's call.
        selected = parts([load(n) for n in suite(selected)], part[1])[part[0] - 1][1]
    # What a check NEEDS (another check's prepared data) is prepared first.
    order = []

    def add(n, seen=()):
        if n in order or n in seen:
            return
        try:
            for dep in getattr(load(n), "NEEDS", []):
                add(dep, seen + (n,))
        except Exception:
            pass  # reported when its own turn comes
        order.append(n)
    for n in selected:
        add(n)
    for name in order:
        t0 = time.time()
        ctx = None
        try:
            mod = load(name)
            broken = [n for n in getattr(mod, "NEEDS", []) if n in failed]
            if broken:
                raise CheckError(f"needs {', '.join(broken)}, whose prepare failed")
            ctx = Context("prepare", name, d, os.path.join(d, "logs", name))
            ctx.target = os.path.abspath(src)
            if callable(getattr(mod, "prepare", None)):
                mod.prepare(ctx)
            done.append(name)
            print(f"prepared {name} ({time.time() - t0:.1f} s)", flush=True)
        except Exception as x:
            failed[name] = f"{type(x).__name__}: {x}"
            log = os.path.join(d, "logs", name)
            os.makedirs(log, exist_ok=True)
            with open(os.path.join(log, "traceback.txt"), "w") as f:
                f.write(traceback.format_exc())
            print(f"PREPARE FAILED {name}: {failed[name]} (traceback in {log})", flush=True)
    with open(os.path.join(d, "prepared.json"), "w") as f:
        json.dump({"commit": git_commit(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   "checks": done, "failed": failed, "from": os.path.abspath(src)}, f, indent=1)
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs
               if not os.path.islink(os.path.join(r, f)))
    print(f"prepared {d}: {len(done)} checks, {len(failed)} failed; {size / 2**20:.1f} MiB")
    if size > 56 * 2**20:
        print("gpu prepare: over 56 MiB: with the working tree it will not fit the 64 MiB carry", file=sys.stderr)
        return 1
    return 1 if failed else 0


# -- run ------------------------------------------------------------------
def child(d, out, name):
    """One check, in its own process (`runner.py _child`): its rows go to
    raw/NAME/rows.jsonl as they come, so a crash or a kill keeps them."""
    raw = os.path.join(out, "raw", name)
    ctx = Context("run", name, d, raw, rows_file=os.path.join(raw, "rows.jsonl"))
    try:
        mod = load(name)
        got = mod.run(ctx)
        # run may also yield or return rows as tuples (name, ok, figure, evidence).
        if got is not None and not isinstance(got, (str, bytes)):
            for r in got:
                if isinstance(r, tuple):
                    ctx.row(*r)
    except Exception as x:
        with open(os.path.join(raw, "traceback.txt"), "w") as f:
            f.write(traceback.format_exc())
        ctx._add("", "FAIL", f"crashed: {type(x).__name__}: {x}"[:300], "traceback.txt")
        return 1
    return 0


def run(d, out, only, part, budget):
    d, out = os.path.abspath(d), os.path.abspath(out)
    if not os.path.exists(os.path.join(d, "prepared.json")):
        sys.exit(f"gpu run: {d} is not a prepared folder (`scripts/gpu prepare {d}` makes one)")
    prep = json.load(open(os.path.join(d, "prepared.json")))
    os.makedirs(out, exist_ok=True)
    rawroot = os.path.join(out, "raw")
    if os.path.exists(rawroot):
        shutil.rmtree(rawroot)
    os.makedirs(rawroot)
    t_start = time.time()
    # Carried files may lose their mode bits.
    for sub in ("lib", "bin"):
        for r, _, fs in os.walk(os.path.join(d, sub)):
            for f in fs:
                p = os.path.join(r, f)
                if not os.path.islink(p) and not os.access(p, os.X_OK):
                    os.chmod(p, 0o755)
    selected = only or names()
    if not only:
        selected = [n for n in selected if not _on_demand(n)]
    mods, rows, times = {}, [], {}
    for n in selected:
        try:
            mods[n] = load(n)
        except Exception as x:
            rows.append({"check": n, "verdict": "FAIL", "figure": f"does not load: {x}"[:300], "evidence": ""})
    if part:
        k, n = part
        mine = parts(list(mods.values()), n)[k - 1][1]
        mods = {m: mods[m] for m in mine}
    gpus = gpu_count()
    print(f"gpu run: {len(mods)} checks on {machine()}; prepared at {prep.get('commit')} {prep.get('date')}", flush=True)
    for name in sorted(mods):
        mod = mods[name]
        raw = os.path.join(rawroot, name)
        os.makedirs(raw)
        need = int(getattr(mod, "GPUS", 1))
        left = budget - (time.time() - t_start) if budget else None
        if name in prep.get("failed", {}):
            rows.append({"check": name, "verdict": "FAIL", "figure": f"prepare failed: {prep['failed'][name]}"[:300], "evidence": ""})
            continue
        if name not in prep.get("checks", []):
            rows.append({"check": name, "verdict": "FAIL", "figure": "not prepared in this folder (prepare it)", "evidence": ""})
            continue
        if need > gpus:
            rows.append({"check": name, "verdict": "SKIP", "figure": f"needs {need} GPU(s), this machine has {gpus}", "evidence": ""})
            continue
        limit = timeout_of(mod)
        # Started only when it can likely end in what is left (its limit is
        # then cut to that): a run killed at the device's 600 s returns nothing.
        if left is not None and left < 1.2 * mod.EXPECTED_S + 5:
            rows.append({"check": name, "verdict": "FAIL", "figure": f"not run: {left:.0f} s of the {budget} s budget left, "
                         f"expects {mod.EXPECTED_S} s (run it alone: `scripts/gpu run DIR --out OUT {name}`)", "evidence": ""})
            continue
        if left is not None:
            limit = int(min(limit, left))
        print(f"== {name}: expected {mod.EXPECTED_S} s, limit {limit} s", flush=True)
        t0 = time.time()
        with open(os.path.join(raw, "log.txt"), "w") as log:
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "_child", d, out, name], stdout=log,
                                 stderr=subprocess.STDOUT, cwd=raw, start_new_session=True)
            try:
                rc, killed = p.wait(timeout=limit), False
            except subprocess.TimeoutExpired:
                rc, killed = None, True
            # The check's whole session (its commands are process groups in
            # it): what a hung or finished check left running would hold a
            # GPU, or the output pipe, for the next one.
            end_session(p.pid)
            if rc is None:
                rc = p.wait()
        times[name] = time.time() - t0
        got = []
        rf = os.path.join(raw, "rows.jsonl")
        if os.path.exists(rf):
            got = [json.loads(l) for l in open(rf) if l.strip()]
        if killed:
            got.append({"check": name, "verdict": "FAIL", "figure": f"timeout: killed after {limit} s", "evidence": f"raw/{name}/log.txt"})
        elif rc != 0 and not any(r["verdict"] == "FAIL" for r in got):
            got.append({"check": name, "verdict": "FAIL", "figure": f"its process exited {rc}", "evidence": f"raw/{name}/log.txt"})
        elif not got:
            got.append({"check": name, "verdict": "FAIL", "figure": "recorded no result", "evidence": f"raw/{name}/log.txt"})
        rows += got
        c = {v: sum(1 for r in got if r["verdict"] == v) for v in ("PASS", "FAIL", "SKIP")}
        print(f"   {name}: {c['PASS']} PASS {c['FAIL']} FAIL {c['SKIP']} SKIP in {times[name]:.1f} s", flush=True)
    text = results_md(rows, times, mods, prep, part, time.time() - t_start, gpus)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text)
    dropped = tar_raw(out)
    print()
    print(text)
    if dropped:
        print(f"raw.tar.gz: left out (over {RAW_LIMIT >> 20} MiB in all): {', '.join(dropped)}")
    # The device returns only the output's last 12,000 characters: a long
    # table's head would be cut, so what matters ends the output again.
    print(tail_summary(rows, times, mods))
    # 0 only when something passed and nothing failed: a run of SKIPs proves nothing.
    return 0 if any(r["verdict"] == "PASS" for r in rows) and not any(r["verdict"] == "FAIL" for r in rows) else 1


def end_session(sid):
    """SIGKILL every process of session sid (found in /proc)."""
    for _ in range(3):
        pids = []
        for e in os.listdir("/proc"):
            if e.isdigit():
                try:
                    stat = open(f"/proc/{e}/stat").read()
                    # pid (comm) state ppid pgrp session ...: comm may hold spaces
                    f = stat[stat.rindex(")") + 2:].split()
                    if int(f[3]) == sid and f[0] != "Z":
                        pids.append(int(e))
                except (OSError, ValueError, IndexError):
                    pass
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.2)


def tail_summary(rows, times, mods):
    """The run's verdict in a few lines: each check's counts and time, and
    every row that is not a PASS (figures cut to 160 characters)."""
    lines = ["== summary (the whole table is above and in OUT/results.md)"]
    by = {}
    for r in rows:
        c = by.setdefault(r["check"].split("/", 1)[0], {"PASS": 0, "FAIL": 0, "SKIP": 0})
        c[r["verdict"]] += 1
    for n, c in by.items():
        t = f", {times[n]:.0f} s (expected {mods[n].EXPECTED_S})" if n in times else ""
        lines.append(f"{n}: {c['PASS']} PASS, {c['FAIL']} FAIL, {c['SKIP']} SKIP{t}")
    for r in rows:
        if r["verdict"] != "PASS":
            lines.append(f"{r['verdict']} {r['check']}: {r['figure'][:160]}")
    total = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("PASS", "FAIL", "SKIP")}
    lines.append(f"== {total['PASS']} PASS, {total['FAIL']} FAIL, {total['SKIP']} SKIP (a SKIP is not a pass)")
    return "\n".join(lines)


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def results_md(rows, times, mods, prep, part, wall, gpus):
    c = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("PASS", "FAIL", "SKIP")}
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"# GPU checks: {c['PASS']} PASS, {c['FAIL']} FAIL, {c['SKIP']} SKIP (a SKIP is not a pass)", "",
             f"{now}; {machine()}; prepared at {prep.get('commit')}; "
             f"{'part ' + str(part[0]) + '/' + str(part[1]) if part else 'all selected'}; {wall:.0f} s", "",
             "| check | verdict | figure | evidence |", "|---|---|---|---|"]
    for r in rows:
        ev = f"raw.tar.gz:{r['evidence']}" if r["evidence"] else ""
        lines.append(f"| {cell(r['check'])} | {r['verdict']} | {cell(r['figure'])} | {cell(ev)} |")
    lines += ["", "| check | seconds | expected |", "|---|---|---|"]
    for n, t in times.items():
        lines.append(f"| {n} | {t:.1f} | {mods[n].EXPECTED_S} |")
    return "\n".join(lines) + "\n"


def tar_raw(out):
    """OUT/raw -> OUT/raw.tar.gz (then removed), under RAW_LIMIT: the
    largest files are left out first and listed in raw/LEFT-OUT.txt."""
    rawroot = os.path.join(out, "raw")
    files = []
    for r, _, fs in os.walk(rawroot):
        for f in fs:
            p = os.path.join(r, f)
            if not os.path.islink(p):
                files.append((os.path.getsize(p), p))
    dropped = []
    tgz = os.path.join(out, "raw.tar.gz")
    # A file over half the limit would crowd out the others (and each retry
    # compresses everything again): left out at once.
    keep = []
    for size, p in sorted(files):
        if size > RAW_LIMIT // 2:
            dropped.append(f"{os.path.relpath(p, out)} ({size} bytes)")
        else:
            keep.append((size, p))
    while True:
        with tarfile.open(tgz, "w:gz") as t:
            for _, p in keep:
                t.add(p, arcname=os.path.relpath(p, out))
            if dropped:
                note = os.path.join(out, "LEFT-OUT.txt")
                with open(note, "w") as f:
                    f.write("left out of raw.tar.gz (too big to come back from the device):\n" + "\n".join(dropped) + "\n")
                t.add(note, arcname="raw/LEFT-OUT.txt")
                os.remove(note)
        if os.path.getsize(tgz) <= RAW_LIMIT or not keep:
            break
        size, p = keep.pop()
        dropped.append(f"{os.path.relpath(p, out)} ({size} bytes)")
    shutil.rmtree(rawroot)
    return dropped


# -- the command ----------------------------------------------------------
def part_arg(s):
    try:
        k, n = (int(x) for x in s.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r}: K/N, as 1/2")
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"{s!r}: K must be 1..N")
    return k, n


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_child"]:
        return child(*argv[1:4])
    # One parser per command, each parsed with intermixed arguments so that
    # `run DIR --out OUT CHECK...` works (subparsers cannot intermix).
    cmds = {
        "list": "the checks, their expected device seconds and time limits, the split into parts",
        "prepare": "here, no GPU: DIR/lib (our stripped libraries), DIR/bin (programs), DIR/data",
        "run": "on the GPU machine: run all or the named checks; OUT/results.md and OUT/raw.tar.gz",
    }
    top = argparse.ArgumentParser(prog="scripts/gpu", description="The GPU check suite: prepare here (no GPU), run there "
                                  "(docs/GPU-CHECKS.md). Commands: " + "; ".join(f"{k}: {v}" for k, v in cmds.items()))
    top.add_argument("cmd", choices=list(cmds))
    if not argv or argv[0] not in cmds:
        top.parse_args(argv[:1])  # exits 2 with the usage (or 0 for --help)
        top.error("a command: " + ", ".join(cmds))
    ap = argparse.ArgumentParser(prog=f"scripts/gpu {argv[0]}", description=cmds[argv[0]])
    if argv[0] == "list":
        ap.add_argument("--parts", type=int, default=3, help="show the split into N parts (default 3)")
    if argv[0] == "prepare":
        ap.add_argument("dir")
        ap.add_argument("--from", dest="src", default=os.path.join(ROOT, "target", "release"),
                        help="the build folder holding the libraries and the command (default target/release)")
        ap.add_argument("--no-libs", action="store_true", help=argparse.SUPPRESS)  # the CI test's stub checks
        ap.add_argument("--part", type=part_arg, help="K/N: only the checks of the K-th of N parts (a smaller folder to carry)")
        ap.add_argument("checks", nargs="*", help="only these checks (default all)")
    if argv[0] == "run":
        ap.add_argument("dir")
        ap.add_argument("--out", required=True, help="OUT: results.md and raw.tar.gz go there")
        ap.add_argument("--part", type=part_arg, help="K/N: only the K-th of N parts (as `scripts/gpu list --parts N` shows)")
        ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                        help=f"seconds for the whole run: no check starts that cannot end in it (default {DEFAULT_BUDGET}; 0: none)")
        ap.add_argument("checks", nargs="*", help="only these checks (default all)")
    a = ap.parse_intermixed_args(argv[1:])
    a.cmd = argv[0]
    if getattr(a, "checks", None):
        unknown = [c for c in a.checks if c not in names()]
        if unknown:
            ap.error(f"no such check: {', '.join(unknown)} (`scripts/gpu list` names them)")
    if a.cmd == "list":
        if a.parts < 1:
            ap.error("--parts must be at least 1")
        mods = [load(n) for n in names()]
        print(f"{'check':<22} {'expected s':>10} {'limit s':>8} {'GPUs':>4}  description")
        for m in mods:
            print(f"{m.NAME:<22} {m.EXPECTED_S:>10} {timeout_of(m):>8} {getattr(m, 'GPUS', 1):>4}  {m.DESCRIPTION}"
                  + (f" [on demand: {m.ON_DEMAND}]" if getattr(m, "ON_DEMAND", None) else ""))
        in_suite = [m for m in mods if not getattr(m, "ON_DEMAND", None)]
        print(f"{'all':<22} {sum(m.EXPECTED_S for m in in_suite):>10}  (on-demand checks run only when named)")
        for i, (s, ns) in enumerate(parts(in_suite, a.parts), 1):
            print(f"part {i}/{a.parts}: {s:.0f} s expected: {' '.join(ns)}")
        return 0
    if a.cmd == "prepare":
        if a.part and a.checks:
            ap.error("--part and named checks: one or the other")
        return prepare(a.dir, a.src, a.checks, a.no_libs, a.part)
    if a.part and a.checks:
        ap.error("--part and named checks: one or the other")
    if a.budget < 0:
        ap.error("--budget must be 0 or more")
    return run(a.dir, a.out, a.checks, a.part, a.budget)


if __name__ == "__main__":
    sys.exit(main())
