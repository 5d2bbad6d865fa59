// nvcc: --default-stream per-thread -Xcompiler=-Wno-deprecated-declarations
// The same copies and sets built with the per-thread default stream, so the
// binary calls the _ptds/_ptsz exports (cudaMemcpy_ptds, cudaMemsetAsync_ptsz, ...).
#include "memory_common.h"
#include <cstring>
#include <vector>

__global__ void twice(unsigned char *p, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] *= 2;
}

static void expect(const char *what, bool ok) {
    printf("%-44s %s\n", what, ok ? "ok" : "WRONG");
    if (!ok) exit(1);
}

int main() {
    const size_t n = 1 << 16;
    std::vector<unsigned char> h(n), back(n);
    for (size_t i = 0; i < n; i++) h[i] = (unsigned char)(i % 100);
    unsigned char *a, *b;
    CK(cudaMalloc(&a, n));
    CK(cudaMalloc(&b, n));
    CK(cudaMemcpy(a, h.data(), n, cudaMemcpyHostToDevice));
    twice<<<(n + 255) / 256, 256>>>(a, n);
    CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, cudaStreamPerThread));
    CK(cudaMemcpy(back.data(), b, n, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t i = 0; i < n; i++) ok &= back[i] == (unsigned char)(h[i] * 2);
    expect("memcpy / memcpyAsync / kernel", ok);

    CK(cudaMemset(a, 7, n));
    CK(cudaMemsetAsync(a, 9, n / 2, 0));
    CK(cudaMemcpyAsync(back.data(), a, n, cudaMemcpyDefault, 0));
    CK(cudaStreamSynchronize(0));
    expect("memset / memsetAsync", back[0] == 9 && back[n / 2 - 1] == 9 && back[n / 2] == 7);

    unsigned char *p;
    size_t pitch;
    CK(cudaMallocPitch((void **)&p, &pitch, 100, 20));
    CK(cudaMemset2D(p, pitch, 1, 100, 20));
    CK(cudaMemset2DAsync(p, pitch, 2, 50, 10, 0));
    CK(cudaMemcpy2D(back.data(), 100, p, pitch, 100, 20, cudaMemcpyDeviceToHost));
    expect("memset2D / memset2DAsync / memcpy2D", back[0] == 2 && back[49] == 2 && back[50] == 1 && back[10 * 100] == 1);
    CK(cudaMemcpy2DAsync(p, pitch, h.data(), 100, 100, 20, cudaMemcpyHostToDevice, 0));
    CK(cudaMemcpy2D(back.data(), 100, p, pitch, 100, 20, cudaMemcpyDeviceToHost));
    expect("memcpy2DAsync", memcmp(back.data(), h.data(), 2000) == 0);

    cudaExtent e = make_cudaExtent(32, 4, 3);
    cudaPitchedPtr v;
    CK(cudaMalloc3D(&v, e));
    CK(cudaMemset3D(v, 3, e));
    CK(cudaMemset3DAsync(v, 4, make_cudaExtent(16, 4, 3), 0));
    cudaMemcpy3DParms q = {};
    q.srcPtr = v;
    q.dstPtr = make_cudaPitchedPtr(back.data(), 32, 32, 4);
    q.extent = e;
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    expect("memset3D / memset3DAsync / memcpy3D", back[0] == 4 && back[16] == 3 && back[32 * 4 * 2 + 15] == 4);
    q.dstPtr = make_cudaPitchedPtr(back.data() + 1000, 32, 32, 4);
    CK(cudaMemcpy3DAsync(&q, 0));
    CK(cudaStreamSynchronize(0));
    expect("memcpy3DAsync", memcmp(back.data(), back.data() + 1000, 32 * 4 * 3) == 0);

    cudaChannelFormatDesc d = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t arr, arr2;
    CK(cudaMallocArray(&arr, &d, 64, 8));
    CK(cudaMallocArray(&arr2, &d, 64, 8));
    CK(cudaMemcpy2DToArray(arr, 0, 0, h.data(), 64, 64, 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy2DArrayToArray(arr2, 0, 0, arr, 0, 0, 64, 8));
    CK(cudaMemcpy2DFromArray(back.data(), 64, arr2, 0, 0, 64, 8, cudaMemcpyDeviceToHost));
    expect("2D array copies", memcmp(back.data(), h.data(), 512) == 0);
    CK(cudaMemcpy2DToArrayAsync(arr, 0, 0, h.data() + 512, 64, 64, 8, cudaMemcpyHostToDevice, 0));
    CK(cudaMemcpy2DFromArrayAsync(back.data(), 64, arr, 0, 0, 64, 8, cudaMemcpyDeviceToHost, 0));
    CK(cudaStreamSynchronize(0));
    expect("2D array async copies", memcmp(back.data(), h.data() + 512, 512) == 0);
    CK(cudaMemcpyToArray(arr, 10, 1, h.data(), 100, cudaMemcpyHostToDevice));
    CK(cudaMemcpyArrayToArray(arr2, 0, 0, arr, 0, 0, 512));
    CK(cudaMemcpyFromArray(back.data(), arr2, 10, 1, 100, cudaMemcpyDeviceToHost));
    expect("linear array copies", memcmp(back.data(), h.data(), 100) == 0);
    CK(cudaMemcpyToArrayAsync(arr, 0, 0, h.data() + 7, 64, cudaMemcpyHostToDevice, 0));
    CK(cudaMemcpyFromArrayAsync(back.data(), arr, 0, 0, 64, cudaMemcpyDeviceToHost, 0));
    CK(cudaStreamSynchronize(0));
    expect("linear array async copies", memcmp(back.data(), h.data() + 7, 64) == 0);

    cudaMemcpy3DPeerParms pp = {};
    pp.srcPtr = v;
    pp.dstPtr = make_cudaPitchedPtr(b, 32, 32, 4);
    pp.extent = e;
    CK(cudaMemcpy3DPeer(&pp));
    CK(cudaMemcpy3DPeerAsync(&pp, 0));
    CK(cudaMemcpy(back.data() + 2000, b, 32 * 4 * 3, cudaMemcpyDeviceToHost));
    expect("memcpy3DPeer on one device", memcmp(back.data() + 1000, back.data() + 2000, 32 * 4 * 3) == 0);

    CK(cudaFreeArray(arr));
    CK(cudaFreeArray(arr2));
    CK(cudaFree(v.ptr));
    CK(cudaFree(p));
    CK(cudaFree(a));
    CK(cudaFree(b));
    printf("done\n");
    return 0;
}
