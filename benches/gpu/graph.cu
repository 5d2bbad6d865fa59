// cudaGraphLaunch of a 1-node and a 100-node graph (empty kernels in a
// chain). Two forms each:
//  - *_sync: launch + cudaStreamSynchronize per iteration (latency);
//  - *_amortized: `iters` launches back to back, one synchronize at the end,
//    time divided by iters (throughput of the launch path).
// Graph construction and instantiation are outside the timed region.
#include "bench.h"

__global__ void graph_bench_empty() {}

struct BenchGraph {
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t e;
};

static BenchGraph *make_chain(int nodes) {
    auto *b = new BenchGraph;
    CK(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking));
    CK(cudaGraphCreate(&b->g, 0));
    cudaKernelNodeParams p = {};
    p.func = (void *)graph_bench_empty;
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = nullptr;
    cudaGraphNode_t prev = nullptr, n;
    for (int i = 0; i < nodes; i++) {
        CK(cudaGraphAddKernelNode(&n, b->g, prev ? &prev : nullptr, prev ? 1 : 0, &p));
        prev = n;
    }
    CK(cudaGraphInstantiate(&b->e, b->g, 0));
    CK(cudaGraphUpload(b->e, b->s));
    CK(cudaGraphLaunch(b->e, b->s));
    CK(cudaStreamSynchronize(b->s));
    return b;
}

static BenchGraph *one() {
    static BenchGraph *b = make_chain(1);
    return b;
}

static BenchGraph *hundred() {
    static BenchGraph *b = make_chain(100);
    return b;
}

static double sync_each(BenchGraph *b, long iters) {
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        cudaGraphLaunch(b->e, b->s);
        cudaStreamSynchronize(b->s);
    }
    return now_ns() - t0;
}

static double amortized(BenchGraph *b, long iters) {
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) cudaGraphLaunch(b->e, b->s);
    CK(cudaStreamSynchronize(b->s));
    return now_ns() - t0;
}

BENCH(cudaGraphLaunch_1node_sync) {
    BenchGraph *b = one();
    return sync_each(b, iters);
}

BENCH(cudaGraphLaunch_100node_sync) {
    BenchGraph *b = hundred();
    return sync_each(b, iters);
}

BENCH(cudaGraphLaunch_1node_amortized) {
    BenchGraph *b = one();
    return amortized(b, iters);
}

BENCH(cudaGraphLaunch_100node_amortized) {
    BenchGraph *b = hundred();
    return amortized(b, iters);
}
