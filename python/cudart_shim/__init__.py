"""cudart_shim: read cudart-shim's counters, and hook CUDA calls, from inside
a process running on it.

cudart-shim is an open CUDA runtime (``libcudart.so.13`` and ``.12``) that
counts, times and traces every call. This module is pure Python over the
shim's own C API (``include/cudart_shim_ext.h``) with ctypes. It reads the
runtime *already loaded* in this process: run the program under the
command, or preload the library::

    cudart-shim trace -- python train.py          # or: python -m cudart_shim trace -- ...
    LD_PRELOAD=$(python -c 'import cudart_shim; print(cudart_shim.library_paths()["libcudart.so.13"])') python train.py

Then, inside the program::

    import torch, cudart_shim
    x = torch.ones(1 << 20, device="cuda"); torch.cuda.synchronize()
    for c in cudart_shim.counters():
        print(c["name"], c["calls"], c["total_ns"])
    cudart_shim.flush()          # write the summary / timeline now

Every function raises :class:`ShimNotLoaded` (saying how to load it) when no
cudart-shim runtime is in the process. Counting is on under ``trace``; with
a plain ``LD_PRELOAD`` call :func:`enable_counters` first.

Hooks and faults (:func:`hook`, :func:`fail`) act on calls from Python::

    import cudart_shim
    with cudart_shim.fail("cudaMalloc", "cudaErrorMemoryAllocation", nth=3):
        ...                        # the 3rd cudaMalloc from here on fails (once:
                                   # PyTorch's allocator retries; see docs/WHEEL.md)

    @cudart_shim.hook("cudaMalloc", "before")
    def pad(call):                 # call.params is cudaMalloc_params
        call.params.size += 4096

A handler runs inside the CUDA call and takes the GIL there (see
:func:`hook`). Faults configured without code (``CUDART_SHIM_FAULTS``,
``cudart-shim run --fault SPEC``) are read once, at the process's first
CUDA call: set them before the program starts, not from Python. Subscriber
callbacks (``cudartShimSubscribe``) are left out: hooks do the same job on
the functions you name, where a subscriber would run Python on every CUDA
call of every thread.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from ._hooks import PHASES, Call, Fault, Handler, Hook, error_code, fail, function_ids, functions, hook, hooks, layer_of
from ._native import ABIS, Runtime, ShimError, ShimNotLoaded, runtime, runtimes
from ._paths import command, include_dir, library_dir, library_paths

__all__ = [
    "ABIS",
    "Call",
    "Fault",
    "Handler",
    "Hook",
    "PHASES",
    "error_code",
    "fail",
    "function_ids",
    "functions",
    "hook",
    "hooks",
    "layer_of",
    "Runtime",
    "ShimError",
    "ShimNotLoaded",
    "__version__",
    "command",
    "counter",
    "counters",
    "enable_counters",
    "flush",
    "function_name",
    "include_dir",
    "is_loaded",
    "library_dir",
    "library_paths",
    "pool_stats",
    "reset_counters",
    "runtime",
    "runtimes",
]


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # Python < 3.8
        return "unknown"
    try:
        return version("cudart-shim")
    except PackageNotFoundError:  # a source checkout, not installed
        return "unknown"


#: The wheel's version, which is also what ``cudart-shim --version`` prints.
__version__ = _version()


def is_loaded() -> bool:
    """Whether a cudart-shim runtime is loaded in this process."""
    return bool(runtimes())


def _all() -> List[Runtime]:
    found = runtimes()
    if not found:
        runtime()  # raises ShimNotLoaded with the message
    return list(found.values())


def counters() -> List[Dict[str, object]]:
    """Counters of every function called so far, one dict per function
    (``name``, ``function_id``, ``calls``, ``failed_calls``, ``total_ns``,
    ``min_ns``, ``max_ns``, ``runtime``), from every cudart-shim runtime in
    the process (``runtime`` says which: a process can hold both the 13
    and the 12 one, and ``trace`` preloads both into interpreters)."""
    return [c for r in _all() for c in r.counters()]


def counter(name: str, soname: Optional[str] = None) -> Dict[str, object]:
    """The counters of one function by name, from :func:`runtime` (zeros
    when never called)."""
    return runtime(soname).counter(name)


def flush() -> None:
    """Write the summary and the pending timeline events of every
    cudart-shim runtime in the process now."""
    for r in _all():
        r.flush()


def reset_counters() -> None:
    """Start every counter (and the summary) from zero, in every runtime."""
    for r in _all():
        r.reset_counters()


def enable_counters(on: bool = True) -> None:
    """Count calls even without a trace output (every runtime)."""
    for r in _all():
        r.enable_counters(on)


def function_name(function_id: int, soname: Optional[str] = None) -> Optional[str]:
    """The name of a counter's ``function_id`` (None when unknown)."""
    return runtime(soname).function_name(function_id)


def pool_stats(device: int = 0, host: bool = False, soname: Optional[str] = None) -> Dict[str, int]:
    """The caching allocator's statistics (``CUDART_SHIM_POOL=1``) of
    ``device``: device memory, or pinned host memory with ``host=True``.
    Keys: ``held_blocks``, ``held_bytes``, ``active_blocks``,
    ``active_bytes``, ``cached_blocks``, ``cached_bytes``,
    ``peak_held_bytes``, ``hits``, ``misses``, ``synchronizes``,
    ``released_blocks``. All zero when the allocator is off or unused."""
    return runtime(soname).pool_stats(device, host)
