/* Leaks three device buffers of known sizes from one function and frees a
 * fourth; with a limit, asks for more than the limit (the OOM report).
 *
 *   leak_three            three leaks (1000, 20000, 300000 bytes)
 *   leak_three oom BYTES  also one cudaMalloc of BYTES (expected to fail)
 *
 * Built with the runtime's header; runs on any libcudart.so.13. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int leak_three_buffers(void) {
    void *p[3];
    size_t sizes[3] = {1000, 20000, 300000};
    for (int i = 0; i < 3; i++)
        if (cudaMalloc(&p[i], sizes[i]) != cudaSuccess) return 1;
    return 0;
}

int main(int argc, char **argv) {
    void *ok = 0;
    if (cudaMalloc(&ok, 4096) != cudaSuccess) { fprintf(stderr, "cudaMalloc failed\n"); return 1; }
    if (leak_three_buffers()) { fprintf(stderr, "leak_three_buffers failed\n"); return 1; }
    cudaFree(ok);
    if (argc > 2 && strcmp(argv[1], "oom") == 0) {
        void *big = 0;
        cudaError_t e = cudaMalloc(&big, strtoull(argv[2], 0, 10));
        printf("oom: %s\n", cudaGetErrorName(e));
        cudaGetLastError();
    }
    printf("leaked 3\n");
    return 0;
}
