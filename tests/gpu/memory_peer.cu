// Peer access and peer copies between devices 0 and 1. The codes that need
// only one device are printed first; with fewer than two devices the rest
// is skipped with a fixed line, so the output is deterministic anywhere.
#include "memory_common.h"
#include <vector>

__global__ void fill(unsigned char *p, size_t n, int s) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = (unsigned char)(i * 3 + s);
}

__global__ void read_peer(const unsigned char *peer, unsigned char *out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = peer[i] + 1;
}

int main() {
    int n = 0, v = -1;
    CK(cudaGetDeviceCount(&n));
    CODE(cudaDeviceCanAccessPeer(&v, 0, 0));
    printf("device 0 can access itself as a peer: %d\n", v);
    CODE(cudaDeviceCanAccessPeer(&v, 0, 64));
    CODE(cudaDeviceCanAccessPeer(nullptr, 0, 0));
    CODE(cudaDeviceEnablePeerAccess(0, 0));
    CODE(cudaDeviceEnablePeerAccess(64, 0));
    CODE(cudaDeviceDisablePeerAccess(0));
    CODE(cudaDeviceDisablePeerAccess(64));
    CODE(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0));
    CODE(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 64));
#if CUDART_VERSION >= 13000
    // 13-only: left out under CUDA 12.9's headers.
    unsigned caps[2] = {0, 0};
    cudaAtomicOperation ops[2] = {cudaAtomicOperationIntegerAdd, cudaAtomicOperationCAS};
    CODE(cudaDeviceGetP2PAtomicCapabilities(caps, ops, 2, 0, 0));
    CODE(cudaDeviceGetP2PAtomicCapabilities(caps, ops, 0, 0, 0));
#endif
    if (n < 2) {
        printf("SKIP two-device part: fewer than 2 devices\n");
        return 0;
    }
    int can01 = 0, can10 = 0;
    CK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CK(cudaDeviceCanAccessPeer(&can10, 1, 0));
    printf("can access 0->1 %d, 1->0 %d\n", can01, can10);
    int rank = -1, access = -1, atomics = -1, arrays = -1;
    CK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, 0, 1));
    CK(cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, 0, 1));
    CK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, 0, 1));
    CK(cudaDeviceGetP2PAttribute(&arrays, cudaDevP2PAttrCudaArrayAccessSupported, 0, 1));
    printf("p2p 0->1 rank %d access %d atomics %d arrays %d\n", rank, access, atomics, arrays);
#if CUDART_VERSION >= 13000
    CODE(cudaDeviceGetP2PAtomicCapabilities(caps, ops, 2, 0, 1));
#endif

    const size_t bytes = 1 << 20;
    unsigned char *a, *b, *c;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&a, bytes));
    fill<<<(bytes + 255) / 256, 256>>>(a, bytes, 9);
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&c, bytes));
    // Peer copies work with or without peer access.
    CK(cudaMemcpyPeer(b, 1, a, 0, bytes));
    std::vector<unsigned char> h(bytes);
    CK(cudaMemcpy(h.data(), b, bytes, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++) bad += h[i] != (unsigned char)(i * 3 + 9);
    printf("cudaMemcpyPeer 0->1 %zu wrong\n", bad);
    CK(cudaMemset(b, 0, bytes));
    CK(cudaMemcpyPeerAsync(b, 1, a, 0, bytes, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), b, bytes, cudaMemcpyDeviceToHost));
    printf("cudaMemcpyPeerAsync 0->1 last byte ok: %d\n", h[bytes - 1] == (unsigned char)((bytes - 1) * 3 + 9));
    // cudaMemcpyDefault between devices (unified addressing).
    CK(cudaMemset(b, 0, bytes));
    CK(cudaMemcpy(b, a, bytes, cudaMemcpyDefault));
    CK(cudaMemcpy(h.data(), b, bytes, cudaMemcpyDeviceToHost));
    printf("default-kind copy across devices first byte ok: %d\n", h[0] == 9);

    // 3D peer copy of a 16 x 4 x 2 box.
    cudaPitchedPtr pa, pb;
    cudaExtent e = make_cudaExtent(64, 8, 4);
    CK(cudaSetDevice(0));
    CK(cudaMalloc3D(&pa, e));
    CK(cudaMemset3D(pa, 0x33, e));
    CK(cudaSetDevice(1));
    CK(cudaMalloc3D(&pb, e));
    CK(cudaMemset3D(pb, 0, e));
    cudaMemcpy3DPeerParms p = {};
    p.srcPtr = pa;
    p.srcDevice = 0;
    p.dstPtr = pb;
    p.dstDevice = 1;
    p.dstPos = make_cudaPos(8, 2, 1);
    p.extent = make_cudaExtent(16, 4, 2);
    CK(cudaMemcpy3DPeer(&p));
    std::vector<unsigned char> vol(pb.pitch * 8 * 4);
    CK(cudaMemcpy(vol.data(), pb.ptr, vol.size(), cudaMemcpyDeviceToHost));
    size_t set = 0;
    for (unsigned char x : vol) set += x == 0x33;
    printf("cudaMemcpy3DPeer bytes copied %zu\n", set);
    CK(cudaMemcpy3DPeerAsync(&p, 0));
    CK(cudaDeviceSynchronize());

    if (can10) {
        CK(cudaSetDevice(1));
        CK(cudaDeviceEnablePeerAccess(0, 0));
        CODE(cudaDeviceEnablePeerAccess(0, 0));
        CODE(cudaDeviceEnablePeerAccess(0, 1));
        read_peer<<<(bytes + 255) / 256, 256>>>(a, c, bytes);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h.data(), c, bytes, cudaMemcpyDeviceToHost));
        printf("kernel on 1 reads device 0 memory: %d\n", h[5] == (unsigned char)(5 * 3 + 9 + 1));
        CK(cudaDeviceDisablePeerAccess(0));
        CODE(cudaDeviceDisablePeerAccess(0));
    } else {
        printf("peer access 1->0 unsupported\n");
        CODE(cudaDeviceEnablePeerAccess(0, 0));
    }
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(pb.ptr));
    CK(cudaSetDevice(0));
    CK(cudaFree(a));
    CK(cudaFree(pa.ptr));
    printf("done\n");
    return 0;
}
