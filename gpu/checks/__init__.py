"""One module per GPU check (docs/GPU-CHECKS.md, "Adding a check"). The
runner finds them by file name; this file only makes `gpu.checks.NAME`
importable for the CI test."""
