/* Streams, events, callbacks and capture from C, through
 * include/cudart_shim.h, on the fake driver (tests/stream_c.rs). Uses only
 * host work so it needs no device memory or kernels. Prints one line per
 * check; exits 1 on the first failure. */
#include "cudart_shim.h"
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)
#define EXPECT(cond)                                                                    \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #cond);                       \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static volatile int order[16];
static volatile int n_order;
static void record(void *p) { order[n_order++] = (int)(size_t)p; }

static cudaStream_t cb_stream = (cudaStream_t)0x99;
static cudaError_t cb_status = cudaErrorUnknown;
static void *cb_user;
static volatile int cb_calls;
static void on_done(cudaStream_t s, cudaError_t status, void *user) {
    cb_stream = s;
    cb_status = status;
    cb_user = user;
    cb_calls++;
}

int main(void) {
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithPriority(&b, cudaStreamNonBlocking, -1));
    int prio = 0;
    CHECK(cudaStreamGetPriority(b, &prio));
    printf("priority %d\n", prio);

    /* Host work in order on a, a callback with our arguments. */
    for (int i = 1; i <= 3; i++) CHECK(cudaLaunchHostFunc(a, record, (void *)(size_t)i));
    CHECK(cudaStreamAddCallback(a, on_done, (void *)&cb_calls, 0));
    CHECK(cudaStreamSynchronize(a));
    EXPECT(n_order == 3 && order[0] == 1 && order[1] == 2 && order[2] == 3);
    EXPECT(cb_calls == 1 && cb_stream == a && cb_status == cudaSuccess && cb_user == (void *)&cb_calls);
    printf("host work in order, callback ok\n");

    /* Events: record, wait across streams, timing codes. */
    cudaEvent_t e, t;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CHECK(cudaEventCreate(&t));
    CHECK(cudaEventRecord(e, a));
    CHECK(cudaStreamWaitEvent(b, e, cudaEventWaitDefault));
    CHECK(cudaEventRecord(t, b));
    CHECK(cudaEventSynchronize(t));
    float ms;
    printf("elapsed with a no-timing event: %s\n", cudaGetErrorName(cudaEventElapsedTime(&ms, e, t)));
    CHECK(cudaEventElapsedTime(&ms, t, t));
    printf("elapsed same event: %.1f\n", ms);

    /* Capture across both streams, then inspect the capture. */
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    CHECK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    CHECK(cudaLaunchHostFunc(a, record, (void *)10));
    CHECK(cudaEventRecord(fork, a));
    CHECK(cudaStreamWaitEvent(b, fork, 0));
    CHECK(cudaLaunchHostFunc(b, record, (void *)11));
    CHECK(cudaEventRecord(join, b));
    CHECK(cudaStreamWaitEvent(a, join, 0));
    cudaStreamCaptureStatus st;
    unsigned long long id = 0;
    cudaGraph_t g = NULL;
    const cudaGraphNode_t *deps = NULL;
    const cudaGraphEdgeData *edges = NULL;
    size_t n = 0;
    CHECK(cudaStreamGetCaptureInfo(a, &st, &id, &g, &deps, &edges, &n));
    printf("capturing %d, dependencies %zu, edge type %d\n", st == cudaStreamCaptureStatusActive, n, (int)edges[0].type);
    CHECK(cudaStreamIsCapturing(b, &st));
    printf("b joined: %d\n", st == cudaStreamCaptureStatusActive);
    printf("synchronize in capture: %s\n", cudaGetErrorName(cudaStreamSynchronize(b)));
    cudaGraph_t out = NULL;
    printf("end capture: %s, graph %s\n", cudaGetErrorName(cudaStreamEndCapture(a, &out)), out ? "set" : "NULL");
    printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
    EXPECT(n_order == 3);

    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    printf("previous mode %d\n", (int)mode);

    CHECK(cudaEventDestroy(e));
    CHECK(cudaEventDestroy(t));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    printf("destroyed stream query: %s\n", cudaGetErrorName(cudaStreamQuery(a)));
    printf("PASS\n");
    return 0;
}
