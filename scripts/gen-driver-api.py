#!/usr/bin/env python3
"""Generate the driver interposer's list of driver functions and enums.

The one list of CUDA driver API signatures the interposer (libcuda.so.1 of
cudart-shim, crate `interposer/`) exports, traces and decodes:

- every function declared by cuda.h of the pinned CUDA 13.0 wheel, under the
  names the driver exports them: the header is preprocessed with
  `__CUDA_API_VERSION_INTERNAL` defined, as NVIDIA builds the driver, so the
  current versions appear under their versioned names (`cuMemAlloc_v2`,
  `cuCtxCreate_v4`), the per-thread default stream flavours under `_ptds` /
  `_ptsz`, and the older versions under their old names;
- the profiler entry points typed by cudaProfilerTypedefs.h of the same wheel
  (its `PFN_<name>_v<N>` typedefs; the wheel lacks cudaProfiler.h, which that
  header includes, so it is read as text, not preprocessed): those whose
  parameter types cuda.h resolves, i.e. cuProfilerStart and cuProfilerStop,
  which open and close capture windows and so must be traced even in a
  program that never loads our runtime. They follow cuda.h's functions in the
  list, so the ids of cuda.h's functions do not move. cuProfilerInitialize
  stays untyped: its `CUoutput_mode` enum is declared only in cudaProfiler.h;
- the other names the real driver exports (OpenGL, EGL, VDPAU, profiler and
  debugger entry points whose headers need system headers we do not have):
  read from tests/data/abi/libcuda-580-exports.txt; they are exported as
  untyped jumps to the real driver (no tracing, any signature);
- every C enum of cuda.h, by name and value, for decoding arguments and
  results.

Names, types and values come from NVIDIA's header (the authority); the Rust
shape is ours. Regenerate rather than edit:

    scripts/gen-driver-api.py > interposer/src/generated/api.rs

The script preprocesses cuda.h with the C compiler `cc`.
"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INC = os.path.join(ROOT, ".cache/cuda/nvidia/cu13/include")
EXPORTS = os.path.join(ROOT, "tests/data/abi/libcuda-580-exports.txt")

src = subprocess.run(["cc", "-E", "-P", "-D__CUDA_API_VERSION_INTERNAL", "-I", INC, "-x", "c", "-"],
                     input="#include <cuda.h>\n", capture_output=True, text=True, check=True).stdout
src = re.sub(r"\s+", " ", src)

# ---- typedefs -------------------------------------------------------------
# Kinds (the interposer's ArgKind): how a value is passed and how it is shown.
ENUMS = {}     # C typedef name -> [(name, value)]
SCALAR = {     # C type -> (Rust type, kind)
    "int": ("c_int", "INT"), "unsigned int": ("c_uint", "UINT"), "unsigned": ("c_uint", "UINT"),
    "unsigned short": ("u16", "UINT"), "unsigned char": ("u8", "UINT"), "size_t": ("usize", "UINT"),
    "unsigned long long": ("u64", "UINT"), "float": ("f32", "F32"), "char": ("c_char", "INT"),
    "uint32_t": ("u32", "UINT"), "uint64_t": ("u64", "UINT"), "short": ("i16", "INT"),
}
# Structs passed by value: (Rust name, size in bytes, alignment word). Any
# other by-value struct stops the script (it would need its layout here).
BYVALUE = {"CUmemLocation": ("CUmemLocation", 8, "u32"), "CUipcMemHandle": ("CUipcHandle", 64, "u8"),
           "CUipcEventHandle": ("CUipcHandle", 64, "u8")}
# Integer handles and addresses: shown in hex.
HEX = {"CUdeviceptr", "CUdeviceptr_v1", "CUdeviceptr_v2", "CUtexObject", "CUtexObject_v1", "CUsurfObject",
       "CUsurfObject_v1", "CUmemGenericAllocationHandle", "CUmemGenericAllocationHandle_v1", "cuuint64_t"}
ALIAS = {}     # typedef name -> underlying C text
HANDLES = set()

for m in re.finditer(r"typedef enum \w* ?\{(.*?)\} ?(\w+) ?;", src):
    body, name = m.group(1), m.group(2)
    vals, nxt, known = [], 0, {}
    for item in body.split(","):
        m2 = re.match(r"\s*(\w+)\s*(?:=\s*(.+?))?\s*$", item)
        if not m2:
            continue
        n, v = m2.group(1), m2.group(2)
        if v is None:
            val = nxt
        else:
            v = re.sub(r"(?<=[0-9a-fA-F])[uUlL]+\b", "", v.strip())
            val = int(eval(v, {"__builtins__": {}}, known))
        known[n] = val
        vals.append((n, val))
        nxt = val + 1
    ENUMS[name] = vals
for m in re.finditer(r"typedef (struct|union) \w+ ?\* ?(\w+) ?;", src):
    HANDLES.add(m.group(2))
for m in re.finditer(r"typedef \w+ ?\( ?\* ?(\w+) ?\)", src):
    HANDLES.add(m.group(1))   # function pointers
for m in re.finditer(r"typedef ((?:unsigned |signed )?(?:long long|int|short|char|\w+)) (\w+) ?;", src):
    ALIAS[m.group(2)] = m.group(1)
for m in re.finditer(r"typedef (?:struct|union) \w* ?\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\} ?(\w+) ?;", src):
    ALIAS.setdefault(m.group(1), "struct")
for m in re.finditer(r"typedef struct (\w+) (\w+) ?;", src):
    ALIAS.setdefault(m.group(2), "struct")


def rust_of(cty):
    """(Rust type, kind, enum) of a C parameter type (without its name)."""
    t = cty.replace("const ", "").strip()
    if t.endswith("*") or cty.strip().endswith("]"):
        base = t.rstrip("* ").strip()
        if cty.replace(" ", "") in ("constchar*",):
            return ("*const c_char", "STR", None)
        # An out-parameter of a scalar or handle: its value is shown after a
        # successful call.
        if t.count("*") == 1 and "const" not in cty:
            r = resolve(base, strict=False)
            if r and r[1] in ("INT", "UINT", "ENUM") and r[0] in ("c_int", "c_uint", "u32"):
                return ("*mut c_void", "OUT32", None)
            if r and (r[0] in ("u64", "usize") or r[1] == "PTR"):
                return ("*mut c_void", "OUT64", None)
        return ("*mut c_void", "PTR", None)
    r = resolve(t)
    if r is None:
        sys.exit(f"gen-driver-api: unknown type {cty!r}")
    return r


def resolve(t, strict=True):
    seen = 0
    name = t
    while True:
        if t in ENUMS:
            return ("c_int", "ENUM", t)
        if t in HANDLES:
            return ("*mut c_void", "PTR", None)
        if t in BYVALUE:
            return (BYVALUE[t][0], "STRUCT", None)
        if t in HEX or name in HEX:
            rt = SCALAR[ALIAS.get(t, t)][0] if ALIAS.get(t, t) in SCALAR else "u64"
            if t in SCALAR:
                rt = SCALAR[t][0]
            return (rt, "HEX", None)
        if t in SCALAR:
            return SCALAR[t] + (None,)
        if t in ALIAS and ALIAS[t] != "struct":
            t = ALIAS[t]
            seen += 1
            if seen > 10:
                return None
            continue
        if t in ALIAS:
            if not strict:
                return None
            sys.exit(f"gen-driver-api: struct {name} passed by value; add its layout to BYVALUE")
        return None


def parse_params(name, params, strict):
    """[(name, Rust type, kind, enum)] of a C parameter list; None when a type
    does not resolve and not `strict` (the script stops when `strict`)."""
    args = []
    if params in ("", "void"):
        return args
    for p in params.split(","):
        p = p.strip()
        pm = re.match(r"(.*?)\b(\w+) ?(\[ ?\w* ?\])?$", p)
        cty, pname = pm.group(1).strip(), pm.group(2)
        if pm.group(3):
            cty += " *"
        if cty == "" or pname in ("int", "unsigned", "void"):
            sys.exit(f"gen-driver-api: unnamed parameter in {name}: {p!r}")
        base = cty.replace("const ", "").rstrip("* ").strip()
        if not strict and "*" not in cty and resolve(base, strict=False) is None:
            return None
        args.append((pname, *rust_of(cty)))
    return args


# ---- functions --------------------------------------------------------------
funcs = []
for m in re.finditer(r"\bCUresult (cu\w+) ?\(([^;{)]*)\) ?;", src):
    name, params = m.group(1), m.group(2).strip()
    args = parse_params(name, params, strict=True)
    funcs.append((name, args))

# ---- profiler entry points (cudaProfilerTypedefs.h) ---------------------------
# Read as text: the header includes cudaProfiler.h, which the wheel lacks.
# The driver exports the base name (`cuProfilerStart`, version 4000 in the
# typedef's name is the CUDA version that introduced it).
PROFILER_H = os.path.join(INC, "cudaProfilerTypedefs.h")
prof_src = re.sub(r"/\*.*?\*/", " ", open(PROFILER_H).read(), flags=re.S)
prof_src = re.sub(r"\s+", " ", prof_src)
PROFILER_UNTYPED = []   # declared there, a parameter type not resolved
for m in re.finditer(r"typedef CUresult \(CUDAAPI \*PFN_(cu\w+?)_v\d+\) ?\(([^;)]*)\) ?;", prof_src):
    name, params = m.group(1), m.group(2).strip()
    args = parse_params(name, params, strict=False)
    if args is None:
        PROFILER_UNTYPED.append(name)
    elif name not in {f[0] for f in funcs}:
        funcs.append((name, args))
if not any(f[0] == "cuProfilerStart" for f in funcs):
    sys.exit("gen-driver-api: cuProfilerStart not typed from cudaProfilerTypedefs.h")

seen = set()
funcs = [f for f in funcs if not (f[0] in seen or seen.add(f[0]))]
declared = {f[0] for f in funcs}
exports = [l.split()[-1] for l in open(EXPORTS) if l.split() and l.split()[-2] in ("T", "W")]
untyped = sorted(n for n in set(exports) - declared)
missing = sorted(declared - set(exports))

# Functions the interposer writes by hand (the entry-point queries).
SPECIAL = {"cuGetProcAddress", "cuGetProcAddress_v2"}

used_enums = sorted({a[3] for _, args in funcs for a in args if a[3]} | {"CUresult"})
RUST_KW = {"type", "ref", "fn", "mod", "in", "loop", "match", "move", "use", "where", "impl", "crate", "self", "box"}

out = ["// @generated by scripts/gen-driver-api.py from cuda.h and cudaProfilerTypedefs.h of the",
       "// CUDA 13.0 wheel (nvidia-cuda-runtime 13.0.96) and tests/data/abi/libcuda-580-exports.txt.",
       "// Regenerate rather than edit.",
       f"// {len(funcs)} typed functions, {len(untyped)} untyped exports, {len(used_enums)} enums.",
       "", "#![allow(non_upper_case_globals)]", "", "use crate::desc::{kind::*, ArgDesc, EnumDesc, FnDesc, Named};", ""]
for e in used_enums:
    vals = ENUMS[e]
    out.append(f"pub static E_{e}: [Named; {len(vals)}] = [" + ", ".join(f"Named::new({v}, \"{n}\")" for n, v in vals) + "];")
out.append("")
out.append("/// Every enum the list decodes, by C name.")
out.append(f"pub static ENUMS: [EnumDesc; {len(used_enums)}] = [")
for e in used_enums:
    out.append(f"    EnumDesc::new(\"{e}\", &E_{e}),")
out.append("];")
out.append(f"pub const RESULT_ENUM: usize = {used_enums.index('CUresult')};")
out.append("")
out.append("/// The typed functions, in export order (the index is the function's id).")
out.append(f"pub static FNS: [FnDesc; {len(funcs)}] = [")
for name, args in funcs:
    descs = ", ".join(
        f"ArgDesc::new(\"{a[0]}\", {a[2]}, {used_enums.index(a[3]) if a[3] else 0})" for a in args)
    out.append(f"    FnDesc::new(\"{name}\", &[{descs}]),")
out.append("];")
out.append("")
for i, (name, _) in enumerate(funcs):
    if name in SPECIAL:
        out.append(f"pub const ID_{name}: u32 = {i};")
out.append("")
out.append("/// `driver_api_list!(m)` calls `m!` with one line per typed function,")
out.append("/// `id name(arg: type, ...);`, except those written by hand (`ID_*`).")
out.append("#[macro_export]")
out.append("macro_rules! driver_api_list {")
out.append("    ($m:ident) => {")
out.append("        $m! {")
for i, (name, args) in enumerate(funcs):
    params = ", ".join(f"{a[0] + '_' if a[0] in RUST_KW else a[0]}: {a[1]}" for a in args)
    if name in SPECIAL:
        continue
    out.append(f"            {i} {name}({params});")
out.append("        }")
out.append("    };")
out.append("}")
out.append("")
out.append("/// Exports of the real driver with no usable declaration in cuda.h or")
out.append("/// cudaProfilerTypedefs.h: untyped jumps. Of the profiler's, " + (", ".join(PROFILER_UNTYPED) or "none") + ":")
out.append("/// a parameter type declared only in cudaProfiler.h, which the wheel lacks.")
out.append(f"pub const UNTYPED: [&str; {len(untyped)}] = [" + ", ".join(f"\"{n}\"" for n in untyped) + "];")
out.append("#[macro_export]")
out.append("macro_rules! driver_untyped_list {")
out.append("    ($m:ident) => { $m! { " + " ".join(f"{i} {n}" for i, n in enumerate(untyped)) + " } };")
out.append("}")
if missing:
    out.append(f"// Declared by cuda.h, not exported by driver 580: {', '.join(missing)}")
print("\n".join(out))
