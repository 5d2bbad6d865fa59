"""Bad input on a GPU (docs/RELIABILITY.md): every cudaError_t export of
NVIDIA's libcudart.so.13 (tests/data/abi/libcudart13-exports.txt) called
with hostile arguments (scripts/gen-bad-input.py, ~1700 cases), with
NVIDIA's runtime and with ours: bad_input_gpu.tsv (case, NVIDIA, ours), the
data of tests/data/bad_input_gpu.tsv; rows: codes equal, no crash that only
ours has. Program: conformance/conformance.py --bad-input (built there with
the machine's nvcc headers). Was `scripts/gpu-check --skip-torch
--skip-bench --bad-input tests/data/abi/libcudart13-exports.txt`."""
import os

NAME = "bad_input"
DESCRIPTION = "hostile arguments to every export: ours answers NVIDIA's codes and crashes nowhere NVIDIA does not"
EXPECTED_S = 400  # no timing logged; ~1700 cases twice, one child process per function, 1500 s limit per runtime before
TIMEOUT_S = 580
ON_DEMAND = "refreshes tests/data/bad_input_gpu.tsv; takes most of one device call alone"


def run(ctx):
    exports = os.path.join(ctx.root, "tests/data/abi/libcudart13-exports.txt")
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.root, "gpu/checks/conformance/conformance.py"), "--lib", ctx.lib, "--out", ctx.raw,
                      "--skip-programs", "--skip-torch", "--skip-bench", "--bad-input", exports], timeout=TIMEOUT_S - 10)
    ctx.write("bad_input.log", out)
    ctx.rows_from(out, "bad_input.log", rc=rc)
