// A CUDA 12 program for the build route of docs/CUDA12.md: compiled by the
// pinned nvcc 13.0 against CUDA 12.9's headers and crt/, linked to
// libcudart.so.12. Exercises what nvcc's generated host code does at load
// and launch time (fatbin registration, __device__/__constant__ variables,
// <<<>>> through __cudaPushCallConfiguration/__cudaLaunchKernel) and a few
// runtime calls whose symbols are the same in 12.9 and 13.0.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        printf("%s -> %s\n", #call, cudaGetErrorName(e_));                                \
        if (e_ != cudaSuccess) return 1;                                                  \
    } while (0)

__device__ int dv[4];
__constant__ float cv[2];

__global__ void add(int *out, int a, double b) { out[threadIdx.x] = a + (int)b + dv[0] + (int)cv[0]; }

int main() {
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    printf("CUDART_VERSION %d, cudaRuntimeGetVersion %d\n", CUDART_VERSION, rt);
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    int *d = nullptr;
    CK(cudaMalloc((void **)&d, 4 * sizeof(int)));
    const float c[2] = {1.0f, 2.0f};
    CK(cudaMemcpyToSymbol(cv, c, sizeof c));
    add<<<dim3(2), dim3(4), 0, 0>>>(d, 40, 1.5);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h[4] = {0};
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    // On a GPU: 40 + 1 + dv[0] (0) + cv[0] (1) = 42 each. Over the fake
    // driver kernels do not run and these are whatever cudaMalloc gave.
    printf("h = %d %d %d %d\n", h[0], h[1], h[2], h[3]);
    CK(cudaFree(d));
    printf("done\n");
    return 0;
}
