// A program whose kernels are registered but never used: lazy loading must
// not load its fatbinary; CUDA_MODULE_LOADING=EAGER must.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void never(int *p) { *p = 1; }
__global__ void never2() {}

int main() {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    printf("%s %d\n", cudaGetErrorName(e), n);
    return 0;
}
