// -rdc=true, two translation units: a kernel here calls a device function
// defined in b.cu; both units register into one device-linked fatbinary.
#include <cstdio>
#include <cuda_runtime.h>

extern __device__ int scale(int x);
extern __device__ int table[8];
__global__ void use_b(int x) { table[0] = scale(x); }
void launch_from_b(int);

int main() {
    use_b<<<1, 1>>>(21);
    launch_from_b(5);
    int t[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0};
    if (cudaMemcpyToSymbol(table, t, sizeof t) != cudaSuccess) return 1;
    if (cudaMemcpyFromSymbol(back, table, sizeof back) != cudaSuccess) return 1;
    printf("table %d %d\n", back[0], back[7]);
    printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
