// cudaProfilerStart/Stop in a program built with nvcc's defaults (NVIDIA's
// runtime linked statically), for gpu/checks/profiler/profiler.py: the static runtime
// reaches cuProfilerStart/Stop through pointers from cuGetProcAddress, so a
// capture window (--capture-range=cudaProfilerApi) opens only if the driver
// interposer traces them. One launch before the window, 3 inside, 5 after;
// each followed by cudaDeviceSynchronize. Exits 3 with no usable device.
#include <cstdio>
#include <cuda_runtime.h>

// cuda_profiler_api.h (which declares these) is not in the CUDA wheel we pin.
extern "C" cudaError_t cudaProfilerStart(void);
extern "C" cudaError_t cudaProfilerStop(void);

__global__ void add(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

static int launch(int *d, int times) {
    for (int i = 0; i < times; i++) {
        add<<<4, 256>>>(d, 1024);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("launch: %s\n", cudaGetErrorName(e));
            return 1;
        }
    }
    return 0;
}

int main() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("no usable device\n");
        return 3;
    }
    int *d = nullptr;
    if (cudaMalloc(&d, 1024 * sizeof(int)) != cudaSuccess || cudaMemset(d, 0, 1024 * sizeof(int)) != cudaSuccess) return 2;
    if (launch(d, 1)) return 2;
    printf("cudaProfilerStart = %s\n", cudaGetErrorName(cudaProfilerStart()));
    if (launch(d, 3)) return 2;
    printf("cudaProfilerStop = %s\n", cudaGetErrorName(cudaProfilerStop()));
    if (launch(d, 5)) return 2;
    int h[1024] = {0};
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("h[0] = %d (9 launches)\n", h[0]);
    cudaFree(d);
    return 0;
}
