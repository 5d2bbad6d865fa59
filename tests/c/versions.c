/* Prints what a runtime library answers for its versions:
 *   versions LIB           ->  "runtime R driver D (results 0 0)"
 *   versions LIB new-call  ->  also what a CUDA 13.1+ call answers
 *                              (cudaFuncGetParamCount: "symbol not found"
 *                              on a 13.0 driver), "new-call CODE NAME"
 * LIB is dlopen'ed by path (ours, 12 or 13, or NVIDIA's), so one program
 * asks any of them. tests/coexist_version.rs, scripts/gpu-version. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef int (*get_version)(int *);

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: versions LIBRARY\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    get_version rt = (get_version)dlsym(lib, "cudaRuntimeGetVersion");
    get_version drv = (get_version)dlsym(lib, "cudaDriverGetVersion");
    if (!rt || !drv) {
        fprintf(stderr, "%s has no cudaRuntimeGetVersion/cudaDriverGetVersion\n", argv[1]);
        return 1;
    }
    int r = -1, d = -1;
    int rr = rt(&r), dr = drv(&d);
    printf("runtime %d driver %d (results %d %d)\n", r, d, rr, dr);
    if (argc > 2 && !strcmp(argv[2], "new-call")) {
        typedef int (*param_count)(const void *, size_t *);
        typedef const char *(*error_name)(int);
        param_count f = (param_count)dlsym(lib, "cudaFuncGetParamCount");
        error_name n = (error_name)dlsym(lib, "cudaGetErrorName");
        if (!f || !n) {
            printf("new-call absent\n");
            return 0;
        }
        size_t count = 12345;
        /* Any non-NULL function: NVIDIA's 13.5 runtime answers 36 whatever
         * the arguments on driver 580 (docs/COMPATIBILITY.md). */
        int code = f((const void *)main, &count);
        printf("new-call %d %s count %zu\n", code, n(code), count);
    }
    return 0;
}
