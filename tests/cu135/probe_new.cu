// Probe of the 36 exports CUDA 13.5's libcudart.so.13 adds over 13.0.
//
// Calls each with valid and invalid arguments and prints, per call, the
// return code, the thread's last error (read and cleared right after) and
// the out-values that do not depend on addresses. Built with nvcc 13.5 on
// the 13.5 headers; run with NVIDIA's 13.5 runtime and with ours, on a GPU,
// over the fake driver, or with no driver; the outputs are compared.
// Also prints the versions, the new error codes' names, and what the driver
// answers (cuGetProcAddress_v2) for the driver entry points the new calls
// need. Sections that crash print SEGV and the probe goes on.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf jb;
static void on_segv(int) { siglongjmp(jb, 1); }
#define SECTION(name) printf("== %s\n", name); fflush(stdout); if (sigsetjmp(jb, 1)) { printf("SEGV in %s\n", name); fflush(stdout); } else

static void show(const char* what, cudaError_t rc) {
    cudaError_t last = cudaGetLastError();
    printf("%-48s rc=%d last=%d\n", what, (int)rc, (int)last);
    fflush(stdout);
}
#define CALL(expr) show(#expr, (expr))

template <class F> static F sym(const char* n) {
    void* p = dlsym(RTLD_DEFAULT, n);
    if (!p) printf("MISSING export %s\n", n);
    return (F)p;
}

__global__ void k3(int* a, float b, double c) { if (a) a[0] = (int)(b + c); }

static volatile int host_calls = 0;
static void CUDART_CB host_fn(void* p) { host_calls += *(int*)p; }

static void res_show(const char* tag, const cudaDevResource& r) {
    printf("  %s: type=%d sm.smCount=%u minPart=%u align=%u flags=%u next=%s\n", tag, (int)r.type, r.sm.smCount,
           r.sm.minSmPartitionSize, r.sm.smCoscheduledAlignment, r.sm.flags, r.nextResource ? "set" : "null");
}

int main(int argc, char** argv) {
    signal(SIGSEGV, on_segv);
    signal(SIGBUS, on_segv);
    int v = -1;
    SECTION("versions") {
        CALL(cudaRuntimeGetVersion(&v)); printf("  runtime=%d\n", v);
        v = -1; CALL(cudaDriverGetVersion(&v)); printf("  driver=%d\n", v);
        int codes[] = {10, 227, 916, 917, 918, 919, 920, 999};
        for (int c : codes) printf("  %d %s | %s\n", c, cudaGetErrorName((cudaError_t)c), cudaGetErrorString((cudaError_t)c));
    }
    SECTION("entry points") {
        const char* names[] = {"cuGreenCtxCreate", "cuGreenCtxDestroy", "cuGreenCtxStreamCreate", "cuGreenCtxGetId",
            "cuCtxFromGreenCtx", "cuDeviceGetDevResource", "cuDevSmResourceSplitByCount", "cuDevSmResourceSplit",
            "cuDevResourceGenerateDesc", "cuCtxGetDevResource", "cuGreenCtxGetDevResource", "cuStreamGetDevResource",
            "cuCtxRecordEvent", "cuCtxWaitEvent", "cuGreenCtxRecordEvent", "cuGreenCtxWaitEvent", "cuCtxGetId",
            "cuFuncGetParamCount", "cuKernelGetParamCount", "cuGraphGetId", "cuGraphExecGetId",
            "cuGraphNodeGetContainingGraph", "cuGraphNodeGetLocalId", "cuGraphNodeGetToolsId", "cuGraphNodeGetParams",
            "cuGraphConditionalHandleCreate", "cuLaunchHostFunc_v2", "cuMemGetLocationInfo",
            "cuMemcpyWithAttributesAsync", "cuMemcpy3DWithAttributesAsync", "cuStreamBeginRecaptureToGraph",
            "cuStreamGetCtx_v2", "cuSubgridCreate", "cuSubgridWorkerGridCreate", "cuSubgridWorksetCreate"};
        typedef int (*gpa_t)(const char*, void**, int, unsigned long long, int*);
        void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!h) h = dlopen("libcuda.so.1", RTLD_NOW);
        gpa_t gpa = h ? (gpa_t)dlsym(h, "cuGetProcAddress_v2") : nullptr;
        for (const char* n : names) {
            int vers[] = {13000, 13050};
            for (int ver : vers) {
                void* p = nullptr; int st = -1;
                int r = gpa ? gpa(n, &p, ver, 0, &st) : -1;
                void* q = nullptr; cudaDriverEntryPointQueryResult qs = (cudaDriverEntryPointQueryResult)-1;
                cudaError_t e = cudaGetDriverEntryPointByVersion(n, &q, ver, cudaEnableDefault, &qs);
                cudaError_t last = cudaGetLastError();
                printf("  %-32s %d cu: r=%d st=%d %s | rt: rc=%d last=%d st=%d %s\n", n, ver, r, st, p ? "ptr" : "null",
                       (int)e, (int)last, (int)qs, q ? "ptr" : "null");
            }
        }
    }
    cudaDevResource res, split[4], rem;
    memset(&res, 0, sizeof res); memset(split, 0, sizeof split); memset(&rem, 0, sizeof rem);
    SECTION("device resources") {
        CALL(cudaDeviceGetDevResource(0, &res, cudaDevResourceTypeSm)); res_show("res", res);
        cudaDevResource r2; memset(&r2, 0, sizeof r2);
        CALL(cudaDeviceGetDevResource(99, &r2, cudaDevResourceTypeSm));
        CALL(cudaDeviceGetDevResource(-1, &r2, cudaDevResourceTypeSm));
        CALL(cudaDeviceGetDevResource(0, nullptr, cudaDevResourceTypeSm));
        CALL(cudaDeviceGetDevResource(0, &r2, cudaDevResourceTypeInvalid)); res_show("r2", r2);
        CALL(cudaDeviceGetDevResource(0, &r2, cudaDevResourceTypeWorkqueueConfig));
        printf("  wqConfig: type=%d device=%d limit=%u scope=%d\n", (int)r2.type, r2.wqConfig.device, r2.wqConfig.wqConcurrencyLimit, (int)r2.wqConfig.sharingScope);
        CALL(cudaDeviceGetDevResource(0, &r2, (cudaDevResourceType)7));
    }
    SECTION("split by count") {
        unsigned nb = 4;
        CALL(cudaDevSmResourceSplitByCount(split, &nb, &res, &rem, 0, 8));
        printf("  nb=%u\n", nb); for (unsigned i = 0; i < nb && i < 4; i++) res_show("split", split[i]); res_show("rem", rem);
        unsigned nb2 = 0; cudaDevResource tmp[4];
        CALL(cudaDevSmResourceSplitByCount(nullptr, &nb2, &res, nullptr, 0, 8)); printf("  count-only nb=%u\n", nb2);
        nb2 = 4; CALL(cudaDevSmResourceSplitByCount(tmp, &nb2, nullptr, nullptr, 0, 8));
        nb2 = 4; CALL(cudaDevSmResourceSplitByCount(tmp, nullptr, &res, nullptr, 0, 8));
        nb2 = 4; CALL(cudaDevSmResourceSplitByCount(tmp, &nb2, &res, nullptr, 0, 0)); printf("  min0 nb=%u\n", nb2);
        nb2 = 4; CALL(cudaDevSmResourceSplitByCount(tmp, &nb2, &res, nullptr, 99, 8));
        nb2 = 4; CALL(cudaDevSmResourceSplitByCount(tmp, &nb2, &res, nullptr, 0, 100000));
    }
    SECTION("split") {
        cudaDevResource out[2], rm; memset(out, 0, sizeof out); memset(&rm, 0, sizeof rm);
        cudaDevSmResourceGroupParams gp[2]; memset(gp, 0, sizeof gp);
        gp[0].smCount = 8; gp[1].smCount = 16;
        CALL(cudaDevSmResourceSplit(out, 2, &res, &rm, 0, gp)); res_show("out0", out[0]); res_show("out1", out[1]); res_show("rm", rm);
        CALL(cudaDevSmResourceSplit(out, 2, nullptr, &rm, 0, gp));
        CALL(cudaDevSmResourceSplit(out, 2, &res, &rm, 0, nullptr));
        CALL(cudaDevSmResourceSplit(out, 0, &res, &rm, 0, gp));
    }
    cudaDevResourceDesc_t desc = nullptr;
    SECTION("generate desc") {
        CALL(cudaDevResourceGenerateDesc(&desc, split, 1)); printf("  desc=%s\n", desc ? "set" : "null");
        cudaDevResourceDesc_t d2 = nullptr;
        CALL(cudaDevResourceGenerateDesc(nullptr, split, 1));
        CALL(cudaDevResourceGenerateDesc(&d2, nullptr, 1));
        CALL(cudaDevResourceGenerateDesc(&d2, split, 0));
        cudaDevResource bad; memset(&bad, 0, sizeof bad);
        CALL(cudaDevResourceGenerateDesc(&d2, &bad, 1));
    }
    cudaExecutionContext_t g = nullptr;
    SECTION("green ctx") {
        CALL(cudaGreenCtxCreate(&g, desc, 0, 0)); printf("  g=%s\n", g ? "set" : "null");
        cudaExecutionContext_t g2 = nullptr;
        CALL(cudaGreenCtxCreate(nullptr, desc, 0, 0));
        CALL(cudaGreenCtxCreate(&g2, nullptr, 0, 0));
        CALL(cudaGreenCtxCreate(&g2, desc, 99, 0));
        CALL(cudaGreenCtxCreate(&g2, desc, 0, 5));
        if (g2) CALL(cudaExecutionCtxDestroy(g2));
    }
    SECTION("execution ctx") {
        int dev = -1; unsigned long long id = 0; cudaDevResource r; memset(&r, 0, sizeof r);
        CALL(cudaExecutionCtxGetDevice(&dev, g)); printf("  dev=%d\n", dev);
        CALL(cudaExecutionCtxGetDevice(nullptr, g));
        CALL(cudaExecutionCtxGetDevice(&dev, nullptr));
        CALL(cudaExecutionCtxGetId(g, &id)); printf("  id %s\n", id ? "nonzero" : "zero");
        CALL(cudaExecutionCtxGetId(g, nullptr));
        CALL(cudaExecutionCtxGetId(nullptr, &id));
        CALL(cudaExecutionCtxGetDevResource(g, &r, cudaDevResourceTypeSm)); res_show("gres", r);
        CALL(cudaExecutionCtxGetDevResource(g, nullptr, cudaDevResourceTypeSm));
        CALL(cudaExecutionCtxGetDevResource(nullptr, &r, cudaDevResourceTypeSm));
        cudaStream_t s = nullptr;
        CALL(cudaExecutionCtxStreamCreate(&s, g, cudaStreamNonBlocking, 0)); printf("  s=%s\n", s ? "set" : "null");
        cudaStream_t s2 = nullptr;
        CALL(cudaExecutionCtxStreamCreate(nullptr, g, cudaStreamNonBlocking, 0));
        CALL(cudaExecutionCtxStreamCreate(&s2, nullptr, cudaStreamNonBlocking, 0));
        CALL(cudaExecutionCtxStreamCreate(&s2, g, 0, 0));
        if (s2) { unsigned fl = 77; CALL(cudaStreamGetFlags(s2, &fl)); printf("  green stream flags=%u\n", fl); CALL(cudaStreamDestroy(s2)); }
        s2 = nullptr; CALL(cudaExecutionCtxStreamCreate(&s2, g, 99, 0));
        if (s2) CALL(cudaStreamDestroy(s2));
        memset(&r, 0, sizeof r);
        CALL(cudaStreamGetDevResource(s, &r, cudaDevResourceTypeSm)); res_show("sres", r);
        memset(&r, 0, sizeof r);
        auto sgr_ptsz = sym<cudaError_t (*)(cudaStream_t, cudaDevResource*, cudaDevResourceType)>("cudaStreamGetDevResource_ptsz");
        if (sgr_ptsz) { CALL(sgr_ptsz(s, &r, cudaDevResourceTypeSm)); res_show("sres_ptsz", r); CALL(sgr_ptsz(nullptr, &r, cudaDevResourceTypeSm)); res_show("ptsz0", r); }
        CALL(cudaStreamGetDevResource(s, nullptr, cudaDevResourceTypeSm));
        memset(&r, 0, sizeof r); CALL(cudaStreamGetDevResource(nullptr, &r, cudaDevResourceTypeSm)); res_show("s0", r);
        cudaEvent_t ev = nullptr; CALL(cudaEventCreate(&ev));
        CALL(cudaExecutionCtxRecordEvent(g, ev));
        CALL(cudaExecutionCtxRecordEvent(nullptr, ev));
        CALL(cudaExecutionCtxRecordEvent(g, nullptr));
        CALL(cudaExecutionCtxWaitEvent(g, ev));
        CALL(cudaExecutionCtxWaitEvent(nullptr, ev));
        CALL(cudaExecutionCtxWaitEvent(g, nullptr));
        CALL(cudaExecutionCtxSynchronize(g));
        CALL(cudaExecutionCtxSynchronize(nullptr));
        if (s) CALL(cudaStreamDestroy(s));
        CALL(cudaEventDestroy(ev));
    }
    SECTION("device execution ctx") {
        cudaExecutionContext_t p = nullptr, p2 = nullptr; int dev = -1; unsigned long long id = 0;
        CALL(cudaDeviceGetExecutionCtx(&p, 0)); printf("  p=%s\n", p ? "set" : "null");
        CALL(cudaDeviceGetExecutionCtx(&p2, 0)); printf("  same=%d\n", p == p2);
        CALL(cudaDeviceGetExecutionCtx(nullptr, 0));
        CALL(cudaDeviceGetExecutionCtx(&p2, 99));
        CALL(cudaDeviceGetExecutionCtx(&p2, -1));
        CALL(cudaExecutionCtxGetDevice(&dev, p)); printf("  dev=%d\n", dev);
        CALL(cudaExecutionCtxGetId(p, &id)); printf("  id %s\n", id ? "nonzero" : "zero");
        cudaDevResource r; memset(&r, 0, sizeof r);
        CALL(cudaExecutionCtxGetDevResource(p, &r, cudaDevResourceTypeSm)); res_show("pres", r);
        CALL(cudaExecutionCtxSynchronize(p));
        cudaStream_t s = nullptr; CALL(cudaExecutionCtxStreamCreate(&s, p, cudaStreamNonBlocking, 0));
        if (s) CALL(cudaStreamDestroy(s));
        CALL(cudaExecutionCtxDestroy(p));
        CALL(cudaExecutionCtxDestroy(nullptr));
        if (g) CALL(cudaExecutionCtxDestroy(g));
    }
    SECTION("func param count") {
        size_t n = 12345;
        CALL(cudaFuncGetParamCount((const void*)k3, &n)); printf("  n=%zu\n", n);
        CALL(cudaFuncGetParamCount((const void*)k3, nullptr));
        n = 12345; CALL(cudaFuncGetParamCount(nullptr, &n)); printf("  n=%zu\n", n);
        n = 12345; CALL(cudaFuncGetParamCount((const void*)main, &n)); printf("  n=%zu\n", n);
    }
    cudaGraph_t graph = nullptr;
    SECTION("graph ids") {
        CALL(cudaGraphCreate(&graph, 0));
        cudaGraphNode_t e1 = nullptr, e2 = nullptr, kn = nullptr;
        CALL(cudaGraphAddEmptyNode(&e1, graph, nullptr, 0));
        CALL(cudaGraphAddEmptyNode(&e2, graph, &e1, 1));
        cudaKernelNodeParams kp; memset(&kp, 0, sizeof kp);
        int* np = nullptr; float b = 1; double c = 2; void* args[] = {&np, &b, &c};
        kp.func = (void*)k3; kp.gridDim = dim3(3); kp.blockDim = dim3(32); kp.kernelParams = args;
        CALL(cudaGraphAddKernelNode(&kn, graph, nullptr, 0, &kp));
        unsigned gid = 777, nid = 777; unsigned long long tid = 0; cudaGraph_t cg = nullptr;
        CALL(cudaGraphGetId(graph, &gid)); printf("  gid=%u\n", gid);
        CALL(cudaGraphGetId(graph, nullptr));
        CALL(cudaGraphGetId(nullptr, &gid));
        CALL(cudaGraphNodeGetContainingGraph(e2, &cg)); printf("  same=%d\n", cg == graph);
        CALL(cudaGraphNodeGetContainingGraph(e2, nullptr));
        CALL(cudaGraphNodeGetContainingGraph(nullptr, &cg));
        CALL(cudaGraphNodeGetLocalId(e1, &nid)); printf("  e1=%u\n", nid);
        CALL(cudaGraphNodeGetLocalId(e2, &nid)); printf("  e2=%u\n", nid);
        CALL(cudaGraphNodeGetLocalId(kn, &nid)); printf("  kn=%u\n", nid);
        CALL(cudaGraphNodeGetLocalId(kn, nullptr));
        CALL(cudaGraphNodeGetLocalId(nullptr, &nid));
        CALL(cudaGraphNodeGetToolsId(kn, &tid)); printf("  tools=%s\n", tid ? "nonzero" : "zero");
        CALL(cudaGraphNodeGetToolsId(kn, nullptr));
        CALL(cudaGraphNodeGetToolsId(nullptr, &tid));
        static char gpbuf[sizeof(cudaGraphNodeParams)] __attribute__((aligned(16))); cudaGraphNodeParams& gp = *(cudaGraphNodeParams*)gpbuf; memset(&gp, 0, sizeof gp);
        CALL(cudaGraphNodeGetParams(kn, &gp));
        printf("  type=%d grid=%u block=%u func_ok=%d\n", (int)gp.type, gp.kernel.gridDim.x, gp.kernel.blockDim.x, gp.kernel.func == (void*)k3);
        memset(&gp, 0, sizeof gp); CALL(cudaGraphNodeGetParams(e1, &gp)); printf("  type=%d\n", (int)gp.type);
        CALL(cudaGraphNodeGetParams(kn, nullptr));
        CALL(cudaGraphNodeGetParams(nullptr, &gp));
        cudaGraphExec_t ex = nullptr;
        CALL(cudaGraphInstantiate(&ex, graph, 0));
        unsigned xid = 777;
        CALL(cudaGraphExecGetId(ex, &xid)); printf("  xid=%u\n", xid);
        CALL(cudaGraphExecGetId(ex, nullptr));
        CALL(cudaGraphExecGetId(nullptr, &xid));
        if (ex) CALL(cudaGraphExecDestroy(ex));
    }
    SECTION("conditional v2") {
        cudaGraphConditionalHandle h = 0;
        CALL(cudaGraphConditionalHandleCreate_v2(&h, graph, nullptr, 0, 0)); printf("  h=%s\n", h ? "nonzero" : "zero");
        cudaExecutionContext_t p = nullptr; cudaDeviceGetExecutionCtx(&p, 0); cudaGetLastError();
        CALL(cudaGraphConditionalHandleCreate_v2(&h, graph, p, 1, cudaGraphCondAssignDefault));
        CALL(cudaGraphConditionalHandleCreate_v2(nullptr, graph, nullptr, 0, 0));
        CALL(cudaGraphConditionalHandleCreate_v2(&h, nullptr, nullptr, 0, 0));
        CALL(cudaGraphConditionalHandleCreate_v2(&h, graph, nullptr, 0, 99));
        CALL(cudaGraphDestroy(graph));
    }
    SECTION("host func v2") {
        int one = 1;
        host_calls = 0;
        CALL(cudaLaunchHostFunc_v2(0, host_fn, &one, cudaHostTaskBlocking));
        CALL(cudaLaunchHostFunc_v2(0, host_fn, &one, cudaHostTaskSpinWait));
        CALL(cudaDeviceSynchronize()); printf("  calls=%d\n", host_calls);
        CALL(cudaLaunchHostFunc_v2(0, nullptr, &one, 0));
        CALL(cudaLaunchHostFunc_v2(0, host_fn, &one, 7));
        auto f = sym<cudaError_t (*)(cudaStream_t, cudaHostFn_t, void*, unsigned)>("cudaLaunchHostFunc_v2_ptsz");
        host_calls = 0;
        if (f) { CALL(f(0, host_fn, &one, 0)); CALL(cudaDeviceSynchronize()); printf("  ptsz calls=%d\n", host_calls); CALL(f(0, nullptr, &one, 0)); }
    }
    SECTION("copies with attributes") {
        char* d = nullptr; char h[64], back[64];
        for (int i = 0; i < 64; i++) { h[i] = (char)i; back[i] = 0; }
        CALL(cudaMalloc(&d, 64));
        cudaMemcpyAttributes a; memset(&a, 0, sizeof a); a.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
        CALL(cudaMemcpyWithAttributesAsync(d, h, 64, &a, 0));
        CALL(cudaMemcpyWithAttributesAsync(back, d, 64, &a, 0));
        CALL(cudaStreamSynchronize(0)); printf("  back[63]=%d\n", back[63]);
        CALL(cudaMemcpyWithAttributesAsync(d, h, 64, nullptr, 0));
        CALL(cudaMemcpyWithAttributesAsync(d, h, 0, &a, 0));
        CALL(cudaMemcpyWithAttributesAsync(nullptr, h, 64, &a, 0));
        cudaMemcpyAttributes bad = a; bad.srcAccessOrder = (cudaMemcpySrcAccessOrder)0;
        CALL(cudaMemcpyWithAttributesAsync(d, h, 64, &bad, 0));
        auto f = sym<cudaError_t (*)(void*, const void*, size_t, cudaMemcpyAttributes*, cudaStream_t)>("cudaMemcpyWithAttributesAsync_ptsz");
        if (f) { memset(back, 0, 64); CALL(f(back, d, 64, &a, 0)); CALL(cudaStreamSynchronize(cudaStreamPerThread)); printf("  ptsz back[5]=%d\n", back[5]); }
        cudaMemcpy3DBatchOp op; memset(&op, 0, sizeof op);
        op.src.type = cudaMemcpyOperandTypePointer; op.src.op.ptr.ptr = h; op.src.op.ptr.rowLength = 0; op.src.op.ptr.layerHeight = 0;
        op.dst.type = cudaMemcpyOperandTypePointer; op.dst.op.ptr.ptr = d;
        op.extent = make_cudaExtent(32, 1, 1); op.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
        for (int i = 0; i < 64; i++) h[i] = (char)(100 + i);
        CALL(cudaMemcpy3DWithAttributesAsync(&op, 0, 0));
        memset(back, 0, 64); CALL(cudaMemcpy(back, d, 64, cudaMemcpyDeviceToHost)); printf("  3d back[0]=%d back[40]=%d\n", back[0], back[40]);
        CALL(cudaMemcpy3DWithAttributesAsync(nullptr, 0, 0));
        CALL(cudaMemcpy3DWithAttributesAsync(&op, 1, 0));
        cudaMemcpy3DBatchOp z = op; z.extent = make_cudaExtent(0, 1, 1);
        CALL(cudaMemcpy3DWithAttributesAsync(&z, 0, 0));
        auto f3 = sym<cudaError_t (*)(cudaMemcpy3DBatchOp*, unsigned long long, cudaStream_t)>("cudaMemcpy3DWithAttributesAsync_ptsz");
        if (f3) { CALL(f3(&op, 0, 0)); CALL(cudaStreamSynchronize(cudaStreamPerThread)); }
        cudaMemLocation loc; memset(&loc, 0, sizeof loc); loc.id = 77;
        CALL(cudaMemGetLocationInfo(d, 64, 0, 0, &loc)); printf("  loc type=%d id=%d\n", (int)loc.type, loc.id);
        CALL(cudaMemGetLocationInfo(d, 64, 0, 0, nullptr));
        CALL(cudaMemGetLocationInfo(nullptr, 64, 0, 0, &loc));
        CALL(cudaMemGetLocationInfo(h, 64, 0, 0, &loc)); printf("  host loc type=%d id=%d\n", (int)loc.type, loc.id);
        CALL(cudaFree(d));
    }
    SECTION("recapture") {
        cudaGraph_t g2 = nullptr; cudaStream_t s = nullptr;
        CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CALL(cudaGraphCreate(&g2, 0));
        CALL(cudaStreamBeginRecaptureToGraph(s, cudaStreamCaptureModeGlobal, g2, nullptr));
        cudaGraph_t out = nullptr; CALL(cudaStreamEndCapture(s, &out)); printf("  same=%d\n", out == g2);
        CALL(cudaStreamBeginRecaptureToGraph(s, cudaStreamCaptureModeGlobal, nullptr, nullptr));
        CALL(cudaStreamBeginRecaptureToGraph(nullptr, cudaStreamCaptureModeGlobal, g2, nullptr));
        auto f = sym<cudaError_t (*)(cudaStream_t, cudaStreamCaptureMode, cudaGraph_t, cudaGraphRecaptureCallbackData*)>("cudaStreamBeginRecaptureToGraph_ptsz");
        if (f) { CALL(f(s, cudaStreamCaptureModeGlobal, nullptr, nullptr)); }
        if (g2) CALL(cudaGraphDestroy(g2));
        if (s) CALL(cudaStreamDestroy(s));
    }
    SECTION("subgrids") {
        auto a = sym<cudaError_t (*)(void*, void*, void*, unsigned, void*, unsigned, void*, void*, void*)>("cudaSubgridCreate");
        auto b = sym<cudaError_t (*)(void*, void*, void*)>("cudaSubgridWorkerGridCreate");
        auto c = sym<cudaError_t (*)(void*, void*, void*, void*)>("cudaSubgridWorksetCreate");
        if (a) CALL(a(nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr));
        if (b) CALL(b(nullptr, nullptr, nullptr));
        if (c) CALL(c(nullptr, nullptr, nullptr, nullptr));
    }
    SECTION("13.5 fields and values") {
        char* d = nullptr; CALL(cudaMalloc(&d, 64));
        cudaPointerAttributes pa; memset(&pa, 0x5a, sizeof pa);
        CALL(cudaPointerGetAttributes(&pa, d));
        printf("  device ptr: type=%d locality=%d reserved0=%ld\n", (int)pa.type, pa.localityDomainOrdinal, pa.reserved[0]);
        int local = 0; memset(&pa, 0x5a, sizeof pa);
        CALL(cudaPointerGetAttributes(&pa, &local));
        printf("  host ptr: type=%d locality=%d reserved0=%ld\n", (int)pa.type, pa.localityDomainOrdinal, pa.reserved[0]);
        if (d) CALL(cudaFree(d));
        cudaFuncAttributes fa; memset(&fa, 0x5a, sizeof fa);
        CALL(cudaFuncGetAttributes(&fa, (const void*)k3));
        printf("  func: deviceNodeUpdateStatus=%d sharedMemoryMode=%d reserved0=%d\n", fa.deviceNodeUpdateStatus, (int)fa.sharedMemoryMode, fa.reserved[0]);
        CALL(cudaFuncSetAttribute((const void*)k3, cudaFuncAttributeSharedMemoryMode, 0));
        int attrs[] = {146, 147, 148, 149, 150, 151, 157, 160, 161};
        for (int a : attrs) {
            int val = -7;
            cudaError_t e = cudaDeviceGetAttribute(&val, (cudaDeviceAttr)a, 0);
            cudaError_t last = cudaGetLastError();
            printf("  attr %d rc=%d last=%d value=%d\n", a, (int)e, (int)last, val);
        }
        size_t lim = 77; CALL(cudaDeviceGetLimit(&lim, cudaLimitPerBlockMemorySize)); printf("  limit=%zu\n", lim);
        void* fp = nullptr; cudaDriverEntryPointQueryResult q = (cudaDriverEntryPointQueryResult)-1;
        CALL(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fp, 13050, cudaEnableDefault, &q)); printf("  cuMemAlloc@13050 %s st=%d\n", fp ? "ptr" : "null", (int)q);
        fp = nullptr; q = (cudaDriverEntryPointQueryResult)-1;
        CALL(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fp, 13010, cudaEnableDefault, &q)); printf("  cuMemAlloc@13010 %s st=%d\n", fp ? "ptr" : "null", (int)q);
        fp = nullptr; q = (cudaDriverEntryPointQueryResult)-1;
        CALL(cudaGetDriverEntryPointByVersion("cuGraphGetId", &fp, 13000, cudaEnableDefault, &q)); printf("  cuGraphGetId@13000 %s st=%d\n", fp ? "ptr" : "null", (int)q);
        cudaExecutionContext_t p = nullptr; cudaDeviceGetExecutionCtx(&p, 0); cudaGetLastError();
        cudaStream_t s = nullptr; unsigned fl = 77;
        CALL(cudaExecutionCtxStreamCreate(&s, p, 0, 0));
        if (s) { CALL(cudaStreamGetFlags(s, &fl)); printf("  primary-ctx stream flags=%u\n", fl); CALL(cudaStreamDestroy(s)); }
    }
    printf("== end\n");
    return 0;
}
