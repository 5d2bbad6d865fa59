#!/usr/bin/env python3
"""Run tests/torch/checks.py with NVIDIA's runtime and with cudart-shim
preloaded, compare outputs, and time the training steps A B A B.

usage: run.py --shim PATH/libcudart_shim.so [--out DIR] [--only NAME] [--pairs N]
Prints `PASS torch/NAME ...` / `FAIL torch/NAME ...` lines and a timing table.
"""
import argparse, os, re, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS = ["props", "elementwise", "matmul", "streams_events", "pinned_copies", "allocator_stats", "graphs",
          "compiled", "mlp", "transformer"]


def run(check, shim, out, tag, extra=None):
    env = dict(os.environ, PYTHONUNBUFFERED="1", CUBLAS_WORKSPACE_CONFIG=":4096:8")
    if shim:
        env["LD_PRELOAD"] = shim
    env.update(extra or {})
    p = subprocess.run([sys.executable, os.path.join(HERE, "checks.py"), check], env=env, capture_output=True,
                       text=True, timeout=600)
    with open(os.path.join(out, f"torch_{check}.{tag}.out"), "w") as f:
        f.write(f"rc={p.returncode}\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}")
    m = re.search(r"STEP_TIME_MEDIAN_S ([0-9.]+)", p.stderr)
    return p.returncode, p.stdout, p.stderr, float(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--out", default=".")
    ap.add_argument("--only", default="")
    ap.add_argument("--pairs", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    timing = {}
    for c in CHECKS:
        if a.only and a.only not in c:
            continue
        nv = run(c, None, a.out, "nv")
        ours = run(c, a.shim, a.out, "ours")
        ok = nv[0] == 0 and ours[0] == 0 and nv[1] == ours[1]
        detail = f"nv:rc={nv[0]} ours:rc={ours[0]}"
        if not ok:
            if nv[1] != ours[1]:
                for i, (x, y) in enumerate(zip(nv[1].splitlines() + [""], ours[1].splitlines() + [""])):
                    if x != y:
                        detail += f" | line {i+1}: nv={x[:80]!r} ours={y[:80]!r}"
                        break
            tail = (ours[2].strip().splitlines() or [""])[-1]
            detail += f" | ours stderr: {tail[:200]}"
        print(f"{'PASS' if ok else 'FAIL'} torch/{c} {detail}", flush=True)
        if ok and nv[3] is not None:
            t = {"nv": [nv[3]], "ours": [ours[3]]}
            for _ in range(a.pairs - 1):
                t["nv"].append(run(c, None, a.out, "nv")[3])
                t["ours"].append(run(c, a.shim, a.out, "ours")[3])
            timing[c] = t
    for c, t in timing.items():
        ratio = statistics.median(o / n for o, n in zip(t["ours"], t["nv"]))
        print(f"TIMING torch/{c}_step nv_ms={statistics.median(t['nv'])*1e3:.3f} "
              f"ours_ms={statistics.median(t['ours'])*1e3:.3f} ratio={ratio:.3f}")


if __name__ == "__main__":
    main()
