"""PEP 517 backend of the cudart-shim wheel: maturin, after one cargo build.

maturin builds and packs one crate, the `cudart-shim` command (cli/). The
wheel also carries the two runtimes (``libcudart_shim.so``, the CUPTI front ``libcudart_shim_cupti.so``,
``libcudart_shim12.so``), the driver interposer
(``libcudart_shim_driver.so``) and the headers, which other crates of the
workspace build. So before handing over to maturin this wrapper:

1. runs ``cargo build`` of the workspace's default members (the runtimes,
   the command and the interposer: one build, so the command's and the
   libraries' shared dependencies are compiled once) in the profile maturin
   will use (``release``, or the ``--profile`` of ``MATURIN_PEP517_ARGS``:
   CI passes ``--profile dev`` to reuse its test build);
3. passes pyproject.toml's ``compatibility`` (the manylinux tag) to
   maturin, whose PEP 517 entry would otherwise tag the wheel plain
   ``linux``;
2. copies the libraries into ``python/cudart_shim/lib/`` and the
   headers into ``python/cudart_shim/include/`` (git-ignored build outputs,
   named in pyproject.toml's ``include``), each library without its debug
   information: that goes to ``NAME.debug`` beside the build's libraries
   (``target/<profile>/wheel-debug/``, shipped apart), and the wheel's copy
   names it in a ``.gnu_debuglink`` section, so gdb and Rust backtraces find
   it when it is put beside the library (issue #33: the release wheel was
   25.7 MB, its runtimes 57.8 and 53.8 MB installed, mostly line tables).

No links: a wheel cannot hold symbolic links, and the command makes the
names the loader needs (``driver/libcuda.so.1``) in a private folder at run
time (cli/src/library.rs). Everything else is maturin's own backend.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import maturin
from maturin import (  # noqa: F401  (re-exported: the rest of the PEP 517 interface)
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)

try:  # PEP 660 hooks, present in every maturin this project allows
    from maturin import get_requires_for_build_editable, prepare_metadata_for_build_editable  # noqa: F401
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "cudart_shim"
LIBRARIES = ("libcudart_shim.so", "libcudart_shim12.so", "libcudart_shim_driver.so", "libcudart_shim_cupti.so")


def _args(config_settings) -> list:
    """maturin's extra arguments (``MATURIN_PEP517_ARGS``, or the
    ``maturin.build-args`` config setting)."""
    return list(maturin.get_maturin_pep517_args(config_settings))


def _with_tag(config_settings):
    """The config settings for maturin, with pyproject.toml's
    ``compatibility`` as an argument: maturin's PEP 517 entry passes
    ``--compatibility off`` (a plain ``linux`` tag, which no index takes and
    auditwheel does not check) unless the arguments name one."""
    args = _args(config_settings)
    if "--compatibility" in args or "--manylinux" in args:
        return config_settings
    tag = maturin.get_config().get("compatibility")
    if not tag:
        return config_settings
    settings = dict(config_settings or {})
    settings["maturin.build-args"] = [*args, "--compatibility", tag]
    settings.pop("build-args", None)
    return settings


def _profile(config_settings) -> str:
    """The cargo profile maturin will build with: ``--profile NAME`` in
    its extra arguments, else release (maturin's PEP 517 default)."""
    args = _args(config_settings)
    for i, a in enumerate(args):
        if a == "--profile" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--profile="):
            return a.split("=", 1)[1]
    return "release"


def _target_dir() -> Path:
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE,
    ).stdout
    return Path(json.loads(out)["target_directory"])


def _stage(config_settings) -> None:
    profile = _profile(config_settings)
    print(f"cudart-shim wheel: cargo build --profile {profile} (runtimes, command, driver interposer)", file=sys.stderr)
    subprocess.run(["cargo", "build", "--profile", profile], cwd=ROOT, check=True)
    out = _target_dir() / ("debug" if profile in ("dev", "test") else "release" if profile == "bench" else profile)
    lib = PACKAGE / "lib"
    inc = PACKAGE / "include"
    for d in (lib, inc):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    for name in LIBRARIES:
        src = out / name
        if not src.is_file():
            raise RuntimeError(f"cudart-shim wheel: {src} was not built (cargo build --profile {profile} should have built it)")
        _strip_into(src, lib / name, out / "wheel-debug")
    for h in sorted((ROOT / "include").glob("*.h")):
        shutil.copy2(h, inc / h.name)


def _strip_into(src: Path, dst: Path, debug_dir: Path) -> None:
    """``dst``: ``src`` less its debug sections, linked by
    ``.gnu_debuglink`` to ``debug_dir/NAME.debug``, which holds them.
    objcopy (binutils, beside every C toolchain that links Rust) does both;
    its absence is an error, never an unstripped wheel."""
    objcopy = shutil.which("objcopy")
    if objcopy is None:
        raise RuntimeError("cudart-shim wheel: objcopy (binutils) is needed to split the libraries' debug information")
    debug_dir.mkdir(parents=True, exist_ok=True)
    debug = debug_dir / (src.name + ".debug")
    subprocess.run([objcopy, "--only-keep-debug", str(src), str(debug)], check=True)
    # --add-gnu-debuglink takes the file's base name (and a CRC of it):
    # readers look for that name beside the library, in its .debug/ folder
    # and under /usr/lib/debug.
    subprocess.run([objcopy, "--strip-debug", f"--add-gnu-debuglink={debug}", str(src), str(dst)], check=True)
    shutil.copystat(src, dst)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _stage(config_settings)
    return maturin.build_wheel(wheel_directory, _with_tag(config_settings), metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _stage(config_settings)
    return maturin.build_editable(wheel_directory, _with_tag(config_settings), metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    """No source distribution: maturin's would hold only the command's
    crate and its path dependencies, not the runtimes' and the
    interposer's, so a wheel built from it would fail far from the cause.
    Build the wheel from the repository instead."""
    raise RuntimeError(
        "cudart-shim has no source distribution (it would lack the runtime and interposer crates): "
        "build the wheel from the repository with `pip wheel .` (or `python -m build --wheel`)"
    )
