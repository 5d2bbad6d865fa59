"""The flight recorder's cost (issue #28 part 1): PyTorch's launch-bound
training step (activity/activity_torch.py, GA_SIZE=small, 50 steps, pinned
to one CPU), ours untraced against ours with the recorder, interleaved
rounds: the recorder's median step (wall and CPU time) within the noise of
the untraced rounds. Program: recorder/recorder.py --cost-only. Was
`scripts/gpu-all run DIR OUT recorder-cost` (scripts/gpu-recorder
--cost-only, 10 rounds: 180-200 s); 4 rounds here, so the noise band is wider."""
import os

NAME = "recorder_cost"
DESCRIPTION = "the recorder's added time per PyTorch step is within the untraced rounds' noise"
EXPECTED_S = 80  # docs/gpu-runs/: 183 s (s7-call2) and 180 s (s8-call3) for 10 rounds
TIMEOUT_S = 200
ON_DEMAND = "a cost figure (docs/RECORDER.md), not a behaviour; over the two calls' budget"


def run(ctx):
    rc, out = ctx.sh([ctx.python, os.path.join(ctx.root, "gpu/checks/recorder/recorder.py"), "--lib", ctx.lib, "--out", ctx.raw,
                      "--cost-only", "--rounds", "4"], timeout=TIMEOUT_S)
    ctx.write("cost.log", out)
    ctx.rows_from(out, "cost.log", rc=rc)
