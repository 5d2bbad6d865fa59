// Memory per-call costs: allocation, small and large copies (pageable and
// pinned), async copy + sync, async set. Each benchmark allocates outside
// its timed loop. memcpy_256MiB_pinned_H2D reports ns per whole 256 MiB
// copy: GB/s = 268435456 / ns.
#include "bench.h"
#include <cstring>

static double malloc_free(long iters, size_t bytes) {
    void *p;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        CK(cudaMalloc(&p, bytes));
        CK(cudaFree(p));
    }
    return now_ns() - t0;
}

BENCH(cudaMalloc_cudaFree_4KiB) { return malloc_free(iters, 4096); }
BENCH(cudaMalloc_cudaFree_64MiB) { return malloc_free(iters, 64 << 20); }

// A host buffer: pageable (malloc) or pinned (cudaMallocHost), kept for the
// process so calibration runs do not re-allocate.
static void *host_buffer(bool pinned, size_t bytes) {
    void *h;
    if (pinned) {
        CK(cudaMallocHost(&h, bytes));
    } else {
        h = malloc(bytes);
    }
    memset(h, 1, bytes);
    return h;
}

static void *device_buffer(size_t bytes) {
    void *d;
    CK(cudaMalloc(&d, bytes));
    return d;
}

static double copy(long iters, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) CK(cudaMemcpy(dst, src, bytes, kind));
    return now_ns() - t0;
}

#define COPY_BENCH(name, pinned, bytes, dir)                                               \
    BENCH(name) {                                                                          \
        static void *h = host_buffer(pinned, bytes);                                       \
        static void *d = device_buffer(bytes);                                             \
        return dir == cudaMemcpyHostToDevice ? copy(iters, d, h, bytes, dir)               \
                                             : copy(iters, h, d, bytes, dir);              \
    }

COPY_BENCH(memcpy_H2D_4B_pageable, false, 4, cudaMemcpyHostToDevice)
COPY_BENCH(memcpy_H2D_4B_pinned, true, 4, cudaMemcpyHostToDevice)
COPY_BENCH(memcpy_H2D_4KiB_pageable, false, 4096, cudaMemcpyHostToDevice)
COPY_BENCH(memcpy_H2D_4KiB_pinned, true, 4096, cudaMemcpyHostToDevice)
COPY_BENCH(memcpy_D2H_4B_pageable, false, 4, cudaMemcpyDeviceToHost)
COPY_BENCH(memcpy_D2H_4B_pinned, true, 4, cudaMemcpyDeviceToHost)
COPY_BENCH(memcpy_D2H_4KiB_pageable, false, 4096, cudaMemcpyDeviceToHost)
COPY_BENCH(memcpy_D2H_4KiB_pinned, true, 4096, cudaMemcpyDeviceToHost)

BENCH(memcpyAsync_H2D_4KiB_pinned_plus_sync) {
    static void *h = host_buffer(true, 4096);
    static void *d = device_buffer(4096);
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        CK(cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, 0));
        CK(cudaStreamSynchronize(0));
    }
    return now_ns() - t0;
}

BENCH(memsetAsync_4KiB) {
    static void *d = device_buffer(4096);
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) CK(cudaMemsetAsync(d, i & 0xff, 4096, 0));
    CK(cudaStreamSynchronize(0));
    return now_ns() - t0;
}

BENCH(memcpy_256MiB_pinned_H2D) {
    const size_t bytes = 256u << 20;
    static void *h = host_buffer(true, bytes);
    static void *d = device_buffer(bytes);
    return copy(iters, d, h, bytes, cudaMemcpyHostToDevice);
}
