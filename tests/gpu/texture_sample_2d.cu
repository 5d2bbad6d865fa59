// A texture object over a 2D CUDA array: point sampling returns the texels,
// linear filtering between texels returns their average, clamp and border
// addressing, normalized coordinates; the getters return the descriptors.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)

static const int W = 16, H = 8;

__global__ void sample(cudaTextureObject_t t, float *out, float dx, float dy, int normalized) {
    int x = threadIdx.x, y = blockIdx.x;
    float u = x + 0.5f + dx, v = y + 0.5f + dy;
    if (normalized) { u /= W; v /= H; }
    out[y * W + x] = tex2D<float>(t, u, v);
}

__global__ void write_surface(cudaSurfaceObject_t s) {
    int x = threadIdx.x, y = blockIdx.x;
    surf2Dwrite((float)(1000 + y * W + x), s, x * (int)sizeof(float), y);
}

static int run(cudaTextureObject_t t, float dx, float dy, int normalized, float (*want)(int, int), const char *what) {
    float *d, host[W * H];
    CHECK(cudaMalloc(&d, sizeof host));
    sample<<<H, W>>>(t, d, dx, dy, normalized);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) bad += fabsf(host[y * W + x] - want(x, y)) > 1e-3f;
    printf("%s: %s\n", what, bad ? "WRONG" : "ok");
    return bad;
}

static float texel(int x, int y) { return (float)(y * W + x); }
static float clamp_x(int x) { return (float)(x < W - 1 ? x : W - 1); }
static float half_right(int x, int y) { return (texel(x, y) + texel(x + 1 < W ? x + 1 : W - 1, y)) / 2; }
static float clamped_shift(int x, int y) { int xx = x + 3 < W ? x + 3 : W - 1; return texel(xx, y); }
static float border_shift(int x, int y) { return x + 3 < W ? texel(x + 3, y) : 0.0f; }
static float surface_value(int x, int y) { return 1000.0f + y * W + x; }

int main() {
    cudaChannelFormatDesc cd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &cd, W, H, cudaArraySurfaceLoadStore));
    float host[W * H];
    for (int i = 0; i < W * H; i++) host[i] = (float)i;
    CHECK(cudaMemcpy2DToArray(a, 0, 0, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaChannelFormatDesc got;
    CHECK(cudaGetChannelDesc(&got, a));
    printf("channel desc: %d %d %d %d kind %d\n", got.x, got.y, got.z, got.w, (int)got.f);

    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t point;
    CHECK(cudaCreateTextureObject(&point, &rd, &td, nullptr));
    int bad = run(point, 0, 0, 0, texel, "point sampling");
    bad += run(point, 3, 0, 0, clamped_shift, "clamp addressing");

    td.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t linear;
    CHECK(cudaCreateTextureObject(&linear, &rd, &td, nullptr));
    bad += run(linear, 0.5f, 0, 0, half_right, "linear filtering");

    td.filterMode = cudaFilterModePoint;
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
    td.normalizedCoords = 1;
    cudaTextureObject_t border;
    CHECK(cudaCreateTextureObject(&border, &rd, &td, nullptr));
    bad += run(border, 3, 0, 1, border_shift, "border, normalized coordinates");

    cudaTextureDesc back;
    CHECK(cudaGetTextureObjectTextureDesc(&back, border));
    printf("texture desc: address %d %d filter %d read %d normalized %d\n", (int)back.addressMode[0],
           (int)back.addressMode[1], (int)back.filterMode, (int)back.readMode, back.normalizedCoords);
    cudaResourceDesc rback;
    CHECK(cudaGetTextureObjectResourceDesc(&rback, border));
    printf("resource desc: type %d same array %d\n", (int)rback.resType, rback.res.array.array == a);

    // A pitch2D texture over linear memory, and a surface write read back.
    float *lin;
    size_t pitch;
    CHECK(cudaMallocPitch(&lin, &pitch, W * sizeof(float), H));
    CHECK(cudaMemcpy2D(lin, pitch, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc pd = {};
    pd.resType = cudaResourceTypePitch2D;
    pd.res.pitch2D.devPtr = lin;
    pd.res.pitch2D.desc = cd;
    pd.res.pitch2D.width = W;
    pd.res.pitch2D.height = H;
    pd.res.pitch2D.pitchInBytes = pitch;
    td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t pt;
    CHECK(cudaCreateTextureObject(&pt, &pd, &td, nullptr));
    bad += run(pt, 0, 0, 0, texel, "pitch2D texture");
    CHECK(cudaGetTextureObjectResourceDesc(&rback, pt));
    printf("pitch2D desc: type %d width %zu height %zu desc %d/%d\n", (int)rback.resType, rback.res.pitch2D.width,
           rback.res.pitch2D.height, rback.res.pitch2D.desc.x, (int)rback.res.pitch2D.desc.f);

    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &rd));
    write_surface<<<H, W>>>(s);
    CHECK(cudaDeviceSynchronize());
    bad += run(point, 0, 0, 0, surface_value, "surface write, texture read");
    (void)clamp_x;

    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaDestroyTextureObject(pt));
    CHECK(cudaDestroyTextureObject(border));
    CHECK(cudaDestroyTextureObject(linear));
    CHECK(cudaDestroyTextureObject(point));
    CHECK(cudaFree(lin));
    CHECK(cudaFreeArray(a));
    printf("done\n");
    return bad ? 1 : 0;
}
