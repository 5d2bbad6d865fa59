// __device__, __constant__ and __managed__ variables: symbol addresses,
// sizes, copies in every direction, and kernels reading what was copied.
#include <cstdio>
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

__constant__ int coeffs[4];
__device__ int results[4];
__device__ int scratch[4] = {10, 20, 30, 40};
__managed__ int managed_counter = 100;

__global__ void apply() {
    int i = threadIdx.x;
    results[i] = coeffs[i] * scratch[i];
    atomicAdd(&managed_counter, 1);
}

int main() {
    size_t sz = 0;
    CK(cudaGetSymbolSize(&sz, coeffs));
    printf("coeffs %zu bytes\n", sz);
    CK(cudaGetSymbolSize(&sz, managed_counter));
    printf("managed_counter %zu bytes\n", sz);
    printf("managed_counter starts at %d\n", managed_counter);

    int c[4] = {1, 2, 3, 4};
    CK(cudaMemcpyToSymbol(coeffs, c, sizeof c));
    int two = 2;
    CK(cudaMemcpyToSymbol(coeffs, &two, sizeof two, 3 * sizeof(int)));
    apply<<<1, 4>>>();
    CK(cudaDeviceSynchronize());
    int r[4];
    CK(cudaMemcpyFromSymbol(r, results, sizeof r));
    printf("results %d %d %d %d\n", r[0], r[1], r[2], r[3]);
    printf("managed_counter %d\n", managed_counter);
    managed_counter = 7;
    int m = 0;
    CK(cudaMemcpyFromSymbol(&m, managed_counter, sizeof m));
    printf("managed_counter via symbol %d\n", m);

    // Device-to-device through symbol addresses, async on a stream.
    int *dres = nullptr, *dscr = nullptr;
    CK(cudaGetSymbolAddress((void **)&dres, results));
    CK(cudaGetSymbolAddress((void **)&dscr, scratch));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemcpyToSymbolAsync(scratch, dres, 2 * sizeof(int), 2 * sizeof(int), cudaMemcpyDeviceToDevice, s));
    int back[4];
    CK(cudaMemcpyFromSymbolAsync(back, scratch, sizeof back, 0, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    printf("scratch %d %d %d %d\n", back[0], back[1], back[2], back[3]);
    CK(cudaStreamDestroy(s));

    SHOW("past the end", cudaMemcpyToSymbol(coeffs, c, sizeof c, 4));
    SHOW("wrong direction to", cudaMemcpyToSymbol(coeffs, c, 4, 0, cudaMemcpyDeviceToHost));
    SHOW("wrong direction from", cudaMemcpyFromSymbol(c, coeffs, 4, 0, cudaMemcpyHostToDevice));
    SHOW("not a symbol", cudaMemcpyToSymbol(c, c, 4));
    SHOW("size of non-symbol", cudaGetSymbolSize(&sz, c));
    SHOW("zero bytes", cudaMemcpyToSymbol(coeffs, c, 0));
    cudaGetLastError();
    printf("done\n");
    return 0;
}
