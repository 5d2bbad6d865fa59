"""The wheel (issue #29): a fresh venv (--system-site-packages, so it sees
the machine's torch), `pip install --no-index` the release wheel,
`cudart-shim --version` and `doctor` from it; the same PyTorch program
(wheel/wheel_torch.py) under `trace` of the repository build and of the
wheel: the same summary rows, and cudart_shim.counters() inside PyTorch equal
the summary's counts. Program: wheel/wheel.py (its wheel built by prepare
with `pip wheel .` into DIR/data/wheel; the repository build is DIR/lib).
Was scripts/gpu-wheel."""
import os

NAME = "wheel"
DESCRIPTION = "the wheel installs offline in a venv with torch; its trace and counters match the repository build"
EXPECTED_S = 40  # docs/gpu-runs/2026-11-26-s7-call2-h200.txt (no timing logged: a venv, a pip install, two traced runs)
TIMEOUT_S = 200


def prepare(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "wheel.py"), "--prepare", ctx.data, "--no-repo"], timeout=1800)
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "wheel.py"), "--lib", ctx.data, "--repo-lib", ctx.lib, "--out", ctx.raw],
                     timeout=TIMEOUT_S)
    ctx.rows_from(out, "results.txt", rc=rc)
