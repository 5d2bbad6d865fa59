"""The Python module, run inside processes of the wheel's virtual
environment: on the shim under `cudart-shim trace` (fake driver), under a
plain LD_PRELOAD, and without the shim."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import clean_env, run, summary_rows


def py(venv: Path) -> str:
    return str(venv / "bin" / "python")


def test_without_the_shim_it_says_how_to_load_it(venv: Path) -> None:
    out = run([py(venv), "-c", "import cudart_shim\nprint(cudart_shim.is_loaded())\ntry:\n cudart_shim.counters()\nexcept cudart_shim.ShimNotLoaded as e:\n print('raised', e)"]).stdout
    assert out.startswith("False\nraised cudart-shim is not loaded in this process"), out
    assert "cudart-shim trace -- python" in out and "LD_PRELOAD=" in out and "libcudart_shim.so" in out, out


def test_counters_under_trace_equal_the_summary(venv: Path, repo: Path, fake_driver: Path, tmp_path: Path) -> None:
    report = tmp_path / "read.json"
    program = repo / "python" / "tests" / "programs" / "counters_under_trace.py"
    env = clean_env(CUDART_SHIM_DRIVER=str(fake_driver), CUDART_SHIM_POOL="1")
    out = run([str(venv / "bin" / "cudart-shim"), "trace", "--", py(venv), str(program), str(report)], env=env)
    got = json.loads(report.read_text())
    # trace preloads both runtimes into an interpreter: both are seen.
    assert sorted(got["runtimes"]) == ["libcudart.so.12", "libcudart.so.13"], got["runtimes"]
    counts = {c["name"]: c["calls"] for c in got["counters"]}
    assert {c["runtime"] for c in got["counters"]} == {"libcudart.so.13"}, got["counters"]
    assert counts["cudaDeviceSynchronize"] == 3 and counts["cudaMalloc"] == 1 and counts["cudaFree"] == 1, counts
    failed = {c["name"]: c["failed_calls"] for c in got["counters"]}
    assert failed["cudaSetDevice"] == 1 and failed["cudaMalloc"] == 0, failed
    # The same calls, the same counts as the summary the command printed.
    assert summary_rows(out.stderr) == counts, (summary_rows(out.stderr), counts)
    assert got["one"]["calls"] == 3 and got["never"]["calls"] == 0
    assert all(got["names"][n] == n for n in counts), got["names"]
    c = next(c for c in got["counters"] if c["name"] == "cudaDeviceSynchronize")
    assert 0 < c["min_ns"] <= c["max_ns"] <= c["total_ns"], c
    # The caching allocator (CUDART_SHIM_POOL=1) held the 1 MiB block.
    pool = got["pool_in_use"]
    assert pool["active_blocks"] == 1 and pool["active_bytes"] == 1 << 20 and pool["misses"] == 1, pool
    assert pool["held_bytes"] >= pool["active_bytes"], pool


def test_counters_under_a_plain_preload(venv: Path, site: Path, fake_driver: Path) -> None:
    code = (
        "import ctypes, os, cudart_shim\n"
        "rt = cudart_shim.runtime()\n"
        "assert list(cudart_shim.runtimes()) == ['libcudart.so.13'], cudart_shim.runtimes()\n"
        "cudart_shim.enable_counters()\n"
        "cuda = ctypes.CDLL(rt.path, mode=os.RTLD_NOLOAD)\n"
        "n = ctypes.c_int()\n"
        "for _ in range(5): cuda.cudaGetDeviceCount(ctypes.byref(n))\n"
        "print(cudart_shim.counter('cudaGetDeviceCount')['calls'])\n"
        "cudart_shim.reset_counters()\n"
        "print(cudart_shim.counter('cudaGetDeviceCount')['calls'], cudart_shim.counters())\n"
        "print(rt.path)\n"
    )
    env = clean_env(CUDART_SHIM_DRIVER=str(fake_driver), LD_PRELOAD=str(site / "lib" / "libcudart_shim.so"))
    out = run([py(venv), "-c", code], env=env).stdout.splitlines()
    assert out == ["5", "0 []", str(site / "lib" / "libcudart_shim.so")], out
