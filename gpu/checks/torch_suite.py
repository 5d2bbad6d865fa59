"""PyTorch conformance (tests/torch/checks.py through tests/torch/run.py):
props, elementwise, matmul, streams and events, pinned copies, allocator
stats, graphs, torch.compile, an MLP and a transformer step, each run with
NVIDIA's runtime and with ours preloaded: PASS when both exit 0 and print
the same; the training steps' times A B for the record (one pair here).
Was the PyTorch part of `scripts/gpu-check`."""
import os

NAME = "torch_suite"
DESCRIPTION = "tests/torch checks print the same with ours preloaded as with NVIDIA's runtime"
EXPECTED_S = 190  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 300


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.root, "tests/torch/run.py"), "--shim", os.path.join(ctx.lib, "libcudart_shim.so"),
                      "--out", ctx.raw, "--pairs", "1"], timeout=TIMEOUT_S)
    ev = ctx.write("torch_suite.log", out)
    ctx.rows_from(out, ev, rc=rc)
