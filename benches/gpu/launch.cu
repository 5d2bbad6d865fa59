// Launch cost: an empty kernel through <<<>>> (nvcc's __cudaLaunchKernel
// path), through cudaLaunchKernel, and the same kernel through the driver's
// cuLaunchKernel directly (the floor both runtimes sit on). Only the host
// time of the launch calls is measured: launches go in batches of 256
// (below the driver's queue depth) with an untimed synchronize between
// batches, so a full queue never stalls the launching thread.
//
// Our cost above the driver floor = launch_chevron - launch_driver; compare
// it with NVIDIA's (run the same binary with each libcudart.so.13).
#include "bench.h"
#include <cuda.h>
#include <cudaTypedefs.h>

// The driver's cuLaunchKernel, from the driver itself (no -lcuda needed).
static PFN_cuLaunchKernel_v4000 driver_launch() {
    static PFN_cuLaunchKernel_v4000 f = nullptr;
    if (!f) {
        cudaDriverEntryPointQueryResult st;
        CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", (void **)&f, 13000, cudaEnableDefault, &st));
        if (!f) {
            fprintf(stderr, "no cuLaunchKernel in the driver\n");
            exit(1);
        }
    }
    return f;
}

__global__ void empty_kernel() {}
__global__ void args_kernel(int a, float b, void *p, long long q) {
    if (a == -1) *(float *)p = b + q;
}

static const long BATCH = 256;

template <typename F> static double batched(long iters, F launch) {
    double t = 0;
    for (long done = 0; done < iters;) {
        long n = iters - done < BATCH ? iters - done : BATCH;
        double t0 = now_ns();
        for (long i = 0; i < n; i++) launch();
        t += now_ns() - t0;
        done += n;
        CK(cudaDeviceSynchronize());
    }
    return t;
}

BENCH(launch_chevron) {
    return batched(iters, [] { empty_kernel<<<1, 1>>>(); });
}

BENCH(launch_chevron_4args) {
    return batched(iters, [] { args_kernel<<<1, 32>>>(1, 2.0f, nullptr, 3); });
}

BENCH(launch_cudaLaunchKernel) {
    return batched(iters, [] { CK(cudaLaunchKernel((const void *)empty_kernel, dim3(1), dim3(1), nullptr, 0, 0)); });
}

BENCH(launch_driver) {
    cudaFunction_t f;
    CK(cudaGetFuncBySymbol(&f, (const void *)empty_kernel));
    CUfunction cf = (CUfunction)f;
    auto launch = driver_launch();
    return batched(iters, [cf, launch] {
        if (launch(cf, 1, 1, 1, 1, 1, 1, 0, 0, nullptr, nullptr) != CUDA_SUCCESS) {
            fprintf(stderr, "cuLaunchKernel failed\n");
            exit(1);
        }
    });
}

BENCH(launch_driver_4args) {
    cudaFunction_t f;
    CK(cudaGetFuncBySymbol(&f, (const void *)args_kernel));
    CUfunction cf = (CUfunction)f;
    auto launch = driver_launch();
    return batched(iters, [cf, launch] {
        int a = 1;
        float b = 2.0f;
        void *p = nullptr;
        long long q = 3;
        void *args[] = {&a, &b, &p, &q};
        if (launch(cf, 1, 1, 1, 32, 1, 1, 0, 0, args, nullptr) != CUDA_SUCCESS) {
            fprintf(stderr, "cuLaunchKernel failed\n");
            exit(1);
        }
    });
}
