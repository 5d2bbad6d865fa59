// GPU probe for faults (issue #24), run by scripts/gpu-control.
//   control_probe sticky real    : a real out-of-bounds write, then a fixed
//                                  list of calls, each code printed
//   control_probe sticky inject  : a harmless kernel (the fault is injected)
//   control_probe mallocs        : five cudaMalloc; the first failure takes
//                                  the error path (exit 3)
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void write_at(int *p, long long off) { p[off] = 1; }

static void show(const char *what, cudaError_t e) { printf("%-28s %d %s\n", what, (int)e, cudaGetErrorName(e)); }

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "mallocs")) {
        for (int i = 1; i <= 5; i++) {
            void *p = nullptr;
            cudaError_t e = cudaMalloc(&p, 1 << 20);
            printf("cudaMalloc %d: %s\n", i, cudaGetErrorName(e));
            if (e != cudaSuccess) {
                printf("error path: %s\n", cudaGetErrorString(e));
                return 3;
            }
        }
        return 0;
    }
    bool real = argc > 2 && !strcmp(argv[2], "real");
    int *d = nullptr;
    show("cudaMalloc", cudaMalloc(&d, 4));
    write_at<<<1, 1>>>(d, real ? (1LL << 36) : 0);
    show("launch (cudaGetLastError)", cudaGetLastError());
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    show("cudaGetLastError", cudaGetLastError());
    show("cudaGetLastError again", cudaGetLastError());
    show("cudaPeekAtLastError", cudaPeekAtLastError());
    void *q = nullptr;
    show("cudaMalloc after", cudaMalloc(&q, 16));
    int h = 0;
    show("cudaMemcpy DtoH", cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost));
    show("cudaMemset", cudaMemset(d, 0, 4));
    cudaStream_t s;
    show("cudaStreamCreate", cudaStreamCreate(&s));
    show("cudaStreamSynchronize", cudaStreamSynchronize(0));
    cudaEvent_t ev;
    show("cudaEventCreate", cudaEventCreate(&ev));
    write_at<<<1, 1>>>(d, 0);
    show("launch after (GetLastError)", cudaGetLastError());
    int n = -1, dev = -1, v = 0;
    show("cudaGetDeviceCount", cudaGetDeviceCount(&n));
    show("cudaGetDevice", cudaGetDevice(&dev));
    show("cudaSetDevice", cudaSetDevice(0));
    show("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
    cudaDeviceProp prop;
    show("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0));
    show("cudaDriverGetVersion", cudaDriverGetVersion(&v));
    show("cudaFree", cudaFree(d));
    show("cudaDeviceReset", cudaDeviceReset());
    show("cudaMalloc after reset", cudaMalloc(&q, 16));
    show("cudaGetLastError at end", cudaGetLastError());
    return 0;
}
