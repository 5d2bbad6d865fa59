"""Stub check: one PASS row, then an exception: the row stays, the check
is FAIL with its traceback, the run goes on."""
NAME = "crash"
DESCRIPTION = "stub: raises after one row"
EXPECTED_S = 1
GPUS = 0


def run(ctx):
    ctx.row("first", True, "before the crash")
    raise RuntimeError("boom in the stub")
