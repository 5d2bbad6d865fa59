"""What the HTA checks (hta_torch, hta_nontorch, hta_ddp) share: Holistic
Trace Analysis's wheels, carried to the GPU machine (which has no network;
it has numpy, pandas, pyyaml, psutil, networkx, narwhals: KINDS.md), and
tests/hta_check.py run on a folder of traces. Not a check (leading `_`)."""
import json
import os
import tempfile

# Pure-Python wheels; the rest HTA imports is on the GPU machine.
PINS = ["holistictraceanalysis==0.5.0", "plotly==7.1.0", "narwhals==2.29.0"]


def wheels_dir(ctx):
    """The wheels, prepared once by hta_torch (the others NEED it)."""
    return os.path.join(ctx.dir, "data", "hta_torch", "wheels")


def prepare_wheels(ctx):
    d = wheels_dir(ctx)
    os.makedirs(d, exist_ok=True)
    rc, out = ctx.sh(["python3", "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", d] + PINS, timeout=600)
    if rc != 0:
        raise RuntimeError("pip download failed: " + out.strip()[-300:])


_SITE = {}


def site(ctx):
    """The wheels unpacked in a temporary folder (once per process)."""
    if "d" not in _SITE:
        d = tempfile.mkdtemp(prefix="hta-py-")
        for w in sorted(os.listdir(wheels_dir(ctx))):
            rc, out = ctx.sh([ctx.python, "-m", "zipfile", "-e", os.path.join(wheels_dir(ctx), w), d])
            if rc != 0:
                raise RuntimeError(f"cannot unpack {w}: {out}")
        _SITE["d"] = d
    return _SITE["d"]


def analyse(ctx, trace_dir, name, extra=()):
    """tests/hta_check.py on trace_dir: (its JSON or None, evidence file)."""
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.root, "tests", "hta_check.py"), trace_dir] + list(extra),
                     env={"PYTHONPATH": ":".join(p for p in (site(ctx), os.environ.get("PYTHONPATH")) if p)}, timeout=600)
    ev = ctx.write(f"hta-{name}.txt", out)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    try:
        return (json.loads(last) if rc == 0 else None), ev
    except ValueError:
        return None, ev


def answered(h, ranks):
    """Each analysis's problems for these ranks (empty: all answered)."""
    bad = []
    for analysis, rows in h["analyses"].items():
        if "error" in rows:
            bad.append(f"{analysis}: {rows['error']}")
        else:
            bad += [f"{analysis}: no rows for rank {r}" for r in ranks if not rows.get(str(r))]
    return bad
