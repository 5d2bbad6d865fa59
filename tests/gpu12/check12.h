// Shared by the tests/gpu12 programs: checking macros, and the plain 12.9
// exports that 12.9's header hides behind macros (a program compiled against
// it calls their _v2 forms), declared under their own names so that these
// programs call them as binaries from before CUDA 12 do.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#if CUDART_VERSION >= 13000 || CUDART_VERSION < 12000
#error "tests/gpu12 programs are CUDA 12 programs: build them with scripts/nvcc12"
#endif

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));      \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#define EXPECT(cond)                                                                              \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            printf("FAIL %s:%d expected %s\n", __FILE__, __LINE__, #cond);                        \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
// The code of a call by name (and the last error it left, cleared).
#define SHOW(call)                                                                                \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        printf("%-64s -> %s (last %s)\n", #call, cudaGetErrorName(e_),                           \
               cudaGetErrorName(cudaGetLastError()));                                             \
    } while (0)

#undef cudaGetDeviceProperties
#undef cudaStreamGetCaptureInfo
#undef cudaSignalExternalSemaphoresAsync
#undef cudaWaitExternalSemaphoresAsync
extern "C" {
// 728 bytes of 12.9's cudaDeviceProp (the struct up to reservedSharedMemPerBlock).
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
// 3 arguments: status and id only.
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *status, unsigned long long *id);
// 12's parameter structs (_v1: 32 and 40 bytes).
cudaError_t cudaSignalExternalSemaphoresAsync(const cudaExternalSemaphore_t *sems,
                                              const struct cudaExternalSemaphoreSignalParams_v1 *params, unsigned n,
                                              cudaStream_t stream);
cudaError_t cudaWaitExternalSemaphoresAsync(const cudaExternalSemaphore_t *sems,
                                            const struct cudaExternalSemaphoreWaitParams_v1 *params, unsigned n,
                                            cudaStream_t stream);
}
