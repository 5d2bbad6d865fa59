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
