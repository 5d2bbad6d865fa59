"""The installed wheel: every file present, one version, the command finds
its libraries in the package, and the loader's names are linked at run
time in a private folder, never in the package."""

from __future__ import annotations

from pathlib import Path

from conftest import clean_env, run, summary_rows

LIBS = {"libcudart_shim.so": "libcudart.so.13", "libcudart_shim12.so": "libcudart.so.12", "libcudart_shim_driver.so": "libcuda.so.1", "libcudart_shim_cupti.so": "libcudart_shim_cupti.so"}


def soname(path: Path) -> str:
    """DT_SONAME of an ELF64 little-endian shared library (read with the
    standard library only)."""
    import struct

    b = path.read_bytes()
    assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, path
    phoff, = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    phs = [struct.unpack_from("<IIQQQQ", b, phoff + i * phentsize) for i in range(phnum)]
    dyn = next(p for p in phs if p[0] == 2)
    entries = [struct.unpack_from("<qQ", b, dyn[2] + o) for o in range(0, dyn[5], 16)]
    strtab = next(v for t, v in entries if t == 5)
    name = next(v for t, v in entries if t == 14)
    load = next(p for p in phs if p[0] == 1 and p[3] <= strtab < p[3] + p[5])
    at = strtab - load[3] + load[2] + name
    return b[at:b.index(b"\0", at)].decode()


def test_every_library_and_header_is_in_the_package(site: Path) -> None:
    for name, so in LIBS.items():
        f = site / "lib" / name
        assert f.is_file() and not f.is_symlink(), f
        assert soname(f) == so, (f, soname(f))
    for h in ("cudart_shim.h", "cudart_shim_ext.h"):
        assert (site / "include" / h).is_file(), h
    assert (site / "py.typed").is_file()


def test_the_package_holds_no_links_and_nothing_else_native(site: Path) -> None:
    native = sorted(p.name for p in site.rglob("*.so*"))
    assert native == sorted(LIBS), native
    assert not [p for p in site.rglob("*") if p.is_symlink()]


def sections(path: Path) -> dict:
    """Section name -> size of an ELF64 little-endian file (standard
    library only)."""
    import struct

    b = path.read_bytes()
    shoff, = struct.unpack_from("<Q", b, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 58)
    shs = [struct.unpack_from("<IIQQQQ", b, shoff + i * shentsize) for i in range(shnum)]
    names = shs[shstrndx][4]
    out = {}
    for name, _type, _flags, _addr, _off, size in shs:
        at = names + name
        out[b[at:b.index(b"\0", at)].decode()] = size
    return out


def test_no_native_file_carries_debug_information(venv: Path, site: Path) -> None:
    """Issue #33: the libraries' line tables were most of the wheel. They
    ship apart (``NAME.debug``, named by each library's ``.gnu_debuglink``)."""
    files = [site / "lib" / n for n in LIBS] + [venv / "bin" / "cudart-shim"]
    for f in files:
        s = sections(f)
        # (.debug_gdb_scripts is loaded data, a few bytes naming Rust's
        # pretty printers, not debug information.)
        debug = sorted(n for n in s if n.startswith((".debug_", ".zdebug_")) and n != ".debug_gdb_scripts")
        assert not debug, (f, debug)
    for n in LIBS:
        assert ".gnu_debuglink" in sections(site / "lib" / n), n


def installed_bytes(venv: Path, site: Path) -> int:
    return sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) + (venv / "bin" / "cudart-shim").stat().st_size


def test_a_release_wheel_is_small(venv: Path, site: Path) -> None:
    """The limits of issue #33 (wheel <= 12 MB, installed <= 30 MB), for a
    release wheel (``CUDART_SHIM_WHEEL_PROFILE=release scripts/test-wheel``).
    CI's wheel is the dev profile's (unoptimized code: about 3 times larger
    stripped), so there the figures are printed, and only the release
    profile is held to the limits."""
    import os

    wheel = Path(os.environ["CUDART_SHIM_WHEEL"])
    size, installed = wheel.stat().st_size, installed_bytes(venv, site)
    print(f"wheel {size / 1e6:.1f} MB, installed {installed / 1e6:.1f} MB ({os.environ.get('CUDART_SHIM_WHEEL_PROFILE', 'dev')} profile)")
    if os.environ.get("CUDART_SHIM_WHEEL_PROFILE") == "release":
        assert size <= 12_000_000, size
        assert installed <= 30_000_000, installed


def test_version_is_the_wheels(venv: Path) -> None:
    meta = run([str(venv / "bin" / "python"), "-c", "import importlib.metadata as m, cudart_shim; print(m.version('cudart-shim'), cudart_shim.__version__)"]).stdout.split()
    assert meta[0] == meta[1] and meta[0][0].isdigit(), meta
    assert run([str(venv / "bin" / "cudart-shim"), "--version"]).stdout.strip() == f"cudart-shim {meta[0]}"
    # python -m cudart_shim is the same command.
    assert run([str(venv / "bin" / "python"), "-m", "cudart_shim", "--version"]).stdout.strip() == f"cudart-shim {meta[0]}"


def test_doctor_names_the_packages_libraries(venv: Path, site: Path, fake_driver: Path) -> None:
    out = run([str(venv / "bin" / "cudart-shim"), "doctor"], env=clean_env(CUDART_SHIM_DRIVER=str(fake_driver))).stdout
    for name, so in [("libcudart_shim.so", "libcudart.so.13"), ("libcudart_shim12.so", "libcudart.so.12")]:
        assert f"library:  {site / 'lib' / name} ({so})" in out, out
    assert f"driver interposer: {site / 'lib' / 'libcudart_shim_driver.so'}" in out and "link checked" in out, out
    assert "gpus:     1" in out and out.rstrip().endswith("ok"), out
    # python -m cudart_shim doctor: the same report.
    again = run([str(venv / "bin" / "python"), "-m", "cudart_shim", "doctor"], env=clean_env(CUDART_SHIM_DRIVER=str(fake_driver))).stdout
    assert again == out


def test_doctor_says_whether_the_python_in_view_imports_the_module(venv: Path, site: Path, fake_driver: Path, tmp_path: Path) -> None:
    """Issue #33: doctor names the interpreter it asked and whether that
    one can ``import cudart_shim``."""
    import sys

    env = {k: v for k, v in clean_env(CUDART_SHIM_DRIVER=str(fake_driver)).items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    version = run([str(venv / "bin" / "cudart-shim"), "--version"]).stdout.split()[1]
    # No environment active: the interpreter beside the command, the venv's.
    out = run([str(venv / "bin" / "cudart-shim"), "doctor"], env=env).stdout
    line = next(l for l in out.splitlines() if l.startswith("python:"))
    assert line.startswith(f"python:   {venv / 'bin' / 'python'} (Python ") and "beside this command" in line, line
    assert line.endswith(f"imports cudart_shim {version} from {site}"), line
    # An active virtual environment without the module (the test tools').
    tools = Path(sys.executable).parent.parent
    out = run([str(venv / "bin" / "cudart-shim"), "doctor"], env={**env, "VIRTUAL_ENV": str(tools)}).stdout
    line = next(l for l in out.splitlines() if l.startswith("python:"))
    assert "$VIRTUAL_ENV" in line and "cannot import cudart_shim (ModuleNotFoundError:" in line and "-m pip install cudart_shim-" in line, line
    assert out.rstrip().endswith("ok"), out  # a note, not a problem
    # --python names one; a missing one is a usage error.
    out = run([str(venv / "bin" / "cudart-shim"), "doctor", "--python", sys.executable], env=env).stdout
    assert f"python:   {sys.executable} (Python " in out and "--python): cannot import cudart_shim" in out, out
    bad = run([str(venv / "bin" / "cudart-shim"), "doctor", "--python", str(tmp_path / "nope")], env=env, check=False)
    assert bad.returncode == 2 and "--python" in bad.stderr and not bad.stdout, bad
    # A bare name is looked up on the PATH.
    out = run([str(venv / "bin" / "cudart-shim"), "doctor", "--python", "python"], env={**env, "PATH": f"{venv / 'bin'}:{env['PATH']}"}).stdout
    assert f"python:   {venv / 'bin' / 'python'} (Python " in out and f"imports cudart_shim {version} from {site}" in out, out


def test_the_command_finds_the_package_from_anywhere(venv: Path, site: Path, tmp_path: Path) -> None:
    # From an empty folder (no target/ to fall back on), with no driver:
    # the libraries are still the package's.
    out = run([str(venv / "bin" / "cudart-shim"), "doctor"], env=clean_env(CUDART_SHIM_DRIVER=str(tmp_path / "none.so")), check=False, cwd=tmp_path)
    assert out.returncode == 1, out
    assert f"library:  {site / 'lib' / 'libcudart_shim.so'}" in out.stdout, out.stdout


def test_trace_links_the_interposer_in_a_private_folder(venv: Path, site: Path, tmp_path: Path) -> None:
    # A shell under trace reports the folder put first on LD_LIBRARY_PATH
    # and where its libcuda.so.1 leads.
    script = tmp_path / "show.sh"
    script.write_text('#!/bin/sh\nd=${LD_LIBRARY_PATH%%:*}\necho "dir=$d"\necho "mode=$(stat -c %a "$(dirname "$d")")"\n'
                      'echo "so1=$(readlink "$d/libcuda.so.1")"\necho "so=$(readlink "$d/libcuda.so")"\necho "preload=$LD_PRELOAD"\n')
    script.chmod(0o755)
    before = sorted(p for p in site.rglob("*"))
    out = run([str(venv / "bin" / "cudart-shim"), "trace", "--no-summary", str(script)], env=clean_env(TMPDIR=str(tmp_path)))
    got = dict(l.split("=", 1) for l in out.stdout.splitlines())
    d = Path(got["dir"])
    assert d.name == "driver" and d.parent.parent == tmp_path, got  # $TMPDIR/cudart-shim-trace-*/driver
    assert got["mode"] == "700", got
    interposer = str(site / "lib" / "libcudart_shim_driver.so")
    assert got["so1"] == interposer and got["so"] == interposer, got
    assert got["preload"] == f"{site / 'lib' / 'libcudart_shim.so'}:{site / 'lib' / 'libcudart_shim12.so'}", got
    # The run's folder is gone, and nothing was written into the package.
    assert not d.exists()
    assert sorted(p for p in site.rglob("*") if "__pycache__" not in p.parts) == [p for p in before if "__pycache__" not in p.parts]


def test_trace_of_a_c_program_on_the_fake_driver(venv: Path, site: Path, repo: Path, fake_driver: Path, tmp_path: Path) -> None:
    # Built with the wheel's header against the wheel's library: its
    # DT_NEEDED is libcudart.so.13, which no file in the package is named;
    # trace preloads the runtime by path and the loader takes it for that name.
    exe = tmp_path / "device_query"
    run(["cc", "-I", str(site / "include"), str(repo / "c_examples" / "device_query.c"), "-o", str(exe), f"-L{site / 'lib'}", "-l:libcudart_shim.so"])
    out = run([str(venv / "bin" / "cudart-shim"), "trace", "--", str(exe)], env=clean_env(CUDART_SHIM_DRIVER=str(fake_driver)))
    assert "Fake CUDA Device 0" in out.stdout, out.stdout
    rows = summary_rows(out.stderr)
    assert rows.get("cudaGetDeviceCount", 0) >= 1 and rows.get("cudaGetDeviceProperties", 0) >= 1, out.stderr
    # Without trace the program cannot even start: proof that the name came from the preload.
    bare = run([str(exe)], env=clean_env(CUDART_SHIM_DRIVER=str(fake_driver)), check=False)
    assert bare.returncode != 0 and "libcudart.so.13" in bare.stderr, bare
