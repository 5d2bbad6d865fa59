/* The `./app` of the README's recipes (tests/readme.rs): four 32 MiB
 * cudaMalloc calls, each result printed, then cudaDeviceSynchronize.
 * Exits 0 whatever the results (the recipes' limits and faults make some
 * fail on purpose). */
#include <cuda_runtime.h>
#include <stdio.h>

int main(void) {
    void *p[4];
    for (int i = 0; i < 4; i++) {
        cudaError_t r = cudaMalloc(&p[i], 32 << 20);
        printf("malloc %d: %s\n", i, cudaGetErrorName(r));
    }
    cudaError_t r = cudaDeviceSynchronize();
    printf("synchronize: %s\n", cudaGetErrorName(r));
    return 0;
}
