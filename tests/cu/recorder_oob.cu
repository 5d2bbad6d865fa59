// An out-of-bounds kernel for the flight recorder's GPU check
// (gpu/checks/recorder/recorder.py): a few ordinary calls, one launch of a kernel that
// writes far past its buffer, then cudaDeviceSynchronize, which fails with a
// sticky error (cudaErrorIllegalAddress on an H100).
//
//   recorder_oob [return|abort]
//     return (default): print the error and return 1;
//     abort: print it and abort() (the process ends by SIGABRT).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void write_far(int *p, long long stride) {
  p[(long long)threadIdx.x * stride] = 1;  // thread 0 writes p[0]; the others far past it
}

int main(int argc, char **argv) {
  bool abort_on_error = argc > 1 && !strcmp(argv[1], "abort");
  int *buf = nullptr;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    fprintf(stderr, "no CUDA device\n");
    return 2;
  }
  if (cudaMalloc(&buf, 256 * sizeof(int)) != cudaSuccess) return 2;
  if (cudaMemset(buf, 0, 256 * sizeof(int)) != cudaSuccess) return 2;
  write_far<<<1, 32>>>(buf, 1LL << 36);
  cudaError_t sync = cudaDeviceSynchronize();
  printf("synchronize: %s (%d)\n", cudaGetErrorName(sync), (int)sync);
  fflush(stdout);
  if (sync == cudaSuccess) return 0;
  if (abort_on_error) abort();
  return 1;
}
