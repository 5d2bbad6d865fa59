"""``python -m cudart_shim ARGS...`` is ``cudart-shim ARGS...``: the same
command (the one installed with this package), run in this process's place
so that its exit status is the command's."""

from __future__ import annotations

import os
import sys

from ._paths import command


def main() -> None:
    exe = command()
    if exe is None:
        sys.stderr.write(
            "cudart_shim: the cudart-shim command is not installed with this package "
            "(install the cudart-shim wheel: pip install cudart-shim-*.whl)\n"
        )
        sys.exit(127)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(str(exe), [str(exe)] + sys.argv[1:])


if __name__ == "__main__":
    main()
