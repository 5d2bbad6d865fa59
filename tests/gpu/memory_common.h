// Shared checking macros for the tests/gpu/memory_*.cu programs.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                   cudaGetErrorName(e_));                                          \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

// Print the code of a call (and the last error it left), then clear it.
#define CODE(call)                                                                 \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        printf("%-60s -> %s (last %s)\n", #call, cudaGetErrorName(e_),             \
               cudaGetErrorName(cudaGetLastError()));                              \
    } while (0)
