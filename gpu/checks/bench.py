"""Benchmarks (benches/gpu, one binary, and the cold start to the first
cudaMalloc): each operation in its own process, NVIDIA's runtime and ours
A B A B (3 pairs); a row per operation with the medians and the median of
the per-pair ratios. PASS means measured in both runtimes (a run that fails
is FAIL); the figures are for docs/PERFORMANCE.md. Uses the programs the
conformance check prepares. Program: conformance/conformance.py --abi 13
--prebuilt --skip-programs --skip-torch (was `scripts/gpu-check` without
--skip-bench)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance  # noqa: E402

NAME = "bench"
DESCRIPTION = "benchmarks, NVIDIA's runtime vs ours A B A B: ns per operation and the ratio"
EXPECTED_S = 60  # docs/gpu-runs/2026-11-26-s8-call2-h100.txt: `bench` 58 s
TIMEOUT_S = 200
NEEDS = ["conformance"]  # its prepared programs
ON_DEMAND = "figures for docs/PERFORMANCE.md, not a verdict; over the two calls' budget"


def run(ctx):
    rc, out = conformance.conformance(ctx, "--skip-programs", "--skip-torch", "--bench-pairs", "3", timeout=TIMEOUT_S)
    ctx.write("bench.log", out)
    ctx.rows_from(out, "bench.log")  # failures (a run that did not measure)
    res = os.path.join(ctx.raw, "results.json")
    for b in json.load(open(res))["bench"] if os.path.exists(res) else []:
        ctx.row(b["op"], b["nvidia_ns"] > 0 and b["ours_ns"] > 0,
                f"NVIDIA {b['nvidia_ns']:.1f} ns, ours {b['ours_ns']:.1f} ns, ratio {b['ratio']:.3f}", "results.json")
