"""Stub check: a SKIP row with its reason (and one PASS, so the run's exit
status depends only on the other stubs)."""
NAME = "skipping"
DESCRIPTION = "stub: skips one row"
EXPECTED_S = 1
GPUS = 0


def run(ctx):
    ctx.skip("optional", "PyTorch is not installed (stub)")
