// Device, pinned and pageable memory: allocation, copies of every kind in
// 1D/2D/3D with a kernel in between, sets, pointer attributes, and the
// error codes of bad input (printed by name).
#include "memory_common.h"
#include <cstring>
#include <vector>

__global__ void add(unsigned char *p, size_t n, int v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] += v;
}

__global__ void add2d(unsigned char *p, size_t pitch, size_t w, size_t h, int v) {
    size_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) p[y * pitch + x] += v;
}

static unsigned char val(size_t i, int s) { return (unsigned char)(i * 7 + s); }

static void check(const char *what, const unsigned char *got, size_t n, int seed, int plus) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += got[i] != (unsigned char)(val(i, seed) + plus);
    printf("%-40s %zu bytes, %zu wrong\n", what, n, bad);
    if (bad) exit(1);
}

static void one_d(bool pinned) {
    const size_t n = 1 << 20;
    unsigned char *h, *back;
    if (pinned) {
        CK(cudaMallocHost((void **)&h, n));
        CK(cudaHostAlloc((void **)&back, n, cudaHostAllocPortable | cudaHostAllocMapped));
    } else {
        h = (unsigned char *)malloc(n);
        back = (unsigned char *)malloc(n);
    }
    for (size_t i = 0; i < n; i++) h[i] = val(i, 1);
    unsigned char *a, *b;
    CK(cudaMalloc(&a, n));
    CK(cudaMalloc(&b, n));
    CK(cudaMemcpy(a, h, n, cudaMemcpyHostToDevice));
    add<<<(n + 255) / 256, 256>>>(a, n, 3);
    CK(cudaGetLastError());
    CK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(back, b, n, cudaMemcpyDeviceToHost));
    check(pinned ? "1D pinned H2D/kernel/D2D/D2H" : "1D pageable H2D/kernel/D2D/D2H", back, n, 1, 3);
    // Default kind both ways, and async on the legacy stream.
    memset(back, 0, n);
    CK(cudaMemcpyAsync(a, h, n, cudaMemcpyDefault, 0));
    CK(cudaMemcpyAsync(back, a, n, cudaMemcpyDefault, 0));
    CK(cudaStreamSynchronize(0));
    check(pinned ? "1D pinned default async" : "1D pageable default async", back, n, 1, 0);
    // Host to host.
    memset(back, 0, n);
    CK(cudaMemcpy(back, h, n, cudaMemcpyHostToHost));
    check(pinned ? "1D pinned host-to-host" : "1D pageable host-to-host", back, n, 1, 0);
    CK(cudaFree(a));
    CK(cudaFree(b));
    if (pinned) {
        unsigned int f = 0;
        CK(cudaHostGetFlags(&f, back));
        printf("cudaHostAlloc(portable|mapped) flags 0x%x\n", f);
        CK(cudaHostGetFlags(&f, h));
        printf("cudaMallocHost flags 0x%x\n", f);
        void *d = nullptr;
        CK(cudaHostGetDevicePointer(&d, back, 0));
        printf("mapped device pointer equals host pointer: %d\n", d == (void *)back);
        CK(cudaFreeHost(h));
        CK(cudaFreeHost(back));
    } else {
        free(h);
        free(back);
    }
}

static void two_d() {
    const size_t w = 300, hgt = 50, hp = 320;
    std::vector<unsigned char> h(hp * hgt), back(w * hgt);
    for (size_t i = 0; i < h.size(); i++) h[i] = val(i, 2);
    unsigned char *a;
    size_t pitch;
    CK(cudaMallocPitch((void **)&a, &pitch, w, hgt));
    printf("cudaMallocPitch(300 x 50) pitch %zu\n", pitch);
    CK(cudaMemcpy2D(a, pitch, h.data(), hp, w, hgt, cudaMemcpyHostToDevice));
    add2d<<<dim3((w + 127) / 128, hgt), 128>>>(a, pitch, w, hgt, 5);
    CK(cudaMemcpy2DAsync(back.data(), w, a, pitch, w, hgt, cudaMemcpyDeviceToHost, 0));
    CK(cudaDeviceSynchronize());
    size_t bad = 0;
    for (size_t y = 0; y < hgt; y++)
        for (size_t x = 0; x < w; x++) bad += back[y * w + x] != (unsigned char)(h[y * hp + x] + 5);
    printf("2D pitched H2D/kernel/D2H async %zu wrong\n", bad);
    if (bad) exit(1);
    CK(cudaMemset2D(a, pitch, 0x11, w / 2, hgt));
    CK(cudaMemcpy2D(back.data(), w, a, pitch, w, hgt, cudaMemcpyDeviceToHost));
    bad = 0;
    for (size_t y = 0; y < hgt; y++)
        for (size_t x = 0; x < w / 2; x++) bad += back[y * w + x] != 0x11;
    printf("memset2D %zu wrong\n", bad);
    CODE(cudaMemcpy2D(a, pitch, h.data(), 10, w, hgt, cudaMemcpyHostToDevice));
    CODE(cudaMemcpy2D(a, 10, h.data(), hp, w, hgt, cudaMemcpyHostToDevice));
    CODE(cudaMemcpy2D(a, pitch, h.data(), hp, 0, hgt, cudaMemcpyHostToDevice));
    CODE(cudaMemset2D(a, pitch, 0, pitch + 1, 2));
    CK(cudaFree(a));
}

static void three_d() {
    cudaExtent e = make_cudaExtent(40, 6, 5);
    cudaPitchedPtr d;
    CK(cudaMalloc3D(&d, e));
    printf("cudaMalloc3D(40 x 6 x 5) pitch %zu, xsize %zu, ysize %zu\n", d.pitch, d.xsize, d.ysize);
    std::vector<unsigned char> h(40 * 6 * 5), back(h.size());
    for (size_t i = 0; i < h.size(); i++) h[i] = val(i, 4);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(h.data(), 40, 40, 6);
    p.dstPtr = d;
    p.extent = e;
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    // Set a 10 x 2 x 3 box at (5, 1, 1) to 0xAA, copy the whole back.
    cudaPitchedPtr box = d;
    box.ptr = (char *)d.ptr + d.pitch * d.ysize + d.pitch + 5;
    CK(cudaMemset3D(box, 0xAA, make_cudaExtent(10, 2, 3)));
    cudaMemcpy3DParms q = {};
    q.srcPtr = d;
    q.dstPtr = make_cudaPitchedPtr(back.data(), 40, 40, 6);
    q.extent = e;
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3DAsync(&q, 0));
    CK(cudaDeviceSynchronize());
    size_t bad = 0;
    for (size_t z = 0; z < 5; z++)
        for (size_t y = 0; y < 6; y++)
            for (size_t x = 0; x < 40; x++) {
                size_t i = (z * 6 + y) * 40 + x;
                bool in = z >= 1 && z < 4 && y >= 1 && y < 3 && x >= 5 && x < 15;
                bad += back[i] != (in ? 0xAA : h[i]);
            }
    printf("3D H2D/memset3D/D2H async %zu wrong\n", bad);
    if (bad) exit(1);
    // Offsets: copy a 4 x 2 x 2 box from (1,1,1) of the volume to the host origin.
    std::vector<unsigned char> small(4 * 2 * 2);
    cudaMemcpy3DParms r = {};
    r.srcPtr = d;
    r.srcPos = make_cudaPos(1, 1, 1);
    r.dstPtr = make_cudaPitchedPtr(small.data(), 4, 4, 2);
    r.extent = make_cudaExtent(4, 2, 2);
    r.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&r));
    printf("3D box first byte ok: %d\n", small[0] == back[(1 * 6 + 1) * 40 + 1]);
    // Bad input.
    cudaMemcpy3DParms bad1 = r;
    bad1.srcArray = nullptr;
    bad1.dstPtr.ptr = nullptr;
    CODE(cudaMemcpy3D(&bad1));
    cudaMemcpy3DParms bad2 = r;
    bad2.kind = (cudaMemcpyKind)9;
    CODE(cudaMemcpy3D(&bad2));
    cudaMemcpy3DParms bad3 = r;
    bad3.extent = make_cudaExtent(0, 2, 2);
    CODE(cudaMemcpy3D(&bad3));
    cudaMemcpy3DParms bad4 = r;
    bad4.srcPos = make_cudaPos(1, 5, 1);
    CODE(cudaMemcpy3D(&bad4));
    CODE(cudaMemcpy3D(nullptr));
    CK(cudaFree(d.ptr));
}

static const char *type_name(cudaMemoryType t) {
    switch (t) {
    case cudaMemoryTypeUnregistered: return "unregistered";
    case cudaMemoryTypeHost: return "host";
    case cudaMemoryTypeDevice: return "device";
    case cudaMemoryTypeManaged: return "managed";
    }
    return "?";
}

static void attrs(const char *what, const void *p) {
    cudaPointerAttributes a;
    memset(&a, 0x5a, sizeof a);
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    printf("attributes %-12s -> %s type %s device %d devPtr==p %d devPtr==NULL %d hostPtr==p %d hostPtr==NULL %d\n",
           what, cudaGetErrorName(e), type_name(a.type), a.device, a.devicePointer == p, a.devicePointer == nullptr,
           a.hostPointer == p, a.hostPointer == nullptr);
    cudaGetLastError();
}

static void pointer_attributes() {
    printf("sizeof(cudaPointerAttributes) %zu\n", sizeof(cudaPointerAttributes));
    void *d, *h, *m, *wc;
    CK(cudaMalloc(&d, 64));
    CK(cudaMallocHost(&h, 64));
    CK(cudaMallocManaged(&m, 64));
    CK(cudaHostAlloc(&wc, 64, cudaHostAllocWriteCombined));
    std::vector<char> pageable(64);
    static char registered[8192];
    CK(cudaHostRegister(registered, sizeof registered, cudaHostRegisterDefault));
    attrs("device", d);
    attrs("device+8", (char *)d + 8);
    attrs("pinned", h);
    attrs("managed", m);
    attrs("wc", wc);
    attrs("registered", registered);
    attrs("pageable", pageable.data());
    attrs("null", nullptr);
    CODE(cudaPointerGetAttributes(nullptr, d));
    CK(cudaHostUnregister(registered));
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
    CK(cudaFree(m));
    CK(cudaFreeHost(wc));
}

static void bad_input() {
    void *d = nullptr, *p = nullptr;
    char local[64];
    CK(cudaMalloc(&d, 64));
    CODE(cudaMalloc(nullptr, 16));
    CODE(cudaMalloc(&p, 0));
    printf("cudaMalloc(0) gives NULL: %d\n", p == nullptr);
    CODE(cudaMalloc(&p, (size_t)1 << 62));
    CODE(cudaFree(nullptr));
    CODE(cudaFree(local));
    CODE(cudaFree((char *)d + 8));
    CODE(cudaFreeHost(d));
    CODE(cudaFreeHost(nullptr));
    CODE(cudaMemcpy(d, local, 64, (cudaMemcpyKind)7));
    CODE(cudaMemcpy(d, local, 0, (cudaMemcpyKind)7));
    CODE(cudaMemcpy(d, local, 0, cudaMemcpyHostToDevice));
    CODE(cudaMemcpy(local, d, 64, cudaMemcpyHostToDevice));
    CODE(cudaMemcpy(d, local, 64, cudaMemcpyDeviceToHost));
    CODE(cudaMemcpy(d, d, 64, cudaMemcpyHostToHost));
    CODE(cudaMemcpy(nullptr, local, 64, cudaMemcpyHostToDevice));
    CODE(cudaMemcpyAsync(d, local, 64, (cudaMemcpyKind)5, 0));
    CODE(cudaMemset(local, 0, 64));
    CODE(cudaMemset(nullptr, 0, 0));
    CODE(cudaMallocManaged(&p, 0));
    CODE(cudaMallocManaged(&p, 64, 0));
    CODE(cudaMallocManaged(&p, 64, cudaMemAttachSingle));
    CODE(cudaHostAlloc(&p, 64, 0x80));
    CODE(cudaMallocHost(&p, 0));
    CODE(cudaHostRegister(local, 64, 0x100));
    CODE(cudaHostRegister(nullptr, 64, 0));
    CODE(cudaHostRegister(local, 0, 0));
    CODE(cudaHostUnregister(local));
    CODE(cudaHostGetDevicePointer(&p, local, 0));
    CODE(cudaHostGetFlags((unsigned *)&p, local));
    CODE(cudaMemPrefetchAsync(d, 64, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, 0));
    size_t pitch;
    CODE(cudaMallocPitch(&p, &pitch, 0, 4));
    CK(cudaFree(d));
    size_t f = 0, t = 0;
    CK(cudaMemGetInfo(&f, &t));
    printf("memGetInfo free <= total: %d\n", f <= t);
}

int main() {
    CK(cudaFree(nullptr));
    one_d(false);
    one_d(true);
    two_d();
    three_d();
    pointer_attributes();
    bad_input();
    printf("done\n");
    return 0;
}
