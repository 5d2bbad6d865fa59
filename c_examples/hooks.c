/*
 * Hooks: change what CUDA calls do, from inside the program.
 *
 * Two handlers, registered with cudartShimHookRegister:
 *  - a `before` handler on every copy that takes a cudaMemcpyKind
 *    (cudaMemcpy, cudaMemcpyAsync) counts bytes per kind, reading the typed
 *    parameter block (cudaMemcpy_params from cudart_shim_params.h);
 *  - an `instead` handler on cudaMalloc fails allocations above a size with
 *    cudaErrorMemoryAllocation (the real call does not run) and lets the
 *    others through (CUDART_SHIM_HOOK_CONTINUE).
 *
 * Build: cc hooks.c -Iinclude -Ltarget/debug -lcudart_shim -o hooks
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_shim.h"
#include "cudart_shim_params.h"

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (x);                                                                 \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

/* Bytes copied per cudaMemcpyKind (0 to 4). */
static unsigned long long bytes[5];

static int count_bytes(void *userdata, cudartShimCall *call) {
    (void)userdata;
    size_t count;
    cudaMemcpyKind kind;
    if (call->function_id == CUDART_SHIM_ID_cudaMemcpy) {
        const cudaMemcpy_params *p = (const cudaMemcpy_params *)call->params;
        count = p->count;
        kind = p->kind;
    } else {
        const cudaMemcpyAsync_params *p = (const cudaMemcpyAsync_params *)call->params;
        count = p->count;
        kind = p->kind;
    }
    if ((int)kind >= 0 && (int)kind < 5) bytes[kind] += count;
    return 0;
}

static int fail_large(void *userdata, cudartShimCall *call) {
    size_t limit = *(const size_t *)userdata;
    const cudaMalloc_params *p = (const cudaMalloc_params *)call->params;
    if (p->size > limit) return cudaErrorMemoryAllocation;
    return CUDART_SHIM_HOOK_CONTINUE;
}

int main(void) {
    static const size_t limit = 1 << 20;
    uint64_t copies, mallocs;
    CHECK(cudartShimHookRegister("cudaMemcpy,cudaMemcpyAsync", CUDART_SHIM_HOOK_BEFORE, count_bytes, NULL, &copies));
    CHECK(cudartShimHookRegister("cudaMalloc", CUDART_SHIM_HOOK_INSTEAD, fail_large, (void *)&limit, &mallocs));

    enum { N = 4096 };
    char host[N], back[N];
    memset(host, 7, N);
    void *small = NULL, *large = NULL;
    CHECK(cudaMalloc(&small, N));
    cudaError_t e = cudaMalloc(&large, 2 * limit);
    printf("cudaMalloc(%zu bytes): %s\n", (size_t)N, small ? "cudaSuccess" : "no pointer");
    printf("cudaMalloc(%zu bytes): %s\n", 2 * limit, cudaGetErrorName(e));
    cudaGetLastError(); /* the refused allocation set the last error, as a real failure does */

    CHECK(cudaMemcpy(small, host, N, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(small, small, N / 2, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpyAsync(back, small, N, cudaMemcpyDeviceToHost, 0));
    CHECK(cudaStreamSynchronize(0));
    printf("copied back %s\n", memcmp(host, back, N) == 0 ? "correctly" : "WRONG");

    static const char *names[5] = {"HostToHost", "HostToDevice", "DeviceToHost", "DeviceToDevice", "Default"};
    for (int k = 0; k < 5; k++) printf("%-15s %llu bytes\n", names[k], bytes[k]);

    CHECK(cudartShimHookUnregister(copies));
    CHECK(cudartShimHookUnregister(mallocs));
    e = cudaMalloc(&large, 2 * limit);
    printf("after unregistering, cudaMalloc(%zu bytes): %s\n", 2 * limit, cudaGetErrorName(e));
    if (e == cudaSuccess) CHECK(cudaFree(large));
    CHECK(cudaFree(small));
    return 0;
}
