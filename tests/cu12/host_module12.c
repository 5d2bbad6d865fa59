/* The host-only route of docs/CUDA12.md: plain C compiled against CUDA
 * 12.9's headers and linked to libcudart.so.12; the device code is a cubin
 * (scale.ptx assembled by 12.9's ptxas) loaded with cudaLibraryLoadData and
 * launched through cudaLaunchKernel with its cudaKernel_t. No nvcc, no
 * __cuda* registration calls.
 *
 * usage: host_module12 scale.cubin */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        printf("%s -> %s\n", #call, cudaGetErrorName(e_));                    \
        if (e_ != cudaSuccess) return 1;                                      \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s scale.cubin\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    static char image[1 << 20];
    size_t len = fread(image, 1, sizeof image, f);
    fclose(f);
    printf("image %zu bytes\n", len);
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    printf("CUDART_VERSION %d, cudaRuntimeGetVersion %d\n", CUDART_VERSION, rt);
    cudaLibrary_t lib;
    CK(cudaLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
    cudaKernel_t k;
    CK(cudaLibraryGetKernel(&k, lib, "scale"));
    float h[8] = {1, 2, 3, 4, 5, 6, 7, 8}, *d = NULL;
    CK(cudaMalloc((void **)&d, sizeof h));
    CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    float by = 2.0f;
    unsigned n = 8;
    void *args[] = {&d, &by, &n};
    dim3 grid = {1, 1, 1}, block = {8, 1, 1};
    CK(cudaLaunchKernel((const void *)k, grid, block, args, 0, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("h = %g %g %g %g %g %g %g %g\n", h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]);
    CK(cudaFree(d));
    CK(cudaLibraryUnload(lib));
    printf("done\n");
    return 0;
}
