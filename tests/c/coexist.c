/* A program for tests/coexist.rs: registration (what `import torch` does
 * from constructors) and work, and a launcher that starts two ranks (what
 * torchrun does).
 *
 *   coexist register        registers one fatbinary with 1000 functions
 *                           (and unregisters it at exit), nothing else
 *   coexist work            the same registration, then cudaMalloc,
 *                           cudaMemset, cudaDeviceSynchronize, cudaFree
 *   coexist count           the same registration, then counts the devices
 *                           as torchrun's launcher does (below), nothing else
 *   coexist count-work      counts the devices, then does `work`
 *   coexist count-many N    calls cudaGetDeviceCount N times, nothing else
 *   coexist launcher MODE   registers (no RANK), counts the devices, then
 *                           starts itself twice, as RANK=0 and RANK=1
 *                           (LOCAL_RANK, WORLD_SIZE=2), each in `work` mode;
 *                           waits for both. MODE `quiet`: the launcher makes
 *                           no other call; `busy`: it also does the work.
 *
 * Counting the devices is what torch 2.11's launcher (pt_elastic) did on
 * the GPU (its timeline, 2026-11-28): cudaGetDeviceCount (the runtime's
 * cuInit, cuDeviceGetCount, cuDeviceGet... inside it) and the driver's
 * cuGetExportTable called directly; here through cuGetProcAddress, with
 * cuDriverGetVersion.
 *   torchrun ARGS...        (this program under the name torchrun) the
 *                           launcher, `quiet`: the README's recipe as written
 */
#define _POSIX_C_SOURCE 200809L
#include <cudart_shim.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FUNCTIONS 1000

static unsigned long long wrapper[3] = {0x466243B1ULL | (1ULL << 32), 0, 0};
static char stubs[FUNCTIONS];
static void **handle;

static void unregister(void) { __cudaUnregisterFatBinary(handle); }

static void registration(void) {
    handle = __cudaRegisterFatBinary(wrapper);
    for (int i = 0; i < FUNCTIONS; i++) __cudaRegisterFunction(handle, &stubs[i], "k", "k", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFatBinaryEnd(handle);
    atexit(unregister);
}

static int work(void) {
    void *p = 0;
    if (cudaMalloc(&p, 1 << 20) != cudaSuccess || cudaMemset(p, 0, 1 << 20) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess || cudaFree(p) != cudaSuccess) {
        fprintf(stderr, "CUDA work failed\n");
        return 1;
    }
    return 0;
}

/* The launcher's device count: the runtime's, then driver calls made
 * directly on the libcuda.so.1 the runtime loaded (the interposer under
 * `cudart-shim trace`). */
static int count_devices(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        fprintf(stderr, "cudaGetDeviceCount failed\n");
        return 1;
    }
    /* Through cuGetProcAddress, as torch does (the fake driver exports
     * nothing else by name). */
    typedef int (*proc_fn)(const char *, void **, int, unsigned long long, int *);
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    proc_fn proc = cuda ? (proc_fn)dlsym(cuda, "cuGetProcAddress_v2") : 0;
    if (!proc) return 0;
    void *version = 0, *table = 0;
    int status = 0, v = 0;
    static const unsigned char id[16] = {1};
    const void *t = 0;
    if (proc("cuDriverGetVersion", &version, 13000, 0, &status) != 0 || proc("cuGetExportTable", &table, 13000, 0, &status) != 0 ||
        !version || !table || ((int (*)(int *))version)(&v) != 0 || ((int (*)(const void **, const void *))table)(&t, id) != 0) {
        fprintf(stderr, "the driver's calls failed\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    registration();
    if (!strcmp(mode, "register")) return 0;
    if (!strcmp(mode, "work")) return work();
    if (!strcmp(mode, "count")) return count_devices();
    if (!strcmp(mode, "count-work")) return count_devices() || work();
    if (!strcmp(mode, "count-many") && argc > 2) {
        int n = 0;
        for (int i = atoi(argv[2]); i > 0; i--)
            if (cudaGetDeviceCount(&n) != cudaSuccess) return 1;
        return 0;
    }
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    const char *launch = !strcmp(base, "torchrun") ? "quiet" : argc > 2 ? argv[2] : 0;
    if (!launch || (strcmp(base, "torchrun") && strcmp(mode, "launcher"))) {
        fprintf(stderr, "usage: coexist register | work | count | count-work | count-many N | launcher quiet|busy\n");
        return 2;
    }
    if (getenv("RANK") || getenv("LOCAL_RANK")) {
        fprintf(stderr, "the launcher must have no rank\n");
        return 2;
    }
    if (count_devices()) return 1;
    pid_t kids[2];
    for (int r = 0; r < 2; r++) {
        kids[r] = fork();
        if (kids[r] == 0) {
            char rank[2] = {(char)('0' + r), 0};
            setenv("RANK", rank, 1);
            setenv("LOCAL_RANK", rank, 1);
            setenv("WORLD_SIZE", "2", 1);
            execl("/proc/self/exe", argv[0], "work", (char *)0);
            _exit(127);
        }
    }
    int rc = !strcmp(launch, "busy") ? work() : 0;
    for (int r = 0; r < 2; r++) {
        int st = 0;
        if (waitpid(kids[r], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) rc = 1;
    }
    return rc;
}
