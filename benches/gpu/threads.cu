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

// 1, 8 and 32 threads, each launching an empty kernel on its own stream,
// by `<<<>>>` (nvcc's stub: a cached kernel handle) and by cudaLaunchKernel
// with the host stub (the runtime looks the stub up on every call). Figures
// are wall time per launch of all threads together; a lock on the lookup
// shows up as cudaLaunchKernel scaling worse than `<<<>>>`.
template <bool BY_STUB>
static double launch_threads(int T, long iters) {
    cudaStream_t s[32];
    for (int i = 0; i < T; i++) CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    threads_empty_kernel<<<1, 1, 0, s[0]>>>();
    CK(cudaDeviceSynchronize());
    long per = iters / T + 1;
    double t0 = now_ns();
    std::thread th[32];
    for (int i = 0; i < T; i++)
        th[i] = std::thread([&, i] {
            CK(cudaSetDevice(0));
            for (long k = 0; k < per; k++) {
                if (BY_STUB)
                    CK(cudaLaunchKernel((const void *)threads_empty_kernel, dim3(1), dim3(1), nullptr, 0, s[i]));
                else
                    threads_empty_kernel<<<1, 1, 0, s[i]>>>();
            }
            CK(cudaStreamSynchronize(s[i]));
        });
    for (int i = 0; i < T; i++) th[i].join();
    double dt = now_ns() - t0;
    for (int i = 0; i < T; i++) CK(cudaStreamDestroy(s[i]));
    return dt * iters / (per * T);
}

BENCH(launch_threads_chevron_1) { return launch_threads<false>(1, iters); }
BENCH(launch_threads_chevron_8) { return launch_threads<false>(8, iters); }
BENCH(launch_threads_chevron_32) { return launch_threads<false>(32, iters); }
BENCH(launch_threads_cudaLaunchKernel_1) { return launch_threads<true>(1, iters); }
BENCH(launch_threads_cudaLaunchKernel_8) { return launch_threads<true>(8, iters); }
BENCH(launch_threads_cudaLaunchKernel_32) { return launch_threads<true>(32, iters); }
