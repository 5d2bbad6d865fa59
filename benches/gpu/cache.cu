// Caching allocator (CUDART_SHIM_POOL=1 for ours): the mixed-size
// cudaMalloc/cudaFree loop of tests/gpu/cache_loop.cu as per-operation
// costs. One op = cudaFree of a random slot's buffer + cudaMalloc of a new
// one (64 slots; sizes 256 B .. 3 MiB + up to 511 B, each slot keeping its
// size class). Kernels run in between:
//   cache_mixed_malloc_free_kernel_every_16: a small kernel every 16 ops
//     (the allocator's own cost dominates; the 20x target applies here);
//   cache_mixed_malloc_free_kernel_every_op: a small kernel after every op
//     (end to end, including a launch per op).
// At exit, stderr gets one line per benchmark with the program's peak live
// bytes and the peak device memory the driver reports in use (cuMemGetInfo
// through cudaGetDriverEntryPointByVersion, so it counts what an allocator
// caches), and their ratio (target <= 1.5 for ours).
#include "bench.h"
#include <cuda.h>
#include <cstdint>

namespace {

__global__ void touch(uint32_t *p, size_t words, uint32_t v) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        p[i] = v;
}

typedef CUresult (*MemGetInfo)(size_t *, size_t *);

size_t driver_used() {
    static MemGetInfo f = [] {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q;
        CK(cudaGetDriverEntryPointByVersion("cuMemGetInfo", &p, 13000, cudaEnableDefault, &q));
        if (!p) {
            fprintf(stderr, "cuMemGetInfo not found\n");
            exit(1);
        }
        return (MemGetInfo)p;
    }();
    size_t free = 0, total = 0;
    if (f(&free, &total) != CUDA_SUCCESS) exit(1);
    return total - free;
}

struct MixedLoop {
    static const int SLOTS = 64;
    const char *name;
    int kernel_every;
    void *live[SLOTS] = {};
    size_t bytes[SLOTS] = {};
    size_t live_bytes = 0, live_peak = 0, used_peak = 0, baseline = 0;
    uint64_t rng = 88172645463325252ull;
    long ops = 0;

    MixedLoop(const char *n, int every) : name(n), kernel_every(every) {}

    ~MixedLoop() {
        if (!baseline) return;
        fprintf(stderr, "%s memory: live peak %zu B, driver-reported in use peak %zu B, ratio %.3f (%ld ops)\n", name,
                live_peak, used_peak, live_peak ? (double)used_peak / live_peak : 0.0, ops);
    }

    uint64_t next() {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    }

    void op() {
        static const size_t menu[6] = {256, 1000, 4096, 65536, 1 << 20, 3 << 20};
        int slot = (int)(next() % SLOTS);
        if (live[slot]) {
            CK(cudaFree(live[slot]));
            live_bytes -= bytes[slot];
        }
        bytes[slot] = menu[slot % 6] + next() % 512;
        CK(cudaMalloc(&live[slot], bytes[slot]));
        live_bytes += bytes[slot];
        if (live_bytes > live_peak) live_peak = live_bytes;
        // A small kernel (at most 16 KiB written): the allocator is measured,
        // not the GPU's bandwidth.
        size_t words = bytes[slot] / 4 < 4096 ? bytes[slot] / 4 : 4096;
        if (++ops % kernel_every == 0) touch<<<4, 128>>>((uint32_t *)live[slot], words, (uint32_t)ops);
    }

    double run(long iters) {
        if (!baseline) {
            CK(cudaDeviceSynchronize());
            baseline = driver_used();
        }
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) op();
        double t = now_ns() - t0;
        CK(cudaGetLastError());
        // Held memory only grows while the loop runs (an allocator gives
        // memory back on out-of-memory only), so the end is its peak.
        size_t used = driver_used() - baseline;
        if (used > used_peak) used_peak = used;
        return t;
    }
};

MixedLoop every16("cache_mixed_malloc_free_kernel_every_16", 16);
MixedLoop every1("cache_mixed_malloc_free_kernel_every_op", 1);

}  // namespace

BENCH(cache_mixed_malloc_free_kernel_every_16) { return every16.run(iters); }
BENCH(cache_mixed_malloc_free_kernel_every_op) { return every1.run(iters); }
