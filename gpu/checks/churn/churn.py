#!/usr/bin/env python3
"""Churn: many short traced processes, each process's summary against its
own timeline (issue #34's GPU must-show; the comparison runs here too, over
the fake driver, in tests/stress.rs).

    churn.py --lib DIR --out OUT [--runs N] [--parallel P] [--registration] -- CMD ...

Runs CMD N times, P at a time, each process on our runtime (LD_PRELOAD of
DIR/libcudart.so.13, LD_LIBRARY_PATH=DIR) traced with summary and timeline
(CUDART_SHIM_TRACE=summary,timeline; registration calls written too, so
that every call the summary counts has its event), the timeline in Chrome
JSON for even runs and Perfetto's protobuf for odd ones. Per process: the
summary's count of each function (and of each failure) must equal the
timeline's, read back by DIR/cudart-shim report (either format). Prints a
PASS/FAIL line per property and `processes N, differing M`; writes
OUT/churn.txt (each differing process: what differed) and exits 1 when any
process differs or failed.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import time


def table(doc):
    calls = collections.Counter({r["Name"]: r["Num Calls"] for r in doc.get("cuda_api_sum", [])})
    errors = collections.Counter({(r["Name"], r["Error"]): r["Num Calls"] for r in doc.get("errors", [])})
    return calls, errors


def compare(summary_path, timeline_path, cli):
    """What differs between a process's summary JSON and its timeline
    (empty: nothing). Read through `cudart-shim report --format json`."""
    try:
        with open(summary_path) as f:
            s_calls, s_errors = table(json.load(f))
    except (OSError, ValueError) as e:
        return [f"summary unreadable: {e}"]
    r = subprocess.run([cli, "report", "--format", "json", timeline_path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return [f"report {timeline_path} failed: {r.stderr.strip()[-300:]}"]
    t_calls, t_errors = table(json.loads(r.stdout))
    out = []
    for name in sorted(set(s_calls) | set(t_calls)):
        if s_calls[name] != t_calls[name]:
            out.append(f"{name}: summary {s_calls[name]}, timeline {t_calls[name]}")
    for key in sorted(set(s_errors) | set(t_errors)):
        if s_errors[key] != t_errors[key]:
            out.append(f"{key[0]} {key[1]}: summary {s_errors[key]}, timeline {t_errors[key]}")
    if not s_calls:
        out.append("the summary counted no call")
    return out


def one(args, n):
    d = os.path.join(args.out, f"p{n:04d}")
    os.makedirs(d, exist_ok=True)
    ext = "json" if n % 2 == 0 else "pftrace"
    lib = os.path.abspath(args.lib)
    env = dict(os.environ)
    env.update({
        "LD_PRELOAD": os.path.join(lib, "libcudart.so.13"),
        "LD_LIBRARY_PATH": lib + os.pathsep + env.get("LD_LIBRARY_PATH", ""),
        "CUDART_SHIM_TRACE": "summary,timeline",
        "CUDART_SHIM_TRACE_REGISTRATION": "1",
        "CUDART_SHIM_TRACE_SUMMARY_FILE": os.path.join(d, "summary.json"),
        "CUDART_SHIM_TRACE_TIMELINE_FILE": os.path.join(d, "timeline." + ext),
    })
    env.update(dict(kv.split("=", 1) for kv in args.env))
    t0 = time.time()
    try:
        p = subprocess.run(args.cmd, cwd=d, env=env, capture_output=True, text=True, timeout=args.timeout)
        rc, err = p.returncode, p.stdout[-1500:] + p.stderr[-1500:]
    except subprocess.TimeoutExpired:
        rc, err = 124, f"timed out after {args.timeout} s"
    wall = time.time() - t0
    if rc != 0:
        return n, ext, [f"exit status {rc}: {err}"], wall
    diff = compare(os.path.join(d, "summary.json"), os.path.join(d, "timeline." + ext), os.path.join(lib, "cudart-shim"))
    if not diff and not args.keep_all:
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        os.rmdir(d)
    return n, ext, diff, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="folder with libcudart.so.13 (ours) and cudart-shim")
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--parallel", type=int, default=8)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--env", action="append", default=[], help="VAR=VALUE for every process")
    ap.add_argument("--keep-all", action="store_true")
    ap.add_argument("cmd", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        for r in pool.map(lambda n: one(args, n), range(args.runs)):
            results.append(r)
    wall = time.time() - t0
    differing = [r for r in results if r[2]]
    with open(os.path.join(args.out, "churn.txt"), "w") as f:
        for n, ext, diff, w in results:
            f.write(f"p{n:04d} {ext} {w:.1f}s {'OK' if not diff else 'DIFFERS'}\n")
            for line in diff:
                f.write(f"    {line}\n")
    by_ext = collections.Counter(r[1] for r in results)
    walls = sorted(r[3] for r in results)
    print(f"processes {len(results)} (json {by_ext['json']}, protobuf {by_ext['pftrace']}), differing {len(differing)}, "
          f"{wall:.0f} s wall, median process {walls[len(walls) // 2]:.1f} s")
    ok = not differing and len(results) == args.runs
    print(f"{'PASS' if ok else 'FAIL'} summary-equals-timeline: processes {len(results)}, differing {len(differing)} (target 0)")
    for n, ext, diff, _ in differing[:5]:
        print(f"  p{n:04d} ({ext}): " + "; ".join(diff[:4]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
