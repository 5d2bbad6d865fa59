#!/usr/bin/env python3
"""The profiler-coexistence set on a CUDA 13 GPU (issue #27 point 1), one command.

Here, without a GPU (after `cargo build --release`):
  gpu/checks/coexist/coexist.py --prepare DIR
    copies libcudart_shim.so, libcudart_shim_cupti.so and the `cudart-shim`
    command from target/release (or --lib), this script and
    gpu-coexist-torch.py, and builds tests/cu/cupti_coexist.cu (linked
    against libcupti.so.13 by name: the GPU machine's real CUPTI is used).
On the GPU machine:
  gpu/checks/coexist/coexist.py --lib DIR --out OUT

Two sets, each case run three ways (concurrently, one GPU):
  nv     NVIDIA's runtime, no cudart-shim: the profiler's records;
  plain  cudart-shim's runtime preloaded, tracing off;
  ours   cudart-shim preloaded with CUDART_SHIM_TRACE=gpu,timeline and
         libcudart_shim_cupti.so (as `cudart-shim trace --gpu` does);
  alone  as `ours`, the profiler off (PROF=0): our rows without it.
A case PASSes when the profiler's kernel/copy/memset counts per window are
the same in `nv` and `ours` (and it recorded kernels), every count it
keeps is the same in `plain` and `ours` (API records and correlation ids
follow the driver calls a runtime makes: ours makes public ones), and our GPU rows
(kernel instances by name, copy and memset counts, GPU slices with a
launch arrow) are the same in `ours` and `alone`.
- torch: PyTorch's profiler (coexist_torch.py): before our first call,
  after CUDA work, twice, CUDA graph replay, a schedule of two windows,
  Chrome trace export, a child process, emit_nvtx.
- cupti: tests/cu/cupti_coexist.cu on the real CUPTI (the fake-CUPTI set).
Plus `unshared`: the `after` case without libcudart_shim_cupti.so, for the
record (issue #27's failure). Writes results.txt and JSON under OUT.
"""
import argparse, glob, json, os, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # gpu/checks/coexist/
TORCH_CASES = ["before", "after", "twice", "graph", "schedule", "export", "child", "nvtx"]
C_CASES = ["before", "after", "twice", "windows", "export", "correlation", "child"]


def prepare(a):
    out = os.path.abspath(a.prepare)
    os.makedirs(out, exist_ok=True)
    # DIR already holds our libraries (gpu/checks/coexist.py links them there).
    # Link against "libcupti.so.13" by name; any library with that SONAME
    # will do here (the fake CUPTI, built by `cargo build --workspace`).
    stub = os.path.join(out, "linkstub")
    os.makedirs(stub, exist_ok=True)
    fake = os.path.join(ROOT, "target/debug/libfake_cupti.so")
    for n in ["libcupti.so", "libcupti.so.13"]:
        p = os.path.join(stub, n)
        if os.path.lexists(p):
            os.unlink(p)
        shutil.copy2(fake, p)
    cuda = os.path.join(ROOT, ".cache/cuda")
    cmd = [os.path.join(cuda, "nvidia/cu13/bin/nvcc"), "-cudart", "shared", "-arch=sm_90", "-O1", os.path.join(ROOT, "tests/cu/cupti_coexist.cu"),
           "-o", os.path.join(out, "cupti_coexist"), "-L" + os.path.join(cuda, "linklib"), "-L" + os.path.join(cuda, "nvidia/cu13/lib"), "-L" + stub, "-lcupti"]
    subprocess.run(cmd, check=True)
    shutil.rmtree(stub)
    print(f"prepared {out}")


def nvidia_lib():
    try:
        import nvidia.cu13
        d = os.path.join(os.path.dirname(nvidia.cu13.__file__), "lib")
        if os.path.exists(os.path.join(d, "libcudart.so.13")):
            return d
    except Exception:
        pass
    return "/usr/local/cuda/lib64"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prepare")
    ap.add_argument("--lib")
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-coexist-out"))
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    if a.prepare:
        return prepare(a)
    D = os.path.abspath(a.lib or HERE)
    OUT = os.path.abspath(a.out)
    os.makedirs(OUT, exist_ok=True)
    log = open(os.path.join(OUT, "results.txt"), "w")

    def say(*x):
        s = " ".join(str(v) for v in x)
        print(s, flush=True)
        log.write(s + "\n")
        log.flush()

    NV = nvidia_lib()
    cupti = sorted(glob.glob(os.path.join(NV, "libcupti.so*")) + glob.glob("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13*"))
    say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    say(subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip())
    say("NVIDIA lib:", NV, "CUPTI:", cupti)
    try:
        import torch
        say("torch", torch.__version__, "cuda", torch.version.cuda)
    except Exception as e:
        say("torch: not importable", e)
    shim = os.path.join(D, "libcudart_shim.so")
    front = os.path.join(D, "libcudart_shim_cupti.so")
    dirs = [NV] + [os.path.dirname(c) for c in cupti]
    ld = ":".join(dict.fromkeys(dirs)) + ":" + os.environ.get("LD_LIBRARY_PATH", "")

    def variants(work, with_front=True):
        pre = shim + (":" + front if with_front else "")
        ours = dict(LD_PRELOAD=pre, CUDART_SHIM_TRACE="gpu,timeline", CUDART_SHIM_LOG="warn", LD_LIBRARY_PATH=ld)
        tl = lambda tag: dict(CUDART_SHIM_TRACE_SUMMARY_FILE=os.path.join(work, tag, "sum-%p.json"), CUDART_SHIM_TRACE_TIMELINE_FILE=os.path.join(work, tag, "tl-%p.json"))
        return {
            "nv": dict(LD_LIBRARY_PATH=ld, PROF="1"),
            "plain": dict(LD_PRELOAD=shim, LD_LIBRARY_PATH=ld, PROF="1"),
            "ours": dict(ours, PROF="1", **tl("ours")),
            "alone": dict(ours, PROF="0", **tl("alone")),
        }

    def launch(cmd, env, work, tag):
        os.makedirs(os.path.join(work, tag), exist_ok=True)
        e = dict(os.environ, PYTHONUNBUFFERED="1")
        e.update(env)
        o = open(os.path.join(work, tag + ".out"), "w")
        return subprocess.Popen(cmd(tag), env=e, stdout=o, stderr=subprocess.STDOUT), o

    def our_rows(d):
        kern, mem = {}, {}
        for f in glob.glob(os.path.join(d, "sum-*.json")):
            j = json.load(open(f))
            for r in j.get("cuda_gpu_kern_sum", []):
                kern[r["Name"]] = kern.get(r["Name"], 0) + r["Instances"]
            for r in j.get("cuda_gpu_mem_time_sum", []):
                mem[r["Operation"]] = mem.get(r["Operation"], 0) + r["Count"]
        return kern, mem

    def launch_links(d):
        """Our timeline: GPU slices and those with a launch arrow."""
        n = linked = 0
        for f in glob.glob(os.path.join(d, "tl-*.json")):
            try:
                ev = json.load(open(f))["traceEvents"]
            except Exception:
                continue
            for e in ev:
                if e.get("ph") == "X" and str(e.get("cat", "")).startswith("gpu_"):
                    n += 1
                    linked += "launch" in e.get("args", {})
        return f"{linked}/{n}"

    results = []

    def run_set(name, cases, cmd_of, windows_of):
        for case in cases:
            if a.only and a.only not in f"{name}:{case}":
                continue
            work = os.path.join(OUT, name, case)
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            t0 = time.time()
            procs = {tag: launch(lambda t: cmd_of(case, work, t), env, work, tag) for tag, env in variants(work).items()}
            rc = {}
            for tag, (p, o) in procs.items():
                try:
                    rc[tag] = p.wait(timeout=200)
                except subprocess.TimeoutExpired:
                    p.kill()
                    rc[tag] = "timeout"
                o.close()
            w = {tag: windows_of(work, tag) for tag in procs}
            rows = {tag: our_rows(os.path.join(work, tag)) for tag in ("ours", "alone")}
            arrows = {tag: launch_links(os.path.join(work, tag)) for tag in ("ours", "alone")}
            why = []
            if arrows["ours"] != arrows["alone"]:
                why.append(f"our launch arrows differ with the profiler: {arrows}")
            if any(v != 0 for v in rc.values()):
                why.append(f"exit {rc}")
            if not w["nv"] or not all(x[0] > 0 for x in w["nv"]):
                why.append(f"the profiler recorded no kernels without cudart-shim: {w['nv']}")
            # Kernels, copies, memsets: as with NVIDIA's runtime. Every
            # field (API records and correlation ids follow the runtime's
            # driver calls): as with our runtime untraced.
            if [x[:3] for x in w["nv"] or []] != [x[:3] for x in w["ours"] or []]:
                why.append(f"profiler kernels/copies/memsets differ: nv {w['nv']} ours {w['ours']}")
            if w["plain"] != w["ours"]:
                why.append(f"profiler windows differ from our runtime untraced: plain {w['plain']} ours {w['ours']}")
            if not rows["ours"][0]:
                why.append("no GPU rows of ours")
            if rows["ours"] != rows["alone"]:
                dk = {k: (rows['ours'][0].get(k), rows['alone'][0].get(k)) for k in set(rows['ours'][0]) | set(rows['alone'][0]) if rows['ours'][0].get(k) != rows['alone'][0].get(k)}
                why.append(f"our rows differ with the profiler: kernels {dict(list(dk.items())[:5])} mem {rows['ours'][1]} vs {rows['alone'][1]}")
            ok = not why
            results.append((f"{name}:{case}", ok))
            nk = sum(rows["ours"][0].values())
            say(f"{'PASS' if ok else 'FAIL'} {name}:{case}  profiler per window: nv {w['nv']} ours-untraced {w['plain']} ours-gpu {w['ours']};"
                f"  our rows: {nk} kernels ({len(rows['ours'][0])} names), memops {rows['ours'][1]} (alone: {sum(rows['alone'][0].values())}, {rows['alone'][1]})"
                f"  our launch arrows (linked/GPU slices) {arrows['ours']} (alone: {arrows['alone']})  {time.time() - t0:.0f}s")
            for x in why:
                say("     ", x)
            if not ok:
                for tag in procs:
                    tail = open(os.path.join(work, tag + ".out")).read()[-1500:]
                    say(f"      --- {tag} output tail:\n{tail}")

    # torch set
    torch_py = os.path.join(HERE, "coexist_torch.py")

    def torch_cmd(case, work, tag):
        return [sys.executable, torch_py, case, os.path.join(work, tag + ".json")]

    def torch_windows(work, tag):
        try:
            return json.load(open(os.path.join(work, tag + ".json")))["windows"]
        except Exception:
            return None

    say("\n== torch: PyTorch's profiler beside cudart-shim's GPU tracing")
    run_set("torch", TORCH_CASES, torch_cmd, torch_windows)

    # C set on the real CUPTI
    exe = os.path.join(D, "cupti_coexist")

    def c_cmd(case, work, tag):
        return [exe, case]


    def c_windows(work, tag):
        out = []
        for l in open(os.path.join(work, tag + ".out")):
            if l.startswith("window "):
                f = l.split()
                v = dict(zip(f[0::2], f[1::2]))
                out.append([int(v["kernels"]), int(v["copies"]), int(v["memsets"]), int(v["ext"]), int(v["driver"]), int(v["foreign"]), int(v["unknown"]), int(v["badclock"])])
        return out

    say("\n== cupti: tests/cu/cupti_coexist.cu on the real CUPTI ([kernels, copies, memsets, its ext ids, driver API records, foreign ext, unknown buffers, bad clock])")
    run_set("cupti", C_CASES, c_cmd, c_windows)

    # For the record: the failure without the front (issue #27).
    if not a.only or "unshared" in a.only:
        work = os.path.join(OUT, "unshared")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        env = dict(variants(work, with_front=False)["ours"])
        p, o = launch(lambda t: torch_cmd("after", work, t), env, work, "ours")
        p.wait(timeout=200)
        o.close()
        say(f"\n(for the record) torch:after without libcudart_shim_cupti.so: profiler windows {torch_windows(work, 'ours')};"
            f" 'unknown buffer' lines: {open(os.path.join(work, 'ours.out')).read().count('unknown buffer')}")

    bad = [n for n, ok in results if not ok]
    say(f"\n{len(results) - len(bad)} passed, {len(bad)} failed" + (f": {bad}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
