// Every launch path computes into a __device__ array; results and the
// error codes of bad launches are printed by name.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CK(call)                                                                 \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            printf("FAIL %d %s -> %s\n", __LINE__, #call, cudaGetErrorName(e_)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)
#define SHOW(what, call) printf("%s: %s\n", what, cudaGetErrorName(call))

__device__ long long out[16];

struct S { int x; float y; char z; };

__global__ void args_kernel(int a, double b, char c, S s, long long q, unsigned short u) {
    out[0] = a;
    out[1] = (long long)(b * 4);
    out[2] = c;
    out[3] = s.x + (long long)s.y + s.z;
    out[4] = q;
    out[5] = u;
    out[6] = gridDim.x * 100 + gridDim.y * 10 + gridDim.z;
    out[7] = blockDim.x * 100 + blockDim.y * 10 + blockDim.z;
}
template <typename T> __global__ void fill(T v, int slot) { if (threadIdx.x == 0 && blockIdx.x == 0) out[slot] = (long long)v; }
__global__ void count_threads(int slot) { atomicAdd((unsigned long long *)&out[slot], 1ull); }
__global__ void dyn_shared(int slot) {
    extern __shared__ int sm[];
    sm[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) out[slot] = sm[blockDim.x - 1];
}
__global__ void empty() {}

int main() {
    long long zero[16] = {0};
    CK(cudaMemcpyToSymbol(out, zero, sizeof zero));

    args_kernel<<<dim3(2, 3, 4), dim3(8, 2, 1)>>>(7, 2.5, 'c', S{1, 2.0f, 3}, 1LL << 40, 0xBEEF);
    CK(cudaGetLastError());
    fill<float><<<1, 1>>>(9.75f, 8);
    fill<short><<<1, 1>>>((short)-3, 9);

    int slot = 10;
    void *args[] = {&slot};
    CK(cudaLaunchKernel((const void *)count_threads, dim3(3), dim3(5), args, 0, 0));

    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(4); cfg.blockDim = dim3(32); cfg.dynamicSmemBytes = 32 * sizeof(int);
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributePriority; at[0].val.priority = 0;
    cfg.attrs = at; cfg.numAttrs = 1;
    int slot2 = 11;
    void *args2[] = {&slot2};
    CK(cudaLaunchKernelExC(&cfg, (const void *)dyn_shared, args2));

    int slot3 = 12;
    void *args3[] = {&slot3};
    CK(cudaLaunchCooperativeKernel((const void *)count_threads, dim3(2), dim3(64), args3, 0, 0));

    cudaKernel_t k;
    CK(cudaGetKernel(&k, (const void *)count_threads));
    int slot4 = 13;
    void *args4[] = {&slot4};
    CK(cudaLaunchKernel((const void *)k, dim3(1), dim3(7), args4, 0, 0));

    CK(cudaFuncSetAttribute((const void *)dyn_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
    dyn_shared<<<1, 1024, 64 * 1024>>>(14);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    long long r[16];
    CK(cudaMemcpyFromSymbol(r, out, sizeof r));
    for (int i = 0; i < 15; i++) printf("out[%d] = %lld\n", i, r[i]);

    // Bad launches: the codes NVIDIA's runtime gives (compared by name).
    empty<<<1, 2048>>>();
    SHOW("block of 2048", cudaGetLastError());
    empty<<<0, 1>>>();
    SHOW("empty grid", cudaGetLastError());
    empty<<<1, 0>>>();
    SHOW("empty block", cudaGetLastError());
    empty<<<dim3(1, 70000), 1>>>();
    SHOW("grid y 70000", cudaGetLastError());
    empty<<<1, dim3(1, 1, 128)>>>();
    SHOW("block z 128", cudaGetLastError());
    empty<<<1, 1, 1 << 20>>>();
    SHOW("1 MiB shared", cudaGetLastError());
    dyn_shared<<<1, 1, 200 * 1024>>>(15);
    SHOW("200 KiB shared without opt-in", cudaGetLastError());
    void *none[] = {nullptr};
    SHOW("not a kernel", cudaLaunchKernel((const void *)main, dim3(1), dim3(1), none, 0, 0));
    SHOW("NULL kernel", cudaLaunchKernel(nullptr, dim3(1), dim3(1), none, 0, 0));
    cudaGetLastError();
    SHOW("set read-only attribute", cudaFuncSetAttribute((const void *)empty, (cudaFuncAttribute)0, 1));
    SHOW("too much dynamic shared", cudaFuncSetAttribute((const void *)empty, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 30));
    SHOW("bad cache config", cudaFuncSetCacheConfig((const void *)empty, (cudaFuncCache)9));
    cudaFuncAttributes fa;
    SHOW("attributes of non-kernel", cudaFuncGetAttributes(&fa, (const void *)main));
    cudaGetLastError();
    CK(cudaDeviceSynchronize());

    CK(cudaFuncGetAttributes(&fa, (const void *)empty));
    printf("empty: maxThreadsPerBlock %d sharedSizeBytes %zu localSizeBytes %zu maxDynamicSharedSizeBytes %d\n",
           fa.maxThreadsPerBlock, fa.sharedSizeBytes, fa.localSizeBytes, fa.maxDynamicSharedSizeBytes);
    const char *name = nullptr;
    CK(cudaFuncGetName(&name, (const void *)fill<float>));
    printf("name %s\n", name);
    size_t off = 0, sz = 0;
    CK(cudaFuncGetParamInfo((const void *)args_kernel, 3, &off, &sz));
    printf("args_kernel param 3: offset %zu size %zu\n", off, sz);
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)count_threads, 256, 0));
    printf("occupancy(count_threads, 256) %d\n", blocks);
    size_t avail = 0;
    CK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, (const void *)dyn_shared, 2, 256));
    printf("available dynamic smem (2 x 256) %zu\n", avail);
    printf("done\n");
    return 0;
}
