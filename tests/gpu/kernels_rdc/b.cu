// nvcc: -rdc=true
#include <cuda_runtime.h>

__device__ int table[8];
__device__ int scale(int x) { return 3 * x; }
__global__ void from_b(int y) { table[4 + threadIdx.x] = scale(y) - threadIdx.x; }
int launch_from_b(int y) {
    from_b<<<1, 4>>>(y);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
