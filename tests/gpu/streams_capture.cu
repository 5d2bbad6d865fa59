// Stream capture: kernels, copies, sets and host functions captured across
// two streams (fork/join), instantiated and replayed; capture info and
// dependency updates; and the codes NVIDIA returns for capture violations.
// Prints results and return codes by name only.
#include <cuda_runtime.h>
#include "cuda13_names.h"
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)
#define SHOW(call) printf("%-70s %s\n", #call, cudaGetErrorName(call))

__global__ void add(int *p, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += v;
}

static std::atomic<int> host_calls{0};
static void CUDART_CB count(void *) { host_calls++; }
static void CUDART_CB callback(cudaStream_t, cudaError_t, void *) {}

static const char *status_name(cudaStreamCaptureStatus s) {
    switch (s) {
    case cudaStreamCaptureStatusNone: return "None";
    case cudaStreamCaptureStatusActive: return "Active";
    case cudaStreamCaptureStatusInvalidated: return "Invalidated";
    }
    return "?";
}

static void show_status(const char *what, cudaStream_t s) {
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    cudaError_t e = cudaStreamIsCapturing(s, &st);
    printf("%-40s %s %s\n", what, cudaGetErrorName(e), status_name(st));
}

static size_t node_count(cudaGraph_t g) {
    size_t n = 0;
    CK(cudaGraphGetNodes(g, nullptr, &n));
    return n;
}

int main() {
    const int N = 1024;
    CK(cudaSetDevice(0));
    int *d, *h;
    CK(cudaMalloc(&d, 2 * N * sizeof(int)));
    CK(cudaMallocHost(&h, 2 * N * sizeof(int)));
    cudaStream_t s1, s2, blocking;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaStreamCreate(&blocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    // --- A fork/join capture across two streams.
    show_status("s1 before capture", s1);
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    show_status("s1 in capture", s1);
    CK(cudaMemsetAsync(d, 0, 2 * N * sizeof(int), s1));
    CK(cudaEventRecord(fork, s1));
    CK(cudaStreamWaitEvent(s2, fork, 0));
    show_status("s2 after waiting on the fork", s2);
    add<<<N / 256, 256, 0, s1>>>(d, 1, N);
    add<<<N / 256, 256, 0, s2>>>(d + N, 2, N);
    CK(cudaLaunchHostFunc(s2, count, nullptr));
    CK(cudaEventRecord(join, s2));
    CK(cudaStreamWaitEvent(s1, join, 0));
    CK(cudaMemcpyAsync(h, d, 2 * N * sizeof(int), cudaMemcpyDeviceToHost, s1));
    cudaStreamCaptureStatus st;
    unsigned long long id = 0;
    cudaGraph_t during = nullptr;
    const cudaGraphNode_t *deps = nullptr;
    const cudaGraphEdgeData *edges = nullptr;
    size_t ndeps = 99;
    CK(cudaStreamGetCaptureInfo(s1, &st, &id, &during, &deps, &edges, &ndeps));
    printf("capture info: %s, id set %d, graph set %d, %zu dependencies, edge type %d\n", status_name(st), id != 0,
           during != nullptr, ndeps, ndeps ? (int)edges[0].type : -1);
    unsigned long long id2 = 0;
    CK(cudaStreamGetCaptureInfo(s2, &st, &id2));
    printf("s2 in the same capture: %d\n", id2 == id);
    printf("host function ran during capture: %d\n", host_calls.load());
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s1, &g));
    show_status("s1 after capture", s1);
    show_status("s2 after capture", s2);
    printf("captured nodes: %zu\n", node_count(g));
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    for (int i = 0; i < 100; i++) CK(cudaGraphLaunch(exec, s1));
    CK(cudaStreamSynchronize(s1));
    long sum = 0;
    for (int i = 0; i < 2 * N; i++) sum += h[i];
    printf("replayed 100 times: host calls %d, sum %ld (expect %d)\n", host_calls.load(), sum, 3 * N);
    CK(cudaGraphExecDestroy(exec));

    // --- Capture into an existing graph, after its nodes.
    size_t n0 = node_count(g);
    CK(cudaStreamBeginCaptureToGraph(s1, g, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
    CK(cudaLaunchHostFunc(s1, count, nullptr));
    cudaGraph_t g2;
    CK(cudaStreamEndCapture(s1, &g2));
    printf("capture to graph: same graph %d, nodes %zu -> %zu\n", g2 == g, n0, node_count(g));
    CK(cudaGraphDestroy(g));

    // --- Update capture dependencies.
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CK(cudaLaunchHostFunc(s1, count, nullptr));
    CK(cudaStreamGetCaptureInfo(s1, &st, nullptr, nullptr, &deps, nullptr, &ndeps));
    cudaGraphNode_t first = deps[0];
    CK(cudaLaunchHostFunc(s1, count, nullptr));
    SHOW(cudaStreamUpdateCaptureDependencies(s1, &first, nullptr, 1, cudaStreamAddCaptureDependencies));
    CK(cudaStreamGetCaptureInfo(s1, &st, nullptr, nullptr, &deps, nullptr, &ndeps));
    printf("after add: %zu dependencies\n", ndeps);
    SHOW(cudaStreamUpdateCaptureDependencies(s1, nullptr, nullptr, 0, cudaStreamSetCaptureDependencies));
    CK(cudaStreamGetCaptureInfo(s1, &st, nullptr, nullptr, &deps, nullptr, &ndeps));
    printf("after set: %zu dependencies\n", ndeps);
    SHOW(cudaStreamUpdateCaptureDependencies(s1, &first, nullptr, 1, 7));
    CK(cudaStreamEndCapture(s1, &g));
    printf("nodes: %zu\n", node_count(g));
    CK(cudaGraphDestroy(g));

    // --- Violations.
    SHOW(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));
    SHOW(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal));
    SHOW(cudaStreamBeginCapture(s1, (cudaStreamCaptureMode)7));
    SHOW(cudaStreamEndCapture(s1, &g));
    SHOW(cudaGetLastError());

    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    SHOW(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    SHOW(cudaStreamSynchronize(s1));
    show_status("s1 after synchronize in capture", s1);
    SHOW(cudaLaunchHostFunc(s1, count, nullptr));
    g = (cudaGraph_t)0x1;
    SHOW(cudaStreamEndCapture(s1, &g));
    printf("graph after invalidated capture is NULL: %d\n", g == nullptr);
    SHOW(cudaGetLastError());

    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    SHOW(cudaStreamQuery(s1));
    SHOW(cudaStreamEndCapture(s1, &g));

    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
    SHOW(cudaStreamAddCallback(s1, callback, nullptr, 0));
    SHOW(cudaStreamEndCapture(s1, &g));

    // Fork not joined back.
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CK(cudaEventRecord(fork, s1));
    CK(cudaStreamWaitEvent(s2, fork, 0));
    CK(cudaLaunchHostFunc(s2, count, nullptr));
    SHOW(cudaStreamEndCapture(s2, &g));
    SHOW(cudaStreamEndCapture(s1, &g));
    show_status("s2 after unjoined end", s2);

    // Captured events.
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CK(cudaEventRecord(fork, s1));
    SHOW(cudaEventQuery(fork));
    SHOW(cudaEventSynchronize(fork));
    g = nullptr;
    SHOW(cudaStreamEndCapture(s1, &g));
    if (g) CK(cudaGraphDestroy(g));
    SHOW(cudaEventQuery(fork));
    SHOW(cudaEventRecord(fork, s2));
    SHOW(cudaEventSynchronize(fork));

    // Waiting on an event recorded outside the capture.
    SHOW(cudaEventRecord(join, s2));
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    SHOW(cudaStreamWaitEvent(s1, join, 0));
    SHOW(cudaStreamWaitEvent(s1, join, cudaEventWaitExternal));
    g = nullptr;
    SHOW(cudaStreamEndCapture(s1, &g));
    if (g) {
        printf("external wait nodes: %zu\n", node_count(g));
        CK(cudaGraphDestroy(g));
    }

    // Merging two captures.
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
    SHOW(cudaStreamBeginCapture(s2, cudaStreamCaptureModeRelaxed));
    CK(cudaEventRecord(fork, s1));
    SHOW(cudaStreamWaitEvent(s2, fork, 0));
    SHOW(cudaStreamEndCapture(s1, &g));
    SHOW(cudaStreamEndCapture(s2, &g));

    // The legacy stream during a capture of a blocking stream.
    CK(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed));
    SHOW(cudaStreamIsCapturing(0, &st));
    SHOW(cudaLaunchHostFunc(0, count, nullptr));
    show_status("blocking stream after legacy use", blocking);
    SHOW(cudaStreamEndCapture(blocking, &g));

    // Ending from another thread.
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    cudaError_t other = cudaSuccess;
    std::thread([&] { other = cudaStreamEndCapture(s1, &g); }).join();
    printf("%-70s %s\n", "cudaStreamEndCapture from another thread (global)", cudaGetErrorName(other));
    g = nullptr;
    SHOW(cudaStreamEndCapture(s1, &g));
    if (g) CK(cudaGraphDestroy(g));
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
    g = nullptr;
    std::thread([&] { other = cudaStreamEndCapture(s1, &g); }).join();
    printf("%-70s %s\n", "cudaStreamEndCapture from another thread (relaxed)", cudaGetErrorName(other));
    if (other == cudaSuccess && g) CK(cudaGraphDestroy(g));

    // Capture modes: unsafe calls (cudaMalloc) from this and other threads.
    int *tmp = nullptr;
    cudaError_t r1 = cudaSuccess, r2 = cudaSuccess;
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    std::thread([&] {
        r1 = cudaMalloc(&tmp, 64);
        if (r1 == cudaSuccess) cudaFree(tmp);
        cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
        r2 = cudaThreadExchangeStreamCaptureMode(&m);
        printf("previous thread mode: %d\n", (int)m);
        r2 = cudaMalloc(&tmp, 64);
        if (r2 == cudaSuccess) cudaFree(tmp);
    }).join();
    printf("%-70s %s\n", "cudaMalloc on another thread, global capture", cudaGetErrorName(r1));
    printf("%-70s %s\n", "cudaMalloc on another thread in relaxed mode", cudaGetErrorName(r2));
    show_status("s1 after other thread's cudaMalloc", s1);
    SHOW(cudaStreamEndCapture(s1, &g));
    SHOW(cudaGetLastError());

    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
    std::thread([&] {
        r1 = cudaMalloc(&tmp, 64);
        if (r1 == cudaSuccess) cudaFree(tmp);
    }).join();
    printf("%-70s %s\n", "cudaMalloc on another thread, thread-local capture", cudaGetErrorName(r1));
    SHOW(cudaMalloc(&tmp, 64));
    SHOW(cudaStreamEndCapture(s1, &g));
    SHOW(cudaGetLastError());

    cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
    CK(cudaThreadExchangeStreamCaptureMode(&m));
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
    r1 = cudaMalloc(&tmp, 64);
    printf("%-70s %s\n", "cudaMalloc in own relaxed capture", cudaGetErrorName(r1));
    if (r1 == cudaSuccess) CK(cudaFree(tmp));
    g = nullptr;
    SHOW(cudaStreamEndCapture(s1, &g));
    if (g) CK(cudaGraphDestroy(g));
    CK(cudaThreadExchangeStreamCaptureMode(&m));
    printf("restored mode came back as relaxed: %d\n", m == cudaStreamCaptureModeRelaxed);
    // NVIDIA's runtime dereferences this NULL and the process dies (H100,
    // CUDA 13.0), so the case is left out; tests/ covers our answer.
    m = (cudaStreamCaptureMode)9;
    SHOW(cudaThreadExchangeStreamCaptureMode(&m));
    SHOW(cudaStreamIsCapturing(s1, nullptr));
    SHOW(cudaStreamGetCaptureInfo(s1, nullptr));
    SHOW(cudaStreamEndCapture(s1, nullptr));
    SHOW(cudaGetLastError());

    CK(cudaDeviceSynchronize());
    CK(cudaEventDestroy(fork));
    CK(cudaEventDestroy(join));
    for (cudaStream_t s : {s1, s2, blocking}) CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
    printf("done\n");
    return 0;
}
