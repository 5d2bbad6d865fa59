"""One short PyTorch process of the churn check: 4 Python threads, each
making CUDA calls (allocations, copies, a matmul, synchronizations) on the
same device, joined; then the process exits and writes its summary and
timeline."""
import threading

import torch


def work(i):
    torch.cuda.set_device(0)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        for k in range(20):
            a = torch.randn(64 + i, 64, device="cuda")
            b = (a @ a.T).relu_()
            c = b.sum().item()
            h = torch.empty(64 + i, 64, pin_memory=(k % 5 == 0)).copy_(a, non_blocking=False)
            del a, b, h
            if k % 7 == 0:
                torch.cuda.synchronize()
    s.synchronize()
    return c


threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
torch.cuda.synchronize()
