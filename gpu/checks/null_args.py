"""The NULL-argument probe of the getters (tests/cu/null_args.cu) with
NVIDIA's runtime and with ours: every case's status, last error and which
out-arguments were written must be NVIDIA's. Writes null_args_gpu.tsv
(case, NVIDIA, ours), the data tests/null_args.rs and docs/RELIABILITY.md
refer to. Was scripts/gpu-null-args."""
import os

NAME = "null_args"
DESCRIPTION = "NULL out-arguments of the getters: ours answers each case as NVIDIA's runtime does"
EXPECTED_S = 5
TIMEOUT_S = 60


def prepare(ctx):
    ctx.nvcc_build("null_args", [os.path.join(ctx.root, "tests/cu/null_args.cu")], ["-O1"])


def read(text):
    return dict(l.split("\t", 1) for l in text.splitlines() if "\t" in l)


def run(ctx):
    exe = os.path.join(ctx.bin, "null_args")
    rc_nv, nv_out = ctx.sh([exe], env=ctx.nvidia())
    rc_ours, ours_out = ctx.sh([exe], env=ctx.ours(CUDART_SHIM_LOG="off"))
    ctx.write("null_args.nv.txt", nv_out)
    ctx.write("null_args.ours.txt", ours_out)
    nv, ours = read(nv_out), read(ours_out)
    lines = ["# case\tNVIDIA\tours (gpu/checks/null_args.py)"] + [f"{k}\t{nv[k]}\t{ours.get(k, 'MISSING')}" for k in nv]
    tsv = ctx.write("null_args_gpu.tsv", "\n".join(lines) + "\n")
    ctx.row("runs", rc_nv == 0 and rc_ours == 0 and len(nv) > 0,
            f"NVIDIA rc={rc_nv}, ours rc={rc_ours}, {len(nv)} cases", "commands.log")
    diff = [k for k in nv if nv[k] != ours.get(k)]
    ctx.row("same_answers", nv and not diff,
            f"{len(nv)} cases, {len(diff)} differ" + (f": {', '.join(diff[:4])}" if diff else ""), tsv)
