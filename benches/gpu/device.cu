// Foundation per-call costs: cheap getters that need no driver call.
#include "bench.h"

BENCH(cudaGetDevice) {
    int d;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) cudaGetDevice(&d);
    return now_ns() - t0;
}

BENCH(cudaGetLastError) {
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) cudaGetLastError();
    return now_ns() - t0;
}

BENCH(cudaDeviceGetAttribute) {
    int v;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0);
    return now_ns() - t0;
}
