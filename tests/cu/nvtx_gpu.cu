// NVTX ranges around GPU work, for nvtx_gpu_proj_sum: over the fake driver
// and fake CUPTI (tests/nvtx.rs) and on a GPU (gpu/checks/nvtx/nvtx.py).
//   nvtx_gpu R K : R ranges "step", each launching K kernels (one of them
//                  inside a nested range "inner"), then a device sync.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void spin(float *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = p[i];
    for (int k = 0; k < n; k++) v = v * 0.999f + 1.0f;
    p[i] = v;
}

int main(int argc, char **argv) {
    int r = argc > 1 ? atoi(argv[1]) : 3, k = argc > 2 ? atoi(argv[2]) : 4;
    float *p = nullptr;
    if (cudaMalloc(&p, 1 << 20) != cudaSuccess) return 2;
    for (int i = 0; i < r; i++) {
        nvtxRangePushA("step");
        for (int j = 0; j < k; j++) {
            if (j == 0) nvtxRangePushA("inner");
            spin<<<256, 256>>>(p, 2000);
            if (j == 0) nvtxRangePop();
        }
        nvtxRangePop();
    }
    if (cudaDeviceSynchronize() != cudaSuccess) return 3;
    cudaFree(p);
    printf("nvtx_gpu done\n");
    return 0;
}
