// Return codes of the stream-ordered allocator, pools, IPC, external
// resources, textures and logs for edge cases where cudart-shim was unsure
// of NVIDIA's answer. Prints each code by name; the outputs of NVIDIA's
// runtime and ours must match line by line. Exits 0 unless a call crashes.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define SHOW(x) do { cudaError_t e_ = (x); printf("%-60s %s\n", #x, cudaGetErrorName(e_)); cudaGetLastError(); } while (0)

int main() {
    void *p = (void *)1;
    cudaMemPool_t pool = nullptr;
    SHOW(cudaMallocAsync(&p, 0, 0));
    printf("size 0 pointer is NULL: %d\n", p == nullptr);
    SHOW(cudaFreeAsync(nullptr, 0));
    SHOW(cudaMallocAsync(nullptr, 16, 0));
    SHOW(cudaMallocFromPoolAsync(&p, 16, nullptr, 0));
    SHOW(cudaDeviceGetDefaultMemPool(&pool, 99));
    SHOW(cudaDeviceGetDefaultMemPool(&pool, -1));
    SHOW(cudaDeviceGetDefaultMemPool(nullptr, 0));
    SHOW(cudaDeviceSetMemPool(0, nullptr));
    SHOW(cudaMemPoolCreate(&pool, nullptr));
    SHOW(cudaMemPoolDestroy(nullptr));
    SHOW(cudaMemPoolTrimTo(nullptr, 0));
    cudaMemPool_t def;
    cudaDeviceGetDefaultMemPool(&def, 0);
    SHOW(cudaMemPoolDestroy(def));
    SHOW(cudaMemPoolGetAttribute(def, (cudaMemPoolAttr)99, &p));
    SHOW(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, nullptr));
    // NVIDIA's runtime dereferences this NULL and the process dies (H100,
    // CUDA 13.0), so the case is left out; tests/ covers our answer.
    SHOW(cudaMemPoolSetAccess(def, nullptr, 0));
#if CUDART_VERSION >= 13000
    // 13-only (CUDA 12 has only cudaDeviceGetDefaultMemPool, shown above).
    cudaMemLocation bad = {cudaMemLocationTypeDevice, 99};
    SHOW(cudaMemGetDefaultMemPool(&pool, &bad, cudaMemAllocationTypePinned));
    SHOW(cudaMemGetDefaultMemPool(&pool, nullptr, cudaMemAllocationTypePinned));
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    SHOW(cudaMemGetDefaultMemPool(&pool, &host, cudaMemAllocationTypePinned));
#endif
    int fd = -1;
    SHOW(cudaMemPoolExportToShareableHandle(&fd, def, cudaMemHandleTypePosixFileDescriptor, 0));

    cudaIpcMemHandle_t h;
    cudaIpcEventHandle_t eh;
    cudaEvent_t ev;
    SHOW(cudaIpcGetMemHandle(&h, nullptr));
    SHOW(cudaIpcGetEventHandle(&eh, nullptr));
    cudaEventCreate(&ev);
    SHOW(cudaIpcGetEventHandle(&eh, ev));
    memset(&h, 0x11, sizeof h);
    SHOW(cudaIpcOpenMemHandle(&p, h, 2));
    SHOW(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
    SHOW(cudaIpcCloseMemHandle(nullptr));

    cudaExternalMemory_t em;
    cudaExternalMemoryHandleDesc md = {};
    md.type = cudaExternalMemoryHandleTypeOpaqueFd;
    md.handle.fd = -1;
    md.size = 4096;
    SHOW(cudaImportExternalMemory(&em, nullptr));
    SHOW(cudaImportExternalMemory(&em, &md));
    SHOW(cudaDestroyExternalMemory(nullptr));
    SHOW(cudaDestroyExternalSemaphore(nullptr));
    SHOW(cudaSignalExternalSemaphoresAsync(nullptr, nullptr, 0, 0));

    cudaTextureObject_t t = 0;
    cudaResourceDesc rd = {};
    cudaTextureDesc td = {};
    SHOW(cudaCreateTextureObject(&t, nullptr, &td, nullptr));
    SHOW(cudaCreateTextureObject(&t, &rd, nullptr, nullptr));
    SHOW(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = nullptr;
    rd.res.linear.desc = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    rd.res.linear.sizeInBytes = 1024;
    SHOW(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    SHOW(cudaDestroyTextureObject(0));
    SHOW(cudaDestroySurfaceObject(0));
    SHOW(cudaGetTextureObjectResourceDesc(&rd, 0));
    cudaSurfaceObject_t s;
    SHOW(cudaCreateSurfaceObject(&s, &rd));
    cudaChannelFormatDesc cd;
    SHOW(cudaGetChannelDesc(&cd, nullptr));

#if CUDART_VERSION >= 13000
    // 13-only: the logs API.
    cudaLogIterator it;
    SHOW(cudaLogsCurrent(&it, 0));
    SHOW(cudaLogsCurrent(&it, 1));
    SHOW(cudaLogsUnregisterCallback(nullptr));
    SHOW(cudaLogsRegisterCallback(nullptr, nullptr, nullptr));
#endif

    cudaGraphicsResource_t r = nullptr;
    SHOW(cudaGraphicsMapResources(0, &r, 0));
    SHOW(cudaGraphicsUnregisterResource(nullptr));
    SHOW(cudaGraphicsResourceSetMapFlags(nullptr, 0));
    printf("done\n");
    return 0;
}
