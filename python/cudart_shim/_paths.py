"""Where the installed package keeps its files, and where the command is.

The wheel puts the runtimes and the driver interposer in ``lib/`` and the
headers in ``include/`` inside this package, and the ``cudart-shim``
command in the environment's scripts folder (``bin/`` of a virtual
environment). The command finds the libraries here by itself (see
docs/WHEEL.md for its search order); these functions are for programs that
want the paths (an ``LD_PRELOAD`` of their own, a compiler's ``-I``).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path
from typing import Dict, List, Optional

PACKAGE_DIR = Path(__file__).resolve().parent

#: File name of each runtime in the package, by the SONAME it serves.
LIBRARIES = {
    "libcudart.so.13": "libcudart_shim.so",
    "libcudart.so.12": "libcudart_shim12.so",
}
#: The driver interposer (``libcuda.so.1`` once linked by that name).
DRIVER_INTERPOSER = "libcudart_shim_driver.so"


def library_dir() -> Path:
    """The package's folder of libraries (``cudart_shim/lib``)."""
    return PACKAGE_DIR / "lib"


def include_dir() -> Path:
    """The package's folder of C headers (``cudart_shim.h``,
    ``cudart_shim_ext.h``)."""
    return PACKAGE_DIR / "include"


def library_paths() -> Dict[str, Path]:
    """The runtimes this package holds, by SONAME, and the driver
    interposer under ``"driver"``: only files that exist (a source checkout
    has none until the wheel is built)."""
    d = library_dir()
    found = {soname: d / name for soname, name in LIBRARIES.items() if (d / name).is_file()}
    if (d / DRIVER_INTERPOSER).is_file():
        found["driver"] = d / DRIVER_INTERPOSER
    return found


def _script_dirs() -> List[Path]:
    dirs = [Path(sysconfig.get_path("scripts"))]
    user = sysconfig.get_preferred_scheme("user") if hasattr(sysconfig, "get_preferred_scheme") else f"{os.name}_user"
    try:
        dirs.append(Path(sysconfig.get_path("scripts", scheme=user)))
    except KeyError:
        pass
    # `pip install --target DIR`: the package in DIR, the command in DIR/bin.
    dirs.append(PACKAGE_DIR.parent / "bin")
    # The interpreter's own folder (a virtual environment not activated).
    dirs.append(Path(sys.executable).parent)
    return dirs


def command() -> Optional[Path]:
    """The ``cudart-shim`` command installed with this package, or None."""
    for d in _script_dirs():
        exe = d / "cudart-shim"
        if exe.is_file() and os.access(exe, os.X_OK):
            return exe
    return None
