// CUDA 13 batch copies (cudaMemcpyBatchAsync, cudaMemcpy3DBatchAsync) and
// the managed-memory prefetch/discard batches, on a created stream. Under
// CUDA 12.9's headers the copies go through 12's forms (cuda13_names.h) and
// the prefetch/discard batches, 13-only, are left out with a fixed line.
#include "memory_common.h"
#include "cuda13_names.h"
#include <vector>

int main() {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t n0 = 4096, n1 = 100;
    std::vector<unsigned char> h0(n0), h1(n1), b0(n0), b1(n1);
    for (size_t i = 0; i < n0; i++) h0[i] = (unsigned char)(i * 5 + 1);
    for (size_t i = 0; i < n1; i++) h1[i] = (unsigned char)(i * 11 + 2);
    void *d0, *d1;
    CK(cudaMalloc(&d0, n0));
    CK(cudaMalloc(&d1, n1));
    void *dsts[2] = {d0, d1};
    const void *srcs[2] = {h0.data(), h1.data()};
    size_t sizes[2] = {n0, n1};
    cudaMemcpyAttributes attr = {};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.srcLocHint = {cudaMemLocationTypeHost, 0};
    attr.dstLocHint = {cudaMemLocationTypeDevice, 0};
    size_t idx = 0;
    CK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &idx, 1, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(b0.data(), d0, n0, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b1.data(), d1, n1, cudaMemcpyDeviceToHost));
    printf("batch copy ok: %d %d\n", b0 == h0, b1 == h1);
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &idx, 1, 0));
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 0, &attr, &idx, 1, s));
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &idx, 0, s));
    cudaMemcpyAttributes bad = attr;
    bad.srcAccessOrder = cudaMemcpySrcAccessOrderInvalid;
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &bad, &idx, 1, s));

    // 3D batch: a 16 x 3 box of a host matrix with rows of 64 into device memory.
    std::vector<unsigned char> m(64 * 3);
    for (size_t i = 0; i < m.size(); i++) m[i] = (unsigned char)(i + 7);
    cudaMemcpy3DBatchOp op = {};
    op.src.type = cudaMemcpyOperandTypePointer;
    op.src.op.ptr.ptr = m.data();
    op.src.op.ptr.rowLength = 64;
    op.src.op.ptr.layerHeight = 3;
    op.src.op.ptr.locHint = {cudaMemLocationTypeHost, 0};
    op.dst.type = cudaMemcpyOperandTypePointer;
    op.dst.op.ptr.ptr = d0;
    op.dst.op.ptr.rowLength = 16;
    op.dst.op.ptr.layerHeight = 3;
    op.dst.op.ptr.locHint = {cudaMemLocationTypeDevice, 0};
    op.extent = make_cudaExtent(16, 3, 1);
    op.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CK(cudaMemcpy3DBatchAsync(1, &op, 0, s));
    CK(cudaStreamSynchronize(s));
    std::vector<unsigned char> got(48);
    CK(cudaMemcpy(got.data(), d0, 48, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 16; x++) ok &= got[y * 16 + x] == m[y * 64 + x];
    printf("3D batch copy ok: %d\n", ok);
    CODE(cudaMemcpy3DBatchAsync(0, &op, 0, s));
    CODE(cudaMemcpy3DBatchAsync(1, &op, 1, s));

#if CUDART_VERSION >= 13000
    // Prefetch and discard batches on managed memory.
    int concurrent = 0;
    CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    void *m0, *m1;
    CK(cudaMallocManaged(&m0, 1 << 16));
    CK(cudaMallocManaged(&m1, 1 << 16));
    void *ptrs[2] = {m0, m1};
    size_t msz[2] = {1 << 16, 1 << 16};
    cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    size_t li = 0;
    if (concurrent) {
        CODE(cudaMemPrefetchBatchAsync(ptrs, msz, 2, &loc, &li, 1, 0, s));
        CODE(cudaMemDiscardBatchAsync(ptrs, msz, 1, 0, s));
        CODE(cudaMemDiscardAndPrefetchBatchAsync(ptrs, msz, 2, &loc, &li, 1, 0, s));
        CK(cudaStreamSynchronize(s));
    } else {
        printf("(no concurrent managed access: prefetch batches skipped)\n");
    }
    CODE(cudaMemPrefetchBatchAsync(ptrs, msz, 0, &loc, &li, 1, 0, s));
    CK(cudaFree(m0));
    CK(cudaFree(m1));
#else
    printf("(CUDA 12: no prefetch and discard batches)\n");
#endif
    CK(cudaFree(d0));
    CK(cudaFree(d1));
    CK(cudaStreamDestroy(s));
    printf("done\n");
    return 0;
}
