// CUDA 12's device-number forms on managed memory: cudaMemPrefetchAsync
// (ptr, count, device, stream) and cudaMemAdvise(ptr, count, advice, device),
// cudaCpuDeviceId meaning the host, against their _v2 forms (a
// cudaMemLocation), each checked through cudaMemRangeGetAttribute. The data
// must survive the moves: the host writes, the device sets (cudaMemset), the
// host reads.
#include "check12.h"
#include <cstring>

static int range_attr(void *p, size_t n, cudaMemRangeAttribute a) {
    int v = -77;
    CK(cudaMemRangeGetAttribute(&v, sizeof v, a, p, n));
    return v;
}

static const char *where(int v) {
    if (v == cudaCpuDeviceId) return "host";
    if (v == cudaInvalidDeviceId) return "none";
    if (v == 0) return "device 0";
    return "other";
}

int main() {
    int dev = 0, concurrent = 0;
    CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
    printf("concurrent managed access: %d\n", concurrent);
    const size_t n = 1 << 20;
    unsigned char *m;
    CK(cudaMallocManaged(&m, n));
    memset(m, 3, n);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    if (!concurrent) {
        // Prefetch needs concurrent managed access: the codes alone.
        SHOW(cudaMemPrefetchAsync(m, n, dev, s));
        printf("done\n");
        return 0;
    }

    // Device numbers (12's plain forms).
    CK(cudaMemPrefetchAsync(m, n, dev, s));
    CK(cudaStreamSynchronize(s));
    int last = range_attr(m, n, cudaMemRangeAttributeLastPrefetchLocation);
    printf("prefetch to device %d: last prefetch location %s\n", dev, where(last));
    EXPECT(last == dev);
    CK(cudaMemsetAsync(m, 7, n, s));
    CK(cudaMemPrefetchAsync(m, n, cudaCpuDeviceId, s));
    CK(cudaStreamSynchronize(s));
    last = range_attr(m, n, cudaMemRangeAttributeLastPrefetchLocation);
    printf("prefetch to cudaCpuDeviceId: last prefetch location %s\n", where(last));
    EXPECT(last == cudaCpuDeviceId);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += m[i] != 7;
    printf("after the device's memset, the host reads %zu wrong bytes\n", wrong);
    EXPECT(wrong == 0);

    CK(cudaMemAdvise(m, n, cudaMemAdviseSetPreferredLocation, dev));
    int pref = range_attr(m, n, cudaMemRangeAttributePreferredLocation);
    printf("advise preferred location device %d: %s\n", dev, where(pref));
    EXPECT(pref == dev);
    CK(cudaMemAdvise(m, n, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
    pref = range_attr(m, n, cudaMemRangeAttributePreferredLocation);
    printf("advise preferred location cudaCpuDeviceId: %s\n", where(pref));
    EXPECT(pref == cudaCpuDeviceId);
    CK(cudaMemAdvise(m, n, cudaMemAdviseUnsetPreferredLocation, dev));
    pref = range_attr(m, n, cudaMemRangeAttributePreferredLocation);
    printf("unset preferred location: %s\n", where(pref));
    EXPECT(pref == cudaInvalidDeviceId);
    CK(cudaMemAdvise(m, n, cudaMemAdviseSetReadMostly, dev));
    printf("read mostly: %d\n", range_attr(m, n, cudaMemRangeAttributeReadMostly));
    CK(cudaMemAdvise(m, n, cudaMemAdviseUnsetReadMostly, dev));
    printf("read mostly after unset: %d\n", range_attr(m, n, cudaMemRangeAttributeReadMostly));
    CK(cudaMemAdvise(m, n, cudaMemAdviseSetAccessedBy, dev));
    int by[4] = {-5, -5, -5, -5};
    CK(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, m, n));
    printf("accessed by: %s %s\n", where(by[0]), where(by[1]));
    EXPECT(by[0] == dev);
    CK(cudaMemAdvise(m, n, cudaMemAdviseUnsetAccessedBy, dev));

    // Locations (the _v2 forms): the same answers.
    cudaMemLocation on_dev = {cudaMemLocationTypeDevice, dev}, on_host = {cudaMemLocationTypeHost, 0};
    CK(cudaMemPrefetchAsync_v2(m, n, on_dev, 0, s));
    CK(cudaStreamSynchronize(s));
    last = range_attr(m, n, cudaMemRangeAttributeLastPrefetchLocation);
    int last_type = range_attr(m, n, cudaMemRangeAttributeLastPrefetchLocationType);
    printf("_v2 prefetch to the device: %s, type %d\n", where(last), last_type);
    EXPECT(last == dev && last_type == cudaMemLocationTypeDevice);
    CK(cudaMemPrefetchAsync_v2(m, n, on_host, 0, s));
    CK(cudaStreamSynchronize(s));
    last_type = range_attr(m, n, cudaMemRangeAttributeLastPrefetchLocationType);
    printf("_v2 prefetch to the host: %s, type %d\n", where(range_attr(m, n, cudaMemRangeAttributeLastPrefetchLocation)),
           last_type);
    EXPECT(last_type == cudaMemLocationTypeHost);
    CK(cudaMemAdvise_v2(m, n, cudaMemAdviseSetPreferredLocation, on_dev));
    printf("_v2 advise preferred location: %s, type %d\n", where(range_attr(m, n, cudaMemRangeAttributePreferredLocation)),
           range_attr(m, n, cudaMemRangeAttributePreferredLocationType));
    CK(cudaMemAdvise_v2(m, n, cudaMemAdviseUnsetPreferredLocation, on_dev));

    // Bad device numbers.
    SHOW(cudaMemPrefetchAsync(m, n, 99, s));
    SHOW(cudaMemPrefetchAsync(m, n, -7, s));
    SHOW(cudaMemAdvise(m, n, cudaMemAdviseSetPreferredLocation, 99));
    SHOW(cudaMemAdvise(m, n, (cudaMemoryAdvise)99, dev));
    SHOW(cudaMemPrefetchAsync(nullptr, n, dev, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(m));
    printf("done\n");
    return 0;
}
