// 12.9's cudaDeviceProp (1032 bytes) through both exports: plain
// cudaGetDeviceProperties (what binaries from before CUDA 12 call; it writes
// 728 bytes) and cudaGetDeviceProperties_v2 (what 12.x's header calls; 780
// bytes). Fields are checked against cudaDeviceGetAttribute, the deprecated
// ones 13 dropped included (12 still fills them), and nothing may be written
// past each form's end. Prints the deprecated fields' values: NVIDIA's 12.9
// and ours read the same device, so they must agree.
#include "check12.h"
#include <cstring>

static int first_written(const unsigned char *p, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        if (p[i] != 0xAB) return (int)i;
    return -1;
}

struct Field {
    const char *name;
    long long value;
    cudaDeviceAttr attr;
    bool deprecated;  // dropped from cudaDeviceProp in 13
};

static void check(const char *form, const cudaDeviceProp &p, int dev, bool v2) {
    Field f[] = {
        {"major", p.major, cudaDevAttrComputeCapabilityMajor, false},
        {"minor", p.minor, cudaDevAttrComputeCapabilityMinor, false},
        {"multiProcessorCount", p.multiProcessorCount, cudaDevAttrMultiProcessorCount, false},
        {"warpSize", p.warpSize, cudaDevAttrWarpSize, false},
        {"maxThreadsPerBlock", p.maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, false},
        {"maxGridSize[0]", p.maxGridSize[0], cudaDevAttrMaxGridDimX, false},
        {"l2CacheSize", p.l2CacheSize, cudaDevAttrL2CacheSize, false},
        {"memoryBusWidth", p.memoryBusWidth, cudaDevAttrGlobalMemoryBusWidth, false},
        {"pciBusID", p.pciBusID, cudaDevAttrPciBusId, false},
        {"managedMemory", p.managedMemory, cudaDevAttrManagedMemory, false},
        {"concurrentManagedAccess", p.concurrentManagedAccess, cudaDevAttrConcurrentManagedAccess, false},
        {"cooperativeLaunch", p.cooperativeLaunch, cudaDevAttrCooperativeLaunch, false},
        {"maxBlocksPerMultiProcessor", p.maxBlocksPerMultiProcessor, cudaDevAttrMaxBlocksPerMultiprocessor, false},
        {"reservedSharedMemPerBlock", (long long)p.reservedSharedMemPerBlock, cudaDevAttrReservedSharedMemoryPerBlock, false},
        {"clockRate", p.clockRate, cudaDevAttrClockRate, true},
        {"memoryClockRate", p.memoryClockRate, cudaDevAttrMemoryClockRate, true},
        {"computeMode", p.computeMode, cudaDevAttrComputeMode, true},
        {"deviceOverlap", p.deviceOverlap, cudaDevAttrGpuOverlap, true},
        {"kernelExecTimeoutEnabled", p.kernelExecTimeoutEnabled, cudaDevAttrKernelExecTimeout, true},
        {"maxTexture1DLinear", p.maxTexture1DLinear, cudaDevAttrMaxTexture1DLinearWidth, true},
        {"singleToDoublePrecisionPerfRatio", p.singleToDoublePrecisionPerfRatio, cudaDevAttrSingleToDoublePrecisionPerfRatio, true},
        {"cooperativeMultiDeviceLaunch", p.cooperativeMultiDeviceLaunch, cudaDevAttrCooperativeMultiDeviceLaunch, true},
    };
    int bad = 0;
    for (const Field &x : f) {
        int a = -12345;
        CK(cudaDeviceGetAttribute(&a, x.attr, dev));
        if (x.value != a) {
            printf("%s: %s = %lld but attribute %d = %d\n", form, x.name, x.value, (int)x.attr, a);
            bad++;
        }
        if (x.deprecated) printf("%s: %s %lld\n", form, x.name, x.value);
    }
    // Fields past 728 bytes: only the _v2 form writes them.
    if (v2) {
        Field g[] = {
            {"memoryPoolsSupported", p.memoryPoolsSupported, cudaDevAttrMemoryPoolsSupported, false},
            {"clusterLaunch", p.clusterLaunch, cudaDevAttrClusterLaunch, false},
            {"ipcEventSupported", p.ipcEventSupported, cudaDevAttrIpcEventSupport, false},
            {"hostRegisterSupported", p.hostRegisterSupported, cudaDevAttrHostRegisterSupported, false},
        };
        for (const Field &x : g) {
            int a = -12345;
            CK(cudaDeviceGetAttribute(&a, x.attr, dev));
            if (x.value != a) {
                printf("%s: %s = %lld but attribute %d = %d\n", form, x.name, x.value, (int)x.attr, a);
                bad++;
            }
        }
    }
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    printf("%s: name set %d, totalGlobalMem is cudaMemGetInfo's total %d, %d field(s) differ from their attribute\n",
           form, p.name[0] != 0, p.totalGlobalMem == total_b, bad);
    EXPECT(bad == 0 && p.name[0] != 0 && p.totalGlobalMem == total_b);
}

int main() {
    printf("sizeof(cudaDeviceProp) %zu\n", sizeof(cudaDeviceProp));
    EXPECT(sizeof(cudaDeviceProp) == 1032);
    int dev = 0;
    CK(cudaSetDevice(dev));

    static unsigned char plain_buf[sizeof(cudaDeviceProp)], v2_buf[sizeof(cudaDeviceProp)];
    memset(plain_buf, 0xAB, sizeof plain_buf);
    memset(v2_buf, 0xAB, sizeof v2_buf);
    cudaDeviceProp *plain = (cudaDeviceProp *)plain_buf, *v2 = (cudaDeviceProp *)v2_buf;
    CK(cudaGetDeviceProperties(plain, dev));
    CK(cudaGetDeviceProperties_v2(v2, dev));
    int past_plain = first_written(plain_buf, 728, sizeof plain_buf);
    int past_v2 = first_written(v2_buf, 780, sizeof v2_buf);
    printf("plain: first byte written past 728: %d\n", past_plain);
    printf("_v2: first byte written past 780: %d\n", past_v2);
    EXPECT(past_plain == -1 && past_v2 == -1);
    check("plain", *plain, dev, false);
    check("_v2", *v2, dev, true);
    // What both write is the same struct (padding included: both start from
    // the same guard bytes).
    int same = memcmp(plain_buf, v2_buf, 728) == 0;
    printf("plain and _v2 agree on the first 728 bytes: %d\n", same);
    EXPECT(same);

    // cudaChooseDevice reads 12.9's layout too: asking for this device's
    // compute capability picks a device of it.
    cudaDeviceProp want;
    memset(&want, 0, sizeof want);
    want.major = v2->major;
    want.minor = v2->minor;
    int chosen = -1;
    CK(cudaChooseDevice(&chosen, &want));
    cudaDeviceProp got;
    CK(cudaGetDeviceProperties_v2(&got, chosen));
    printf("cudaChooseDevice: a device of compute capability %d.%d: %d\n", want.major, want.minor,
           got.major == want.major && got.minor == want.minor);
    EXPECT(got.major == want.major);

    SHOW(cudaGetDeviceProperties(nullptr, dev));
    SHOW(cudaGetDeviceProperties_v2(nullptr, dev));
    SHOW(cudaGetDeviceProperties(plain, 99));
    SHOW(cudaGetDeviceProperties_v2(v2, -1));
    printf("done\n");
    return 0;
}
