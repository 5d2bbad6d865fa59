#!/usr/bin/env python3
"""Holistic Trace Analysis on a folder of Kineto-form traces (tests/kineto.rs,
gpu/checks/hta_*.py). Prints one JSON object:
  ranks: the ranks HTA loaded;
  kernels: {rank: {kernel name: count}} from HTA's own parsed trace (category
           `kernel`), before and after its step filter;
  analyses: {analysis: {rank: rows}} for each analysis asked, rows of the
            rank in its answer (an analysis that raises is reported with its
            error, never skipped silently);
  stragglers: get_potential_stragglers' list.
  kernel_us: {rank: {kernel name: total microseconds}}, likewise;
  step_kernels, step_kernel_us: the same for the kernels HTA puts in a step;
Usage: hta_check.py TRACE_DIR [--png FILE] [--nccl-dev]
  --png FILE: HTA's own temporal breakdown figure written to FILE (needs
    kaleido);
  --nccl-dev: HTA 0.5's straggler analysis knows NCCL's kernels by their
    names before NCCL 2.19 (ncclKernel_*); later NCCLs name them
    ncclDevKernel_*: they are renamed so in HTA's symbol table first (for
    PyTorch's traces and ours alike)."""
import json
import logging
import sys
import traceback

logging.disable(logging.WARNING)

from hta.trace_analysis import TraceAnalysis  # noqa: E402


def rows_by_rank(df, ranks):
    out = {}
    for r in ranks:
        if "rank" in df.columns:
            out[str(r)] = int((df["rank"] == r).sum())
        elif df.index.name == "rank":
            out[str(r)] = int((df.index == r).sum())
        else:
            out[str(r)] = len(df)
    return out


def main():
    trace_dir = sys.argv[1]
    png = sys.argv[sys.argv.index("--png") + 1] if "--png" in sys.argv else None
    a = TraceAnalysis(trace_dir=trace_dir, include_last_profiler_step=True)
    ranks = sorted(a.t.get_ranks())
    # HTA 0.5 reads `ts` as whole microseconds and keeps `dur` fractional:
    # PyTorch 2.11's own traces (sub-microsecond memsets, fractional ts)
    # come out with durations of -1 us, and its temporal breakdown then
    # fails its own `non_compute_time >= 0` assertion (GPU run of
    # 2026-11-28). Such rows are set to 0 us and counted in the output
    # (`negative_durations`), so a trace that needed it is visible.
    out_neg = {}
    for r in ranks:
        df = a.t.get_trace(r)
        neg = df["dur"] < 0
        out_neg[str(r)] = int(neg.sum())
        df.loc[neg, "dur"] = 0
    sym = a.t.symbol_table.get_sym_table()
    kernel_cat = a.t.symbol_table.get_sym_id_map().get("kernel", -2)
    if "--nccl-dev" in sys.argv:
        st = a.t.symbol_table
        for i, s in enumerate(st.sym_table):
            if s.startswith("ncclDevKernel"):
                new = "ncclKernel" + s[len("ncclDevKernel"):]
                st.sym_table[i] = new
                st.sym_index[new] = st.sym_index.pop(s)
    kernels, kernel_us, step_kernels, step_kernel_us = {}, {}, {}, {}
    for r in ranks:
        df = a.t.get_trace(r)
        k = df[df["cat"] == kernel_cat]
        for sel, cdst, udst in ((k, kernels, kernel_us), (k[k["iteration"] >= 0], step_kernels, step_kernel_us)):
            counts, us = {}, {}
            for n, d in zip(sel["name"], sel["dur"]):
                name = sym[int(n)]
                counts[name] = counts.get(name, 0) + 1
                us[name] = us.get(name, 0) + float(d)
            cdst[str(r)], udst[str(r)] = counts, us
    out = {"ranks": ranks, "kernels": kernels, "kernel_us": kernel_us, "step_kernels": step_kernels, "step_kernel_us": step_kernel_us, "steps": {str(r): [int(i) for i in a.t.get_iterations(r)] for r in ranks}, "analyses": {}, "negative_durations": out_neg}

    def run(name, f):
        try:
            res = f()
            out["analyses"][name] = res
        except Exception as e:  # reported, and the caller fails on it
            out["analyses"][name] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()}

    run("get_temporal_breakdown", lambda: rows_by_rank(a.get_temporal_breakdown(visualize=False), ranks))
    run("get_idle_time_breakdown", lambda: rows_by_rank(a.get_idle_time_breakdown(ranks=ranks, visualize=False)[0], ranks))
    run("get_comm_comp_overlap", lambda: rows_by_rank(a.get_comm_comp_overlap(visualize=False), ranks))
    run("get_cuda_kernel_launch_stats", lambda: {str(r): len(df) for r, df in a.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False).items()})
    run("get_gpu_kernel_breakdown", lambda: rows_by_rank(a.get_gpu_kernel_breakdown(visualize=False)[1], ranks))
    try:
        out["stragglers"] = [int(r) for r in a.get_potential_stragglers(num_candidates=1)]
    except Exception as e:
        out["stragglers"] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()}
    run("temporal", lambda: json.loads(a.get_temporal_breakdown(visualize=False).to_json(orient="records")))
    run("kernel_breakdown", lambda: json.loads(a.get_gpu_kernel_breakdown(visualize=False)[1].to_json(orient="records")))
    out["temporal"] = out["analyses"].pop("temporal")
    out["kernel_breakdown"] = out["analyses"].pop("kernel_breakdown")
    if png:
        # HTA's own figure: its visualize path calls Figure.show, taken
        # here to write the first figure it shows.
        import plotly.graph_objects as go

        def show(fig, *args, **kwargs):
            if not out.get("png"):
                fig.write_image(png, width=900, height=500)
                out["png"] = png

        go.Figure.show = show
        a.get_temporal_breakdown(visualize=True)
    print(json.dumps(out))


main()
