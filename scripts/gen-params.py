#!/usr/bin/env python3
"""Generate the typed parameter blocks and the one function-id space.

Sources (the lists that already drive the exports and the interposer):
  - runtime: the literal C signatures of the exports in src/api/*.rs (the 13
    surface; src/api/abi12.rs holds the 12.9 forms) and their C prototypes in
    include/cudart_shim.h (for the C field types);
  - driver: interposer/src/generated/api.rs (from cuda.h and
    cudaProfilerTypedefs.h).

Writes:
  src/control/params.rs          one #[repr(C)] struct per function, fields
                                 named like the C parameters; ids and names
  include/cudart_shim_params.h   the same structs in C (`NAME_params`) and the ids
  python/cudart_shim/_tables.py  the Python module's own copy of the names, the
                                 ids and the error names (runtime: the crate's
                                 src/types/error_codes.rs; driver: CUresult),
                                 so it needs no header (issue #33)

Ids: runtime names in byte order (13 and 12 forms share a name and an id),
then driver names in the interposer's order (id = DRIVER_BASE + its index).
`--check` compares with the committed files instead of writing them
(tests/params.rs runs it).
"""
import re, sys, pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent

def split_top(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '(<[':
            depth += 1
        elif ch in ')>]':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur); cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [x.strip() for x in out if x.strip()]

FN_RE = re.compile(r'pub\s+unsafe\s+extern\s+"C"\s+fn\s+(\w+)\s*\(', re.S)

def rust_exports(path):
    text = path.read_text()
    res = []
    for m in FN_RE.finditer(text):
        name = m.group(1)
        i = m.end(); depth = 1; j = i
        while depth:
            c = text[j]
            if c == '(':
                depth += 1
            elif c == ')':
                depth -= 1
            j += 1
        args = []
        for a in split_top(text[i:j - 1]):
            n, t = a.split(':', 1)
            args.append((n.strip(), ' '.join(t.split())))
        res.append((name, args))
    return res

def c_prototypes(path):
    protos = {}
    text = path.read_text()
    for m in re.finditer(r'^[A-Za-z_][\w \*]*?\b(\w+)\(([^;]*?)\);', text, re.M):
        name, args = m.group(1), m.group(2)
        if name in protos:  # a C++ overload further down (the header's inline helpers)
            continue
        if not (name.startswith('cuda') or name.startswith('__cuda')):
            continue
        fields = []
        args = ' '.join(args.split())
        if args in ('', 'void'):
            protos[name] = []
            continue
        for a in split_top(args):
            a = re.sub(r'\s*CUDART_SHIM_DEFAULT\(.*\)$', '', a)
            fm = re.match(r'(.*?)(\w+)((?:\[\w*\])*)$', a)
            typ, field, arr = fm.group(1).strip(), fm.group(2), fm.group(3)
            if arr:  # an array parameter is a pointer
                typ = typ + ' *'
            fields.append((typ, field))
        protos[name] = fields
    return protos

DRV_C = {
    '*mut c_void': 'void *', '*const c_char': 'const char *', 'c_uint': 'unsigned int', 'c_int': 'int',
    'usize': 'size_t', 'u64': 'unsigned long long', 'u32': 'unsigned int', 'u16': 'unsigned short',
    'u8': 'unsigned char', 'f32': 'float', 'CUmemLocation': 'cudartShimCUmemLocation',
    'CUipcHandle': 'cudartShimCUipcHandle',
}

# The two functions the interposer writes by hand (interposer/src/proc_address.rs),
# left out of the generated list's macro; their ids are in its FNS table.
HAND_WRITTEN = {
    'cuGetProcAddress_v2': [('symbol', '*const c_char'), ('pfn', '*mut c_void'), ('cudaVersion', 'c_int'), ('flags', 'u64'), ('symbolStatus', '*mut c_void')],
    'cuGetProcAddress': [('symbol', '*const c_char'), ('pfn', '*mut c_void'), ('cudaVersion', 'c_int'), ('flags', 'u64')],
}

def driver_list(path):
    """(id, name, [(arg, type)]) for every function of the interposer's FNS
    table (id = index), with the types of its macro list."""
    text = path.read_text()
    typed = {}
    for m in re.finditer(r'^\s+(\d+) (\w+)\((.*)\);$', text, re.M):
        args = []
        for a in split_top(m.group(3)):
            n, t = a.split(':', 1)
            args.append((n.strip(), ' '.join(t.split())))
        typed[m.group(2)] = (int(m.group(1)), args)
    fns = re.search(r'pub static FNS: \[FnDesc; \d+\] = \[(.*?)\n\];', text, re.S).group(1)
    res = []
    for i, m in enumerate(re.finditer(r'FnDesc::new\("(\w+)"', fns)):
        name = m.group(1)
        if name in typed:
            assert typed[name][0] == i, name
            res.append((i, name, typed[name][1]))
        else:
            res.append((i, name, HAND_WRITTEN[name]))
    return res

def c_field(typ, name):
    return f'    {typ}{"" if typ.endswith("*") else " "}{name};'

def main():
    check = '--check' in sys.argv
    api = ROOT / 'src/api'
    r13, r12 = {}, {}
    for f in sorted(api.glob('*.rs')):
        if f.name in ('shim.rs', 'mod.rs'):
            continue
        for name, args in rust_exports(f):
            (r12 if f.name == 'abi12.rs' else r13)[name] = args
    protos = c_prototypes(ROOT / 'include/cudart_shim.h')
    drv = driver_list(ROOT / 'interposer/src/generated/api.rs')
    runtime = sorted(set(r13) | set(r12))
    ids = {n: i for i, n in enumerate(runtime)}
    base = len(runtime)
    total = base + len(drv)

    rs = ['// @generated by scripts/gen-params.py from the signatures of src/api/*.rs and',
          '// interposer/src/generated/api.rs. Regenerate rather than edit.',
          '//! Typed parameter blocks: one `#[repr(C)]` struct per function, its fields',
          '//! named and typed like the C parameters, and the one id space over runtime',
          '//! and driver names. The C declarations are in include/cudart_shim_params.h.',
          '#![allow(non_camel_case_types, non_snake_case, dead_code, clippy::all)]',
          '',
          'use crate::types::*;',
          '#[allow(unused_imports)]',
          'use std::ffi::{c_char, c_double, c_float, c_int, c_long, c_longlong, c_uint, c_ulong, c_ulonglong, c_void};',
          '',
          f'/// Runtime functions (ids `0..RUNTIME_COUNT`).',
          f'pub const RUNTIME_COUNT: u32 = {base};',
          f'/// Driver function `i` of the interposer\'s list has id `DRIVER_BASE + i`.',
          f'pub const DRIVER_BASE: u32 = {base};',
          f'/// Every id is below this.',
          f'pub const COUNT: u32 = {total};',
          '',
          '/// Name of each function, by id.',
          f'pub static NAMES: [&str; {total}] = [']
    for n in runtime:
        rs.append(f'    "{n}",')
    for _, n, _ in drv:
        rs.append(f'    "{n}",')
    rs.append('];')
    rs.append('')

    def rust_struct(name, args, out, indent=''):
        out.append(f'{indent}#[repr(C)]')
        if args:
            out.append(f'{indent}pub struct {name} {{')
            for a, t in args:
                out.append(f'{indent}    pub {a}: {t},')
            out.append(f'{indent}}}')
        else:
            out.append(f'{indent}pub struct {name} {{}}')
        out.append(f'{indent}impl {name} {{ pub const ID: u32 = {ids[name]}; }}')

    for n in sorted(r13):
        rust_struct(n, r13[n], rs)
    rs.append('')
    rs.append('/// The 12.9 forms (src/api/abi12.rs): same names and ids, their own signatures.')
    rs.append('pub mod abi12 {')
    rs.append('    use crate::types::*;')
    rs.append('    #[allow(unused_imports)]')
    rs.append('    use crate::types::abi12::*;')
    rs.append('    #[allow(unused_imports)]')
    rs.append('    use std::ffi::{c_char, c_double, c_float, c_int, c_long, c_longlong, c_uint, c_ulong, c_ulonglong, c_void};')
    for n in sorted(r12):
        rust_struct(n, r12[n], rs, '    ')
    rs.append('}')
    rs.append('')

    h = ['/* @generated by scripts/gen-params.py from the exports of cudart-shim (runtime,',
         ' * the 13 surface) and the driver interposer\'s list (cuda.h). Do not edit. */',
         '/* Typed parameter blocks for hooks (cudart_shim_ext.h): `call->params` points',
         ' * at NAME_params for function NAME (NULL for a function without parameters).',
         ' * Driver structs use plain C types (handles are pointers, CUdeviceptr is',
         ' * unsigned long long): include cuda.h and cast where you need its names. */',
         '#ifndef CUDART_SHIM_PARAMS_H',
         '#define CUDART_SHIM_PARAMS_H',
         '',
         '#include "cudart_shim.h"',
         '',
         '#ifdef __cplusplus',
         'extern "C" {',
         '#endif',
         '',
         '/* A CUmemLocation passed by value (cuda.h: an enum, then an int). */',
         'typedef struct cudartShimCUmemLocation { int type; int id; } cudartShimCUmemLocation;',
         '/* A CUipcMemHandle / CUipcEventHandle passed by value. */',
         'typedef struct cudartShimCUipcHandle { char reserved[64]; } cudartShimCUipcHandle;',
         '',
         f'#define CUDART_SHIM_RUNTIME_COUNT {base}',
         f'#define CUDART_SHIM_DRIVER_BASE {base}',
         f'#define CUDART_SHIM_FUNCTION_COUNT {total}',
         '']
    missing = []
    for n in runtime:
        h.append(f'#define CUDART_SHIM_ID_{n} {ids[n]}')
    for i, n, _ in drv:
        h.append(f'#define CUDART_SHIM_ID_{n} {base + i}')
    h.append('')
    for n in sorted(r13):
        if not r13[n]:
            continue
        fields = protos.get(n)
        if fields is None or [f for _, f in fields] != [a.removeprefix('r#') for a, _ in r13[n]]:
            missing.append(n)
            continue
        h.append(f'typedef struct {n}_params {{')
        for t, f in fields:
            h.append(c_field(t, f))
        h.append(f'}} {n}_params;')
    for i, n, args in drv:
        if not args:
            continue
        h.append(f'typedef struct {n}_params {{')
        for a, t in args:
            h.append(c_field(DRV_C[t], a))
        h.append(f'}} {n}_params;')
    h += ['', '#ifdef __cplusplus', '}', '#endif', '', '#endif /* CUDART_SHIM_PARAMS_H */', '']

    # Driver structs in Rust too (for the Rust stages: ledger, faults).
    rs.append('/// The driver functions of the interposer\'s list, with its plain types')
    rs.append('/// (handles are `*mut c_void`, `CUdeviceptr` is `u64`).')
    rs.append('pub mod driver {')
    rs.append('    #[allow(unused_imports)]')
    rs.append('    use std::ffi::{c_char, c_int, c_uint, c_void};')
    rs.append('    /// `CUmemLocation` by value.')
    rs.append('    #[repr(C)] #[derive(Clone, Copy)] pub struct CUmemLocation { pub type_: c_int, pub id: c_int }')
    rs.append('    /// `CUipcMemHandle` / `CUipcEventHandle` by value.')
    rs.append('    #[repr(C)] #[derive(Clone, Copy)] pub struct CUipcHandle { pub reserved: [u8; 64] }')
    for i, n, args in drv:
        rs.append('    #[repr(C)]')
        if args:
            rs.append(f'    pub struct {n} {{ ' + ', '.join(f'pub {a}: {t}' for a, t in args) + ' }')
        else:
            rs.append(f'    pub struct {n} {{}}')
        rs.append(f'    impl {n} {{ pub const ID: u32 = {base + i}; }}')
    rs.append('}')
    rs.append('')

    # The driver's result names (the interposer's CUresult enum), for faults.
    m = re.search(r'pub static E_CUresult: \[Named; \d+\] = \[(.*?)\];', (ROOT / 'interposer/src/generated/api.rs').read_text())
    results = re.findall(r'Named::new\((-?\d+), "(\w+)"\)', m.group(1))
    rs.append('/// Every `CUresult` by name (cuda.h), for naming driver errors.')
    rs.append(f'pub static DRIVER_RESULTS: [(i32, &str); {len(results)}] = [')
    for v, n in results:
        rs.append(f'    ({v}, "{n}"),')
    rs.append('];')
    rs.append('')

    # Sizes, for the layout test (tests/params.rs compares them with C's).
    rs.append('/// `(name, size of its block)` of every C-declared block, for the layout test.')
    rs.append('pub fn layouts() -> Vec<(&\'static str, usize)> {')
    rs.append('    use std::mem::size_of;')
    rs.append('    vec![')
    for n in sorted(r13):
        if r13[n] and n not in missing:
            rs.append(f'        ("{n}", size_of::<{n}>()),')
    for i, n, args in drv:
        if args:
            rs.append(f'        ("{n}", size_of::<driver::{n}>()),')
    rs.append('    ]')
    rs.append('}')
    rs.append('')

    # The Python module's tables (no header needed at run time).
    rt_errors = re.findall(r'^pub const (cuda\w+): cudaError_t = cudaError_t\((\d+)\);$', (ROOT / 'src/types/error_codes.rs').read_text(), re.M)
    assert rt_errors, 'src/types/error_codes.rs: no error constants'
    py = ['# @generated by scripts/gen-params.py from src/api/*.rs, interposer/src/generated/api.rs',
          '# and src/types/error_codes.rs (the tables the library itself uses). Do not edit:',
          '# tests/params.rs fails when this file is stale.',
          '"""Function names and ids, and error names, as the cudart-shim libraries',
          'number and name them: the module knows them without the C headers."""',
          '',
          f'# Runtime function ids are 0..{base - 1} (the index here); driver function',
          '# `i` of DRIVER_NAMES has id DRIVER_BASE + i.',
          f'DRIVER_BASE = {base}',
          'RUNTIME_NAMES = (']
    py += [f'    "{n}",' for n in runtime]
    py += [')', 'DRIVER_NAMES = (']
    py += [f'    "{n}",' for _, n, _ in drv]
    py += [')', '', '# Every cudaError_t name (the runtime\'s table, from NVIDIA\'s headers).', 'RUNTIME_ERRORS = {']
    py += [f'    "{n}": {v},' for n, v in rt_errors]
    py += ['}', '', '# Every CUresult name (cuda.h, the interposer\'s list).', 'DRIVER_ERRORS = {']
    py += [f'    "{n}": {v},' for v, n in results]
    py += ['}', '']

    outs = {ROOT / 'src/control/params.rs': '\n'.join(rs), ROOT / 'include/cudart_shim_params.h': '\n'.join(h),
            ROOT / 'python/cudart_shim/_tables.py': '\n'.join(py)}
    if missing:
        print('gen-params: no C prototype (or other parameter names) in include/cudart_shim.h for: ' + ', '.join(missing), file=sys.stderr)
    stale = []
    for p, text in outs.items():
        if check:
            if not p.exists() or p.read_text() != text:
                stale.append(str(p.relative_to(ROOT)))
        else:
            p.write_text(text)
    if stale:
        print('stale (run scripts/gen-params.py): ' + ', '.join(stale), file=sys.stderr)
        sys.exit(1)

main()
