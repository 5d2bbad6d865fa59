/* memory_copies: allocate, copy host -> device -> device -> host in 1D, 2D
 * and 3D, check every byte, free.
 *
 * Built against include/cudart_shim.h only and linked to cudart-shim; the
 * same source also builds against NVIDIA's cuda_runtime_api.h
 * (-DUSE_NVIDIA_HEADERS). Prints one line per check; exits non-zero on the
 * first failure. */
#ifdef USE_NVIDIA_HEADERS
#include <cuda_runtime_api.h>
#else
#include "cudart_shim.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorName(e_),         \
                    cudaGetErrorString(e_));                                            \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static unsigned char value(size_t i, unsigned seed) { return (unsigned char)(i * 131u + seed); }

static void fill(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = value(i, seed);
}

static void report(const char *what, size_t bad, size_t total) {
    printf("%-3s %zu bytes checked, %zu wrong\n", what, total, bad);
    if (bad) exit(1);
}

static void one_d(void) {
    const size_t n = 1 << 16;
    unsigned char *h = malloc(n), *back = malloc(n);
    void *a, *b;
    fill(h, n, 1);
    memset(back, 0, n);
    CHECK(cudaMalloc(&a, n));
    CHECK(cudaMalloc(&b, n));
    CHECK(cudaMemcpy(a, h, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(back, b, n, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += back[i] != h[i];
    report("1D", bad, n);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    free(h);
    free(back);
}

static void two_d(void) {
    const size_t w = 100, rows = 37, hp = 128;
    unsigned char *h = malloc(hp * rows), *back = malloc(w * rows);
    void *a, *b;
    size_t pa, pb;
    fill(h, hp * rows, 2);
    memset(back, 0, w * rows);
    CHECK(cudaMallocPitch(&a, &pa, w, rows));
    CHECK(cudaMallocPitch(&b, &pb, w, rows));
    CHECK(cudaMemcpy2D(a, pa, h, hp, w, rows, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2D(b, pb, a, pa, w, rows, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy2D(back, w, b, pb, w, rows, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t y = 0; y < rows; y++)
        for (size_t x = 0; x < w; x++) bad += back[y * w + x] != h[y * hp + x];
    report("2D", bad, w * rows);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    free(h);
    free(back);
}

static struct cudaPitchedPtr pitched(void *p, size_t pitch, size_t xsize, size_t ysize) {
    struct cudaPitchedPtr r;
    r.ptr = p;
    r.pitch = pitch;
    r.xsize = xsize;
    r.ysize = ysize;
    return r;
}

static void three_d(void) {
    struct cudaExtent e;
    e.width = 24;
    e.height = 9;
    e.depth = 5;
    const size_t n = e.width * e.height * e.depth;
    unsigned char *h = malloc(n), *back = malloc(n);
    struct cudaPitchedPtr a, b;
    fill(h, n, 3);
    memset(back, 0, n);
    CHECK(cudaMalloc3D(&a, e));
    CHECK(cudaMalloc3D(&b, e));

    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = pitched(h, e.width, e.width, e.height);
    p.dstPtr = a;
    p.extent = e;
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    p.srcPtr = a;
    p.dstPtr = b;
    p.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaMemcpy3D(&p));
    p.srcPtr = b;
    p.dstPtr = pitched(back, e.width, e.width, e.height);
    p.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&p));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += back[i] != h[i];
    report("3D", bad, n);
    CHECK(cudaFree(a.ptr));
    CHECK(cudaFree(b.ptr));
    free(h);
    free(back);
}

int main(void) {
    one_d();
    two_d();
    three_d();
    printf("all copies correct\n");
    return 0;
}
