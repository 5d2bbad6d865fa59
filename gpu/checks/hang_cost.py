"""The watchdog's cost (issue #35): a launch-bound PyTorch training step
(hang_cost/step.py: 8 small linear layers, forward, backward, SGD, a sync
per step) under `cudart-shim run` without and with `--watchdog 300`, two
processes alive together, 12 interleaved rounds of 100 steps (off, on,
off, on, ...: one process runs while the other waits for its turn).
PASS: the watchdog's median step (wall clock, and the process's CPU time
per step) is within the noise of the rounds without it (noise: half the
spread of those rounds, at least 1%)."""
import os, statistics, subprocess

NAME = "hang_cost"
DESCRIPTION = "the watchdog's added time per launch-bound PyTorch step is within the noise of the rounds without it"
EXPECTED_S = 25  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 150
ROUNDS, STEPS = 12, 100


def run(ctx):
    step = os.path.join(ctx.src, "step.py")
    procs = {}
    for mode, extra in (("off", []), ("watchdog", ["--watchdog", "300"])):
        procs[mode] = subprocess.Popen([ctx.shim, "run"] + extra + ["--", ctx.python, step, str(STEPS)], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ctx.raw)
    log = []
    res = {m: ([], []) for m in procs}
    try:
        for m, p in procs.items():
            line = p.stdout.readline()
            log.append(f"{m}: {line.strip()}")
            if not line.startswith("ready"):
                ctx.row("start", False, f"{m}: {line.strip()[:200]}", ctx.write("cost.log", "\n".join(log)))
                return
        for r in range(ROUNDS):
            for m in (("off", "watchdog") if r % 2 == 0 else ("watchdog", "off")):
                p = procs[m]
                p.stdin.write("go\n")
                p.stdin.flush()
                line = p.stdout.readline().split()
                if len(line) != 3 or line[0] != "round":
                    ctx.row("round", False, f"{m}: {' '.join(line)[:200]}", ctx.write("cost.log", "\n".join(log)))
                    return
                res[m][0].append(float(line[1]))
                res[m][1].append(float(line[2]))
                log.append(f"round {r} {m}: wall {line[1]} us/step, cpu {line[2]} us/step")
    finally:
        for p in procs.values():
            try:
                p.stdin.write("quit\n")
                p.stdin.close()
            except Exception:
                pass
            try:
                p.wait(timeout=20)
            except Exception:
                p.kill()
    ev = ctx.write("cost.log", "\n".join(log) + "\n")
    for k, what in ((0, "wall"), (1, "cpu")):
        off, on = res["off"][k], res["watchdog"][k]
        m_off, m_on = statistics.median(off), statistics.median(on)
        noise = max(0.01 * m_off, (max(off) - min(off)) / 2)
        ctx.row(f"{what} per step", m_on - m_off <= noise,
                f"median {m_on:.1f} us with the watchdog vs {m_off:.1f} us without ({(m_on / m_off - 1) * 100:+.2f}%; noise {noise / m_off * 100:.2f}%), {ROUNDS} rounds", ev)
