// Cold start: the process does only this; the bench GPU check times the whole process
// (start to exit) and reports the median per runtime.
#include <cuda_runtime.h>
#include <cstdio>
int main() {
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, 1 << 20);
    if (e != cudaSuccess) {
        fprintf(stderr, "cudaMalloc: %s\n", cudaGetErrorName(e));
        return 1;
    }
    return 0;
}
