/* A scripted series of runtime calls, printing each return code, the values
 * written and the last-error state. Built against NVIDIA's headers; the
 * tests run it with NVIDIA's library and ours and compare line by line. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

/* cuda_profiler_api.h is not in the runtime wheel. */
extern cudaError_t cudaProfilerStart(void);
extern cudaError_t cudaProfilerStop(void);

#define SHOW(call) printf("%-48s -> %d\n", #call, (int)(call))

int main(void) {
    int n = 77, v = 77, d = 77;
    unsigned int f = 77;
    size_t s = 77;
    struct cudaDeviceProp prop;
    void *p = (void *)&prop;
    memset(&prop, 0, sizeof prop);

    SHOW(cudaPeekAtLastError());
    SHOW(cudaGetDeviceCount(&n));
    printf("count=%d\n", n);
    SHOW(cudaGetLastError());
    SHOW(cudaGetLastError());
    SHOW(cudaPeekAtLastError());
    SHOW(cudaDriverGetVersion(&v));
    printf("driver=%d\n", v);
    SHOW(cudaRuntimeGetVersion(&v));
    printf("runtime=%d\n", v);
    SHOW(cudaDriverGetVersion(NULL));
    SHOW(cudaRuntimeGetVersion(NULL));
    SHOW(cudaGetLastError());
    SHOW(cudaGetDevice(&d));
    printf("device=%d\n", d);
    SHOW(cudaSetDevice(0));
    SHOW(cudaSetDevice(-1));
    SHOW(cudaSetDevice(99));
    SHOW(cudaGetDeviceProperties(&prop, 0));
    SHOW(cudaGetDeviceProperties(NULL, 0));
    SHOW(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
    SHOW(cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0));
    SHOW(cudaGetDeviceFlags(&f));
    SHOW(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
    SHOW(cudaInitDevice(0, 0, 0));
    SHOW(cudaDeviceSynchronize());
    SHOW(cudaDeviceReset());
    SHOW(cudaDeviceGetLimit(&s, cudaLimitStackSize));
    SHOW(cudaMalloc(&p, 16));
    printf("malloc wrote p=%d\n", p != (void *)&prop);
    SHOW(cudaFree(NULL));
    SHOW(cudaGetDeviceCount(NULL));
    SHOW(cudaProfilerStart());
    SHOW(cudaProfilerStop());
    SHOW(cudaPeekAtLastError());
    SHOW(cudaGetLastError());
    SHOW(cudaGetLastError());
    return 0;
}
