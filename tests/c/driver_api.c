/* A driver-API program, as CuPy or cuda-python use the driver: linked to
 * libcuda.so.1 (-lcuda), no CUDA runtime. Used by tests/interposer.rs over
 * the fake driver (with the interposer first on the library path) and on the
 * GPU. Prints one line per step; exits with the status given as argv[1]
 * (default 0) once done, so tests can check the exit status is kept.
 * argv[2], if given, adds a profiler window right after the context is made
 * current: cuProfilerStart, 3 cuDeviceGetAttribute, cuProfilerStop, called
 * by name ("profiler") or through pointers from cuGetProcAddress
 * ("profiler-gpa", as NVIDIA's static runtime reaches them).
 * With no driver it prints what cuInit answered and exits 3. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cudaProfiler.h (which declares these) is not in the CUDA wheel we pin. */
CUresult CUDAAPI cuProfilerStart(void);
CUresult CUDAAPI cuProfilerStop(void);

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *n_ = NULL; cuGetErrorName(r_, &n_); \
    printf("%s = %d (%s)\n", #x, (int)r_, n_ ? n_ : "?"); return 2; } } while (0)

int main(int argc, char **argv) {
    int status = argc > 1 ? atoi(argv[1]) : 0;
    CUresult r = cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char *n = NULL;
        cuGetErrorName(r, &n);
        printf("cuInit = %d (%s)\n", (int)r, n ? n : "?");
        return 3;
    }
    int version = 0, count = 0;
    CK(cuDriverGetVersion(&version));
    CK(cuDeviceGetCount(&count));
    printf("driver %d, %d device(s)\n", version, count);
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    int warp = 0;
    CK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    const char *mode = argc > 2 ? argv[2] : "";
    if (!strcmp(mode, "profiler") || !strcmp(mode, "profiler-gpa")) {
        CUresult (*start)(void) = cuProfilerStart, (*stop)(void) = cuProfilerStop;
        if (!strcmp(mode, "profiler-gpa")) {
            void *p1 = NULL, *p2 = NULL;
            CUdriverProcAddressQueryResult q;
            CK(cuGetProcAddress("cuProfilerStart", &p1, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &q));
            CK(cuGetProcAddress("cuProfilerStop", &p2, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &q));
            start = (CUresult(*)(void))p1;
            stop = (CUresult(*)(void))p2;
        }
        CK(start());
        for (int i = 0; i < 3; i++) CK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
        CK(stop());
        printf("profiler window (%s) done\n", mode);
    }
    CUdeviceptr d;
    CK(cuMemAlloc(&d, 1 << 20));
    static unsigned char host[1 << 20];
    for (int i = 0; i < (1 << 20); i++) host[i] = (unsigned char)i;
    CK(cuMemcpyHtoD(d, host, sizeof host));
    CK(cuMemsetD8(d, 7, 16));
    CK(cuMemcpyDtoH(host, d, sizeof host));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < 10; i++) {
        CUresult q = cuStreamQuery(s);
        if (q != CUDA_SUCCESS && q != CUDA_ERROR_NOT_READY) CK(q);
    }
    CK(cuStreamSynchronize(s));
    CK(cuStreamDestroy(s));
    /* An error on purpose: counted under its CUresult name. */
    CUdevice bad;
    r = cuDeviceGet(&bad, 9999);
    printf("cuDeviceGet(9999) = %d\n", (int)r);
    /* An entry point fetched the way NVIDIA's runtime and PyTorch do. */
    void *pfn = NULL;
    CUdriverProcAddressQueryResult qr;
    CK(cuGetProcAddress("cuCtxGetCurrent", &pfn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &qr));
    CUcontext cur = NULL;
    CK(((CUresult(*)(CUcontext *))pfn)(&cur));
    printf("cuCtxGetCurrent via cuGetProcAddress: %s\n", cur == ctx ? "same context" : "other context");
    /* An entry point the interposer has no signature for (its CUoutput_mode
     * parameter is declared only in cudaProfiler.h, which we lack): handed
     * out as the driver gave it, untraced. */
    void *prof = NULL;
    if (cuGetProcAddress("cuProfilerInitialize", &prof, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &qr) == CUDA_SUCCESS && prof)
        printf("cuProfilerInitialize = %d\n",
               (int)((CUresult(*)(const char *, const char *, int))prof)("", "/dev/null", 0));
    CK(cuMemFree(d));
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("host[0]=%d host[100]=%d\n", host[0], host[100]);
    return status;
}
