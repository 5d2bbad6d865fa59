"""Two GPUs (issue #19): DDP training (tests/torch/ddp.py, NCCL) under
torchrun with NVIDIA's runtime, ours by preload and ours with the timeline,
interleaved rounds: losses and final parameters bitwise identical; the
two-GPU peer and IPC programs (tests/gpu/memory_peer.cu,
ipc_two_processes.cu) three ways through the conformance program.
Program: multi/multi.py. Was scripts/gpu-multi (run then with --rounds 10
--steps 20; 1 round here to fit the device budget).
"""
import glob
import os
import shutil

NAME = "multi"
DESCRIPTION = "two GPUs: DDP under torchrun bitwise identical with ours; peer and IPC programs as NVIDIA's"
EXPECTED_S = 79  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 300
GPUS = 2


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.src, "multi.py"), "--lib", ctx.lib, "--out", ctx.raw,
                      "--rounds", "1", "--steps", "20"], timeout=TIMEOUT_S)
    ctx.write("multi.log", out)
    ctx.rows_from(out, "multi.log", rc=rc)
    for d in glob.glob(os.path.join(ctx.raw, "*", "build")):  # the peer and IPC programs' builds: not evidence
        shutil.rmtree(d, ignore_errors=True)
