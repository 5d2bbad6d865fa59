"""A PyTorch loop whose main thread sleeps in Python inside NVTX range
"step" (gpu/checks/hang_torch_sleep.py): 5 steps of GPU work, then at step
3, after torch.cuda.synchronize(), range_push("step"), time.sleep(S),
range_pop(), then 2 s more of GPU work. Writes the sleep's start (unix
ns) to the file given."""
import sys, time
import torch

seconds, stamp = float(sys.argv[1]), sys.argv[2]
x = torch.randn(1024, 1024, device="cuda")
for step in range(5):
    y = x @ x
    x = y / y.norm()
    if step == 3:
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("step")
        open(stamp, "w").write(str(time.time_ns()))
        time.sleep(seconds)
        torch.cuda.nvtx.range_pop()
# 2 s more of GPU work: the watchdog ticks each second and sees it resume.
t0 = time.time()
while time.time() - t0 < 2:
    x = (x @ x) / (x @ x).norm()
    torch.cuda.synchronize()
print("loop done", float(x.sum().item()) != 0.0)
