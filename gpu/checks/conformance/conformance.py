#!/usr/bin/env python3
"""Conformance and benchmark harness for a CUDA 13 machine, and for CUDA 12
programs on it.

Runs the project's GPU programs (tests/gpu), the C examples and the
benchmarks (benches/gpu) with NVIDIA's libcudart.so.13 and with cudart-shim,
compares, and prints one table and a closing line `N passed, M failed`.

usage: gpu/checks/conformance/conformance.py [--lib DIR] [--out DIR] [--only SUBSTR] [--skip-bench]
                         [--bench-pairs N] [--skip-torch] [--trace-overhead]
  --lib: folder holding our libcudart_shim.so and libcudart.so.13
         (default target/release)
  --out: where builds, logs and results go (default $OUT or ./gpu-out)

CUDA 12 (`--abi 12`): the GPU machines have no CUDA 12 nvcc, so the programs
are built on a machine without a GPU and carried (docs/CUDA12.md, "The GPU
suite for CUDA 12"):
  gpu/checks/conformance/conformance.py --abi 12 --prepare DIR     # no GPU needed: builds tests/gpu,
        # tests/gpu12, the C examples and the benchmarks with scripts/nvcc12
        # (-arch=sm_90), copies NVIDIA's 12.9 libcudart.so.12 to DIR/nvidia and
        # ours (target/release/libcudart_shim12.so, or --lib) to DIR/ours
  gpu/checks/conformance/conformance.py --abi 12 --prebuilt DIR [--lib DIR/ours]   # on the GPU
        # machine: runs them with NVIDIA's 12.9 (nv) and ours (lib, pre)

CUDA 13 built here too (the conformance checks of scripts/gpu): `--abi 13
--prepare DIR --lib LIBDIR` builds the same programs with the 13.0 wheel's
nvcc for sm_90 (+PTX), `--abi 13 --prebuilt DIR` runs them on the GPU machine.

Each program runs three ways: NVIDIA's library (`nv`), ours by library path
(`lib`) and ours by LD_PRELOAD (`pre`); it passes when all three exit 0 and
print the same stdout. Needs no network.
"""
import argparse, glob, json, os, re, shutil, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gpu/checks/conformance/
# What our cudaRuntimeGetVersion answers (src/runtime/version.rs); the 12
# library answers 12.9's 12090, as NVIDIA's 12.9 does (set in Runner).
OURS_RUNTIME = "13050"
OURS_RUNTIME_12 = "12090"


def sh(cmd, env=None, timeout=300, cwd=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired as x:
        return 124, x.stdout or "", (x.stderr or "") + "\nTIMEOUT", time.time() - t0


def find_nvcc():
    for c in [shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"] + glob.glob("/usr/local/cuda-13*/bin/nvcc"):
        if c and os.path.exists(c):
            return c
    sys.exit("gpu-check: nvcc not found")


def find_nvidia_cudart(nvcc, fallback=None):
    cands = [os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), d) for d in ("lib64", "lib", "targets/x86_64-linux/lib")]
    cands += glob.glob("/usr/local/cuda*/lib64")
    try:
        import nvidia.cu13  # noqa
        cands.append(os.path.join(os.path.dirname(nvidia.cu13.__file__), "lib"))
    except Exception:
        pass
    for d in cands + ([fallback] if fallback else []):
        if os.path.exists(os.path.join(d, "libcudart.so.13")):
            return d
    sys.exit("gpu-check: NVIDIA's libcudart.so.13 not found")


class Runner:
    def __init__(self, a):
        global OURS_RUNTIME
        self.a = a
        self.out = a.out
        os.makedirs(os.path.join(self.out, "build"), exist_ok=True)
        # --abi 12 --prebuilt DIR: what `--prepare DIR` built; nothing is
        # compiled here (no CUDA 12 nvcc on the GPU machines).
        self.prebuilt = None
        if a.prebuilt and a.abi == "13":
            # --abi 13 --prebuilt DIR: built by prepare13 with the 13.0 wheel's
            # nvcc; NVIDIA's runtime is this machine's, as when built here.
            self.prebuilt = os.path.abspath(a.prebuilt)
            self.manifest = json.load(open(os.path.join(self.prebuilt, "manifest.json")))
            self.nvcc = self.manifest["nvcc"]
            self.nvlib = find_nvidia_cudart(shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc", fallback=os.path.join(self.prebuilt, "nvidia"))
            m = re.match(r"libcudart\.so\.(\d+)\.(\d+)", os.path.basename(os.path.realpath(os.path.join(self.nvlib, "libcudart.so.13"))))
            self.nv_runtime = str(int(m.group(1)) * 1000 + int(m.group(2)) * 10) if m else OURS_RUNTIME
            lib_file, soname = "libcudart_shim.so", "libcudart.so.13"
        elif a.prebuilt:
            self.prebuilt = os.path.abspath(a.prebuilt)
            self.manifest = json.load(open(os.path.join(self.prebuilt, "manifest.json")))
            self.nvcc = self.manifest["nvcc"]
            self.nvlib = os.path.join(self.prebuilt, "nvidia")
            self.nv_runtime = self.manifest["nvidia_runtime"]
            OURS_RUNTIME = OURS_RUNTIME_12
            lib_file, soname = "libcudart_shim12.so", "libcudart.so.12"
        else:
            self.nvcc = find_nvcc()
            self.nvlib = find_nvidia_cudart(self.nvcc)
            # NVIDIA's runtime version from its file name (libcudart.so.13.0.96 -> 13000).
            m = re.match(r"libcudart\.so\.(\d+)\.(\d+)", os.path.basename(os.path.realpath(os.path.join(self.nvlib, "libcudart.so.13"))))
            self.nv_runtime = str(int(m.group(1)) * 1000 + int(m.group(2)) * 10) if m else OURS_RUNTIME
            lib_file, soname = "libcudart_shim.so", "libcudart.so.13"
        self.ours = os.path.abspath(a.lib)
        self.shim = os.path.join(self.ours, lib_file)
        if self.prebuilt:
            if not os.path.exists(self.shim):
                sys.exit(f"gpu-check: {self.shim} is missing (--lib names the folder holding it)")
            # Carried files may lose their mode bits.
            for p in self.manifest["programs"]:
                if p["exe"] and not os.access(os.path.join(self.prebuilt, p["exe"]), os.X_OK):
                    os.chmod(os.path.join(self.prebuilt, p["exe"]), 0o755)
        if not os.path.exists(os.path.join(self.ours, soname)):
            os.symlink(lib_file, os.path.join(self.ours, soname))
        self.rows = []  # (group, name, status, detail)
        self.log = open(os.path.join(self.out, "gpu-check.log"), "w")

    def ways(self):
        base = self.nvlib
        return {
            "nv": {"LD_LIBRARY_PATH": base},
            "lib": {"LD_LIBRARY_PATH": f"{self.ours}:{base}"},
            "pre": {"LD_LIBRARY_PATH": base, "LD_PRELOAD": self.shim},
        }

    def record(self, group, name, ok, detail=""):
        self.rows.append((group, name, "PASS" if ok else "FAIL", detail))
        print(f"{'PASS' if ok else 'FAIL'} {group}/{name} {detail}", flush=True)

    def record_not_built(self, group, name, why):
        """A program that cannot exist for this ABI (--abi 12: -rdc=true):
        reported, never counted as a pass or a failure."""
        self.rows.append((group, name, "N/A", why))
        print(f"N/A {group}/{name} {why}", flush=True)

    def prebuilt_exe(self, group, name):
        """--prebuilt: the program --prepare built, or None (recorded)."""
        for p in self.manifest["programs"]:
            if p["group"] == group and p["name"] == name:
                if p["exe"]:
                    return os.path.join(self.prebuilt, p["exe"])
                if p["not_buildable"]:
                    self.record_not_built("build", name, p["why"])
                else:
                    self.record("build", name, False, p["why"])
                return None
        self.record("build", name, False, "not in the prepared folder's manifest.json")
        return None

    def build_cu(self, name, srcs, flags):
        """nvcc -cudart shared; sources without device code (no __global__,
        __device__ or <<<) build as plain host C++ against the CUDA headers."""
        exe = os.path.join(self.out, "build", name)
        flags = ["-include", os.path.join(ROOT, "tests/gpu/unbuffered.h")] + flags
        text = "".join(open(s).read() for s in srcs)
        if not re.search(r"__global__|__device__|__managed__|__constant__|<<<", text):
            inc = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(self.nvcc))), "include")
            # nvcc-only flags have no meaning for a host compiler.
            host_flags = [f.split("=", 1)[1] if f.startswith("-Xcompiler=") else f for f in flags
                          if f not in ("-rdc=true", "-Xcompiler") and not f.startswith(("--default-stream", "-arch", "-gencode"))]
            cmd = ["c++", "-x", "c++", "-O2", "-std=c++17", "-Wno-deprecated-declarations", "-I", inc, "-o", exe] + srcs + \
                host_flags + ["-L", self.nvlib, "-l:libcudart.so.13", "-lcuda"]
        else:
            cmd = [self.nvcc, "-cudart", "shared", "-arch=native", "-O2", "-Xcompiler", "-Wno-deprecated-declarations", "-o", exe] + flags + srcs
        rc, o, e, _ = sh(cmd, timeout=600)
        self.log.write(f"$ {' '.join(cmd)}\n{o}{e}\n")
        return exe if rc == 0 else None, e

    def compare(self, group, name, argv, extra_env=None, timeout=120):
        results = {}
        ways = dict(self.ways())
        if name.startswith("cache_"):
            # The caching allocator must not change what a program sees.
            ways["pool"] = dict(ways["lib"], CUDART_SHIM_POOL="1")
        for way, env in ways.items():
            env = dict(env, **(extra_env or {}))
            rc, o, e, dt = sh(argv, env=env, timeout=timeout)
            results[way] = (rc, o, e, dt)
            with open(os.path.join(self.out, f"{name}.{way}.out"), "w") as f:
                f.write(f"rc={rc} time={dt:.2f}s\n--- stdout\n{o}\n--- stderr\n{e}\n")
        nv = results["nv"]
        # Ours is a CUDA 13.5 runtime; its cudaRuntimeGetVersion answers
        # never more than the driver's version (docs/COMPATIBILITY.md), so on
        # driver 580 it prints 13000 as NVIDIA's 13.0 does and this mapping
        # does not trigger. On a newer driver with an older NVIDIA 13.x
        # runtime, a program that prints the runtime version differs by
        # design: that number alone is mapped to NVIDIA's before comparing,
        # and the row says so.
        versioned = [w for w, r in results.items() if w != "nv" and r[1] != nv[1] and r[1].replace(OURS_RUNTIME, self.nv_runtime) == nv[1]]
        for w in versioned:
            results[w] = (results[w][0], nv[1], results[w][2], results[w][3])
        ok = nv[0] == 0 and all(r[0] == nv[0] and r[1] == nv[1] for r in results.values())
        detail = " ".join(f"{w}:rc={r[0]}" for w, r in results.items())
        if versioned and self.nv_runtime != OURS_RUNTIME:
            detail += f" (the runtime version printed differs by design: ours {OURS_RUNTIME}, NVIDIA's {self.nv_runtime})"
        if not ok:
            for w in ("lib", "pre"):
                if results[w][1] != nv[1]:
                    a, b = nv[1].splitlines(), results[w][1].splitlines()
                    for i, (x, y) in enumerate(zip(a + [""] * len(b), b + [""] * len(a))):
                        if x != y:
                            detail += f" | first diff ({w}) line {i+1}: nv={x!r} ours={y!r}"
                            break
                    break
            err = results["lib"][2].strip().splitlines()[-3:] + results["pre"][2].strip().splitlines()[-3:]
            if err:
                detail += " | stderr: " + " / ".join(err)
        self.record(group, name, ok, detail)
        return results

    def programs(self):
        progs = []
        for p in sorted(glob.glob(os.path.join(ROOT, "tests/gpu/*"))):
            base = os.path.basename(p)
            if p.endswith(".cu"):
                progs.append((base[:-3], [p]))
            elif os.path.isdir(p):
                progs.append((base, sorted(glob.glob(os.path.join(p, "*.cu")))))
        return [(n, s) for n, s in progs if not self.a.only or self.a.only in n]

    def run_programs(self):
        if self.prebuilt:
            for p in self.manifest["programs"]:
                if p["group"] == "program" and (not self.a.only or self.a.only in p["name"]):
                    exe = self.prebuilt_exe("program", p["name"])
                    if exe:
                        self.compare("program", p["name"], [exe])
            return
        for name, srcs in self.programs():
            first = open(srcs[0]).readline()
            flags = first.split("nvcc:", 1)[1].split() if "nvcc:" in first else []
            exe, err = self.build_cu(name, srcs, flags)
            if not exe:
                self.record("build", name, False, err.strip().splitlines()[-1] if err.strip() else "")
                continue
            self.compare("program", name, [exe])

    def run_c_examples(self):
        if self.prebuilt:
            for p in self.manifest["programs"]:
                if p["group"] == "c_example" and (not self.a.only or self.a.only in p["name"]):
                    exe = self.prebuilt_exe("c_example", p["name"])
                    if exe:
                        self.compare("c_example", p["name"], [exe])
            return
        inc = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(self.nvcc))), "include")
        for src in sorted(glob.glob(os.path.join(ROOT, "c_examples/*.c"))):
            name = os.path.basename(src)[:-2]
            if self.a.only and self.a.only not in name:
                continue
            exe = os.path.join(self.out, "build", "c_" + name)
            cmd = ["cc", "-DUSE_NVIDIA_HEADERS", "-I", inc, src, "-o", exe, "-L", self.nvlib, "-l:libcudart.so.13", "-lm"]
            rc, o, e, _ = sh(cmd)
            self.log.write(f"$ {' '.join(cmd)}\n{o}{e}\n")
            if rc != 0:
                self.record("build", "c_" + name, False, e.strip().splitlines()[-1] if e.strip() else "")
                continue
            self.compare("c_example", name, [exe])

    def run_benches(self):
        exe = self.build_bench(self.a.only)
        if not exe:
            return
        rc, o, e, _ = sh([exe, "--list"], env=self.ways()["nv"])
        ops = [l for l in o.split() if not self.a.only or self.a.only in l]
        samples = {}  # op -> way -> [ns]
        # A B A B per operation, so each pair runs seconds apart.
        for op in ops:
            # The caching allocator's benchmarks run ours with it on.
            extra = {"CUDART_SHIM_POOL": "1"} if op.startswith("cache_") else {}
            ways = {"nv": self.ways()["nv"], "ours": dict(self.ways()["lib"], **extra)}
            for pair in range(self.a.bench_pairs):
                for way, env in ways.items():
                    ns = self.bench_once(exe, op, way, env, f"pair {pair}")
                    if ns is None:
                        break
                    samples.setdefault(op, {}).setdefault(way, []).append(ns)
        table = []
        for op, w in samples.items():
            if len(w.get("nv", [])) != len(w.get("ours", [])) or not w.get("nv"):
                continue
            nv, ours = statistics.median(w["nv"]), statistics.median(w["ours"])
            # Ratio of medians and median of per-pair ratios (pairs are A B adjacent).
            pr = statistics.median(o / n for o, n in zip(w["ours"], w["nv"]) if n > 0)
            table.append({"op": op, "nvidia_ns": nv, "ours_ns": ours, "ratio": pr, "nv_samples": w["nv"], "ours_samples": w["ours"]})
        table += self.cold_start()
        self.bench = table
        with open(os.path.join(self.out, "bench.json"), "w") as f:
            json.dump(table, f, indent=1)

    def build_bench(self, only=""):
        """benches/gpu as one binary (only the files mentioning `only`)."""
        if self.prebuilt:
            return self.prebuilt_exe("bench", "bench")
        srcs = sorted(glob.glob(os.path.join(ROOT, "benches/gpu/*.cu")))
        if only:
            srcs = [s for s in srcs if only in open(s).read() or s.endswith("main.cu")]
        exe, err = self.build_cu("bench", srcs, ["-I", os.path.join(ROOT, "benches/gpu"), "-lcuda", "-std=c++17"])
        if not exe:
            self.record("build", "bench", False, err.strip()[-300:])
        return exe

    def bench_once(self, exe, op, way, env, note):
        """Run benchmark `op` once in its own process: ns per operation, or
        None (recorded as a failure)."""
        rc, o, e, dt = sh([exe, "=" + op], env=env, timeout=300)
        self.log.write(f"bench {op} {way} {note} rc={rc} {dt:.1f}s\n{o}{e}\n")
        m = re.search(r"^" + re.escape(op) + r"\t([0-9.]+)", o, re.M)
        if rc != 0 or not m:
            self.record("bench", f"{op}-{way}", False, e.strip()[-300:])
            return None
        return float(m.group(1))

    TRACE_OPS = ["cudaGetDevice", "cudaGetLastError", "cudaEventQuery_complete", "launch_chevron"]
    TRACE_MODES = ["off", "summary", "summary/16", "calls", "timeline"]

    def trace_overhead(self):
        """Per-call cost of each tracing mode on the real driver: NVIDIA's
        library untraced, then ours with tracing off, summary, calls (to a
        file) and timeline (to a file), one process each, the five in a row
        per round (A B C D E A B C D E ...). Writes trace_overhead.json."""
        exe = self.build_bench()
        if not exe:
            return
        scratch = os.path.join(self.out, "trace-scratch")
        os.makedirs(scratch, exist_ok=True)
        samples = {}  # op -> way -> [ns]
        for op in self.TRACE_OPS:
            for rnd in range(self.a.bench_pairs):
                for way in ["nv"] + self.TRACE_MODES:
                    env = dict(self.ways()["nv" if way == "nv" else "lib"])
                    if way not in ("nv", "off"):
                        mode, _, every = way.partition("/")
                        ext = "json" if mode == "timeline" else "txt"
                        env.update(CUDART_SHIM_TRACE=mode, CUDART_SHIM_TRACE_FILE=os.path.join(scratch, f"{op}.{mode}.{ext}"))
                        if every:
                            env["CUDART_SHIM_TRACE_SAMPLE"] = every
                    ns = self.bench_once(exe, op, way, env, f"traced, round {rnd}")
                    if ns is None:
                        continue
                    samples.setdefault(op, {}).setdefault(way, []).append(ns)
                    if way == "timeline" and rnd == 0:
                        # The trace must be complete and valid JSON.
                        path = env["CUDART_SHIM_TRACE_FILE"]
                        try:
                            n = sum(1 for ev in json.load(open(path))["traceEvents"] if ev.get("ph") == "X")
                            self.record("trace", f"{op}-timeline-json-{rnd}", n > 0, f"{n} call events, {os.path.getsize(path) >> 20} MiB")
                        except Exception as x:
                            self.record("trace", f"{op}-timeline-json-{rnd}", False, str(x)[:200])
                    for f in glob.glob(os.path.join(scratch, "*")):
                        os.remove(f)
        rows = []
        print(f"\n{'trace overhead (median ns/call)':<28} " + " ".join(f"{w:>10}" for w in ["nv"] + self.TRACE_MODES), flush=True)
        for op, w in samples.items():
            med = {k: statistics.median(v) for k, v in w.items()}
            rows.append({"op": op, "median_ns": med, "samples": w})
            print(f"{op:<28} " + " ".join(f"{med.get(k, float('nan')):>10.1f}" for k in ["nv"] + self.TRACE_MODES))
        print("added over ours untraced (ns/call):")
        for r in rows:
            med = r["median_ns"]
            print(f"  {r['op']:<26} " + "  ".join(f"{k}={med[k] - med['off']:+.1f}" for k in self.TRACE_MODES[1:] if k in med and "off" in med))
        with open(os.path.join(self.out, "trace_overhead.json"), "w") as f:
            json.dump(rows, f, indent=1)

    def bad_input(self, exports):
        """The generated bad-input program with NVIDIA's library and ours on
        the real driver; writes bad_input_gpu.tsv (case, NVIDIA, ours), the
        data tests/bad_input.rs checks against."""
        inc = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(self.nvcc))), "include")
        src = os.path.join(self.out, "build", "bad_input.c")
        rc, o, e, _ = sh([sys.executable, os.path.join(ROOT, "scripts/gen-bad-input.py"), inc, exports])
        if rc != 0:
            self.record("build", "bad_input", False, e[-300:])
            return
        open(src, "w").write(o)
        exe = os.path.join(self.out, "build", "bad_input")
        rc, o, e, _ = sh(["cc", "-w", "-I", inc, src, "-o", exe, "-L", self.nvlib, "-l:libcudart.so.13"])
        if rc != 0:
            self.record("build", "bad_input", False, e[-300:])
            return
        res = {}
        for way in ("nv", "lib"):
            rc, o, e, _ = sh([exe], env=dict(self.ways()[way], CUDART_SHIM_LOG="off"), timeout=1500)
            res[way] = dict(l.split("\t", 1) for l in o.splitlines() if "\t" in l)
        rows = sorted(res["nv"])
        with open(os.path.join(self.out, "bad_input_gpu.tsv"), "w") as f:
            f.write("# case\tNVIDIA\tours (gpu/checks/conformance/conformance.py --bad-input)\n")
            for k in rows:
                f.write(f"{k}\t{res['nv'][k]}\t{res['lib'].get(k, 'MISSING')}\n")
        diff = [k for k in rows if res["nv"][k] != res["lib"].get(k)]
        crash = [k for k in rows if res["lib"].get(k, "").startswith(("CRASH", "TIMEOUT")) and not res["nv"][k].startswith(("CRASH", "TIMEOUT"))]
        self.record("bad_input", "codes_equal", not diff, f"{len(rows)} cases, {len(diff)} differ" + (f", e.g. {diff[:5]}" if diff else ""))
        self.record("bad_input", "no_new_crash", not crash, f"{len(crash)} cases crash only with ours: {crash[:5]}")

    def cold_start(self, runs=15):
        """Process start to exit of a program whose only call is cudaMalloc,
        alternating runtimes run by run; median wall time per runtime."""
        src = os.path.join(ROOT, "benches/gpu/cold/cold_start.cpp")
        if self.prebuilt:
            exe = self.prebuilt_exe("bench", "cold_start")
            if not exe:
                return []
        else:
            exe, err = self.build_cu("cold_start", [src], [])
            if not exe:
                self.record("build", "cold_start", False, err.strip()[-300:])
                return []
        w = {"nv": [], "ours": []}
        for _ in range(runs):
            for way, env in (("nv", self.ways()["nv"]), ("ours", self.ways()["lib"])):
                rc, o, e, dt = sh([exe], env=env)
                if rc != 0:
                    self.record("bench", f"cold_start-{way}", False, e.strip()[-200:])
                    return []
                w[way].append(dt * 1e9)
        pr = statistics.median(o / n for o, n in zip(w["ours"], w["nv"]))
        return [{"op": "cold_start_to_first_cudaMalloc", "nvidia_ns": statistics.median(w["nv"]),
                 "ours_ns": statistics.median(w["ours"]), "ratio": pr, "nv_samples": w["nv"], "ours_samples": w["ours"]}]

    def report(self):
        print("\n" + "=" * 78)
        print(f"{'group':<10} {'name':<34} {'result':<6} detail")
        for g, n, s, d in self.rows:
            print(f"{g:<10} {n:<34} {s:<6} {d[:200]}")
        self.bench = getattr(self, "bench", []) + getattr(self, "torch_timing", [])
        if self.bench:
            print(f"\n{'benchmark':<40} {'NVIDIA ns':>12} {'ours ns':>12} {'ratio':>7}")
            for r in self.bench:
                print(f"{r['op']:<40} {r['nvidia_ns']:>12.1f} {r['ours_ns']:>12.1f} {r['ratio']:>7.3f}")
        passed = sum(1 for r in self.rows if r[2] == "PASS")
        not_built = sum(1 for r in self.rows if r[2] == "N/A")
        failed = len(self.rows) - passed - not_built
        with open(os.path.join(self.out, "results.json"), "w") as f:
            json.dump({"rows": self.rows, "bench": getattr(self, "bench", [])}, f, indent=1)
        tail = f", {not_built} not built for CUDA 12 (not counted)" if not_built else ""
        print(f"\n{passed} passed, {failed} failed{tail}")
        return failed


def gpu_programs():
    """tests/gpu and tests/gpu12: (name, sources, nvcc flags of the first line)."""
    progs = []
    for d in ("tests/gpu", "tests/gpu12"):
        for p in sorted(glob.glob(os.path.join(ROOT, d, "*"))):
            base = os.path.basename(p)
            if p.endswith(".cu"):
                srcs = [p]
            elif os.path.isdir(p) and glob.glob(os.path.join(p, "*.cu")):
                srcs = sorted(glob.glob(os.path.join(p, "*.cu")))
            else:
                continue
            first = open(srcs[0]).readline()
            flags = first.split("nvcc:", 1)[1].split() if "nvcc:" in first else []
            progs.append((base[:-3] if p.endswith(".cu") else base, srcs, flags))
    return progs


def build_all(out, jobs, n):
    """The prepare steps' builds, n at a time (default: all cores): jobs of
    (group, name, cmd) or (group, name, None, why) for what cannot be built;
    each log in DIR/logs, each program stripped of debug sections. Returns
    the manifest entries."""
    def build(job):
        group, name, cmd = job[:3]
        entry = {"group": group, "name": name, "exe": None, "not_buildable": cmd is None, "why": job[3] if cmd is None else ""}
        if cmd is None:
            return entry
        rc, o, e, dt = sh(cmd, timeout=900)
        with open(os.path.join(out, "logs", f"{group}-{name}.log"), "w") as f:
            f.write(f"$ {' '.join(cmd)}\nrc={rc} {dt:.1f}s\n{o}{e}")
        exe = cmd[cmd.index("-o") + 1]
        if rc == 0:
            rc2, _, e2, _ = sh(["strip", "--strip-debug", exe])
            if rc2 == 0:
                entry["exe"] = os.path.relpath(exe, out)
            else:
                entry["why"] = "strip failed: " + e2.strip()[-200:]
        else:
            errs = [l for l in e.splitlines() if "error" in l] or e.strip().splitlines() or ["?"]
            entry["why"] = "build failed: " + errs[0][-300:]
        print(f"{'built' if entry['exe'] else 'NOT BUILT'} {group}/{name} {entry['why']}", flush=True)
        return entry

    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(max_workers=n or os.cpu_count() or 2) as ex:
        return list(ex.map(build, jobs))


def prepare12(a):
    """--abi 12 --prepare DIR, on a machine without a GPU: every CUDA 12
    program and benchmark built with scripts/nvcc12 (sm_90, the GPU machines'
    H100/H200), stripped of debug sections, NVIDIA's 12.9 libcudart.so.12 and
    ours beside them, and DIR/manifest.json saying what is where. Returns the
    number of unexpected build failures."""
    out = os.path.abspath(a.prepare)
    if os.path.exists(os.path.join(out, "manifest.json")):
        shutil.rmtree(out)  # a folder this mode made before: start clean
    elif os.path.exists(out) and os.listdir(out):
        sys.exit(f"gpu-check: {out} exists and was not made by --prepare; pick an empty or new folder")
    for d in ("bin", "nvidia", "ours", "logs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    nvcc12 = os.path.join(ROOT, "scripts/nvcc12")
    rc, c12, e, _ = sh([os.path.join(ROOT, "scripts/setup-cuda12")])
    if rc != 0:
        sys.exit(f"gpu-check: scripts/setup-cuda12 failed:\n{e}")
    c12 = c12.strip().splitlines()[-1]
    unbuffered = os.path.join(ROOT, "tests/gpu/unbuffered.h")
    base = [nvcc12, "-arch=sm_90", "-O2", "-Xcompiler", "-Wno-deprecated-declarations", "-include", unbuffered]
    jobs = []  # (group, name, cmd) or (group, name, None, why): not buildable for 12
    for name, srcs, flags in gpu_programs():
        if "-rdc=true" in flags:
            # nvcc12 refuses it: __cudaRegisterLinkedBinary* and nvlink 13.0
            # would make it no CUDA 12 program (docs/CUDA12.md, Route 1's limits).
            jobs.append(("program", name, None, "not buildable for CUDA 12: -rdc=true (scripts/nvcc12 has no CUDA 12 device linker)"))
            continue
        jobs.append(("program", name, base + flags + srcs + ["-o", os.path.join(out, "bin", name)]))
    inc = [f"-I{c12}/nvidia/cuda_runtime/include", f"-I{c12}/nvidia/cuda_nvcc/include"]
    for src in sorted(glob.glob(os.path.join(ROOT, "c_examples/*.c"))):
        name = os.path.basename(src)[:-2]
        if "cudartShim" in open(src).read():  # calls cudart-shim's own API
            jobs.append(("c_example", name, None, "uses cudart-shim's own API (cudart_shim.h): no NVIDIA run to compare with"))
            continue
        jobs.append(("c_example", name, ["cc", "-DUSE_NVIDIA_HEADERS"] + inc + [src, "-o", os.path.join(out, "bin", "c_" + name),
                                                                               f"-L{c12}/linklib", "-lcudart", "-lm"]))
    jobs.append(("bench", "bench", base + ["-I", os.path.join(ROOT, "benches/gpu"), "-std=c++17"] +
                 sorted(glob.glob(os.path.join(ROOT, "benches/gpu/*.cu"))) + ["-o", os.path.join(out, "bin", "bench")]))
    jobs.append(("bench", "cold_start", base + [os.path.join(ROOT, "benches/gpu/cold/cold_start.cpp"),
                                                "-o", os.path.join(out, "bin", "cold_start")]))

    entries = build_all(out, jobs, a.jobs)
    nv = os.path.join(c12, "nvidia/cuda_runtime/lib/libcudart.so.12")
    shutil.copyfile(nv, os.path.join(out, "nvidia/libcudart.so.12"))
    # Which 12.x it is: its own answer, from the library's version string
    # (the wheel names it libcudart.so.12 only).
    rc, o, e, _ = sh([sys.executable, "-c", "import ctypes,sys; l=ctypes.CDLL(sys.argv[1]); v=ctypes.c_int(); "
                      "l.cudaRuntimeGetVersion(ctypes.byref(v)); print(v.value)", nv])
    nv_runtime = o.strip() if rc == 0 and o.strip().isdigit() else OURS_RUNTIME_12
    ours = os.path.join(os.path.abspath(a.lib), "libcudart_shim12.so") if a.lib else os.path.join(ROOT, "target/release/libcudart_shim12.so")
    ours_rel = None
    if os.path.exists(ours):
        dst = os.path.join(out, "ours/libcudart_shim12.so")
        shutil.copyfile(ours, dst)
        os.chmod(dst, 0o755)
        sh(["strip", "--strip-debug", dst])
        ours_rel = "ours/libcudart_shim12.so"
    else:
        print(f"note: {ours} is missing (cargo build --release): DIR/ours stays empty; pass --lib on the GPU machine")
    manifest = {"abi": 12, "nvidia_runtime": nv_runtime, "nvcc": nvcc12, "ours": ours_rel,
                "git": sh(["git", "-C", ROOT, "rev-parse", "HEAD"])[1].strip(), "programs": entries}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    bad = [e for e in entries if not e["exe"] and not e["not_buildable"]]
    na = [e for e in entries if e["not_buildable"]]
    built = len(entries) - len(bad) - len(na)
    print(f"\nprepared {out}: {built} built, {len(bad)} failed to build, {len(na)} not buildable for CUDA 12 "
          f"({', '.join(e['name'] for e in na)}); NVIDIA's runtime {nv_runtime}; ours: {ours_rel or 'none'}")
    print(f"size {size / 2**20:.1f} MiB")
    if size > 60 * 2**20:
        print("gpu-check: the folder is over 60 MiB: too big to carry")
        return len(bad) + 1
    return len(bad)


def prepare13(a):
    """--abi 13 --prepare DIR, on a machine without a GPU: the programs the
    GPU machine would build with its nvcc (tests/gpu, the C examples, the
    benchmarks), built here with the 13.0 wheel's nvcc for sm_90 (with PTX
    for newer GPUs) as Runner.build_cu builds them (host-only sources with
    the host compiler), stripped, with DIR/manifest.json; the GPU machine
    then compiles nothing (`--abi 13 --prebuilt DIR`). --lib: a folder with
    driver/libcuda.so (our interposer: a link-time libcuda.so.1)."""
    out = os.path.abspath(a.prepare)
    if os.path.exists(os.path.join(out, "manifest.json")):
        shutil.rmtree(out)
    for d in ("bin", "nvidia", "logs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    cuda = os.environ.get("CUDART_SHIM_CUDA_CACHE") or os.path.join(ROOT, ".cache/cuda")
    nvcc = os.path.join(cuda, "nvidia/cu13/bin/nvcc")
    inc = os.path.join(cuda, "nvidia/cu13/include")
    nvlib = os.path.join(cuda, "nvidia/cu13/lib")
    links = [f"-L{os.path.join(cuda, 'linklib')}", f"-L{nvlib}", f"-L{os.path.join(os.path.abspath(a.lib), 'driver')}"]
    unbuffered = os.path.join(ROOT, "tests/gpu/unbuffered.h")
    arch = "-gencode=arch=compute_90,code=[sm_90,compute_90]"
    jobs = []
    for name, srcs, flags in gpu_programs():
        if srcs[0].startswith(os.path.join(ROOT, "tests/gpu12")):
            continue
        flags = ["-include", unbuffered] + flags
        text = "".join(open(x).read() for x in srcs)
        exe = os.path.join(out, "bin", name)
        if not re.search(r"__global__|__device__|__managed__|__constant__|<<<", text):
            host_flags = [f.split("=", 1)[1] if f.startswith("-Xcompiler=") else f for f in flags
                          if f not in ("-rdc=true", "-Xcompiler") and not f.startswith(("--default-stream", "-arch", "-gencode"))]
            cmd = ["c++", "-x", "c++", "-O2", "-std=c++17", "-Wno-deprecated-declarations", "-I", inc, "-o", exe] + srcs + \
                host_flags + links + ["-l:libcudart.so.13", "-lcuda"]
        else:
            cmd = [nvcc, "-cudart", "shared", arch, "-O2", "-Xcompiler", "-Wno-deprecated-declarations", "-o", exe] + flags + srcs + links
        jobs.append(("program", name, cmd))
    for src in sorted(glob.glob(os.path.join(ROOT, "c_examples/*.c"))):
        name = os.path.basename(src)[:-2]
        if "cudartShim" in open(src).read():  # calls cudart-shim's own API
            # cudart-shim's own API (hooks): nothing to compare with NVIDIA's runtime.
            jobs.append(("c_example", name, None, "uses cudart-shim's own API (cudart_shim.h): no NVIDIA run to compare with"))
            continue
        jobs.append(("c_example", name, ["cc", "-DUSE_NVIDIA_HEADERS", "-I", inc, src, "-o", os.path.join(out, "bin", "c_" + name)] + links
                     + ["-l:libcudart.so.13", "-lm"]))
    jobs.append(("bench", "bench", [nvcc, "-cudart", "shared", arch, "-O2", "-Xcompiler", "-Wno-deprecated-declarations", "-I",
                                    os.path.join(ROOT, "benches/gpu"), "-std=c++17"] + sorted(glob.glob(os.path.join(ROOT, "benches/gpu/*.cu")))
                 + ["-o", os.path.join(out, "bin", "bench")] + links + ["-lcuda"]))
    jobs.append(("bench", "cold_start", [nvcc, "-cudart", "shared", arch, "-O2", os.path.join(ROOT, "benches/gpu/cold/cold_start.cpp"),
                                         "-o", os.path.join(out, "bin", "cold_start")] + links))

    entries = build_all(out, jobs, a.jobs)
    # NVIDIA's 13.0 runtime, for a machine that has none of its own.
    shutil.copyfile(os.path.join(nvlib, "libcudart.so.13"), os.path.join(out, "nvidia/libcudart.so.13"))
    manifest = {"abi": 13, "nvcc": nvcc, "git": sh(["git", "-C", ROOT, "rev-parse", "HEAD"])[1].strip(), "programs": entries}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    bad = [e for e in entries if not e["exe"] and not e["not_buildable"]]
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    print(f"\nprepared {out}: {len(entries) - len(bad)} built, {len(bad)} failed to build; size {size / 2**20:.1f} MiB")
    return len(bad)


def main():
    # --help works anywhere: nothing looks for a GPU or nvcc before parsing.
    ap = argparse.ArgumentParser(
        prog="gpu-check",
        description="Run the GPU programs, C examples, PyTorch checks and benchmarks with NVIDIA's "
        "libcudart.so.13 and with cudart-shim, compare, and print one table and `N passed, M failed`. "
        "Needs a CUDA 13 driver and nvcc. With --abi 12, the same for CUDA 12 programs (tests/gpu and "
        "tests/gpu12 built for 12, the C examples, the benchmarks) against NVIDIA's 12.9 libcudart.so.12: "
        "built without a GPU by --prepare, carried, run by --prebuilt.",
        epilog="CUDA 12: `gpu/checks/conformance/conformance.py --abi 12 --prepare DIR` here (needs scripts/setup-cuda and "
        "scripts/setup-cuda12, and `cargo build --release` for ours), carry DIR, then "
        "`gpu/checks/conformance/conformance.py --abi 12 --prebuilt DIR` on the GPU machine. Programs that cannot be built for "
        "CUDA 12 (-rdc=true) are listed as N/A, never counted as passes. See docs/CUDA12.md, "
        "\"The GPU suite for CUDA 12\".")
    ap.add_argument("--abi", choices=["12", "13"], default="13",
                    help="13 (default): CUDA 13 programs, built here with nvcc, NVIDIA's libcudart.so.13 against ours. "
                    "12: CUDA 12 programs built by --prepare (no GPU needed) and run by --prebuilt, NVIDIA's 12.9 "
                    "libcudart.so.12 against our libcudart_shim12.so")
    ap.add_argument("--prepare", metavar="DIR", help="--abi 13 (needs --lib, a folder with driver/libcuda.so): tests/gpu, the C "
                    "examples and the benchmarks built with the 13.0 wheel's nvcc for sm_90 into DIR/bin, run by --abi 13 "
                    "--prebuilt DIR. --abi 12, no GPU needed: build tests/gpu, tests/gpu12, the C examples "
                    "and the benchmarks for CUDA 12 with scripts/nvcc12 (-arch=sm_90), stripped, into DIR/bin, with NVIDIA's "
                    "12.9 libcudart.so.12 in DIR/nvidia and ours (--lib, else target/release) in DIR/ours; prints DIR's size. "
                    "Replaces a DIR it made before")
    ap.add_argument("--prebuilt", metavar="DIR", help="on the GPU machine: run what --prepare put in DIR "
                    "(nothing is compiled there)")
    ap.add_argument("--jobs", metavar="N", type=int, default=0, help="--prepare: parallel builds (default: all cores)")
    ap.add_argument("--lib", metavar="DIR", default=None,
                    help="folder holding our libcudart_shim.so and libcudart.so.13 (default: target/release); with --abi 12, "
                    "our libcudart_shim12.so (the libcudart.so.12 name is made beside it if missing; default: DIR/ours "
                    "of --prebuilt, target/release for --prepare)")
    ap.add_argument("--out", metavar="DIR", default=os.environ.get("OUT") or os.path.join(ROOT, "gpu-out"),
                    help="where builds, logs and results.json go (default: $OUT, else ./gpu-out)")
    ap.add_argument("--only", metavar="SUBSTR", default="", help="run only the programs whose name contains SUBSTR")
    ap.add_argument("--skip-bench", action="store_true", help="skip the benchmarks (benches/gpu)")
    ap.add_argument("--skip-programs", action="store_true", help="skip the test programs (tests/gpu) and C examples")
    ap.add_argument("--skip-torch", action="store_true", help="skip the PyTorch checks (tests/torch/run.py)")
    ap.add_argument("--bench-pairs", metavar="N", type=int, default=3, help="A B rounds per benchmark (default 3)")
    ap.add_argument("--bad-input", metavar="EXPORT_LIST", help="run the bad-input suite (NVIDIA's export list)")
    ap.add_argument("--trace-overhead", action="store_true", help="per-call cost of each tracing mode (rounds: --bench-pairs)")
    a = ap.parse_args()
    if a.abi == "12":
        if bool(a.prepare) == bool(a.prebuilt):
            ap.error("--abi 12 takes --prepare DIR (here) or --prebuilt DIR (on the GPU machine)")
        if a.prepare:
            sys.exit(1 if prepare12(a) else 0)
        if a.bad_input:
            ap.error("--bad-input is for --abi 13 (the 12.9 answers with no driver are tests/abi12.rs)")
        a.skip_torch = True  # the machine's PyTorch is a CUDA 13 build
        if not a.lib:
            a.lib = os.path.join(a.prebuilt, "ours")
    elif a.prepare:
        sys.exit(1 if prepare13(a) else 0)
    if not a.lib:
        a.lib = os.path.join(ROOT, "target/release")
    r = Runner(a)
    print(f"{'prebuilt programs in ' + r.prebuilt + ' (' + r.nvcc + ')' if r.prebuilt else 'nvcc ' + r.nvcc}; "
          f"NVIDIA libcudart in {r.nvlib}; ours in {r.ours}", flush=True)
    if not a.skip_programs:
        r.run_c_examples()
        r.run_programs()
    if a.bad_input:
        r.bad_input(a.bad_input)
    if not a.skip_torch and os.path.exists(os.path.join(ROOT, "tests/torch/run.py")):
        rc, o, e, _ = sh([sys.executable, os.path.join(ROOT, "tests/torch/run.py"), "--shim", r.shim, "--out", r.out], timeout=1200)
        print(o[-4000:], e[-2000:])
        r.torch_timing = []
        for line in o.splitlines():
            m = re.match(r"(PASS|FAIL) torch/(\S+) ?(.*)", line)
            if m:
                r.rows.append(("torch", m.group(2), m.group(1), m.group(3)))
            m = re.match(r"TIMING torch/(\S+) nv_ms=([0-9.]+) ours_ms=([0-9.]+) ratio=([0-9.]+)", line)
            if m:
                r.torch_timing.append({"op": "torch_" + m.group(1), "nvidia_ns": float(m.group(2)) * 1e6,
                                       "ours_ns": float(m.group(3)) * 1e6, "ratio": float(m.group(4))})
    if a.trace_overhead:
        r.trace_overhead()
    if not a.skip_bench:
        r.run_benches()
    sys.exit(1 if r.report() else 0)


if __name__ == "__main__":
    main()
