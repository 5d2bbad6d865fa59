/* streams_graph: two streams, events timing a copy, a host callback, and a
 * captured graph (fork/join across both streams) replayed 100 times with a
 * checked result.
 *
 * Built against include/cudart_shim.h only and linked to cudart-shim; the
 * same source also builds against NVIDIA's cuda_runtime_api.h
 * (-DUSE_NVIDIA_HEADERS). Output is the same with either runtime (timings
 * are checked, not printed). */
#ifdef USE_NVIDIA_HEADERS
#include <cuda_runtime_api.h>
/* In C, NVIDIA's headers name this type only as an enum tag. */
typedef enum cudaStreamCaptureStatus capture_status_t;
#else
#include "cudart_shim.h"
typedef cudaStreamCaptureStatus capture_status_t;
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d %s failed: %s (%s)\n", __FILE__, __LINE__, #call,    \
                    cudaGetErrorName(e_), cudaGetErrorString(e_));                      \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define N (1 << 20)
#define REPLAYS 100

struct callback_seen {
    cudaStream_t expected;
    int calls;
    int right_stream;
    cudaError_t status;
};

/* Runs on a driver thread once the work before it on the stream is done. */
static void on_copy_done(cudaStream_t stream, cudaError_t status, void *user) {
    struct callback_seen *seen = (struct callback_seen *)user;
    seen->calls++;
    seen->right_stream = stream == seen->expected;
    seen->status = status;
}

/* Host nodes of the captured graph: one per branch. */
static void count_main(void *p) { ++*(volatile int *)p; }
static void count_side(void *p) { ++*(volatile int *)p; }

int main(void) {
    cudaStream_t main_stream, side_stream;
    CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithPriority(&side_stream, cudaStreamNonBlocking, 0));

    unsigned char *host_in, *host_out, *dev_a, *dev_b;
    CHECK(cudaMallocHost((void **)&host_in, N));
    CHECK(cudaMallocHost((void **)&host_out, N));
    CHECK(cudaMalloc((void **)&dev_a, N));
    CHECK(cudaMalloc((void **)&dev_b, N));
    for (int i = 0; i < N; i++) host_in[i] = (unsigned char)(i * 7 + 3);
    memset(host_out, 0, N);

    /* 1. Events timing a copy on the main stream. */
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    CHECK(cudaEventRecord(start, main_stream));
    CHECK(cudaMemcpyAsync(dev_a, host_in, N, cudaMemcpyHostToDevice, main_stream));
    CHECK(cudaEventRecord(stop, main_stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("timed copy of %d bytes: %s\n", N, ms >= 0.0f ? "ok" : "negative time");

    /* 2. The side stream waits for the copy, copies back, then a callback. */
    struct callback_seen seen = {side_stream, 0, 0, cudaErrorUnknown};
    CHECK(cudaStreamWaitEvent(side_stream, stop, 0));
    CHECK(cudaMemcpyAsync(host_out, dev_a, N, cudaMemcpyDeviceToHost, side_stream));
    CHECK(cudaStreamAddCallback(side_stream, on_copy_done, &seen, 0));
    CHECK(cudaStreamSynchronize(side_stream));
    printf("callback: %d call(s), right stream %d, status %s\n", seen.calls, seen.right_stream,
           cudaGetErrorName(seen.status));
    printf("round trip: %s\n", memcmp(host_in, host_out, N) == 0 ? "ok" : "MISMATCH");

    /* 3. Capture: main copies a->b, forks to the side stream for a host
     * node, joins, copies b->host. Replayed REPLAYS times. */
    volatile int main_count = 0, side_count = 0;
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    memset(host_out, 0, N);

    CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemcpyAsync(dev_b, dev_a, N, cudaMemcpyDeviceToDevice, main_stream));
    CHECK(cudaEventRecord(fork, main_stream));
    CHECK(cudaStreamWaitEvent(side_stream, fork, 0));
    CHECK(cudaLaunchHostFunc(side_stream, count_side, (void *)&side_count));
    CHECK(cudaEventRecord(join, side_stream));
    CHECK(cudaLaunchHostFunc(main_stream, count_main, (void *)&main_count));
    CHECK(cudaStreamWaitEvent(main_stream, join, 0));
    CHECK(cudaMemcpyAsync(host_out, dev_b, N, cudaMemcpyDeviceToHost, main_stream));
    capture_status_t status;
    CHECK(cudaStreamIsCapturing(side_stream, &status));
    printf("side stream joined the capture: %d\n", status == cudaStreamCaptureStatusActive);
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(main_stream, &graph));
    CHECK(cudaStreamIsCapturing(main_stream, &status));
    printf("capture ended: %d, host nodes ran during capture: %d\n", status == cudaStreamCaptureStatusNone,
           main_count + side_count);

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < REPLAYS; i++) CHECK(cudaGraphLaunch(exec, main_stream));
    CHECK(cudaStreamSynchronize(main_stream));
    printf("graph replayed %d times: main %d, side %d, data %s\n", REPLAYS, main_count, side_count,
           memcmp(host_in, host_out, N) == 0 ? "ok" : "MISMATCH");

    int ok = ms >= 0.0f && seen.calls == 1 && seen.right_stream && seen.status == cudaSuccess &&
             main_count == REPLAYS && side_count == REPLAYS && memcmp(host_in, host_out, N) == 0;

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaFree(dev_a));
    CHECK(cudaFree(dev_b));
    CHECK(cudaFreeHost(host_in));
    CHECK(cudaFreeHost(host_out));
    CHECK(cudaStreamDestroy(main_stream));
    CHECK(cudaStreamDestroy(side_stream));
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
