// nvcc: --default-stream per-thread
// Built with the per-thread default stream: stream 0 is each thread's own
// stream (the _ptsz entry points), independent of other threads, still
// synchronizing with cudaStreamLegacy; it can be captured.
#include <cuda_runtime.h>
#include "cuda13_names.h"
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)
#define SHOW(call) printf("%-60s %s\n", #call, cudaGetErrorName(call))

__global__ void spin_then_write(int *p, int value, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    *p = value;
}

__global__ void copy_plus_one(int *dst, const int *src) { *dst = *src + 1; }

static std::atomic<int> hits{0};
static void CUDART_CB host(void *) { hits++; }
static cudaStream_t seen_stream = (cudaStream_t)0x99;
static void CUDART_CB cb(cudaStream_t s, cudaError_t, void *) { seen_stream = s; }

int main() {
    CK(cudaSetDevice(0));
    int *d;
    CK(cudaMalloc(&d, 16 * sizeof(int)));
    CK(cudaMemset(d, 0, 16 * sizeof(int)));

    // Stream 0 here is this thread's per-thread stream.
    unsigned long long id0 = 0, idpt = 0, idleg = 0;
    CK(cudaStreamGetId(0, &id0));
    CK(cudaStreamGetId(cudaStreamPerThread, &idpt));
    CK(cudaStreamGetId(cudaStreamLegacy, &idleg));
    printf("stream 0 is the per-thread stream: %d, not legacy: %d\n", id0 == idpt, id0 != idleg);

    // Another thread's stream 0 is a different stream, and does not wait
    // for this thread's busy stream 0.
    spin_then_write<<<1, 1>>>(d, 5, 2000000000LL);  // about a second
    CK(cudaGetLastError());
    unsigned long long other_id = 0;
    cudaError_t other_query = cudaSuccess;
    std::thread([&] {
        CK(cudaStreamGetId(0, &other_id));
        copy_plus_one<<<1, 1>>>(d + 1, d + 2);
        CK(cudaStreamSynchronize(0));
        other_query = cudaStreamQuery(0);
    }).join();
    printf("other thread's stream 0 differs: %d, idle after its sync: %s\n", other_id != id0,
           cudaGetErrorName(other_query));
    SHOW(cudaStreamQuery(0));
    SHOW(cudaGetLastError());
    CK(cudaStreamSynchronize(0));
    int h[2];
    CK(cudaMemcpy(h, d, 2 * sizeof(int), cudaMemcpyDeviceToHost));
    printf("values: %d %d\n", h[0], h[1]);

    // The legacy stream waits for the per-thread stream (both blocking).
    spin_then_write<<<1, 1>>>(d + 3, 8, 20000000);
    copy_plus_one<<<1, 1, 0, cudaStreamLegacy>>>(d + 4, d + 3);
    CK(cudaStreamSynchronize(cudaStreamLegacy));
    CK(cudaMemcpy(h, d + 3, 2 * sizeof(int), cudaMemcpyDeviceToHost));
    printf("legacy after per-thread: %d %d\n", h[0], h[1]);

    // Events and callbacks on stream 0.
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a, 0));
    spin_then_write<<<1, 1>>>(d + 5, 1, 20000000);
    CK(cudaEventRecordWithFlags(b, 0, 0));
    CK(cudaStreamAddCallback(0, cb, nullptr, 0));
    CK(cudaEventSynchronize(b));
    CK(cudaStreamSynchronize(0));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("elapsed positive: %d, callback stream is NULL: %d\n", ms > 0, seen_stream == nullptr);
    cudaStream_t nb;
    CK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    CK(cudaStreamWaitEvent(nb, b, 0));
    unsigned flags = 9;
    CK(cudaStreamGetFlags(0, &flags));
    printf("stream 0 flags: %u\n", flags);
    int prio = 9, dev = -1;
    CK(cudaStreamGetPriority(0, &prio));
    CK(cudaStreamGetDevice(0, &dev));
    printf("stream 0 priority %d device %d\n", prio, dev);

    // The per-thread stream can be captured (the legacy stream cannot).
    CK(cudaStreamBeginCapture(0, cudaStreamCaptureModeThreadLocal));
    cudaStreamCaptureStatus st;
    CK(cudaStreamIsCapturing(0, &st));
    printf("stream 0 capturing: %d\n", st == cudaStreamCaptureStatusActive);
    copy_plus_one<<<1, 1>>>(d + 6, d + 6);
    CK(cudaLaunchHostFunc(0, host, nullptr));
    const cudaGraphNode_t *deps;
    size_t n = 0;
    CK(cudaStreamGetCaptureInfo(0, &st, nullptr, nullptr, &deps, nullptr, &n));
    printf("dependencies: %zu\n", n);
    cudaGraph_t g;
    CK(cudaStreamEndCapture(0, &g));
    cudaGraphExec_t e;
    CK(cudaGraphInstantiate(&e, g, 0));
    CK(cudaMemset(d + 6, 0, sizeof(int)));
    for (int i = 0; i < 100; i++) CK(cudaGraphLaunch(e, 0));
    CK(cudaStreamSynchronize(0));
    CK(cudaMemcpy(h, d + 6, sizeof(int), cudaMemcpyDeviceToHost));
    printf("replays: value %d, host calls %d\n", h[0], hits.load());
    CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(g));
    SHOW(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal));

    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaStreamDestroy(nb));
    CK(cudaFree(d));
    printf("done\n");
    return 0;
}
