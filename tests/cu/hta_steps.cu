// A training-like job for Holistic Trace Analysis on the Kineto timeline
// (tests/kineto.rs over the fake driver and fake CUPTI; gpu/checks/hta_nontorch.py
// on a GPU): S steps, each an NVTX range "step" holding a host-to-device
// copy, a memset, three compute kernels on the compute stream, an event
// the communication stream waits on, an NCCL-named kernel there (the older NCCL naming, which HTA's straggler analysis looks for; HTA types
// a kernel named nccl*Kernel as communication), a device-to-host copy and
// a stream synchronize.
//   hta_steps S DELAY_US [NAME [START_MS]] : DELAY_US of host work before
//       each step's communication kernel (a slow rank); the range is named
//       NAME (default "step"; "ProfilerStep" names them ProfilerStep#0, #1,
//       ... as PyTorch does); START_MS (ms since the epoch): step s starts
//       at START_MS + 50 s ms, so that the ranks of a test start each step
//       together, as a collective would make them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <time.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void gemm_like(float *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = p[i];
    for (int k = 0; k < n; k++) v = v * 0.999f + 1.0f;
    p[i] = v;
}

__global__ void ncclKernel_AllReduce_RING_LL_Sum_float(float *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = p[i];
    for (int k = 0; k < n; k++) v = v * 0.5f + 1.0f;
    p[i] = v;
}

#define CHECK(x) do { if ((x) != cudaSuccess) { fprintf(stderr, "%s failed\n", #x); return 2; } } while (0)

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 4, delay = argc > 2 ? atoi(argv[2]) : 0;
    const char *name = argc > 3 ? argv[3] : "step";
    long long start_ms = argc > 4 ? atoll(argv[4]) : 0;
    char label[64];
    const int n = 1 << 20;
    float *d = nullptr, *h = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMallocHost(&h, n * sizeof(float)));
    cudaStream_t compute, comm;
    cudaEvent_t ready;
    CHECK(cudaStreamCreate(&compute));
    CHECK(cudaStreamCreate(&comm));
    CHECK(cudaEventCreate(&ready));
    for (int s = 0; s < steps; s++) {
        if (start_ms) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            long long wait_us = (start_ms + 50LL * s) * 1000 - (now.tv_sec * 1000000LL + now.tv_nsec / 1000);
            if (wait_us > 0) usleep((useconds_t)wait_us);
        }
        if (strcmp(name, "ProfilerStep") == 0) snprintf(label, sizeof label, "ProfilerStep#%d", s);
        else snprintf(label, sizeof label, "%s", name);
        nvtxRangePushA(label);
        CHECK(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, compute));
        CHECK(cudaMemsetAsync(d, 0, 4096, compute));
        for (int k = 0; k < 3; k++) gemm_like<<<n / 256 / 16, 256, 0, compute>>>(d, 1000);
        CHECK(cudaEventRecord(ready, compute));
        if (delay) usleep(delay);
        CHECK(cudaStreamWaitEvent(comm, ready, 0));
        ncclKernel_AllReduce_RING_LL_Sum_float<<<n / 256, 256, 0, comm>>>(d, 500);
        CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, comm));
        CHECK(cudaStreamSynchronize(comm));
        nvtxRangePop();
    }
    CHECK(cudaDeviceSynchronize());
    cudaFreeHost(h);
    cudaFree(d);
    printf("hta_steps done\n");
    return 0;
}
