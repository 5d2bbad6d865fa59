/* A CUDA 12 program (host C, compiled against NVIDIA's 12.9 headers and
 * linked to libcudart.so.12) that exercises the calls whose CUDA 12 form
 * differs from 13's: the version, 12.9's cudaDeviceProp through both forms
 * of cudaGetDeviceProperties, 12.9's 24-byte cudaPointerAttributes, the
 * device-number cudaMemPrefetchAsync / cudaMemAdvise, the 6-argument
 * cudaStreamGetCaptureInfo, the edge-less graph calls and the legacy
 * cudaThread* / cudaSetDouble* calls, cudaLaunchCooperativeKernelMultiDevice
 * (a good launch and bad lists), the values 13.x added to enums a 12 form
 * takes (12.9 cannot know them), 12.9's cudaGraphNodeParams members, the
 * batched copies' failIdx and both forms of cudaEventElapsedTime. Each line
 * is "what -> result"; values
 * follow only on success, so with no driver the output depends on the
 * library's return codes alone (tests/abi12.rs runs it on NVIDIA's 12.9
 * library and ours and compares). */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define SHOW(call) show(#call, (call))

static dim3 dim3_1(void) {
    dim3 d = {1, 1, 1};
    return d;
}
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

/* A kernel for the multi-device launch: *p = v. PTX for any GPU (the
 * driver compiles it); the fake driver reads its parameter list. */
static const char COOP_PTX[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry coop(.param .u64 coop_param_0, .param .u32 coop_param_1)\n{\n"
    ".reg .b64 %rd<3>;\n.reg .b32 %r<2>;\n"
    "ld.param.u64 %rd1, [coop_param_0];\nld.param.u32 %r1, [coop_param_1];\n"
    "cvta.to.global.u64 %rd2, %rd1;\nst.global.u32 [%rd2], %r1;\nret;\n}\n";

static void multi_device(void) {
    int ndev = 0;
    cudaGetDeviceCount(&ndev);
    cudaLibrary_t lib;
    cudaKernel_t k;
    if (SHOW(cudaLibraryLoadData(&lib, COOP_PTX, NULL, NULL, 0, NULL, NULL, 0)) != cudaSuccess) return;
    if (SHOW(cudaLibraryGetKernel(&k, lib, "coop")) != cudaSuccess) return;
    int coop = -1;
    if (SHOW(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeMultiDeviceLaunch, 0)) == cudaSuccess)
        printf("  cooperativeMultiDeviceLaunch %d\n", coop);
    unsigned *d = NULL, h = 0, v = 42;
    cudaStream_t s, s2;
    SHOW(cudaMalloc((void **)&d, sizeof *d));
    SHOW(cudaMemset(d, 0, sizeof *d));
    SHOW(cudaStreamCreate(&s));
    SHOW(cudaStreamCreate(&s2));
    void *args[] = {&d, &v};
    struct cudaLaunchParams p = {(void *)k, dim3_1(), dim3_1(), args, 0, s};
    if (SHOW(cudaLaunchCooperativeKernelMultiDevice(&p, 1, 0)) == cudaSuccess) {
        SHOW(cudaStreamSynchronize(s));
        SHOW(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
        printf("  multi-device kernel wrote %u\n", h);
    }
    SHOW(cudaLaunchCooperativeKernelMultiDevice(&p, 1, cudaCooperativeLaunchMultiDeviceNoPreSync | cudaCooperativeLaunchMultiDeviceNoPostSync));
    SHOW(cudaStreamSynchronize(s));
    printf("bad lists (%d device(s)):\n", ndev);
    SHOW(cudaLaunchCooperativeKernelMultiDevice(NULL, 1, 0));
    SHOW(cudaLaunchCooperativeKernelMultiDevice(&p, 0, 0));
    struct cudaLaunchParams many[9];
    for (int i = 0; i < 9; i++) many[i] = p;
    printf("numDevices = device count + 1: ");
    SHOW(cudaLaunchCooperativeKernelMultiDevice(many, (unsigned)ndev + 1, 0));
    SHOW(cudaLaunchCooperativeKernelMultiDevice(&p, 1, 4));
    struct cudaLaunchParams q = p;
    q.stream = NULL;
    printf("NULL stream: ");
    SHOW(cudaLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    q.stream = cudaStreamPerThread;
    printf("cudaStreamPerThread: ");
    SHOW(cudaLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    q = p;
    q.func = NULL;
    printf("NULL func: ");
    SHOW(cudaLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    struct cudaLaunchParams twice[2] = {p, p};
    twice[1].stream = s2;
    printf("two entries on device 0: ");
    SHOW(cudaLaunchCooperativeKernelMultiDevice(twice, 2, 0));
    printf("last error %s\n", cudaGetErrorName(cudaGetLastError()));
    SHOW(cudaFree(d));
    SHOW(cudaStreamDestroy(s2));
    SHOW(cudaStreamDestroy(s));
}

/* Values 13.x added to enums the 12 forms take. */
static void after_12_9(void) {
    int v = 0;
    const int attrs[] = {143, 144, 145, 147, 148, 160};
    for (unsigned i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        cudaError_t e = cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)attrs[i], 0);
        printf("cudaDeviceGetAttribute(%d) -> %s\n", attrs[i], cudaGetErrorName(e));
    }
    size_t lim = 0;
    SHOW(cudaDeviceGetLimit(&lim, (enum cudaLimit)10));
    SHOW(cudaDeviceSetLimit((enum cudaLimit)10, 4096));
    SHOW(cudaDeviceGetP2PAttribute(&v, (enum cudaDeviceP2PAttr)5, 0, 0));
    cudaMemPool_t pool;
    if (SHOW(cudaDeviceGetDefaultMemPool(&pool, 0)) == cudaSuccess)
        for (int a = 8; a <= 15; a++) {
            unsigned long long x = 0;
            cudaError_t e = cudaMemPoolGetAttribute(pool, (enum cudaMemPoolAttr)a, &x);
            printf("cudaMemPoolGetAttribute(%d) -> %s\n", a, cudaGetErrorName(e));
        }
    cudaStream_t s;
    if (SHOW(cudaStreamCreate(&s)) == cudaSuccess) {
        for (int a = 14; a <= 18; a++) {
            cudaLaunchAttributeValue val;
            memset(&val, 0, sizeof val);
            cudaError_t e = cudaStreamGetAttribute(s, (cudaLaunchAttributeID)a, &val);
            printf("cudaStreamGetAttribute(%d) -> %s\n", a, cudaGetErrorName(e));
        }
        float *m = NULL;
        if (SHOW(cudaMallocManaged((void **)&m, 4096, cudaMemAttachGlobal)) == cudaSuccess) {
            for (int t = 1; t <= 6; t++) {
                struct cudaMemLocation loc = {(enum cudaMemLocationType)t, t == 1 ? 0 : 0};
                cudaError_t e = cudaMemPrefetchAsync_v2(m, 4096, loc, 0, s);
                printf("cudaMemPrefetchAsync_v2(location type %d) -> %s\n", t, cudaGetErrorName(e));
            }
            SHOW(cudaStreamSynchronize(s));
            SHOW(cudaFree(m));
        }
        SHOW(cudaStreamDestroy(s));
    }
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = (enum cudaMemAllocationType)2;
    props.location.type = cudaMemLocationTypeDevice;
    cudaMemPool_t p2;
    printf("allocation type 2: ");
    SHOW(cudaMemPoolCreate(&p2, &props));
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = (enum cudaMemLocationType)5;
    printf("location type 5: ");
    SHOW(cudaMemPoolCreate(&p2, &props));
    printf("last error %s\n", cudaGetErrorName(cudaGetLastError()));
}

/* 12.9's cudaGraphNodeParams: a kernel member of 56 bytes with junk after
 * it (13.5 has a context and a function type there); a node type 13.x
 * added. */
static void node_params(void) {
    cudaLibrary_t lib;
    cudaKernel_t k;
    cudaGraph_t g;
    if (cudaLibraryLoadData(&lib, COOP_PTX, NULL, NULL, 0, NULL, NULL, 0) != cudaSuccess ||
        cudaLibraryGetKernel(&k, lib, "coop") != cudaSuccess || SHOW(cudaGraphCreate(&g, 0)) != cudaSuccess)
        return;
    unsigned *d = NULL, v = 7;
    SHOW(cudaMalloc((void **)&d, sizeof *d));
    void *args[] = {&d, &v};
    struct cudaGraphNodeParams p;
    memset(&p, 0x5A, sizeof p);
    p.type = cudaGraphNodeTypeKernel;
    memset(p.reserved0, 0, sizeof p.reserved0);
    p.reserved2 = 0;
    p.kernel.func = (void *)k;
    p.kernel.gridDim = dim3_1();
    p.kernel.blockDim = dim3_1();
    p.kernel.sharedMemBytes = 0;
    p.kernel.kernelParams = args;
    p.kernel.extra = NULL;
    cudaGraphNode_t n;
    printf("kernel node, junk past 12.9's member: ");
    SHOW(cudaGraphAddNode(&n, g, NULL, 0, &p));
    struct cudaGraphNodeParams q;
    memset(&q, 0, sizeof q);
    q.type = (enum cudaGraphNodeType)14;
    printf("node type 14: ");
    SHOW(cudaGraphAddNode(&n, g, NULL, 0, &q));
    SHOW(cudaGraphDestroy(g));
    SHOW(cudaFree(d));
    printf("last error %s\n", cudaGetErrorName(cudaGetLastError()));
}

/* failIdx: a NULL destination in the second copy; the legacy stream. */
static void batch(void) {
    cudaStream_t s;
    char *d = NULL;
    if (SHOW(cudaStreamCreate(&s)) != cudaSuccess || SHOW(cudaMalloc((void **)&d, 256)) != cudaSuccess) return;
    static char src[64];
    void *dsts[3] = {d, NULL, d + 64};
    void *srcs[3] = {src, src, src};
    size_t sizes[3] = {64, 64, 64};
    struct cudaMemcpyAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t idx = 0, fail = 12345;
    cudaError_t e = cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &idx, 1, &fail, s);
    printf("cudaMemcpyBatchAsync (2nd dst NULL) -> %s failIdx %s\n", cudaGetErrorName(e),
           fail == 12345 ? "untouched" : fail == (size_t)-1 ? "SIZE_MAX" : fail == 1 ? "1" : "other");
    fail = 12345;
    e = cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &idx, 1, &fail, 0);
    printf("cudaMemcpyBatchAsync (legacy stream) -> %s failIdx %s\n", cudaGetErrorName(e),
           fail == 12345 ? "untouched" : fail == (size_t)-1 ? "SIZE_MAX" : fail == 1 ? "1" : "other");
    dsts[1] = d + 128;
    fail = 12345;
    e = cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &idx, 1, &fail, s);
    printf("cudaMemcpyBatchAsync (good) -> %s failIdx %s\n", cudaGetErrorName(e),
           fail == 12345 ? "untouched" : fail == (size_t)-1 ? "SIZE_MAX" : "written");
    SHOW(cudaStreamSynchronize(s));
    SHOW(cudaFree(d));
    SHOW(cudaStreamDestroy(s));
    printf("last error %s\n", cudaGetErrorName(cudaGetLastError()));
}

static void elapsed(void) {
    cudaEvent_t a, b, t;
    if (SHOW(cudaEventCreate(&a)) != cudaSuccess || SHOW(cudaEventCreate(&b)) != cudaSuccess) return;
    SHOW(cudaEventCreateWithFlags(&t, cudaEventDisableTiming));
    float ms = -1;
    printf("never recorded: ");
    SHOW(cudaEventElapsedTime(&ms, a, b));
    printf("never recorded, _v2: ");
    SHOW(cudaEventElapsedTime_v2(&ms, a, b));
    SHOW(cudaEventRecord(a, 0));
    SHOW(cudaEventRecord(b, 0));
    SHOW(cudaEventRecord(t, 0));
    SHOW(cudaEventSynchronize(b));
    ms = -1;
    if (SHOW(cudaEventElapsedTime(&ms, a, b)) == cudaSuccess) printf("  ms>=0 %d\n", ms >= 0);
    ms = -1;
    if (SHOW(cudaEventElapsedTime_v2(&ms, a, b)) == cudaSuccess) printf("  ms>=0 %d\n", ms >= 0);
    printf("timing disabled: ");
    SHOW(cudaEventElapsedTime(&ms, a, t));
    printf("timing disabled, _v2: ");
    SHOW(cudaEventElapsedTime_v2(&ms, a, t));
    SHOW(cudaEventDestroy(a));
    SHOW(cudaEventDestroy(b));
    SHOW(cudaEventDestroy(t));
    printf("last error %s\n", cudaGetErrorName(cudaGetLastError()));
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
        multi_device();
        after_12_9();
        node_params();
        batch();
        elapsed();
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
        SHOW(cudaEventElapsedTime_v2(&ms, NULL, NULL));
        SHOW(cudaLaunchCooperativeKernelMultiDevice(NULL, 1, 0));
        int v;
        SHOW(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)144, 0));
        size_t lim, fail;
        SHOW(cudaDeviceGetLimit(&lim, (enum cudaLimit)10));
        struct cudaGraphNodeParams q;
        memset(&q, 0, sizeof q);
        cudaGraphNode_t gn;
        SHOW(cudaGraphAddNode(&gn, NULL, NULL, 0, &q));
        SHOW(cudaMemcpyBatchAsync(NULL, NULL, NULL, 0, NULL, NULL, 0, &fail, 0));
    }
    printf("last error %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("done\n");
    return 0;
}
