// Graphs built by hand: kernel, memset, memcpy (1D, 3D, to symbol), host,
// child, empty, mem alloc/free and generic (cudaGraphAddNode) nodes; edges
// with edge data and node queries; replays; exec update, per-node exec
// setters, enable/disable; clone; instantiate with params; dot print; user
// objects; NVIDIA's error codes for bad input. Prints results and error
// names only.
#include <cuda_runtime.h>
#include "cuda13_names.h"
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));   \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)
#define EXPECT(cond)                                                                          \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #cond);                             \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)
// A call expected to fail: print its error name (compared across runtimes).
#define NAME(label, call)                                                                     \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        printf("%s: %s\n", label, cudaGetErrorName(e_));                                      \
        cudaGetLastError();                                                                   \
    } while (0)

constexpr int N = 1024;

__device__ int bias[4];

__global__ void add(int *x, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v + bias[i % 4];
}

static std::atomic<long> host_calls{0};
static std::atomic<long> host_sum{0};

struct Check {
    const int *h;
    int n;
};

static void CUDART_CB host_fn(void *p) {
    auto *c = static_cast<Check *>(p);
    long s = 0;
    for (int i = 0; i < c->n; i++) s += c->h[i];
    host_sum += s;
    host_calls++;
}

static std::atomic<int> destroyed{0};
static void CUDART_CB destroy_fn(void *p) { destroyed += *static_cast<int *>(p); }

static cudaKernelNodeParams kparams(void **args) {
    cudaKernelNodeParams p = {};
    p.func = (void *)add;
    p.gridDim = dim3((N + 255) / 256);
    p.blockDim = dim3(256);
    p.sharedMemBytes = 0;
    p.kernelParams = args;
    p.extra = nullptr;
    return p;
}

static size_t count_nodes(cudaGraph_t g) {
    size_t n = 0;
    CK(cudaGraphGetNodes(g, nullptr, &n));
    return n;
}

int main() {
    CK(cudaSetDevice(0));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int *d_a;
    int *h_out;
    CK(cudaMalloc(&d_a, N * sizeof(int)));
    CK(cudaMallocHost(&h_out, N * sizeof(int)));
    int zero_bias[4] = {0, 0, 0, 0};
    CK(cudaMemcpyToSymbol(bias, zero_bias, sizeof zero_bias));

    // memset(a, 0) -> add(a, 1) -> add(a, 2) -> memcpy(a -> h_out) -> host
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t ms, k1, k2, cp, hn;
    cudaMemsetParams msp = {};
    msp.dst = d_a;
    msp.value = 0;
    msp.elementSize = 4;
    msp.width = N;
    msp.height = 1;
    CK(cudaGraphAddMemsetNode(&ms, g, nullptr, 0, &msp));
    int n = N, v1 = 1, v2 = 2;
    void *args1[] = {&d_a, &v1, &n};
    void *args2[] = {&d_a, &v2, &n};
    cudaKernelNodeParams kp1 = kparams(args1), kp2 = kparams(args2);
    CK(cudaGraphAddKernelNode(&k1, g, &ms, 1, &kp1));
    CK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp2));
    CK(cudaGraphAddMemcpyNode1D(&cp, g, &k2, 1, h_out, d_a, N * sizeof(int), cudaMemcpyDeviceToHost));
    Check chk = {h_out, N};
    cudaHostNodeParams hp = {host_fn, &chk};
    CK(cudaGraphAddHostNode(&hn, g, &cp, 1, &hp));

    // Queries.
    printf("nodes: %zu\n", count_nodes(g));
    size_t ne = 0;
    CK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &ne));
    printf("edges: %zu\n", ne);
    size_t nr = 0;
    CK(cudaGraphGetRootNodes(g, nullptr, &nr));
    printf("roots: %zu\n", nr);
    cudaGraphNodeType t;
    CK(cudaGraphNodeGetType(k1, &t));
    printf("type k1: %d\n", (int)t);
    CK(cudaGraphNodeGetType(cp, &t));
    printf("type cp: %d\n", (int)t);
    cudaGraphNode_t dep[2];
    cudaGraphEdgeData ed[2];
    size_t nd = 2;
    CK(cudaGraphNodeGetDependencies(k2, dep, ed, &nd));
    printf("k2 deps: %zu first-is-k1: %d edge-type: %d\n", nd, dep[0] == k1, (int)ed[0].type);
    nd = 2;
    CK(cudaGraphNodeGetDependentNodes(k1, dep, nullptr, &nd));
    printf("k1 dependents: %zu is-k2: %d\n", nd, dep[0] == k2);

    // Parameter round trips.
    cudaKernelNodeParams got = {};
    CK(cudaGraphKernelNodeGetParams(k1, &got));
    printf("kernel params: func-is-stub %d grid %u block %u\n", got.func == (void *)add, got.gridDim.x, got.blockDim.x);
    cudaMemsetParams gms = {};
    CK(cudaGraphMemsetNodeGetParams(ms, &gms));
    printf("memset params: dst-ok %d value %u elem %u width %zu height %zu\n", gms.dst == d_a, gms.value,
           gms.elementSize, gms.width, gms.height);
    cudaMemcpy3DParms gcp = {};
    CK(cudaGraphMemcpyNodeGetParams(cp, &gcp));
    printf("memcpy params: kind %d width %zu height %zu depth %zu src-ok %d dst-ok %d\n", (int)gcp.kind,
           gcp.extent.width, gcp.extent.height, gcp.extent.depth, gcp.srcPtr.ptr == d_a, gcp.dstPtr.ptr == h_out);
    cudaHostNodeParams ghp = {};
    CK(cudaGraphHostNodeGetParams(hn, &ghp));
    printf("host params: fn-ok %d data-ok %d\n", ghp.fn == host_fn, ghp.userData == &chk);

    // Replays.
    cudaGraphExec_t e;
    CK(cudaGraphInstantiate(&e, g, 0));
    unsigned long long flags = 99;
    CK(cudaGraphExecGetFlags(e, &flags));
    printf("exec flags: %llu\n", flags);
    CK(cudaGraphUpload(e, s));
    for (int i = 0; i < 100; i++) CK(cudaGraphLaunch(e, s));
    CK(cudaStreamSynchronize(s));
    printf("replays: host calls %ld, sum %ld, h_out[7] %d\n", host_calls.load(), host_sum.load(), h_out[7]);
    EXPECT(host_calls == 100 && host_sum == 100L * 3 * N);

    // Symbol copies reach the kernel: bias = {1, 1, 1, 1} via a node.
    cudaGraph_t gs;
    CK(cudaGraphCreate(&gs, 0));
    int *ones, *back;
    CK(cudaMallocHost(&ones, 4 * sizeof(int)));
    CK(cudaMallocHost(&back, 4 * sizeof(int)));
    for (int i = 0; i < 4; i++) ones[i] = 1, back[i] = 0;
    cudaGraphNode_t sym;
    CK(cudaGraphAddMemcpyNodeToSymbol(&sym, gs, nullptr, 0, bias, ones, 4 * sizeof(int), 0, cudaMemcpyHostToDevice));
    cudaGraphExec_t es;
    CK(cudaGraphInstantiate(&es, gs, 0));
    CK(cudaGraphLaunch(es, s));
    CK(cudaGraphLaunch(e, s));
    CK(cudaStreamSynchronize(s));
    printf("with bias: h_out[0] %d\n", h_out[0]);
    EXPECT(h_out[0] == 5);
    cudaGraphNode_t from;
    CK(cudaGraphAddMemcpyNodeFromSymbol(&from, gs, &sym, 1, back, bias, 4 * sizeof(int), 0, cudaMemcpyDeviceToHost));
    CK(cudaGraphExecDestroy(es));
    CK(cudaGraphInstantiate(&es, gs, 0));
    CK(cudaGraphLaunch(es, s));
    CK(cudaStreamSynchronize(s));
    printf("from symbol: %d %d %d %d\n", back[0], back[1], back[2], back[3]);
    CK(cudaMemcpyToSymbol(bias, zero_bias, sizeof zero_bias));

    // Per-node exec setters and enable/disable.
    int v10 = 10;
    void *args10[] = {&d_a, &v10, &n};
    cudaKernelNodeParams kp10 = kparams(args10);
    CK(cudaGraphExecKernelNodeSetParams(e, k2, &kp10));
    CK(cudaGraphLaunch(e, s));
    CK(cudaStreamSynchronize(s));
    printf("exec kernel set: h_out[0] %d\n", h_out[0]);
    EXPECT(h_out[0] == 11);
    CK(cudaGraphNodeSetEnabled(e, k1, 0));
    unsigned en = 9;
    CK(cudaGraphNodeGetEnabled(e, k1, &en));
    CK(cudaGraphLaunch(e, s));
    CK(cudaStreamSynchronize(s));
    printf("k1 disabled (%u): h_out[0] %d\n", en, h_out[0]);
    EXPECT(h_out[0] == 10);
    CK(cudaGraphNodeSetEnabled(e, k1, 1));
    NAME("enable host node", cudaGraphNodeSetEnabled(e, hn, 0));
    msp.value = 100;
    CK(cudaGraphExecMemsetNodeSetParams(e, ms, &msp));
    CK(cudaGraphLaunch(e, s));
    CK(cudaStreamSynchronize(s));
    printf("exec memset set: h_out[0] %d\n", h_out[0]);
    EXPECT(h_out[0] == 111);

    // Graph-level setter, then whole-graph update.
    CK(cudaGraphKernelNodeSetParams(k2, &kp10));
    cudaGraphExecUpdateResultInfo info;
    CK(cudaGraphExecUpdate(e, g, &info));
    printf("update: result %d\n", (int)info.result);
    CK(cudaGraphLaunch(e, s));
    CK(cudaStreamSynchronize(s));
    printf("after update: h_out[0] %d\n", h_out[0]);
    EXPECT(h_out[0] == 11);
    // Topology change: NVIDIA's failure code and result.
    cudaGraph_t g2;
    CK(cudaGraphClone(&g2, g));
    cudaGraphNode_t extra;
    CK(cudaGraphAddEmptyNode(&extra, g2, nullptr, 0));
    NAME("update topology", cudaGraphExecUpdate(e, g2, &info));
    printf("update topology result: %d\n", (int)info.result);

    // Clone and find.
    cudaGraphNode_t k1c;
    CK(cudaGraphNodeFindInClone(&k1c, k1, g2));
    CK(cudaGraphNodeGetType(k1c, &t));
    printf("clone: nodes %zu, k1 clone type %d\n", count_nodes(g2), (int)t);
    NAME("find in wrong graph", cudaGraphNodeFindInClone(&k1c, k1, g));

    // Child graph and an empty join node; edges with edge data.
    cudaGraph_t parent;
    CK(cudaGraphCreate(&parent, 0));
    cudaGraphNode_t child, join, e1;
    CK(cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, g));
    CK(cudaGraphAddEmptyNode(&e1, parent, nullptr, 0));
    CK(cudaGraphAddEmptyNode(&join, parent, nullptr, 0));
    cudaGraphNode_t from2[2] = {child, e1}, to2[2] = {join, join};
    cudaGraphEdgeData eds[2] = {};
    CK(cudaGraphAddDependencies(parent, from2, to2, eds, 2));
    NAME("duplicate edge", cudaGraphAddDependencies(parent, from2, to2, nullptr, 1));
    cudaGraph_t emb;
    CK(cudaGraphChildGraphNodeGetGraph(child, &emb));
    printf("child: embedded nodes %zu\n", count_nodes(emb));
    cudaGraphExec_t ep;
    CK(cudaGraphInstantiate(&ep, parent, 0));
    long before = host_calls;
    for (int i = 0; i < 10; i++) CK(cudaGraphLaunch(ep, s));
    CK(cudaStreamSynchronize(s));
    printf("child replays: host calls %ld\n", host_calls.load() - before);
    CK(cudaGraphRemoveDependencies(parent, &e1, &join, nullptr, 1));
    CK(cudaGraphGetEdges(parent, nullptr, nullptr, nullptr, &ne));
    printf("parent edges after remove: %zu\n", ne);

    // Generic node API and mem alloc/free nodes.
    cudaGraph_t ga;
    CK(cudaGraphCreate(&ga, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = N * sizeof(int);
    cudaGraphNode_t an, gn, kn, cn, fn;
    CK(cudaGraphAddMemAllocNode(&an, ga, nullptr, 0, &ap));
    cudaGraphNodeParams np = {};
    np.type = cudaGraphNodeTypeMemset;
    np.memset.dst = ap.dptr;
    np.memset.value = 7;
    np.memset.elementSize = 4;
    np.memset.width = N;
    np.memset.height = 1;
    CK(cudaGraphAddNode(&gn, ga, &an, nullptr, 1, &np));
    int *buf = (int *)ap.dptr;
    void *argsb[] = {&buf, &v1, &n};
    cudaKernelNodeParams kpb = kparams(argsb);
    CK(cudaGraphAddKernelNode(&kn, ga, &gn, 1, &kpb));
    CK(cudaGraphAddMemcpyNode1D(&cn, ga, &kn, 1, h_out, ap.dptr, N * sizeof(int), cudaMemcpyDefault));
    CK(cudaGraphAddMemFreeNode(&fn, ga, &cn, 1, ap.dptr));
    cudaMemAllocNodeParams gap = {};
    CK(cudaGraphMemAllocNodeGetParams(an, &gap));
    void *freed = nullptr;
    CK(cudaGraphMemFreeNodeGetParams(fn, &freed));
    printf("alloc params: bytes %zu same-ptr %d freed-same %d\n", gap.bytesize, gap.dptr == ap.dptr, freed == ap.dptr);
    cudaGraphExec_t ea;
    cudaGraphInstantiateParams ip = {};
    ip.flags = cudaGraphInstantiateFlagUpload;
    ip.uploadStream = s;
    CK(cudaGraphInstantiateWithParams(&ea, ga, &ip));
    printf("instantiate with params: result %d\n", (int)ip.result_out);
    for (int i = 0; i < 20; i++) CK(cudaGraphLaunch(ea, s));
    CK(cudaStreamSynchronize(s));
    printf("alloc graph: h_out[5] %d\n", h_out[5]);
    EXPECT(h_out[5] == 8);
    unsigned long long used = 0;
    CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &used));
    printf("graph mem reserved > 0: %d\n", used > 0);
    np.memset.value = 9;
    CK(cudaGraphExecNodeSetParams(ea, gn, &np));
    CK(cudaGraphLaunch(ea, s));
    CK(cudaStreamSynchronize(s));
    printf("exec generic set: h_out[5] %d\n", h_out[5]);
    CK(cudaGraphExecDestroy(ea));
    CK(cudaGraphDestroy(ga));
    CK(cudaDeviceSynchronize());
    CK(cudaDeviceGraphMemTrim(0));
    unsigned long long zero = 0;
    CK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));

    // Kernel node attributes.
    cudaLaunchAttributeValue av = {};
    av.priority = 0;
    CK(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributePriority, &av));
    cudaLaunchAttributeValue gv = {};
    CK(cudaGraphKernelNodeGetAttribute(k1, cudaLaunchAttributePriority, &gv));
    CK(cudaGraphKernelNodeCopyAttributes(k2, k1));
    printf("priority attr: %d\n", gv.priority);

    // Dot print.
    const char *path = "/tmp/cudart_shim_graphs_manual.dot";
    remove(path);
    CK(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
    FILE *f = fopen(path, "r");
    EXPECT(f != nullptr);
    char line[64] = {};
    EXPECT(fgets(line, sizeof line, f) != nullptr);
    fclose(f);
    printf("dot starts with digraph: %d\n", strncmp(line, "digraph", 7) == 0);

    // User objects: destructors run once the last reference goes.
    int weight = 5;
    cudaUserObject_t uo;
    CK(cudaUserObjectCreate(&uo, &weight, destroy_fn, 1, cudaUserObjectNoDestructorSync));
    CK(cudaGraphRetainUserObject(g2, uo, 1, cudaGraphUserObjectMove));
    CK(cudaGraphDestroy(g2));
    for (int i = 0; i < 200 && destroyed.load() == 0; i++) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    printf("user object destroyed: %d\n", destroyed.load());
    NAME("user object flags 0", cudaUserObjectCreate(&uo, &weight, destroy_fn, 1, 0));

    // Bad input.
    NAME("kernel params of memset node", cudaGraphKernelNodeGetParams(ms, &got));
    cudaGraphExec_t bad;
    NAME("instantiate bad flags", cudaGraphInstantiateWithFlags(&bad, g, 0x100));
    NAME("create flags 1", cudaGraphCreate(&g2, 1));
    NAME("memcpy bad kind", cudaGraphMemcpyNodeSetParams1D(cp, h_out, d_a, 4, (cudaMemcpyKind)7));
    cudaKernelNodeParams nullf = kp1;
    nullf.func = nullptr;
    cudaGraphNode_t nn;
    NAME("kernel node NULL func", cudaGraphAddKernelNode(&nn, g, nullptr, 0, &nullf));
    NAME("get nodes NULL count", cudaGraphGetNodes(g, nullptr, nullptr));
    NAME("destroy NULL graph", cudaGraphDestroy(nullptr));
    NAME("launch NULL exec", cudaGraphLaunch(nullptr, s));

    CK(cudaGraphExecDestroy(ep));
    CK(cudaGraphExecDestroy(es));
    CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(parent));
    CK(cudaGraphDestroy(gs));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d_a));
    CK(cudaFreeHost(h_out));
    CK(cudaFreeHost(ones));
    CK(cudaFreeHost(back));
    printf("ok\n");
    return 0;
}
