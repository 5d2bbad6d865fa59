// A kernel that spins on a host-mapped flag until the host clears it
// (gpu/checks/hang_spin.py):  hang_spin SECONDS [BEFORE]
// BEFORE (default 0): that many short kernels `tick` are launched on the
// stream ahead of the spinning one (the watchdog's exact completion with
// `gpu` on must not list them: they finished).
// The host sleeps SECONDS (in no CUDA call) while the kernel spins, clears
// the flag, synchronizes, then works 1.5 s more (the watchdog's tick sees
// the stream complete before the program ends). The output is the same
// whatever SECONDS and whichever runtime.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void spin_on_flag(volatile int *flag, int *spins) {
    long long n = 0;
    while (*flag) n++;
    *spins = n > 0 ? 1 : 0;
}

__global__ void tick(int *p) {
    if (p) *p += 1;
}

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e_)); return 1; } } while (0)

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 12;
    int before = argc > 2 ? atoi(argv[2]) : 0;
    int *flag = nullptr, *dflag = nullptr, *spins = nullptr;
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    CHECK(cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void **)&dflag, flag, 0));
    CHECK(cudaMallocManaged(&spins, sizeof(int)));
    *flag = 1;
    *spins = -1;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < before; i++) tick<<<1, 1, 0, s>>>(nullptr);
    spin_on_flag<<<1, 1, 0, s>>>(dflag, spins);
    CHECK(cudaGetLastError());
    printf("launched\n");
    fflush(stdout);
    sleep(seconds);
    __atomic_store_n(flag, 0, __ATOMIC_SEQ_CST);
    CHECK(cudaStreamSynchronize(s));
    usleep(1500000);
    printf("spin_on_flag returned, spun: %d\n", *spins);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(flag));
    CHECK(cudaFree(spins));
    return 0;
}
