"""`cudart-shim trace` with both runtimes (issue #20): a CUDA 12 program
(tests/cu12/hello12.cu, built with scripts/nvcc12) traced on the 12 runtime
with its driver calls nested; a shell script running a 12 and a 13 program:
one timeline per runtime; one process loading both SONAMEs: two timelines,
each runtime's driver calls nested under its own; PyTorch with both
preloaded: one timeline, on libcudart.so.13, no .cudart12 file.
tests/cli_abi.rs checks the same over the fake driver. Program:
trace_abi/trace_abi.sh (its prepare writes DIR/data/trace_abi/run.sh).
Was scripts/gpu-trace-abi, which printed the timelines for a reader to
judge; the rows below are that reading."""
import os
import re

NAME = "trace_abi"
DESCRIPTION = "trace with the 12 and 13 runtimes: the right timeline per runtime, driver calls nested in each"
EXPECTED_S = 9  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 120


def prepare(ctx):
    ctx.link_lib(ctx.data)
    rc, out = ctx.sh(["bash", os.path.join(ctx.src, "trace_abi.sh"), "prepare", ctx.data], timeout=600)
    if rc != 0:
        raise RuntimeError(out.strip()[-400:])


def run(ctx):
    rc, out = ctx.sh(["bash", os.path.join(ctx.data, "run.sh")], env={"OUT": ctx.raw}, timeout=TIMEOUT_S)
    ev = ctx.write("trace_abi.log", out)
    # TIMELINE name: runtime, N calls, D driver calls, K at depth 0
    tl = {}
    for m in re.finditer(r"^TIMELINE (\S+): (\S+), (\d+) calls, (\d+) driver calls, (\d+) at depth 0$", out, re.M):
        tl[m.group(1)] = (m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)))
    ctx.row("runs", rc == 0 and bool(tl), f"rc={rc}, {len(tl)} timelines", ev)
    ctx.row("doctor", "== doctor" in out and "libcudart_shim12.so" in out and "libcudart_shim.so" in out,
            "doctor names both libraries", ev)
    h = tl.get("hello12.json")
    ctx.row("hello12", bool(h) and h[0] == "libcudart.so.12" and h[2] > 0 and h[3] == 0,
            f"{h}: on the 12 runtime, driver calls all nested" if h else "no hello12.json", ev)
    scripts = sorted(v[0] for k, v in tl.items() if k.startswith("script-"))
    ctx.row("script_12_and_13", scripts == ["libcudart.so.12", "libcudart.so.13"], f"runtimes of script-*.json: {scripts}", ev)
    both = {k: v for k, v in tl.items() if k.startswith("both")}
    ctx.row("one_process_both", sorted(both) == ["both.cudart13.json", "both.json"] and all(v[2] > 0 and v[3] == 0 for v in both.values()),
            f"{both}", ev)
    torch = {k: v for k, v in tl.items() if k.startswith("torch-")}
    ctx.row("torch_both_preloaded", len(torch) == 1 and all(v[0] == "libcudart.so.13" for v in torch.values())
            and not any("cudart12" in k for k in torch), f"{torch}", ev)
