// Stream-ordered allocation: cudaMallocAsync / cudaFreeAsync in two streams,
// a kernel between, an explicit pool with attributes, and pool reuse.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)

__global__ void fill(int *p, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

__global__ void add(const int *a, const int *b, int *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 1 << 20;
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    int supported = 0;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    printf("memory pools supported: %d\n", supported);

    // Two streams allocate, fill; s2 waits for s1 and adds.
    int *a, *b, *c;
    CHECK(cudaMallocAsync((void **)&a, n * sizeof(int), s1));
    CHECK(cudaMallocAsync((void **)&b, n * sizeof(int), s2));
    fill<<<(n + 255) / 256, 256, 0, s1>>>(a, n, 0);
    fill<<<(n + 255) / 256, 256, 0, s2>>>(b, n, 1000);
    cudaEvent_t done1;
    CHECK(cudaEventCreateWithFlags(&done1, cudaEventDisableTiming));
    CHECK(cudaEventRecord(done1, s1));
    CHECK(cudaStreamWaitEvent(s2, done1, 0));
    CHECK(cudaMallocAsync((void **)&c, n * sizeof(int), s2));
    add<<<(n + 255) / 256, 256, 0, s2>>>(a, b, c, n);
    int *host = (int *)malloc(n * sizeof(int));
    CHECK(cudaMemcpyAsync(host, c, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
    CHECK(cudaFreeAsync(a, s2));
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaFreeAsync(c, s2));
    CHECK(cudaStreamSynchronize(s2));
    long bad = 0;
    for (int i = 0; i < n; i++) bad += host[i] != 1000 + 2 * i;
    printf("two-stream sum: %s\n", bad ? "WRONG" : "ok");

    // The default pool: release threshold, used/reserved accounting, trim.
    cudaMemPool_t def, cur;
    CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
    CHECK(cudaDeviceGetMemPool(&cur, 0));
    printf("current pool is default: %d\n", def == cur);
    unsigned long long keep = ~0ull, v = 0;
    CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep));
    void *p;
    CHECK(cudaMallocAsync(&p, 64 << 20, s1));
    CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &v));
    printf("used while live >= 64 MiB: %d\n", v >= (64ull << 20));
    CHECK(cudaFreeAsync(p, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &v));
    printf("used after free: %llu\n", v);
    CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReservedMemCurrent, &v));
    printf("reserved kept >= 64 MiB: %d\n", v >= (64ull << 20));
    CHECK(cudaMemPoolTrimTo(def, 0));
    CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReservedMemCurrent, &v));
    printf("reserved after trim: %llu\n", v);

    // An explicit pool, made current, with a per-location query.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t mine;
    CHECK(cudaMemPoolCreate(&mine, &props));
    CHECK(cudaDeviceSetMemPool(0, mine));
    cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
#if CUDART_VERSION >= 13000
    CHECK(cudaMemGetMemPool(&cur, &loc, cudaMemAllocationTypePinned));
#else
    // CUDA 12: the device's current pool is the per-location query's answer.
    CHECK(cudaDeviceGetMemPool(&cur, 0));
#endif
    printf("location pool is mine: %d\n", cur == mine);
    int *q;
    CHECK(cudaMallocAsync((void **)&q, 4096, s1));
    CHECK(cudaMemsetAsync(q, 0x5a, 4096, s1));
    unsigned char back[16];
    CHECK(cudaMemcpyAsync(back, q, 16, cudaMemcpyDeviceToHost, s1));
    CHECK(cudaFreeAsync(q, s1));
    CHECK(cudaStreamSynchronize(s1));
    printf("pool allocation bytes: %02x %02x\n", back[0], back[15]);
    CHECK(cudaMallocFromPoolAsync((void **)&q, 4096, def, s1));
    CHECK(cudaFreeAsync(q, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaDeviceSetMemPool(0, def));
    CHECK(cudaMemPoolDestroy(mine));
    cudaMemAccessFlags f;
    CHECK(cudaMemPoolGetAccess(&f, def, &loc));
    printf("owner access: %d\n", (int)f);

    // Per-thread default stream twins (the _ptsz exports are used when
    // built with --default-stream per-thread; here by name).
    CHECK(cudaMallocAsync(&p, 256, cudaStreamPerThread));
    CHECK(cudaFreeAsync(p, cudaStreamPerThread));
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    free(host);
    printf("done\n");
    return 0;
}
