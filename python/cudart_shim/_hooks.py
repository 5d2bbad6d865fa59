"""Hooks and faults from Python, over the shim's hook API
(``cudartShimHookRegister`` in ``include/cudart_shim_ext.h``; docs/CONTROL.md).

Which runtimes: a hook is registered in *every* cudart-shim runtime loaded
in the process when :func:`hook` is called (``libcudart.so.13`` and
``.12``: ``cudart-shim trace`` preloads both into an interpreter). Each is a
separate copy of the shim with its own registry, and each call reaches
exactly one of them (a runtime call its own runtime's; a driver call, through
the interposer, the registry of the runtime whose call made it, else the one
the program uses), so every matching call reaches the handler once. A
runtime loaded after :func:`hook` returns does not get the hook.

The GIL: a Python handler runs inside the CUDA call, on the calling thread,
and takes the GIL there. ctypes releases the GIL around every call into the
shim, so :meth:`Hook.remove` (which waits for running handlers) does not
deadlock with a handler waiting for the GIL. A handler is Python code: it
costs microseconds per call, so hook the functions you need (``cudaMalloc``,
not ``*``).
"""

from __future__ import annotations

import _thread
import atexit
import ctypes
import re
import signal
import sys
import threading
import traceback
from types import CodeType, FrameType
from typing import Callable, Dict, List, Optional, Set, Tuple, Type, Union, overload

from . import _tables
from ._native import CallStruct, HookFn, Runtime, ShimError, runtime, runtimes
from .params import TYPED

#: Phase names, by the value ``cudartShimHookRegister`` takes.
PHASES = {"before": 0, "instead": 1, "after": 2}
_BEFORE, _INSTEAD, _AFTER = 0, 1, 2
#: ``CUDART_SHIM_HOOK_CONTINUE``: an ``instead`` handler lets the call run.
_CONTINUE = -1
_INT32 = (-(1 << 31), (1 << 31) - 1)

# How many of our handlers this thread is running (a hook removed from
# inside a handler keeps its callback alive: see Hook.remove).
_tls = threading.local()
_NAMES: Dict[int, str] = {}


class Call:
    """One CUDA call as a handler sees it. Valid only while the handler
    runs: it describes the call's own memory, and reading it afterwards
    raises ``RuntimeError``."""

    __slots__ = ("_c", "_phase")

    def __init__(self, c: CallStruct, phase: int) -> None:
        self._c: Optional[CallStruct] = c
        self._phase = phase

    def _struct(self) -> CallStruct:
        c = self._c
        if c is None:
            raise RuntimeError("a cudart_shim.Call is valid only while its handler runs")
        return c

    @property
    def function_id(self) -> int:
        """The function's id (``CUDART_SHIM_ID_<name>`` in
        ``cudart_shim_params.h``; one id space over runtime and driver
        names, the same for every process of one build)."""
        return self._struct().function_id

    @property
    def name(self) -> str:
        """The function's name (``cudaMalloc``, ``cuMemAlloc_v2``)."""
        c = self._struct()
        n = _NAMES.get(c.function_id)
        if n is None:
            raw = c.function_name
            n = raw.decode() if raw else "?"
            _NAMES[c.function_id] = n
        return n

    @property
    def layer(self) -> str:
        """``"runtime"`` or ``"driver"`` (a driver call, seen through the
        driver interposer)."""
        return "driver" if self._struct().layer == 1 else "runtime"

    @property
    def depth(self) -> int:
        """0 for the program's own call; 1 and more for a call made while
        another intercepted call of this thread runs (the driver calls our
        runtime makes, a stream callback's calls)."""
        return self._struct().depth

    @property
    def thread_id(self) -> int:
        """The calling thread's kernel thread id (``threading.get_native_id()``
        of that thread)."""
        return self._struct().thread_id

    @property
    def result(self) -> Optional[int]:
        """In an ``after`` handler: the call's result so far (a
        ``cudaError_t`` or ``CUresult``; an earlier ``after`` handler's
        answer when there is one). None in the other phases."""
        c = self._struct()
        return c.result if self._phase == _AFTER else None

    @property
    def params_address(self) -> Optional[int]:
        """The address of the call's parameter block (None for a function
        without parameters)."""
        return self._struct().params or None

    @property
    def params(self) -> Optional[Union[ctypes.Structure, ctypes.c_void_p]]:
        """The call's parameter block: for the functions in
        :data:`cudart_shim.params.TYPED` a ctypes structure laid over it
        (``call.params.size`` reads the argument; assigning it in a
        ``before`` handler changes what the call receives); for others the
        block's address as a ``c_void_p`` (see :meth:`params_as`); None for
        a function without parameters. Like the call, valid only while
        the handler runs."""
        c = self._struct()
        if not c.params:
            return None
        cls = TYPED.get(self.name)
        if cls is None:
            return ctypes.c_void_p(c.params)
        return cls.from_address(c.params)

    def params_as(self, struct: Type[ctypes.Structure]) -> ctypes.Structure:
        """The parameter block as ``struct``, a ctypes structure you declare
        after ``NAME_params`` in ``cudart_shim_params.h``."""
        addr = self._struct().params
        if not addr:
            raise ValueError(f"{self.name} has no parameters")
        return struct.from_address(addr)

    def __repr__(self) -> str:
        if self._c is None:
            return "<cudart_shim.Call (ended)>"
        phase = next(k for k, v in PHASES.items() if v == self._phase)
        res = f" result={self.result}" if self._phase == _AFTER else ""
        return f"<cudart_shim.Call {self.name} {phase} layer={self.layer} depth={self.depth} tid={self.thread_id}{res}>"


#: A handler: takes the :class:`Call`; returns None or an int (see :func:`hook`).
Handler = Callable[[Call], Optional[int]]

_LOCK = threading.Lock()
_LIVE: Dict[int, "Hook"] = {}
# Callbacks of hooks removed from inside a handler: another thread may
# still be running them, and the shim does not wait there. Kept for the
# life of the process (a few hundred bytes each).
_GRAVE: List[object] = []
_atexit_done = False


# ---------------------------------------------------------------------------
# Ctrl-C and hooks. Python raises KeyboardInterrupt in the main thread at the
# next check of its pending signals; when that thread is inside a hooked CUDA
# call, the next check may be the entry of a handler's ctypes callback, where
# nothing can catch it: ctypes would print it and hand the CUDA call an
# undefined result. So while hooks exist, SIGINT's Python handler is wrapped
# (the program's own handler still decides what a Ctrl-C does): a signal that
# would be raised inside the module's callback code is put off, and
# delivered again (a SIGINT to the main thread, 50 ms later: put off again
# while that thread is still in a callback), so that it is raised once the
# thread is back in the program's code. A KeyboardInterrupt raised by a handler's own
# code is put off the same way. The wrapper is installed from the main thread
# only (Python's rule for signal handlers) and removed with the last hook.

# Code objects in which a signal must not raise: the callbacks, and what
# their except clauses call.
_GUARDED: Set[CodeType] = set()
_sig_prev: object = None


def _interrupt_later() -> None:
    """Deliver SIGINT to the main thread again in 50 ms."""
    try:
        t = threading.Timer(0.05, _interrupt_main)
        t.daemon = True
        t.start()
    except BaseException:  # noqa: B902 - called from the callbacks' except clauses
        pass


def _interrupt_main() -> None:
    # A real signal to the main thread, so that a blocking call there (a
    # sleep, a wait) is interrupted as by a Ctrl-C; only while a Python
    # handler takes it (SIG_DFL would end the process): else simulate it.
    if callable(signal.getsignal(signal.SIGINT)):
        main = threading.main_thread().ident
        if main is not None:
            signal.pthread_kill(main, signal.SIGINT)
            return
    _thread.interrupt_main()


def _on_sigint(signum: int, frame: Optional[FrameType]) -> object:
    if frame is not None and frame.f_code in _GUARDED:
        _interrupt_later()
        return None
    prev = _sig_prev
    if callable(prev):
        return prev(signum, frame)
    raise KeyboardInterrupt


def _guard_sigint(on: bool) -> None:
    """Wrap (or unwrap) SIGINT's Python handler; main thread only, and only
    a Python handler (SIG_DFL, SIG_IGN: no KeyboardInterrupt to put off)."""
    global _sig_prev
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        cur = signal.getsignal(signal.SIGINT)
        if on and cur is not _on_sigint and callable(cur):
            _sig_prev = cur
            signal.signal(signal.SIGINT, _on_sigint)
        elif not on and cur is _on_sigint:
            signal.signal(signal.SIGINT, _sig_prev)  # type: ignore[arg-type]
    except (ValueError, OSError):
        pass  # no signals in this interpreter (a subinterpreter)


_GUARDED.update({_interrupt_later.__code__, _on_sigint.__code__})


class Hook:
    """A registered handler. :meth:`remove` unregisters it; it is also a
    context manager (removed on leaving the ``with`` block) and callable
    (it calls the handler, so a decorated function still works as one).

    Attributes: ``functions`` and ``phase`` as given, ``handler``,
    ``runtimes`` (the SONAMEs of the runtimes it is registered in),
    ``exceptions`` (how many times the handler raised or returned
    something other than None or an int; only the first is printed).
    """

    def __init__(self, functions: str, phase: str, handler: Handler, targets: List[Runtime]) -> None:
        self.functions = functions
        self.phase = phase
        self.handler = handler
        self.exceptions = 0
        self._phase = PHASES[phase]
        self._cfunc = HookFn(self._trampoline())
        self._handles: List[Tuple[Runtime, int]] = []
        try:
            for rt in targets:
                self._handles.append((rt, rt.hook_register(functions, self._phase, self._cfunc)))
        except ShimError as e:
            self.remove()
            if e.code == 1:  # cudaErrorInvalidValue: the list selects nothing (the shim logged why)
                raise ValueError(
                    f"cudart_shim.hook: {functions!r} selects no runtime or driver function "
                    "(comma-separated globs of names with * and ?, -glob to leave some out; "
                    "cudart_shim.functions(LIST) shows what a list selects)"
                ) from None
            raise
        self.runtimes = [rt.soname for rt, _ in self._handles]
        with _LOCK:
            _LIVE[id(self)] = self
        _guard_sigint(True)

    @property
    def active(self) -> bool:
        """Whether the handler is registered."""
        return bool(self._handles)

    def remove(self) -> None:
        """Unregister the handler from every runtime (again: nothing).
        When it returns, called outside a handler, the handler is not
        running on any thread and will not run again. Called from inside a
        handler, the shim does not wait (that thread could be the one
        waited for): the handler will not start again, but may still be
        finishing on another thread."""
        with _LOCK:
            handles, self._handles = self._handles, []
            _LIVE.pop(id(self), None)
            last = not _LIVE
        for rt, h in handles:
            try:
                rt.hook_unregister(h)
            except ShimError:
                pass  # already gone (a runtime that was reset)
        if handles and getattr(_tls, "depth", 0) > 0:
            _GRAVE.append(self._cfunc)
        if handles and last:
            _guard_sigint(False)

    def __enter__(self) -> "Hook":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def __call__(self, call: Call) -> Optional[int]:
        return self.handler(call)

    def __repr__(self) -> str:
        state = f"in {', '.join(self.runtimes)}" if self._handles else "removed"
        return f"<cudart_shim.Hook {self.phase} {self.functions!r} {state}>"

    def _trampoline(self) -> Callable[[Optional[int], "ctypes._Pointer[CallStruct]"], int]:
        phase = self._phase
        handler = self.handler

        def run(_userdata: Optional[int], callp: "ctypes._Pointer[CallStruct]") -> int:
            # Nothing may escape to C: ctypes would print it and return an
            # undefined result. A signal cannot raise in this frame (see
            # _on_sigint); an exception from anything it calls is caught.
            c = callp.contents
            keep = c.result if phase == _AFTER else _CONTINUE if phase == _INSTEAD else 0
            try:
                call = Call(c, phase)
                _tls.depth = getattr(_tls, "depth", 0) + 1
                try:
                    r = handler(call)
                finally:
                    _tls.depth -= 1
                    call._c = None
                if phase == _BEFORE or r is None:
                    return keep
                if isinstance(r, int) and not isinstance(r, bool) and _INT32[0] <= r <= _INT32[1]:
                    return int(r)
                self._report(f"returned {r!r}, which is neither None nor a result code (an int)", c, None)
            except KeyboardInterrupt:
                _interrupt_later()
            except BaseException as e:  # noqa: B902 - nothing may cross into C
                self._report("raised", c, e)
            return keep

        _GUARDED.add(run.__code__)
        return run

    def _report(self, what: str, c: Optional[CallStruct], e: Optional[BaseException]) -> None:
        self.exceptions += 1
        if self.exceptions > 1:
            return
        try:
            where = f" in a {c.function_name.decode()} call" if c is not None and c.function_name else ""
            name = getattr(self.handler, "__qualname__", repr(self.handler))
            then = {_BEFORE: "the call went on", _INSTEAD: "the call ran", _AFTER: "the call's result was kept"}[self._phase]
            msg = (
                f"[cudart-shim] warning: {self.phase} hook {name} on {self.functions!r} {what}{where}; "
                f"{then}, as if the handler had returned None (reported once per hook; Hook.exceptions counts them)\n"
            )
            if e is not None:
                msg += "".join(traceback.format_exception(type(e), e, e.__traceback__))
            if sys.stderr is not None:
                sys.stderr.write(msg)
                sys.stderr.flush()
        except BaseException:  # noqa: B902 - reporting must not fail the call either
            pass


_GUARDED.add(Hook._report.__code__)


def _remove_all() -> None:
    """At interpreter exit (atexit): unregister every hook, so no CUDA call
    made while the interpreter finalizes (PyTorch frees its memory then)
    runs Python code."""
    with _LOCK:
        live = list(_LIVE.values())
    for h in live:
        try:
            h.remove()
        except BaseException:  # noqa: B902 - the process is exiting
            pass


def _at_exit() -> None:
    global _atexit_done
    with _LOCK:
        if not _atexit_done:
            atexit.register(_remove_all)
            _atexit_done = True


def _targets(soname: Optional[str]) -> List[Runtime]:
    if soname is not None:
        return [runtime(soname)]
    found = runtimes()
    if not found:
        runtime()  # raises ShimNotLoaded, saying how to load the shim
    return list(found.values())


@overload
def hook(functions: str, phase: str, handler: Handler, *, soname: Optional[str] = None) -> Hook: ...


@overload
def hook(functions: str, phase: str, handler: None = None, *, soname: Optional[str] = None) -> Callable[[Handler], Hook]: ...


def hook(
    functions: str, phase: str, handler: Optional[Handler] = None, *, soname: Optional[str] = None
) -> Union[Hook, Callable[[Handler], Hook]]:
    """Call ``handler(call)`` in ``phase`` of every call of ``functions``.

    ``functions``: comma-separated globs (``*``, ``?``) over runtime
    (``cuda*``) and driver (``cu*``) names, ``-glob`` to leave some out (the
    last glob that matches decides): ``"cudaMalloc"``,
    ``"cudaMemcpy*,-cudaMemcpyToSymbol*"``, ``"cuMemAlloc*"``. Driver calls
    reach hooks through the driver interposer (``cudart-shim trace`` or
    ``run``).

    ``phase`` and what the handler's return value means:

    - ``"before"``: runs before the call (and before injected faults); may
      change the arguments through ``call.params``; returns nothing.
    - ``"instead"``: None lets the call run (or the next ``instead``
      handler answer); an int is the result the caller sees, and the real
      call does not run (the runtime sets the thread's last error, as for
      a real failure). ``-1`` is ``CUDART_SHIM_HOOK_CONTINUE``: the same as None.
    - ``"after"``: ``call.result`` holds the result; None keeps it, an int
      replaces it.

    The handler gets a :class:`Call`: ``name``, ``function_id``,
    ``layer``, ``depth``, ``thread_id``, ``result`` (after), ``params``.
    Handlers of one phase run in the order they were registered. CUDA calls
    the handler makes (through PyTorch, say) are answered but not delivered
    to hooks. An exception in the handler never reaches the CUDA caller:
    the first one is printed on stderr, and the call goes on as if the
    handler had returned None (``Hook.exceptions`` counts them). While
    hooks exist, SIGINT's Python handler is wrapped so that a Ctrl-C is
    never raised inside the module's callback (it is delivered again once
    the main thread is back in the program's code; docs/WHEEL.md).

    Returns a :class:`Hook` (``remove()``, a context manager). Without
    ``handler`` it returns a decorator::

        @cudart_shim.hook("cudaMalloc", "before")
        def bigger(call):
            call.params.size += 1 << 20

    The hook is registered in every cudart-shim runtime loaded now (or only
    ``soname``'s), and removed at interpreter exit if still there. Raises
    :class:`ShimNotLoaded` without a cudart-shim runtime, ``ValueError``
    for a bad phase or a list that selects nothing.
    """
    if phase not in PHASES:
        raise ValueError(f"cudart_shim.hook: phase must be one of {', '.join(map(repr, PHASES))}, not {phase!r}")
    if not isinstance(functions, str):
        raise TypeError(f"cudart_shim.hook: functions must be a str of globs, not {type(functions).__name__}")
    if handler is None:

        def decorate(f: Handler) -> Hook:
            return hook(functions, phase, f, soname=soname)

        return decorate
    if not callable(handler):
        raise TypeError(f"cudart_shim.hook: handler must be callable, not {handler!r}")
    targets = _targets(soname)
    _at_exit()
    return Hook(functions, phase, handler, targets)


def hooks() -> List[Hook]:
    """The hooks registered from Python and not removed, in order."""
    with _LOCK:
        return list(_LIVE.values())


# ---------------------------------------------------------------------------
# Which functions a glob list selects (the rule of cudartShimHookRegister,
# for messages and for fail()'s layer check).

_GLOB = re.compile(r"[A-Za-z0-9_*?]+\Z")


def _glob_regex(pattern: str) -> "re.Pattern[str]":
    return re.compile("".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern) + r"\Z", re.S)


def _selected(globs: str) -> List[str]:
    """:func:`functions` (``hook`` and ``fail`` take a parameter of that name)."""
    items: List[Tuple[bool, "re.Pattern[str]"]] = []
    for g in (g.strip() for g in globs.split(",")):
        if not g:
            continue
        inc, pat = (False, g[1:]) if g.startswith("-") else (True, g[1:] if g.startswith("+") else g)
        if not _GLOB.match(pat):
            raise ValueError(f"{g!r} is not a glob of function names (letters, digits, _, *, ?; - to exclude)")
        items.append((inc, _glob_regex(pat)))
    if not items:
        return []
    default = not any(inc for inc, _ in items)
    out = []
    for name in function_ids():
        decided = default
        for inc, rx in items:
            if rx.match(name):
                decided = inc
        if decided:
            out.append(name)
    return out


_IDS: Dict[str, int] = {n: i for i, n in enumerate(_tables.RUNTIME_NAMES)}
_IDS.update((n, _tables.DRIVER_BASE + i) for i, n in enumerate(_tables.DRIVER_NAMES))
_DRIVER_BASE: int = _tables.DRIVER_BASE


def function_ids() -> Dict[str, int]:
    """Every function a hook can name, runtime and driver, with its id
    (``Call.function_id``; ``CUDART_SHIM_ID_<name>`` of the package's
    ``cudart_shim_params.h``: both come from the shim's own lists), in id
    order. Not the id space of :func:`counters`' ``function_id``, which
    numbers functions as the trace first sees them."""
    return _IDS


def functions(globs: str) -> List[str]:
    """The runtime and driver function names a glob list selects, as
    :func:`hook` reads it (comma-separated, ``*`` and ``?``, ``-glob``
    leaves some out, the last glob that matches decides), in function-id
    order. ``ValueError`` for an item that is not a glob of names."""
    return _selected(globs)


def layer_of(name: str) -> str:
    """``"runtime"`` or ``"driver"``: the layer of a function name (by its
    id: driver ids start at ``CUDART_SHIM_DRIVER_BASE``). ``KeyError`` for a
    name no hook can name."""
    fid = function_ids()[name]
    return "driver" if _DRIVER_BASE is not None and fid >= _DRIVER_BASE else "runtime"


# ---------------------------------------------------------------------------
# Faults over hooks.

# Error names, from the module's own generated tables (_tables.py, made by
# scripts/gen-params.py from the libraries' tables; tests/params.rs checks
# they are current): no header is needed at run time (issue #33).
_DRIVER_ERRORS: Dict[str, int] = dict(_tables.DRIVER_ERRORS)


def _runtime_errors() -> Dict[str, int]:
    """Every ``cudaError_t`` name (the runtime's own error table)."""
    return _tables.RUNTIME_ERRORS


def error_code(error: Union[str, int]) -> Tuple[int, Optional[str]]:
    """An error by name: its number and its layer (``"runtime"`` for a
    ``cudaError*`` name, ``"driver"`` for a ``CUDA_ERROR_*`` one, None for a
    number given as is). Every ``cudaError_t`` and every ``CUresult`` name
    (the module's own tables). ``ValueError`` for an unknown name or 0."""
    if isinstance(error, int) and not isinstance(error, bool):
        code, layer = int(error), None
    elif isinstance(error, str):
        if error in _DRIVER_ERRORS:
            code, layer = _DRIVER_ERRORS[error], "driver"
        elif error in _runtime_errors():
            code, layer = _runtime_errors()[error], "runtime"
        else:
            raise ValueError(f"{error!r} names no error this module knows (every cudaError* and CUDA_ERROR_* name of CUDA 13.5); pass the number instead")
    else:
        raise TypeError(f"error must be a name or an int, not {error!r}")
    if code <= 0 or code > _INT32[1]:
        raise ValueError(f"{error!r} is not an error (0 is success, -1 means continue)")
    return code, layer


class _Failer:
    """An ``instead`` handler that fails selected calls: the rule of
    ``CUDART_SHIM_FAULTS``'s ``nth``, ``every`` and ``count``."""

    def __init__(self, code: int, nth: Optional[int], every: Optional[int], count: Optional[int]) -> None:
        self.code, self.nth, self.every, self.count = code, nth, every, count
        self.seen = 0
        self.fired = 0
        self._lock = threading.Lock()

    def __call__(self, call: Call) -> Optional[int]:
        with self._lock:
            self.seen += 1
            n = self.seen
            if (self.nth is not None and n != self.nth) or (self.every is not None and n % self.every):
                return None
            if self.count is not None and self.fired >= self.count:
                return None
            self.fired += 1
        return self.code


class Fault(Hook):
    """A :class:`Hook` made by :func:`fail`: ``seen`` (matching calls so
    far), ``fired`` (calls it failed)."""

    handler: _Failer

    @property
    def seen(self) -> int:
        return self.handler.seen

    @property
    def fired(self) -> int:
        return self.handler.fired


def _count(key: str, v: Optional[int]) -> Optional[int]:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"cudart_shim.fail: {key} needs a whole number of 1 or more, not {v!r}")
    return v


def fail(
    functions: str,
    error: Union[str, int],
    nth: Optional[int] = None,
    every: Optional[int] = None,
    count: Optional[int] = None,
    *,
    soname: Optional[str] = None,
) -> Fault:
    """Fail calls of ``functions`` with ``error``, from now on: an
    ``instead`` hook with a counter (the real call does not run; the
    caller sees ``error``, and the runtime's last error is set).

    ``functions``: a glob list as for :func:`hook`; ``error``: a
    ``cudaError*`` name for runtime functions, ``CUDA_ERROR_*`` for driver
    functions (a list that selects functions of the other layer is refused),
    or a number. Which calls, counting the matching calls from this call
    on (as ``CUDART_SHIM_FAULTS`` counts them: at every depth, so a driver
    call our runtime makes counts too): ``nth=N`` the N-th, once;
    ``every=N`` every N-th; ``count=K`` at most K failures; none: every
    call. Several must all hold.

    ``fail("cudaMalloc", "cudaErrorMemoryAllocation", nth=3)`` is
    ``--fault cudaMalloc:nth=3:error=cudaErrorMemoryAllocation`` started
    from Python: ``CUDART_SHIM_FAULTS`` is read once, at the process's first
    CUDA call, so setting it from Python later does nothing. The shim's own
    faults (the variable, ``cudart-shim run --fault``) also offer
    ``after=``, ``p=``/``seed=``, ``device=``, ``sticky`` and ``delay=``, and
    mark the failures in the trace as injected; a call failed here is a
    plain failed call in the summary. Returns a :class:`Fault`
    (``remove()``, a context manager, ``seen``, ``fired``)."""
    code, layer = error_code(error)
    nth, every, count = _count("nth", nth), _count("every", every), _count("count", count)
    selected = _selected(functions)
    if not selected:
        raise ValueError(f"cudart_shim.fail: {functions!r} selects no runtime or driver function")
    if layer is not None:
        other = [n for n in selected if layer_of(n) != layer]
        if other:
            raise ValueError(
                f"cudart_shim.fail: {error!r} is a {layer} error, but {functions!r} also selects "
                f"{layer_of(other[0])} functions ({other[0]}...): use a list of {layer} functions only"
            )
    targets = _targets(soname)
    _at_exit()
    return Fault(functions, "instead", _Failer(code, nth, every, count), targets)
