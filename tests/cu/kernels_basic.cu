// Launch paths, argument layouts, symbols and function queries of an nvcc
// program, run on the shim over the fake driver: kernels do not execute
// there; tests/kernels_programs.rs reads the fake's launch log.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CK(call)                                                                  \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #call,            \
                   cudaGetErrorName(e_));                                         \
            return 1;                                                             \
        }                                                                         \
    } while (0)

__device__ int dv[4];
__constant__ float cv[8];
__managed__ int mv = 5;

struct S { int x; float y; char z; };

__global__ void k1(int a, double b, char c, int *p) { *p = a + (int)b + c + dv[0] + mv + (int)cv[0]; }
__global__ void k2(S s, long long q) { dv[1] = s.x + (int)q; }
__global__ void k0() {}
template <typename T> __global__ void tk(T *p, T v, int n) { if (threadIdx.x < n) p[threadIdx.x] = v; }
namespace ns { __global__ void nk(unsigned short u) { dv[2] = u; } }

int main() {
    int *d = nullptr;
    CK(cudaGetSymbolAddress((void **)&d, dv));
    size_t sz = 0;
    CK(cudaGetSymbolSize(&sz, dv));
    printf("dv size %zu\n", sz);
    CK(cudaGetSymbolSize(&sz, cv));
    printf("cv size %zu\n", sz);

    // <<<>>> with every configuration field.
    k1<<<dim3(2, 3, 4), dim3(32, 2, 1), 128>>>(7, 2.5, 'c', d);
    CK(cudaGetLastError());
    k2<<<1, 1, 0, cudaStreamPerThread>>>(S{1, 2.0f, 3}, 0x1122334455667788LL);
    k0<<<5, 64>>>();
    tk<float><<<1, 4>>>((float *)d, 1.5f, 4);
    tk<int><<<1, 8>>>(d, -1, 8);
    ns::nk<<<1, 1>>>(0xBEEF);
    CK(cudaGetLastError());

    // cudaLaunchKernel by hand on a host stub.
    int a = 11; double b = 0.5; char c = 'z';
    void *args[] = {&a, &b, &c, &d};
    CK(cudaLaunchKernel((const void *)k1, dim3(9), dim3(10), args, 0, cudaStreamLegacy));

    // cudaLaunchKernelExC with a cooperative attribute.
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(3); cfg.blockDim = dim3(96); cfg.dynamicSmemBytes = 64;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeCooperative; at[0].val.cooperative = 1;
    cfg.attrs = at; cfg.numAttrs = 1;
    void *noargs[] = {nullptr};
    CK(cudaLaunchKernelExC(&cfg, (const void *)k0, noargs));
    CK(cudaLaunchCooperativeKernel((const void *)k0, dim3(2), dim3(2), noargs, 0, 0));

    // cudaKernel_t paths.
    cudaKernel_t kk;
    CK(cudaGetKernel(&kk, (const void *)k0));
    CK(cudaLaunchKernel((const void *)kk, dim3(4), dim3(4), noargs, 0, 0));

    // Launch errors land in the thread's last error.
    k0<<<1, 2048>>>();
    printf("too many threads: %s\n", cudaGetErrorName(cudaGetLastError()));
    k0<<<0, 1>>>();
    printf("empty grid: %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("not a kernel: %s\n", cudaGetErrorName(cudaLaunchKernel((const void *)main, dim3(1), dim3(1), noargs, 0, 0)));
    cudaGetLastError();

    // Symbols move bytes.
    float hc[8], back[8];
    for (int i = 0; i < 8; i++) hc[i] = i * 1.25f;
    CK(cudaMemcpyToSymbol(cv, hc, sizeof hc));
    CK(cudaMemcpyFromSymbol(back, cv, sizeof back));
    printf("cv roundtrip %s\n", memcmp(hc, back, sizeof hc) == 0 ? "ok" : "BAD");
    int four[2] = {41, 42};
    CK(cudaMemcpyToSymbolAsync(dv, four, sizeof four, 2 * sizeof(int), cudaMemcpyHostToDevice, 0));
    int all[4];
    CK(cudaMemcpyFromSymbolAsync(all, dv, sizeof all, 0, cudaMemcpyDeviceToHost, 0));
    CK(cudaDeviceSynchronize());
    printf("dv %d %d %d %d\n", all[0], all[1], all[2], all[3]);
    printf("past the end: %s\n", cudaGetErrorName(cudaMemcpyToSymbol(dv, four, 8, 12)));
    printf("wrong direction: %s\n", cudaGetErrorName(cudaMemcpyToSymbol(dv, four, 4, 0, cudaMemcpyDeviceToHost)));
    printf("not a symbol: %s\n", cudaGetErrorName(cudaMemcpyToSymbol(four, four, 4)));
    cudaGetLastError();

    // __managed__: the host pointer is filled in at first host use.
    printf("mv %d\n", mv);
    mv = 9;
    int m = 0;
    CK(cudaMemcpyFromSymbol(&m, mv, sizeof m));
    printf("mv via symbol %d\n", m);

    // Function queries.
    const char *name = nullptr;
    CK(cudaFuncGetName(&name, (const void *)k1));
    printf("name %s\n", name);
    CK(cudaFuncGetName(&name, (const void *)tk<float>));
    printf("name %s\n", name);
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, (const void *)k1));
    printf("maxThreadsPerBlock %d maxDynamicSharedSizeBytes %d\n", fa.maxThreadsPerBlock, fa.maxDynamicSharedSizeBytes);
    CK(cudaFuncSetAttribute((const void *)k0, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
    k0<<<1, 1, 100000>>>();
    printf("big shared after opt-in: %s\n", cudaGetErrorName(cudaGetLastError()));
    k1<<<1, 1, 100000>>>(0, 0, 0, d);
    printf("big shared without: %s\n", cudaGetErrorName(cudaGetLastError()));
    size_t off = 0, psz = 0;
    CK(cudaFuncGetParamInfo((const void *)k2, 1, &off, &psz));
    printf("k2 param 1 offset %zu size %zu\n", off, psz);
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)k0, 256, 0));
    printf("occupancy %d\n", blocks);
    CK(cudaFuncSetCacheConfig((const void *)k0, cudaFuncCachePreferL1));
    printf("done\n");
    return 0;
}
