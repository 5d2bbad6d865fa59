// CUDA 12's graph and capture calls next to their _v2/_v3 forms:
// cudaStreamGetCaptureInfo plain (3 arguments), _v2 (6) and _v3 (7, edge
// data); cudaStreamUpdateCaptureDependencies plain and _v2; the edge calls
// cudaGraphGetEdges, cudaGraphNodeGetDependencies / GetDependentNodes,
// cudaGraphAddDependencies / RemoveDependencies and cudaGraphAddNode without
// edge data and with it (_v2). Each answer is checked against the graph
// built, and the graphs run: host nodes count their runs.
#include "check12.h"
#include <atomic>

static std::atomic<int> runs{0};
static void CUDART_CB count(void *) { runs++; }

static size_t edges_plain(cudaGraph_t g) {
    size_t n = 0;
    CK(cudaGraphGetEdges(g, nullptr, nullptr, &n));
    return n;
}

static cudaGraphNode_t host_node(cudaGraph_t g) {
    cudaHostNodeParams hp = {count, nullptr};
    cudaGraphNode_t n;
    CK(cudaGraphAddHostNode(&n, g, nullptr, 0, &hp));
    return n;
}

static void run(cudaGraph_t g, cudaStream_t s) {
    cudaGraphExec_t e;
    CK(cudaGraphInstantiate(&e, g, 0));
    CK(cudaGraphLaunch(e, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphExecDestroy(e));
}

static void capture(cudaStream_t s) {
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusInvalidated;
    unsigned long long id = 0, id2 = 0, id3 = 0;
    CK(cudaStreamGetCaptureInfo(s, &st, &id));
    printf("plain, not capturing: status %d id %llu\n", (int)st, id);
    EXPECT(st == cudaStreamCaptureStatusNone);

    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaLaunchHostFunc(s, count, nullptr));
    CK(cudaStreamGetCaptureInfo(s, &st, &id));
    printf("plain: status %d id set %d\n", (int)st, id != 0);
    EXPECT(st == cudaStreamCaptureStatusActive && id != 0);
    cudaGraph_t during = nullptr;
    const cudaGraphNode_t *deps = nullptr;
    size_t nd = 99;
    CK(cudaStreamGetCaptureInfo_v2(s, &st, &id2, &during, &deps, &nd));
    printf("_v2: status %d same id %d graph set %d dependencies %zu\n", (int)st, id2 == id, during != nullptr, nd);
    EXPECT(id2 == id && during && nd == 1);
    cudaGraphNode_t first = deps[0];
    const cudaGraphEdgeData *ed = nullptr;
    nd = 99;
    CK(cudaStreamGetCaptureInfo_v3(s, &st, &id3, nullptr, &deps, &ed, &nd));
    printf("_v3: same id %d dependencies %zu same node %d edge data %s, type %d\n", id3 == id, nd, deps[0] == first,
           ed ? "set" : "null", ed ? (int)ed[0].type : -1);
    EXPECT(id3 == id && nd == 1 && deps[0] == first);

    // Dependencies: plain form (no edge data), then _v2 with edge data.
    CK(cudaLaunchHostFunc(s, count, nullptr));
    CK(cudaStreamUpdateCaptureDependencies(s, &first, 1, cudaStreamAddCaptureDependencies));
    CK(cudaStreamGetCaptureInfo_v2(s, &st, nullptr, nullptr, &deps, &nd));
    printf("plain update, add: %zu dependencies\n", nd);
    EXPECT(nd == 2);
    CK(cudaStreamUpdateCaptureDependencies(s, &first, 1, cudaStreamSetCaptureDependencies));
    CK(cudaStreamGetCaptureInfo_v2(s, &st, nullptr, nullptr, &deps, &nd));
    printf("plain update, set: %zu dependencies, the first node %d\n", nd, nd == 1 && deps[0] == first);
    EXPECT(nd == 1 && deps[0] == first);
    cudaGraphEdgeData one = {};
    CK(cudaStreamUpdateCaptureDependencies_v2(s, &first, &one, 1, cudaStreamSetCaptureDependencies));
    CK(cudaStreamGetCaptureInfo_v3(s, &st, nullptr, nullptr, &deps, &ed, &nd));
    printf("_v2 update, set: %zu dependencies\n", nd);
    EXPECT(nd == 1);
    SHOW(cudaStreamUpdateCaptureDependencies(s, &first, 1, 7));
    SHOW(cudaStreamUpdateCaptureDependencies_v2(s, &first, nullptr, 1, 7));
    CK(cudaLaunchHostFunc(s, count, nullptr));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    size_t nodes = 0;
    CK(cudaGraphGetNodes(g, nullptr, &nodes));
    printf("captured: %zu nodes, %zu edges\n", nodes, edges_plain(g));
    EXPECT(nodes == 3);
    runs = 0;
    run(g, s);
    printf("captured graph ran %d host nodes\n", runs.load());
    EXPECT(runs == 3);
    CK(cudaGraphDestroy(g));
    SHOW(cudaStreamGetCaptureInfo(s, nullptr, &id));
}

static void edges(cudaStream_t s) {
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t a = host_node(g), b = host_node(g), c = host_node(g);
    // a -> b without edge data, a -> c with (default) edge data.
    CK(cudaGraphAddDependencies(g, &a, &b, 1));
    cudaGraphEdgeData ed = {};
    CK(cudaGraphAddDependencies_v2(g, &a, &c, &ed, 1));
    cudaGraphNode_t from[4], to[4];
    size_t n = 4;
    CK(cudaGraphGetEdges(g, from, to, &n));
    printf("plain get edges: %zu, from a %d %d\n", n, from[0] == a, from[1] == a);
    EXPECT(n == 2 && from[0] == a && from[1] == a);
    cudaGraphEdgeData eds[4];
    n = 4;
    CK(cudaGraphGetEdges_v2(g, from, to, eds, &n));
    printf("_v2 get edges: %zu, edge types %d %d\n", n, (int)eds[0].type, (int)eds[1].type);
    EXPECT(n == 2);
    cudaGraphNode_t d[4];
    n = 4;
    CK(cudaGraphNodeGetDependencies(b, d, &n));
    printf("plain dependencies of b: %zu, is a %d\n", n, n == 1 && d[0] == a);
    EXPECT(n == 1 && d[0] == a);
    n = 4;
    CK(cudaGraphNodeGetDependencies_v2(c, d, eds, &n));
    printf("_v2 dependencies of c: %zu, is a %d\n", n, n == 1 && d[0] == a);
    EXPECT(n == 1 && d[0] == a);
    n = 4;
    CK(cudaGraphNodeGetDependentNodes(a, d, &n));
    printf("plain dependents of a: %zu\n", n);
    EXPECT(n == 2);
    n = 4;
    CK(cudaGraphNodeGetDependentNodes_v2(a, d, eds, &n));
    printf("_v2 dependents of a: %zu\n", n);
    EXPECT(n == 2);
    SHOW(cudaGraphAddDependencies(g, &a, &b, 1));
    SHOW(cudaGraphRemoveDependencies(g, &b, &c, 1));

    // cudaGraphAddNode: plain (no edge data) after c, _v2 after the new node.
    cudaGraphNodeParams np = {};
    np.type = cudaGraphNodeTypeHost;
    np.host.fn = count;
    cudaGraphNode_t x, y;
    CK(cudaGraphAddNode(&x, g, &c, 1, &np));
    CK(cudaGraphAddNode_v2(&y, g, &x, &ed, 1, &np));
    n = 4;
    CK(cudaGraphNodeGetDependencies(y, d, &n));
    printf("added nodes: %zu edges, y after x %d\n", edges_plain(g), n == 1 && d[0] == x);
    EXPECT(edges_plain(g) == 4 && n == 1 && d[0] == x);
    runs = 0;
    run(g, s);
    printf("graph ran %d host nodes\n", runs.load());
    EXPECT(runs == 5);

    CK(cudaGraphRemoveDependencies(g, &a, &b, 1));
    CK(cudaGraphRemoveDependencies_v2(g, &a, &c, &ed, 1));
    printf("after removing a's edges: %zu edges\n", edges_plain(g));
    EXPECT(edges_plain(g) == 2);
    SHOW(cudaGraphGetEdges(g, nullptr, nullptr, nullptr));
    n = 0;
    SHOW(cudaGraphGetEdges(g, from, to, &n));
    printf("with room for 0: %zu edges\n", n);
    CK(cudaGraphDestroy(g));
}

int main() {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    capture(s);
    edges(s);
    CK(cudaStreamDestroy(s));
    printf("done\n");
    return 0;
}
