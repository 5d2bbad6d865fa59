#!/usr/bin/env bash
# `cudart-shim trace` with both runtimes on a GPU machine (issue #20): build
# here, run there (the GPU machine has no CUDA 12 toolkit).
#
#   gpu/checks/trace_abi/trace_abi.sh prepare DIR   # here: copies target/release's command,
#                                       # both runtime libraries and the driver
#                                       # interposer into DIR, builds
#                                       # tests/cu12/hello12.cu (scripts/nvcc12) and
#                                       # tests/c/runtimes.c (linked to .12, to .13,
#                                       # and the dlopen form)
#   DIR/run.sh                          # there: outputs under $OUT (or DIR/out)
#
# What run.sh shows (tests/cli_abi.rs checks the same over the fake driver):
# - doctor's two loader-path lines and both libraries;
# - hello12 traced: only libcudart_shim12.so preloaded, its driver calls on
#   the 12 runtime's timeline, every one nested (depth > 0);
# - a shell script running a 12 and a 13 program: two summaries, one per
#   runtime, two timelines;
# - one process loading both SONAMEs: two timelines (both.json and
#   both.cudart13.json), each runtime's driver calls nested under its own;
# - PyTorch (cu130) traced with both preloaded: the 12 runtime is mapped but
#   inert (one summary, one timeline, on libcudart.so.13; no .cudart12 file).
# The last lines list every timeline: runtime, calls, driver calls, driver
# calls at depth 0 (the program's own; 0 for every file but torch's).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)  # gpu/checks/trace_abi/
[ "${1:-}" = prepare ] && [ -n "${2:-}" ] || { echo "usage: $0 prepare DIR" >&2; exit 2; }
dir=$(mkdir -p "$2" && cd "$2" && pwd)
# DIR already holds our libraries, the command and driver/ (gpu/checks/trace_abi.py links them there).
for f in cudart-shim libcudart_shim.so libcudart_shim12.so libcudart.so.12 libcudart.so.13 driver/libcuda.so.1; do
  [ -e "$dir/$f" ] || { echo "$dir/$f is missing" >&2; exit 1; }
done
"$root/scripts/nvcc12" -arch=sm_90 -O1 "$root/tests/cu12/hello12.cu" -o "$dir/hello12"
for n in 12 13; do
  cc -std=c11 -Wall -Werror -D_DEFAULT_SOURCE -DLINKED "$root/tests/c/runtimes.c" -o "$dir/runtimes-$n" -L"$dir" -l:libcudart.so.$n -ldl
done
cc -std=c11 -Wall -Werror -D_DEFAULT_SOURCE "$root/tests/c/runtimes.c" -o "$dir/runtimes-0" -ldl
cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
set -uo pipefail
H=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$H/out}
mkdir -p "$OUT"
cd "$OUT"
echo "== doctor"; "$H/cudart-shim" doctor
echo "== hello12 (a CUDA 12 program)"
"$H/cudart-shim" trace --timeline "$OUT/hello12.json" -- "$H/hello12" 2>&1 | tail -40
echo "== a script running a 12 and a 13 program"
"$H/cudart-shim" trace --timeline "$OUT/script-%p.json" -- sh -c "$H/runtimes-12 && $H/runtimes-13" 2>&1 | tail -40
echo "== one process using both runtimes"
"$H/cudart-shim" trace --timeline "$OUT/both.json" -- "$H/runtimes-0" libcudart.so.12 libcudart.so.13 2>&1 | tail -40
echo "== PyTorch under trace, both preloaded"
"$H/cudart-shim" trace --timeline "$OUT/torch-%p.json" -- python3 -c "
import torch, os
x = torch.ones(1 << 20, device='cuda')
print('torch', torch.__version__, 'sum', (x * 2).sum().item())
print('preload', os.environ.get('LD_PRELOAD'))
print('12 mapped', any('libcudart_shim12' in l for l in open('/proc/self/maps')))
" 2>&1 | tail -30
ls -la "$OUT"
python3 - "$OUT" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    t = json.load(open(f))
    ev = [e for e in t['traceEvents'] if e.get('ph') == 'X' and e.get('cat') != 'gpu']
    drv = [e for e in ev if e['name'].startswith('cu') and not e['name'].startswith('cuda')]
    own = sum(1 for e in drv if e['args'].get('depth', 0) == 0)
    print(f"TIMELINE {os.path.basename(f)}: {t['otherData']['process'].get('runtime')}, {len(ev)} calls, {len(drv)} driver calls, {own} at depth 0")
PY
RUN
chmod +x "$dir/run.sh"
echo "prepared $dir: carry it to the GPU machine and run $dir/run.sh"
