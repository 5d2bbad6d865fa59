#!/usr/bin/env python3
"""The GPU must-shows of issue #25 (memory limits and accounting), one GPU,
one command.

usage:
  gpu/checks/memory/memory.py --prepare DIR     (here: build, then copy what runs there)
  gpu/checks/memory/memory.py --lib DIR [--out OUT]   (on the GPU machine)

--prepare needs `cargo build --release` and `cargo bench --bench ledger
--no-run` done; DIR then holds libcudart_shim.so, driver/libcuda.so.1, the
`cudart-shim` command, leak_three (tests/c/leak_three.c), the ledger
benchmark and the PyTorch/CuPy helper.

Checks, each printed PASS or FAIL with its figures:
 1. PyTorch, --memory-limit 0=4GiB: torch.cuda.mem_get_info() total is
    4 GiB, and get_device_properties(0).total_memory says the same.
 2. Allocating 5 GiB raises torch.OutOfMemoryError showing the limit.
 3. A training loop that fits: losses bitwise identical to the unlimited run.
 4. PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (VMM): 3 GiB fits,
    2 GiB more is refused.
 5. CuPy (NVIDIA's runtime, our driver interposer only) obeys 4 GiB.
 6. NCCL communicator of one rank (torch.distributed, backend nccl): the
    memory table puts NCCL's buffers under libnccl and tensors under
    PyTorch's library; the table's change matches the driver's
    used-memory change within 2 MiB; PyTorch's row matches
    torch.cuda.memory_reserved().
 7. A C program leaking three buffers: the leak report names the function
    and the exact sizes.
 8. A deliberate OOM prints the OOM report.
 9. The ledger's cost per call (benchmark).
"""
import argparse, glob, json, os, shutil, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--prepare", metavar="DIR")
ap.add_argument("--lib", metavar="DIR")
ap.add_argument("--out", default=os.environ.get("OUT", "gpu-memory-out"))
a = ap.parse_args()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/memory/

if a.prepare:
    # DIR already holds our libraries (gpu/checks/memory.py links them there);
    # the ledger benchmark comes from --from's build (cargo bench --bench ledger --no-run).
    d = os.path.abspath(a.prepare)
    rel = os.environ.get("GPU_TARGET") or os.path.join(ROOT, "target", "release")
    bench = sorted((p for p in glob.glob(os.path.join(rel, "deps", "ledger-*")) if os.access(p, os.X_OK) and not p.endswith(".d")), key=os.path.getmtime)
    if bench:
        shutil.copy2(bench[-1], os.path.join(d, "ledger-bench"))
        subprocess.run(["strip", "--strip-debug", os.path.join(d, "ledger-bench")], check=False)
    else:
        print(f"note: no ledger benchmark in {rel}/deps (cargo bench --bench ledger --no-run): step 9 will say so")
    inc = glob.glob(os.path.join(ROOT, ".cache", "cuda", "nvidia", "cu13", "include"))[0]
    subprocess.run(["cc", "-O1", "-g", "-o", os.path.join(d, "leak_three"), os.path.join(ROOT, "tests", "c", "leak_three.c"), "-I", inc,
                    "-L", d, "-l:libcudart_shim.so", "-Wl,-rpath,$ORIGIN"], check=True)
    print("prepared", d, sorted(os.listdir(d)))
    sys.exit(0)

if not a.lib:
    ap.error("--lib DIR or --prepare DIR")
D = os.path.abspath(a.lib)
OUT = os.path.abspath(a.out)
os.makedirs(OUT, exist_ok=True)
log = open(os.path.join(OUT, "results.txt"), "w")
CLI = os.path.join(D, "cudart-shim")
HELPER = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "memory_torch.py")]
GIB = 1 << 30
results = []


def say(*x):
    s = " ".join(str(v) for v in x)
    print(s, flush=True)
    log.write(s + "\n")
    log.flush()


def check(name, ok, detail):
    results.append((name, ok))
    say(("PASS" if ok else "FAIL"), name, "|", detail)


def sh(cmd, env=None, timeout=280):
    e = dict(os.environ, PYTHONUNBUFFERED="1")
    e.update(env or {})
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as x:
        return 127, "", repr(x)
    return p.returncode, p.stdout, p.stderr


def traced(args, prog, env=None):
    return sh([CLI, "trace", "--no-summary", "--library", os.path.join(D, "libcudart_shim.so")] + args + ["--"] + prog, env)


def result(o):
    for line in o.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return None


say("date", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
say(sh(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"])[1].strip())
LIM = ["--memory-limit", "0=4GiB"]

# 1. mem_get_info and total_memory under the limit.
rc, o, e = traced(LIM, HELPER + ["meminfo"])
r = result(o) or {}
check("1 torch mem_get_info total = 4 GiB, total_memory agrees", r.get("total") == 4 * GIB and r.get("props_total") == 4 * GIB and r.get("free", 1 << 62) <= 4 * GIB,
      f"rc {rc} {r} {e.strip()[-400:]}")

# 2. 5 GiB -> torch.OutOfMemoryError showing the limit.
rc, o, e = traced(LIM, HELPER + ["oom5"])
r = result(o) or {}
msg = r.get("oom") or ""
check("2 torch 5 GiB -> OutOfMemoryError showing the limit", "4.00 GiB" in msg, f"rc {rc} message: {msg[:300]!r} {e.strip()[-300:]}")

# 3. bitwise identical losses.
rc1, o1, e1 = traced([], HELPER + ["train"])
rc2, o2, e2 = traced(LIM, HELPER + ["train"])
l1, l2 = (result(o1) or {}).get("losses"), (result(o2) or {}).get("losses")
check("3 training losses bitwise identical, limited vs unlimited", l1 is not None and l1 == l2,
      f"rc {rc1}/{rc2}, {len(l1 or [])} losses, first {(l1 or ['-'])[0]} / {(l2 or ['-'])[0]}, last {(l1 or ['-'])[-1]} / {(l2 or ['-'])[-1]} {e2.strip()[-300:]}")

# 4. expandable segments (cuMemCreate).
rc, o, e = traced(LIM, HELPER + ["expandable"], {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
r = result(o) or {}
check("4 expandable_segments: 3 GiB fits, 2 GiB more refused", r.get("allocated_3gib") is True and bool(r.get("oom")), f"rc {rc} {str(r)[:400]} {e.strip()[-300:]}")

# 5. CuPy through the interposer only.
rc, o, e = traced(LIM + ["--no-runtime-api"], HELPER + ["cupy"])
r = result(o) or {}
check("5 CuPy (interposer only) obeys 4 GiB", r.get("total") == 4 * GIB and bool(r.get("oom")) and r.get("fits") == 1 << 28, f"rc {rc} {str(r)[:400]} {e.strip()[-300:]}")

# 6. NCCL communicator of one rank and the memory table.
mem = os.path.join(OUT, "nccl-memory.json")
rc, o, e = traced(["--memory", "--memory-file", mem], HELPER + ["nccl"])
r = result(o) or {}
try:
    t0, t1 = json.load(open(mem + ".t0")), json.load(open(mem + ".t1"))
    owned = ("device", "pool", "vmm", "managed", "graph")
    total = lambda t: sum(x["Live Bytes"] for x in t["cuda_memory"] if x["Device"] == 0 and x["Kind"] in owned)
    by_lib = {}
    for x in t1["cuda_memory"]:
        if x["Device"] == 0 and x["Kind"] in owned:
            by_lib[x["Library"]] = by_lib.get(x["Library"], 0) + x["Live Bytes"]
    say("  table at t1, live bytes by library:", json.dumps(by_lib))
    nccl = sum(v for k, v in by_lib.items() if k.startswith("libnccl"))
    torch_lib = {k: v for k, v in by_lib.items() if k.startswith(("libtorch_cuda", "libc10_cuda"))}
    check("6a NCCL buffers under libnccl, tensors under PyTorch's library", nccl > 0 and sum(torch_lib.values()) > 0, f"libnccl {nccl} bytes; {torch_lib}")
    change = total(t1) - total(t0)
    drv = r.get("driver_used_change", -1)
    check("6b table change vs driver used-memory change within 2 MiB", abs(change - drv) <= 2 << 20, f"table {change} bytes, driver {drv} bytes, diff {change - drv}")
    check("6c PyTorch row = torch.cuda.memory_reserved()", sum(torch_lib.values()) == r.get("reserved"), f"row {torch_lib} reserved {r.get('reserved')}")
except Exception as x:
    check("6 NCCL memory table", False, f"rc {rc} {x!r} {e.strip()[-800:]}")

# 7. a C program leaking three buffers.
rc, o, e = traced(["--memory"], [os.path.join(D, "leak_three")])
say(e.strip()[-1500:])
check("7 leak report names the function and the sizes", "Leaks: 3 allocation(s)" in e and "leak_three_buffers" in e and "1,000, 20,000, 300,000" in e, f"rc {rc}")

# 8. a deliberate OOM.
rc, o, e = traced(["--memory", "--memory-limit", "0=1MiB"], [os.path.join(D, "leak_three"), "oom", str(2 << 20)])
say(e.strip()[-1500:])
check("8 OOM report", "oom: cudaErrorMemoryAllocation" in o and "Out of memory: cudaMalloc" in e and "refused by the memory limit" in e, f"rc {rc} {o.strip()}")

# 9. cost.
if os.path.exists(os.path.join(D, "ledger-bench")):
    rc, o, e = sh([os.path.join(D, "ledger-bench")])
    say(o.strip())
say("\nSUMMARY:", sum(ok for _, ok in results), "of", len(results), "PASS;", "FAIL:", [n for n, ok in results if not ok])
