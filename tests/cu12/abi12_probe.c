/* A CUDA 12 program (host C, compiled against NVIDIA's 12.9 headers and
 * linked to libcudart.so.12) that exercises the calls whose CUDA 12 form
 * differs from 13's: the version, 12.9's cudaDeviceProp through both forms
 * of cudaGetDeviceProperties, 12.9's 24-byte cudaPointerAttributes, the
 * device-number cudaMemPrefetchAsync / cudaMemAdvise, the 6-argument
 * cudaStreamGetCaptureInfo, the edge-less graph calls and the legacy
 * cudaThread* / cudaSetDouble* calls. Each line is "what -> result"; values
 * follow only on success, so with no driver the output depends on the
 * library's return codes alone (tests/abi12.rs runs it on NVIDIA's 12.9
 * library and ours and compares). */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define SHOW(call) show(#call, (call))
static cudaError_t show(const char *what, cudaError_t e) {
    printf("%s -> %s\n", what, cudaGetErrorName(e));
    return e;
}

/* Bytes from `from` on still hold the guard value: nothing was written there. */
static int untouched_from(const unsigned char *p, size_t from, size_t size) {
    for (size_t i = from; i < size; i++)
        if (p[i] != 0xAB) return (int)i;
    return -1;
}

static void props(void) {
    struct cudaDeviceProp p;
    memset(&p, 0xAB, sizeof p);
    printf("sizeof(cudaDeviceProp) %zu\n", sizeof p);
    if (SHOW(cudaGetDeviceProperties(&p, 0)) == cudaSuccess) {
        printf("  name %s cc %d.%d sms %d mem %zu\n", p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem);
        printf("  clockRate %d memoryClockRate %d computeMode %d deviceOverlap %d kernelExecTimeoutEnabled %d\n",
               p.clockRate, p.memoryClockRate, p.computeMode, p.deviceOverlap, p.kernelExecTimeoutEnabled);
        printf("  maxTexture1DLinear %d singleToDoublePrecisionPerfRatio %d cooperativeMultiDeviceLaunch %d\n",
               p.maxTexture1DLinear, p.singleToDoublePrecisionPerfRatio, p.cooperativeMultiDeviceLaunch);
        printf("  warpSize %d l2CacheSize %d clusterLaunch %d unifiedFunctionPointers %d\n",
               p.warpSize, p.l2CacheSize, p.clusterLaunch, p.unifiedFunctionPointers);
        printf("  first byte written past 780: %d\n", untouched_from((unsigned char *)&p, 780, sizeof p));
    }
    /* The plain symbol (what pre-12 binaries and dlsym users get). */
    cudaError_t (*plain)(struct cudaDeviceProp *, int) =
        (cudaError_t (*)(struct cudaDeviceProp *, int))dlsym(RTLD_DEFAULT, "cudaGetDeviceProperties");
    memset(&p, 0xAB, sizeof p);
    if (plain && show("cudaGetDeviceProperties (plain symbol)", plain(&p, 0)) == cudaSuccess)
        printf("  name %s reservedSharedMemPerBlock %zu first byte written past 728: %d\n", p.name,
               p.reservedSharedMemPerBlock, untouched_from((unsigned char *)&p, 728, sizeof p));
    SHOW(cudaGetDeviceProperties(NULL, 0));
}

static void memory(void) {
    float *m = NULL;
    if (SHOW(cudaMallocManaged((void **)&m, 4096, cudaMemAttachGlobal)) != cudaSuccess) return;
    unsigned char buf[sizeof(struct cudaPointerAttributes) + 16];
    memset(buf, 0xAB, sizeof buf);
    struct cudaPointerAttributes *a = (struct cudaPointerAttributes *)buf;
    printf("sizeof(cudaPointerAttributes) %zu\n", sizeof *a);
    if (SHOW(cudaPointerGetAttributes(a, m)) == cudaSuccess)
        printf("  type %d device %d devicePointer==m %d first byte written past 24: %d\n", (int)a->type, a->device,
               a->devicePointer == (void *)m, untouched_from(buf, sizeof *a, sizeof buf));
    SHOW(cudaMemPrefetchAsync(m, 4096, 0, 0));
    SHOW(cudaMemPrefetchAsync(m, 4096, cudaCpuDeviceId, 0));
    SHOW(cudaMemAdvise(m, 4096, cudaMemAdviseSetPreferredLocation, 0));
    SHOW(cudaMemAdvise(m, 4096, cudaMemAdviseSetAccessedBy, cudaCpuDeviceId));
    SHOW(cudaDeviceSynchronize());
    SHOW(cudaFree(m));
}

static void capture(void) {
    cudaStream_t s;
    if (SHOW(cudaStreamCreate(&s)) != cudaSuccess) return;
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    cudaGraph_t g = NULL;
    const cudaGraphNode_t *deps = NULL;
    size_t n = 99;
    SHOW(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    if (SHOW(cudaStreamGetCaptureInfo(s, &st, &id, &g, &deps, &n)) == cudaSuccess)
        printf("  status %d id>0 %d graph %d deps %zu\n", (int)st, id > 0, g != NULL, n);
    cudaGraph_t captured = NULL;
    SHOW(cudaStreamEndCapture(s, &captured));
    SHOW(cudaGraphDestroy(captured));
    SHOW(cudaStreamDestroy(s));
}

static void graph(void) {
    cudaGraph_t g;
    if (SHOW(cudaGraphCreate(&g, 0)) != cudaSuccess) return;
    cudaGraphNode_t a, b;
    SHOW(cudaGraphAddEmptyNode(&a, g, NULL, 0));
    SHOW(cudaGraphAddEmptyNode(&b, g, NULL, 0));
    SHOW(cudaGraphAddDependencies(g, &a, &b, 1));
    cudaGraphNode_t from[4], to[4];
    size_t n = 4;
    if (SHOW(cudaGraphGetEdges(g, from, to, &n)) == cudaSuccess)
        printf("  edges %zu a->b %d\n", n, n == 1 && from[0] == a && to[0] == b);
    cudaGraphNode_t d[4];
    n = 4;
    if (SHOW(cudaGraphNodeGetDependencies(b, d, &n)) == cudaSuccess) printf("  deps of b %zu is a %d\n", n, n == 1 && d[0] == a);
    n = 4;
    if (SHOW(cudaGraphNodeGetDependentNodes(a, d, &n)) == cudaSuccess) printf("  dependents of a %zu is b %d\n", n, n == 1 && d[0] == b);
    SHOW(cudaGraphRemoveDependencies(g, &a, &b, 1));
    n = 4;
    if (SHOW(cudaGraphGetEdges(g, from, to, &n)) == cudaSuccess) printf("  edges %zu\n", n);
    SHOW(cudaGraphDestroy(g));
}

static void legacy(void) {
    SHOW(cudaThreadSynchronize());
    size_t v = 0;
    SHOW(cudaThreadSetLimit(cudaLimitStackSize, 4096));
    if (SHOW(cudaThreadGetLimit(&v, cudaLimitStackSize)) == cudaSuccess) printf("  stack %zu\n", v);
    SHOW(cudaThreadSetCacheConfig(cudaFuncCachePreferL1));
    enum cudaFuncCache c = cudaFuncCachePreferNone;
    SHOW(cudaThreadGetCacheConfig(&c));
    double d = 1.0;
    SHOW(cudaSetDoubleForDevice(&d));
    SHOW(cudaSetDoubleForHost(&d));
    printf("  d %g\n", d);
    SHOW(cudaThreadExit());
}

int main(void) {
    int v = 0;
    SHOW(cudaRuntimeGetVersion(&v));
    printf("  runtime %d\n", v);
    SHOW(cudaRuntimeGetVersion(NULL));
    int n = 0;
    if (SHOW(cudaGetDeviceCount(&n)) == cudaSuccess) {
        props();
        memory();
        capture();
        graph();
        legacy();
    } else {
        /* No driver: every call answers before it looks at its arguments. */
        props();
        legacy();
        struct cudaPointerAttributes a;
        SHOW(cudaPointerGetAttributes(&a, NULL));
        SHOW(cudaMemPrefetchAsync(NULL, 0, 0, 0));
        SHOW(cudaMemAdvise(NULL, 0, cudaMemAdviseSetReadMostly, 0));
        enum cudaStreamCaptureStatus st;
        SHOW(cudaStreamGetCaptureInfo(0, &st, NULL, NULL, NULL, NULL));
        SHOW(cudaStreamUpdateCaptureDependencies(0, NULL, 0, 0));
        size_t n = 0;
        SHOW(cudaGraphGetEdges(NULL, NULL, NULL, &n));
        SHOW(cudaGraphAddDependencies(NULL, NULL, NULL, 0));
        SHOW(cudaGraphNodeGetDependencies(NULL, NULL, &n));
        float ms;
        SHOW(cudaEventElapsedTime(&ms, NULL, NULL));
    }
    printf("last error %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("done\n");
    return 0;
}
