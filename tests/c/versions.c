/* Prints what a runtime library answers for its versions:
 *   versions LIB   ->  "runtime R driver D"
 * LIB is dlopen'ed by path (ours, 12 or 13, or NVIDIA's), so one program
 * asks any of them. tests/coexist_version.rs, scripts/gpu-version. */
#include <dlfcn.h>
#include <stdio.h>

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
    return 0;
}
