"""The README's PyTorch recipe, as written, with the GPU machine's own
Python environment (issue #33): the wheel (the `wheel` check's, prepared
here) installed for the machine's python3 (the interpreter that has torch)
with the README's install line's pip, or uv where that environment has no
pip, into a folder of this check (`--target`, on PYTHONPATH: the machine's
environment is left as it was for the other checks); then `cudart-shim
doctor` and the README's two PyTorch commands on its `train.py`, and the
README's fail() example under `trace`.

PASS when: the install works; doctor's `python:` line says the interpreter
imports cudart_shim from the install; `trace --gpu --timeline` exits 0 with
the API summary, the GPU kernel table, the NVTX `step` ranges and the
script's five counter lines; `report` reads the timeline back; the fail()
example prints `OOM after N refused cudaMalloc calls`.
"""
import glob
import json
import os
import re
import shutil

NAME = "readme_pytorch"
DESCRIPTION = "the README's PyTorch recipe and fail() example run as written with the machine's own python3 and torch"
EXPECTED_S = 60  # not yet run: two torch imports under trace, a report, doctor
TIMEOUT_S = 300
NEEDS = ["wheel"]  # its prepare builds the release wheel into data/wheel/wheel/
# Named to run (`scripts/gpu run DIR --out OUT readme_pytorch`, about a
# minute): the two parts of the whole suite are full (tests/gpu_runner.rs).
ON_DEMAND = "issue #33's proof that the README's PyTorch recipe works as written; the suite's two parts are full"


def _blocks(readme, heading, lang):
    """The fenced blocks of `lang` under README heading `heading`."""
    lines = readme.splitlines()
    i = lines.index(heading) + 1
    out, cur = [], None
    while i < len(lines) and not lines[i].startswith("#"):
        if cur is None and lines[i] == "```" + lang:
            cur = []
        elif cur is not None and lines[i] == "```":
            out.append(cur)
            cur = None
        elif cur is not None:
            cur.append(lines[i])
        i += 1
    return out


def prepare(ctx):
    """The recipe as the README says it now (the README of the prepared tree)."""
    with open(os.path.join(ctx.root, "README.md")) as f:
        readme = f.read()
    recipe = {
        "install": _blocks(readme, "## Install", "sh")[0],
        "train_py": "\n".join(_blocks(readme, "### PyTorch", "python")[0]) + "\n",
        "commands": _blocks(readme, "### PyTorch", "sh")[0],
        "oom_py": "\n".join(_blocks(readme, "### Limits and faults", "python")[0]) + "\n",
    }
    os.makedirs(ctx.data, exist_ok=True)
    with open(os.path.join(ctx.data, "recipe.json"), "w") as f:
        json.dump(recipe, f, indent=1)


def run(ctx):
    with open(ctx.prepared_file("recipe.json")) as f:
        recipe = json.load(f)
    wheels = glob.glob(os.path.join(ctx.dir, "data", "wheel", "wheel", "cudart_shim-*.whl"))
    if not wheels:
        ctx.row("install", False, "no wheel in data/wheel/wheel (the wheel check's prepare)")
        return
    work = os.path.join(ctx.raw, "work")
    os.makedirs(work, exist_ok=True)
    shutil.copy(wheels[0], work)
    # `python` and `python3` run the machine's interpreter (a wrapper keeps
    # a virtual environment's identity, which a link elsewhere would lose).
    shims = os.path.join(ctx.raw, "python-bin")
    os.makedirs(shims, exist_ok=True)
    for n in ("python", "python3"):
        p = os.path.join(shims, n)
        with open(p, "w") as f:
            f.write(f'#!/bin/sh\nexec {ctx.python} "$@"\n')
        os.chmod(p, 0o755)
    rc, out = ctx.sh([ctx.python, "-c", "import torch, sys; print(sys.executable, torch.__version__, torch.cuda.is_available())"], timeout=120)
    if rc != 0:
        ctx.row("torch", False, "the machine's python3 cannot import torch", ctx.write("torch.txt", out))
        return
    # The README's install line, with --target: pip's where the
    # environment has pip, else uv's.
    target = os.path.join(ctx.raw, "site")
    pip_line = next(l for l in recipe["install"] if l.startswith("python -m pip install"))
    uv_line = next(l for l in recipe["install"] if l.startswith("uv pip install"))
    env = {"PATH": f"{os.path.join(target, 'bin')}:{shims}:{os.environ.get('PATH', '')}", "PYTHONPATH": target,
           "VIRTUAL_ENV": None, "CONDA_PREFIX": None, "LD_PRELOAD": None, "CUDART_SHIM_TRACE": None}
    has_pip = ctx.sh("python -m pip --version", env=env, timeout=60)[0] == 0
    line = pip_line if has_pip or not shutil.which("uv") else uv_line
    line = line.split("#")[0].strip() + f" --target {target}"
    rc, out = ctx.sh(line, env=env, cwd=work, timeout=180)
    ok = rc == 0 and os.path.isfile(os.path.join(target, "bin", "cudart-shim"))
    if not ctx.row("install", ok, line.split(" --no-index")[0], ctx.write("install.txt", out)):
        return
    rc, out = ctx.sh("cudart-shim doctor", env=env, cwd=work, timeout=120)
    py = next((l for l in out.splitlines() if l.startswith("python:")), "")
    ctx.row("doctor", "imports cudart_shim" in py and os.path.join(target, "cudart_shim") in py, py[:200] or f"rc {rc}, no python: line",
            ctx.write("doctor.txt", out))
    # The recipe: train.py and its two commands, as written.
    with open(os.path.join(work, "train.py"), "w") as f:
        f.write(recipe["train_py"])
    trace, report = recipe["commands"]
    rc, out = ctx.sh(trace, env=env, cwd=work, timeout=180)
    ev = ctx.write("trace.txt", out)
    counters = re.findall(r"^\S+\s+\d+ calls\s+[\d.]+ ms$", out, re.M)
    facts = {"exit 0": rc == 0, "API summary": "CUDA API Summary" in out, "GPU kernels": "cuda_gpu_kern_sum" in out,
             "NVTX steps": bool(re.search(r"\bstep 2\b", out)), "5 counter lines": len(counters) == 5,
             "timeline": os.path.isfile(os.path.join(work, "train.pftrace"))}
    ctx.row("trace", all(facts.values()), ", ".join(k for k, v in facts.items() if not v) or f"{len(counters)} counters; " + counters[0][:80], ev)
    rc, out = ctx.sh(report, env=env, cwd=work, timeout=120)
    ctx.row("report", rc == 0 and "CUDA API Summary" in out, f"rc {rc}", ctx.write("report.txt", out))
    # The fail() example of "Limits and faults", under trace.
    with open(os.path.join(work, "oom.py"), "w") as f:
        f.write(recipe["oom_py"])
    rc, out = ctx.sh("cudart-shim trace -- python oom.py", env=env, cwd=work, timeout=180)
    m = re.search(r"^OOM after (\d+) refused cudaMalloc calls: .*$", out, re.M)
    ctx.row("fail example", rc == 0 and m is not None and int(m.group(1)) >= 1, m.group(0)[:120] if m else f"rc {rc}", ctx.write("oom.txt", out))
