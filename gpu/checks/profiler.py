"""cudaProfilerStart/Stop capture windows in programs that never load our
runtime, through the driver interposer (issue #26): a static-runtime program
(tests/cu/profiler_static.cu) and CuPy, windowed and unwindowed: only the
launches inside the window, start-up calls outside, cuProfilerStop recorded.
Program: profiler/profiler.py. Was scripts/gpu-profiler."""
import os

NAME = "profiler"
DESCRIPTION = "capture windows through the driver interposer (static-runtime program, CuPy)"
EXPECTED_S = 3  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 60


def prepare(ctx):
    ctx.link_lib(ctx.data)
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "profiler.py"), "--prepare", ctx.data])
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "profiler.py"), "--lib", ctx.data, "--out", ctx.raw], timeout=TIMEOUT_S)
    ctx.rows_from(out, "results.txt", rc=rc)
