"""Perfetto's protobuf timeline (issue #28 part 2): one deterministic
PyTorch job (300 steps, --gpu) traced to Chrome JSON and to .pftrace;
Perfetto's own Python classes parse the protobuf (offline); calls, GPU
slices, counter samples, memory instants, NVTX ranges and flows equal the
JSON's; protobuf <= 40 B per call event; `report` gives the same tables
from both and from a merge. Program: perfetto/perfetto.sh
(tests/perfetto_check.py, Perfetto's and protobuf's wheels unpacked into
DIR/data/perfetto/py). Was scripts/gpu-perfetto."""
import os

NAME = "perfetto"
DESCRIPTION = "the .pftrace parses with Perfetto's classes, holds the JSON's events, <= 40 B per call event"
EXPECTED_S = 60  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 200


def prepare(ctx):
    ctx.link_lib(ctx.data)
    rc, out = ctx.sh(["bash", os.path.join(ctx.src, "perfetto.sh"), "--prepare", ctx.data], timeout=600)
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])


def run(ctx):
    rc, out = ctx.sh(["bash", os.path.join(ctx.src, "perfetto.sh"), "--lib", ctx.data, "--out", ctx.raw], timeout=TIMEOUT_S)
    ctx.write("perfetto.log", out)
    ctx.rows_from(out, "perfetto.log", rc=rc)
    # The JSON timelines are tens of MB: their counts are in perfetto.log and
    # check.json; the .pftrace (the figure's subject) stays.
    for f in ("torch.json", "merged.json"):
        p = os.path.join(ctx.raw, f)
        if os.path.exists(p):
            os.remove(p)
