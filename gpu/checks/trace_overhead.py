"""The per-call cost of each tracing mode on the real driver: NVIDIA's
runtime untraced, ours off, summary, summary/16, calls and timeline, one
process each, the six in a row per round (2 rounds), for cudaGetDevice,
cudaGetLastError, cudaEventQuery (complete) and a <<<>>> launch; each
timeline written must be complete JSON. Rows: the medians per mode (PASS
means measured) and the timelines' validity. Uses the conformance check's
prepared bench binary. Program: conformance/conformance.py --trace-overhead
(was `scripts/gpu-check --trace-overhead`)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance  # noqa: E402

NAME = "trace_overhead"
DESCRIPTION = "ns per call added by each tracing mode (off, summary, summary/16, calls, timeline) on the real driver"
EXPECTED_S = 60  # no timing logged in docs/gpu-runs/: 4 operations x 2 rounds x 6 processes
TIMEOUT_S = 200
NEEDS = ["conformance"]
ON_DEMAND = "figures for docs/PERFORMANCE.md, not a verdict; over the two calls' budget"


def run(ctx):
    rc, out = conformance.conformance(ctx, "--skip-programs", "--skip-torch", "--skip-bench", "--trace-overhead", "--bench-pairs", "2",
                                      timeout=TIMEOUT_S)
    ctx.write("trace_overhead.log", out)
    ctx.rows_from(out, "trace_overhead.log")
    res = os.path.join(ctx.raw, "trace_overhead.json")
    for r in json.load(open(res)) if os.path.exists(res) else []:
        med = r["median_ns"]
        ok = "off" in med and len(med) == 6
        fig = ", ".join(f"{k} {v:.1f}" for k, v in med.items())
        ctx.row(r["op"], ok, f"median ns/call: {fig}", "trace_overhead.json")
