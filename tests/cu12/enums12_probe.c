/* What NVIDIA's 12.9 runtime answers to enum values only 13.x defines,
 * where a CUDA 12 program passes them inside a struct or list: launch
 * attributes 16..18 in cudaLaunchKernelExC's configuration, cluster
 * scheduling policy 3, function attribute 16, memory location types 5 and
 * 6 in a cudaMemAccessDesc, channel format kinds 32..45. Each with a value
 * 12.9 has as the control. Built on 12.9's headers (host-only route: the
 * kernel is scale.cubin, as host_module12 loads it); run with NVIDIA's
 * libcudart.so.12 and ours on a GPU by scripts/cuda12-gpu-demo.
 *
 * usage: enums12_probe scale.cubin */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define SHOW(what, call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        printf("%s -> %s (last %s)\n", what, cudaGetErrorName(e_),                      \
               cudaGetErrorName(cudaGetLastError()));                                    \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s scale.cubin\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    static char image[1 << 20];
    size_t len = fread(image, 1, sizeof image, f);
    fclose(f);
    cudaLibrary_t lib;
    cudaKernel_t k;
    if (cudaLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0) != cudaSuccess ||
        cudaLibraryGetKernel(&k, lib, "scale") != cudaSuccess || len == 0) {
        printf("cannot load scale\n");
        return 1;
    }
    float *d = NULL;
    if (cudaMalloc((void **)&d, 8 * sizeof(float)) != cudaSuccess) return 1;
    float by = 2.0f;
    unsigned n = 8;
    void *args[] = {&d, &by, &n};
    char what[96];

    /* Launch attributes in the configuration: 8 (priority) is 12.9's. */
    int ids[] = {8, 16, 17, 18};
    for (int i = 0; i < 4; i++) {
        cudaLaunchAttribute a;
        memset(&a, 0, sizeof a);
        a.id = (cudaLaunchAttributeID)ids[i];
        cudaLaunchConfig_t c;
        memset(&c, 0, sizeof c);
        c.gridDim = (dim3){1, 1, 1};
        c.blockDim = (dim3){8, 1, 1};
        c.attrs = &a;
        c.numAttrs = 1;
        snprintf(what, sizeof what, "cudaLaunchKernelExC(launch attribute %d)", ids[i]);
        SHOW(what, cudaLaunchKernelExC(&c, (const void *)k, args));
    }
    /* Cluster scheduling policy: 0..2 are 12.9's, 3 is 13.x's. */
    for (int p = 1; p <= 3; p += 2) {
        cudaLaunchAttribute a;
        memset(&a, 0, sizeof a);
        a.id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
        a.val.clusterSchedulingPolicyPreference = (enum cudaClusterSchedulingPolicy)p;
        cudaLaunchConfig_t c;
        memset(&c, 0, sizeof c);
        c.gridDim = (dim3){1, 1, 1};
        c.blockDim = (dim3){8, 1, 1};
        c.attrs = &a;
        c.numAttrs = 1;
        snprintf(what, sizeof what, "cudaLaunchKernelExC(cluster scheduling policy %d)", p);
        SHOW(what, cudaLaunchKernelExC(&c, (const void *)k, args));
    }
    SHOW("cudaDeviceSynchronize()", cudaDeviceSynchronize());

    /* Function attributes: 8 is 12.9's; 16 is 13.x's. */
    SHOW("cudaFuncSetAttribute(k, 8, 1024)", cudaFuncSetAttribute((const void *)k, (enum cudaFuncAttribute)8, 1024));
    SHOW("cudaFuncSetAttribute(k, 16, 0)", cudaFuncSetAttribute((const void *)k, (enum cudaFuncAttribute)16, 0));
    SHOW("cudaFuncSetAttribute(k, 15, 3)", cudaFuncSetAttribute((const void *)k, cudaFuncAttributeClusterSchedulingPolicyPreference, 3));

    /* A pool's access descriptors: location type 1 (device) is 12.9's. */
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, 0) != cudaSuccess) return 1;
    int types[] = {1, 5, 6};
    for (int i = 0; i < 3; i++) {
        struct cudaMemAccessDesc a;
        memset(&a, 0, sizeof a);
        a.location.type = (enum cudaMemLocationType)types[i];
        a.location.id = 0;
        a.flags = cudaMemAccessFlagsProtReadWrite;
        snprintf(what, sizeof what, "cudaMemPoolSetAccess(location type %d)", types[i]);
        SHOW(what, cudaMemPoolSetAccess(pool, &a, 1));
    }

    /* Channel format kinds: 2 (float) is 12.9's; 32..45 are 13.x's. */
    int kinds[] = {2, 32, 40, 45};
    for (int i = 0; i < 4; i++) {
        struct cudaChannelFormatDesc fd = {32, 0, 0, 0, (enum cudaChannelFormatKind)kinds[i]};
        cudaArray_t arr = NULL;
        snprintf(what, sizeof what, "cudaMallocArray(channel format kind %d)", kinds[i]);
        SHOW(what, cudaMallocArray(&arr, &fd, 16, 16, 0));
        if (arr) cudaFreeArray(arr);
    }
    cudaFree(d);
    cudaLibraryUnload(lib);
    printf("done\n");
    return 0;
}
