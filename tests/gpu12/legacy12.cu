// CUDA 12's legacy and re-laid-out calls: the cudaThread* family
// (Synchronize, SetLimit/GetLimit, SetCacheConfig/GetCacheConfig, Exit),
// cudaSetDoubleForDevice/Host, cudaEventElapsedTime plain and _v2, and
// cudaPointerGetAttributes with 12.9's 24-byte struct. The cudaThread* calls
// are checked against their cudaDevice* twins; cudaThreadExit must reset the
// device as cudaDeviceReset does. Elapsed times print as valid or not only.
// External semaphores need a graphics API (or NvSciSync) to make one, so
// their 12 forms (12.9's 32-byte handle descriptor, the plain signal and
// wait calls with the _v1 parameter structs) show argument errors only.
#include "check12.h"
#include <cstring>

static void legacy() {
    void *d;
    CK(cudaMalloc(&d, 1 << 20));
    CK(cudaMemsetAsync(d, 1, 1 << 20, 0));
    CK(cudaThreadSynchronize());
    size_t dflt = 0, v = 0, dv = 0;
    CK(cudaThreadGetLimit(&dflt, cudaLimitStackSize));
    CK(cudaThreadSetLimit(cudaLimitStackSize, 4096));
    CK(cudaThreadGetLimit(&v, cudaLimitStackSize));
    CK(cudaDeviceGetLimit(&dv, cudaLimitStackSize));
    printf("cudaThreadSetLimit(stack, 4096): thread %zu device %zu\n", v, dv);
    EXPECT(v == 4096 && dv == 4096);
    CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
    CK(cudaThreadGetLimit(&v, cudaLimitMallocHeapSize));
    printf("heap limit set by cudaDeviceSetLimit, read by cudaThreadGetLimit: %zu\n", v);
    EXPECT(v == 16 << 20);
    SHOW(cudaThreadSetLimit((cudaLimit)99, 1));
    SHOW(cudaThreadGetLimit(nullptr, cudaLimitStackSize));

    cudaFuncCache c = cudaFuncCachePreferNone, dc = cudaFuncCachePreferNone;
    CK(cudaThreadSetCacheConfig(cudaFuncCachePreferL1));
    CK(cudaThreadGetCacheConfig(&c));
    CK(cudaDeviceGetCacheConfig(&dc));
    printf("cudaThreadSetCacheConfig(PreferL1): thread %d device %d\n", (int)c, (int)dc);
    EXPECT(c == dc);
    CK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    CK(cudaThreadGetCacheConfig(&c));
    CK(cudaDeviceGetCacheConfig(&dc));
    printf("cudaDeviceSetCacheConfig(PreferShared): thread %d device %d\n", (int)c, (int)dc);
    EXPECT(c == dc);
    SHOW(cudaThreadSetCacheConfig((cudaFuncCache)9));
    SHOW(cudaThreadGetCacheConfig(nullptr));

    double x = 1.5;
    CK(cudaSetDoubleForDevice(&x));
    CK(cudaSetDoubleForHost(&x));
    printf("cudaSetDoubleForDevice/Host leave the value: %g\n", x);
    EXPECT(x == 1.5);
    SHOW(cudaSetDoubleForDevice(nullptr));
    SHOW(cudaSetDoubleForHost(nullptr));

    // cudaThreadExit is cudaDeviceReset: the limit set above is gone.
    CK(cudaThreadExit());
    CK(cudaThreadGetLimit(&v, cudaLimitStackSize));
    printf("after cudaThreadExit: stack limit back to the default %d\n", v == dflt);
    EXPECT(v == dflt);
    CK(cudaMalloc(&d, 4096));
    CK(cudaFree(d));
}

static void events() {
    cudaEvent_t a, b, untimed;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    void *d;
    CK(cudaMalloc(&d, 16 << 20));
    CK(cudaEventRecord(a, 0));
    CK(cudaMemsetAsync(d, 2, 16 << 20, 0));
    CK(cudaEventRecord(b, 0));
    CK(cudaEventRecord(untimed, 0));
    CK(cudaEventSynchronize(b));
    CK(cudaEventSynchronize(untimed));
    float ms = -1, ms2 = -1;
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventElapsedTime_v2(&ms2, a, b));
    printf("elapsed time plain valid %d, _v2 valid %d\n", ms >= 0 && ms < 60000, ms2 >= 0 && ms2 < 60000);
    EXPECT(ms >= 0 && ms2 >= 0);
    SHOW(cudaEventElapsedTime(&ms, a, untimed));
    SHOW(cudaEventElapsedTime_v2(&ms, a, untimed));
    SHOW(cudaEventElapsedTime(nullptr, a, b));
    SHOW(cudaEventElapsedTime_v2(nullptr, a, b));
    cudaEvent_t never;
    CK(cudaEventCreate(&never));
    SHOW(cudaEventElapsedTime(&ms, a, never));
    SHOW(cudaEventElapsedTime_v2(&ms, a, never));
    CK(cudaEventDestroy(never));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaEventDestroy(untimed));
    CK(cudaFree(d));
}

// cudaPointerGetAttributes writes 12.9's 24 bytes and no more. dev_ptr /
// host_ptr: the pointer must come back as the device / host pointer (the
// other answers print, for the comparison).
static void pointer(const char *what, const void *p, cudaMemoryType want_type, bool dev_ptr, bool host_ptr) {
    unsigned char buf[sizeof(cudaPointerAttributes) + 64];
    memset(buf, 0xAB, sizeof buf);
    cudaPointerAttributes *a = (cudaPointerAttributes *)buf;
    CK(cudaPointerGetAttributes(a, p));
    int past = -1;
    for (size_t i = sizeof *a; i < sizeof buf; i++)
        if (buf[i] != 0xAB) {
            past = (int)i;
            break;
        }
    printf("%s: type %d device %d devicePointer %s hostPointer %s, first byte written past %zu: %d\n", what,
           (int)a->type, a->device, a->devicePointer == p ? "=p" : a->devicePointer ? "other" : "null",
           a->hostPointer == p ? "=p" : a->hostPointer ? "other" : "null", sizeof *a, past);
    EXPECT(a->type == want_type && past == -1);
    EXPECT(!dev_ptr || a->devicePointer == p);
    EXPECT(!host_ptr || a->hostPointer == p);
}

static void pointers() {
    printf("sizeof(cudaPointerAttributes) %zu\n", sizeof(cudaPointerAttributes));
    EXPECT(sizeof(cudaPointerAttributes) == 24);
    void *d, *h, *m;
    CK(cudaMalloc(&d, 4096));
    CK(cudaMallocHost(&h, 4096));
    CK(cudaMallocManaged(&m, 4096));
    static char plain[4096];
    pointer("device", d, cudaMemoryTypeDevice, true, false);
    pointer("pinned host", h, cudaMemoryTypeHost, true, true);
    pointer("managed", m, cudaMemoryTypeManaged, true, true);
    pointer("unregistered host", plain, cudaMemoryTypeUnregistered, false, false);
    SHOW(cudaPointerGetAttributes(nullptr, d));
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
    CK(cudaFree(m));
}

static void semaphores() {
    printf("sizeof handle desc %zu, signal params _v1 %zu, wait params _v1 %zu\n",
           sizeof(cudaExternalSemaphoreHandleDesc), sizeof(cudaExternalSemaphoreSignalParams_v1),
           sizeof(cudaExternalSemaphoreWaitParams_v1));
    EXPECT(sizeof(cudaExternalSemaphoreHandleDesc) == 32);
    cudaExternalSemaphoreHandleDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.type = cudaExternalSemaphoreHandleTypeOpaqueFd;
    desc.handle.fd = -1;
    cudaExternalSemaphore_t sem = nullptr;
    SHOW(cudaImportExternalSemaphore(&sem, &desc));
    SHOW(cudaImportExternalSemaphore(&sem, nullptr));
    cudaExternalSemaphoreSignalParams_v1 sp;
    cudaExternalSemaphoreWaitParams_v1 wp;
    memset(&sp, 0, sizeof sp);
    memset(&wp, 0, sizeof wp);
    SHOW(cudaSignalExternalSemaphoresAsync(nullptr, &sp, 1, 0));
    SHOW(cudaWaitExternalSemaphoresAsync(nullptr, &wp, 1, 0));
    SHOW(cudaSignalExternalSemaphoresAsync_v2(nullptr, nullptr, 1, 0));
    SHOW(cudaWaitExternalSemaphoresAsync_v2(nullptr, nullptr, 1, 0));
    SHOW(cudaDestroyExternalSemaphore(nullptr));
}

int main() {
    CK(cudaSetDevice(0));
    int rt = 0;
    CK(cudaRuntimeGetVersion(&rt));
    printf("cudaRuntimeGetVersion %d\n", rt);
    legacy();
    events();
    pointers();
    semaphores();
    printf("done\n");
    return 0;
}
