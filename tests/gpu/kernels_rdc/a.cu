// nvcc: -rdc=true
// Relocatable device code: a kernel here calls a function and writes a
// variable defined in b.cu; b.cu launches its own kernel too.
#include <cstdio>
#include <cuda_runtime.h>

extern __device__ int scale(int x);
extern __device__ int table[8];
__global__ void use_b(int x) { table[threadIdx.x] = scale(x + threadIdx.x); }
int launch_from_b(int);

int main() {
    use_b<<<1, 4>>>(10);
    if (launch_from_b(5) != 0) return 1;
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    int t[8];
    if (cudaMemcpyFromSymbol(t, table, sizeof t) != cudaSuccess) return 1;
    for (int i = 0; i < 8; i++) printf("table[%d] = %d\n", i, t[i]);
    return 0;
}
