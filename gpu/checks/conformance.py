"""Conformance: every program of tests/gpu and every C example run three
ways, NVIDIA's libcudart.so.13 (the machine's), ours by library path and
ours by LD_PRELOAD (and ours with the caching allocator for cache_*): PASS
per program when all exit as NVIDIA's and print the same stdout. The
programs are built by prepare with the 13.0 wheel's nvcc for sm_90 (+PTX),
as the conformance program built them on the GPU machine before.
Program: conformance/conformance.py --abi 13 --prebuilt (was
`scripts/gpu-check --skip-bench --skip-torch`)."""
import os

NAME = "conformance"
DESCRIPTION = "tests/gpu programs and C examples: ours (by path, by preload) prints and exits as NVIDIA's runtime"
EXPECTED_S = 88  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 300


def prepare(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "conformance.py"), "--prepare", ctx.data, "--lib", ctx.lib], timeout=3600)
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])


def conformance(ctx, *args, timeout):
    """The conformance program on the prepared programs (shared with the
    bench and trace_overhead checks, which use conformance's prepared folder)."""
    data = os.path.join(ctx.dir, "data", "conformance")
    return ctx.sh([ctx.python, os.path.join(ctx.root, "gpu/checks/conformance/conformance.py"), "--abi", "13", "--prebuilt", data,
                   "--lib", ctx.lib, "--out", ctx.raw] + list(args), timeout=timeout)


def run(ctx):
    rc, out = conformance(ctx, "--skip-bench", "--skip-torch", timeout=TIMEOUT_S)
    ctx.write("conformance.log", out)
    ctx.rows_from(out, "conformance.log", rc=rc)
    skips(ctx, out)


def skips(ctx, out):
    """N/A lines (a program that cannot be built for this ABI or compared
    with NVIDIA's runtime): SKIP rows with the reason, never a pass."""
    for line in out.splitlines():
        if line.startswith("N/A "):
            name, _, why = line[4:].partition(" ")
            ctx.skip(name, why or "not buildable")
