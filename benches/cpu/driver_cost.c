/* Per-call cost of three driver calls: cuCtxGetCurrent, cuStreamQuery (an
 * idle stream) and cuLaunchKernel (an empty kernel, loaded from PTX), in ns
 * per call, best of 7 rounds. Whatever libcuda.so.1 the library path gives
 * (the real driver, the fake one, or the interposer in front of either), so
 * that the same binary measures each side by side; benches/interposer.rs
 * (CPU, fake driver) and gpu/checks/interposer/interposer.py (GPU) run it A B A B.
 *
 * Entry points come from cuGetProcAddress_v2, as NVIDIA's runtime and
 * PyTorch get them (through the interposer: its wrappers).
 * Build: cc -O2 benches/cpu/driver_cost.c -o driver_cost -ldl
 * Prints: "<function> <ns per call>" per line. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef void *CUcontext, *CUstream, *CUfunction, *CUlibrary, *CUkernel;

static const char PTX[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry empty()\n{\n ret;\n}\n";

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Entry points as NVIDIA's runtime and PyTorch get them: cuGetProcAddress. */
static CUresult (*gpa)(const char *, void **, int, unsigned long long, int *);
static void *get(const char *name) {
    void *p = NULL;
    int st;
    return gpa(name, &p, 13000, 0, &st) == 0 ? p : NULL;
}
#define SYM(h, n, args) CUresult(*n) args = (CUresult(*) args)get(#n); if (!n) { fprintf(stderr, "no %s\n", #n); return 1; }
#define CK(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "%s = %d\n", #x, r_); return 1; } } while (0)

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    gpa = (CUresult(*)(const char *, void **, int, unsigned long long, int *))dlsym(h, "cuGetProcAddress_v2");
    if (!gpa) { fprintf(stderr, "no cuGetProcAddress_v2\n"); return 1; }
    SYM(h, cuInit, (unsigned));
    SYM(h, cuDeviceGet, (int *, int));
    SYM(h, cuDevicePrimaryCtxRetain, (CUcontext *, int));
    SYM(h, cuCtxSetCurrent, (CUcontext));
    SYM(h, cuCtxGetCurrent, (CUcontext *));
    SYM(h, cuStreamCreate, (CUstream *, unsigned));
    SYM(h, cuStreamQuery, (CUstream));
    SYM(h, cuStreamSynchronize, (CUstream));
    SYM(h, cuLibraryLoadData, (CUlibrary *, const void *, void *, void *, unsigned, void *, void *, unsigned));
    SYM(h, cuLibraryGetKernel, (CUkernel *, CUlibrary, const char *));
    SYM(h, cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **));
    int dev;
    CUcontext ctx, cur;
    CUstream s;
    CUlibrary lib;
    CUkernel k;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&s, 1));
    CK(cuLibraryLoadData(&lib, PTX, NULL, NULL, 0, NULL, NULL, 0));
    CK(cuLibraryGetKernel(&k, lib, "empty"));
    double best[3] = {1e18, 1e18, 1e18};
    for (int r = 0; r < 8; r++) {
        double t = now();
        for (long i = 0; i < n; i++) cuCtxGetCurrent(&cur);
        double a = (now() - t) / n;
        t = now();
        for (long i = 0; i < n; i++) cuStreamQuery(s);
        double b = (now() - t) / n;
        /* Launches: in batches of 1000 with a synchronize between batches
         * (untimed), so the queue never fills. */
        long nl = n / 10, done = 0;
        double c = 0;
        while (done < nl) {
            t = now();
            for (int i = 0; i < 1000; i++) cuLaunchKernel((CUfunction)k, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL);
            c += now() - t;
            done += 1000;
            cuStreamSynchronize(s);
        }
        c /= done;
        if (r == 0) continue; /* warm-up round */
        if (a < best[0]) best[0] = a;
        if (b < best[1]) best[1] = b;
        if (c < best[2]) best[2] = c;
    }
    printf("cuCtxGetCurrent %.2f\ncuStreamQuery %.2f\ncuLaunchKernel %.2f\n", best[0], best[1], best[2]);
    return 0;
}
