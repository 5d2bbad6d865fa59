"""The GPU check suite: gpu/runner.py (the runner library behind
scripts/gpu) and gpu/checks/ (one module per check). docs/GPU-CHECKS.md."""
