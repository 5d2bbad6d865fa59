"""Live metrics on a GPU (issue #36): a 60 s PyTorch training job
(metrics_torch/train.py) under `cudart-shim trace --gpu --metrics-listen
--metrics --step-range step`, while a real Prometheus server on this machine
scrapes it every second. From Prometheus' HTTP API after the last step:
the step histogram's count equals the steps made; the memory gauge's
PyTorch row equals torch.cuda.memory_reserved(); GPU busy seconds per class
(gemm, nccl, memcpy, other) are there and above 0; the last scrape's call
counters equal the endpoint's own answer at that moment; and the final
textfile (written at exit, after the last flush) equals the exit summary,
every function. metrics_ranks runs the same rows for
each of two ranks.

Prometheus: Debian's package, downloaded here by prepare (`apt-get
download prometheus`, extracted with `dpkg -x` into a temporary folder);
only its binary is kept (it needs libc alone; the package's other
dependencies are its web UI's scripts), xz-compressed (50 MB -> ~12 MB) to
fit the carry limit, and unpacked on the GPU machine into a temporary
folder outside raw/."""
import glob
import json
import lzma
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

NAME = "metrics_torch"
DESCRIPTION = "Prometheus scrapes a PyTorch job's /metrics: step histogram, memory gauge, GPU busy per class, counters == summary"
EXPECTED_S = 85  # not yet run on a GPU: 60 s of training, torch start-up, Prometheus start
TIMEOUT_S = 240
TRAIN_S = 60


def prepare_prometheus(ctx):
    """Debian's prometheus binary, xz-compressed into ctx.data (shared with
    metrics_ranks through NEEDS)."""
    os.makedirs(ctx.data, exist_ok=True)
    dest = os.path.join(ctx.data, "prometheus.xz")
    if os.path.exists(dest):
        return
    tmp = tempfile.mkdtemp(prefix="cudart-shim-prom-")
    try:
        rc, out = ctx.sh(["apt-get", "download", "prometheus"], cwd=tmp, timeout=600)
        if rc != 0:
            ctx.sh(["apt-get", "update", "-qq"], timeout=600)
            rc, out = ctx.sh(["apt-get", "download", "prometheus"], cwd=tmp, timeout=600)
        debs = glob.glob(os.path.join(tmp, "prometheus_*.deb"))
        if rc != 0 or not debs:
            raise RuntimeError("apt-get download prometheus failed: " + out.strip()[-300:])
        x = os.path.join(tmp, "x")
        rc, out = ctx.sh(["dpkg", "-x", debs[0], x], timeout=300)
        binary = os.path.join(x, "usr", "bin", "prometheus")
        if rc != 0 or not os.path.exists(binary):
            raise RuntimeError("dpkg -x of the prometheus package failed: " + out.strip()[-300:])
        with open(binary, "rb") as f, lzma.open(dest + ".part", "wb", preset=1) as g:
            shutil.copyfileobj(f, g)
        os.replace(dest + ".part", dest)
        ctx.write("prometheus-deb.txt", os.path.basename(debs[0]) + "\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def prepare(ctx):
    prepare_prometheus(ctx)


def free_port(n=1):
    """A loopback port with the n - 1 after it free too."""
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
        ok = p + n <= 65535
        for k in range(1, n):
            t = socket.socket()
            try:
                t.bind(("127.0.0.1", p + k))
            except OSError:
                ok = False
            t.close()
        s.close()
        if ok:
            return p


class Prometheus:
    """A Prometheus server scraping `targets` every second, in a temporary
    folder (the binary is not put in raw/)."""

    def __init__(self, ctx, data, targets):
        self.ctx = ctx
        self.tmp = tempfile.mkdtemp(prefix="cudart-shim-prom-")
        exe = os.path.join(self.tmp, "prometheus")
        with lzma.open(os.path.join(data, "prometheus.xz"), "rb") as f, open(exe, "wb") as g:
            shutil.copyfileobj(f, g)
        os.chmod(exe, 0o755)
        conf = os.path.join(self.tmp, "prometheus.yml")
        tl = ", ".join(f"'{t}'" for t in targets)
        with open(conf, "w") as f:
            f.write(f"global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: shim\n    static_configs:\n      - targets: [{tl}]\n")
        self.port = free_port()
        self.log = open(os.path.join(ctx.raw, "prometheus.log"), "w")
        self.p = subprocess.Popen([exe, f"--config.file={conf}", f"--storage.tsdb.path={self.tmp}/data", f"--web.listen-address=127.0.0.1:{self.port}"],
                                  stdout=self.log, stderr=subprocess.STDOUT)

    def query(self, q):
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return json.load(r)["data"]["result"]
        except Exception:
            return []

    def scrape_after(self, t, deadline_s=30):
        """Wait for a scrape of every target that began after time t."""
        end = time.time() + deadline_s
        while time.time() < end:
            r = self.query('timestamp(up{job="shim"})')
            if r and all(float(x["value"][1]) > t for x in r):
                return True
            time.sleep(0.2)
        return False

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def done_lines(stdout, n):
    """Read the job's stdout until n lines `DONE ...` (or its end); the
    other lines go to the list too."""
    seen, done = [], []
    while len(done) < n:
        line = stdout.readline()
        if not line:
            break
        seen.append(line)
        if line.startswith("DONE"):
            done.append(line)
    return done, seen


def get_metrics(addr):
    with urllib.request.urlopen(f"http://{addr}/metrics", timeout=10) as r:
        return r.read().decode()


def samples(text, name):
    """{labels-dict-as-sorted-tuple: value} of the samples of `name`."""
    out = {}
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        series, value = line.rsplit(" ", 1)
        labels = dict(re.findall(r'(\w+)="([^"]*)"', series))
        out[tuple(sorted(labels.items()))] = float(value)
    return out


def summary_calls(text, rank=None):
    """Num Calls per function of the exit summary that `cudart-shim trace`
    printed (stderr) for one process: its cuda_api_sum rows. With several
    processes, each summary follows a line `cudart-shim: rank R (...)`
    (or `cudart-shim: pid P (...)`): rank picks that one; None: the only
    (or first) summary."""
    calls, mine, in_api = {}, rank is None, False
    for line in text.splitlines():
        m = re.match(r"cudart-shim: (rank (\d+)|pid \d+) \(", line)
        if m:
            if calls and mine:
                break  # the next process's summary
            mine = rank is None or m.group(2) == str(rank)
            in_api = False
            continue
        if "**" in line:
            in_api = "(cuda_api_sum)" in line
            continue
        f = line.split()
        if not (mine and in_api):
            continue
        if len(f) >= 9 and re.fullmatch(r"[\d.]+", f[0]) and f[2].replace(",", "").isdigit() and (f[-1].startswith("cu") or f[-1].startswith("__cuda")):
            calls[f[-1]] = calls.get(f[-1], 0) + int(f[2].replace(",", ""))
    return calls


# The series each check reads from Prometheus' API.
QUERIES = ["cudart_shim_step_seconds_count", "cudart_shim_memory_used_bytes", "cudart_shim_gpu_busy_seconds_total",
           "cudart_shim_calls_total", "cudart_shim_nccl_ops_launched_total", 'up{job="shim"}']


def verify_rank(ctx, q, rank, train, textfile, summaries, tag=""):
    """The rows of one rank (issue #36's GPU must-show): from Prometheus'
    answers q (series of every rank; this rank's are those labelled
    rank=RANK), the job's own figures (train: steps made,
    memory_reserved()), the final textfile and the exit summaries that
    `cudart-shim trace` printed (summaries: its stderr; tag: "" for the
    only process)."""
    def mine(key):
        return [x for x in q.get(key, []) if x["metric"].get("rank", "0") == str(rank)]

    cnt = [float(x["value"][1]) for x in mine("cudart_shim_step_seconds_count")]
    ctx.row(f"{tag}step histogram count", cnt == [train["steps"]], f"{cnt} vs {train['steps']} steps", "prometheus-api.json")
    # Memory: PyTorch's row (its caching allocator's library) is memory_reserved().
    torch_rows = [x for x in mine("cudart_shim_memory_used_bytes")
                  if x["metric"].get("library", "").startswith(("libc10_cuda", "libtorch_cuda")) and x["metric"].get("kind") == "device"]
    torch_bytes = sum(float(x["value"][1]) for x in torch_rows)
    ctx.row(f"{tag}memory gauge PyTorch row", bool(torch_rows) and torch_bytes == train["reserved"],
            f"{int(torch_bytes)} B ({[x['metric']['library'] for x in torch_rows]}) vs memory_reserved() {train['reserved']} B", "prometheus-api.json")
    uuids = {x["metric"].get("gpu_uuid", "") for x in torch_rows}
    ctx.row(f"{tag}gpu_uuid label", bool(uuids) and all(re.fullmatch(r"GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", u) for u in uuids),
            str(sorted(uuids)), "prometheus-api.json")
    busy = {x["metric"]["class"]: float(x["value"][1]) for x in mine("cudart_shim_gpu_busy_seconds_total")}
    fig = ", ".join(f"{k} {v:.3f} s" for k, v in sorted(busy.items()))
    # NCCL on a one-rank communicator launches no kernel (its all-reduce
    # is a copy in place: H200, 2026-11-28, no ncclDevKernel in the GPU
    # table of 22,278 steps), so its class and operations are 0 there.
    world = int(train.get("world", 1))
    want = ["gemm", "memcpy", "other"] + (["nccl"] if world > 1 else [])
    ctx.row(f"{tag}GPU busy per class", all(busy.get(c, 0) > 0 for c in want) and (world > 1 or busy.get("nccl", 0) == 0), fig, "prometheus-api.json")
    # NCCL: one all-reduce per step (and the communicator's own at set-up).
    ar = sum(float(x["value"][1]) for x in mine("cudart_shim_nccl_ops_launched_total") if x["metric"].get("op") == "AllReduce")
    ctx.row(f"{tag}NCCL AllReduce launched", ar >= train["steps"] if world > 1 else ar == 0,
            f"{int(ar)} launched, {train['steps']} steps, {world} rank(s)", "prometheus-api.json")
    # The final textfile (after the last flush) = the exit summary, every function.
    final = open(textfile).read() if os.path.exists(textfile) else ""
    file_calls = {}
    for k, v in samples(final, "cudart_shim_calls_total").items():
        f = dict(k)["function"]
        file_calls[f] = file_calls.get(f, 0) + int(v)
    summ = summary_calls(summaries, rank if tag else None)
    diff = {f: (file_calls.get(f), summ.get(f)) for f in set(file_calls) | set(summ) if file_calls.get(f) != summ.get(f)}
    ctx.row(f"{tag}final textfile == exit summary", bool(file_calls) and not diff,
            f"{len(file_calls)} functions, {sum(file_calls.values())} calls; differ: {dict(list(diff.items())[:5])}", os.path.basename(textfile))


def run(ctx):
    port = free_port()
    addr = f"127.0.0.1:{port}"
    prom = Prometheus(ctx, ctx.data, [addr])
    textfile = os.path.join(ctx.raw, "final.prom")
    out_json = os.path.join(ctx.raw, "train.json")
    stop = os.path.join(ctx.raw, "stop")
    cmd = [ctx.shim, "trace", "--gpu", "--metrics-listen", addr, "--metrics", textfile, "--metrics-interval", "2", "--step-range", "step", "--",
           ctx.python, os.path.join(ctx.src, "train.py"), "--seconds", str(TRAIN_S), "--out", out_json, "--stop", stop]
    log = open(os.path.join(ctx.raw, "job.log"), "w")
    # The watchdog keeps the progress state, whose NCCL operations the metrics
    # read (metrics never switch it on themselves: docs/METRICS.md).
    env = dict(os.environ, CUDART_SHIM_WATCHDOG="600", **ctx.ours())
    job = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True, cwd=ctx.raw, env=env)
    q, done_line, ok_scrape, endpoint = {}, "", False, ""
    try:
        done, _ = done_lines(job.stdout, 1)
        done_line = done[0] if done else ""
        done_at = time.time()
        ok_scrape = done_line.startswith("DONE") and prom.scrape_after(done_at + 0.1)
        endpoint = get_metrics(addr) if ok_scrape else ""
        ctx.write("endpoint-at-done.prom", endpoint)
        q = {k: prom.query(k) for k in QUERIES}
        ctx.write("prometheus-api.json", json.dumps(q, indent=1))
    finally:
        open(stop, "w").close()
        job.communicate(timeout=120)
        log.close()
        prom.stop()
    if not ctx.row("job", job.returncode == 0 and done_line.startswith("DONE"), f"exit {job.returncode}", "job.log"):
        return
    ctx.row("scrape after the last step", ok_scrape and q['up{job="shim"}'] and q['up{job="shim"}'][0]["value"][1] == "1", "up=1", "prometheus-api.json")
    verify_rank(ctx, q, 0, json.load(open(out_json)), textfile, open(os.path.join(ctx.raw, "job.log")).read())
    # The last scrape (after the last step, no call since) = the endpoint's answer then.
    prom_calls = {x["metric"]["function"]: float(x["value"][1]) for x in q["cudart_shim_calls_total"]}
    ep_calls = {dict(k)["function"]: v for k, v in samples(endpoint, "cudart_shim_calls_total").items()}
    diff = {f: (prom_calls.get(f), ep_calls.get(f)) for f in set(prom_calls) | set(ep_calls) if prom_calls.get(f) != ep_calls.get(f)}
    ctx.row("Prometheus == endpoint after the last step", prom_calls and not diff, f"{len(prom_calls)} functions; differ: {dict(list(diff.items())[:5])}", "prometheus-api.json")
