/* A driver-API program with NVTX ranges, as CuPy is (cupy.cuda.nvtx over
 * the driver, no CUDA runtime): built on NVIDIA's cuda.h and NVTX3 headers,
 * linked to libcuda.so.1. tests/nvtx.rs runs it with the interposer first on
 * the library path and NVTX_INJECTION64_PATH naming the interposer. */
#include <cuda.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>

int main(void) {
  int n = 0;
  nvtxRangePushA("driver range");
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&n) != CUDA_SUCCESS) return 2;
  nvtxMarkA("counted");
  nvtxRangePop();
  printf("%d device(s)\n", n);
  return 0;
}
