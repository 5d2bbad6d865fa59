// cudaMalloc/cudaFree while another stream captures a graph (relaxed
// mode), as PyTorch does. With CUDART_SHIM_POOL=1 a reused block may need a
// synchronize of the context, which a capture in progress forbids: this
// program shows whether the capture survives and which codes come back,
// to be compared with NVIDIA's runtime (codes printed by name).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void add_one(int *p) { *p += 1; }

static void show(const char *what, cudaError_t e) { printf("%s: %s\n", what, cudaGetErrorName(e)); }

int main() {
    cudaStream_t s;
    if (cudaSetDevice(0) != cudaSuccess || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;
    int *counter;
    if (cudaMalloc(&counter, sizeof(int)) != cudaSuccess || cudaMemset(counter, 0, sizeof(int)) != cudaSuccess) return 1;
    // Warm the cache: a freed 4 MiB block waits for reuse.
    void *warm;
    if (cudaMalloc(&warm, 4 << 20) != cudaSuccess || cudaFree(warm) != cudaSuccess) return 1;

    show("begin capture", cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    add_one<<<1, 1, 0, s>>>(counter);
    void *a = nullptr;
    show("malloc during capture", cudaMalloc(&a, 4 << 20));
    if (a) show("free during capture", cudaFree(a));
    add_one<<<1, 1, 0, s>>>(counter);
    cudaGraph_t g = nullptr;
    show("end capture", cudaStreamEndCapture(s, &g));
    if (g) {
        cudaGraphExec_t x;
        show("instantiate", cudaGraphInstantiate(&x, g, 0));
        show("launch", cudaGraphLaunch(x, s));
        show("sync", cudaStreamSynchronize(s));
        int v = -1;
        show("copy", cudaMemcpy(&v, counter, sizeof v, cudaMemcpyDeviceToHost));
        printf("counter %d\n", v);
    }
    show("last error", cudaGetLastError());
    return 0;
}
