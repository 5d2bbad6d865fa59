/* Prints cudaGetErrorName/cudaGetErrorString for every code -2..=1001 and
 * 9999..=10001. Built against NVIDIA's headers; run with NVIDIA's library
 * and with ours, the outputs must be equal. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static void show(int c) {
    printf("%d\t%s\t%s\n", c, cudaGetErrorName((cudaError_t)c), cudaGetErrorString((cudaError_t)c));
}

int main(void) {
    for (int c = -2; c <= 1001; c++) show(c);
    for (int c = 9999; c <= 10001; c++) show(c);
    return 0;
}
