"""Hooks and faults from Python (cudart_shim.hook, cudart_shim.fail), run
inside processes of the wheel's virtual environment on the fake driver:
under a plain LD_PRELOAD of the wheel's runtime (the program calls the
runtime through ctypes), and under `cudart-shim trace` (both runtimes
preloaded, driver calls through the interposer)."""

from __future__ import annotations

import json
import re
import subprocess
import textwrap
from pathlib import Path
from typing import Dict, List

from conftest import clean_env, run, summary_rows

# Every program starts with this: the runtime the process was given, and
# cudaMalloc through it.
PRELUDE = """\
import ctypes, json, os, sys, threading, time
import cudart_shim
rt = cudart_shim.runtime()
cuda = ctypes.CDLL(rt.path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
def malloc(n):
    p = ctypes.c_void_p()
    r = cuda.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(n))
    return r, p.value
def emit(**kw):
    print("RESULT " + json.dumps(kw), flush=True)
"""


def py(venv: Path) -> str:
    return str(venv / "bin" / "python")


def preload_env(site: Path, fake_driver: Path, **extra: str) -> Dict[str, str]:
    return clean_env(CUDART_SHIM_DRIVER=str(fake_driver), LD_PRELOAD=str(site / "lib" / "libcudart_shim.so"), **extra)


def program(venv: Path, code: str, env: Dict[str, str], check: bool = True) -> subprocess.CompletedProcess:
    return run([py(venv), "-c", PRELUDE + textwrap.dedent(code)], env=env, check=check)


def results(out: str) -> List[dict]:
    return [json.loads(l[len("RESULT "):]) for l in out.splitlines() if l.startswith("RESULT ")]


def test_before_hook_changes_the_size_cudaMalloc_gets(venv: Path, site: Path, fake_driver: Path) -> None:
    code = """
    seen = []
    @cudart_shim.hook("cudaMalloc", "before")
    def grow(call):
        seen.append(dict(name=call.name, id=call.function_id, layer=call.layer, depth=call.depth,
                         tid=call.thread_id, result=call.result, size=call.params.size,
                         typed=type(call.params).__name__))
        call.params.size = 3 << 20
    got = {}
    def after(call):
        got.update(size=call.params.size, result=call.result, ptr=call.params.devPtr[0])
    with cudart_shim.hook("cudaMalloc", "after", after):
        r, ptr = malloc(1 << 20)
    emit(r=r, ptr=ptr, seen=seen, got=got, pool=cudart_shim.pool_stats(0), me=threading.get_native_id(),
         id=cudart_shim.function_ids()["cudaMalloc"], runtimes=grow.runtimes, live=len(cudart_shim.hooks()))
    """
    out = program(venv, code, preload_env(site, fake_driver, CUDART_SHIM_POOL="1"))
    (res,) = results(out.stdout)
    assert res["r"] == 0 and res["ptr"], res
    (s,) = res["seen"]
    assert s == dict(name="cudaMalloc", id=res["id"], layer="runtime", depth=0, tid=res["me"], result=None, size=1 << 20, typed="cudaMalloc_params"), s
    # The after hook saw the changed argument, the result and the new pointer.
    assert res["got"] == dict(size=3 << 20, result=0, ptr=res["ptr"]), res["got"]
    # The allocator got 3 MiB, not the 1 MiB the program asked for.
    assert res["pool"]["active_bytes"] == 3 << 20 and res["pool"]["active_blocks"] == 1, res["pool"]
    assert res["runtimes"] == ["libcudart.so.13"] and res["live"] == 1, res


def test_instead_hook_fails_cudaMalloc_and_the_caller_sees_it(venv: Path, site: Path, fake_driver: Path) -> None:
    code = """
    oom = cudart_shim.error_code("cudaErrorMemoryAllocation")[0]
    def refuse_large(call):
        return oom if call.params.size > (1 << 20) else None
    h = cudart_shim.hook("cudaMalloc", "instead", refuse_large)
    big = malloc(8 << 20)
    last = cuda.cudaGetLastError(), cuda.cudaGetLastError()
    small = malloc(4096)
    h.remove()
    again = malloc(8 << 20)
    emit(oom=oom, big=big, last=last, small=small[0], again=again[0], pool=cudart_shim.pool_stats(0))
    """
    out = program(venv, code, preload_env(site, fake_driver, CUDART_SHIM_POOL="1"))
    (res,) = results(out.stdout)
    assert res["oom"] == 2, res
    # cudaErrorMemoryAllocation, no pointer: the real call did not run...
    assert res["big"] == [2, None], res
    # ...and the runtime set the last error as for a real failure.
    assert res["last"] == [2, 0], res
    assert res["small"] == 0 and res["again"] == 0, res
    # Two allocations reached the allocator: the small one and the one after remove().
    assert res["pool"]["active_blocks"] == 2, res["pool"]


def test_after_hooks_replace_the_result_in_order(venv: Path, site: Path, fake_driver: Path) -> None:
    code = """
    order = []
    def first(call):
        order.append(("first", call.result))
        return 101  # cudaErrorInvalidDevice
    def second(call):
        order.append(("second", call.result))
        return None  # keeps what first answered
    a = cudart_shim.hook("cudaSetDevice", "after", first)
    b = cudart_shim.hook("cudaSetDevice", "after", second)
    r1 = cuda.cudaSetDevice(0)
    a.remove()
    r2 = cuda.cudaSetDevice(0)
    b.remove()
    emit(r1=r1, r2=r2, order=order)
    """
    out = program(venv, code, preload_env(site, fake_driver))
    (res,) = results(out.stdout)
    assert res["r1"] == 101 and res["r2"] == 0, res
    assert res["order"] == [["first", 0], ["second", 101], ["second", 0]], res


def test_remove_stops_delivery(venv: Path, site: Path, fake_driver: Path) -> None:
    code = """
    n = ctypes.c_int()
    calls = []
    h = cudart_shim.hook("cudaGetDeviceCount", "before", lambda call: calls.append(call.name))
    for _ in range(3): cuda.cudaGetDeviceCount(ctypes.byref(n))
    h.remove(); h.remove()  # the second does nothing
    for _ in range(3): cuda.cudaGetDeviceCount(ctypes.byref(n))
    with cudart_shim.hook("cudaGetDeviceCount", "before", lambda call: calls.append("with")) as w:
        cuda.cudaGetDeviceCount(ctypes.byref(n))
    cuda.cudaGetDeviceCount(ctypes.byref(n))
    # A handler that removes its own hook: delivered once, then never.
    def once(call):
        calls.append("once")
        me.remove()
    me = cudart_shim.hook("cudaGetDeviceCount", "after", once)
    for _ in range(3): cuda.cudaGetDeviceCount(ctypes.byref(n))
    emit(calls=calls, active=[h.active, w.active, me.active], live=len(cudart_shim.hooks()), text=repr(h))
    """
    out = program(venv, code, preload_env(site, fake_driver))
    (res,) = results(out.stdout)
    assert res["calls"] == ["cudaGetDeviceCount"] * 3 + ["with", "once"], res
    assert res["active"] == [False, False, False] and res["live"] == 0 and "removed" in res["text"], res


def test_remove_waits_for_a_handler_running_on_another_thread(venv: Path, site: Path, fake_driver: Path) -> None:
    # The handler holds the GIL only while it runs Python; remove() (on the
    # main thread) releases it while the shim waits, so the handler can end.
    code = """
    inside, done = threading.Event(), []
    def slow(call):
        inside.set()
        time.sleep(0.3)
        done.append(call.thread_id)
    h = cudart_shim.hook("cudaDeviceSynchronize", "before", slow)
    t = threading.Thread(target=cuda.cudaDeviceSynchronize)
    t.start()
    assert inside.wait(10)
    h.remove()
    finished_before_remove_returned = list(done)
    t.join()
    cuda.cudaDeviceSynchronize()
    emit(done=finished_before_remove_returned, after=list(done), tid=t.native_id)
    """
    out = program(venv, code, preload_env(site, fake_driver))
    (res,) = results(out.stdout)
    assert res["done"] == [res["tid"]] and res["after"] == [res["tid"]], res


def test_no_delivery_after_remove_returns_while_four_threads_call(venv: Path, site: Path, fake_driver: Path) -> None:
    code = """
    count = [0]
    def tally(call):
        count[0] += 1
    h = cudart_shim.hook("cudaGetDeviceCount", "before", tally)
    stop = []
    def worker():
        n = ctypes.c_int()
        while not stop:
            assert cuda.cudaGetDeviceCount(ctypes.byref(n)) == 0
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads: t.start()
    time.sleep(0.3)
    h.remove()
    at_remove = count[0]
    time.sleep(0.2)
    later = count[0]
    stop.append(1)
    for t in threads: t.join()
    emit(at_remove=at_remove, later=later)
    """
    out = program(venv, code, preload_env(site, fake_driver))
    (res,) = results(out.stdout)
    assert res["at_remove"] > 0 and res["later"] == res["at_remove"], res


def test_an_exception_in_a_handler_is_contained(venv: Path, site: Path, fake_driver: Path) -> None:
    code = """
    def boom(call):
        raise ZeroDivisionError("boom in the handler")
    def not_a_code(call):
        return "cudaErrorMemoryAllocation"
    h1 = cudart_shim.hook("cudaMalloc", "instead", boom)
    h2 = cudart_shim.hook("cudaMalloc", "after", boom)
    h3 = cudart_shim.hook("cudaMalloc", "before", boom)
    rs = [malloc(4096)[0] for _ in range(3)]
    for h in (h1, h2, h3): h.remove()
    with cudart_shim.hook("cudaMalloc", "instead", not_a_code) as h4:
        rs.append(malloc(4096)[0])
    emit(rs=rs, exceptions=[h.exceptions for h in (h1, h2, h3, h4)])
    """
    out = program(venv, code, preload_env(site, fake_driver))
    (res,) = results(out.stdout)
    # Every call ran and succeeded, as if the handlers had returned None.
    assert res["rs"] == [0, 0, 0, 0], res
    assert res["exceptions"] == [3, 3, 3, 1], res
    err = out.stderr
    # Reported once per hook, with the traceback.
    assert err.count("ZeroDivisionError: boom in the handler") == 3, err
    assert err.count("instead hook boom on 'cudaMalloc' raised in a cudaMalloc call; the call ran") == 1, err
    assert err.count("after hook boom on 'cudaMalloc' raised") == 1 and err.count("before hook boom on 'cudaMalloc' raised") == 1, err
    assert "instead hook not_a_code on 'cudaMalloc' returned 'cudaErrorMemoryAllocation', which is neither None nor a result code" in err, err
    assert "Exception ignored" not in err, err


def test_a_keyboard_interrupt_in_a_handler_reaches_the_main_thread(venv: Path, site: Path, fake_driver: Path) -> None:
    code = """
    ran = []
    def interrupted(call):
        raise KeyboardInterrupt
    h = cudart_shim.hook("cudaMalloc", "instead", interrupted)
    caught = False
    try:
        p = ctypes.c_void_p()
        ran.append(cuda.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(4096)))
        time.sleep(5)
    except KeyboardInterrupt:
        caught = True
    emit(caught=caught, ran=ran, exceptions=h.exceptions)
    """
    out = program(venv, code, preload_env(site, fake_driver))
    (res,) = results(out.stdout)
    # The call ran (as if the handler had returned None); the interrupt came after it.
    assert res == dict(caught=True, ran=[0], exceptions=0), res


def test_a_ctrl_c_during_a_hooked_call_is_not_raised_into_the_callback(venv: Path, site: Path, fake_driver: Path) -> None:
    # SIGINT arrives while the main thread is inside cudaDeviceSynchronize
    # (held 300 ms in C by an injected delay); the first Python code that
    # thread runs next is the after hook's callback. The call still gets the
    # handler's answer, and the KeyboardInterrupt reaches the program after it.
    code = """
    import _thread
    h = cudart_shim.hook("cudaDeviceSynchronize", "after", lambda call: 46 if call.result == 0 else None)
    threading.Timer(0.1, _thread.interrupt_main).start()
    r, caught = None, False
    try:
        r = cuda.cudaDeviceSynchronize()
        time.sleep(5)
    except KeyboardInterrupt:
        caught = True
    emit(r=r, caught=caught)
    """
    out = program(venv, code, preload_env(site, fake_driver, CUDART_SHIM_FAULTS="cudaDeviceSynchronize:delay=300"))
    (res,) = results(out.stdout)
    assert res == dict(r=46, caught=True), (res, out.stderr)
    assert "Exception ignored" not in out.stderr, out.stderr


def test_fail_selects_calls_as_the_fault_grammar_does(venv: Path, site: Path, fake_driver: Path) -> None:
    code = """
    with cudart_shim.fail("cudaMalloc", "cudaErrorMemoryAllocation", nth=3) as f:
        third = [malloc(4096)[0] for _ in range(5)]
    counts = (f.seen, f.fired)
    with cudart_shim.fail("cudaMalloc", 2, every=2, count=2):
        every = [malloc(4096)[0] for _ in range(8)]
    errors = []
    for args in [("cudaMalloc", "CUDA_ERROR_OUT_OF_MEMORY"), ("cu*", "cudaErrorMemoryAllocation"),
                 ("cudaMalloc", "cudaErrorNoSuchThing"), ("cudaMalloc", 0), ("nothing*", 2)]:
        try:
            cudart_shim.fail(*args)
        except ValueError as e:
            errors.append(str(e))
    try:
        cudart_shim.fail("cudaMalloc", 2, nth=0)
    except ValueError as e:
        errors.append(str(e))
    try:
        cudart_shim.hook("cudaNoSuchFunction", "before", print)
    except ValueError as e:
        errors.append(str(e))
    try:
        cudart_shim.hook("cudaMalloc", "around", print)
    except ValueError as e:
        errors.append(str(e))
    emit(third=third, counts=counts, every=every, errors=errors, live=len(cudart_shim.hooks()),
         sel=cudart_shim.functions("cuMemAlloc*,-cuMemAllocHost*,-*_ptsz"))
    """
    out = program(venv, code, preload_env(site, fake_driver))
    (res,) = results(out.stdout)
    assert res["third"] == [0, 0, 2, 0, 0] and res["counts"] == [5, 1], res
    assert res["every"] == [0, 2, 0, 2, 0, 0, 0, 0], res
    e = res["errors"]
    assert len(e) == 8, e
    assert "'CUDA_ERROR_OUT_OF_MEMORY' is a driver error, but 'cudaMalloc' also selects runtime functions (cudaMalloc...)" in e[0], e
    assert "is a runtime error, but 'cu*' also selects driver functions" in e[1], e
    assert "'cudaErrorNoSuchThing' names no error" in e[2] and "pass the number" in e[2], e
    assert "is not an error" in e[3], e
    assert "'nothing*' selects no runtime or driver function" in e[4], e
    assert "nth needs a whole number of 1 or more, not 0" in e[5], e
    assert "'cudaNoSuchFunction' selects no runtime or driver function" in e[6], e
    assert "phase must be one of 'before', 'instead', 'after', not 'around'" in e[7], e
    assert res["live"] == 0, res
    assert res["sel"] == ["cuMemAlloc_v2", "cuMemAllocPitch_v2", "cuMemAllocManaged", "cuMemAlloc", "cuMemAllocPitch", "cuMemAllocAsync", "cuMemAllocFromPoolAsync"], res["sel"]


def test_under_trace_hooks_reach_both_runtimes_and_driver_calls(venv: Path, fake_driver: Path, tmp_path: Path) -> None:
    # Driver calls through the interposer `trace` links first on
    # LD_LIBRARY_PATH. (Loaded by path here: with CUDART_SHIM_DRIVER set, the
    # fake driver is loaded before the program asks for libcuda.so.1 by name.)
    code = """
    seen = []
    def look(call):
        p = call.params
        seen.append([call.name, call.layer, call.depth, p.size if call.layer == "runtime" else p.bytesize, type(p).__name__])
    h = cudart_shim.hook("cudaMalloc,cuMemAlloc_v2", "before", look)
    only12 = cudart_shim.hook("cudaMalloc", "before", lambda call: seen.append("12"), soname="libcudart.so.12")
    f = cudart_shim.fail("cudaMalloc", "cudaErrorMemoryAllocation", nth=2)
    rs = [malloc(1 << 20)[0] for _ in range(3)]
    drv = ctypes.CDLL(os.path.join(os.environ["LD_LIBRARY_PATH"].split(":")[0], "libcuda.so.1"))
    g = cudart_shim.fail("cuMemAlloc_v2", "CUDA_ERROR_OUT_OF_MEMORY", nth=1)
    d = ctypes.c_ulonglong()
    drs = [drv.cuMemAlloc_v2(ctypes.byref(d), ctypes.c_size_t(5 << 20)) for _ in range(2)]
    emit(seen=seen, rs=rs, drs=drs, dptr=d.value, runtimes=h.runtimes, fired=[f.fired, g.fired], only12=only12.runtimes)
    """
    script = tmp_path / "prog.py"
    script.write_text(PRELUDE + textwrap.dedent(code))
    env = clean_env(CUDART_SHIM_DRIVER=str(fake_driver))
    out = run([str(venv / "bin" / "cudart-shim"), "trace", "--", py(venv), str(script)], env=env)
    (res,) = results(out.stdout)
    # Registered in both runtimes `trace` preloads into an interpreter.
    assert sorted(res["runtimes"]) == ["libcudart.so.12", "libcudart.so.13"], res
    # A hook in the 12 runtime only: the program's calls go to the 13 one.
    assert res["only12"] == ["libcudart.so.12"] and "12" not in res["seen"], res
    assert res["rs"] == [0, 2, 0] and res["drs"] == [2, 0] and res["dptr"], res
    assert res["fired"] == [1, 1], res
    # Each call reached the handler once (not once per runtime).
    assert [s for s in res["seen"] if s[1] == "runtime"] == [["cudaMalloc", "runtime", 0, 1 << 20, "cudaMalloc_params"]] * 3, res["seen"]
    assert [s for s in res["seen"] if s[2] == 0 and s[1] == "driver"] == [["cuMemAlloc_v2", "driver", 0, 5 << 20, "cuMemAlloc_v2_params"]] * 2, res["seen"]
    # The summary counts the calls the Python faults failed as failed calls.
    rows = summary_rows(out.stderr)
    assert rows["cudaMalloc"] == 3 and rows["cuMemAlloc_v2"] >= 2, out.stderr


def _c_layout(site: Path, tmp_path: Path, structs: Dict[str, List[str]]) -> Dict[str, List[int]]:
    """sizeof, then the offset and size of every field of each struct, as
    the C compiler lays it out from the package's headers."""
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "cudart_shim.h"', '#include "cudart_shim_params.h"', "int main(void) {"]
    for s, fields in structs.items():
        parts = [f"(long)sizeof({s})"] + [x for f in fields for x in (f"(long)offsetof({s}, {f})", f"(long)sizeof((({s} *)0)->{f})")]
        fmt = " ".join(["%ld"] * len(parts))
        lines.append(f'    printf("{s} {fmt}\\n", {", ".join(parts)});')
    lines.append("    return 0;\n}")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    run(["cc", "-std=c11", "-I", str(site / "include"), str(src), "-o", str(exe)])
    out = run([str(exe)]).stdout
    return {l.split()[0]: [int(x) for x in l.split()[1:]] for l in out.splitlines()}


def test_typed_parameter_blocks_match_the_header(venv: Path, site: Path, tmp_path: Path) -> None:
    # The ctypes structures of the installed module against the C compiler's
    # layout of the installed headers: every typed function, and cudartShimCall.
    code = (
        "import ctypes, json\n"
        "from cudart_shim import params, _native\n"
        "def layout(c):\n"
        "    return [ctypes.sizeof(c)] + [x for f, _ in c._fields_ for x in (getattr(c, f).offset, getattr(c, f).size)]\n"
        "out = {f'{n}_params': layout(c) for n, c in params.TYPED.items()}\n"
        "out['cudartShimCall'] = layout(_native.CallStruct)\n"
        "fields = {f'{n}_params': [f for f, _ in c._fields_] for n, c in params.TYPED.items()}\n"
        "fields['cudartShimCall'] = [f for f, _ in _native.CallStruct._fields_]\n"
        "print(json.dumps([out, fields]))\n"
    )
    py_layout, fields = json.loads(run([py(venv), "-c", code]).stdout)
    for required in ("cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemcpyAsync", "cudaLaunchKernel", "cuMemAlloc_v2"):
        assert f"{required}_params" in py_layout, required
    c_layout = _c_layout(site, tmp_path, fields)
    assert c_layout == py_layout


def test_error_names_match_nvidia_and_ids_match_the_header(venv: Path, repo: Path, site: Path) -> None:
    cuda_h = (repo / ".cache" / "cuda" / "nvidia" / "cu13" / "include" / "cuda.h").read_text()
    nvidia = {m.group(1): int(m.group(2)) for m in re.finditer(r"\b(CUDA_ERROR_[A-Z0-9_]+)\s*=\s*(\d+)", cuda_h)}
    runtime_h = (repo / ".cache" / "cuda" / "nvidia" / "cu13" / "include" / "driver_types.h").read_text()
    nvidia_rt = {m.group(1): int(m.group(2)) for m in re.finditer(r"\b(cudaError[A-Za-z0-9_]+)\s*=\s*(\d+)", runtime_h)}
    code = (
        "import json, cudart_shim\n"
        "from cudart_shim import _hooks\n"
        "ids = cudart_shim.function_ids()\n"
        "print(json.dumps([_hooks._DRIVER_ERRORS, _hooks._runtime_errors(), ids, cudart_shim.layer_of('cuMemAlloc_v2'), cudart_shim.layer_of('__cudaRegisterFunction')]))\n"
    )
    drv, rt, ids, l1, l2 = json.loads(run([py(venv), "-c", code]).stdout)
    # Every CUresult name (the interposer's list, of a newer cuda.h than the
    # 13.0 one here): those 13.0 has agree with it.
    assert len([k for k in drv if k in nvidia]) > 90 and all(nvidia[k] == v for k, v in drv.items() if k in nvidia), {k: (v, nvidia.get(k)) for k, v in drv.items()}
    assert rt["cudaErrorMemoryAllocation"] == 2 and rt["cudaErrorIllegalAddress"] == 700, rt
    assert all(nvidia_rt[k] == v for k, v in rt.items() if k in nvidia_rt), rt
    params_h = (site / "include" / "cudart_shim_params.h").read_text()
    count = int(re.search(r"#define CUDART_SHIM_FUNCTION_COUNT (\d+)", params_h).group(1))
    assert len(ids) == count and sorted(ids.values()) == list(range(count)), len(ids)
    assert (l1, l2) == ("driver", "runtime")


def test_a_copy_of_the_module_without_headers_knows_every_name(venv: Path, site: Path, fake_driver: Path, tmp_path: Path) -> None:
    """Issue #33: the module used from a copy beside the built libraries
    (no ``include/``) raised ``ValueError`` for ``cudaErrorMemoryAllocation``
    and could not name a function. It knows both from its own tables."""
    import shutil

    copy = tmp_path / "cudart_shim"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("include", "__pycache__"))
    assert not (copy / "include").exists()
    code = """
    assert os.path.dirname(cudart_shim.__file__) == os.environ["COPY"], cudart_shim.__file__
    with cudart_shim.fail("cudaMalloc", "cudaErrorMemoryAllocation") as f:
        refused = malloc(1 << 20)
    emit(refused=refused[0], fired=f.fired, after=malloc(4096)[0],
         drv=cudart_shim.error_code("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"), rt=cudart_shim.error_code("cudaErrorIllegalAddress"),
         layer=cudart_shim.layer_of("cuMemAlloc_v2"), n=len(cudart_shim.function_ids()))
    """
    env = clean_env(CUDART_SHIM_DRIVER=str(fake_driver), LD_PRELOAD=str(copy / "lib" / "libcudart_shim.so"), PYTHONPATH=str(tmp_path), COPY=str(copy))
    (res,) = results(program(venv, code, env).stdout)
    assert res["refused"] == 2 and res["fired"] == 1 and res["after"] == 0, res
    assert res["drv"] == [900, "driver"] and res["rt"] == [700, "runtime"] and res["layer"] == "driver", res
    params_h = (site / "include" / "cudart_shim_params.h").read_text()
    assert res["n"] == int(re.search(r"#define CUDART_SHIM_FUNCTION_COUNT (\d+)", params_h).group(1)), res


def test_hooks_left_registered_are_removed_at_exit(venv: Path, site: Path, fake_driver: Path) -> None:
    # An atexit handler registered before the hook runs after the module's
    # own (atexit is last in, first out): by then the hook is gone, so CUDA
    # calls made while the interpreter ends run no Python.
    code = """
    import atexit
    atexit.register(lambda: print("late", malloc(4096)[0], len(cudart_shim.hooks()), flush=True))
    h = cudart_shim.hook("cudaMalloc", "instead", lambda call: 2)
    print("early", malloc(4096)[0], flush=True)
    """
    out = program(venv, code, preload_env(site, fake_driver))
    assert out.stdout.splitlines() == ["early 2", "late 0 0"], out.stdout
