"""The README's install block, run as written (issue #33): each install
line into an environment that already "has PyTorch" (a stand-in ``torch``
package: the point is that the wheel goes into *that* environment, where
the old ``python3 -m venv --system-site-packages`` recipe made a second
one that could not import a venv's torch), then ``cudart-shim doctor`` and
``cudart-shim trace -- python train.py`` from it, on the fake driver.
``pip``: a venv made by ``python3 -m venv`` (conda's environments take the
same line); ``uv``: a venv made by ``uv venv`` (no pip in it)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import List

from conftest import clean_env, run, summary_rows

TRAIN = """\
import ctypes, torch, cudart_shim
cuda = ctypes.CDLL("libcudart.so.13")  # the runtime trace preloaded, as torch's calls reach it
p = ctypes.c_void_p()
for _ in range(3):
    assert cuda.cudaMalloc(ctypes.byref(p), 1 << 20) == 0
    assert cuda.cudaFree(p) == 0
print("torch from", torch.__file__, "counted", cudart_shim.counter("cudaMalloc")["calls"], "cudaMalloc")
"""


def install_block(repo: Path) -> List[str]:
    lines = (repo / "README.md").read_text().splitlines()
    at = lines.index("## Install")
    start = next(i for i in range(at, len(lines)) if lines[i] == "```sh")
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "```")
    return lines[start + 1:end]


def test_the_readme_install_block_into_the_environment_that_has_pytorch(repo: Path, fake_driver: Path, tmp_path: Path) -> None:
    block = install_block(repo)
    assert len(block) == 4, block
    pip_line, uv_line, doctor, trace = block
    assert pip_line.startswith("python -m pip install ") and uv_line.startswith("uv pip install "), block
    wheel = Path(os.environ["CUDART_SHIM_WHEEL"])
    here = tmp_path / "download"
    here.mkdir()
    shutil.copy(wheel, here)
    (here / "train.py").write_text(TRAIN)
    tools = Path(sys.executable).parent  # the test tools' venv: uv is there
    assert (tools / "uv").is_file(), "uv is installed by scripts/test-wheel"
    for name, line in (("pip", pip_line), ("uv", uv_line)):
        env_dir = tmp_path / name
        if name == "pip":
            run(["python3", "-m", "venv", str(env_dir)])
        else:
            run([str(tools / "uv"), "venv", "--no-config", "-q", "--python", "python3", str(env_dir)], env=clean_env(UV_PYTHON_DOWNLOADS="never"))
            assert not (env_dir / "bin" / "pip").exists()
        # The environment's PyTorch (a stand-in package).
        site = Path(run([str(env_dir / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
        (site / "torch").mkdir()
        (site / "torch" / "__init__.py").write_text("")
        # The environment activated, as `source bin/activate` leaves it.
        env = {k: v for k, v in clean_env(CUDART_SHIM_DRIVER=str(fake_driver)).items() if k not in ("CONDA_PREFIX", "PYTHONHOME")}
        env.update(VIRTUAL_ENV=str(env_dir), PATH=f"{env_dir / 'bin'}:{os.environ['PATH']}:{tools}", UV_CACHE_DIR=str(tmp_path / "uv-cache"), UV_NO_CONFIG="1", UV_PYTHON_DOWNLOADS="never")
        run(["sh", "-c", line], env=env, cwd=here)
        out = run(["sh", "-c", doctor], env=env, cwd=here).stdout
        assert f"python:   {env_dir / 'bin' / 'python'} (Python " in out and "imports cudart_shim" in out and out.rstrip().endswith("ok"), (name, out)
        p = run(["sh", "-c", trace], env=env, cwd=here)
        assert f"torch from {site / 'torch' / '__init__.py'} counted 3 cudaMalloc" in p.stdout, (name, p.stdout, p.stderr)
        assert summary_rows(p.stderr).get("cudaMalloc") == 3, (name, p.stderr)
