/* A runtime program that fetches a driver function with
 * cudaGetDriverEntryPointByVersion and calls it itself (as PyTorch does):
 * those calls are the program's own driver calls and are traced as such.
 * Calls cuDeviceGetAttribute through the pointer twice, the second time for
 * a device that does not exist. */
#include <cuda_runtime_api.h>
#include <stdio.h>

typedef int (*attr_fn)(int *, int, int);

int main(void) {
    void *p = NULL;
    enum cudaDriverEntryPointQueryResult q;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuDeviceGetAttribute", &p, 13000, cudaEnableDefault, &q);
    if (e != cudaSuccess || p == NULL) {
        printf("cudaGetDriverEntryPointByVersion = %d\n", (int)e);
        return 1;
    }
    int v = 0;
    int r1 = ((attr_fn)p)(&v, 10 /* CU_DEVICE_ATTRIBUTE_WARP_SIZE */, 0);
    int r2 = ((attr_fn)p)(&v, 10, 99);
    printf("warp %d, r1 %d, r2 %d\n", v, r1, r2);
    return 0;
}
