"""The flight recorder (issue #28 part 1), its behaviour: an out-of-bounds
kernel (tests/cu/recorder_oob.cu, `return` and `abort` forms) under `trace
--recorder` and by library path, and PyTorch hitting a real illegal
address: stderr shows the failing thread's last calls ending with the launch
and the failing call, the dump's call log and its timeline (the default
Perfetto protobuf `.pftrace`, read with `cudart-shim report --merge`) parse
with the same call count, the exit status equals NVIDIA's. Program:
recorder/recorder.py --no-cost (the cost is the check recorder_cost).
Was scripts/gpu-recorder (steps 1 and 2)."""
import os

NAME = "recorder"
DESCRIPTION = "the recorder's dump on a real sticky error: last calls on stderr, call log and timeline parse, exit status kept"
EXPECTED_S = 17  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 120


def prepare(ctx):
    ctx.nvcc_build("recorder_oob", [os.path.join(ctx.root, "tests/cu/recorder_oob.cu")], ["-O1"])


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "recorder.py"), "--lib", ctx.lib, "--out", ctx.raw, "--no-cost",
                      "--prog", os.path.join(ctx.bin, "recorder_oob")], env=ctx.nvidia(), timeout=TIMEOUT_S)
    ctx.rows_from(out, "summary.txt", rc=rc)
