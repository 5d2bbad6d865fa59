"""Stub check: records nothing: FAIL, never a pass."""
NAME = "silent"
DESCRIPTION = "stub: no rows"
EXPECTED_S = 1
GPUS = 0


def run(ctx):
    pass
