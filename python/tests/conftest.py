"""Shared equipment of the wheel's tests.

They test the *installed* wheel: every check runs the fresh virtual
environment's own ``python`` and ``cudart-shim`` (``CUDART_SHIM_WHEEL_VENV``,
made by scripts/test-wheel with only the wheel installed, ``--no-index``),
never this checkout's sources. The fake driver (``CUDART_SHIM_TEST_FAKE_DRIVER``,
test equipment from tests/fake-driver) stands in for the GPU. A missing
variable fails the test: nothing here is skipped.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

import pytest


def _required(name: str) -> str:
    v = os.environ.get(name)
    if not v:
        pytest.fail(f"{name} is not set: run these tests through scripts/test-wheel")
    return v


@pytest.fixture(scope="session")
def venv() -> Path:
    return Path(_required("CUDART_SHIM_WHEEL_VENV"))


@pytest.fixture(scope="session")
def fake_driver() -> Path:
    p = Path(_required("CUDART_SHIM_TEST_FAKE_DRIVER"))
    assert p.is_file(), p
    return p


@pytest.fixture(scope="session")
def repo() -> Path:
    return Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def site(venv: Path) -> Path:
    """The installed package's folder."""
    out = run([str(venv / "bin" / "python"), "-c", "import cudart_shim, os; print(os.path.dirname(cudart_shim.__file__))"])
    return Path(out.stdout.strip())


def clean_env(**extra: str) -> Dict[str, str]:
    """This environment less every CUDART_SHIM_* and LD_* variable (the
    test's own choices only), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUDART_SHIM_", "LD_"))}
    env.update(extra)
    return env


def run(argv: List[str], env: Optional[Dict[str, str]] = None, check: bool = True, cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    p = subprocess.run(argv, env=env if env is not None else clean_env(), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"{argv} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def summary_rows(text: str) -> Dict[str, int]:
    """Name -> Num Calls of every row of the (first) CUDA API summary
    table in ``text`` (``cudart-shim trace``'s stderr)."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if "CUDA API Summary" in l)
    rows: Dict[str, int] = {}
    dashes = False
    for l in lines[start + 1:]:
        if not dashes:
            dashes = l.strip().startswith("---")
            continue
        if not l.strip():
            break
        f = l.split(None, 8)
        rows[f[8].strip()] = int(f[2].replace(",", ""))
    return rows
