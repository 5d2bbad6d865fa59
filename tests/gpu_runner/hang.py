"""Stub check: hangs in a child process; killed at TIMEOUT_S with its
children (the child's pid goes to raw/hang/pid for the test to look for)."""
NAME = "hang"
DESCRIPTION = "stub: hangs"
EXPECTED_S = 1
TIMEOUT_S = 3
GPUS = 0


def run(ctx):
    ctx.sh(["sh", "-c", "echo $$ > pid; exec sleep 600"], timeout=900)
