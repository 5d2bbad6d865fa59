// Caching allocator check: 100k cudaMalloc/cudaFree of mixed sizes with
// kernels in between, plus pinned cudaMallocHost/cudaFreeHost every 1000
// operations. Run with and without CUDART_SHIM_POOL=1 and with NVIDIA's
// runtime: the printed checksums must be identical.
//
// Early reuse would show: a buffer is read by `consume` on stream s1 and
// freed right away; the next allocation (possibly the same block) is
// written by `produce` on stream s2, which does not wait for s1. Only an
// allocator that waits for s1's work before handing the block out again
// keeps the checksum stable.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            printf("%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));    \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

// Buffer contents: a per-allocation value plus a short ramp, so a block
// overwritten by another allocation's writer changes the sum, and the sum
// has a closed form for the host check.
__host__ __device__ static uint32_t base_of(uint32_t seed) {
    uint32_t x = seed * 0x9E3779B9u + 0x7F4A7C15u;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    return x & 0x0FFFFFFFu;
}

__global__ void produce(uint32_t *p, size_t words, uint32_t seed) {
    uint32_t b = base_of(seed);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        p[i] = b + (uint32_t)(i & 15);
}

static unsigned long long sum_of(uint32_t seed, size_t words) {
    unsigned long long ramp = (words / 16) * 120ull;
    for (size_t r = 0; r < words % 16; r++) ramp += r;
    return words * (unsigned long long)base_of(seed) + ramp;
}

// Several passes over the buffer so it stays in use a while.
__global__ void consume(const uint32_t *p, size_t words, unsigned long long *acc) {
    unsigned long long s = 0;
    for (int pass = 0; pass < 4; pass++)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
            s += (unsigned long long)p[i] * (unsigned)(pass + 1);
    atomicAdd(acc, s);
}

static int blocks_for(size_t words) {
    size_t b = (words + 255) / 256;
    return (int)(b < 64 ? (b ? b : 1) : 64);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main() {
    const int OPS = 100000, SLOTS = 64;
    const size_t menu[6] = {256, 1000, 4096, 65536, 1 << 20, 3 << 20};
    CK(cudaSetDevice(0));
    cudaStream_t s1, s2;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t ev;
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    unsigned long long *acc;
    CK(cudaMalloc(&acc, sizeof *acc));
    CK(cudaMemset(acc, 0, sizeof *acc));
    CK(cudaDeviceSynchronize());  // s1 and s2 do not wait for the legacy stream

    uint32_t *live[SLOTS] = {};
    size_t words[SLOTS] = {};
    unsigned long long host_sum = 0;
    int mallocs = 0, host_allocs = 0;
    for (int op = 0; op < OPS; op++) {
        int slot = (int)(next() % SLOTS);
        if (live[slot]) {
            consume<<<blocks_for(words[slot]), 256, 0, s1>>>(live[slot], words[slot], acc);
            CK(cudaGetLastError());
            CK(cudaFree(live[slot]));
        }
        size_t bytes = menu[slot % 6] + next() % 512;
        CK(cudaMalloc(&live[slot], bytes));
        mallocs++;
        words[slot] = bytes / 4;
        produce<<<blocks_for(words[slot]), 256, 0, s2>>>(live[slot], words[slot], (uint32_t)op);
        CK(cudaGetLastError());
        CK(cudaEventRecord(ev, s2));
        CK(cudaStreamWaitEvent(s1, ev, 0));

        if (op % 1000 == 999) {
            // Pinned memory round trip of this slot's fresh contents.
            size_t n = words[slot] < 65536 ? words[slot] : 65536;
            uint32_t *h;
            CK(cudaMallocHost(&h, n * 4 + next() % 4096));
            host_allocs++;
            CK(cudaMemcpyAsync(h, live[slot], n * 4, cudaMemcpyDeviceToHost, s2));
            CK(cudaStreamSynchronize(s2));
            for (size_t i = 0; i < n; i++) host_sum += h[i] ^ (uint32_t)i;
            if (h[0] != base_of((uint32_t)op)) {
                printf("pinned copy saw stale data at op %d\n", op);
                return 1;
            }
            CK(cudaFreeHost(h));
        }
    }
    for (int slot = 0; slot < SLOTS; slot++) {
        if (!live[slot]) continue;
        consume<<<blocks_for(words[slot]), 256, 0, s1>>>(live[slot], words[slot], acc);
        CK(cudaGetLastError());
        CK(cudaFree(live[slot]));
    }
    CK(cudaDeviceSynchronize());
    unsigned long long total = 0;
    CK(cudaMemcpy(&total, acc, sizeof total, cudaMemcpyDeviceToHost));
    CK(cudaFree(acc));

    // The same sums computed on the host, from the same sequence.
    rng = 88172645463325252ull;
    unsigned long long expect = 0;
    {
        size_t w[SLOTS] = {};
        uint32_t seed[SLOTS] = {};
        bool used[SLOTS] = {};
        auto add = [&](int s) { expect += sum_of(seed[s], w[s]) * 10; };  // passes 1 + 2 + 3 + 4
        for (int op = 0; op < OPS; op++) {
            int slot = (int)(next() % SLOTS);
            if (used[slot]) add(slot);
            w[slot] = (menu[slot % 6] + next() % 512) / 4;
            seed[slot] = (uint32_t)op;
            used[slot] = true;
            if (op % 1000 == 999) next();
        }
        for (int s = 0; s < SLOTS; s++)
            if (used[s]) add(s);
    }

    CK(cudaEventDestroy(ev));
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
    printf("mallocs %d pinned %d\n", mallocs, host_allocs);
    printf("device checksum %llu (%s)\n", total, total == expect ? "matches host" : "MISMATCH");
    printf("pinned checksum %llu\n", host_sum);
    return total == expect ? 0 : 1;
}
