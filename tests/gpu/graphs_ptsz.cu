// nvcc: --default-stream per-thread
// Graphs on the per-thread default stream (the _ptsz exports): a
// memset -> kernel -> memcpy -> host graph launched on stream 0 from two
// threads, 50 replays each, plus upload and instantiate-with-upload on
// stream 0. Prints results only.
#include <cuda_runtime.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));   \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

constexpr int N = 4096;

__global__ void scale(int *x, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * k + i % 7;
}

static std::atomic<int> calls{0};
static void CUDART_CB bump(void *) { calls++; }

// Build and replay one graph on this thread's default stream; returns the
// checksum of the last replay.
static long run(int k) {
    int *d, *h;
    CK(cudaMalloc(&d, N * sizeof(int)));
    CK(cudaMallocHost(&h, N * sizeof(int)));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t ms, kn, cp, hn;
    cudaMemsetParams mp = {};
    mp.dst = d;
    mp.value = 1;
    mp.elementSize = 4;
    mp.width = N;
    mp.height = 1;
    CK(cudaGraphAddMemsetNode(&ms, g, nullptr, 0, &mp));
    int n = N;
    void *args[] = {&d, &k, &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(N / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&kn, g, &ms, 1, &kp));
    CK(cudaGraphAddMemcpyNode1D(&cp, g, &kn, 1, h, d, N * sizeof(int), cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp = {bump, nullptr};
    CK(cudaGraphAddHostNode(&hn, g, &cp, 1, &hp));
    cudaGraphExec_t e;
    cudaGraphInstantiateParams ip = {};
    ip.flags = cudaGraphInstantiateFlagUpload;
    ip.uploadStream = 0;
    CK(cudaGraphInstantiateWithParams(&e, g, &ip));
    CK(cudaGraphUpload(e, 0));
    for (int i = 0; i < 50; i++) CK(cudaGraphLaunch(e, 0));
    CK(cudaStreamSynchronize(0));
    long sum = 0;
    for (int i = 0; i < N; i++) sum += h[i];
    CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
    return sum;
}

int main() {
    CK(cudaSetDevice(0));
    long a = 0, b = 0;
    std::thread t1([&] { CK(cudaSetDevice(0)); a = run(2); });
    std::thread t2([&] { CK(cudaSetDevice(0)); b = run(3); });
    t1.join();
    t2.join();
    printf("sums: %ld %ld\n", a, b);
    printf("host calls: %d\n", calls.load());
    long want_a = 0, want_b = 0;
    for (int i = 0; i < N; i++) want_a += 2 + i % 7, want_b += 3 + i % 7;
    if (a != want_a || b != want_b || calls != 100) {
        printf("FAIL\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
