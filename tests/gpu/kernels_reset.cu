// Registered modules survive cudaDeviceReset and work on every device.
#include <cstdio>
#include <cuda_runtime.h>

__device__ int v;
__global__ void set(int x) { v = x; }

static int run(int x) {
    set<<<1, 1>>>(x);
    if (cudaDeviceSynchronize() != cudaSuccess) return -1;
    int r = 0;
    if (cudaMemcpyFromSymbol(&r, v, sizeof r) != cudaSuccess) return -2;
    return r;
}

int main() {
    printf("before reset %d\n", run(11));
    if (cudaDeviceReset() != cudaSuccess) return 1;
    printf("after reset %d\n", run(22));
    int n = 0;
    cudaGetDeviceCount(&n);
    for (int d = n - 1; d >= 0; d--) {
        if (cudaSetDevice(d) != cudaSuccess) return 1;
        if (run(100 + d) != 100 + d) { printf("FAIL on a device\n"); return 1; }
    }
    printf("every device ok\n");
    return 0;
}
