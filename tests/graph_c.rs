//! The graph API through the C ABI and include/cudart_shim.h: a C program
//! builds a graph (generic memset node, 1D memcpy, host node, edges with
//! edge data), replays it 100 times on the shim over the fake driver, and
//! checks the bytes and callbacks.

mod common;
use common::*;

const PROGRAM: &str = r#"
#include <cudart_shim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL line %d: %s = %d\n", __LINE__, #x, (int)e_); return 1; } } while (0)

static int calls;
static void host_fn(void *p) { calls += *(int *)p; }

int main(void) {
    unsigned char *a = calloc(256, 1), *b = calloc(256, 1);
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));

    cudaGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemset;
    p._u.memset.dst = a;
    p._u.memset.value = 0x42;
    p._u.memset.elementSize = 1;
    p._u.memset.width = 256;
    p._u.memset.height = 1;
    cudaGraphNode_t ms, cp, hn;
    CK(cudaGraphAddNode(&ms, g, NULL, NULL, 0, &p));
    CK(cudaGraphAddMemcpyNode1D(&cp, g, NULL, 0, b, a, 128, cudaMemcpyDefault));
    cudaGraphEdgeData ed;
    memset(&ed, 0, sizeof ed);
    CK(cudaGraphAddDependencies(g, &ms, &cp, &ed, 1));
    int one = 1;
    cudaHostNodeParams hp = { host_fn, &one };
    CK(cudaGraphAddHostNode(&hn, g, &cp, 1, &hp));

    size_t n = 0;
    CK(cudaGraphGetEdges(g, NULL, NULL, NULL, &n));
    cudaGraphNodeType t;
    CK(cudaGraphNodeGetType(ms, &t));
    printf("edges %zu type %d size %zu\n", n, (int)t, sizeof(cudaGraphNodeParams));

    cudaGraphExec_t e;
    CK(cudaGraphInstantiate(&e, g, 0));
    for (int i = 0; i < 100; i++) CK(cudaGraphLaunch(e, NULL));
    CK(cudaDeviceSynchronize());
    printf("calls %d b[0] %d b[127] %d b[128] %d\n", calls, b[0], b[127], b[128]);

    cudaGraphExecUpdateResultInfo info;
    cudaError_t bad = cudaGraphExecUpdate(e, g, NULL);
    printf("update NULL info %s\n", cudaGetErrorName(bad));
    CK(cudaGraphExecUpdate(e, g, &info));
    printf("update result %d\n", (int)info.result);
    CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(g));
    free(a);
    free(b);
    return 0;
}
"#;

#[test]
fn c_program_builds_and_replays_a_graph() {
    let dir = scratch("graph_c");
    let src = dir.join("graph.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let exe = compile_c_shim(&src, &dir.join("graph"), &[]);
    let out = run_on_fake(&exe, &[], &[]);
    assert!(out.contains("edges 2 type 2 size 256"), "{out}");
    assert!(out.contains("calls 100 b[0] 66 b[127] 66 b[128] 0"), "{out}");
    assert!(out.contains("update NULL info cudaErrorInvalidValue"), "{out}");
    assert!(out.contains("update result 0"), "{out}");
}
