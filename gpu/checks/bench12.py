"""CUDA 12 benchmarks: benches/gpu and the cold start built for CUDA 12,
NVIDIA's 12.9 runtime vs ours A B A B (2 pairs); a row per operation (PASS
means measured in both). Uses the conformance12 check's prepared programs.
Program: conformance/conformance.py --abi 12 --prebuilt --skip-programs
(was `scripts/gpu-check --abi 12 --prebuilt DIR --skip-programs`)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance12  # noqa: E402

NAME = "bench12"
DESCRIPTION = "CUDA 12 benchmarks, NVIDIA's 12.9 runtime vs ours: ns per operation and the ratio"
EXPECTED_S = 110  # docs/CUDA12.md, first run 2026-11-25: 114 s with --bench-pairs 2 (and the programs)
TIMEOUT_S = 300
NEEDS = ["conformance12"]
ON_DEMAND = "figures for docs/PERFORMANCE.md, not a verdict; over the two calls' budget"


def run(ctx):
    rc, out = conformance12.conformance12(ctx, "--skip-programs", "--bench-pairs", "2", timeout=TIMEOUT_S)
    ctx.write("bench12.log", out)
    ctx.rows_from(out, "bench12.log")
    res = os.path.join(ctx.raw, "results.json")
    for b in json.load(open(res))["bench"] if os.path.exists(res) else []:
        ctx.row(b["op"], b["nvidia_ns"] > 0 and b["ours_ns"] > 0,
                f"NVIDIA {b['nvidia_ns']:.1f} ns, ours {b['ours_ns']:.1f} ns, ratio {b['ratio']:.3f}", "results.json")
