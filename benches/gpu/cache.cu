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
// caches) at the end of each timed repetition, and their ratio (target
// <= 1.5 for ours). With ours (cudartShimGetPoolStats is there), a second
// line gives the pool's own count over the whole run: its peak held bytes
// (whole 2 MiB segments, so the driver's count too, caught at every
// allocation rather than at the end of a repetition), the synchronizes it
// made and the segments it took from and gave back to the driver, per
// operation.
#include "bench.h"
#include <cuda.h>
#include <cstdint>
#include <dlfcn.h>

namespace {

__global__ void touch(uint32_t *p, size_t words, uint32_t v) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        p[i] = v;
}

typedef CUresult (*MemGetInfo)(size_t *, size_t *);

// cudartShimPoolStats (include/cudart_shim.h).
struct PoolStats {
    uint64_t held_blocks, held_bytes, active_blocks, active_bytes, cached_blocks, cached_bytes, peak_held_bytes, hits,
        misses, synchronizes, released_blocks;
};
typedef cudaError_t (*GetPoolStats)(int, int, PoolStats *);

// Ours only: NULL with NVIDIA's runtime.
GetPoolStats pool_stats() {
    static GetPoolStats f = (GetPoolStats)dlsym(RTLD_DEFAULT, "cudartShimGetPoolStats");
    return f;
}

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
        PoolStats s = {};
        if (pool_stats() && pool_stats()(0, 0, &s) == cudaSuccess && ops)
            fprintf(stderr,
                    "%s pool: peak held %llu B, ratio %.3f; %.4f synchronizes/op, %.5f segments taken/op, %.5f given "
                    "back/op (%ld ops)\n",
                    name, (unsigned long long)s.peak_held_bytes, live_peak ? (double)s.peak_held_bytes / live_peak : 0.0,
                    (double)s.synchronizes / ops, (double)s.misses / ops, (double)s.released_blocks / ops, ops);
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
        // NVIDIA's runtime holds what the live blocks take, and ours stays
        // near its peak once warm, so the end of a repetition is close to
        // the peak; ours also reports its exact peak (the pool line).
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
