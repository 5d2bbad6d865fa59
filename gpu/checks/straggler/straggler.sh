#!/usr/bin/env bash
# Issue #24 on two GPUs: `delay=` on one rank's launches makes
# `cudart-shim report` name that rank as the straggler. The README's torchrun
# recipe, as written, with rank 1's launches delayed 1 ms each through
# CUDART_SHIM_FAULTS (set by a wrapper for RANK=1 only).
#   gpu/checks/straggler/straggler.sh --lib DIR --out OUT      (DIR: `scripts/gpu prepare`'s DIR/lib)
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)  # gpu/checks/straggler/
lib=""; out=${OUT:-gpu-straggler-out}
while [ $# -gt 0 ]; do case $1 in --lib) lib=$2; shift 2 ;; --out) out=$2; shift 2 ;; *) echo "usage: $0 --lib DIR --out OUT" >&2; exit 2 ;; esac; done
lib=$(cd "$lib" && pwd); mkdir -p "$out"; out=$(cd "$out" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 NCCL_ALGO=Ring NCCL_PROTO=Simple
cat > "$out/train.sh" <<W
#!/bin/sh
# rank 1 is the straggler: each launch 1 ms late
if [ "\$RANK" = 1 ]; then export CUDART_SHIM_FAULTS='__cudaLaunchKernel:delay=1;cudaLaunchKernel:delay=1'; fi
exec python3 $root/tests/torch/ddp.py --steps 30
W
chmod +x "$out/train.sh"
cd "$out" || exit 1
pass=0; fail=0
ok() { if [ "$1" = 0 ]; then echo "PASS $2"; pass=$((pass+1)); else echo "FAIL $2"; fail=$((fail+1)); fi; }
"$lib/cudart-shim" trace --timeline 'tl-rank%r.json' -- torchrun --standalone --nproc-per-node 2 --no-python ./train.sh > run.log 2>&1
ok $? "traced torchrun (README recipe) exits 0"
ls tl-rank*.json > files.txt 2>&1; cat files.txt
[ -f tl-rank0.json ] && [ -f tl-rank1.json ] && [ "$(ls tl-rank*.json | wc -l)" = 2 ]
ok $? "one timeline per rank under the documented names (tl-rank0.json, tl-rank1.json), none for the launcher"
"$lib/cudart-shim" report tl-rank0.json tl-rank1.json > report.txt 2>&1
ok $? "cudart-shim report tl-rank0.json tl-rank1.json"
grep -q "== rank 0 (" report.txt && grep -q "== rank 1 (" report.txt
ok $? "report names both ranks"
row=$(grep -E "__cudaLaunchKernel|cudaLaunchKernel$" report.txt | sed -n '/Across/,$p' | head -1)
across=$(sed -n '/Across/,$p' report.txt | grep -E " (__)?cudaLaunchKernel *$" | head -1)
echo "launch row: $across"
echo "$across" | grep -q "rank 1"
ok $? "the delayed rank (1) is the slowest on its launches"
grep -c "fault=" run.log >/dev/null; echo "injected (summary rows):"; grep -i "injected" run.log | head -5
echo "$pass passed, $fail failed"
