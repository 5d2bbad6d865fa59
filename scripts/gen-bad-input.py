#!/usr/bin/env python3
"""Generate the bad-input program: every cudaError_t export of NVIDIA's
libcudart.so.13 (prototypes from the CUDA 13.0 cuda_runtime_api.h, `_ptds`/
`_ptsz` twins from their base prototype), called with hostile arguments.

usage: gen-bad-input.py CUDA_INCLUDE EXPORT_LIST > bad_input.c

Cases per function: `default` (pointers to a zeroed scratch buffer, integers
0, handles NULL, structs zeroed), then NULL for each pointer, -1 and
0x7fffffff for each integer or enum, -1 and 99 for device numbers, 0 and
SIZE_MAX for sizes. Handles are only ever NULL: a garbage handle is
undefined behaviour in NVIDIA's runtime too. Excluded, with the reason
printed in the program's header: the nvcc registration API (`__cuda*`, whose
arguments are compiler-generated structures) and graphics interop (needs
GL/EGL/VDPAU headers and contexts).

The program runs every function's cases in a child process (one child per
function, restarted after a crash), so a crash is recorded, not fatal, and
prints one line per case: `function#case<TAB>cudaErrorName` or CRASH:<signal>
or TIMEOUT.
"""
import re, sys

inc, export_list = sys.argv[1], sys.argv[2]
# Comment lines (#) in the list say where it came from.
exports = [w for l in open(export_list) if not l.startswith('#') for w in l.split()]
src = open(f"{inc}/cuda_runtime_api.h").read()
src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
src = re.sub(r"__dv\([^)]*\)", "", src)
protos = {}
for m in re.finditer(r"extern\s+[^;{}]*?cudaError_t\s+CUDARTAPI\s+(\w+)\s*\(([^;]*?)\)\s*;", src, re.S):
    protos[m.group(1)] = " ".join(m.group(2).split())
# Declared in cuda_profiler_api.h, which the runtime wheel does not ship.
protos.setdefault("cudaProfilerStart", "void")
protos.setdefault("cudaProfilerStop", "void")

HANDLES = {"cudaStream_t", "cudaEvent_t", "cudaGraph_t", "cudaGraphNode_t", "cudaGraphExec_t", "cudaArray_t",
           "cudaArray_const_t", "cudaMipmappedArray_t", "cudaMipmappedArray_const_t", "cudaMemPool_t",
           "cudaKernel_t", "cudaLibrary_t", "cudaFunction_t", "cudaUserObject_t", "cudaExternalMemory_t",
           "cudaExternalSemaphore_t", "cudaGraphicsResource_t", "cudaAsyncCallbackHandle_t",
           "cudaLogsCallbackHandle", "cudaGraphDeviceNode_t"}
FNPTRS = {"cudaStreamCallback_t", "cudaHostFn_t", "cudaAsyncCallback", "cudaLogsCallback_t"}
EXCLUDE_PREFIX = ("__cuda",)
INTEROP = re.compile(r"GL|EGL|VDPAU|Graphics")


def split_args(a):
    if a.strip() in ("", "void"):
        return []
    out, depth, cur = [], 0, ""
    for ch in a:
        if ch == "," and depth == 0:
            out.append(cur.strip()); cur = ""; continue
        depth += ch == "("; depth -= ch == ")"
        cur += ch
    out.append(cur.strip())
    return out


def classify(decl):
    """(kind, type text, name) for one parameter declaration."""
    if "(" in decl:  # function pointer written out
        name = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl).group(1)
        return "ptr", decl, name
    m = re.match(r"(.*?)(\w+)\s*(\[\s*\])?$", decl)
    ty, name = m.group(1).strip(), m.group(2)
    if m.group(3):
        ty += "*"
    base = re.sub(r"\b(const|struct|enum)\b", "", ty).strip()
    if "*" in ty:
        return "ptr", ty, name
    if base in HANDLES:
        return "handle", ty, name
    if base in FNPTRS:
        return "fnptr", ty, name
    if ty.startswith("struct") or base in ("dim3", "cudaIpcMemHandle_t", "cudaIpcEventHandle_t", "cudaExtent",
                                          "cudaPitchedPtr", "cudaPos", "cudaMemLocation"):
        return "struct", ty, name
    if base in ("size_t",):
        return "size", ty, name
    return "int", ty, name


def cases(args):
    """Yield (label, [C expressions])."""
    default = []
    for kind, ty, name in args:
        default.append({"ptr": f"({ty})scratch", "handle": "0", "fnptr": "0", "struct": f"({ty}){{0}}",
                        "size": "0", "int": f"({ty})0"}[kind])
    yield "default", default
    for i, (kind, ty, name) in enumerate(args):
        variants = []
        if kind == "ptr":
            variants = [(f"{name}=NULL", f"({ty})0")]
        elif kind == "size":
            variants = [(f"{name}=SIZE_MAX", "(size_t)-1"), (f"{name}=4096", "(size_t)4096")]
        elif kind == "int":
            if re.search(r"dev(ice)?(Id|Ordinal)?$|^peerDevice$|^srcDevice$|^dstDevice$", name, re.I) and "unsigned" not in ty:
                variants = [(f"{name}=-1", f"({ty})-1"), (f"{name}=99", f"({ty})99")]
            else:
                variants = [(f"{name}=-1", f"({ty})-1"), (f"{name}=0x7fffffff", f"({ty})0x7fffffff")]
        for label, expr in variants:
            v = list(default)
            v[i] = expr
            yield label, v


funcs, skipped = [], []
for name in exports:
    base = re.sub(r"_pt(ds|sz)$", "", name)
    if name.startswith(EXCLUDE_PREFIX):
        skipped.append((name, "nvcc registration API")); continue
    if INTEROP.search(name):
        skipped.append((name, "graphics interop")); continue
    if base not in protos:
        skipped.append((name, "not a cudaError_t function in cuda_runtime_api.h")); continue
    args = [classify(a) for a in split_args(protos[base])]
    funcs.append((name, protos[base], args))

o = []
o.append("/* @generated by scripts/gen-bad-input.py: every cudaError_t export with hostile arguments. */")
o.append("#define _GNU_SOURCE\n#include <cuda_runtime_api.h>\n#include <signal.h>\n#include <stdint.h>\n#include <stdio.h>\n"
         "#include <stdlib.h>\n#include <string.h>\n#include <sys/wait.h>\n#include <unistd.h>\n")
for n, why in skipped:
    o.append(f"/* skipped: {n}: {why} */")
o.append("static unsigned char scratch_buf[1 << 16] __attribute__((aligned(4096)));")
o.append("static void *scratch = scratch_buf;")
for name, proto, args in funcs:
    if name != re.sub(r"_pt(ds|sz)$", "", name) or name.startswith("cudaProfiler"):
        o.append(f"extern cudaError_t {name}({proto});")
o.append("typedef int (*case_fn)(void);")
table = []
for name, proto, args in funcs:
    for k, (label, exprs) in enumerate(cases(args)):
        fn = f"c_{name}_{k}"
        o.append(f"static int {fn}(void) {{ memset(scratch_buf, 0, sizeof scratch_buf); return (int){name}({', '.join(exprs)}); }}")
        table.append((name, label, fn))
o.append("struct kase { const char *fn, *label; case_fn run; };")
o.append("static const struct kase cases[] = {")
o += [f'    {{"{n}", "{l}", {f}}},' for n, l, f in table]
o.append("};")
o.append(r'''
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* Run cases [from, to) in a child; it prints "B i" before and "E i code"
 * after each. Returns the index of the case it died in, or `to`. */
static int run_group(int from, int to, const char **results) {
    int fd[2];
    if (pipe(fd)) { perror("pipe"); exit(2); }
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        FILE *w = fdopen(fd[1], "w");
        for (int i = from; i < to; i++) {
            fprintf(w, "B %d\n", i); fflush(w);
            alarm(20);
            int code = cases[i].run();
            alarm(0);
            /* The name is looked up here: the parent must never call into
             * the runtime, or its children inherit an initialized driver. */
            fprintf(w, "E %d %s\n", i, cudaGetErrorName((cudaError_t)code)); fflush(w);
        }
        _exit(0);
    }
    close(fd[1]);
    FILE *r = fdopen(fd[0], "r");
    char line[256], name[200];
    int began = -1, done = from;
    while (fgets(line, sizeof line, r)) {
        int i;
        if (sscanf(line, "E %d %199s", &i, name) == 2) {
            results[i] = strdup(name);
            done = i + 1;
        } else if (sscanf(line, "B %d", &i) == 1) {
            began = i;
        }
    }
    fclose(r);
    int st = 0;
    waitpid(pid, &st, 0);
    if (done < to && began >= done) {
        char buf[64];
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) snprintf(buf, sizeof buf, "TIMEOUT");
        else if (WIFSIGNALED(st)) snprintf(buf, sizeof buf, "CRASH:%s", strsignal(WTERMSIG(st)));
        else snprintf(buf, sizeof buf, "EXIT:%d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        results[began] = strdup(buf);
        return began + 1;
    }
    return to;
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : NULL;
    const char **results = calloc(NCASES, sizeof *results);
    for (int i = 0; i < NCASES;) {
        int j = i;
        while (j < NCASES && !strcmp(cases[j].fn, cases[i].fn)) j++;
        if (!only || strstr(cases[i].fn, only)) {
            int k = i;
            while (k < j) k = run_group(k, j, results);
        }
        i = j;
    }
    for (int i = 0; i < NCASES; i++)
        if (results[i]) printf("%s#%s\t%s\n", cases[i].fn, cases[i].label, results[i]);
    return 0;
}''')
print("\n".join(o))
