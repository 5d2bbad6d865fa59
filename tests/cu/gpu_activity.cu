// GPU activity (CUDART_SHIM_TRACE=gpu) over the fake driver and fake CUPTI
// (tests/gpu_activity.rs), and on a GPU (gpu/checks/activity/activity.py).
//   gpu_activity basic      : a known set of kernels, copies and a memset
//   gpu_activity fork       : basic, then a forked child that exits at once
//   gpu_activity load T N   : T threads, each N launches on its own stream
//   gpu_activity bench B N  : B batches of N empty-kernel launches; prints the
//                             median host time per launch (the launch loop
//                             alone, the queue drained between batches)
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>

#define CK(call)                                                                 \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #call,           \
                   cudaGetErrorName(e_));                                        \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

template <typename T> __global__ void fill(T *p, T v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }
__global__ void empty() {}

static void basic() {
    float *d = nullptr;
    CK(cudaMalloc(&d, 1 << 20));
    static char host[8192];
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    for (int i = 0; i < 3; i++) fill<float><<<2, 64>>>(d, 1.0f);
    for (int i = 0; i < 2; i++) empty<<<1, 1, 0, s>>>();
    CK(cudaGetLastError());
    CK(cudaMemcpy(d, host, 4096, cudaMemcpyHostToDevice));
    for (int i = 0; i < 2; i++) CK(cudaMemcpy(host, d, 1024, cudaMemcpyDeviceToHost));
    CK(cudaMemsetAsync(d, 0, 2000, s));
    CK(cudaDeviceSynchronize());
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    printf("basic done\n");
}

static void load(int threads, int n) {
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; t++)
        ts.emplace_back([n] {
            cudaStream_t s;
            CK(cudaStreamCreate(&s));
            for (int i = 0; i < n; i++) empty<<<1, 1, 0, s>>>();
            CK(cudaStreamSynchronize(s));
            CK(cudaStreamDestroy(s));
        });
    for (auto &t : ts) t.join();
    printf("load done %d\n", threads * n);
}

static double now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void bench(int batches, int n) {
    std::vector<double> per;
    for (int b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (int i = 0; i < n; i++) empty<<<1, 1>>>();
        double t1 = now_ns();
        CK(cudaDeviceSynchronize());
        if (b > 0) per.push_back((t1 - t0) / n);  // the first warms up
    }
    std::sort(per.begin(), per.end());
    printf("launch_ns %.1f\n", per[per.size() / 2]);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "bench")) bench(argc > 2 ? atoi(argv[2]) : 50, argc > 3 ? atoi(argv[3]) : 256);
    else if (argc > 1 && !strcmp(argv[1], "load")) load(argc > 2 ? atoi(argv[2]) : 4, argc > 3 ? atoi(argv[3]) : 1000);
    else basic();
    if (argc > 1 && !strcmp(argv[1], "fork")) {
        pid_t c = fork();
        if (c == 0) exit(0);
        int st = 0;
        waitpid(c, &st, 0);
    }
    return 0;
}
