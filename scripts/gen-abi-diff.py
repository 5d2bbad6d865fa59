#!/usr/bin/env python3
"""Derive what a runtime must reproduce to be NVIDIA's libcudart.so.12 (CUDA
12.9) rather than libcudart.so.13 (CUDA 13.0), from the two pinned wheels'
headers and libraries, and write it under tests/data/abi/:

  headers-12.9.txt, headers-13.0.txt   facts read from each version's headers
  answers-12.9.tsv, answers-13.0.tsv   what each NVIDIA library answers with no
                                       driver: error names/strings 0..1000,
                                       versions
  no-driver-12.9.tsv                   the bad-input suite (scripts/gen-bad-input.py)
                                       on NVIDIA's 12.9 library, no driver
  cuda12-vs-13.txt                     the differences, section by section

usage: scripts/gen-abi-diff.py [--check]
  needs scripts/setup-cuda (.cache/cuda) and scripts/setup-cuda12
  (.cache/cuda12), gcc and gdb (struct layouts are read from DWARF).
  --check: regenerate into a temporary folder and fail if anything differs
  from the committed files.

Line formats of headers-*.txt (one fact a line, sorted within a section):
  export SYMBOL                          defined in the library, @@libcudart.so.N
  proto SYMBOL RET (PARAMS)              the library's own prototype of SYMBOL:
                                         cuda_runtime_api.h preprocessed as NVIDIA
                                         builds the library (__CUDA_API_VERSION_INTERNAL)
  call MODE NAME SYMBOL                  the symbol a program compiled against the
                                         header references when it writes NAME,
                                         MODE legacy or per-thread
                                         (--default-stream per-thread); listed
                                         only where SYMBOL != NAME
  struct NAME SIZE ALIGN                 sizeof/alignof (gcc, x86-64)
  field NAME PATH OFFSET SIZE TYPE       each member, nested unions/structs
                                         flattened into PATH (a.b.c)
  enum NAME ENUMERATOR VALUE
  define NAME VALUE                      integer-valued cuda* macros
  hidden SYMBOL RET (PARAMS)             crt/host_runtime.h's nvcc registration API
"""
import os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C13 = os.environ.get("CUDART_SHIM_CUDA_CACHE", f"{ROOT}/.cache/cuda")
C12 = os.environ.get("CUDART_SHIM_CUDA12_CACHE", f"{ROOT}/.cache/cuda12")
VERSIONS = {
    "12.9": dict(
        inc=[f"{C12}/nvidia/cuda_runtime/include", f"{C12}/nvidia/cuda_nvcc/include"],
        lib=f"{C12}/nvidia/cuda_runtime/lib/libcudart.so.12",
        node="libcudart.so.12",
        exports="libcudart12-exports.txt",
        wheel="nvidia-cuda-runtime-cu12==12.9.79 (headers, libcudart.so.12), nvidia-cuda-nvcc-cu12==12.9.86 (crt/)",
    ),
    "13.0": dict(
        inc=[f"{C13}/nvidia/cu13/include"],
        lib=f"{C13}/nvidia/cu13/lib/libcudart.so.13",
        node="libcudart.so.13",
        exports="libcudart13-exports.txt",
        wheel="nvidia-cuda-runtime==13.0.96 (headers, libcudart.so.13), nvidia-cuda-crt==13.0.88 (crt/)",
    ),
}
# The headers whose types a runtime exchanges with programs.
TYPE_HEADERS = ["driver_types.h", "surface_types.h", "texture_types.h", "vector_types.h", "cuda_runtime_api.h"]
TMP = tempfile.mkdtemp(prefix="gen-abi-diff-")


def sh(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{r.stderr[-3000:]}")
    return r.stdout


def incflags(v):
    return [f"-I{d}" for d in VERSIONS[v]["inc"]]


def strip_attributes(s):
    """Remove every __attribute__((...)), whatever its nesting."""
    out, i = [], 0
    while True:
        j = s.find("__attribute__", i)
        if j < 0:
            out.append(s[i:]); return "".join(out)
        out.append(s[i:j])
        k = s.index("(", j); depth = 0
        while True:
            depth += {"(": 1, ")": -1}.get(s[k], 0)
            k += 1
            if depth == 0:
                break
        i = k


def norm(s):
    s = " ".join(strip_attributes(s).split())
    s = re.sub(r"\s*([(),*\[\]])\s*", r"\1", s)
    s = re.sub(r",", ", ", s)
    s = re.sub(r"(\w)\*", r"\1 *", s)
    return s


def preprocess(v, text, defines=()):
    src = f"{TMP}/pp-{v}.c"
    open(src, "w").write(text)
    return sh(["gcc", "-E", "-P", *defines, *incflags(v), src])


def prototypes(v):
    """SYMBOL -> 'RET (PARAMS)' as the library declares its own exports."""
    i = preprocess(v, "#include <cuda_runtime_api.h>\n", ["-D__CUDA_API_VERSION_INTERNAL"])
    i = strip_attributes(i)
    protos = {}
    for m in re.finditer(r"\bextern\s+([^;{}()]*?)\b(\w+)\s*\(([^;{}]*?)\)\s*;", i, re.S):
        ret, name, params = norm(m.group(1)), m.group(2), norm(m.group(3))
        if name.startswith("cuda"):
            protos[name] = f"{ret} ({params})"
    return protos


def calls(v, names):
    """(mode, NAME) -> SYMBOL where the header renames NAME."""
    body = "#include <cuda_runtime_api.h>\n#define S_(x) #x\n#define S(x) S_(x)\n"
    body += "".join(f'@@ "{n}" S({n})\n' for n in names)
    out = {}
    for mode, defs in (("legacy", []), ("per-thread", ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"])):
        for m in re.finditer(r'@@ "(\w+)" "(\w+)"', preprocess(v, body, defs)):
            if m.group(1) != m.group(2):
                out[(mode, m.group(1))] = m.group(2)
    return out


def header_text(v, name):
    for d in VERSIONS[v]["inc"]:
        p = f"{d}/{name}"
        if os.path.exists(p):
            return open(p).read()
    sys.exit(f"{name} not found for {v}")


def type_names(v):
    structs, enums = set(), set()
    for h in TYPE_HEADERS:
        t = re.sub(r"/\*.*?\*/", "", header_text(v, h), flags=re.S)
        t = re.sub(r"//[^\n]*", "", t)
        for m in re.finditer(r"\bstruct\s+(?:__device_builtin__\s+)?(?:__align__\(\d+\)\s+)?(?:__device_builtin__\s+)?(\w+)\s*\{", t):
            structs.add(m.group(1))
        for m in re.finditer(r"\benum\s+(?:__device_builtin__\s+)?(?:cudaEnum\w*\s+)?(\w+)\s*(?::\s*\w+\s*)?\{", t):
            enums.add(m.group(1))
    return sorted(structs), sorted(enums)


GDB_SCRIPT = r'''
import gdb, sys
def walk(t, path, base, out):
    for f in t.fields():
        if f.is_base_class or not hasattr(f, "bitpos"):
            continue
        ft = f.type.strip_typedefs()
        off = base + f.bitpos // 8
        name = f.name or "<anon>"
        p = path + [name]
        bits = f" bits:{f.bitpos % 8}+{f.bitsize}" if f.bitsize else ""
        out.append(f"{'.'.join(p)} {off} {f.type.sizeof} {str(f.type)}{bits}".replace(" ", "\t", 3))
        if ft.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION) and (f.name is None or ft.tag is None or ft.tag.startswith("{")):
            walk(ft, p, off, out)
for kind, name in [l.split() for l in open(SPEC)]:
    try:
        t = gdb.lookup_type(f"{kind} {name}")
    except gdb.error:
        print(f"missing {kind} {name}"); continue
    if kind == "struct":
        print(f"struct {name} {t.sizeof} {t.alignof}")
        rows = []
        walk(t, [], 0, rows)
        for r in rows:
            print("field " + name + "\t" + r)
    else:
        for f in t.fields():
            print(f"enum {name} {f.name} {f.enumval}")
'''


def layouts(v, structs, enums):
    src = f"{TMP}/types-{v}.c"
    open(src, "w").write("#include <cuda_runtime_api.h>\n")
    obj = f"{TMP}/types-{v}.o"
    sh(["gcc", "-c", "-g", "-fno-eliminate-unused-debug-types", *incflags(v), src, "-o", obj])
    spec = f"{TMP}/spec-{v}.txt"
    open(spec, "w").write("".join(f"struct {s}\n" for s in structs) + "".join(f"enum {e}\n" for e in enums))
    py = f"{TMP}/layout.py"
    open(py, "w").write(f"SPEC = {spec!r}\n" + GDB_SCRIPT)
    out = sh(["gdb", "-batch", "-nx", "-ex", f"source {py}", obj])
    facts = []
    for line in out.splitlines():
        if line.startswith("missing"):
            continue
        if line.startswith("field "):
            # field NAME<TAB>PATH<TAB>OFF<TAB>SIZE<TAB>TYPE
            _, rest = line.split(" ", 1)
            facts.append("field " + " ".join(rest.split("\t", 4)))
        else:
            facts.append(line)
    return facts


def defines(v):
    """Integer-valued object-like cuda* macros of the type headers."""
    names = set()
    for h in TYPE_HEADERS:
        for m in re.finditer(r"^\s*#\s*define\s+(cuda\w+)[ \t]+(\S.*)$", header_text(v, h), re.M):
            names.add(m.group(1))
    body = "#include <cuda_runtime_api.h>\n#include <stdio.h>\nint main(void) {\n"
    probe = []
    for n in sorted(names):
        # Skip macros that are not integer constant expressions (function
        # names, types): each is tried alone and kept if it compiles.
        t = f"#include <cuda_runtime_api.h>\n_Static_assert(__builtin_constant_p((long long)({n})), \"\");\n"
        p = f"{TMP}/def.c"; open(p, "w").write(t)
        if subprocess.run(["gcc", "-c", "-w", *incflags(v), p, "-o", f"{TMP}/def.o"], capture_output=True).returncode == 0:
            probe.append(n)
    body += "".join(f'  printf("define {n} %lld\\n", (long long)({n}));\n' for n in probe) + "  return 0;\n}\n"
    src = f"{TMP}/defines-{v}.c"
    open(src, "w").write(body)
    sh(["gcc", "-w", *incflags(v), src, "-o", f"{TMP}/defines-{v}"])
    return sh([f"{TMP}/defines-{v}"]).splitlines()


def hidden(v):
    """The __cuda* functions nvcc's generated host code calls, as crt/ declares them."""
    out = set()
    for h in ("crt/host_runtime.h", "crt/device_functions.h"):
        t = re.sub(r"/\*.*?\*/", "", header_text(v, h), flags=re.S)
        t = re.sub(r"//[^\n]*", "", t)
        for m in re.finditer(r'\bextern\s+(?:"C"\s+)?([\w\s\*]*?)\b(__cuda\w+)\s*\(([^;{}]*?)\)\s*;', t, re.S):
            ret = norm(re.sub(r"\b(CUDARTAPI|__host__|__device__)\b", "", m.group(1)))
            params = norm(re.sub(r"\s*=\s*[^,]+", "", m.group(3)))
            out.add(f"hidden {m.group(2)} {ret} ({params})")
    return sorted(out)


def exports(v):
    """Defined dynamic symbols of NVIDIA's library; all must carry its node."""
    out = sh(["nm", "-D", "--defined-only", VERSIONS[v]["lib"]])
    syms = []
    for l in out.split("\n"):
        f = l.split()
        if len(f) == 3 and f[1] in "TtWDBRV":
            name, _, ver = f[2].partition("@@")
            if name == VERSIONS[v]["node"]:
                continue
            assert ver == VERSIONS[v]["node"], f"{v}: {f[2]} is not @@{VERSIONS[v]['node']}"
            syms.append(name)
    listed = [w for l in open(f"{ROOT}/tests/data/abi/{VERSIONS[v]['exports']}") if not l.startswith("#") for w in l.split()]
    assert sorted(syms) == sorted(listed), f"{v}: library exports differ from tests/data/abi/{VERSIONS[v]['exports']}"
    return sorted(syms)


ANSWERS_C = r'''
#include <dlfcn.h>
#include <stdio.h>
typedef const char *(*str_fn)(int);
typedef int (*ver_fn)(int *);
typedef int (*err_fn)(void);
int main(int argc, char **argv) {
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    str_fn name = (str_fn)dlsym(h, "cudaGetErrorName"), str = (str_fn)dlsym(h, "cudaGetErrorString");
    for (int c = 0; c <= 1000; c++) printf("error\t%d\t%s\t%s\n", c, name(c), str(c));
    printf("error\t-1\t%s\t%s\n", name(-1), str(-1));
    int v = -7, rc = ((ver_fn)dlsym(h, "cudaRuntimeGetVersion"))(&v);
    printf("call\tcudaRuntimeGetVersion\t%d\t%d\n", rc, v);
    v = -7; rc = ((ver_fn)dlsym(h, "cudaDriverGetVersion"))(&v);
    printf("call\tcudaDriverGetVersion\t%d\t%d\n", rc, v);
    rc = ((ver_fn)dlsym(h, "cudaRuntimeGetVersion"))(0);
    printf("call\tcudaRuntimeGetVersion(NULL)\t%d\n", rc);
    rc = ((ver_fn)dlsym(h, "cudaDriverGetVersion"))(0);
    printf("call\tcudaDriverGetVersion(NULL)\t%d\n", rc);
    v = -7; rc = ((ver_fn)dlsym(h, "cudaGetDeviceCount"))(&v);
    printf("call\tcudaGetDeviceCount\t%d\t%d\n", rc, v);
    printf("call\tcudaPeekAtLastError\t%d\n", ((err_fn)dlsym(h, "cudaPeekAtLastError"))());
    printf("call\tcudaGetLastError\t%d\n", ((err_fn)dlsym(h, "cudaGetLastError"))());
    printf("call\tcudaGetLastError\t%d\n", ((err_fn)dlsym(h, "cudaGetLastError"))());
    return 0;
}
'''

NO_DRIVER_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LD_LIBRARY_PATH": "/nonexistent"}


def answers(v):
    src = f"{TMP}/answers.c"
    open(src, "w").write(ANSWERS_C)
    exe = f"{TMP}/answers"
    if not os.path.exists(exe):
        sh(["gcc", "-O1", src, "-o", exe, "-ldl"])
    return sh([exe, VERSIONS[v]["lib"]], env=NO_DRIVER_ENV).splitlines()


def no_driver(v):
    """Every case of the bad-input suite on NVIDIA's library of `v`, no driver.
    Compiled as NVIDIA compiles the library (__CUDA_API_VERSION_INTERNAL), so
    each case calls the symbol it is named after."""
    src = f"{TMP}/bad-{v}.c"
    gen = sh(["python3", f"{ROOT}/scripts/gen-bad-input.py", VERSIONS[v]["inc"][0], f"{ROOT}/tests/data/abi/{VERSIONS[v]['exports']}"])
    open(src, "w").write(gen)
    libdir = f"{TMP}/lib-{v}"
    os.makedirs(libdir, exist_ok=True)
    lib = VERSIONS[v]["lib"]
    link = f"{libdir}/libcudart.so"
    if not os.path.exists(link):
        os.symlink(lib, link)
    exe = f"{TMP}/bad-{v}"
    sh(["gcc", "-w", "-D__CUDA_API_VERSION_INTERNAL", *incflags(v), src, "-o", exe, f"-L{libdir}", "-lcudart"])
    env = dict(NO_DRIVER_ENV, LD_LIBRARY_PATH=os.path.dirname(lib))
    rows = [l for l in sh([exe], env=env).splitlines() if "\t" in l]
    return sorted(rows)


def provenance(v):
    return [f"# Source: {VERSIONS[v]['wheel']}.",
            "# Regenerate: scripts/gen-abi-diff.py (after scripts/setup-cuda and scripts/setup-cuda12); see docs/CUDA12.md."]


def section(title, rows):
    return [f"## {title} ({len(rows)})"] + rows + [""]


def main():
    check = "--check" in sys.argv
    dest = f"{TMP}/out" if check else f"{ROOT}/tests/data/abi"
    os.makedirs(dest, exist_ok=True)
    facts = {}
    for v in VERSIONS:
        ex = exports(v)
        protos = prototypes(v)
        api_names = sorted({re.sub(r"_pt(ds|sz)$", "", n) for n in protos} | {re.sub(r"_pt(ds|sz)$", "", n) for n in ex if n.startswith("cuda")})
        cl = calls(v, api_names)
        structs, enums = type_names(v)
        f = {"export": [f"export {n}" for n in ex],
             "proto": [f"proto {n} {p}" for n, p in sorted(protos.items())],
             "call": [f"call {m} {n} {s}" for (m, n), s in sorted(cl.items())],
             "layout": layouts(v, structs, enums),
             "define": sorted(defines(v)),
             "hidden": sorted(hidden(v))}
        facts[v] = f
        lines = [f"# Facts from CUDA {v}'s headers and NVIDIA's library (x86-64, gcc), one a line; formats in scripts/gen-abi-diff.py."] + provenance(v)
        for k in ("export", "proto", "call", "layout", "define", "hidden"):
            lines += f[k]
        open(f"{dest}/headers-{v}.txt", "w").write("\n".join(lines) + "\n")
        ans = answers(v)
        facts[v]["answers"] = ans
        open(f"{dest}/answers-{v}.tsv", "w").write("\n".join(
            [f"# What NVIDIA's libcudart {v} answers with no driver (LD_LIBRARY_PATH without libcuda.so.1), via dlopen:",
             "# error<TAB>code<TAB>cudaGetErrorName<TAB>cudaGetErrorString for 0..1000 and -1; call<TAB>name<TAB>return code<TAB>out value."]
            + provenance(v) + ans) + "\n")
        nd = no_driver(v)
        facts[v]["nodriver"] = nd
        if v == "12.9":
            open(f"{dest}/no-driver-12.9.tsv", "w").write("\n".join(
                ["# scripts/gen-bad-input.py's cases (every cudaError_t export of 12.9, hostile arguments) on NVIDIA's",
                 "# libcudart.so.12 with no driver, compiled against 12.9's headers with __CUDA_API_VERSION_INTERNAL",
                 "# so that each case calls the symbol it names. symbol#case<TAB>cudaGetErrorName of the return."]
                + provenance(v) + nd) + "\n")
    open(f"{dest}/cuda12-vs-13.txt", "w").write("\n".join(diff(facts)) + "\n")
    if check:
        bad = []
        for n in os.listdir(dest):
            committed = f"{ROOT}/tests/data/abi/{n}"
            if not os.path.exists(committed) or open(committed).read() != open(f"{dest}/{n}").read():
                bad.append(n)
        shutil.rmtree(TMP)
        if bad:
            sys.exit(f"out of date: {', '.join(bad)} (run scripts/gen-abi-diff.py)")
        print("tests/data/abi: the generated files match the wheels")
        return
    shutil.rmtree(TMP)


def keyed(rows, nkey):
    d = {}
    for r in rows:
        f = r.split(" ", nkey)
        d[tuple(f[:nkey])] = f[nkey] if len(f) > nkey else ""
    return d


def compare(da, db, label, sep):
    """`12 KEY{sep}VALUE` / `13 KEY{sep}VALUE` / `~ KEY: V12 | V13` rows."""
    rows = []
    for k in sorted(set(da) | set(db)):
        if k not in db:
            rows.append(f"12 {label(k)}{sep}{da[k]}")
        elif k not in da:
            rows.append(f"13 {label(k)}{sep}{db[k]}")
        elif da[k] != db[k]:
            rows.append(f"~ {label(k)}: {da[k]} | {db[k]}")
    return rows


def diff(facts):
    a, b = facts["12.9"], facts["13.0"]
    out = ["# CUDA 12.9 (libcudart.so.12) against CUDA 13.0 (libcudart.so.13): what differs, derived by scripts/gen-abi-diff.py",
           "# from headers-12.9.txt, headers-13.0.txt, answers-*.tsv and the bad-input suite on both libraries with no driver.",
           "# Sources: " + VERSIONS["12.9"]["wheel"] + "; " + VERSIONS["13.0"]["wheel"] + ".",
           "# Lines: `12 ...` only in 12.9, `13 ...` only in 13.0, `~ KEY: 12.9 VALUE | 13.0 VALUE` in both, different.", ""]
    ea, eb = {r.split()[1] for r in a["export"]}, {r.split()[1] for r in b["export"]}
    out += section("exports only in 12.9", [f"12 {n}" for n in sorted(ea - eb)])
    out += section("exports only in 13.0", [f"13 {n}" for n in sorted(eb - ea)])
    pa, pb = keyed(a["proto"], 2), keyed(b["proto"], 2)
    rows = []
    for (_, n) in sorted(set(pa) & set(pb)):
        if n in ea and n in eb and pa[("proto", n)] != pb[("proto", n)]:
            rows.append(f"~ {n}: {pa[('proto', n)]} | {pb[('proto', n)]}")
    out += section("prototypes that differ for a symbol both export", rows)
    rows = [f"12 {n} {pa[('proto', n)]}" for (_, n) in sorted(pa) if n in ea - eb]
    out += section("prototypes of the 12.9-only exports", rows)
    missing = sorted(n for n in ea if n.startswith("cuda") and ("proto", n) not in pa)
    out += section("12.9 exports with no prototype in cuda_runtime_api.h", [f"12 {n}" for n in missing])
    ca, cb = keyed(a["call"], 3), keyed(b["call"], 3)
    rows = []
    for k in sorted(set(ca) | set(cb)):
        va, vb = ca.get(k, k[2]), cb.get(k, k[2])
        if va != vb:
            rows.append(f"~ {k[1]} {k[2]}: {va} | {vb}")
    out += section("symbols a program calls, by name and default-stream mode, that differ", rows)
    sa = {tuple(r.split()[1:2]): r.split()[2:] for r in a["layout"] if r.startswith("struct ")}
    sb = {tuple(r.split()[1:2]): r.split()[2:] for r in b["layout"] if r.startswith("struct ")}
    out += section("structs only in 12.9", [f"12 {k[0]} {' '.join(v)}" for k, v in sorted(sa.items()) if k not in sb])
    out += section("structs only in 13.0", [f"13 {k[0]} {' '.join(v)}" for k, v in sorted(sb.items()) if k not in sa])
    out += section("struct size/alignment that differ", [f"~ {k[0]}: {' '.join(sa[k])} | {' '.join(sb[k])}" for k in sorted(set(sa) & set(sb)) if sa[k] != sb[k]])
    fa = keyed([r for r in a["layout"] if r.startswith("field ")], 3)
    fb = keyed([r for r in b["layout"] if r.startswith("field ")], 3)
    common = {k[0] for k in sa} & {k[0] for k in sb}
    fa = {k: v for k, v in fa.items() if k[1] in common}
    fb = {k: v for k, v in fb.items() if k[1] in common}
    out += section("fields (offset size type) that differ in structs both have",
                   compare(fa, fb, lambda k: f"{k[1]}.{k[2]}", " "))
    na = keyed([r for r in a["layout"] if r.startswith("enum ")], 3)
    nb = keyed([r for r in b["layout"] if r.startswith("enum ")], 3)
    out += section("enumerators that differ", compare(na, nb, lambda k: f"{k[1]}::{k[2]}", " = "))
    out += section("integer macros that differ", compare(keyed(a["define"], 2), keyed(b["define"], 2), lambda k: k[1], " = "))
    ha, hb = keyed(a["hidden"], 2), keyed(b["hidden"], 2)
    out += section("crt/ declarations of the __cuda* API that differ", compare(ha, hb, lambda k: k[1], " "))
    out += section("__cuda* exports only in 12.9", [f"12 {n}" for n in sorted(ea - eb) if n.startswith("__cuda")])
    out += section("__cuda* exports only in 13.0", [f"13 {n}" for n in sorted(eb - ea) if n.startswith("__cuda")])
    out += section("__cuda* declared in crt/host_runtime.h 12.9 but not exported by libcudart.so.12",
                   [f"12 {k[1]}" for k in sorted(ha) if k[1] not in ea])
    aa = {tuple(r.split("\t")[:2]): r.split("\t")[2:] for r in a["answers"]}
    ab = {tuple(r.split("\t")[:2]): r.split("\t")[2:] for r in b["answers"]}
    rows = []
    for k in sorted(set(aa) | set(ab), key=lambda k: (k[0], int(k[1]) if k[1].lstrip("-").isdigit() else 0, k[1])):
        if aa.get(k) != ab.get(k):
            rows.append(f"~ {' '.join(k)}: {' / '.join(aa.get(k, ['-']))} | {' / '.join(ab.get(k, ['-']))}")
    out += section("no-driver answers (error names/strings, versions) that differ", rows)
    ra = dict(r.split("\t", 1) for r in a["nodriver"])
    rb = dict(r.split("\t", 1) for r in b["nodriver"])
    codes = {}
    for r in ra.values():
        codes[r] = codes.get(r, 0) + 1
    out += section("no-driver codes of NVIDIA's 12.9 library over all its bad-input cases (code count)",
                   [f"12 {c} {n}" for c, n in sorted(codes.items())])
    rows = [f"~ {k}: {ra[k]} | {rb[k]}" for k in sorted(set(ra) & set(rb)) if ra[k] != rb[k]]
    out += section(f"bad-input cases both libraries run ({len(set(ra) & set(rb))}) whose no-driver code differs", rows)
    syms_a = sorted({k.split('#')[0] for k in ra} - {k.split('#')[0] for k in rb})
    out += section("symbols with bad-input cases only on 12.9 (their codes are in no-driver-12.9.tsv)", [f"12 {s}" for s in syms_a])
    return out


if __name__ == "__main__":
    main()
