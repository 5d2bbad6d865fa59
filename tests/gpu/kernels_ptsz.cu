// nvcc: --default-stream per-thread
// Per-thread default streams: <<<>>> and symbol copies from two threads.
#include <cstdio>
#include <thread>
#include <cuda_runtime.h>

__device__ unsigned long long sums[2];

__global__ void add(int slot, unsigned long long v) { atomicAdd(&sums[slot], v); }

static int worker(int slot) {
    for (int i = 1; i <= 100; i++) add<<<2, 32>>>(slot, i);
    return cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess ? 0 : 1;
}

int main() {
    unsigned long long z[2] = {0, 0};
    if (cudaMemcpyToSymbol(sums, z, sizeof z) != cudaSuccess) return 1;
    int r0 = 1, r1 = 1;
    std::thread a([&] { r0 = worker(0); });
    std::thread b([&] { r1 = worker(1); });
    a.join();
    b.join();
    if (r0 || r1) { printf("FAIL worker\n"); return 1; }
    unsigned long long s[2];
    if (cudaMemcpyFromSymbol(s, sums, sizeof s) != cudaSuccess) return 1;
    printf("sums %llu %llu\n", s[0], s[1]);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
