/* device_query: every device and every field of cudaDeviceProp.
 *
 * Built against include/cudart_shim.h only and linked to cudart-shim; the
 * same source also builds against NVIDIA's cuda_runtime_api.h
 * (-DUSE_NVIDIA_HEADERS), which is how the GPU check compares the two
 * runtimes' output line by line. */
#ifdef USE_NVIDIA_HEADERS
#include <cuda_runtime_api.h>
#else
#include "cudart_shim.h"
#endif
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorName(e_),         \
                    cudaGetErrorString(e_));                                            \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define I(f) printf("  %-40s %d\n", #f, p.f)
#define U(f) printf("  %-40s %u\n", #f, p.f)
#define Z(f) printf("  %-40s %zu\n", #f, p.f)
#define A2(f) printf("  %-40s %d %d\n", #f, p.f[0], p.f[1])
#define A3(f) printf("  %-40s %d %d %d\n", #f, p.f[0], p.f[1], p.f[2])

int main(void) {
    int rt = 0, drv = 0, n = 0;
    CHECK(cudaRuntimeGetVersion(&rt));
    CHECK(cudaDriverGetVersion(&drv));
    printf("runtime %d, driver %d\n", rt, drv);
    CHECK(cudaGetDeviceCount(&n));
    printf("%d device(s)\n", n);
    for (int d = 0; d < n; d++) {
        struct cudaDeviceProp p;
        CHECK(cudaGetDeviceProperties(&p, d));
        char bus[32];
        CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
        printf("device %d: %s (%s)\n", d, p.name, bus);
        printf("  %-40s", "uuid");
        for (int i = 0; i < 16; i++) printf("%02x", (unsigned char)p.uuid.bytes[i]);
        printf("\n");
        U(luidDeviceNodeMask); Z(totalGlobalMem); Z(sharedMemPerBlock); I(regsPerBlock); I(warpSize);
        Z(memPitch); I(maxThreadsPerBlock); A3(maxThreadsDim); A3(maxGridSize); Z(totalConstMem);
        I(major); I(minor); Z(textureAlignment); Z(texturePitchAlignment); I(multiProcessorCount);
        I(integrated); I(canMapHostMemory); I(maxTexture1D); I(maxTexture1DMipmap); A2(maxTexture2D);
        A2(maxTexture2DMipmap); A3(maxTexture2DLinear); A2(maxTexture2DGather); A3(maxTexture3D);
        A3(maxTexture3DAlt); I(maxTextureCubemap); A2(maxTexture1DLayered); A3(maxTexture2DLayered);
        A2(maxTextureCubemapLayered); I(maxSurface1D); A2(maxSurface2D); A3(maxSurface3D);
        A2(maxSurface1DLayered); A3(maxSurface2DLayered); I(maxSurfaceCubemap);
        A2(maxSurfaceCubemapLayered); Z(surfaceAlignment); I(concurrentKernels); I(ECCEnabled);
        I(pciBusID); I(pciDeviceID); I(pciDomainID); I(tccDriver); I(asyncEngineCount);
        I(unifiedAddressing); I(memoryBusWidth); I(l2CacheSize); I(persistingL2CacheMaxSize);
        I(maxThreadsPerMultiProcessor); I(streamPrioritiesSupported); I(globalL1CacheSupported);
        I(localL1CacheSupported); Z(sharedMemPerMultiprocessor); I(regsPerMultiprocessor);
        I(managedMemory); I(isMultiGpuBoard); I(multiGpuBoardGroupID); I(hostNativeAtomicSupported);
        I(pageableMemoryAccess); I(concurrentManagedAccess); I(computePreemptionSupported);
        I(canUseHostPointerForRegisteredMem); I(cooperativeLaunch); Z(sharedMemPerBlockOptin);
        I(pageableMemoryAccessUsesHostPageTables); I(directManagedMemAccessFromHost);
        I(maxBlocksPerMultiProcessor); I(accessPolicyMaxWindowSize); Z(reservedSharedMemPerBlock);
        I(hostRegisterSupported); I(sparseCudaArraySupported); I(hostRegisterReadOnlySupported);
        I(timelineSemaphoreInteropSupported); I(memoryPoolsSupported); I(gpuDirectRDMASupported);
        U(gpuDirectRDMAFlushWritesOptions); I(gpuDirectRDMAWritesOrdering);
        U(memoryPoolSupportedHandleTypes); I(deferredMappingCudaArraySupported); I(ipcEventSupported);
        I(clusterLaunch); I(unifiedFunctionPointers);
#if CUDART_VERSION >= 13000
        I(deviceNumaConfig); I(deviceNumaId);
        I(mpsEnabled); I(hostNumaId); U(gpuPciDeviceID); U(gpuPciSubsystemID);
        I(hostNumaMultinodeIpcSupported);
#else
        /* CUDA 12's struct (12.9's headers): the fields 13 dropped, and no
         * fields 13 added. */
        I(clockRate); I(memoryClockRate); I(computeMode); I(deviceOverlap); I(kernelExecTimeoutEnabled);
        I(maxTexture1DLinear); I(singleToDoublePrecisionPerfRatio); I(cooperativeMultiDeviceLaunch);
#endif
        int v = 0;
        CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, d));
        printf("  %-40s %d\n", "attr clockRate", v);
        CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, d));
        printf("  %-40s %d\n", "attr memoryClockRate", v);
    }
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    printf("stream priorities %d..%d\n", least, greatest);
    size_t stack = 0;
    CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    printf("stack limit %zu\n", stack);
    unsigned int flags = 0;
    CHECK(cudaGetDeviceFlags(&flags));
    printf("device flags %#x\n", flags);
    return 0;
}
