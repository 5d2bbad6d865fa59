// A CUDA program built with nvcc's defaults (NVIDIA's runtime linked
// statically), for tests/interposer.rs and the GPU run: it reaches the
// driver only through libcuda.so.1. Prints what each runtime call answered;
// exits 3 when there is no usable device, else with argv[1] (default 0), so
// tests can check that the exit status is kept.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void add(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += i;
}

int main(int argc, char **argv) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    printf("cudaGetDeviceCount = %d (%s), %d device(s)\n", (int)e, cudaGetErrorName(e), n);
    if (e != cudaSuccess || n == 0) return 3;
    int *d = nullptr;
    e = cudaMalloc(&d, 1024 * sizeof(int));
    printf("cudaMalloc = %s\n", cudaGetErrorName(e));
    e = cudaMemset(d, 0, 1024 * sizeof(int));
    printf("cudaMemset = %s\n", cudaGetErrorName(e));
    add<<<4, 256>>>(d, 1024);
    printf("launch = %s\n", cudaGetErrorName(cudaGetLastError()));
    int h[1024] = {0};
    e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("cudaMemcpy = %s, h[1000] = %d\n", cudaGetErrorName(e), h[1000]);
    cudaStream_t s;
    cudaStreamCreate(&s);
    for (int i = 0; i < 100; i++) cudaStreamQuery(s);
    cudaStreamDestroy(s);
    cudaFree(d);
    return argc > 1 ? atoi(argv[1]) : 0;
}
