"""The shim's own C API (``include/cudart_shim_ext.h``) through ctypes.

Which libraries: the cudart-shim runtimes already loaded in this process
(by ``cudart-shim trace``, ``LD_PRELOAD``, or as the program's
``libcudart.so.13``/``.12``). They are found by reading
``/proc/self/maps`` (every mapped file whose name has ``cudart``) and
taking a reference to each with ``dlopen(RTLD_NOLOAD)``, which never loads
anything: a runtime of ours that the process does not use would count
nothing, so this module never loads one itself. Each is told apart by the
version node of its exports (``libcudart.so.13`` or ``libcudart.so.12``),
as the loader does, not by its file name.

The ``cudartShim*`` calls are neither counted nor traced by the shim, so
reading counters from Python does not change them.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Dict, List, Optional

#: The two ABIs, by SONAME (and version node).
ABIS = ("libcudart.so.13", "libcudart.so.12")


class ShimNotLoaded(RuntimeError):
    """No cudart-shim runtime is loaded in this process."""


class ShimError(RuntimeError):
    """A ``cudartShim*`` call returned an error (``code`` is its cudaError_t)."""

    def __init__(self, function: str, code: int, message: Optional[str] = None) -> None:
        super().__init__(message or f"{function} returned cudaError_t {code}")
        self.function = function
        self.code = code


class _Counter(ctypes.Structure):
    # struct cudartShimCounter
    _fields_ = [
        ("function_id", ctypes.c_uint32),
        ("function_name", ctypes.c_char_p),
        ("calls", ctypes.c_uint64),
        ("failed_calls", ctypes.c_uint64),
        ("total_ns", ctypes.c_uint64),
        ("min_ns", ctypes.c_uint64),
        ("max_ns", ctypes.c_uint64),
    ]


class _PoolStats(ctypes.Structure):
    # struct cudartShimPoolStats
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in (
            "held_blocks",
            "held_bytes",
            "active_blocks",
            "active_bytes",
            "cached_blocks",
            "cached_bytes",
            "peak_held_bytes",
            "hits",
            "misses",
            "synchronizes",
            "released_blocks",
        )
    ]


def _declare(lib: ctypes.CDLL) -> None:
    c = ctypes
    sigs = {
        "cudartShimEnableCounters": ([c.c_int], c.c_int),
        "cudartShimGetCounters": ([c.POINTER(_Counter), c.c_size_t, c.POINTER(c.c_size_t)], c.c_int),
        "cudartShimGetCounter": ([c.c_char_p, c.POINTER(_Counter)], c.c_int),
        "cudartShimResetCounters": ([], c.c_int),
        "cudartShimFlush": ([], c.c_int),
        "cudartShimGetFunctionName": ([c.c_uint32], c.c_char_p),
        "cudartShimGetPoolStats": ([c.c_int, c.c_int, c.POINTER(_PoolStats)], c.c_int),
    }
    for name, (args, res) in sigs.items():
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = res


class CallStruct(ctypes.Structure):
    """``struct cudartShimCall``: one call as a hook handler sees it."""

    _fields_ = [
        ("function_id", ctypes.c_uint32),
        ("layer", ctypes.c_uint32),
        ("depth", ctypes.c_uint32),
        ("thread_id", ctypes.c_int),
        ("function_name", ctypes.c_char_p),
        ("params", ctypes.c_void_p),
        ("result", ctypes.c_int),
    ]


#: ``cudartShimHookFn``: ``int handler(void *userdata, cudartShimCall *call)``.
HookFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(CallStruct))


def _declare_hooks(lib: ctypes.CDLL) -> bool:
    """Declare the hook API (``cudartShimHookRegister`` and
    ``...Unregister``); False when this runtime predates it."""
    c = ctypes
    try:
        reg = lib.cudartShimHookRegister
        unreg = lib.cudartShimHookUnregister
    except AttributeError:
        return False
    reg.argtypes = [c.c_char_p, c.c_int, HookFn, c.c_void_p, c.POINTER(c.c_uint64)]
    reg.restype = c.c_int
    unreg.argtypes = [c.c_uint64]
    unreg.restype = c.c_int
    return True


def _check(function: str, code: int) -> None:
    if code != 0:
        raise ShimError(function, code)


class Runtime:
    """One cudart-shim runtime loaded in this process.

    ``soname`` is the ABI it serves (``libcudart.so.13`` or
    ``libcudart.so.12``), ``path`` the file it was loaded from.
    """

    def __init__(self, soname: str, path: str, lib: ctypes.CDLL) -> None:
        self.soname = soname
        self.path = path
        self._lib = lib
        _declare(lib)
        self._has_hooks = _declare_hooks(lib)

    def __repr__(self) -> str:
        return f"Runtime({self.soname!r}, {self.path!r})"

    def counters(self) -> List[Dict[str, object]]:
        """Counters of every function this runtime has seen called since the
        last reset, one dict per function: ``name``, ``function_id``,
        ``calls``, ``failed_calls``, ``total_ns``, ``min_ns``, ``max_ns``,
        ``runtime`` (this runtime's SONAME).

        Counting is on under ``cudart-shim trace`` (any output) and
        ``CUDART_SHIM_TRACE``; otherwise call :meth:`enable_counters` first.
        """
        n = ctypes.c_size_t(0)
        _check("cudartShimGetCounters", self._lib.cudartShimGetCounters(None, 0, ctypes.byref(n)))
        while True:
            # Room for functions first called between the two calls.
            cap = n.value + 16
            buf = (_Counter * cap)()
            _check("cudartShimGetCounters", self._lib.cudartShimGetCounters(buf, cap, ctypes.byref(n)))
            if n.value <= cap:
                return [self._dict(buf[i]) for i in range(n.value)]

    def counter(self, name: str) -> Dict[str, object]:
        """The counters of one function by name (zeros when never called)."""
        c = _Counter()
        _check("cudartShimGetCounter", self._lib.cudartShimGetCounter(name.encode(), ctypes.byref(c)))
        d = self._dict(c)
        d["name"] = name
        return d

    def _dict(self, c: _Counter) -> Dict[str, object]:
        return {
            "name": c.function_name.decode() if c.function_name else None,
            "function_id": c.function_id,
            "calls": c.calls,
            "failed_calls": c.failed_calls,
            "total_ns": c.total_ns,
            "min_ns": c.min_ns,
            "max_ns": c.max_ns,
            "runtime": self.soname,
        }

    def enable_counters(self, on: bool = True) -> None:
        """Count calls even when no trace output is on."""
        _check("cudartShimEnableCounters", self._lib.cudartShimEnableCounters(1 if on else 0))

    def reset_counters(self) -> None:
        """Start every counter (and the summary) from zero."""
        _check("cudartShimResetCounters", self._lib.cudartShimResetCounters())

    def flush(self) -> None:
        """Write the summary and every pending timeline event now."""
        _check("cudartShimFlush", self._lib.cudartShimFlush())

    def function_name(self, function_id: int) -> Optional[str]:
        """The name of a function id (as in a counter's ``function_id``)."""
        p = self._lib.cudartShimGetFunctionName(function_id)
        return p.decode() if p else None

    def pool_stats(self, device: int = 0, host: bool = False) -> Dict[str, int]:
        """The caching allocator's statistics (``CUDART_SHIM_POOL=1``) of
        ``device``'s device memory, or of pinned host memory with ``host``.
        All zero when the allocator is off or unused."""
        s = _PoolStats()
        _check("cudartShimGetPoolStats", self._lib.cudartShimGetPoolStats(device, 1 if host else 0, ctypes.byref(s)))
        return {f[0]: getattr(s, f[0]) for f in _PoolStats._fields_}


    def hook_register(self, functions: str, phase: int, handler: Any) -> int:  # a HookFn (CFUNCTYPE) object
        """``cudartShimHookRegister`` (no user data): the registration's
        handle. The caller keeps ``handler`` alive until it is
        unregistered. :class:`ShimError` when the runtime refuses (its log
        line says why); see :func:`cudart_shim.hook` for the Python form."""
        if not self._has_hooks:
            raise ShimError(
                "cudartShimHookRegister",
                801,  # cudaErrorNotSupported
                f"the cudart-shim runtime {self.path} has no hook API (a build older than hooks): use this package's runtime",
            )
        h = ctypes.c_uint64(0)
        _check("cudartShimHookRegister", self._lib.cudartShimHookRegister(functions.encode(), phase, handler, None, ctypes.byref(h)))
        return h.value

    def hook_unregister(self, handle: int) -> None:
        """``cudartShimHookUnregister``: once it returns (called outside a
        handler), the handler is not running on any thread and will not run
        again. ctypes releases the GIL around the call, so a Python handler
        running on another thread can finish meanwhile."""
        _check("cudartShimHookUnregister", self._lib.cudartShimHookUnregister(handle))


def _mapped_files() -> List[str]:
    """Files mapped in this process whose name has ``cudart``, in order."""
    seen: List[str] = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6:
                    path = parts[5].strip()
                    if path.startswith("/") and "cudart" in os.path.basename(path) and path not in seen:
                        seen.append(path)
    except OSError:
        pass
    return seen


def _abi_of(lib: ctypes.CDLL) -> Optional[str]:
    """The version node of ``lib``'s ``cudartShimFlush``: which runtime it is
    (None: not one of ours)."""
    try:
        dlvsym = ctypes.CDLL(None).dlvsym
    except AttributeError:  # glibc < 2.34 keeps it in libdl
        dlvsym = ctypes.CDLL("libdl.so.2").dlvsym
    dlvsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
    dlvsym.restype = ctypes.c_void_p
    for abi in ABIS:
        if dlvsym(lib._handle, b"cudartShimFlush", abi.encode()):
            return abi
    return None


_cache: Dict[str, Runtime] = {}


def runtimes() -> Dict[str, Runtime]:
    """The cudart-shim runtimes loaded in this process, by SONAME (empty
    when none is: see :func:`runtime` for the error that says what to do).
    """
    found: Dict[str, Runtime] = {}
    for path in _mapped_files():
        if path in (r.path for r in found.values()):
            continue
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            continue  # mapped, but not a library the loader holds
        abi = _abi_of(lib)
        if abi is None or abi in found:
            continue
        cached = _cache.get(abi)
        found[abi] = cached if cached is not None and cached.path == path else Runtime(abi, path, lib)
        _cache[abi] = found[abi]
    return found


def _not_loaded_message() -> str:
    from . import _paths

    here = _paths.library_paths()
    lib = here.get("libcudart.so.13")
    hint = f"LD_PRELOAD={lib} python ..." if lib else "LD_PRELOAD=/path/to/libcudart_shim.so python ..."
    return (
        "cudart-shim is not loaded in this process: run it under `cudart-shim trace -- python ...` "
        f"(or `{hint}`); importing this module does not load it, since a runtime "
        "loaded after the program's own would count nothing"
    )


def runtime(soname: Optional[str] = None) -> Runtime:
    """One loaded runtime: ``soname`` (``"libcudart.so.13"`` or
    ``"libcudart.so.12"``), or by default the 13 one, else the 12 one.

    Raises :class:`ShimNotLoaded` (saying how to load it) when there is none.
    """
    if soname is not None and soname not in ABIS:
        raise ValueError(f"soname must be one of {ABIS}, not {soname!r}")
    found = runtimes()
    for abi in (soname,) if soname else ABIS:
        if abi in found:
            return found[abi]
    if found:
        raise ShimNotLoaded(f"no cudart-shim {soname} runtime in this process (loaded: {', '.join(found)})")
    raise ShimNotLoaded(_not_loaded_message())
