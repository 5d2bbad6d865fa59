// nvcc: --default-stream per-thread
// cudaMallocAsync / cudaFreeAsync captured into a graph (memory nodes),
// launched several times; built with per-thread default streams so the
// _ptsz exports are exercised too.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)

__global__ void square(int *p, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i * i + k;
}

__global__ void total(const int *p, int n, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, (unsigned long long)p[i]);
}

int main() {
    const int n = 4096;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long *sum;
    CHECK(cudaMalloc(&sum, sizeof *sum));

    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    int *tmp;
    CHECK(cudaMallocAsync((void **)&tmp, n * sizeof(int), s));
    square<<<(n + 255) / 256, 256, 0, s>>>(tmp, n, 3);
    CHECK(cudaMemsetAsync(sum, 0, sizeof *sum, s));
    total<<<(n + 255) / 256, 256, 0, s>>>(tmp, n, sum);
    CHECK(cudaFreeAsync(tmp, s));
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    unsigned long long want = 0;
    for (int i = 0; i < n; i++) want += (unsigned long long)i * i + 3;
    for (int round = 0; round < 3; round++) {
        CHECK(cudaGraphLaunch(exec, s));
        unsigned long long got = 0;
        CHECK(cudaMemcpyAsync(&got, sum, sizeof got, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        printf("round %d: %s\n", round, got == want ? "ok" : "WRONG");
    }
    // Outside capture, in the per-thread default stream (0 here means it).
    int *q;
    CHECK(cudaMallocAsync((void **)&q, n * sizeof(int), 0));
    square<<<(n + 255) / 256, 256>>>(q, n, 0);
    int last = 0;
    CHECK(cudaMemcpyAsync(&last, q + n - 1, sizeof last, cudaMemcpyDeviceToHost, 0));
    CHECK(cudaFreeAsync(q, 0));
    CHECK(cudaStreamSynchronize(0));
    printf("per-thread stream: %d\n", last);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(sum));
    printf("done\n");
    return 0;
}
