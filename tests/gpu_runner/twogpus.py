"""Stub check: needs more GPUs than any CI machine has: SKIP, stated."""
NAME = "twogpus"
DESCRIPTION = "stub: needs 64 GPUs"
EXPECTED_S = 1
GPUS = 64


def run(ctx):
    ctx.row("ran", False, "a check needing 64 GPUs ran")
