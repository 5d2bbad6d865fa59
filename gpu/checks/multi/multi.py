#!/usr/bin/env python3
"""The two-GPU check (issue #19): DDP training under torchrun with NCCL, and
the two-GPU peer and IPC programs, with NVIDIA's runtime and with
cudart-shim, on one machine with two or more GPUs.

1. tests/torch/ddp.py under `torchrun --standalone --nproc-per-node 2`,
   three ways, interleaved for --rounds rounds (the order rotates each
   round): NVIDIA's runtime (`nv`), ours by LD_PRELOAD untraced (`ours`),
   and ours with the timeline on through `cudart-shim trace --timeline`
   (`ours+tl`, one timeline per rank). Losses and final parameters must be
   bitwise identical to the first `nv` run on every rank and every round;
   the step-time ratios ours/nv are printed (median and range over rounds,
   the ratio taken within each round).
2. `cudart-shim report` over the last round's rank timelines (each rank's
   summary and the cross-rank table) and `--merge merged.json`.
3. tests/gpu/memory_peer.cu and ipc_two_processes.cu, built with nvcc and
   run with NVIDIA's runtime, ours by library path and ours by LD_PRELOAD
   (through gpu/checks/conformance/conformance.py --only), outputs compared.

Prints PASS/FAIL lines and `N passed, M failed`; everything is left in
--out. NVLink multicast stays off (NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1): the lent
machines do not support it.
"""
import argparse, glob, gzip, json, os, re, shutil, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/multi/
# Set for every process started from here, A and B alike.
FIXED_ENV = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
    "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
    "PYTHONUNBUFFERED": "1",
    # One all-reduce algorithm for every run: NCCL's tuning must not make
    # the two runtimes' sums differ.
    "NCCL_ALGO": "Ring",
    "NCCL_PROTO": "Simple",
}
results = []


def record(name, ok, detail=""):
    results.append((name, ok))
    print(f"{'PASS' if ok else 'FAIL'} {name} {detail}", flush=True)


def sh(cmd, env=None, timeout=600):
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired as x:
        return 124, x.stdout or "", (x.stderr or "") + "\nTIMEOUT", time.time() - t0
    except OSError as x:
        return 127, "", str(x), time.time() - t0


def gpu_count():
    rc, o, _, _ = sh(["nvidia-smi", "-L"])
    return len([l for l in o.splitlines() if l.startswith("GPU ")]) if rc == 0 else 0


def parse_ddp(stdout):
    """{rank: {"losses": [hex...], "params": hex, "step_s": float}}"""
    ranks = {}
    for line in stdout.splitlines():
        m = re.match(r"rank (\d+) (.*)", line)
        if not m:
            continue
        r = ranks.setdefault(int(m.group(1)), {"losses": [], "params": None, "step_s": None})
        rest = m.group(2)
        if rest.startswith("step "):
            r["losses"].append(rest.split(" loss ")[1])
        elif rest.startswith("params sha256 "):
            r["params"] = rest.split()[-1]
        elif rest.startswith("STEP_TIME_MEDIAN_S "):
            r["step_s"] = float(rest.split()[-1])
    return ranks


def main():
    ap = argparse.ArgumentParser(prog="gpu-multi", description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", metavar="DIR", default=os.path.join(ROOT, "target/release"),
                    help="folder holding libcudart_shim.so, libcudart.so.13 and cudart-shim (default target/release)")
    ap.add_argument("--out", metavar="DIR", default=os.environ.get("OUT") or os.path.join(ROOT, "gpu-multi-out"),
                    help="where logs, timelines and the merged trace go (default $OUT, else ./gpu-multi-out)")
    ap.add_argument("--rounds", metavar="N", type=int, default=10, help="interleaved A/B rounds (default 10)")
    ap.add_argument("--steps", metavar="N", type=int, default=60, help="training steps per run (default 60)")
    ap.add_argument("--nproc", metavar="N", type=int, default=2, help="ranks (GPUs) for torchrun (default 2)")
    ap.add_argument("--skip-torch", action="store_true", help="skip the DDP runs")
    ap.add_argument("--skip-programs", action="store_true", help="skip the two-GPU peer and IPC programs")
    a = ap.parse_args()
    os.environ.update(FIXED_ENV)
    os.makedirs(a.out, exist_ok=True)
    lib = os.path.abspath(a.lib)
    shim = os.path.join(lib, "libcudart_shim.so")
    cli = os.path.join(lib, "cudart-shim")
    for f in (shim, cli):
        if not os.path.exists(f):
            sys.exit(f"gpu-multi: {f} is missing (cargo build --release)")
    n = gpu_count()
    print(f"gpu-multi: {n} GPUs; library {shim}; env {FIXED_ENV}", flush=True)
    if n < a.nproc:
        sys.exit(f"gpu-multi: needs {a.nproc} GPUs, found {n}")
    # For the record: the machine, its GPU links, the software.
    with open(os.path.join(a.out, "machine.txt"), "w") as f:
        for cmd in (["nvidia-smi"], ["nvidia-smi", "topo", "-m"],
                    [sys.executable, "-c", "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version())"]):
            rc, o, e, _ = sh(cmd, timeout=120)
            f.write(f"$ {' '.join(cmd)}\n{o}{e}\n")

    if not a.skip_torch:
        ddp(a, shim, cli)
    if not a.skip_programs:
        for prog in ("memory_peer", "ipc_two_processes"):
            out = os.path.join(a.out, "gpu-check-" + prog)
            rc, o, e, _ = sh([sys.executable, os.path.join(ROOT, "gpu/checks/conformance/conformance.py"), "--lib", lib, "--out", out,
                              "--only", prog, "--skip-bench", "--skip-torch"], timeout=1200)
            with open(os.path.join(a.out, f"{prog}.log"), "w") as f:
                f.write(o + "\n--- stderr\n" + e)
            rows = [l for l in o.splitlines() if prog in l]
            ok = rc == 0 and bool(rows) and not any("FAIL" in l for l in rows)
            record(f"program/{prog} (nv, ours by library path, ours by LD_PRELOAD)", ok, " | ".join(rows)[:400])
    passed = sum(ok for _, ok in results)
    print(f"\n{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if passed == len(results) else 1)


def ddp(a, shim, cli):
    script = os.path.join(ROOT, "tests/torch/ddp.py")
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={a.nproc}", script,
                "--steps", str(a.steps)]
    ways = ["nv", "ours", "ours+tl"]
    times = {w: [] for w in ways}
    reference = None
    all_same = True
    last_timelines = []
    for rnd in range(a.rounds):
        order = ways[rnd % 3:] + ways[:rnd % 3]
        for way in order:
            tag = f"r{rnd}-{way.replace('+', '_')}"
            env, cmd = {}, list(torchrun)
            if way == "ours":
                env["LD_PRELOAD"] = shim
            elif way == "ours+tl":
                tl_dir = os.path.join(a.out, f"timelines-r{rnd}")
                os.makedirs(tl_dir, exist_ok=True)
                # The command preloads the library into torchrun and every
                # rank, and names each rank's timeline when the job ends.
                cmd = [cli, "trace", "--no-summary", "--library", shim, "--timeline",
                       os.path.join(tl_dir, "rank%r-pid%p.json"), "--"] + torchrun
            rc, o, e, secs = sh(cmd, env, timeout=900)
            with open(os.path.join(a.out, f"ddp-{tag}.log"), "w") as f:
                f.write(f"$ {' '.join(cmd)}\nrc={rc} {secs:.1f}s\n--- stdout\n{o}\n--- stderr\n{e}")
            ranks = parse_ddp(o)
            if rc != 0 or len(ranks) != a.nproc or any(r["step_s"] is None for r in ranks.values()):
                record(f"ddp/{tag}", False, f"rc={rc}, ranks {sorted(ranks)}; see ddp-{tag}.log: {e.strip()[-300:]}")
                all_same = False
                continue
            seen = {r: (v["losses"], v["params"]) for r, v in ranks.items()}
            if reference is None and way == "nv":
                reference = seen
            if reference is not None and seen != reference:
                all_same = False
                diff = [r for r in seen if seen[r] != reference.get(r)]
                record(f"ddp/{tag} losses", False, f"ranks {diff} differ from the first nv run")
            times[way].append((rnd, ranks[0]["step_s"]))
            if way == "ours+tl":
                last_timelines = [p for p in sorted(glob.glob(os.path.join(a.out, f"timelines-r{rnd}", "*.json")))]
                print(f"  round {rnd} ours+tl: the command named: " +
                      "; ".join(l for l in e.splitlines() if l.startswith("cudart-shim:"))[:600], flush=True)
        print(f"round {rnd}: " + ", ".join(f"{w} {dict(times[w]).get(rnd, float('nan')) * 1e3:.3f} ms" for w in ways),
              flush=True)
    record(f"ddp losses and parameters bitwise identical, {a.nproc} ranks x {a.rounds} rounds x 3 ways",
           all_same and reference is not None)
    nv = dict(times["nv"])
    for way, limit in (("ours", 1.02), ("ours+tl", 1.05)):
        ratios = [t / nv[r] for r, t in times[way] if r in nv]
        if not ratios:
            record(f"ddp step time {way}/nv", False, "no timing")
            continue
        med = statistics.median(ratios)
        record(f"ddp step time {way}/nv <= {limit}", med <= limit,
               f"median {med:.4f} over {len(ratios)} rounds (min {min(ratios):.4f}, max {max(ratios):.4f}); "
               f"nv median step {statistics.median(nv.values()) * 1e3:.3f} ms")
    report(a, cli, last_timelines)


def report(a, cli, files):
    """The cross-rank report and the merged trace of the last timeline round."""
    # Rank files only (the launcher, which has no RANK, may write one too).
    ranked = []
    for f in files:
        try:
            with open(f) as fh:
                p = json.load(fh)["otherData"]["process"]
            if p.get("rank") is not None:
                ranked.append(f)
        except Exception as x:
            print(f"  {f}: {x}")
    if len(ranked) != a.nproc:
        record("report over the ranks' timelines", False, f"{len(ranked)} rank timelines of {len(files)} files: {files}")
        return
    merged = os.path.join(a.out, "merged.json")
    rc, o, e, _ = sh([cli, "report", "--merge", merged] + ranked)
    with open(os.path.join(a.out, "report.txt"), "w") as f:
        f.write(o + "\n--- stderr\n" + e)
    print(o[-6000:])
    ok = rc == 0 and all(f"== rank {r} (" in o for r in range(a.nproc)) and f"** Across {a.nproc} ranks" in o
    record("report names every rank and prints the cross-rank table", ok, e.strip()[-300:])
    try:
        with open(merged) as fh:
            m = json.load(fh)
        names = sorted(ev["args"]["name"] for ev in m["traceEvents"] if ev.get("name") == "process_name")
        ok = len(names) == a.nproc and all(n.startswith(f"rank {i} (") for i, n in enumerate(names))
        record("merged trace: one valid trace, one process per rank", ok, f"{names}")
        # Compressed copy to bring back (the device returns small files).
        with open(merged, "rb") as src, gzip.open(merged + ".gz", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(merged)
    except Exception as x:
        record("merged trace: one valid trace, one process per rank", False, str(x))


if __name__ == "__main__":
    main()
