#!/usr/bin/env bash
# Issue #28 part 2 on a GPU machine: a PyTorch run traced twice, the timeline
# as Chrome JSON and as Perfetto protobuf; the protobuf parsed by Perfetto's
# own Python classes (offline: no trace_processor), its event counts against
# the JSON's, and the bytes per event of both.
#
#   gpu/checks/perfetto/perfetto.sh --prepare DIR     # here: the release build (command,
#                                          # library, driver interposer), the
#                                          # perfetto and protobuf wheels,
#                                          # tests/perfetto_check.py
#   gpu/checks/perfetto/perfetto.sh --lib DIR --out OUT [--steps N]   # there, < 5 min
#
# Prints PASS/FAIL lines: protobuf parses with Perfetto's classes; calls, GPU
# slices, counter samples, memory instants, NVTX ranges (each step is a
# torch.cuda.nvtx.range) and flows equal the JSON's (two runs of one
# deterministic job); protobuf <= 40 B per call event; report prints the same
# rows from both; and the figures (B per call event, B/event of both over all
# events, the traced job's time with each format).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)  # gpu/checks/perfetto/
if [ "${1:-}" = --prepare ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 --prepare DIR" >&2; exit 2; }
  dir=$(mkdir -p "$2" && cd "$2" && pwd)
  # DIR already holds our libraries (gpu/checks/perfetto.py links them there).
  mkdir -p "$dir/py"
  cp "$root/tests/perfetto_check.py" "$dir/"
  "$root/scripts/setup-perfetto-py" --wheels "$dir/wheels" >/dev/null
  for w in "$dir"/wheels/*.whl; do python3 -m zipfile -e "$w" "$dir/py"; done
  rm -rf "$dir/wheels"
  echo "prepared $dir: on the GPU machine run gpu/checks/perfetto/perfetto.sh --lib $dir --out \$OUT"
  exit 0
fi
lib="" out="${OUT:-gpu-perfetto-out}" steps=300
while [ $# -gt 0 ]; do
  case "$1" in
    --lib) lib=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    *) echo "usage: $0 --lib DIR --out OUT [--steps N]" >&2; exit 2 ;;
  esac
done
[ -n "$lib" ] || { echo "usage: $0 --lib DIR --out OUT [--steps N]" >&2; exit 2; }
lib=$(cd "$lib" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
cat > "$out/job.py" <<'PY'
# A launch-bound PyTorch training job: a small MLP, fixed seed and shapes.
import sys, torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).cuda()
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x = torch.randn(64, 256, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
for step in range(int(sys.argv[1])):
    with torch.cuda.nvtx.range(f"step {step % 4}"):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(m(x), y).backward()
        opt.step()
torch.cuda.synchronize()
print("job done", torch.__version__)
PY
for fmt in json pftrace; do
  rm -f "$out/torch.$fmt"
  start=$(date +%s%N)
  "$lib/cudart-shim" trace --gpu --timeline "$out/torch.$fmt" -- python3 "$out/job.py" "$steps" > "$out/run-$fmt.txt" 2>&1 || { echo "FAIL: the $fmt run failed:"; tail -20 "$out/run-$fmt.txt"; exit 1; }
  end=$(date +%s%N)
  echo "traced run ($fmt): $(( (end - start) / 1000000 )) ms"
done
PYTHONPATH="$lib/py" PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python python3 "$lib/perfetto_check.py" "$out/torch.pftrace" > "$out/check.json" \
  && echo "PASS: Perfetto's classes parse torch.pftrace" || { echo "FAIL: Perfetto's classes do not parse torch.pftrace"; exit 1; }
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
j = json.load(open(os.path.join(out, "torch.json")))["traceEvents"]
p = json.load(open(os.path.join(out, "check.json")))
calls = sum(1 for e in j if e.get("ph") == "X" and e.get("cat") == "cuda_api")
gpu = sum(1 for e in j if e.get("ph") == "X" and str(e.get("cat", "")).startswith("gpu_"))
counters = sum(1 for e in j if e.get("ph") == "C")
memory = sum(1 for e in j if e.get("ph") == "i" and e.get("cat") == "memory")
nvtx = sum(1 for e in j if e.get("cat") == "nvtx" and e.get("ph") in ("X", "b", "i"))
fs = sum(1 for e in j if e.get("ph") == "s")
ff = sum(1 for e in j if e.get("ph") == "f")
nvtx_json = sum(1 for e in j if e.get("cat") == "nvtx" and e.get("ph") == "X")
nvtx_pb = sum(n for k, n in p["nvtx"].items() if k.startswith("range "))
rows = [("calls", calls, p.get("calls", 0)), ("GPU slices", gpu, p.get("gpu", 0)), ("counter samples", counters, p.get("counters", 0)),
        ("memory instants", memory, sum(p["memory"].values())), ("NVTX ranges", nvtx_json, nvtx_pb),
        ("flow starts", fs, p.get("flows_out", 0)), ("flow ends", ff, p.get("flows_in", 0))]
for name, a, b in rows:
    print(f"{'PASS' if a == b else 'FAIL'}: {name}: JSON {a}, protobuf {b}")
names = {}
for e in j:
    if e.get("ph") == "X" and e.get("cat") == "cuda_api":
        names[e["name"]] = names.get(e["name"], 0) + 1
diff = {k: (names.get(k, 0), p["names"].get(k, 0)) for k in set(names) | set(p["names"]) if names.get(k, 0) != p["names"].get(k, 0)}
print(f"{'PASS' if not diff else 'FAIL'}: calls by function equal ({len(names)} functions){'' if not diff else ': ' + str(sorted(diff.items())[:10])}")
n = calls + gpu + counters + memory + nvtx
jb, pb = os.path.getsize(os.path.join(out, "torch.json")), p["bytes"]
print(f"events: {n} ({calls} calls, {gpu} GPU slices, {counters} counter samples, {memory} memory instants, {nvtx} NVTX)")
print(f"JSON {jb} bytes = {jb / n:.1f} B/event; protobuf {pb} bytes = {pb / n:.1f} B/event ({jb / pb:.1f}x smaller)")
per_call = p["call_bytes"] / max(p.get("calls", 0), 1)
print(f"{'PASS' if per_call <= 40 else 'FAIL'}: protobuf {per_call:.1f} B per call event (begin + end packets and what they intern; target <= 40); all events: {pb / n:.1f} B/event")
PY
# `report` of each saved timeline gives what that run printed when it
# ended (calls per function, failures, GPU, NVTX tables: counts and names;
# times are rounded differently; the kernel registration calls are counted
# at exit but written to the timeline only with --registration, so they
# are left out of the comparison), and a merge into the other format
# reports the same. The two runs are compared with each other above only
# where a deterministic job must agree (queries that answer "not ready"
# vary between runs).
norm() { sed -n '/ \*\* /,$p' "$1" | grep -v -e 'Process:' -e '^ *---' -e 'cudart-shim: timeline' -e '^ *$' -e ' __cuda\(Un\)\?[Rr]egister' \
  | awk '$1 ~ /^[0-9]+\.[0-9]$/ {s = $3; for (i = 9; i <= NF; i++) s = s " " $i; print s; next}
         # nvtx_gpu_proj_sum rows: the range, its instances and GPU ops (a
         # merge realigns times on the wall clock: projected times move by ns)
         {for (k = 1; k <= NF; k++) if ($k == "PushPop" || $k == "StartEnd") break}
         k <= NF && NF - k == 10 {s = ""; for (i = 1; i <= k; i++) s = s " " $i; print s, $(k + 3), $(NF - 1); next}
         {print}' | sort; }
"$lib/cudart-shim" report "$out/torch.pftrace" > "$out/report-pftrace.txt" 2>&1
"$lib/cudart-shim" report "$out/torch.json" > "$out/report-json.txt" 2>&1
"$lib/cudart-shim" report --merge "$out/merged.json" "$out/torch.pftrace" > /dev/null 2>&1 && "$lib/cudart-shim" report "$out/merged.json" > "$out/report-merged.txt" 2>&1
for pair in "run-json.txt report-json.txt" "run-pftrace.txt report-pftrace.txt" "report-pftrace.txt report-merged.txt"; do
  set -- $pair
  if diff <(norm "$out/$1") <(norm "$out/$2") > "$out/diff-$1-$2.txt"; then
    echo "PASS: $2 gives the tables of $1 (counts and names)"
  else
    echo "FAIL: $2 differs from $1:"; head -20 "$out/diff-$1-$2.txt"
  fi
done
