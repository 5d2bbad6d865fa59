"""PyTorch checks, run once per runtime by tests/torch/run.py.

usage: python3 checks.py CHECK
Each check prints only values that must be identical across runtimes
(floats as hex, so equality is bitwise) and exits non-zero on failure.
"""
import os
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402


def h(x):
    return float(x).hex()


def props():
    p = torch.cuda.get_device_properties(0)
    print(torch.cuda.is_available(), torch.cuda.device_count(), p.name, p.major, p.minor,
          p.multi_processor_count, p.total_memory, p.L2_cache_size)
    print(torch.version.cuda, torch.cuda.get_device_capability(0))


def elementwise():
    torch.manual_seed(0)
    a = torch.randn(1 << 20, device="cuda")
    b = torch.randn(1 << 20, device="cuda")
    c = (a * b + a.sin()).relu().sum()
    print(h(c.item()))
    x = torch.arange(10, device="cuda", dtype=torch.int64) ** 2
    print(x.tolist())


def matmul():
    torch.manual_seed(1)
    a = torch.randn(512, 512, device="cuda")
    b = torch.randn(512, 512, device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        c = a @ b
    s.synchronize()
    print(h(c.double().sum().item()))
    print(h((a.half() @ b.half()).float().sum().item()))


def streams_events():
    torch.manual_seed(2)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream(priority=-1)
    e = torch.cuda.Event(enable_timing=True)
    x = torch.randn(1 << 16, device="cuda")
    with torch.cuda.stream(s1):
        y = x * 2
        e.record()
    s2.wait_event(e)
    with torch.cuda.stream(s2):
        z = y + 1
    torch.cuda.synchronize()
    e2 = torch.cuda.Event(enable_timing=True)
    e2.record()
    e2.synchronize()
    assert e.elapsed_time(e2) >= 0
    print(h(z.sum().item()), e.query(), s1.query())


def pinned_copies():
    torch.manual_seed(3)
    a = torch.randn(1 << 20).pin_memory()
    assert a.is_pinned()
    d = a.to("cuda", non_blocking=True)
    back = torch.empty_like(a).pin_memory()
    back.copy_(d * 3, non_blocking=True)
    torch.cuda.synchronize()
    print(h(back.sum().item()), bool(torch.equal(back, a * 3)))


def allocator_stats():
    torch.cuda.reset_peak_memory_stats()
    x = [torch.empty(1 << 20, device="cuda") for _ in range(8)]
    st = torch.cuda.memory_stats()
    print(st["allocation.all.current"], st["allocated_bytes.all.current"])
    del x
    torch.cuda.empty_cache()
    free, total = torch.cuda.mem_get_info()
    print(total > 0, free <= total, torch.cuda.memory_allocated())


def graphs():
    torch.manual_seed(4)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).cuda()
    static_in = torch.randn(32, 64, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            model(static_in)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = model(static_in)
    outs = []
    for i in range(5):
        static_in.copy_(torch.randn(32, 64, device="cuda"))
        g.replay()
        eager = model(static_in)
        assert torch.equal(eager, static_out), "graph replay differs from eager"
        outs.append(h(static_out.double().sum().item()))
    print(outs)


def compiled():
    torch.manual_seed(5)

    @torch.compile
    def f(x, y):
        return torch.sin(x) * torch.cos(y) + x * y

    x = torch.randn(4096, device="cuda")
    y = torch.randn(4096, device="cuda")
    r = f(x, y)
    ref = torch.sin(x) * torch.cos(y) + x * y
    assert torch.allclose(r, ref, atol=1e-6)
    print(h(r.double().sum().item()))


def _train(model_fn, data_fn, steps):
    torch.manual_seed(6)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    model = model_fn().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    times = []
    for step in range(steps):
        x, y = data_fn(step)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        losses.append(h(loss.item()))
    return losses, times


def mlp():
    g = torch.Generator(device="cuda").manual_seed(7)

    def data(step):
        x = torch.randn(256, 128, device="cuda", generator=g)
        return x, (x.sum(1) > 0).long()

    losses, times = _train(lambda: torch.nn.Sequential(
        torch.nn.Linear(128, 512), torch.nn.GELU(), torch.nn.Linear(512, 512), torch.nn.GELU(),
        torch.nn.Linear(512, 2)), data, 200)
    print("\n".join(losses))
    times.sort()
    print(f"STEP_TIME_MEDIAN_S {times[len(times) // 2]:.9f}", file=sys.stderr)


def transformer():
    g = torch.Generator(device="cuda").manual_seed(8)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(100, 128)
            self.layer = torch.nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True)
            self.head = torch.nn.Linear(128, 100)

        def forward(self, t):
            return self.head(self.layer(self.emb(t)).mean(1))

    def data(step):
        t = torch.randint(0, 100, (32, 16), device="cuda", generator=g)
        return t, t[:, 0]

    losses, times = _train(Block, data, 200)
    print("\n".join(losses))
    times.sort()
    print(f"STEP_TIME_MEDIAN_S {times[len(times) // 2]:.9f}", file=sys.stderr)


CHECKS = {f.__name__: f for f in [props, elementwise, matmul, streams_events, pinned_copies, allocator_stats,
                                  graphs, compiled, mlp, transformer]}

if __name__ == "__main__":
    CHECKS[sys.argv[1]]()
    torch.cuda.synchronize()
