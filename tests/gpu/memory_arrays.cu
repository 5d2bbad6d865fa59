// nvcc: -Xcompiler=-Wno-deprecated-declarations
// CUDA arrays: 1D/2D/3D/layered creation and queries, 2D/3D copies to,
// from and between arrays (array offsets count elements in 3D copies),
// the deprecated linear array copies, mipmapped arrays, and bad input.
#include "memory_common.h"
#include <vector>

static unsigned char val(size_t i) { return (unsigned char)(i * 29 + 3); }

static void info(const char *what, cudaArray_t a) {
    cudaChannelFormatDesc d;
    cudaExtent e;
    unsigned int f = 99;
    CK(cudaArrayGetInfo(&d, &e, &f, a));
    printf("%-10s desc %d %d %d %d kind %d extent %zu %zu %zu flags 0x%x\n", what, d.x, d.y, d.z, d.w, (int)d.f,
           e.width, e.height, e.depth, f);
}

int main() {
    // float2 array 16 x 8 (rows of 128 bytes).
    cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
    cudaArray_t a, b;
    CK(cudaMallocArray(&a, &f2, 16, 8));
    CK(cudaMallocArray(&b, &f2, 16, 8, cudaArraySurfaceLoadStore));
    info("2D", a);
    info("2D surf", b);
    std::vector<unsigned char> h(128 * 8), back(128 * 8);
    for (size_t i = 0; i < h.size(); i++) h[i] = val(i);
    CK(cudaMemcpy2DToArray(a, 0, 0, h.data(), 128, 128, 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, 128, 8));
    CK(cudaMemcpy2DFromArray(back.data(), 128, b, 0, 0, 128, 8, cudaMemcpyDeviceToHost));
    printf("2D array round trip ok: %d\n", back == h);
    // A 24-byte x 3-row box at byte 16, row 2.
    std::vector<unsigned char> box(24 * 3);
    CK(cudaMemcpy2DFromArrayAsync(box.data(), 24, a, 16, 2, 24, 3, cudaMemcpyDeviceToHost, 0));
    CK(cudaDeviceSynchronize());
    printf("2D array box ok: %d\n", box[0] == h[2 * 128 + 16] && box[24 * 2 + 23] == h[4 * 128 + 16 + 23]);
    // Deprecated linear copies wrap across rows.
    std::vector<unsigned char> lin(300);
    CK(cudaMemcpyFromArray(lin.data(), a, 100, 1, 300, cudaMemcpyDeviceToHost));
    printf("linear from array ok: %d\n", lin[0] == h[128 + 100] && lin[299] == h[128 + 100 + 299]);
    CK(cudaMemcpyToArray(b, 8, 0, lin.data(), 300, cudaMemcpyHostToDevice));
    CK(cudaMemcpyArrayToArray(a, 0, 0, b, 0, 0, 128 * 8));
    CK(cudaMemcpy2DFromArray(back.data(), 128, a, 0, 0, 128, 8, cudaMemcpyDeviceToHost));
    printf("linear to array and array to array ok: %d\n", back[8] == lin[0] && back[307] == lin[299]);

    // 3D array of uchar4 (4-byte elements): host volume in, element box out.
    cudaArray_t v;
    cudaChannelFormatDesc u4 = cudaCreateChannelDesc<uchar4>();
    cudaExtent e = make_cudaExtent(10, 6, 4);
    CK(cudaMalloc3DArray(&v, &u4, e));
    info("3D", v);
    std::vector<unsigned char> vol(40 * 6 * 4);
    for (size_t i = 0; i < vol.size(); i++) vol[i] = val(i + 7);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(vol.data(), 40, 40, 6);
    p.dstArray = v;
    p.extent = e;
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    std::vector<unsigned char> small(3 * 4 * 2 * 2);
    cudaMemcpy3DParms q = {};
    q.srcArray = v;
    q.srcPos = make_cudaPos(5, 2, 1);
    q.dstPtr = make_cudaPitchedPtr(small.data(), 12, 3, 2);
    q.extent = make_cudaExtent(3, 2, 2);
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3DAsync(&q, 0));
    CK(cudaDeviceSynchronize());
    bool ok = true;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 12; x++)
                ok &= small[(z * 2 + y) * 12 + x] == vol[(1 + z) * 240 + (2 + y) * 40 + 20 + x];
    printf("3D array element box ok: %d\n", ok);
    cudaMemcpy3DParms bad = q;
    bad.srcPos.x = 8;
    CODE(cudaMemcpy3D(&bad));
    bad = q;
    bad.dstPtr.ptr = nullptr;
    CODE(cudaMemcpy3D(&bad));
    bad = q;
    bad.kind = cudaMemcpyHostToHost;
    CODE(cudaMemcpy3D(&bad));

    // Layered and 1D arrays.
    cudaArray_t layered, one;
    CK(cudaMalloc3DArray(&layered, &u4, make_cudaExtent(8, 8, 3), cudaArrayLayered));
    info("layered", layered);
    cudaChannelFormatDesc s2 = cudaCreateChannelDesc<short2>();
    CK(cudaMallocArray(&one, &s2, 64));
    info("1D", one);

    // Mipmapped array levels.
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &u4, make_cudaExtent(64, 32, 0), 4));
    for (unsigned l = 0; l < 4; l++) {
        cudaArray_t lv;
        CK(cudaGetMipmappedArrayLevel(&lv, m, l));
        char name[16];
        snprintf(name, sizeof name, "level %u", l);
        info(name, lv);
    }
    cudaArray_t lv;
    CODE(cudaGetMipmappedArrayLevel(&lv, m, 9));

    // Requirements and sparse properties of plain arrays are errors.
    cudaArrayMemoryRequirements req;
    cudaArraySparseProperties sp;
    CODE(cudaArrayGetMemoryRequirements(&req, a, 0));
    CODE(cudaArrayGetSparseProperties(&sp, a));
    cudaArray_t plane;
    CODE(cudaArrayGetPlane(&plane, a, 0));

    // Bad descriptors and kinds.
    cudaChannelFormatDesc three = cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindUnsigned);
    cudaArray_t x;
    CODE(cudaMallocArray(&x, &three, 4, 4));
    CODE(cudaMallocArray(&x, &u4, 0, 4));
    CODE(cudaMemcpy2DToArray(a, 0, 0, h.data(), 128, 128, 8, cudaMemcpyDeviceToHost));
    CODE(cudaMemcpy2DToArray(a, 120, 0, h.data(), 128, 16, 1, cudaMemcpyHostToDevice));
    CODE(cudaMemcpy2DToArray(a, 0, 0, h.data(), 64, 128, 8, cudaMemcpyHostToDevice));
    CODE(cudaMemcpyToArray(a, 0, 7, h.data(), 129, cudaMemcpyHostToDevice));
    CODE(cudaFreeArray(nullptr));
    CODE(cudaFreeMipmappedArray(nullptr));

    CK(cudaFreeMipmappedArray(m));
    CK(cudaFreeArray(one));
    CK(cudaFreeArray(layered));
    CK(cudaFreeArray(v));
    CK(cudaFreeArray(b));
    CK(cudaFreeArray(a));
    CODE(cudaFreeArray(a));
    printf("done\n");
    return 0;
}
