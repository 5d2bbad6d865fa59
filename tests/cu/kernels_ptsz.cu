// Built with --default-stream per-thread: <<<>>> goes through
// __cudaLaunchKernel_ptsz, symbol copies through the _ptds/_ptsz exports.
#include <cstdio>
#include <cuda_runtime.h>

__device__ unsigned long long counter[2];
__global__ void bump(unsigned long long by) { counter[0] += by; }

int main() {
    bump<<<1, 32>>>(3);
    bump<<<2, 16, 0, cudaStreamLegacy>>>(4);
    unsigned long long v[2] = {100, 200}, back[2] = {0, 0};
    if (cudaMemcpyToSymbol(counter, v, sizeof v) != cudaSuccess) return 1;
    if (cudaMemcpyFromSymbolAsync(back, counter, sizeof back, 0, cudaMemcpyDeviceToHost, 0) != cudaSuccess) return 1;
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    printf("counter %llu %llu\n", back[0], back[1]);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
