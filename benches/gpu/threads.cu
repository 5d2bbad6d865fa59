// 8 threads launching an empty kernel on their own streams: the cost per
// launch when threads run concurrently (any global lock shows up here).
#include "bench.h"
#include <thread>

__global__ void threads_empty_kernel() {}

BENCH(launch_8_threads_own_streams) {
    const int T = 8;
    cudaStream_t s[T];
    for (int i = 0; i < T; i++) CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    threads_empty_kernel<<<1, 1, 0, s[0]>>>();
    CK(cudaDeviceSynchronize());
    long per = iters / T + 1;
    double t0 = now_ns();
    std::thread th[T];
    for (int i = 0; i < T; i++)
        th[i] = std::thread([&, i] {
            CK(cudaSetDevice(0));
            for (long k = 0; k < per; k++) threads_empty_kernel<<<1, 1, 0, s[i]>>>();
            CK(cudaStreamSynchronize(s[i]));
        });
    for (auto &t : th) t.join();
    double dt = now_ns() - t0;
    for (int i = 0; i < T; i++) CK(cudaStreamDestroy(s[i]));
    return dt * iters / (per * T);
}
