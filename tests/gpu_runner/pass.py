"""Stub check (tests/gpu_runner.rs): two PASS rows, one with an evidence file
written by prepare's data and a command run through ctx.sh."""
import os

NAME = "pass"
DESCRIPTION = "stub: passes, with evidence"
EXPECTED_S = 1
GPUS = 0


def prepare(ctx):
    os.makedirs(ctx.data, exist_ok=True)
    with open(os.path.join(ctx.data, "n.txt"), "w") as f:
        f.write("42")


def run(ctx):
    n = open(ctx.prepared_file("n.txt")).read()
    rc, out = ctx.sh(["sh", "-c", f"echo {n} things"])
    ctx.row("sh", rc == 0 and out.strip() == "42 things", out.strip(), ctx.write("evidence.txt", out))
    yield ("yielded", True, "a row yielded as a tuple", None)
    # A program's own PASS lines (the moved scripts' form) become rows.
    ctx.rows_from("noise\nPASS ratio within noise: 1.02 | spread 3%\nPASS static/saxpy rc=0/0/0\n", "evidence.txt")
