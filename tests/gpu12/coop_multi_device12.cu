// cudaLaunchCooperativeKernelMultiDevice (CUDA 12 only, deprecated) with a
// one-device list. Prints the launch's return code by name; when it
// launches, the kernel's result is checked. Kept apart from the other
// programs: whether a device takes multi-device cooperative launches
// (cudaDevAttrCooperativeMultiDeviceLaunch, printed) decides the code.
#include "check12.h"

__global__ void fill(int *out, int v) { out[blockIdx.x * blockDim.x + threadIdx.x] = v + (int)threadIdx.x; }

int main() {
    CK(cudaSetDevice(0));
    int multi = -1, coop = -1;
    CK(cudaDeviceGetAttribute(&multi, cudaDevAttrCooperativeMultiDeviceLaunch, 0));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    printf("cooperative launch %d, multi-device cooperative launch %d\n", coop, multi);
    int *d;
    CK(cudaMalloc(&d, 64 * sizeof(int)));
    CK(cudaMemset(d, 0, 64 * sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int v = 40;
    void *args[] = {&d, &v};
    cudaLaunchParams p = {};
    p.func = (void *)fill;
    p.gridDim = dim3(2);
    p.blockDim = dim3(32);
    p.args = args;
    p.sharedMem = 0;
    p.stream = s;
    cudaError_t e = cudaLaunchCooperativeKernelMultiDevice(&p, 1, 0);
    printf("cudaLaunchCooperativeKernelMultiDevice(one device) -> %s (last %s)\n", cudaGetErrorName(e),
           cudaGetErrorName(cudaGetLastError()));
    if (e == cudaSuccess) {
        int h[64];
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int i = 0; i < 64; i++) wrong += h[i] != 40 + i % 32;
        printf("kernel ran: %d wrong values\n", wrong);
        EXPECT(wrong == 0);
    } else {
        EXPECT(e == cudaErrorNotSupported || e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorInvalidConfiguration);
    }
    // Argument errors: no list, no devices, a flag it does not know.
    SHOW(cudaLaunchCooperativeKernelMultiDevice(nullptr, 1, 0));
    SHOW(cudaLaunchCooperativeKernelMultiDevice(&p, 0, 0));
    SHOW(cudaLaunchCooperativeKernelMultiDevice(&p, 1, 4));
    CK(cudaStreamSynchronize(s));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    printf("done\n");
    return 0;
}
