// Launch shapes the device cannot run, through every launch path a CUDA 12
// program has: 12.9's runtime judges the shape itself and answers
// cudaErrorInvalidConfiguration, where 13.x passes the driver's invalid
// value (tests/gpu/kernels_launch.cu shows both). Also what stays the
// driver's answer in 12.9: too much shared memory, and a good launch.
#include "check12.h"

__global__ void empty() {}
__global__ void put(int *out) { out[threadIdx.x] = 7; }

struct Shape {
    const char *name;
    dim3 grid, block;
    size_t shared;
};

int main() {
    CK(cudaSetDevice(0));
    const Shape shapes[] = {
        {"block of 2048", dim3(1), dim3(2048), 0},
        {"empty grid", dim3(0), dim3(1), 0},
        {"empty block", dim3(1), dim3(0), 0},
        {"grid y 70000", dim3(1, 70000), dim3(1), 0},
        {"grid z 70000", dim3(1, 1, 70000), dim3(1), 0},
        {"block z 128", dim3(1), dim3(1, 1, 128), 0},
        {"block 32x32x2", dim3(1), dim3(32, 32, 2), 0},
        {"1 MiB shared", dim3(1), dim3(1), 1 << 20},
    };
    void *none[] = {nullptr};
    for (const Shape &s : shapes) {
        empty<<<s.grid, s.block, s.shared>>>();
        printf("%-14s <<<>>>                      -> %s\n", s.name, cudaGetErrorName(cudaGetLastError()));
        cudaError_t e = cudaLaunchKernel((const void *)empty, s.grid, s.block, none, s.shared, 0);
        printf("%-14s cudaLaunchKernel            -> %s (last %s)\n", s.name, cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
        e = cudaLaunchCooperativeKernel((const void *)empty, s.grid, s.block, none, s.shared, 0);
        printf("%-14s cudaLaunchCooperativeKernel -> %s (last %s)\n", s.name, cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
        cudaLaunchConfig_t c = {};
        c.gridDim = s.grid;
        c.blockDim = s.block;
        c.dynamicSmemBytes = s.shared;
        e = cudaLaunchKernelExC(&c, (const void *)empty, none);
        printf("%-14s cudaLaunchKernelExC         -> %s (last %s)\n", s.name, cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
    }
    // A bad shape and a bad function together: which one 12.9 reports.
    cudaError_t e = cudaLaunchKernel((const void *)main, dim3(0), dim3(1), none, 0, 0);
    printf("not a kernel, empty grid cudaLaunchKernel -> %s (last %s)\n", cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
    e = cudaLaunchKernel(nullptr, dim3(1), dim3(2048), none, 0, 0);
    printf("NULL kernel, block of 2048 cudaLaunchKernel -> %s (last %s)\n", cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
    CK(cudaDeviceSynchronize());

    // The good launch still runs.
    int *d, h[4] = {};
    CK(cudaMalloc(&d, sizeof h));
    put<<<1, 4>>>(d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("good launch: %d %d %d %d\n", h[0], h[1], h[2], h[3]);
    CK(cudaFree(d));
    printf("done\n");
    return 0;
}
