"""The NULL-argument probe of the getters (tests/cu/null_args.cu) with
NVIDIA's runtime and with ours: every case's status, last error and which
out-arguments were written must be NVIDIA's. Writes null_args_gpu.tsv
(case, NVIDIA, ours), the data tests/null_args.rs and docs/RELIABILITY.md
refer to. Was scripts/gpu-null-args."""
import os

NAME = "null_args"
DESCRIPTION = "NULL out-arguments of the getters: ours answers each case as NVIDIA's runtime does"
EXPECTED_S = 3  # measured: H200, 2026-11-28 (docs/gpu-runs/2026-11-28-s9-*)
TIMEOUT_S = 60


def prepare(ctx):
    ctx.nvcc_build("null_args", [os.path.join(ctx.root, "tests/cu/null_args.cu")], ["-O1"])


def read(text):
    return dict(l.split("\t", 1) for l in text.splitlines() if "\t" in l)


def run(ctx):
    exe = os.path.join(ctx.bin, "null_args")
    rc_ours, ours_out = ctx.sh([exe], env=ctx.ours(CUDART_SHIM_LOG="off"))
    ctx.write("null_args.ours.txt", ours_out)
    ours = read(ours_out)
    order = list(ours)
    # NVIDIA's runtime may crash on a case (cudaGetSymbolAddress(NULL, var)
    # did, SIGSEGV, H200 2026-11-28). The case that crashed is the one after
    # the last it printed, in the probe's order (ours prints every case):
    # record it as the crash and run NVIDIA's again past it.
    nv, crashed, skip, runs = {}, [], [], []
    for _ in range(8):
        env = ctx.nvidia(NULL_ARGS_SKIP="|" + "|".join(skip) + "|" if skip else None)
        rc_nv, nv_out = ctx.sh([exe], env=env)
        runs.append(rc_nv)
        ctx.write(f"null_args.nv.{len(runs)}.txt", nv_out)
        nv.update(read(nv_out))
        if rc_nv >= 0:
            break
        rest = [k for k in order if k not in nv and k not in skip]
        if not rest:
            break
        crashed.append(rest[0])
        nv[rest[0]] = f"crash (signal {-rc_nv})"
        skip.append(rest[0])
    lines = ["# case\tNVIDIA\tours (gpu/checks/null_args.py)"] + [f"{k}\t{nv.get(k, 'MISSING')}\t{ours[k]}" for k in order]
    tsv = ctx.write("null_args_gpu.tsv", "\n".join(lines) + "\n")
    ctx.row("runs", runs[-1] == 0 and rc_ours == 0 and len(ours) > 0,
            f"NVIDIA rc={runs} (crashed on: {', '.join(crashed) or 'none'}), ours rc={rc_ours}, {len(ours)} cases",
            "commands.log")
    # A case NVIDIA crashes on has no answer to match: ours must answer it
    # (it did: it is in ours' output) without crashing.
    diff = [k for k in order if k not in crashed and nv.get(k) != ours[k]]
    ctx.row("same_answers", bool(ours) and not diff,
            f"{len(ours)} cases, {len(diff)} differ, {len(crashed)} crash NVIDIA's runtime"
            + (f": {', '.join(diff[:4])}" if diff else ""), tsv)
