#!/usr/bin/env python3
"""PyTorch's profiler in each scenario of issue #27 (gpu/checks/coexist/coexist.py).

usage: coexist_torch.py CASE OUT_JSON
  CASE: before | after | twice | graph | schedule | export | child | nvtx
PROF=0: the same CUDA work, no profiler (the baseline of cudart-shim's rows).
Writes {"windows": [[kernels, copies, memsets], ...]}: what the profiler
recorded in each of its windows (CUDA activities only).
"""
import json, os, subprocess, sys, tempfile

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule

case, out = sys.argv[1], sys.argv[2]
PROF = os.environ.get("PROF", "1") != "0"
windows = []


def counts(events):
    k = c = m = 0
    for e in events:
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if e.name.startswith("Memcpy"):
            c += 1
        elif e.name.startswith("Memset"):
            m += 1
        else:
            k += 1
    return [k, c, m]


class Prof:
    """torch.profiler.profile, or nothing with PROF=0."""

    def __init__(self, **kw):
        self.p = profile(activities=[ProfilerActivity.CUDA], **kw) if PROF else None

    def start(self):
        if self.p:
            self.p.start()

    def stop(self, record=True):
        if self.p:
            self.p.stop()
            if record:
                windows.append(counts(self.p.events()))

    def step(self):
        if self.p:
            self.p.step()


state = {}


def setup():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    state.update(model=model, opt=opt, x=torch.randn(64, 256, device="cuda"), y=torch.randint(0, 10, (64,), device="cuda"),
                 host=torch.randn(64, 256))


def work(n):
    """n training steps and a copy each way; synchronized."""
    if not state:
        setup()
    s = state
    for _ in range(n):
        s["opt"].zero_grad(set_to_none=True)
        F.cross_entropy(s["model"](s["x"]), s["y"]).backward()
        s["opt"].step()
    d = s["host"].cuda()
    d.cpu()
    d.zero_()
    torch.cuda.synchronize()


if case == "before":
    p = Prof()
    p.start()  # before the program's first CUDA call
    work(3)
    p.stop()
elif case == "after":
    work(2)
    p = Prof()
    p.start()
    work(3)
    p.stop()
    work(1)
elif case == "twice":
    work(2)
    for n in (3, 2):
        p = Prof()
        p.start()
        work(n)
        p.stop()
elif case == "graph":
    work(1)
    model, xs = state["model"], torch.randn(64, 256, device="cuda")
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st), torch.no_grad():
        for _ in range(2):
            model(xs)
    torch.cuda.current_stream().wait_stream(st)
    g = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(g):
        ys = model(xs)
    torch.cuda.synchronize()
    p = Prof()
    p.start()
    for _ in range(5):
        g.replay()
    torch.cuda.synchronize()
    p.stop()
elif case == "schedule":
    work(1)
    p = Prof(schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=lambda pr: windows.append(counts(pr.events())))
    p.start()
    for _ in range(8):
        work(1)
        p.step()
    p.stop(record=False)
elif case == "export":
    work(1)
    p = Prof()
    p.start()
    work(3)
    p.stop(record=False)
    if p.p:
        f = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
        p.p.export_chrome_trace(f)
        ev = json.load(open(f))["traceEvents"]
        os.unlink(f)
        cat = lambda c: sum(1 for e in ev if e.get("cat") == c and e.get("ph") == "X")
        windows.append([cat("kernel"), cat("gpu_memcpy"), cat("gpu_memset")])
    work(2)
elif case == "child":
    work(1)
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "after", out + ".child"])
    if r.returncode != 0:
        sys.exit(f"child failed: {r.returncode}")
    windows = json.load(open(out + ".child"))["windows"]
    work(1)
elif case == "nvtx":
    work(1)
    p = Prof()
    p.start()
    try:
        with torch.autograd.profiler.emit_nvtx():
            work(2)
    except RuntimeError:
        # emit_nvtx beside a running profiler is refused by some versions: NVTX ranges by hand then.
        torch.cuda.nvtx.range_push("work")
        work(2)
        torch.cuda.nvtx.range_pop()
    with torch.cuda.nvtx.range("more"):
        work(1)
    p.stop()
else:
    sys.exit(f"unknown case {case}")

json.dump({"windows": windows}, open(out, "w"))
print("done", case, windows, flush=True)
