// Micro-benchmark registry for benches/gpu/*.cu. Each file registers
// benchmarks with BENCH(name) { ... body run `iters` times ... }; main.cu
// runs them all (or those matching argv[1]) and prints "name<TAB>ns/op".
#pragma once
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

struct Bench {
    const char *name;
    // Runs the operation `iters` times and returns the elapsed nanoseconds
    // (so a benchmark can exclude its own setup).
    std::function<double(long iters)> run;
};

inline std::vector<Bench> &bench_registry() {
    static std::vector<Bench> r;
    return r;
}

struct BenchReg {
    BenchReg(const char *n, std::function<double(long)> f) { bench_registry().push_back({n, f}); }
};

#define BENCH_CAT2(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)
// BENCH(name) declares `static double body(long iters)`.
#define BENCH(name)                                                                 \
    static double BENCH_CAT(bench_, name)(long iters);                              \
    static BenchReg BENCH_CAT(reg_, name)(#name, BENCH_CAT(bench_, name));          \
    static double BENCH_CAT(bench_, name)(long iters)

inline double now_ns() {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define CK(call)                                                                    \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,            \
                    cudaGetErrorName(e_));                                          \
            exit(1);                                                                \
        }                                                                           \
    } while (0)
